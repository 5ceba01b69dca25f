//! Differential tests: thousands of generated inputs to `substitute` (splitting, placeholders,
//! escapes, delimiter spellings in arguments), answered by this crate and by the Python reader,
//! compared exactly.
//! The Python reader is found by tests/python/mod.rs.

mod python;

use serde_json::{json, Value};
use skillc_reader::{substitute, Args, Params};

const PIECES: &[&str] = &[
    "$0",
    "$1",
    "$2",
    "$name",
    "$na",
    "$ARGUMENTS",
    "$ARGUMENTS[1]",
    "\\$0",
    "${CLAUDE_SKILL_DIR}",
    "${CLAUDE_EFFORT}",
    "{CLAUDE_SESSION_ID}",
    "a b",
    "$",
    "$",
    "$",
    "ARGUMENTS",
    "[",
    "]",
    "0",
    "1",
    "2",
    "12",
    "007",
    "9999999999",
    "\\",
    "\\",
    "{CLAUDE_SKILL_DIR}",
    "name",
    "na",
    "-",
    "_",
    "x",
    " ",
    " ",
    "\t",
    "\n",
    "\r",
    "'",
    "'",
    "\"",
    "\"",
    "<",
    "/",
    "untrusted-data",
    "UNTRUSTED",
    "\u{ff1c}",
    "\u{200b}",
    "\u{2010}",
    "\u{df}",
    "\u{3000}",
    "\u{a0}",
    "\u{1c}",
    "\u{b}",
    "e\u{301}",
    "\u{663}",
    "#",
    ".",
    "\u{fb06}",
    "ﬆ",
    "\u{1e08f}",
    "data",
    "ops/x",
    "é",
    "日本",
];
const NAMES: &[&str] = &["name", "na", "n-a", "ARGUMENTS", "9x", "bad name", "_x", "name", "x"];

/// xorshift64*: the same inputs on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }

    fn text(&mut self, most: usize) -> String {
        (0..self.next(most + 1)).map(|_| PIECES[self.next(PIECES.len())]).collect()
    }
}

const SCRIPT: &str = r#"
import json, sys
from skillc import reader
out = []
for line in sys.stdin:
    c = json.loads(line)
    out.append(reader.substitute(c["body"], c["args"], names=c["names"], skill_dir=c["skill_dir"], params=c["params"]))
json.dump(out, sys.stdout)
"#;

fn case(rng: &mut Rng) -> Value {
    let args = match rng.next(4) {
        0 => Value::Null,
        1 => json!((0..rng.next(4)).map(|_| rng.text(3)).collect::<Vec<_>>()),
        _ => json!(rng.text(8)),
    };
    let names: Vec<&str> = (0..rng.next(4)).map(|_| NAMES[rng.next(NAMES.len())]).collect();
    let skill_dir = if rng.next(3) == 0 { json!("/s/d") } else { Value::Null };
    let params = match rng.next(3) {
        0 => json!({"CLAUDE_EFFORT": "high $0", "CLAUDE_SESSION_ID": "s\\"}),
        _ => Value::Null,
    };
    json!({"body": rng.text(14), "args": args, "names": names, "skill_dir": skill_dir, "params": params})
}

fn ours(c: &Value) -> String {
    let args = match &c["args"] {
        Value::Null => None,
        Value::String(s) => Some(Args::Line(s.clone())),
        list => Some(Args::Words(
            list.as_array().unwrap().iter().map(|w| w.as_str().unwrap().to_string()).collect(),
        )),
    };
    let names: Vec<String> =
        c["names"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()).collect();
    let params = match c["params"].as_object() {
        Some(map) => Params::from_pairs(map.iter().map(|(k, v)| (k, v.as_str().unwrap()))).unwrap(),
        None => Params::new(),
    };
    substitute(c["body"].as_str().unwrap(), args.as_ref(), &names, c["skill_dir"].as_str(), &params)
}

#[test]
fn substitute_answers_as_python_does() {
    let python = match python::find() {
        Some(python) => python,
        None => return eprintln!("skipped: no Python with skillc.reader (set SKILLC_PYTHON)"),
    };
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let cases: Vec<Value> = (0..4000).map(|_| case(&mut rng)).collect();
    let theirs: Vec<String> = python::run(&python, SCRIPT, cases.iter().cloned())
        .into_iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    let differ: Vec<String> = cases
        .iter()
        .zip(&theirs)
        .filter(|(c, t)| ours(c) != **t)
        .take(5)
        .map(|(c, t)| format!("{}\n  python {:?}\n  rust   {:?}", c, t, ours(c)))
        .collect();
    assert!(differ.is_empty(), "substitute differs from Python:\n{}", differ.join("\n"));
}
