//! Two Unicode questions the Python reader answers, answered alike: `str.isspace` (the white
//! space `str.split()` splits on) and the delimiter fold of one character (the normative table
//! docs/delimiter-fold.txt, embedded as fold_table.rs).

use crate::fold_table::FOLD;

/// The characters `str.isspace` accepts, as ranges (the same in every Python since 3.0 and in
/// Unicode 14 to 15.1; the test `isspace_matches_python` checks them against the interpreter).
const SPACES: [(u32, u32); 10] = [
    (0x0009, 0x000d),
    (0x001c, 0x0020),
    (0x0085, 0x0085),
    (0x00a0, 0x00a0),
    (0x1680, 0x1680),
    (0x2000, 0x200a),
    (0x2028, 0x2029),
    (0x202f, 0x202f),
    (0x205f, 0x205f),
    (0x3000, 0x3000),
];

/// Python's `str.isspace` for one character.
pub fn is_space(c: char) -> bool {
    SPACES.iter().any(|&(lo, hi)| (lo..=hi).contains(&(c as u32)))
}

/// Python's `str.split()` without arguments: runs of `isspace` characters separate words.
pub fn split_whitespace(text: &str) -> Vec<String> {
    text.split(is_space).filter(|w| !w.is_empty()).map(str::to_string).collect()
}

/// How the delimiter scan reads one character (format.py `_fold`).
pub enum Fold {
    /// White space or an invisible character: skipped.
    Dropped,
    /// An ASCII character, lowered.
    Ascii(char),
    /// What a listed non-ASCII character reads as.
    Text(&'static str),
    /// A character not listed: it reads as itself, which no spelling of the delimiter holds.
    Itself(char),
}

pub fn fold(c: char) -> Fold {
    if c.is_ascii() {
        // ASCII white space is Python's: \t \n \v \f \r, \x1c-\x1f and the space
        return if is_space(c) { Fold::Dropped } else { Fold::Ascii(c.to_ascii_lowercase()) };
    }
    let cp = c as u32;
    let i = FOLD.partition_point(|&(first, _, _)| first <= cp);
    match i.checked_sub(1).map(|i| FOLD[i]) {
        Some((_, last, "")) if cp <= last => Fold::Dropped,
        Some((_, last, text)) if cp <= last => Fold::Text(text),
        _ => Fold::Itself(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds() {
        assert!(is_space('\u{1c}') && is_space('\u{3000}') && !is_space('\u{200b}'));
        assert!(matches!(fold('\u{ff1c}'), Fold::Text("<")));
        assert!(matches!(fold('\u{200b}'), Fold::Dropped));
        assert!(matches!(fold('\u{301}'), Fold::Dropped));
        assert!(matches!(fold('\u{2010}'), Fold::Text("-")));
        assert!(matches!(fold('\u{e9}'), Fold::Itself('\u{e9}')));
        assert!(matches!(fold('A'), Fold::Ascii('a')));
    }
}
