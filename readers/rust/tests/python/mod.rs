//! The Python reader, for differential tests: `from skillc import reader` in the interpreter
//! `$SKILLC_PYTHON`, else the repository's `.venv/bin/python`, else `python3`. When none can
//! import it, `find` gives None and the tests say so and pass, unless `SKILLC_PYTHON` is set
//! (CI sets it: there a missing reader is a failure).

#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

pub fn find() -> Option<String> {
    let set = std::env::var("SKILLC_PYTHON").ok();
    let venv = concat!(env!("CARGO_MANIFEST_DIR"), "/../../.venv/bin/python").to_string();
    for candidate in set.iter().cloned().chain([venv, "python3".to_string()]) {
        let ok = Command::new(&candidate)
            .args(["-c", "from skillc import reader"])
            .stderr(Stdio::null())
            .status()
            .map_or(false, |s| s.success());
        if ok {
            return Some(candidate);
        }
        assert!(set.is_none(), "SKILLC_PYTHON={} cannot import skillc.reader", candidate);
    }
    None
}

/// Run `script` with one JSON value a line on its stdin; it prints one JSON array, returned.
pub fn run(python: &str, script: &str, lines: impl Iterator<Item = Value>) -> Vec<Value> {
    let mut child = Command::new(python)
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python");
    let mut stdin = child.stdin.take().unwrap();
    for line in lines {
        writeln!(stdin, "{}", line).unwrap();
    }
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "the Python side failed");
    serde_json::from_slice(&output.stdout).expect("the Python side's JSON")
}
