//! What the conformance suite does not state: the Rust API's own promises.

mod support;

use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt;

use skillc_reader::{Args, By, Dist, Env, LoadOptions, Params, ReaderError, Tier, Visible};
use support::{copy_tree, rebuild, suite, TempDir};

#[test]
fn a_dist_is_shared_across_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<Dist>();
    shared::<ReaderError>();
    let dist = std::sync::Arc::new(Dist::open(suite().join("builds/main")).unwrap());
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let dist = dist.clone();
            std::thread::spawn(move || dist.all_commands().unwrap())
        })
        .collect();
    let answers: Vec<Vec<String>> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert!(answers.windows(2).all(|w| w[0] == w[1]) && !answers[0].is_empty());
}

#[test]
fn an_open_dist_answers_from_the_newest_build() {
    let tmp = TempDir::new("rebuild");
    let root = tmp.0.join("dist");
    copy_tree(&suite().join("builds/main"), &root);
    let dist = Dist::open(&root).unwrap();
    let before = (dist.build_hash().unwrap(), dist.load("tiny", "notes", None).unwrap());
    rebuild(&root, &suite().join("builds/main-next"), false); // main with notes edited, and a new skill
    let after = (dist.build_hash().unwrap(), dist.load("tiny", "notes", None).unwrap());
    assert_ne!(before.0, after.0);
    assert_ne!(before.1.body, after.1.body);
    assert!(!dist.refresh(), "already moved, at the calls above");
    // the old build's objects pruned: the handle serves the new one, whose objects are there
    rebuild(&root, &suite().join("builds/main-next"), true);
    assert_eq!(dist.load("tiny", "notes", None).unwrap(), after.1);
}

#[test]
fn a_missing_or_broken_index_leaves_the_build_served() {
    let tmp = TempDir::new("broken-index");
    let root = tmp.0.join("dist");
    copy_tree(&suite().join("builds/main"), &root);
    let dist = Dist::open(&root).unwrap();
    let first = dist.build_hash().unwrap();
    std::fs::write(root.join("_index.json"), "{").unwrap();
    assert_eq!(dist.build_hash().unwrap(), first);
    assert!(dist.load("tiny", "notes", None).is_ok());
    std::fs::remove_file(root.join("_index.json")).unwrap();
    assert_eq!(dist.build_hash().unwrap(), first);
    assert!(!dist.refresh());
}

#[test]
fn the_process_environment_is_the_default() {
    let dist = Dist::open(suite().join("builds/main")).unwrap();
    let process: HashMap<String, String> = std::env::vars().collect();
    assert_eq!(dist.catalog("tiny").unwrap(), dist.catalog_in("tiny", Env::Map(&process)).unwrap());
    assert_eq!(dist.skills("forge").unwrap(), dist.skills_in("forge", &process).unwrap());
    assert_eq!(dist.unavailable("forge").unwrap(), dist.unavailable_in("forge", &process).unwrap());
    assert_eq!(dist.missing_requirements("forge", "deploy", None).unwrap(), {
        dist.missing_requirements("forge", "deploy", &process).unwrap()
    });
    // everywhere: the build as made, and nothing is missing
    assert!(dist.unavailable_in("forge", Env::Everywhere).unwrap().is_empty());
    assert!(dist.missing_requirements("forge", "deploy", Env::Everywhere).unwrap().is_empty());
    let nothing: HashMap<String, String> =
        [("PATH".to_string(), "/nonexistent".to_string())].into_iter().collect();
    let lacking = dist.unavailable_in("forge", &nothing).unwrap();
    assert_eq!(lacking.iter().map(|u| u.command.as_str()).collect::<Vec<_>>(), ["deploy", "mark"]);
    assert_eq!(lacking[1].missing, ["bin:nmap", "env:MARK_KEY"]);
    assert!(!dist.catalog_in("forge", &nothing).unwrap().contains("<command>deploy</command>"));
    assert!(dist.catalog_in("forge", Env::Everywhere).unwrap().contains("<command>deploy</command>"));
    let all = |_: &str| true;
    let given: HashMap<String, String> = [("DEPLOY_TOKEN", "t"), ("KUBECONFIG", "k")]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let lacking = dist.unavailable_in("forge", Env::Searched(&given, &all)).unwrap();
    assert_eq!(
        lacking.iter().map(|u| (u.command.as_str(), u.missing.clone())).collect::<Vec<_>>(),
        [("mark", vec!["env:MARK_KEY".to_string()])]
    );
}

#[test]
fn who_invokes_is_checked_before_anything_is_read() {
    let dist = Dist::open(suite().join("builds/main")).unwrap();
    let user_only =
        dist.skills_in("paria", Env::Everywhere).unwrap().into_iter().find(|s| s.user && !s.model);
    let user_only = user_only.expect("main has a user-only skill").command;
    let err = dist.load("paria", &user_only, None).unwrap_err();
    match &err {
        ReaderError::NotInvocable { by, invokers, .. } => {
            assert_eq!((*by, invokers.as_slice()), (By::Model, &[By::User][..]))
        }
        other => panic!("{:?}", other),
    }
    assert!(err.to_string().ends_with("only the user may invoke it (a slash command)"), "{}", err);
    assert!(dist.load_with("paria", &user_only, &LoadOptions::new().by(By::User)).is_ok());
    let tmp = TempDir::new("not-invocable");
    let err = dist.materialize("paria", &user_only, tmp.0.join("m"), None).unwrap_err();
    assert_eq!(err.class_name(), "NotInvocable");
    assert!(!tmp.0.join("m").exists());
}

#[test]
fn a_second_materialize_of_the_same_skill_is_a_no_op() {
    let tmp = TempDir::new("materialize-again");
    let dist = Dist::open(suite().join("builds/main")).unwrap();
    let dest = dist.materialize("forge", "deploy", tmp.0.join("m"), Some(&Args::from("42"))).unwrap();
    let stamp = |p: &str| std::fs::metadata(dest.join(p)).unwrap().modified().unwrap();
    let before = (stamp("SKILL.md"), stamp("scripts/run.sh"));
    assert_eq!(dist.materialize("forge", "deploy", &dest, Some(&Args::from("42"))).unwrap(), dest);
    assert_eq!((stamp("SKILL.md"), stamp("scripts/run.sh")), before);
    let other = dist.materialize("forge", "deploy", &dest, Some(&Args::from("43"))).unwrap_err();
    assert!(other.to_string().contains("something else"), "{}", other);
}

#[test]
fn a_destination_holding_anything_else_is_refused() {
    for change in ["extra file", "extra folder", "edited", "mode", "link", "missing"] {
        let tmp = TempDir::new("materialize-else");
        let dist = Dist::open(suite().join("builds/main")).unwrap();
        let dest = dist.materialize("forge", "deploy", tmp.0.join("m"), None).unwrap();
        let guide = dest.join("references/guide.md");
        match change {
            "extra file" => std::fs::write(dest.join("references/more.md"), "x").unwrap(),
            "extra folder" => std::fs::create_dir(dest.join("empty")).unwrap(),
            "edited" => std::fs::write(&guide, "R\n").unwrap(),
            "mode" => {
                std::fs::set_permissions(dest.join("scripts/run.sh"), std::fs::Permissions::from_mode(0o644))
                    .unwrap()
            }
            "link" => {
                let kept = std::fs::read(&guide).unwrap();
                std::fs::write(tmp.0.join("elsewhere"), kept).unwrap();
                std::fs::remove_file(&guide).unwrap();
                std::os::unix::fs::symlink(tmp.0.join("elsewhere"), &guide).unwrap();
            }
            _ => std::fs::remove_file(&guide).unwrap(),
        }
        let err = dist.materialize("forge", "deploy", &dest, None).unwrap_err();
        assert!(err.to_string().contains("something else"), "{}: {}", change, err);
    }
}

#[test]
fn load_gives_claude_code_s_base_directory_line() {
    let dist = Dist::open(suite().join("builds/main")).unwrap();
    let loaded = dist.load_with("forge", "ops", &LoadOptions::new().base("/work/skills/ops")).unwrap();
    assert_eq!(loaded.base.as_deref(), Some("/work/skills/ops"));
    assert!(
        loaded.body.starts_with("Base directory for this skill: /work/skills/ops\n\n"),
        "{}",
        loaded.body
    );
    assert!(loaded
        .render()
        .starts_with("<skill_content command=\"ops\" name=\"ops\">\nBase directory for this skill: "));
    let rooted = Dist::open_with_root(suite().join("builds/main"), "/project/").unwrap();
    assert_eq!(rooted.load("forge", "ops", None).unwrap().base.as_deref(), Some("/project/skills/ops"));
    let catalog = rooted.catalog_in("forge", Env::Everywhere).unwrap();
    assert!(catalog.contains("<location>/project/skills/ops/SKILL.md</location>"), "{}", catalog);
    assert_eq!(dist.catalog_rooted("forge", Env::Everywhere, "/project").unwrap(), catalog); // for one call
    let plain = dist.load("forge", "ops", None).unwrap();
    assert_eq!(plain.base, None);
    assert!(plain
        .render_with_base("/b")
        .starts_with("<skill_content command=\"ops\" name=\"ops\">\nBase directory for this skill: /b\n\n"));
    assert_eq!(loaded.render_with_base("/other"), loaded.render()); // a base from load stands
}

#[test]
fn a_stack_refuses_a_root_for_one_call_and_names_its_tiers() {
    let builds = suite().join("builds");
    let tiers = [
        Tier::new(builds.join("tier-bundled")),
        Tier::optional(builds.join("nowhere")),
        Tier::new(builds.join("tier-user")),
    ];
    let dist = Dist::open_stack(&tiers).unwrap();
    assert_eq!(dist.paths().len(), 3);
    assert_eq!(dist.path(), dist.paths()[0]);
    let err = dist.catalog_rooted("default", Env::Everywhere, "/x").unwrap_err();
    assert_eq!(err.class_name(), "ReaderError");
    assert_eq!(Dist::open_stack(&[]).unwrap_err().class_name(), "ReaderError");
    let none = Dist::open_stack(&[Tier::optional(builds.join("a")), Tier::optional(builds.join("b"))]);
    assert!(none.unwrap_err().to_string().contains("none of the builds"));
    assert_eq!(Dist::open_stack(&[Tier::new(builds.join("a"))]).unwrap_err().class_name(), "FormatError");
}

#[test]
fn arguments_as_a_line_or_as_words() {
    let dist = Dist::open(suite().join("builds/main")).unwrap();
    let line = dist.load("tiny", "deploy", Some("'web app' prod")).unwrap();
    let words = dist.load_args("tiny", "deploy", Some(&Args::from(&["web app", "prod"][..]))).unwrap();
    assert!(line.body.contains("web app") && words.body.contains("web app"));
    assert!(line.body.contains("(all: 'web app' prod)") && words.body.contains("(all: web app prod)"));
}

#[test]
fn errors_say_what_failed() {
    let dist = Dist::open(suite().join("builds/main")).unwrap();
    let err = dist.load("nobody", "deploy", None).unwrap_err();
    assert_eq!(err.to_string(), "unknown persona \"nobody\"; known: forge, paria, paria-g, tiny, vind");
    let err = dist.load("vind", "deploy", None).unwrap_err();
    assert_eq!(err.to_string(), "no skill \"deploy\" for persona \"vind\"");
    let boxed: Box<dyn std::error::Error> = Box::new(err);
    assert!(boxed.to_string().contains("deploy"));
    assert_eq!(Dist::open(suite()).err().map(|e| e.class_name()), Some("FormatError"));
}

#[test]
fn the_program_search_can_be_replaced() {
    let dist = Dist::open(suite().join("builds/main")).unwrap();
    let env: std::collections::HashMap<String, String> =
        [("KUBECONFIG".to_string(), "/k".to_string())].into_iter().collect();
    let missing = dist.missing_requirements_with("tiny", "deploy", &env, &|b| b == "docker").unwrap();
    assert_eq!(missing, ["bin:kubectl", "env:DEPLOY_TOKEN"]);
    assert!(format!("{:?}", dist).contains(&dist.build_hash().unwrap()));
}

#[test]
fn catalog_reads_and_checks_once_then_serves_the_text_it_kept() {
    let tmp = TempDir::new("catalog-once");
    let root = tmp.0.join("dist");
    copy_tree(&suite().join("builds/main"), &root);
    let dist = Dist::open(&root).unwrap();
    let first = dist.catalog_in("paria", Env::Everywhere).unwrap();
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root.join("_index.json")).unwrap()).unwrap();
    let prompt = index["personas"]["paria"]["prompt"].as_str().unwrap();
    std::fs::remove_file(root.join("objects").join(&prompt[..2]).join(prompt)).unwrap(); // a second read would fail
    assert_eq!(dist.catalog_in("paria", Env::Everywhere).unwrap(), first);
    let fresh = Dist::open(&root).unwrap().catalog_in("paria", Env::Everywhere);
    assert!(matches!(fresh, Err(ReaderError::Integrity(_))));
}

#[test]
fn params_fill_claude_codes_variables_in_load() {
    let dist = Dist::open(suite().join("builds/main")).unwrap();
    let params = Params::from_pairs([("CLAUDE_SESSION_ID", "s-9"), ("CLAUDE_EFFORT", "max")]).unwrap();
    let body = dist.load_with("tiny", "deploy", &LoadOptions::new().params(params)).unwrap().body;
    assert!(body.contains("Session s-9, effort max, in ${CLAUDE_PROJECT_DIR};"), "{}", body);
    assert!(matches!(Params::new().with("OTHER", "x"), Err(ReaderError::Reader(_))));
}

#[test]
fn unknown_skill_names_close_commands_and_lists_the_visible_ones_when_asked() {
    let dist = Dist::open(suite().join("builds/main")).unwrap();
    let err = dist.load("forge", "ops:restrat", None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "no skill \"ops:restrat\" for persona \"forge\" (did you mean \"ops/restart\"?)"
    );
    match &err {
        ReaderError::UnknownSkill { suggestions, visible, .. } => {
            assert_eq!(suggestions, &["ops/restart"]);
            assert_eq!(format!("{:?}", visible), "Visible(not listed yet)");
            let sees = ["deploy", "mark", "ops", "ops/restart", "threat"];
            assert_eq!(visible.list().unwrap(), sees);
            assert_eq!(err.clone(), err); // clones share the list
        }
        other => panic!("{:?}", other),
    }
    match dist.load("forge", "ops/secrte", None).unwrap_err() {
        ReaderError::UnknownSkill { suggestions, .. } => assert!(suggestions.is_empty()), // hidden from forge
        other => panic!("{:?}", other),
    }
    let by_hand = ReaderError::UnknownSkill {
        persona: "p".into(),
        command: "c".into(),
        suggestions: vec!["x".into(), "y".into()],
        visible: Visible::known(vec!["x".into()]),
    };
    assert_eq!(by_hand.to_string(), "no skill \"c\" for persona \"p\" (did you mean \"x\" or \"y\"?)");
}
