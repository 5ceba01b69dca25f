//! What the conformance suite does not state: the Rust API's own promises.

mod support;

use skillc_reader::{Args, Dist, ReaderError, Visible};
use support::{copy_tree, suite, TempDir};

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
fn an_open_dist_keeps_serving_its_build_across_a_rebuild() {
    let tmp = TempDir::new("rebuild");
    let root = tmp.0.join("dist");
    copy_tree(&suite().join("builds/main"), &root);
    let dist = Dist::open(&root).unwrap();
    let before = (dist.catalog("tiny").unwrap(), dist.load("tiny", "deploy", Some("web prod")).unwrap());
    // another build lands beside it: its objects are added and its index replaces the old one
    copy_tree(&suite().join("builds/hostile"), &root);
    assert_ne!(Dist::open(&root).unwrap().build_hash(), dist.build_hash());
    assert_eq!(
        before,
        (dist.catalog("tiny").unwrap(), dist.load("tiny", "deploy", Some("web prod")).unwrap())
    );
    // the opened build's objects pruned: the answer says so
    std::fs::remove_dir_all(root.join("objects")).unwrap();
    copy_tree(&suite().join("builds/hostile/objects"), &root.join("objects"));
    let err = dist.load("tiny", "notes", None).unwrap_err();
    assert!(matches!(err, ReaderError::DistRebuilt(_)), "{:?}", err);
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
    assert!(format!("{:?}", dist).contains(&dist.build_hash()));
}

#[test]
fn catalog_reads_and_checks_once_then_serves_the_text_it_kept() {
    let tmp = TempDir::new("catalog-once");
    let root = tmp.0.join("dist");
    copy_tree(&suite().join("builds/main"), &root);
    let dist = Dist::open(&root).unwrap();
    let first = dist.catalog("paria").unwrap();
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root.join("_index.json")).unwrap()).unwrap();
    let prompt = index["personas"]["paria"]["prompt"].as_str().unwrap();
    std::fs::remove_file(root.join("objects").join(&prompt[..2]).join(prompt)).unwrap(); // a second read would fail
    assert_eq!(dist.catalog("paria").unwrap(), first);
    assert!(matches!(Dist::open(&root).unwrap().catalog("paria"), Err(ReaderError::Integrity(_))));
}

#[test]
fn params_fill_claude_codes_variables_in_load() {
    let dist = Dist::open(suite().join("builds/main")).unwrap();
    let params =
        skillc_reader::Params::from_pairs([("CLAUDE_SESSION_ID", "s-9"), ("CLAUDE_EFFORT", "max")]).unwrap();
    let body = dist.load_with("tiny", "deploy", None, &params).unwrap().body;
    assert!(body.contains("Session s-9, effort max, in ${CLAUDE_PROJECT_DIR};"), "{}", body);
    assert!(matches!(skillc_reader::Params::new().with("OTHER", "x"), Err(ReaderError::Reader(_))));
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
