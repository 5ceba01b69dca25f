//! `materialize` (which the conformance suite does not cover: it writes files) writes the same
//! tree as the Python reader: every pair of the suite's builds, with and without arguments.

mod python;
mod support;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::{json, Value};
use skillc_reader::{Args, By, Dist, Env, Params};
use support::{suite, TempDir};

/// Every file below root: relative path -> (bytes with root's path replaced by `<DEST>`, mode).
fn tree(root: &Path) -> BTreeMap<String, (Vec<u8>, u32)> {
    let mut out = BTreeMap::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                todo.push(path);
                continue;
            }
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap())
                .replace(root.to_str().unwrap(), "<DEST>");
            let rel = path.strip_prefix(root).unwrap().to_str().unwrap().to_string();
            out.insert(rel, (text.into_bytes(), meta.permissions().mode() & 0o777));
        }
    }
    out
}

#[test]
fn materialize_writes_what_python_writes() {
    let python = match python::find() {
        Some(p) => p,
        None => return eprintln!("skipped: no Python with skillc.reader (set SKILLC_PYTHON)"),
    };
    let tmp = TempDir::new("materialize");
    let mut calls = Vec::new();
    for build in ["main", "hostile"] {
        let root = suite().join("builds").join(build);
        let dist = Dist::open(&root).unwrap();
        for persona in dist.personas().unwrap() {
            for skill in dist.skills_in(&persona, Env::Everywhere).unwrap() {
                for args in [Value::Null, json!("a 'b c' <untrusted-data")] {
                    // by one who may, when the model may not; and by the model always
                    let mut invokers = vec!["model"];
                    invokers.extend((!skill.model && skill.user).then_some("user"));
                    for by in invokers {
                        let n = calls.len();
                        calls.push(json!({"dist": root.to_str().unwrap(), "persona": persona, "command": skill.command,
                                          "args": args, "by": by, "py": tmp.0.join(format!("py{}", n)),
                                          "rs": tmp.0.join(format!("rs{}", n))}));
                    }
                }
            }
        }
    }
    let script = r#"
import json, sys
from skillc import reader
out = []
for line in sys.stdin:
    c = json.loads(line)
    try:
        reader.open(c["dist"]).materialize(c["persona"], c["command"], c["py"], args=c["args"], by=c["by"])
        out.append("ok")
    except reader.ReaderError as e:
        out.append(type(e).__name__)
json.dump(out, sys.stdout)
"#;
    let theirs = python::run(&python, script, calls.iter().cloned());
    assert!(calls.len() > 20);
    for (c, theirs) in calls.iter().zip(theirs) {
        let dist = Dist::open(c["dist"].as_str().unwrap()).unwrap();
        let args = c["args"].as_str().map(Args::from);
        let rs = Path::new(c["rs"].as_str().unwrap());
        let by = if c["by"] == "user" { By::User } else { By::Model };
        let ours = match dist.materialize_with(
            c["persona"].as_str().unwrap(),
            c["command"].as_str().unwrap(),
            rs,
            args.as_ref(),
            &Params::new(),
            by,
        ) {
            Ok(_) => "ok".to_string(),
            Err(e) => e.class_name().to_string(),
        };
        assert_eq!(ours, theirs.as_str().unwrap(), "{}", c);
        if ours == "ok" {
            assert_eq!(tree(rs), tree(Path::new(c["py"].as_str().unwrap())), "{}", c);
        }
    }
}

#[test]
fn materialize_refuses_a_destination_in_use() {
    let tmp = TempDir::new("dest");
    let dist = Dist::open(suite().join("builds/main")).unwrap();
    std::fs::write(tmp.0.join("file"), "x").unwrap();
    let err = dist.materialize("forge", "deploy", &tmp.0, None).unwrap_err();
    assert_eq!(err.class_name(), "ReaderError");
    let err = dist.materialize("forge", "deploy", tmp.0.join("file"), None).unwrap_err();
    assert_eq!(err.class_name(), "ReaderError");
    let written = dist.materialize("forge", "deploy", tmp.0.join("new/skill"), None).unwrap();
    assert!(written.join("SKILL.md").is_file());
}
