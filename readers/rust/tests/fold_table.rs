//! The embedded fold table is docs/delimiter-fold.txt (the normative table), and the delimiter
//! escaping answers as the Python reader does over every code point the table lists.

mod python;

use serde_json::Value;
use skillc_reader::escape_delimiter;

fn spec_table() -> Option<String> {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/delimiter-fold.txt")).ok()
}

/// (first, last, fold) of every line of the spec's table.
fn parse(table: &str) -> Vec<(u32, u32, String)> {
    let hex = |h: &str| u32::from_str_radix(h, 16).unwrap();
    table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let (cps, fold) = line.split_once('\t').unwrap();
            let (first, last) = cps.split_once("..").unwrap_or((cps, cps));
            let fold = if fold == "drop" {
                String::new()
            } else {
                fold.split(' ').map(|h| char::from_u32(hex(h)).unwrap()).collect()
            };
            (hex(first), hex(last), fold)
        })
        .collect()
}

#[test]
fn fold_table_matches_the_spec() {
    let table = match spec_table() {
        Some(t) => t,
        None => return eprintln!("skipped: docs/delimiter-fold.txt is not beside this crate"),
    };
    let generated = include_str!("../src/fold_table.rs");
    let version = table.lines().next().unwrap().split("Unicode ").nth(1).unwrap().split(". ").next().unwrap();
    assert!(generated.contains(&format!("UNICODE_VERSION: &str = \"{}\"", version)), "table version");
    assert_eq!(skillc_reader::UNICODE_VERSION, version);
    let mut lines = 0;
    for (first, last, fold) in parse(&table) {
        let escaped: String = fold
            .chars()
            .map(|c| {
                if (' '..'\u{7f}').contains(&c) && c != '"' && c != '\\' {
                    c.to_string()
                } else {
                    format!("\\u{{{:x}}}", c as u32)
                }
            })
            .collect();
        let line = format!("    (0x{:04x}, 0x{:04x}, \"{}\"),", first, last, escaped);
        assert!(generated.contains(&line), "{} is not in src/fold_table.rs: run tools/fold_table.py", line);
        lines += 1;
    }
    assert_eq!(generated.matches("\n    (0x").count(), lines, "src/fold_table.rs has lines the spec has not");
}

#[test]
fn escaping_answers_as_python_does() {
    let (table, python) = match (spec_table(), python::find()) {
        (Some(t), Some(p)) => (t, p),
        _ => return eprintln!("skipped: no docs/delimiter-fold.txt or no Python with skillc.reader"),
    };
    // Each listed code point in the places a delimiter spelling needs a character.
    let mut texts = Vec::new();
    for (first, last, _) in parse(&table) {
        for cp in [first, last] {
            let c = char::from_u32(cp).unwrap();
            texts.push(format!("{}untrusted-data", c));
            texts.push(format!("<{}/untrusted-data", c));
            texts.push(format!("</untru{}sted-data", c));
            texts.push(format!("<untrusted{}data <{}", c, c));
        }
    }
    texts.extend(
        ["<<untrusted-data", "</</untrusted-data>", "\u{ff1c}\u{ff0f}\u{ff35}NTRUSTED-DATA"]
            .map(String::from),
    );
    let script = r#"
import json, sys
from skillc.format.escape import escape_delimiter as escape
json.dump([escape(json.loads(line)) for line in sys.stdin], sys.stdout)
"#;
    let theirs = python::run(&python, script, texts.iter().map(|t| Value::from(t.as_str())));
    let differ: Vec<String> = texts
        .iter()
        .zip(&theirs)
        .filter(|(t, p)| escape_delimiter(t) != p.as_str().unwrap())
        .map(|(t, p)| format!("{:?}: python {:?}, rust {:?}", t, p, escape_delimiter(t)))
        .collect();
    assert!(
        differ.is_empty(),
        "{} texts escape differently:\n{}",
        differ.len(),
        differ[..differ.len().min(5)].join("\n")
    );
}

#[test]
fn isspace_matches_python() {
    let python = match python::find() {
        Some(p) => p,
        None => return eprintln!("skipped: no Python with skillc.reader"),
    };
    let script = r#"
import json, sys
sys.stdin.read()
json.dump([c for c in range(0x110000) if chr(c).isspace()], sys.stdout)
"#;
    let theirs: Vec<u64> =
        python::run(&python, script, std::iter::empty()).iter().map(|v| v.as_u64().unwrap()).collect();
    let ours: Vec<u64> = (0..0x11_0000u32)
        .filter_map(char::from_u32)
        .filter(|&c| skillc_reader::testing::is_space(c))
        .map(|c| c as u64)
        .collect();
    assert_eq!(ours, theirs);
}
