//! The conformance suite (tests/conformance/cases.json): every case, every call, compared
//! exactly with what the Python reader answers.

mod python;
mod support;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};
use skillc_reader::{
    substitute, Args, By, Dist, Env, KnowledgeDoc, LoadOptions, LoadedSkill, Params, PersonaContext,
    PersonaMeta, ReaderError, Resolution, ResourceMeta, Shadowed, SkillInfo, SkillMeta, SubSkill, Tier,
    Unavailable,
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
    let stacked = case.get("tiers").is_some();
    let tiers: Vec<Value> = match case.get("tiers") {
        Some(tiers) => tiers.as_array().unwrap().clone(),
        None => vec![json!({"build": case["build"]})],
    };
    let roots: Vec<PathBuf> = (0..tiers.len())
        .map(|i| tmp.0.join(if stacked { format!("tier-{}", i) } else { "dist".to_string() }))
        .collect();
    for (tier, root) in tiers.iter().zip(&roots) {
        if let Some(build) = tier["build"].as_str() {
            copy_tree(&builds.join(build), root); // none: an optional tier missing here
        }
    }
    let on_tier = |op: &Value| &roots[op.get("tier").and_then(Value::as_u64).unwrap_or(0) as usize];
    for op in case["tamper"].as_array().into_iter().flatten() {
        tamper(on_tier(op), op, builds);
    }
    let calls = case["calls"].as_array().unwrap();
    let opened = if stacked {
        let given: Vec<Tier> = tiers
            .iter()
            .zip(&roots)
            .map(|(t, root)| Tier {
                path: root.clone(),
                optional: t["optional"] == true,
                root: t.get("root").and_then(Value::as_str).map(str::to_string),
            })
            .collect();
        Dist::open_stack(&given)
    } else {
        match case.get("root").and_then(Value::as_str) {
            Some(root) => Dist::open_with_root(&roots[0], root),
            None => Dist::open(&roots[0]),
        }
    };
    let dist = match opened {
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
        tamper(on_tier(op), op, builds);
    }
    for (i, call) in calls.iter().enumerate() {
        let got = outcome(make(&dist, call));
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
        Err(ReaderError::NotInvocable { invokers, .. }) => {
            let invokers: Vec<&str> = invokers.iter().map(|b| b.as_str()).collect();
            json!({ "error": "NotInvocable", "invokers": invokers })
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

/// A load's options: `by` and `base` absent are the reader's defaults.
fn load_options(a: &Value) -> Result<LoadOptions, ReaderError> {
    let by = match opt(a, "by") {
        None | Some("model") => By::Model,
        Some("user") => By::User,
        Some(other) => panic!("by {:?}", other),
    };
    Ok(LoadOptions { args: arguments(a), params: params(a)?, by, base: opt(a, "base").map(str::to_string) })
}

/// A call that takes an environment: `env` (with `path`) as missing_requirements takes them;
/// absent, everywhere (the build as it was made).
fn with_env<T>(a: &Value, call: impl FnOnce(Env<'_>) -> T) -> T {
    if a.get("env").is_none() {
        return call(Env::Everywhere);
    }
    let (env, _folder) = environment(a);
    call(Env::Map(&env))
}

fn make(dist: &Dist, call: &Value) -> Result<Value, ReaderError> {
    let a = call.get("args").cloned().unwrap_or(Value::Null);
    let a = &a;
    Ok(match call["call"].as_str().unwrap() {
        "build_hash" => json!(dist.build_hash()?),
        "personas" => json!(dist.personas()?),
        "catalog" => json!(with_env(a, |env| dist.catalog_in(s(a, "persona"), env))?),
        "skills" => Value::Array(
            with_env(a, |env| dist.skills_in(s(a, "persona"), env))?.iter().map(skill_info).collect(),
        ),
        "commands" => json!(with_env(a, |env| dist.commands_in(s(a, "persona"), env))?),
        "unavailable" => Value::Array(
            with_env(a, |env| dist.unavailable_in(s(a, "persona"), env))?.iter().map(unavailable).collect(),
        ),
        "shadowed" => Value::Array(dist.shadowed()?.iter().map(shadowed).collect()),
        "persona_context" => persona_context(&dist.persona_context(s(a, "persona"))?),
        "refresh" => json!(dist.refresh()),
        "all_commands" => json!(dist.all_commands()?),
        "load" => loaded(&dist.load_with(s(a, "persona"), s(a, "command"), &load_options(a)?)?),
        "render" => json!(dist.load_with(s(a, "persona"), s(a, "command"), &load_options(a)?)?.render()),
        "resources" => json!(dist.resources(s(a, "persona"), s(a, "command"), opt(a, "kind"))?),
        "resource" => bytes(dist.resource(s(a, "persona"), s(a, "command"), s(a, "path"))?),
        "read_object" => bytes(dist.read_object(s(a, "digest"))?),
        "skill_meta" => skill_meta(&dist.skill_meta(s(a, "command"))?),
        "persona_meta" => persona_meta(&dist.persona_meta(s(a, "persona"))?),
        "resolution" => resolution(&dist.resolution(s(a, "persona"), s(a, "command"))?),
        "missing_requirements" => {
            let (env, _folder) = environment(a);
            json!(dist.missing_requirements(s(a, "persona"), s(a, "command"), &env)?)
        }
        "substitute" => {
            let names = words(&a["names"]);
            json!(substitute(s(a, "body"), arguments(a).as_ref(), &names, opt(a, "skill_dir"), &params(a)?))
        }
        other => panic!("unknown call {}", other),
    })
}

/// The call's `env` with `PATH` a fresh folder holding its `path` entries (kept while the folder
/// it returns lives).
fn environment(a: &Value) -> (HashMap<String, String>, TempDir) {
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
    let mut env: HashMap<String, String> = a["env"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
        .collect();
    env.insert("PATH".into(), folder.0.to_str().unwrap().to_string());
    (env, folder)
}

fn skill_info(i: &SkillInfo) -> Value {
    json!({"command": i.command, "name": i.name, "description": i.description, "access": i.access,
           "model": i.model, "user": i.user, "in_catalog": i.in_catalog, "argument_hint": i.argument_hint,
           "context": i.context, "label": i.label})
}

fn sub_skill(c: &SubSkill) -> Value {
    json!({"command": c.command, "name": c.name, "description": c.description, "label": c.label})
}

fn knowledge_doc(d: &KnowledgeDoc) -> Value {
    json!({"path": d.path, "title": d.title})
}

fn loaded(l: &LoadedSkill) -> Value {
    json!({"persona": l.persona, "command": l.command, "name": l.name, "description": l.description,
           "body": l.body, "access": l.access, "overlay": l.overlay, "files": l.files,
           "sub_skills": l.sub_skills.iter().map(sub_skill).collect::<Vec<_>>(), "context": l.context,
           "agent": l.agent, "model": l.model, "allowed_tools": l.allowed_tools, "knowledge": l.knowledge,
           "base": l.base, "knowledge_docs": l.knowledge_docs.iter().map(knowledge_doc).collect::<Vec<_>>(),
           "label": l.label})
}

fn unavailable(u: &Unavailable) -> Value {
    json!({"command": u.command, "missing": u.missing})
}

fn shadowed(s: &Shadowed) -> Value {
    json!({"command": s.command, "tier": s.tier, "by": s.by})
}

fn persona_context(c: &PersonaContext) -> Value {
    json!({"persona": c.persona, "fallback": c.fallback, "unrestricted_skills": c.unrestricted_skills,
           "skill_overlay_path": c.skill_overlay_path, "overlay_fallback_path": c.overlay_fallback_path})
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
