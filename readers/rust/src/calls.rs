//! The calls of one build (view.py's calls), and the records they make, which a stack makes too.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use crate::available::{Machine, Needs};
use crate::build::Build;
use crate::error::ReaderError;
use crate::format::{is_sha256, MAX_FILES, MAX_OBJECT_BYTES};
use crate::index::member;
use crate::json::{Json, Object};
use crate::prompts::{
    based, names, substitute, Args, KnowledgeDoc, LoadOptions, LoadedSkill, Params, SubSkill,
};
use crate::records::{
    By, PersonaContext, PersonaMeta, Resolution, ResourceMeta, Shadowed, SkillInfo, SkillMeta, Unavailable,
};
use crate::split::{base_of, planned};
use crate::view::{Skill, View};

pub(crate) fn text(v: &Json) -> String {
    v.as_str().unwrap_or_default().to_string()
}

pub(crate) fn opt_text(v: Option<&Json>) -> Option<String> {
    v.and_then(Json::as_str).map(str::to_string)
}

pub(crate) fn texts(v: Option<&Json>) -> Vec<String> {
    v.and_then(Json::as_array)
        .unwrap_or_default()
        .iter()
        .filter_map(Json::as_str)
        .map(str::to_string)
        .collect()
}

pub(crate) fn flag(obj: &Object, key: &str) -> bool {
    member(obj, key).as_bool().unwrap_or(false)
}

fn context(fm: &Object) -> String {
    opt_text(fm.get("context")).unwrap_or_else(|| "inline".to_string())
}

// -- records, for a view and a stack alike ------------------------------------------------------

pub(crate) fn skill_info(command: &str, skill: &Skill, r: &Object, in_catalog: bool) -> SkillInfo {
    let fm = skill.frontmatter();
    SkillInfo {
        command: command.to_string(),
        name: skill.str("name"),
        description: skill.str("description"),
        access: text(member(r, "access")),
        model: flag(r, "model"),
        user: flag(r, "user"),
        in_catalog,
        argument_hint: opt_text(fm.get("argument-hint")),
        context: context(fm),
        label: skill.label(),
    }
}

/// Whether a stub: it needs nothing, and is never left out for what an environment lacks.
/// A child skill as load() lists it under its parent (`command` is the child's).
pub(crate) fn sub_skill(command: String, skill: &Skill) -> SubSkill {
    SubSkill { name: skill.str("name"), description: skill.str("description"), label: skill.label(), command }
}

pub(crate) fn is_stub(r: &Object) -> bool {
    member(r, "access").as_str() == Some("stub")
}

/// A skill's metadata, with the parent and children of the build (or stack) it is in.
pub(crate) fn skill_meta(
    command: &str,
    s: &Skill,
    parent: Option<String>,
    children: Vec<String>,
) -> SkillMeta {
    let resources = s.get("resources").as_array().unwrap_or_default().iter().filter_map(Json::as_object);
    SkillMeta {
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
        parent,
        children,
        label: s.label(),
    }
}

pub(crate) fn resolution(r: &Object, in_catalog: bool) -> Resolution {
    Resolution {
        access: text(member(r, "access")),
        via: opt_text(r.get("via")),
        overlay: opt_text(r.get("overlay")),
        model: flag(r, "model"),
        user: flag(r, "user"),
        in_catalog,
        body_sha256: text(member(r, "body")),
    }
}

/// What `load` returns for a pair it may serve: `body` is the resolved body's text (read before
/// the children are, docs/format.md §12); `children` lists the sub-skills the persona's model
/// sees; `base` the skill's folder (`${CLAUDE_SKILL_DIR}`, and the body's first line);
/// `knowledge` the index's knowledge (its folder and the titles found there).
#[allow(clippy::too_many_arguments)]
pub(crate) fn loaded(
    persona: &str,
    command: &str,
    skill: &Skill,
    r: &Object,
    body: &str,
    children: impl FnOnce() -> Result<Vec<SubSkill>, ReaderError>,
    options: &LoadOptions,
    base: Option<String>,
    knowledge: &Json,
) -> Result<LoadedSkill, ReaderError> {
    let fm = skill.frontmatter();
    let stub = is_stub(r); // the stub is all such a persona gets: no files, no knowledge docs
    let names = names(fm.get("arguments"));
    let substituted = substitute(body, options.args.as_ref(), &names, base.as_deref(), &options.params);
    let entries = if stub { Vec::new() } else { texts(fm.get("knowledge")) };
    let files = skill.resources(r).iter().map(|res| text(member(res, "path"))).take(MAX_FILES).collect();
    Ok(LoadedSkill {
        persona: persona.to_string(),
        command: command.to_string(),
        name: skill.str("name"),
        description: skill.str("description"),
        body: base.as_deref().map_or_else(|| substituted.clone(), |b| based(b, &substituted)),
        access: text(member(r, "access")),
        overlay: opt_text(r.get("overlay")),
        files,
        sub_skills: if stub { Vec::new() } else { children()? },
        context: context(fm),
        agent: opt_text(fm.get("agent")),
        model: opt_text(fm.get("model")),
        allowed_tools: texts(fm.get("allowed-tools")),
        knowledge_docs: entries.iter().map(|e| knowledge_doc(e, knowledge)).collect(),
        knowledge: entries,
        base,
        label: skill.label(),
    })
}

/// A `knowledge:` entry as a doc: in the build's knowledge folder, with the title found there.
fn knowledge_doc(entry: &str, knowledge: &Json) -> KnowledgeDoc {
    match knowledge.as_object() {
        None => KnowledgeDoc { path: entry.to_string(), title: None },
        Some(k) => KnowledgeDoc {
            path: format!("{}/{}", text(member(k, "folder")), entry),
            title: member(k, "titles").as_object().and_then(|t| opt_text(t.get(entry))),
        },
    }
}

pub(crate) fn persona_meta(persona: &str, m: &Object, catalog_chars: u64) -> PersonaMeta {
    let allowlist = m.get("allowlist").filter(|a| **a != Json::Null);
    PersonaMeta {
        id: persona.to_string(),
        name: text(member(m, "name")),
        faction: opt_text(m.get("faction")),
        fallback: opt_text(m.get("fallback")),
        chain: texts(m.get("chain")),
        unrestricted: flag(m, "unrestricted"),
        allowlist: allowlist.map(|a| texts(Some(a))),
        budget: member(m, "budget").as_count().unwrap_or(0),
        catalog_chars,
        included: texts(m.get("included")),
        left_out: texts(m.get("left_out")),
        shortened: texts(m.get("shortened")),
    }
}

/// The commands of `listed` that `machine` lacks a requirement of.
pub(crate) fn dropped<'a>(
    listed: impl Iterator<Item = &'a String>,
    requires: &BTreeMap<String, Needs>,
    machine: &Machine<'_>,
) -> HashSet<String> {
    listed.filter(|c| !machine.lacks(requires.get(c.as_str())).is_empty()).cloned().collect()
}

// -- the calls of one build ----------------------------------------------------------------------

impl View {
    fn sub_skills(&self, persona: &str, skill: &Skill) -> Result<Vec<SubSkill>, ReaderError> {
        let mut out = Vec::new();
        for child in texts(Some(skill.get("children"))) {
            if let Some(c) = self.skill(&child)? {
                if c.visible(persona).map_or(false, |r| flag(r, "model")) {
                    out.push(sub_skill(child, &c));
                }
            }
        }
        Ok(out)
    }

    /// Every skill the persona sees, in command order; the persona meta is read before any shard.
    fn listing(&self, persona: &str) -> Result<Vec<SkillInfo>, ReaderError> {
        let meta = self.meta(persona)?;
        let included: HashSet<String> =
            texts(meta.as_object().and_then(|m| m.get("included"))).into_iter().collect();
        let mut out = Vec::new();
        for (command, skill) in self.all_skills()? {
            if let Some(r) = skill.visible(persona) {
                out.push(skill_info(&command, &skill, r, included.contains(&command)));
            }
        }
        Ok(out)
    }

    fn cannot_split(persona: &str, drop: &HashSet<String>, root: Option<&str>) -> ReaderError {
        let why = if drop.is_empty() {
            format!("its locations cannot be given the root {:?}", root.unwrap_or_default())
        } else {
            let mut names: Vec<&String> = drop.iter().collect();
            names.sort();
            let names: Vec<&str> = names.into_iter().map(String::as_str).collect();
            format!(
                "the entries of {}, which this environment lacks requirements for, cannot be left out of its catalog",
                names.join(", ")
            )
        };
        ReaderError::CannotSplit(format!(
            "persona {:?}: this build's catalog template does not split (SKC603), so {}",
            persona, why
        ))
    }
}

impl Build for View {
    fn build_hash(&self) -> String {
        View::build_hash(self)
    }

    fn personas(&self) -> Vec<String> {
        View::personas(self)
    }

    /// The compiled catalog, without the entries of the skills whose requirements `machine`
    /// lacks, its relative locations under the root when there is one (docs/format.md §17.2).
    fn catalog(
        &self,
        persona: &str,
        machine: &Machine<'_>,
        root: Option<&str>,
    ) -> Result<String, ReaderError> {
        let root = root.or_else(|| self.root());
        let text = self.compiled(persona)?;
        let requires = if machine.everything() { Default::default() } else { self.requires()? };
        if requires.is_empty() && root.is_none() {
            return Ok(text);
        }
        let plan = self.plan(persona, &text)?;
        let drop = match &plan {
            Some(plan) => dropped(plan.entries.iter().map(|e| &e.command), &requires, machine),
            None => {
                let meta = self.meta(persona)?;
                dropped(texts(meta.as_object().and_then(|m| m.get("included"))).iter(), &requires, machine)
            }
        };
        if drop.is_empty() && root.is_none() {
            return Ok(text);
        }
        match plan {
            None => Err(View::cannot_split(persona, &drop, root)),
            Some(plan) => Ok(planned(&text, &plan, &drop, root)),
        }
    }

    fn skills(&self, persona: &str, machine: &Machine<'_>) -> Result<Vec<SkillInfo>, ReaderError> {
        let found = self.listing(persona)?;
        if machine.everything() {
            return Ok(found);
        }
        let requires = self.requires()?;
        Ok(found
            .into_iter()
            .filter(|s| s.access == "stub" || machine.lacks(requires.get(&s.command)).is_empty())
            .collect())
    }

    fn unavailable(&self, persona: &str, machine: &Machine<'_>) -> Result<Vec<Unavailable>, ReaderError> {
        self.entry(persona)?;
        if machine.everything() {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        for (command, needs) in self.requires()?.iter() {
            let skill = self.skill(command)?;
            match skill.as_ref().and_then(|s| s.visible(persona)) {
                Some(r) if !is_stub(r) => {
                    let missing = machine.lacks(Some(needs));
                    if !missing.is_empty() {
                        out.push(Unavailable { command: command.clone(), missing });
                    }
                }
                _ => {}
            }
        }
        Ok(out)
    }

    fn load(&self, persona: &str, command: &str, options: &LoadOptions) -> Result<LoadedSkill, ReaderError> {
        let (skill, r) = self.invocable(persona, command, options.by)?;
        let body = self.text(member(&r, "body").as_str().unwrap_or_default())?;
        let base = options.base.clone().or_else(|| base_of(&skill.str("path"), self.root()));
        let children = || self.sub_skills(persona, &skill);
        loaded(persona, command, &skill, &r, &body, children, options, base, self.top("knowledge"))
    }

    fn resources(
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

    fn resource(&self, persona: &str, command: &str, path: &str) -> Result<Vec<u8>, ReaderError> {
        let (skill, r) = self.resolved(persona, command)?;
        if is_stub(&r) {
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

    fn missing_requirements(
        &self,
        persona: &str,
        command: &str,
        machine: &Machine<'_>,
    ) -> Result<Vec<String>, ReaderError> {
        let (skill, r) = self.resolved(persona, command)?;
        if is_stub(&r) {
            return Ok(Vec::new());
        }
        let fm = skill.frontmatter();
        Ok(machine.missing(&texts(fm.get("requires_bins")), &texts(fm.get("requires_env"))))
    }

    fn materialize(
        &self,
        persona: &str,
        command: &str,
        dest: &Path,
        args: Option<&Args>,
        params: &Params,
        by: By,
    ) -> Result<PathBuf, ReaderError> {
        crate::materialize::materialize(self, persona, command, dest, args, params, by)
    }

    fn all_commands(&self) -> Result<Vec<String>, ReaderError> {
        Ok(self.all_skills()?.into_keys().collect())
    }

    fn skill_meta(&self, command: &str) -> Result<SkillMeta, ReaderError> {
        match self.skill(command)? {
            Some(s) => {
                Ok(skill_meta(command, &s, opt_text(Some(s.get("parent"))), texts(Some(s.get("children")))))
            }
            None => Err(self.unknown("*", command)?),
        }
    }

    /// The bytes of one object of this build, hash-checked.
    fn read_object(&self, digest: &str) -> Result<Vec<u8>, ReaderError> {
        if !is_sha256(digest) {
            return Err(ReaderError::Format(format!("{:?} is not a sha256 digest", digest)));
        }
        self.object(digest, MAX_OBJECT_BYTES)
    }

    fn persona_meta(&self, persona: &str) -> Result<PersonaMeta, ReaderError> {
        let meta = self.meta(persona)?;
        let chars = member(self.entry(persona)?, "chars").as_count().unwrap_or(0);
        Ok(persona_meta(persona, meta.as_object().expect("checked: an object"), chars))
    }

    /// ARIA's record (docs/format.md §18): from the persona meta and the build's personas folder.
    fn persona_context(&self, persona: &str) -> Result<PersonaContext, ReaderError> {
        let meta = self.meta(persona)?;
        let meta = meta.as_object().expect("checked: an object");
        let config = self.top("config").as_object().expect("checked: an object");
        let folder = member(config, "personas").as_str();
        let overlays = |pid: &str| folder.map(|f| format!("{}/{}/skill-overlays", f, pid));
        let fallback = opt_text(meta.get("fallback"));
        Ok(PersonaContext {
            persona: persona.to_string(),
            unrestricted_skills: flag(meta, "unrestricted"),
            skill_overlay_path: overlays(persona),
            overlay_fallback_path: fallback.as_deref().and_then(overlays),
            fallback,
        })
    }

    fn resolution(&self, persona: &str, command: &str) -> Result<Resolution, ReaderError> {
        let (_, r) = self.resolved(persona, command)?;
        let meta = self.meta(persona)?;
        let included = texts(meta.as_object().and_then(|m| m.get("included")));
        Ok(resolution(&r, included.iter().any(|c| c == command)))
    }

    fn shadowed(&self) -> Result<Vec<Shadowed>, ReaderError> {
        Ok(Vec::new())
    }
}
