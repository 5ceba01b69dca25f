//! sven's skill loader (seed 003) over a skillc build, through the Rust reader: what sven's
//! `build_skills_section`, `LoadSkillTool` and TUI slash commands do at run time.
//!
//! - the system prompt's `## Skills` section: the build's `<available_skills>` catalog (within its
//!   budget, `always` skills first) for the machine this runs on: a skill whose `requires_bins` or
//!   `requires_env` this machine lacks is left out, and said so;
//! - `load_skill`, the model's tool: the `<skill_content>` block with the body, the base directory
//!   (the skill's folder under the project, or under `$HOME` for a `~` source), the direct
//!   children as `<sub_skills>`, and the knowledge docs with their titles; a `user_invocable_only`
//!   skill is refused to the model;
//! - the TUI's slash commands: every skill the user may invoke on this machine, its command
//!   sanitised per `/` segment as sven does; invoking one sends its body, then the task.
//!
//!     cargo run --example load_skill -- DIST PROJECT PERSONA [ACTION...]
//!
//! PROJECT is the folder the build's paths are relative to (the config's). Each ACTION prints a
//! section headed `== ACTION`: `prompt`, `commands`, `load:COMMAND` (the model's `load_skill`),
//! or `/NAME [TASK...]` (the user's slash command, as typed).

use std::collections::BTreeMap;

use skillc_reader::{By, Dist, LoadOptions, ReaderError};

/// sven's preamble before the `<available_skills>` block.
const PREAMBLE: &str =
    "## Skills\n\nWhen you recognize that the current task matches one of the available skills\n\
listed below, call the `load_skill` tool to load the full skill instructions\nbefore proceeding.\n\n";

/// One agent's skills: the build, the persona it runs as, and where `~` is on this machine.
struct Sven {
    dist: Dist,
    persona: String,
    home: Option<String>,
}

impl Sven {
    /// The system prompt's skills section, and the skills this machine cannot run (each with what
    /// it lacks), which the catalog leaves out.
    fn system_prompt(&self) -> Result<(String, Vec<String>), ReaderError> {
        let catalog = self.dist.catalog(&self.persona)?; // the process's environment
        let gone = self.dist.unavailable(&self.persona)?;
        let notes = gone.iter().map(|u| format!("{}: {}", u.command, u.missing.join(", "))).collect();
        Ok((format!("{}{}", PREAMBLE, catalog), notes))
    }

    /// How to load a skill for `by`: its base directory is the build's root's (the project's)
    /// but for a `~` source, whose folder the build cannot know: it is below `$HOME` here.
    fn options(&self, command: &str, by: By) -> Result<LoadOptions, ReaderError> {
        let options = LoadOptions::new().by(by);
        let path = match self.dist.skill_meta(command) {
            Ok(meta) => meta.path,
            Err(ReaderError::UnknownSkill { .. }) => return Ok(options), // load says so
            Err(other) => return Err(other),
        };
        Ok(match (path.strip_prefix("~/"), &self.home) {
            (Some(rest), Some(home)) => {
                let folder = rest.rsplit_once('/').map_or("", |(folder, _)| folder);
                options.base(format!("{}/{}", home.trim_end_matches('/'), folder))
            }
            _ => options,
        })
    }

    /// `load_skill({"name": command})`: the tool result the model reads. A skill it may not
    /// invoke, or does not see, is an answer too, so the model corrects itself.
    fn load_skill(&self, command: &str) -> Result<String, ReaderError> {
        let options = self.options(command, By::Model)?;
        match self.dist.load_with(&self.persona, command, &options) {
            Ok(skill) => Ok(skill.render()),
            Err(ReaderError::NotInvocable { invokers, .. }) => {
                let who: Vec<&str> = invokers.iter().map(|b| b.as_str()).collect();
                Ok(format!(
                    "Skill {:?} is not for the model: only the {} may invoke it.",
                    command,
                    who.join(" and ")
                ))
            }
            Err(ReaderError::UnknownSkill { suggestions, .. }) if suggestions.is_empty() => Ok(format!(
                "No skill {:?}. The skills you can load are listed in your system prompt.",
                command
            )),
            Err(ReaderError::UnknownSkill { suggestions, .. }) => {
                Ok(format!("No skill {:?}. Did you mean: {}?", command, suggestions.join(", ")))
            }
            Err(other) => Err(other), // a damaged build is the application's problem, not the model's
        }
    }

    /// The TUI's slash commands: sanitised name -> command, for the skills the user may invoke
    /// and this machine can run.
    fn slash_commands(&self) -> Result<BTreeMap<String, String>, ReaderError> {
        Ok(self.dist.commands(&self.persona)?.into_iter().map(|c| (sanitize(&c), c)).collect())
    }

    /// The user typed `/name task...`: the message sent is the skill's body (after its base
    /// directory), then the task.
    fn slash(&self, typed: &str) -> Result<String, ReaderError> {
        let (name, task) =
            typed.trim_start_matches('/').split_once(' ').unwrap_or((typed.trim_start_matches('/'), ""));
        let commands = self.slash_commands()?;
        let command = match commands.get(name) {
            Some(command) => command,
            None => return Ok(format!("Unknown command /{}", name)),
        };
        let skill = self.dist.load_with(&self.persona, command, &self.options(command, By::User)?)?;
        let task = task.trim();
        Ok(if task.is_empty() { skill.body } else { format!("{}\n\nTask: {}", skill.body.trim_end(), task) })
    }
}

/// sven's `sanitize_command_name`: each `/`-separated segment lowercased, each run of characters
/// that are not letters or digits (spaces, hyphens...) one `_`; the `/` kept.
fn sanitize(command: &str) -> String {
    let segment = |part: &str| {
        let mut out = String::new();
        for c in part.chars() {
            if c.is_alphanumeric() {
                out.extend(c.to_lowercase());
            } else if !out.ends_with('_') {
                out.push('_');
            }
        }
        out
    };
    command.split('/').map(segment).collect::<Vec<_>>().join("/")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.len() < 3 {
        eprintln!(
            "usage: load_skill DIST PROJECT PERSONA [prompt | commands | load:COMMAND | /NAME [TASK...]]..."
        );
        std::process::exit(2);
    }
    let dist = Dist::open_with_root(&argv[0], &argv[1])?;
    let sven = Sven { dist, persona: argv[2].clone(), home: std::env::var("HOME").ok() };
    for action in &argv[3..] {
        println!("== {}", action);
        let text = if action == "prompt" {
            let (prompt, gone) = sven.system_prompt()?;
            let notes: Vec<String> =
                gone.iter().map(|n| format!("-- unavailable on this machine: {}\n", n)).collect();
            prompt + &notes.concat()
        } else if action == "commands" {
            sven.slash_commands()?
                .iter()
                .map(|(name, command)| format!("/{} -> {}\n", name, command))
                .collect()
        } else if let Some(command) = action.strip_prefix("load:") {
            sven.load_skill(command)?
        } else if action.starts_with('/') {
            sven.slash(action)?
        } else {
            eprintln!("unknown action {:?}", action);
            std::process::exit(2);
        };
        print!("{}", text);
        if !text.ends_with('\n') {
            println!();
        }
    }
    Ok(())
}
