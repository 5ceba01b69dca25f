//! Format 3 of dist/: its version, layout, object paths and escaping (format.py).

use sha2::{Digest, Sha256};

use crate::unicode::{fold, Fold};

pub const VERSION: u64 = 3;
pub const INDEX: &str = "_index.json";
pub const OBJECTS: &str = "objects";
/// The fewest hex digits in a shard name (the width of the root node of the shard table).
pub const SHARD_HEX: usize = 2;
pub const MAX_INDEX_BYTES: u64 = 16 << 20;
pub const MAX_OBJECT_BYTES: u64 = 1 << 30;
/// Bundled files listed in a tool result.
pub const MAX_FILES: usize = 20;

pub fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data).iter().map(|b| format!("{:02x}", b)).collect()
}

pub fn is_sha256(text: &str) -> bool {
    text.len() == 64 && is_lower_hex(text)
}

pub fn is_lower_hex(text: &str) -> bool {
    text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

pub fn object_path(digest: &str) -> [String; 3] {
    [OBJECTS.to_string(), digest[..2].to_string(), digest.to_string()]
}

/// The first `digits` hex digits of the sha256 of a command: its shard's name.
pub fn shard_of(command: &str, digits: usize) -> String {
    let mut full = sha256_hex(command.as_bytes());
    full.truncate(digits);
    full
}

/// The length of the names in the shard-table node for `prefix`: 2 at the root, one more below.
pub fn node_width(prefix: &str) -> usize {
    prefix.len() + if prefix.is_empty() { SHARD_HEX } else { 1 }
}

/// XML text content: only what it needs.
pub fn escape_text(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

pub fn escape_attr(text: &str) -> String {
    text.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;")
}

/// What a delimiter spelling reads as after `<` and an optional `/`.
const TAG: &str = "untrusted-data";

/// Byte offsets in `text` of the character that reads as `<` in every spelling of
/// `<untrusted-data` or `</untrusted-data`, in order (format.py `delimiter_positions`).
///
/// A spelling is the delimiter when, after each character is folded (unicode::fold), the text
/// reads `</?untrusted-data`; matches do not overlap, as `re.finditer` finds them.
pub fn delimiter_positions(text: &str) -> Vec<usize> {
    if !text.contains('<') && text.is_ascii() {
        return Vec::new();
    }
    let (chars, origin) = fold_text(text);
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match match_at(&chars, i) {
            Some(len) => {
                out.push(origin[i]);
                i += len;
            }
            None => i += 1,
        }
    }
    out
}

/// The folded text, and for each of its characters the byte offset of the one it came from.
fn fold_text(text: &str) -> (Vec<char>, Vec<usize>) {
    let mut chars = Vec::with_capacity(text.len());
    let mut origin = Vec::with_capacity(text.len());
    for (at, c) in text.char_indices() {
        match fold(c) {
            Fold::Dropped => {}
            Fold::Ascii(c) => {
                chars.push(c);
                origin.push(at);
            }
            Fold::Text(s) => {
                for c in s.chars() {
                    chars.push(c);
                    origin.push(at);
                }
            }
            Fold::Itself(c) => {
                chars.push(c);
                origin.push(at);
            }
        }
    }
    (chars, origin)
}

/// The length of `</?untrusted-data` matched at `i`, if it matches.
fn match_at(chars: &[char], i: usize) -> Option<usize> {
    if chars.get(i) != Some(&'<') {
        return None;
    }
    let slash = usize::from(chars.get(i + 1) == Some(&'/'));
    let start = i + 1 + slash;
    let tail = chars.get(start..start + TAG.len())?;
    tail.iter().copied().eq(TAG.chars()).then_some(1 + slash + TAG.len())
}

/// Neutralise every spelling of `<untrusted-data` / `</untrusted-data`: the character that
/// reads as `<` becomes `&lt;`, the rest of the text is kept as written.
pub fn escape_delimiter(text: &str) -> String {
    let positions = delimiter_positions(text);
    if positions.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 4 * positions.len());
    let mut last = 0;
    for at in positions {
        out.push_str(&text[last..at]);
        out.push_str("&lt;");
        last = at + text[at..].chars().next().map_or(1, char::len_utf8);
    }
    out.push_str(&text[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delimiter_spellings() {
        assert_eq!(escape_delimiter("a <untrusted-data b"), "a &lt;untrusted-data b");
        assert_eq!(escape_delimiter("\u{ff1c}/ UNTRUSTED\u{2010}data"), "&lt;/ UNTRUSTED\u{2010}data");
        assert_eq!(escape_delimiter("<un\u{200b}trusted-data"), "&lt;un\u{200b}trusted-data");
        assert_eq!(escape_delimiter("<untrusted-dat"), "<untrusted-dat");
    }

    #[test]
    fn shard_names() {
        assert_eq!(node_width(""), 2);
        assert_eq!(node_width("ab"), 3);
        assert_eq!(shard_of("deploy", 2).len(), 2);
    }
}
