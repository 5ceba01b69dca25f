//! `Stack`: several builds (tiers: bundled, user, project) answered as one build compiled from
//! their sources in that order would answer (stack.py; docs/format.md §16).
//!
//! A later tier wins per command; the shadowed skills are reported. Parent and children are those
//! of the union of commands; the catalog is packed again, over every tier's candidates, with the
//! first tier's template split, budget and strategy. Where that equality cannot hold (other
//! persona inputs, a first tier whose template does not split or that ranks by
//! `budgets.priority`), the stack is refused: `CannotStack`. A stack reads every shard of every
//! tier before it answers a call that needs a skill (tiers are small: a bundled set, a user's
//! folder, a project's).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::available::Machine;
use crate::build::Build;
use crate::calls::{is_stub, loaded, persona_meta, resolution, skill_info, skill_meta, sub_skill, texts};
use crate::error::{ReaderError, Visible};
use crate::format::{is_sha256, object_path, sha256_hex};
use crate::index::member;
use crate::json::{Json, Object};
use crate::pack::{fit, Candidate, Packed, STRATEGIES};
use crate::prompts::{Args, LoadOptions, LoadedSkill, Params, SubSkill};
use crate::records::{
    By, PersonaContext, PersonaMeta, Resolution, Shadowed, SkillInfo, SkillMeta, Unavailable,
};
use crate::split::{base_of, entry_text, frame_text, prefix_of, relative, Frames, Split, Values};
use crate::view::{invoker_allowed, Skill, View};

/// A present tier: its place in the list `open_stack` was given, its build, its root.
pub(crate) struct Layer {
    pub place: usize,
    pub view: Arc<View>,
    pub root: Option<String>,
}

/// The union of the tiers' skills: each command's winning tier (an index into the layers) and
/// entry, and their links.
struct Merged {
    winning: BTreeMap<String, (usize, Skill)>,
    children: HashMap<String, Vec<String>>,
    shadowed: Vec<Shadowed>,
}

/// The command one level up in the command's own spelling, whether or not it exists.
fn above(command: &str) -> Option<&str> {
    command.rsplit_once('/').map(|(above, _)| above)
}

impl Merged {
    fn new(layers: &[Layer]) -> Result<Merged, ReaderError> {
        let mut winning = BTreeMap::new();
        let mut held: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, layer) in layers.iter().enumerate() {
            for (command, skill) in layer.view.all_skills()? {
                held.entry(command.clone()).or_default().push(i);
                winning.insert(command, (i, skill));
            }
        }
        let mut children: HashMap<String, Vec<String>> = HashMap::new();
        for command in winning.keys() {
            if let Some(up) = above(command).filter(|up| winning.contains_key(*up)) {
                children.entry(up.to_string()).or_default().push(command.clone());
            }
        }
        let mut shadowed = Vec::new();
        for (command, tiers) in &held {
            let (last, hidden) = tiers.split_last().expect("a command is held by a tier");
            shadowed.extend(hidden.iter().map(|&i| Shadowed {
                command: command.clone(),
                tier: layers[i].place,
                by: layers[*last].place,
            }));
        }
        Ok(Merged { winning, children, shadowed })
    }

    fn parent(&self, command: &str) -> Option<String> {
        above(command).filter(|up| self.winning.contains_key(*up)).map(str::to_string)
    }

    fn children(&self, command: &str) -> Vec<String> {
        self.children.get(command).cloned().unwrap_or_default()
    }

    /// (tier, entry, resolution) of a command the persona sees.
    fn visible(&self, persona: &str, command: &str) -> Option<(usize, &Skill, &Object)> {
        let (i, skill) = self.winning.get(command)?;
        skill.visible(persona).map(|r| (*i, skill, r))
    }

    fn seen(&self, persona: &str) -> Vec<String> {
        let commands = self.winning.keys();
        commands.filter(|c| persona == "*" || self.visible(persona, c).is_some()).cloned().collect()
    }
}

/// A packing of a persona's catalog over the union, and the catalog it renders (locations as the
/// builds wrote them).
type Packing = Arc<(Packed, String)>;

/// Present tiers, the first the base, answered as one build (docs/format.md §16).
pub(crate) struct Stack {
    layers: Vec<Layer>,
    merged: Mutex<Option<Arc<Merged>>>,
    packs: Mutex<HashMap<String, Packing>>,
}

impl Stack {
    /// The stack of these tiers, or `CannotStack` where it cannot answer as one build (§16.2).
    pub(crate) fn new(layers: Vec<Layer>) -> Result<Stack, ReaderError> {
        refused(&layers)?;
        Ok(Stack { layers, merged: Mutex::new(None), packs: Mutex::new(HashMap::new()) })
    }

    /// Whether this stack is of exactly these builds.
    pub(crate) fn is_of(&self, views: &[&Arc<View>]) -> bool {
        self.layers.len() == views.len()
            && self.layers.iter().zip(views).all(|(l, v)| Arc::ptr_eq(&l.view, v))
    }

    fn base(&self) -> &View {
        &self.layers[0].view
    }

    fn merged(&self) -> Result<Arc<Merged>, ReaderError> {
        if let Some(merged) = self.merged.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            return Ok(merged.clone());
        }
        let merged = Arc::new(Merged::new(&self.layers)?);
        *self.merged.lock().unwrap_or_else(|e| e.into_inner()) = Some(merged.clone());
        Ok(merged)
    }

    /// The union, the winning tier, its entry and the resolution of a pair the persona sees;
    /// `UnknownPersona` or `UnknownSkill` otherwise.
    fn resolved(&self, persona: &str, command: &str) -> Result<(usize, Skill, Object), ReaderError> {
        self.base().entry(persona)?;
        let merged = self.merged()?;
        match merged.visible(persona, command) {
            Some((i, skill, r)) => Ok((i, skill.clone(), r.clone())),
            None => Err(self.unknown(persona, command, &merged)?),
        }
    }

    /// As a view's `UnknownSkill`, over the union: the stack's catalog, the union's children.
    fn unknown(
        &self,
        persona: &str,
        command: &str,
        merged: &Arc<Merged>,
    ) -> Result<ReaderError, ReaderError> {
        let catalog = if persona == "*" { None } else { Some(self.packed(persona)?) };
        let suggestions = crate::nearby::suggestions(
            command,
            catalog.as_ref().map(|p| p.1.as_str()),
            |up| Ok(merged.winning.contains_key(up).then(|| merged.children(up))),
            |near| {
                Ok(merged.winning.contains_key(near)
                    && (persona == "*" || merged.visible(persona, near).is_some()))
            },
        )?;
        let (union, who) = (merged.clone(), persona.to_string());
        Ok(ReaderError::UnknownSkill {
            persona: persona.to_string(),
            command: command.to_string(),
            suggestions,
            visible: Visible::lazy(move || Ok(union.seen(&who))),
        })
    }

    // -- the catalog, packed again ---------------------------------------------------------

    fn packed(&self, persona: &str) -> Result<Packing, ReaderError> {
        if let Some(found) = self.packs.lock().unwrap_or_else(|e| e.into_inner()).get(persona) {
            return Ok(found.clone());
        }
        let found = Arc::new(self.pack(persona)?);
        self.packs.lock().unwrap_or_else(|e| e.into_inner()).insert(persona.to_string(), found.clone());
        Ok(found)
    }

    /// The split and the persona's frames of the base (present: the stack was checked for them).
    fn split(&self, persona: &str) -> Result<(Arc<Split>, Frames), ReaderError> {
        let split =
            self.base().split()?.ok_or_else(|| ReaderError::CannotStack("the base has no split".into()))?;
        let frames = split.frames.get(persona).cloned().flatten();
        let frames = frames.ok_or_else(|| ReaderError::CannotStack(format!("no frame for {:?}", persona)))?;
        Ok((split, frames))
    }

    fn pack(&self, persona: &str) -> Result<(Packed, String), ReaderError> {
        let meta = self.base().meta(persona)?;
        let meta = meta.as_object().expect("checked: an object");
        let strategy = member(meta, "strategy").as_str().unwrap_or_default();
        let budget = member(meta, "budget").as_count().unwrap_or(0) as i64;
        if !STRATEGIES.contains(&strategy) {
            return Err(ReaderError::CannotStack(format!(
                "the first tier packs persona {:?} by strategy {:?}, unknown here",
                persona, strategy
            )));
        }
        let (split, frames) = self.split(persona)?;
        let merged = self.merged()?;
        let mut candidates = Vec::new();
        for command in merged.winning.keys() {
            let (_, entry, _) = match merged.visible(persona, command) {
                Some(found) if member(found.2, "model").as_bool() == Some(true) => found,
                _ => continue,
            };
            let cost = points(&entry_of(&split, entry, command, None, None));
            let bare = if strategy == "names-only" {
                points(&entry_of(&split, entry, command, None, Some("")))
            } else {
                -1
            };
            candidates.push(Candidate {
                command: command.clone(),
                always: always(entry),
                cost,
                description: entry.str("description"),
                bare,
            });
        }
        let frame_cost = |n: usize| {
            let (head, tail) = frame_text(&frames, n);
            points(&head) + points(&tail)
        };
        let render = |packed: &Packed| render(&split, &frames, packed, &merged, &|_| None, &HashSet::new());
        Ok(fit(budget, &candidates, &frame_cost, strategy, &render))
    }

    /// What `machine` lacks of the command's requirements, by its winning tier's list.
    fn lacks(
        &self,
        machine: &Machine<'_>,
        merged: &Merged,
        command: &str,
    ) -> Result<Vec<String>, ReaderError> {
        if machine.everything() {
            return Ok(Vec::new());
        }
        let (i, _) = &merged.winning[command];
        Ok(machine.lacks(self.layers[*i].view.requires()?.get(command)))
    }

    fn sub_skills(&self, persona: &str, command: &str, merged: &Merged) -> Vec<SubSkill> {
        let mut out = Vec::new();
        for child in merged.children(command) {
            if let Some((_, c, r)) = merged.visible(persona, &child) {
                if member(r, "model").as_bool() == Some(true) {
                    out.push(sub_skill(child, c));
                }
            }
        }
        out
    }

    /// The view of the tier whose skill the pair is, once the stack found it (its view answers
    /// the rest of the call from the same entry).
    fn tier(&self, persona: &str, command: &str) -> Result<&View, ReaderError> {
        Ok(&self.layers[self.resolved(persona, command)?.0].view)
    }
}

fn points(text: &str) -> i64 {
    text.chars().count() as i64
}

fn always(entry: &Skill) -> bool {
    entry.frontmatter().get("always") == Some(&Json::Bool(true))
}

/// One entry of the union rendered from the base's split: its location under `root`, its
/// description the packing's when it changed it.
fn entry_of(
    split: &Split,
    entry: &Skill,
    command: &str,
    root: Option<&str>,
    description: Option<&str>,
) -> String {
    let path = entry.str("path");
    let location = match root {
        Some(root) if relative(&path) => prefix_of(root) + &path,
        _ => path,
    };
    let (name, label, written) = (entry.str("name"), entry.label(), entry.str("description"));
    let values = Values {
        command,
        name: &name,
        label: &label,
        description: description.unwrap_or(&written),
        location: &location,
    };
    let pattern = if always(entry) { &split.always } else { &split.entry };
    entry_text(pattern, &values, split.markup)
}

/// The catalog of a packing: the frame for the number left out around the included entries but
/// those in `drop`, each location under its tier's root.
fn render(
    split: &Split,
    frames: &Frames,
    packed: &Packed,
    merged: &Merged,
    root: &dyn Fn(usize) -> Option<String>,
    drop: &HashSet<String>,
) -> String {
    let (head, tail) = frame_text(frames, packed.left_out.len());
    let mut out = head;
    for command in packed.included.iter().filter(|c| !drop.contains(*c)) {
        let (i, entry) = &merged.winning[command];
        let description = packed.descriptions.get(command).map(String::as_str);
        out.push_str(&entry_of(split, entry, command, root(*i).as_deref(), description));
    }
    out + &tail
}

/// `CannotStack` where the stack cannot answer as one build compiled from the tiers' sources
/// (docs/format.md §16.2), checked in this order.
fn refused(layers: &[Layer]) -> Result<(), ReaderError> {
    let (place, base) = (layers[0].place, &layers[0].view);
    let ids = base.personas();
    for other in &layers[1..] {
        let theirs = other.view.personas();
        if theirs != ids {
            return Err(ReaderError::CannotStack(format!(
                "tier {} ({}) has personas {}; tier {} ({}) has {}: builds with other personas do not stack",
                other.place,
                other.view.path().display(),
                listed(&theirs),
                place,
                base.path().display(),
                listed(&ids)
            )));
        }
        if other.view.top("personas_hash") != base.top("personas_hash") {
            return Err(ReaderError::CannotStack(format!(
                "tier {} ({}) was built from other persona files than tier {} ({}): their manifests, overlays or \
                 exclusive bodies differ",
                other.place,
                other.view.path().display(),
                place,
                base.path().display()
            )));
        }
    }
    let config = base.top("config").as_object().expect("checked: an object");
    if !texts(config.get("priority")).is_empty() {
        return Err(ReaderError::CannotStack(format!(
            "tier {} ({}) ranks its catalog by budgets.priority, which a stack cannot apply to the other tiers' skills",
            place,
            base.path().display()
        )));
    }
    let split = base.split()?;
    let unsplit: Vec<&str> = match &split {
        None => Vec::new(),
        Some(split) => {
            let mut ids: Vec<&str> =
                split.frames.iter().filter(|(_, f)| f.is_none()).map(|(id, _)| id.as_str()).collect();
            ids.sort_unstable();
            ids
        }
    };
    if split.is_none() || !unsplit.is_empty() {
        let which = if unsplit.is_empty() { String::new() } else { format!(" for {}", unsplit.join(", ")) };
        return Err(ReaderError::CannotStack(format!(
            "tier {} ({}): its catalog template does not split into frame and entries{} (SKC603), so the other \
             tiers' skills cannot be rendered into its catalog",
            place,
            base.path().display(),
            which
        )));
    }
    Ok(())
}

fn listed(ids: &[String]) -> String {
    if ids.is_empty() {
        "none".to_string()
    } else {
        ids.join(", ")
    }
}

impl Build for Stack {
    /// A digest of the tiers' build hashes, each with its place in the list `open_stack` was given.
    fn build_hash(&self) -> String {
        let lines: String =
            self.layers.iter().map(|l| format!("{}\t{}\n", l.place, l.view.build_hash())).collect();
        sha256_hex(format!("skillc stack\n{}", lines).as_bytes())
    }

    fn personas(&self) -> Vec<String> {
        self.base().personas()
    }

    /// The stack's catalog for `machine` (§16.3, §17): packed over every tier, the entries of the
    /// skills `machine` lacks requirements for left out, each location under its tier's root.
    fn catalog(
        &self,
        persona: &str,
        machine: &Machine<'_>,
        root: Option<&str>,
    ) -> Result<String, ReaderError> {
        if root.is_some() {
            return Err(ReaderError::Reader(
                "root: a stack's tiers each have their root (Tier::with_root)".to_string(),
            ));
        }
        self.base().entry(persona)?;
        let packing = self.packed(persona)?;
        let merged = self.merged()?;
        let mut drop = HashSet::new();
        for command in &packing.0.included {
            if !self.lacks(machine, &merged, command)?.is_empty() {
                drop.insert(command.clone());
            }
        }
        let rooted = self.layers.iter().any(|l| l.root.is_some());
        if drop.is_empty() && !rooted {
            return Ok(packing.1.clone());
        }
        let (split, frames) = self.split(persona)?;
        let root = |i: usize| self.layers[i].root.clone();
        Ok(render(&split, &frames, &packing.0, &merged, &root, &drop))
    }

    fn skills(&self, persona: &str, machine: &Machine<'_>) -> Result<Vec<SkillInfo>, ReaderError> {
        self.base().meta(persona)?;
        let packing = self.packed(persona)?;
        let included: HashSet<&String> = packing.0.included.iter().collect();
        let merged = self.merged()?;
        let mut out = Vec::new();
        for command in merged.winning.keys() {
            let (_, skill, r) = match merged.visible(persona, command) {
                Some(found) => found,
                None => continue,
            };
            if !is_stub(r) && !self.lacks(machine, &merged, command)?.is_empty() {
                continue;
            }
            out.push(skill_info(command, skill, r, included.contains(command)));
        }
        Ok(out)
    }

    fn unavailable(&self, persona: &str, machine: &Machine<'_>) -> Result<Vec<Unavailable>, ReaderError> {
        self.base().entry(persona)?;
        let merged = self.merged()?;
        let mut out = Vec::new();
        for command in merged.winning.keys() {
            match merged.visible(persona, command) {
                Some((_, _, r)) if !is_stub(r) => {
                    let missing = self.lacks(machine, &merged, command)?;
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
        let (i, skill, r) = self.resolved(persona, command)?;
        invoker_allowed(persona, command, &r, options.by)?;
        let layer = &self.layers[i];
        let body = layer.view.text(member(&r, "body").as_str().unwrap_or_default())?;
        let base = options.base.clone().or_else(|| base_of(&skill.str("path"), layer.root.as_deref()));
        let merged = self.merged()?;
        let children = || Ok(self.sub_skills(persona, command, &merged));
        loaded(persona, command, &skill, &r, &body, children, options, base, layer.view.top("knowledge"))
    }

    fn resources(
        &self,
        persona: &str,
        command: &str,
        kind: Option<&str>,
    ) -> Result<Vec<String>, ReaderError> {
        Build::resources(self.tier(persona, command)?, persona, command, kind)
    }

    fn resource(&self, persona: &str, command: &str, path: &str) -> Result<Vec<u8>, ReaderError> {
        Build::resource(self.tier(persona, command)?, persona, command, path)
    }

    fn missing_requirements(
        &self,
        persona: &str,
        command: &str,
        machine: &Machine<'_>,
    ) -> Result<Vec<String>, ReaderError> {
        Build::missing_requirements(self.tier(persona, command)?, persona, command, machine)
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
        let (i, _, r) = self.resolved(persona, command)?;
        invoker_allowed(persona, command, &r, by)?;
        Build::materialize(&*self.layers[i].view, persona, command, dest, args, params, by)
    }

    fn all_commands(&self) -> Result<Vec<String>, ReaderError> {
        Ok(self.merged()?.winning.keys().cloned().collect())
    }

    fn skill_meta(&self, command: &str) -> Result<SkillMeta, ReaderError> {
        let merged = self.merged()?;
        match merged.winning.get(command) {
            Some((_, s)) => Ok(skill_meta(command, s, merged.parent(command), merged.children(command))),
            None => Err(self.unknown("*", command, &merged)?),
        }
    }

    /// The object from the last tier that has it (objects are named by their bytes: any tier's
    /// copy is the same).
    fn read_object(&self, digest: &str) -> Result<Vec<u8>, ReaderError> {
        if !is_sha256(digest) {
            return Err(ReaderError::Format(format!("{:?} is not a sha256 digest", digest)));
        }
        for layer in self.layers.iter().rev() {
            let mut place = layer.view.path().to_path_buf();
            place.extend(object_path(digest));
            if std::fs::symlink_metadata(&place).is_ok() {
                return Build::read_object(&*layer.view, digest);
            }
        }
        Err(ReaderError::Integrity(format!("object {}: in none of the stack's builds", digest)))
    }

    fn persona_meta(&self, persona: &str) -> Result<PersonaMeta, ReaderError> {
        let meta = self.base().meta(persona)?;
        let packing = self.packed(persona)?;
        let (packed, text) = (&packing.0, &packing.1);
        let mut out = persona_meta(persona, meta.as_object().expect("checked: an object"), 0);
        out.catalog_chars = text.chars().count() as u64;
        out.included = packed.included.clone();
        out.left_out = packed.left_out.clone();
        out.shortened = packed.descriptions.keys().cloned().collect();
        Ok(out)
    }

    fn persona_context(&self, persona: &str) -> Result<PersonaContext, ReaderError> {
        Build::persona_context(self.base(), persona)
    }

    fn resolution(&self, persona: &str, command: &str) -> Result<Resolution, ReaderError> {
        let (_, _, r) = self.resolved(persona, command)?;
        let in_catalog = self.packed(persona)?.0.included.iter().any(|c| c == command);
        Ok(resolution(&r, in_catalog))
    }

    fn shadowed(&self) -> Result<Vec<Shadowed>, ReaderError> {
        Ok(self.merged()?.shadowed.clone())
    }
}
