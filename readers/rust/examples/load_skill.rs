//! sven's shape: the tier-1 catalog in the system prompt, a `load_skill` tool that answers with
//! a `<skill_content>` block (body, bundled files, sub-skills), and a tool that reads a bundled
//! file. Run against a build:
//!
//!     cargo run --example load_skill -- DIST PERSONA COMMAND [ARGUMENTS...]
//!     cargo run --example load_skill -- ../../tests/conformance/builds/main tiny ops

use std::sync::Arc;

use serde_json::{json, Value};
use skillc_reader::{Args, Dist, ReaderError};

/// The `load_skill` tool of one agent: the persona it runs as, and the build it reads.
struct LoadSkillTool {
    dist: Arc<Dist>,
    persona: String,
}

impl LoadSkillTool {
    fn name(&self) -> &'static str {
        "load_skill"
    }

    fn schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "the skill's command, e.g. \"sven/plan\""},
                "arguments": {"type": "string", "description": "the arguments, as the user typed them"}
            },
            "required": ["name"]
        })
    }

    /// The tool result the model reads. A skill the persona cannot see is an answer too: it
    /// names close skills it can load, so the model corrects itself instead of the turn failing.
    /// (`visible.list()` would name every one, reading every shard: not for a large build.)
    fn execute(&self, input: &Value) -> Result<String, ReaderError> {
        let command = input["name"].as_str().unwrap_or_default();
        let args = input["arguments"].as_str().map(Args::from);
        match self.dist.load_args(&self.persona, command, args.as_ref()) {
            Ok(skill) => Ok(skill.render()),
            Err(ReaderError::UnknownSkill { suggestions, .. }) if suggestions.is_empty() => {
                Ok(format!("No skill {:?}. The skills you can load are listed in your catalog.", command))
            }
            Err(ReaderError::UnknownSkill { suggestions, .. }) => {
                Ok(format!("No skill {:?}. Did you mean: {}?", command, suggestions.join(", ")))
            }
            Err(other) => Err(other), // a damaged build is the application's problem, not the model's
        }
    }
}

/// The tool that reads a bundled file of a loaded skill (paths relative to the skill).
fn read_skill_file(dist: &Dist, persona: &str, command: &str, path: &str) -> String {
    match dist.resource(persona, command, path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => format!("cannot read {}: {}", path, e),
    }
}

fn system_prompt(dist: &Dist, persona: &str) -> Result<String, ReaderError> {
    Ok(format!(
        "## Skills\n\nWhen the task matches one of the skills below, call the `load_skill` tool to load \
         its full instructions before proceeding.\n\n{}",
        dist.catalog(persona)?
    ))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.len() < 3 {
        eprintln!("usage: load_skill DIST PERSONA COMMAND [ARGUMENTS...]");
        std::process::exit(2);
    }
    let dist = Arc::new(Dist::open(&argv[0])?);
    let tool = LoadSkillTool { dist: dist.clone(), persona: argv[1].clone() };
    println!("{}", system_prompt(&dist, &tool.persona)?);
    println!("-- tool {} {}", tool.name(), tool.schema());
    let mut input = json!({"name": argv[2]});
    if argv.len() > 3 {
        input["arguments"] = json!(argv[3..].join(" "));
    }
    println!("{}", tool.execute(&input)?);
    if let Some(first) = dist.load(&tool.persona, &argv[2], None).ok().and_then(|s| s.files.first().cloned())
    {
        println!("-- {}:\n{}", first, read_skill_file(&dist, &tool.persona, &argv[2], &first));
    }
    let missing = dist.missing_requirements(&tool.persona, &argv[2], None).unwrap_or_default();
    if !missing.is_empty() {
        println!("-- unavailable on this machine: {}", missing.join(", "));
    }
    Ok(())
}
