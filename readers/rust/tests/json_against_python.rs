//! Differential test of the JSON subset (docs/format.md §3): generated documents, tricky on
//! purpose (duplicate keys, NaN, huge and tiny numbers, surrogate escapes, depth, stray bytes),
//! accepted or refused alike by this crate and the Python reader, and read as the same values.

mod python;

use serde_json::Value;
use skillc_reader::testing::parse_json;

const LEAVES: &[&str] = &[
    "1",
    "-0",
    "0",
    "01",
    "1.5",
    "1.",
    ".5",
    "+1",
    "1e400",
    "-1e400",
    "1e-400",
    "1E5",
    "2.0",
    "-1.25e-3",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775808",
    "-9223372036854775809",
    "9007199254740993",
    "NaN",
    "Infinity",
    "-Infinity",
    "true",
    "false",
    "null",
    "nul",
    "\"a\"",
    "\"\\u00e9\"",
    "\"\\ud800\"",
    "\"\\ud800\\udc00\"",
    "\"\\udc00\"",
    "\"\\ud800\\u0041\"",
    "\"\\/\"",
    "\"\\q\"",
    "\"\u{1}\"",
    "\"\\u12\"",
    "\"\\uD83D\\uDE00\"",
    "\"\u{7f}\"",
    "\"\u{e9}\"",
    "\"\\t\\n\"",
    "[]",
    "{}",
];
const KEYS: &[&str] = &["\"a\"", "\"b\"", "\"\\u0061\"", "\"\"", "1", "\"a\" "];
const SPACE: &[&str] = &["", "", "", " ", "\n", "\t", "\r", "\u{b}", "\u{a0}", "\u{feff}"];

struct Rng(u64);

impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }
    fn pick(&mut self, from: &[&'static str]) -> &'static str {
        from[self.next(from.len())]
    }
    fn space(&mut self) -> &'static str {
        if self.next(6) == 0 {
            self.pick(SPACE)
        } else {
            ""
        }
    }

    fn value(&mut self, depth: usize) -> String {
        let mut out = String::from(self.space());
        match if depth == 0 { 0 } else { self.next(4) } {
            0 | 1 => out.push_str(self.pick(LEAVES)),
            2 => {
                let items: Vec<String> = (0..self.next(4)).map(|_| self.value(depth - 1)).collect();
                out.push_str(&format!("[{}]", items.join(if self.next(20) == 0 { ",," } else { "," })));
            }
            _ => {
                let members: Vec<String> = (0..self.next(4))
                    .map(|_| format!("{}:{}", self.pick(KEYS), self.value(depth - 1)))
                    .collect();
                out.push_str(&format!("{{{}}}", members.join(",")));
            }
        }
        out.push_str(self.space());
        out
    }
}

fn nested(levels: usize) -> String {
    "[".repeat(levels) + &"]".repeat(levels)
}

#[test]
fn json_subset_as_python_reads_it() {
    let python = match python::find() {
        Some(python) => python,
        None => return eprintln!("skipped: no Python with skillc.reader (set SKILLC_PYTHON)"),
    };
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut docs: Vec<String> = (0..6000).map(|_| rng.value(3)).collect();
    docs.extend([
        nested(64),
        nested(65),
        format!("{{\"a\": {}}}", nested(63)),
        format!("{{\"a\": {}}}", nested(64)),
    ]);
    docs.extend(["".into(), " ".into(), "1 2".into(), "\u{feff}{}".into(), "{\"a\":1,\"a\":2}".into()]);
    let script = r#"
import json, sys
from skillc import reader
from skillc.format.jsonio import parse_json as parse
out = []
for line in sys.stdin:
    try:
        out.append(json.dumps(parse(json.loads(line).encode("utf-8"), "doc")))
    except reader.FormatError:
        out.append(None)
json.dump(out, sys.stdout)
"#;
    let theirs = python::run(&python, script, docs.iter().map(|d| Value::from(d.as_str())));
    let mut differ = Vec::new();
    for (doc, theirs) in docs.iter().zip(theirs) {
        let theirs: Option<Value> = theirs.as_str().map(|t| serde_json::from_str(t).unwrap());
        let ours = parse_json(doc.as_bytes()).ok();
        if ours != theirs {
            differ.push(format!("{:?}\n  python {:?}\n  rust   {:?}", doc, theirs, ours));
        }
    }
    assert!(
        differ.is_empty(),
        "{} documents read differently:\n{}",
        differ.len(),
        differ[..differ.len().min(5)].join("\n")
    );
}
