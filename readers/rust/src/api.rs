//! The public calls of `Dist`, tier by tier (api.py).

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use crate::dist::{Dist, Skill};
use crate::error::ReaderError;
use crate::format::{is_sha256, MAX_FILES, MAX_OBJECT_BYTES};
use crate::index::member;
use crate::json::{Json, Object};
use crate::prompts::{names, substitute, Args, Params};
use crate::records::{LoadedSkill, PersonaMeta, Resolution, ResourceMeta, SkillInfo, SkillMeta, SubSkill};

fn text(v: &Json) -> String {
    v.as_str().unwrap_or_default().to_string()
}

fn opt_text(v: Option<&Json>) -> Option<String> {
    v.and_then(Json::as_str).map(str::to_string)
}

fn texts(v: Option<&Json>) -> Vec<String> {
    v.and_then(Json::as_array)
        .unwrap_or_default()
        .iter()
        .filter_map(Json::as_str)
        .map(str::to_string)
        .collect()
}

fn flag(obj: &Object, key: &str) -> bool {
    member(obj, key).as_bool().unwrap_or(false)
}

fn context(fm: &Object) -> String {
    opt_text(fm.get("context")).unwrap_or_else(|| "inline".to_string())
}

impl Dist {
    // -- tier 1 -------------------------------------------------------------------------------

    /// The persona's precomputed tier-1 catalog fragment.
    pub fn catalog(&self, persona: &str) -> Result<String, ReaderError> {
        self.catalog_text(persona)
    }

    /// The skills the persona sees, sorted by command.
    pub fn skills(&self, persona: &str) -> Result<Vec<SkillInfo>, ReaderError> {
        let meta = self.meta(persona)?;
        let included: HashSet<String> =
            texts(meta.as_object().and_then(|m| m.get("included"))).into_iter().collect();
        let mut out = Vec::new();
        for (command, skill) in self.all_skills()? {
            if let Some(r) = skill.visible(persona) {
                let fm = skill.frontmatter();
                out.push(SkillInfo {
                    in_catalog: included.contains(&command),
                    command,
                    name: skill.str("name"),
                    description: skill.str("description"),
                    access: text(member(r, "access")),
                    model: flag(r, "model"),
                    user: flag(r, "user"),
                    argument_hint: opt_text(fm.get("argument-hint")),
                    context: context(fm),
                    label: skill.label(),
                });
            }
        }
        Ok(out)
    }

    /// Slash commands the user may type for this persona.
    pub fn commands(&self, persona: &str) -> Result<Vec<String>, ReaderError> {
        Ok(self.skills(persona)?.into_iter().filter(|s| s.user).map(|s| s.command).collect())
    }

    // -- tier 2 -------------------------------------------------------------------------------

    /// The skill as the persona sees it, `args` (a line as typed) substituted.
    pub fn load(&self, persona: &str, command: &str, args: Option<&str>) -> Result<LoadedSkill, ReaderError> {
        self.load_args(persona, command, args.map(Args::from).as_ref())
    }

    /// `load` with the arguments as a line or as words (`Args::Words`, Python's list form).
    pub fn load_args(
        &self,
        persona: &str,
        command: &str,
        args: Option<&Args>,
    ) -> Result<LoadedSkill, ReaderError> {
        self.load_with(persona, command, args, &Params::new())
    }

    /// `load_args` with values for `${CLAUDE_SESSION_ID}`, `${CLAUDE_EFFORT}` and
    /// `${CLAUDE_PROJECT_DIR}` (Python's `params=`).
    pub fn load_with(
        &self,
        persona: &str,
        command: &str,
        args: Option<&Args>,
        params: &Params,
    ) -> Result<LoadedSkill, ReaderError> {
        let (skill, r) = self.resolved(persona, command)?;
        let fm = skill.frontmatter();
        let access = text(member(&r, "access"));
        let stub = access == "stub"; // the stub is all such a persona gets: no files, no knowledge docs
        let body = substitute(
            &self.text(member(&r, "body").as_str().unwrap_or_default())?,
            args,
            &names(fm.get("arguments")),
            None,
            params,
        );
        let files = skill.resources(&r).iter().map(|res| text(member(res, "path"))).take(MAX_FILES).collect();
        Ok(LoadedSkill {
            persona: persona.to_string(),
            command: command.to_string(),
            name: skill.str("name"),
            description: skill.str("description"),
            body,
            access,
            overlay: opt_text(r.get("overlay")),
            files,
            sub_skills: if stub { Vec::new() } else { self.sub_skills(persona, &skill)? },
            context: context(fm),
            agent: opt_text(fm.get("agent")),
            model: opt_text(fm.get("model")),
            allowed_tools: texts(fm.get("allowed-tools")),
            knowledge: if stub { Vec::new() } else { texts(fm.get("knowledge")) },
            label: skill.label(),
        })
    }

    fn sub_skills(&self, persona: &str, skill: &Skill) -> Result<Vec<SubSkill>, ReaderError> {
        let mut out = Vec::new();
        for child in texts(Some(skill.get("children"))) {
            if let Some(c) = self.skill(&child)? {
                if c.visible(persona).map_or(false, |r| flag(r, "model")) {
                    out.push(SubSkill {
                        name: c.str("name"),
                        description: c.str("description"),
                        label: c.label(),
                        command: child,
                    });
                }
            }
        }
        Ok(out)
    }

    // -- tier 3 -------------------------------------------------------------------------------

    /// Resource paths of a skill; `kind` filters by top directory (scripts, references, assets).
    pub fn resources(
        &self,
        persona: &str,
        command: &str,
        kind: Option<&str>,
    ) -> Result<Vec<String>, ReaderError> {
        let (skill, r) = self.resolved(persona, command)?;
        let top = kind.map(|k| format!("{}/", k.trim_end_matches('/')));
        Ok(skill
            .resources(&r)
            .iter()
            .map(|res| text(member(res, "path")))
            .filter(|p| top.as_ref().map_or(true, |t| p.starts_with(t.as_str())))
            .collect())
    }

    /// The bytes of one resource; only paths listed in the index are served.
    pub fn resource(&self, persona: &str, command: &str, path: &str) -> Result<Vec<u8>, ReaderError> {
        let (skill, r) = self.resolved(persona, command)?;
        if member(&r, "access").as_str() == Some("stub") {
            return Err(ReaderError::UnknownResource(format!(
                "{:?}: {:?} is exclusive to another persona; only its stub is served",
                path, command
            )));
        }
        for res in skill.resources(&r) {
            if member(res, "path").as_str() == Some(path) {
                let size = member(res, "size").as_count().unwrap_or(0);
                return self.object(member(res, "sha256").as_str().unwrap_or_default(), size);
            }
        }
        Err(ReaderError::UnknownResource(format!("{:?} is not a resource of {:?}", path, command)))
    }

    /// sven's availability guards on this machine: `["bin:docker", "env:TOKEN"]`.
    ///
    /// A variable is missing when unset or empty in `env` (default: the process environment);
    /// a program when no directory of that env's `PATH` holds it (which::which). A stub persona
    /// gets `[]` (the stub needs nothing).
    pub fn missing_requirements(
        &self,
        persona: &str,
        command: &str,
        env: Option<&HashMap<String, String>>,
    ) -> Result<Vec<String>, ReaderError> {
        let process: HashMap<String, String>;
        let env = match env {
            Some(env) => env,
            None => {
                process = std::env::vars_os()
                    .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                    .collect();
                &process
            }
        };
        let path = env.get("PATH").map_or("", String::as_str);
        self.missing_requirements_with(persona, command, env, &|b| crate::which::which(b, path).is_some())
    }

    /// `missing_requirements` with the program search replaced by `found` (Python's `which`
    /// argument): for tests, or an application that knows its programs otherwise.
    pub fn missing_requirements_with(
        &self,
        persona: &str,
        command: &str,
        env: &HashMap<String, String>,
        found: &dyn Fn(&str) -> bool,
    ) -> Result<Vec<String>, ReaderError> {
        let (skill, r) = self.resolved(persona, command)?;
        if member(&r, "access").as_str() == Some("stub") {
            return Ok(Vec::new());
        }
        let fm = skill.frontmatter();
        let mut missing: Vec<String> = texts(fm.get("requires_bins"))
            .into_iter()
            .filter(|b| !found(b))
            .map(|b| format!("bin:{}", b))
            .collect();
        missing.extend(
            texts(fm.get("requires_env"))
                .into_iter()
                .filter(|e| env.get(e).map_or(true, String::is_empty))
                .map(|e| format!("env:{}", e)),
        );
        Ok(missing)
    }

    /// Write the resolved skill folder into `dest` (missing or empty): SKILL.md with the
    /// resolved body (`${CLAUDE_SKILL_DIR}` = dest), then every resource with its executable
    /// bit. Nothing is ever written outside dest. Returns dest, made absolute.
    pub fn materialize(
        &self,
        persona: &str,
        command: &str,
        dest: impl AsRef<std::path::Path>,
        args: Option<&Args>,
    ) -> Result<PathBuf, ReaderError> {
        crate::materialize::materialize(self, persona, command, dest.as_ref(), args, &Params::new())
    }

    /// `materialize` with values for `${CLAUDE_SESSION_ID}`, `${CLAUDE_EFFORT}` and
    /// `${CLAUDE_PROJECT_DIR}` (Python's `params=`).
    pub fn materialize_with(
        &self,
        persona: &str,
        command: &str,
        dest: impl AsRef<std::path::Path>,
        args: Option<&Args>,
        params: &Params,
    ) -> Result<PathBuf, ReaderError> {
        crate::materialize::materialize(self, persona, command, dest.as_ref(), args, params)
    }

    // -- metadata for tools -------------------------------------------------------------------

    /// Every command of the build, sorted.
    pub fn all_commands(&self) -> Result<Vec<String>, ReaderError> {
        Ok(self.all_skills()?.into_keys().collect())
    }

    pub fn skill_meta(&self, command: &str) -> Result<SkillMeta, ReaderError> {
        let s = match self.skill(command)? {
            Some(s) => s,
            None => return Err(self.unknown("*", command)?),
        };
        let resources = s.get("resources").as_array().unwrap_or_default().iter().filter_map(Json::as_object);
        Ok(SkillMeta {
            command: command.to_string(),
            name: s.str("name"),
            description: s.str("description"),
            source: s.str("source"),
            path: s.str("path"),
            frontmatter: s.frontmatter().iter().map(|(k, v)| (k.clone(), v.to_serde())).collect(),
            body_sha256: s.str("body"),
            resources: resources
                .map(|r| ResourceMeta {
                    path: text(member(r, "path")),
                    sha256: text(member(r, "sha256")),
                    size: member(r, "size").as_count().unwrap_or(0),
                    executable: flag(r, "executable"),
                })
                .collect(),
            parent: opt_text(Some(s.get("parent"))),
            children: texts(Some(s.get("children"))),
            label: s.label(),
        })
    }

    /// The bytes of one object of this build, hash-checked: for tools (diff, audit) that hold a
    /// digest from `skill_meta`, `resolution` or `ResourceMeta`.
    pub fn read_object(&self, digest: &str) -> Result<Vec<u8>, ReaderError> {
        if !is_sha256(digest) {
            return Err(ReaderError::Format(format!("{:?} is not a sha256 digest", digest)));
        }
        self.object(digest, MAX_OBJECT_BYTES)
    }

    pub fn persona_meta(&self, persona: &str) -> Result<PersonaMeta, ReaderError> {
        let meta = self.meta(persona)?;
        let m = meta.as_object().expect("checked: an object");
        let entry = self.entry(persona)?;
        let allowlist = m.get("allowlist").filter(|a| **a != Json::Null);
        Ok(PersonaMeta {
            id: persona.to_string(),
            name: text(member(m, "name")),
            faction: opt_text(m.get("faction")),
            fallback: opt_text(m.get("fallback")),
            chain: texts(m.get("chain")),
            unrestricted: flag(m, "unrestricted"),
            allowlist: allowlist.map(|a| texts(Some(a))),
            budget: member(m, "budget").as_count().unwrap_or(0),
            catalog_chars: member(entry, "chars").as_count().unwrap_or(0),
            included: texts(m.get("included")),
            left_out: texts(m.get("left_out")),
            shortened: texts(m.get("shortened")),
        })
    }

    pub fn resolution(&self, persona: &str, command: &str) -> Result<Resolution, ReaderError> {
        let (_, r) = self.resolved(persona, command)?;
        let meta = self.meta(persona)?;
        let included = texts(meta.as_object().and_then(|m| m.get("included")));
        Ok(Resolution {
            access: text(member(&r, "access")),
            via: opt_text(r.get("via")),
            overlay: opt_text(r.get("overlay")),
            model: flag(&r, "model"),
            user: flag(&r, "user"),
            in_catalog: included.iter().any(|c| c == command),
            body_sha256: text(member(&r, "body")),
        })
    }
}
