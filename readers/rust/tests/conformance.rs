//! The conformance suite (tests/conformance/cases.json): every case, every call, compared
//! exactly with what the Python reader answers.

mod python;
mod support;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};
use skillc_reader::{
    substitute, Args, Dist, LoadedSkill, Params, PersonaMeta, ReaderError, Resolution, ResourceMeta,
    SkillInfo, SkillMeta, SubSkill,
};
use support::{bytes, copy_tree, suite, tamper, TempDir};

#[test]
fn every_case_of_the_suite() {
    // SKILLC_CONFORMANCE_DIR: another suite of the same shape (tests/conformance/random_suite.py writes one)
    let dir = std::env::var_os("SKILLC_CONFORMANCE_DIR").map_or_else(suite, PathBuf::from);
    run_suite(&dir);
}

/// Builds not in the repository: random trees, compiled and answered by the Python side.
#[test]
fn random_builds_answer_as_python_does() {
    let python = match python::find() {
        Some(p) => p,
        None => return eprintln!("skipped: no Python with skillc.reader (set SKILLC_PYTHON)"),
    };
    let tmp = TempDir::new("random-suite");
    let tool = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/conformance/random_suite.py");
    for seed in ["18", "19"] {
        let out = tmp.0.join(seed);
        let status =
            Command::new(&python).args([tool, out.to_str().unwrap(), "--seed", seed]).status().unwrap();
        assert!(status.success(), "tests/conformance/random_suite.py failed");
        run_suite(&out);
    }
}

fn run_suite(dir: &Path) {
    let cases: Vec<Value> =
        serde_json::from_slice(&std::fs::read(dir.join("cases.json")).expect("cases.json")).unwrap();
    let mut failures = Vec::new();
    let mut calls = 0;
    for case in &cases {
        calls += run_case(case, &dir.join("builds"), &mut failures);
    }
    assert!(failures.is_empty(), "{} of {} calls differ:\n{}", failures.len(), calls, failures.join("\n\n"));
    eprintln!("{}: {} cases, {} calls, all as the Python reader answers", dir.display(), cases.len(), calls);
}

/// Run one case; the number of calls made.
fn run_case(case: &Value, builds: &Path, failures: &mut Vec<String>) -> usize {
    let name = case["name"].as_str().unwrap();
    let tmp = TempDir::new("case");
    let root = tmp.0.join("dist");
    copy_tree(&builds.join(case["build"].as_str().unwrap()), &root);
    for op in case["tamper"].as_array().unwrap() {
        tamper(&root, op);
    }
    let calls = case["calls"].as_array().unwrap();
    let dist = match Dist::open(&root) {
        Ok(dist) => dist,
        Err(e) => {
            let got = outcome(Err(e));
            if calls.len() != 1 || calls[0]["call"] != "open" || got != calls[0]["expect"] {
                failures.push(format!("{}: open failed: {}", name, got));
            }
            return 1;
        }
    };
    for op in case.get("tamper_after_open").and_then(Value::as_array).into_iter().flatten() {
        tamper(&root, op);
    }
    for (i, call) in calls.iter().enumerate() {
        let got = outcome(make(&dist, call, &tmp.0));
        if got != call["expect"] {
            failures
                .push(format!("{} #{} {}\n  expected {}\n  got      {}", name, i, call, call["expect"], got));
        }
    }
    calls.len()
}

fn outcome(result: Result<Value, ReaderError>) -> Value {
    match result {
        Ok(v) => json!({ "result": v }),
        Err(ReaderError::UnknownSkill { suggestions, visible, .. }) => {
            // the list is asked for after the call: what asking fails with shows here
            let visible = match visible.list() {
                Ok(list) => json!(list),
                Err(e) => json!({ "error": e.class_name() }),
            };
            json!({ "error": "UnknownSkill", "suggestions": suggestions, "visible": visible })
        }
        Err(e) => json!({ "error": e.class_name() }),
    }
}

fn s<'a>(args: &'a Value, key: &str) -> &'a str {
    args[key].as_str().unwrap_or_else(|| panic!("argument {} in {}", key, args))
}

fn opt<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

fn words(v: &Value) -> Vec<String> {
    v.as_array().into_iter().flatten().map(|w| w.as_str().unwrap().to_string()).collect()
}

fn arguments(args: &Value) -> Option<Args> {
    match args.get("args") {
        None | Some(Value::Null) => None,
        Some(Value::String(line)) => Some(Args::Line(line.clone())),
        Some(list) => Some(Args::Words(words(list))),
    }
}

/// The call's `params` (absent or null: none).
fn params(args: &Value) -> Result<Params, ReaderError> {
    let pairs = args.get("params").and_then(Value::as_object).into_iter().flatten();
    Params::from_pairs(pairs.map(|(k, v)| (k, v.as_str().unwrap())))
}

fn make(dist: &Dist, call: &Value, tmp: &Path) -> Result<Value, ReaderError> {
    let a = call.get("args").cloned().unwrap_or(Value::Null);
    let a = &a;
    Ok(match call["call"].as_str().unwrap() {
        "build_hash" => json!(dist.build_hash()),
        "personas" => json!(dist.personas()),
        "catalog" => json!(dist.catalog(s(a, "persona"))?),
        "skills" => Value::Array(dist.skills(s(a, "persona"))?.iter().map(skill_info).collect()),
        "commands" => json!(dist.commands(s(a, "persona"))?),
        "all_commands" => json!(dist.all_commands()?),
        "load" => {
            loaded(&dist.load_with(s(a, "persona"), s(a, "command"), arguments(a).as_ref(), &params(a)?)?)
        }
        "render" => {
            json!(dist
                .load_with(s(a, "persona"), s(a, "command"), arguments(a).as_ref(), &params(a)?)?
                .render())
        }
        "resources" => json!(dist.resources(s(a, "persona"), s(a, "command"), opt(a, "kind"))?),
        "resource" => bytes(dist.resource(s(a, "persona"), s(a, "command"), s(a, "path"))?),
        "read_object" => bytes(dist.read_object(s(a, "digest"))?),
        "skill_meta" => skill_meta(&dist.skill_meta(s(a, "command"))?),
        "persona_meta" => persona_meta(&dist.persona_meta(s(a, "persona"))?),
        "resolution" => resolution(&dist.resolution(s(a, "persona"), s(a, "command"))?),
        "missing_requirements" => missing(dist, a, tmp)?,
        "substitute" => {
            let names = words(&a["names"]);
            json!(substitute(s(a, "body"), arguments(a).as_ref(), &names, opt(a, "skill_dir"), &params(a)?))
        }
        other => panic!("unknown call {}", other),
    })
}

/// missing_requirements with PATH a fresh folder holding the call's `path` entries.
fn missing(dist: &Dist, a: &Value, tmp: &Path) -> Result<Value, ReaderError> {
    use std::os::unix::fs::PermissionsExt;
    let folder = TempDir::new("path");
    for entry in a["path"].as_array().into_iter().flatten() {
        let place = folder.0.join(entry["name"].as_str().unwrap());
        match entry["kind"].as_str().unwrap() {
            "dir" => std::fs::create_dir(&place).unwrap(),
            kind => {
                std::fs::write(&place, "#!/bin/sh\n").unwrap();
                let mode = if kind == "exec" { 0o755 } else { 0o644 };
                std::fs::set_permissions(&place, std::fs::Permissions::from_mode(mode)).unwrap();
            }
        }
    }
    let _ = tmp;
    let mut env: HashMap<String, String> = a["env"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
        .collect();
    env.insert("PATH".into(), folder.0.to_str().unwrap().to_string());
    Ok(json!(dist.missing_requirements(s(a, "persona"), s(a, "command"), Some(&env))?))
}

fn skill_info(i: &SkillInfo) -> Value {
    json!({"command": i.command, "name": i.name, "description": i.description, "access": i.access,
           "model": i.model, "user": i.user, "in_catalog": i.in_catalog, "argument_hint": i.argument_hint,
           "context": i.context, "label": i.label})
}

fn sub_skill(c: &SubSkill) -> Value {
    json!({"command": c.command, "name": c.name, "description": c.description, "label": c.label})
}

fn loaded(l: &LoadedSkill) -> Value {
    json!({"persona": l.persona, "command": l.command, "name": l.name, "description": l.description,
           "body": l.body, "access": l.access, "overlay": l.overlay, "files": l.files,
           "sub_skills": l.sub_skills.iter().map(sub_skill).collect::<Vec<_>>(), "context": l.context,
           "agent": l.agent, "model": l.model, "allowed_tools": l.allowed_tools, "knowledge": l.knowledge,
           "label": l.label})
}

fn resource_meta(r: &ResourceMeta) -> Value {
    json!({"path": r.path, "sha256": r.sha256, "size": r.size, "executable": r.executable})
}

fn skill_meta(m: &SkillMeta) -> Value {
    json!({"command": m.command, "name": m.name, "description": m.description, "source": m.source,
           "path": m.path, "frontmatter": m.frontmatter, "body_sha256": m.body_sha256,
           "resources": m.resources.iter().map(resource_meta).collect::<Vec<_>>(), "parent": m.parent,
           "children": m.children, "label": m.label})
}

fn persona_meta(m: &PersonaMeta) -> Value {
    json!({"id": m.id, "name": m.name, "faction": m.faction, "fallback": m.fallback, "chain": m.chain,
           "unrestricted": m.unrestricted, "allowlist": m.allowlist, "budget": m.budget,
           "catalog_chars": m.catalog_chars, "included": m.included, "left_out": m.left_out,
           "shortened": m.shortened})
}

fn resolution(r: &Resolution) -> Value {
    json!({"access": r.access, "via": r.via, "overlay": r.overlay, "model": r.model, "user": r.user,
           "in_catalog": r.in_catalog, "body_sha256": r.body_sha256})
}
