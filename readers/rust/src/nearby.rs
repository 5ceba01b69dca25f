//! Close commands for an `UnknownSkill` (docs/format.md §12.1), as the Python reader's
//! format/nearby.py finds them: the command in its normal form, the words of the persona's
//! catalog and the children of the command's parent, ranked by distance to the normal form, then
//! kept if the persona sees them. A few reads at any size, where listing what a persona sees
//! reads every shard. Distances count code points (`char`s).

use std::collections::BTreeSet;

use crate::error::ReaderError;

const MAX_SUGGESTIONS: usize = 3; // commands an UnknownSkill names
const MAX_CHECKED: usize = 8; // candidates looked up, best first: each costs one shard read
const MAX_REACH: usize = 3; // edits
const MAX_LENGTH: usize = 256; // code points: longer commands are not ranked (a table of length squared cells)

/// ASCII white space and ASCII punctuation but `-`, `/`, `_`: what separates a catalog's words.
fn separates(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ')
        || (c.is_ascii_punctuation() && !matches!(c, '-' | '/' | '_'))
}

/// The command as skillc spells commands: ASCII lowercase, `:` as `/`, `_` and space as `-`, no
/// `/` at either end (a slash command's leading `/`).
pub(crate) fn normal(command: &str) -> String {
    let mapped: String = command
        .chars()
        .map(|c| match c {
            ':' => '/',
            '_' | ' ' => '-',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    mapped.trim_matches('/').to_string()
}

/// The words of a catalog text: the commands it lists are among them, whatever the template.
pub(crate) fn words(catalog: &str) -> impl Iterator<Item = &str> {
    catalog.split(separates).filter(|w| !w.is_empty())
}

/// The command one level up ("a/b/c" -> "a/b"), or None at the top.
pub(crate) fn parent(command: &str) -> Option<&str> {
    match command.rfind('/') {
        Some(at) if at > 0 => Some(&command[..at]),
        _ => None,
    }
}

/// The largest distance at which a candidate counts as close: a third of the length, from 1 to 3.
fn reach(points: usize) -> usize {
    (points / 3).clamp(1, MAX_REACH)
}

/// The optimal string alignment distance of two strings of code points, or limit + 1 beyond
/// limit; only the cells within `limit` of the diagonal are computed.
pub(crate) fn distance(a: &[char], b: &[char], limit: usize) -> usize {
    let far = limit + 1;
    if a.len().abs_diff(b.len()) > limit {
        return far;
    }
    let start = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[start..], &b[start..]);
    let end = a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[..a.len() - end], &b[..b.len() - end]);
    let mut before: Vec<usize> = Vec::new();
    let mut row: Vec<usize> = (0..=b.len()).map(|j| if j <= limit { j } else { far }).collect();
    for i in 1..=a.len() {
        let prev = std::mem::replace(&mut row, vec![far; b.len() + 1]);
        row[0] = if i <= limit { i } else { far };
        for j in i.saturating_sub(limit).max(1)..=b.len().min(i + limit) {
            let mut best = prev[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            best = best.min(prev[j] + 1).min(row[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(before[j - 2] + 1);
            }
            row[j] = best.min(far);
        }
        if row.iter().all(|&v| v >= far) {
            return far; // no later row holds less than this row's least value
        }
        before = prev;
    }
    row[b.len()]
}

/// The candidates within reach of the command's normal form, best first (distance, then code
/// point order), without the command as typed, at most MAX_CHECKED of them.
pub(crate) fn ranked<'a>(command: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let typed: Vec<char> = normal(command).chars().collect();
    if typed.len() > MAX_LENGTH {
        return Vec::new();
    }
    let limit = reach(typed.len());
    let mut scored = BTreeSet::new();
    for candidate in candidates {
        let points: Vec<char> = candidate.chars().collect();
        if candidate == command || points.len() > MAX_LENGTH {
            continue;
        }
        let d = distance(&typed, &points, limit);
        if d <= limit {
            scored.insert((d, candidate.to_string())); // String order is code point order
        }
    }
    scored.into_iter().take(MAX_CHECKED).map(|(_, c)| c).collect()
}

/// Up to three close commands the persona sees. `catalog` is the persona's catalog (None for
/// `skill_meta`, which has no persona), `children` the children of a command with an entry,
/// `sees` whether a command has an entry the persona sees; the reads are made in this order: the
/// parent's entry, then the candidates best first.
pub(crate) fn suggestions(
    command: &str,
    catalog: Option<&str>,
    children: impl Fn(&str) -> Result<Option<Vec<String>>, ReaderError>,
    sees: impl Fn(&str) -> Result<bool, ReaderError>,
) -> Result<Vec<String>, ReaderError> {
    let typed = normal(command);
    let mut candidates: Vec<String> = vec![typed.clone()];
    candidates.extend(catalog.into_iter().flat_map(words).map(str::to_string));
    if let Some(above) = parent(&typed) {
        candidates.extend(children(above)?.unwrap_or_default());
    }
    let mut out = Vec::new();
    for near in ranked(command, candidates.iter().map(String::as_str)) {
        if sees(&near)? {
            out.push(near);
        }
        if out.len() == MAX_SUGGESTIONS {
            break;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn osa(a: &str, b: &str) -> usize {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
        for (i, row) in d.iter_mut().enumerate() {
            row[0] = i;
        }
        for j in 0..=b.len() {
            d[0][j] = j;
        }
        for i in 1..=a.len() {
            for j in 1..=b.len() {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                d[i][j] = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
                }
            }
        }
        d[a.len()][b.len()]
    }

    #[test]
    fn the_banded_distance_is_the_full_tables_capped_at_the_limit() {
        let alphabet = ['a', 'b', '-', '\u{20000}'];
        let mut strings = vec![String::new()];
        for _ in 0..4 {
            let longer: Vec<String> =
                strings.iter().flat_map(|s| alphabet.iter().map(move |c| format!("{}{}", s, c))).collect();
            strings.extend(longer.into_iter().filter(|s| s.chars().count() <= 4));
            strings.sort();
            strings.dedup();
        }
        for a in &strings {
            for b in strings.iter().step_by(7) {
                let (x, y): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
                for limit in 0..4 {
                    assert_eq!(
                        distance(&x, &y, limit),
                        osa(a, b).min(limit + 1),
                        "{:?} {:?} {}",
                        a,
                        b,
                        limit
                    );
                }
            }
        }
    }

    #[test]
    fn normal_forms_words_and_ranking() {
        assert_eq!(normal("/Ops:Restart/"), "ops/restart");
        assert_eq!(normal("threat_assessment now"), "threat-assessment-now");
        assert_eq!(normal("ÉTAT"), "État");
        let found: Vec<&str> = words("<c>ops/restart</c>\u{3000}x, now_1.").collect();
        assert_eq!(found, ["c", "ops/restart", "/c", "\u{3000}x", "now_1"]);
        assert_eq!(parent("a/b/c"), Some("a/b"));
        assert_eq!(parent("/a"), None);
        let ranked =
            ranked("deploi", ["deploy", "deplay", "deploy-all", "Deploi", "delpoy", "zzz", "deploi"]);
        assert_eq!(ranked, ["Deploi", "deploy", "delpoy", "deplay"]);
    }
}
