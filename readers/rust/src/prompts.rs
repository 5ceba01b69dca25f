//! Tool results the reader renders: a loaded skill's `<skill_content>`, and argument
//! substitution (prompts.py).

use crate::format::{escape_attr, escape_delimiter, escape_text};
use crate::json::Json;
use crate::records::LoadedSkill;
use crate::unicode::split_whitespace;

/// A skill's arguments: a line as typed (split shell-style into words), or the words themselves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Args {
    Line(String),
    Words(Vec<String>),
}

impl From<&str> for Args {
    fn from(line: &str) -> Self {
        Args::Line(line.to_string())
    }
}

impl From<String> for Args {
    fn from(line: String) -> Self {
        Args::Line(line)
    }
}

impl From<Vec<String>> for Args {
    fn from(words: Vec<String>) -> Self {
        Args::Words(words)
    }
}

impl From<&[&str]> for Args {
    fn from(words: &[&str]) -> Self {
        Args::Words(words.iter().map(|w| w.to_string()).collect())
    }
}

/// sven's `<skill_content>` tool result: body, bundled files, sub-skill hint, knowledge docs.
pub fn render_skill(s: &LoadedSkill) -> String {
    let mut parts = vec![
        format!("<skill_content command=\"{}\" name=\"{}\">", escape_attr(&s.command), escape_attr(&s.name)),
        s.body.trim_end_matches('\n').to_string(),
        String::new(),
    ];
    if !s.files.is_empty() {
        parts.push("Bundled files (load with the resource tool, paths relative to this skill):".into());
        parts.extend(s.files.iter().map(|f| format!("  - {}", f)));
        parts.push(String::new());
    }
    if !s.sub_skills.is_empty() {
        parts.push("<sub_skills>".into());
        parts.push("<!-- Call load_skill(command) to load any sub-skill's full instructions. -->".into());
        parts.extend(s.sub_skills.iter().map(|c| {
            format!(
                "  <sub_skill command=\"{}\" name=\"{}\">{}</sub_skill>",
                escape_attr(&c.command),
                escape_attr(&c.name),
                escape_text(&c.description)
            )
        }));
        parts.push("</sub_skills>".into());
    }
    if !s.knowledge.is_empty() {
        parts.push("Relevant knowledge docs (use search_knowledge or read_file to load):".into());
        parts.extend(s.knowledge.iter().map(|k| format!("  - {}", k)));
    }
    parts.push("</skill_content>".into());
    parts.join("\n") + "\n"
}

/// Claude Code's argument substitution (prompts.py `substitute`, docs/format.md).
///
/// `$ARGUMENTS` is the argument line as typed; `$ARGUMENTS[N]` and `$N` (0-based) its
/// shell-style words, unchanged when there is no such word; `$name` for each name of the
/// skill's `arguments:` list the word at that position (empty when missing); `\$1` stays `$1`
/// (a doubled backslash does not escape). Without `$ARGUMENTS` in the body, given arguments are
/// appended as `ARGUMENTS: <value>`. `${CLAUDE_SKILL_DIR}` becomes `skill_dir` when given.
pub fn substitute(body: &str, args: Option<&Args>, names: &[String], skill_dir: Option<&str>) -> String {
    if args.is_none() && skill_dir.is_none() {
        return body.to_string();
    }
    let (raw, parts) = match args {
        None => (String::new(), Vec::new()),
        Some(Args::Line(line)) => (line.clone(), split_args(line)),
        Some(Args::Words(words)) => (words.join(" "), words.clone()),
    };
    let sub = Substitution {
        raw: escape_delimiter(&raw),
        parts: parts.iter().map(|p| escape_delimiter(p)).collect(),
        named: named_positions(names),
        given: args.is_some(),
        skill_dir,
    };
    let (mut out, used) = sub.run(body);
    if args.is_some() && !used && !sub.raw.is_empty() {
        out = format!("{}\n\nARGUMENTS: {}\n", out.trim_end_matches('\n'), sub.raw);
    }
    out
}

/// The words of an argument line: shell-style, or split on whitespace when its quotes do not
/// balance.
fn split_args(line: &str) -> Vec<String> {
    crate::shlex::split(line).unwrap_or_else(|_| split_whitespace(line))
}

/// The `arguments:` frontmatter list (the build wrote a list; a string is read as its words).
pub fn names(value: Option<&Json>) -> Vec<String> {
    match value {
        Some(Json::Str(s)) => split_whitespace(s),
        Some(Json::Array(items)) => items.iter().filter_map(|v| v.as_str().map(str::to_string)).collect(),
        _ => Vec::new(),
    }
}

/// Usable names with the position each stands for (the last, when a name repeats), in the order
/// the pattern tries them: longest first, then first seen.
fn named_positions(names: &[String]) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for (i, n) in names.iter().enumerate() {
        if !is_name_arg(n) {
            continue;
        }
        match out.iter_mut().find(|(m, _)| m == n) {
            Some(slot) => slot.1 = i,
            None => out.push((n.clone(), i)),
        }
    }
    out.sort_by_key(|(name, _)| std::cmp::Reverse(name.len())); // stable, as Python's sorted
    out
}

/// A usable `arguments:` name: `[A-Za-z_][A-Za-z0-9_-]*`.
fn is_name_arg(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().map_or(false, |c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

struct Substitution<'a> {
    raw: String,
    parts: Vec<String>,
    named: Vec<(String, usize)>,
    given: bool,
    skill_dir: Option<&'a str>,
}

/// What a placeholder found at a `$` is.
enum Placeholder<'t> {
    Dir,
    Index(&'t str),
    Name(usize),
    Arguments,
}

impl Substitution<'_> {
    /// The body with every placeholder replaced, and whether an argument placeholder was used.
    ///
    /// This is `re.sub` of the pattern in prompts.py: scanning left to right, a match is a run
    /// of backslashes (maybe empty) then a placeholder; where none starts, one character is kept.
    fn run(&self, body: &str) -> (String, bool) {
        let mut out = String::with_capacity(body.len());
        let mut used = false;
        let mut i = 0;
        while i < body.len() {
            let slashes = body[i..].bytes().take_while(|&b| b == b'\\').count();
            let at = i + slashes;
            if let Some((placeholder, end)) = self.placeholder(body, at) {
                let token = &body[at..end];
                let run = &body[i..at];
                out.push_str(&self.replace(run, token, placeholder, &mut used));
                i = end;
            } else {
                let c = body[i..].chars().next().map_or(1, char::len_utf8);
                out.push_str(&body[i..i + c]);
                i += c;
            }
        }
        (out, used)
    }

    fn replace(&self, slashes: &str, token: &str, placeholder: Placeholder<'_>, used: &mut bool) -> String {
        if slashes.len() % 2 == 1 {
            // escaped: drop the escaping backslash, keep the placeholder
            return format!("{}{}", &slashes[1..], token);
        }
        let value = match placeholder {
            Placeholder::Dir => self.skill_dir.unwrap_or(token).to_string(),
            _ if !self.given => token.to_string(),
            Placeholder::Index(digits) => {
                *used = true;
                self.word(digits).unwrap_or(token).to_string()
            }
            Placeholder::Name(i) => {
                *used = true;
                self.parts.get(i).cloned().unwrap_or_default()
            }
            Placeholder::Arguments => {
                *used = true;
                self.raw.clone()
            }
        };
        format!("{}{}", slashes, value)
    }

    /// The word a run of decimal digits names (a huge index names none).
    fn word(&self, digits: &str) -> Option<&str> {
        if digits.len() >= 10 {
            return None;
        }
        self.parts.get(digits.parse::<usize>().ok()?).map(String::as_str)
    }

    /// The placeholder that starts at byte `at`, with the byte where it ends; alternatives are
    /// tried in the pattern's order.
    fn placeholder<'t>(&self, body: &'t str, at: usize) -> Option<(Placeholder<'t>, usize)> {
        let rest = body.get(at..)?.strip_prefix('$')?;
        let start = at + 1;
        if rest.starts_with("{CLAUDE_SKILL_DIR}") {
            return Some((Placeholder::Dir, start + "{CLAUDE_SKILL_DIR}".len()));
        }
        if let Some(inner) = rest.strip_prefix("ARGUMENTS[") {
            let n = digit_run(inner);
            if n > 0 && inner[n..].starts_with(']') {
                let digits = &body[start + 10..start + 10 + n];
                return Some((Placeholder::Index(digits), start + 10 + n + 1));
            }
        }
        for (name, i) in &self.named {
            if rest.starts_with(name.as_str()) && !continues(&rest[name.len()..], true) {
                return Some((Placeholder::Name(*i), start + name.len()));
            }
        }
        if rest.starts_with("ARGUMENTS") && !continues(&rest[9..], false) {
            return Some((Placeholder::Arguments, start + 9));
        }
        let n = digit_run(rest);
        (n > 0).then(|| (Placeholder::Index(&body[start..start + n]), start + n))
    }
}

/// The length of the run of ASCII digits at the start (only ASCII digits: other scripts' are a
/// set that grows with Unicode).
fn digit_run(text: &str) -> usize {
    text.bytes().take_while(u8::is_ascii_digit).count()
}

/// Whether the text goes on with a word character (`[A-Za-z0-9_]`, and `-` when `dash`).
fn continues(text: &str, dash: bool) -> bool {
    text.bytes().next().map_or(false, |b| b.is_ascii_alphanumeric() || b == b'_' || (dash && b == b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(body: &str, args: &str) -> String {
        substitute(body, Some(&Args::from(args)), &["who".to_string()], None)
    }

    #[test]
    fn placeholders() {
        assert_eq!(sub("$0 $1 $who $ARGUMENTS[1] $ARGUMENTS", "a 'b c'"), "a b c a b c a 'b c'");
        assert_eq!(sub("\\$0 \\\\$0 $5", "a"), "$0 \\\\a $5");
        assert_eq!(sub("no placeholder", "x y"), "no placeholder\n\nARGUMENTS: x y\n");
        assert_eq!(sub("$\u{661}", "a b"), "$\u{661}\n\nARGUMENTS: a b\n");
    }
}
