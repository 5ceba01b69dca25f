//! The catalog template split into its frame and its entries, and a persona's plan of its
//! catalog (split.py; docs/format.md §4.5, §4.6, §17). A stack renders a catalog from the split
//! without the template; one build cuts or lengthens its compiled catalog through the plan: where
//! each entry is in it, and where each relative location starts.
//!
//! The documents give places in code points; a `String` is indexed by UTF-8 bytes, so a plan's
//! places are turned into byte offsets (`char_indices`) where they are used.

use std::collections::{HashMap, HashSet};

use crate::format::escape_text;

/// A text value of a catalog entry, as templates see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    Command,
    Name,
    Label,
    Description,
    Location,
}

impl Field {
    pub(crate) fn named(name: &str) -> Option<Field> {
        match name {
            "command" => Some(Field::Command),
            "name" => Some(Field::Name),
            "label" => Some(Field::Label),
            "description" => Some(Field::Description),
            "location" => Some(Field::Location),
            _ => None,
        }
    }
}

/// A piece of an entry pattern: fixed text, or a field's value (each line feed a space when
/// `lines`, the Markdown catalog's `| replace("\n", " ")`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece {
    Text(String),
    Field { field: Field, lines: bool },
}

/// A piece of a frame pattern: fixed text, or the number of skills left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FramePiece {
    Text(String),
    Omitted,
}

/// A persona's catalog around its entries, for 0, 1 and more skills left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Frames {
    pub none: (String, String),
    pub one: (String, String),
    pub many: (Vec<FramePiece>, Vec<FramePiece>),
}

/// The split object (§4.5), checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Split {
    pub markup: bool,
    pub entry: Vec<Piece>,
    pub always: Vec<Piece>,
    /// By persona id; None where the template does not split for that persona.
    pub frames: HashMap<String, Option<Frames>>,
}

/// A location in a plan's entry: where its value starts (code points), and whether its line
/// feeds are spaces there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Place {
    pub at: u64,
    pub lines: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PlanEntry {
    pub command: String,
    pub start: u64,
    pub end: u64,
    pub locations: Vec<Place>,
}

/// A persona's plan (§4.6), checked, its places held to the catalog it was read for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    pub markup: bool,
    pub entries: Vec<PlanEntry>,
}

/// The values of one entry.
pub(crate) struct Values<'a> {
    pub command: &'a str,
    pub name: &'a str,
    pub label: &'a str,
    pub description: &'a str,
    pub location: &'a str,
}

impl Values<'_> {
    fn get(&self, field: Field) -> &str {
        match field {
            Field::Command => self.command,
            Field::Name => self.name,
            Field::Label => self.label,
            Field::Description => self.description,
            Field::Location => self.location,
        }
    }
}

/// A field's text as the entry shows it: escaped as XML text when the template is markup, then
/// with each line feed a space when the template writes it so.
pub(crate) fn field_value(value: &str, markup: bool, lines: bool) -> String {
    let value = if markup { escape_text(value) } else { value.to_string() };
    if lines {
        value.replace('\n', " ")
    } else {
        value
    }
}

/// One entry rendered from its pattern.
pub(crate) fn entry_text(pattern: &[Piece], values: &Values<'_>, markup: bool) -> String {
    let mut out = String::new();
    for piece in pattern {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Field { field, lines } => out.push_str(&field_value(values.get(*field), markup, *lines)),
        }
    }
    out
}

/// (head, tail): the persona's catalog around its entries when `omitted` skills are left out.
pub(crate) fn frame_text(frames: &Frames, omitted: usize) -> (String, String) {
    match omitted {
        0 => frames.none.clone(),
        1 => frames.one.clone(),
        n => {
            let number = n.to_string();
            let part = |pieces: &[FramePiece]| -> String {
                pieces
                    .iter()
                    .map(|p| match p {
                        FramePiece::Text(text) => text.as_str(),
                        FramePiece::Omitted => number.as_str(),
                    })
                    .collect()
            };
            (part(&frames.many.0), part(&frames.many.1))
        }
    }
}

/// Whether a skill's location takes a root the host names: not already absolute (`/...`), nor
/// under a home folder (`~/...`).
pub(crate) fn relative(path: &str) -> bool {
    !path.starts_with('/') && !path.starts_with('~')
}

/// The root without its trailing `/`, then one `/`: what a root puts before a relative path.
pub(crate) fn prefix_of(root: &str) -> String {
    format!("{}/", root.trim_end_matches('/'))
}

/// The folder of a skill's SKILL.md on this machine (§17.3): under the root the host named for its
/// build; an absolute path's own folder; None without a root, or for a path under a home folder.
pub(crate) fn base_of(path: &str, root: Option<&str>) -> Option<String> {
    let root = root?;
    if path.starts_with('~') {
        return None;
    }
    let folder = path.rsplit_once('/').map_or("", |(folder, _)| folder);
    if path.starts_with('/') {
        return Some(if folder.is_empty() { "/".to_string() } else { folder.to_string() });
    }
    let trimmed = root.trim_end_matches('/');
    Some(match (folder.is_empty(), trimmed.is_empty()) {
        (false, _) => format!("{}/{}", trimmed, folder),
        (true, false) => trimmed.to_string(),
        (true, true) => "/".to_string(),
    })
}

/// Whether the plan's places lie in a catalog of `length` code points: each entry within it and
/// after the one before, each location within its entry and after the one before (§4.6).
pub(crate) fn places_fit(plan: &Plan, length: u64) -> Result<(), String> {
    let mut last = 0;
    for (i, e) in plan.entries.iter().enumerate() {
        if !(last <= e.start && e.start <= e.end && e.end <= length) {
            return Err(format!("entries.{}: not within the catalog after the entry before it", i));
        }
        let mut at = e.start;
        for place in &e.locations {
            if !(at <= place.at && place.at <= e.end) {
                return Err(format!("entries.{}: a location outside its entry", i));
            }
            at = place.at;
        }
        last = e.end;
    }
    Ok(())
}

/// The compiled catalog `text`, the plan's entries of a command in `drop` cut out, and with a
/// root, its prefix put before each relative location the plan lists: from the end, so that each
/// change leaves the places before it where they are. The plan's places were checked against
/// `text` (`places_fit`).
pub(crate) fn planned(text: &str, plan: &Plan, drop: &HashSet<String>, root: Option<&str>) -> String {
    let bytes: Vec<usize> = text.char_indices().map(|(at, _)| at).chain([text.len()]).collect();
    let byte = |points: u64| bytes[points as usize];
    let mut out = text.to_string();
    for entry in plan.entries.iter().rev() {
        if drop.contains(&entry.command) {
            out.replace_range(byte(entry.start)..byte(entry.end), "");
        } else if let Some(root) = root {
            for place in entry.locations.iter().rev() {
                out.insert_str(byte(place.at), &field_value(&prefix_of(root), plan.markup, place.lines));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(entries: Vec<(&str, u64, u64, Vec<u64>)>) -> Plan {
        Plan {
            markup: true,
            entries: entries
                .into_iter()
                .map(|(c, start, end, at)| PlanEntry {
                    command: c.to_string(),
                    start,
                    end,
                    locations: at.into_iter().map(|at| Place { at, lines: false }).collect(),
                })
                .collect(),
        }
    }

    #[test]
    fn places_count_code_points_and_cuts_keep_the_frame() {
        let text = "<s>[é a:x][𠀀 b:y]</s>";
        let p = plan(vec![("a", 3, 10, vec![8]), ("b", 10, 17, vec![15])]);
        assert_eq!(places_fit(&p, text.chars().count() as u64), Ok(()));
        let drop: HashSet<String> = ["a".to_string()].into_iter().collect();
        assert_eq!(planned(text, &p, &drop, None), "<s>[𠀀 b:y]</s>");
        assert_eq!(
            planned(text, &p, &HashSet::new(), Some("/r&d//")),
            "<s>[é a:/r&amp;d/x][𠀀 b:/r&amp;d/y]</s>"
        );
        assert!(places_fit(&plan(vec![("a", 3, 30, vec![])]), 20).is_err());
        assert!(places_fit(&plan(vec![("a", 3, 10, vec![8, 7])]), 20).is_err());
        assert!(places_fit(&plan(vec![("a", 3, 10, vec![]), ("b", 9, 12, vec![])]), 20).is_err());
    }

    #[test]
    fn frames_and_entries() {
        let frames = Frames {
            none: ("<a>".into(), "</a>".into()),
            one: ("<a>".into(), "1</a>".into()),
            many: (
                vec![FramePiece::Text("<a>".into())],
                vec![FramePiece::Omitted, FramePiece::Text(" more</a>".into())],
            ),
        };
        assert_eq!(frame_text(&frames, 12), ("<a>".to_string(), "12 more</a>".to_string()));
        let pattern = vec![
            Piece::Text("* ".into()),
            Piece::Field { field: Field::Description, lines: true },
            Piece::Field { field: Field::Name, lines: false },
        ];
        let values = Values { command: "c", name: "N\n<", label: "L", description: "a\nb&", location: "l" };
        assert_eq!(entry_text(&pattern, &values, true), "* a b&amp;N\n&lt;");
        assert_eq!(entry_text(&pattern, &values, false), "* a b&N\n<");
        assert!(relative("skills/x") && !relative("/x") && !relative("~/x"));
        assert_eq!(prefix_of("/"), "/");
        assert_eq!(base_of("skills/a/SKILL.md", Some("/p/")), Some("/p/skills/a".to_string()));
        assert_eq!(base_of("SKILL.md", Some("/p")), Some("/p".to_string()));
        assert_eq!(base_of("SKILL.md", Some("/")), Some("/".to_string()));
        assert_eq!(base_of("/abs/a/SKILL.md", Some("/p")), Some("/abs/a".to_string()));
        assert_eq!(base_of("/SKILL.md", Some("/p")), Some("/".to_string()));
        assert_eq!(base_of("~/a/SKILL.md", Some("/p")), None);
        assert_eq!(base_of("a/SKILL.md", None), None);
    }
}
