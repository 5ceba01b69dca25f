//! Python's `shlex.split(text)` (POSIX mode, no comments), state machine for state machine, so
//! arguments split into the same words: `Err` where Python raises ValueError (unbalanced quotes,
//! a trailing backslash).

const WHITESPACE: &str = " \t\r\n"; // shlex's, not str.isspace's
const QUOTES: &str = "'\"";
const ESCAPE: char = '\\';
const ESCAPED_QUOTES: &str = "\"";

#[derive(Clone, Copy, PartialEq)]
enum State {
    Space,
    Word,
    Quote(char),
    Escape(char),
    End,
}

pub fn split(text: &str) -> Result<Vec<String>, &'static str> {
    let mut chars = text.chars();
    let mut state = State::Space;
    let mut words = Vec::new();
    loop {
        let (token, quoted, next) = read_token(&mut chars, state)?;
        state = next;
        match token {
            Some(t) => words.push(t),
            None if quoted => words.push(String::new()),
            None => return Ok(words),
        }
    }
}

/// One token (shlex.read_token): `None` at the end unless quoted.
fn read_token(
    chars: &mut std::str::Chars<'_>,
    mut state: State,
) -> Result<(Option<String>, bool, State), &'static str> {
    let mut token = String::new();
    let mut quoted = false;
    let mut escaped_state = State::Space;
    loop {
        let next = if state == State::End { None } else { chars.next() };
        match state {
            State::End => break,
            State::Space => match next {
                None => {
                    state = State::End;
                    break;
                }
                Some(c) if WHITESPACE.contains(c) => {
                    if !token.is_empty() || quoted {
                        break;
                    }
                }
                Some(ESCAPE) => {
                    escaped_state = State::Word;
                    state = State::Escape(ESCAPE);
                }
                Some(c) if QUOTES.contains(c) => state = State::Quote(c),
                Some(c) => {
                    token.push(c);
                    state = State::Word;
                }
            },
            State::Quote(q) => {
                quoted = true;
                match next {
                    None => return Err("No closing quotation"),
                    Some(c) if c == q => state = State::Word,
                    Some(ESCAPE) if ESCAPED_QUOTES.contains(q) => {
                        escaped_state = state;
                        state = State::Escape(ESCAPE);
                    }
                    Some(c) => token.push(c),
                }
            }
            State::Escape(e) => {
                let c = next.ok_or("No escaped character")?;
                // In POSIX shells only the quote itself or the escape character may be escaped
                // within quotes.
                if let State::Quote(q) = escaped_state {
                    if c != e && c != q {
                        token.push(e);
                    }
                }
                token.push(c);
                state = escaped_state;
            }
            State::Word => match next {
                None => {
                    state = State::End;
                    break;
                }
                Some(c) if WHITESPACE.contains(c) => {
                    state = State::Space;
                    if !token.is_empty() || quoted {
                        break;
                    }
                }
                Some(c) if QUOTES.contains(c) => state = State::Quote(c),
                Some(ESCAPE) => {
                    escaped_state = State::Word;
                    state = State::Escape(ESCAPE);
                }
                Some(c) => token.push(c),
            },
        }
    }
    if token.is_empty() && !quoted {
        return Ok((None, false, state));
    }
    Ok((Some(token), quoted, state))
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn like_python() {
        assert_eq!(split(r#"a "b c" 'd e' f\ g"#).unwrap(), ["a", "b c", "d e", "f g"]);
        assert_eq!(split(r#"a "" b"#).unwrap(), ["a", "", "b"]);
        assert_eq!(split(r#""a\"b\x""#).unwrap(), [r#"a"b\x"#]);
        assert_eq!(split("  ").unwrap(), Vec::<String>::new());
        assert!(split("a 'b").is_err());
        assert!(split("a\\").is_err());
    }
}
