//! `View`: one build, as read from its `_index.json` (view.py). It is made from one index and
//! reads everything else by digest, each object hash-checked and validated before it is served,
//! so it answers for that build alone; `Dist` (dist.rs) holds the views of its tiers, looks at
//! each index once a call, and moves to a new view when a newer build is there. The calls of one
//! build are in calls.rs.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::available::Needs;
use crate::error::{ReaderError, Visible};
use crate::files::{read_regular, ReadError};
use crate::format::{node_width, object_path, shard_of, MAX_INDEX_BYTES, MAX_OBJECT_BYTES};
use crate::index::{
    check_persona_meta, check_plan, check_requires, check_shard, check_shard_skill, check_shard_table,
    check_split, integrity, member, parse_json, read_index,
};
use crate::json::{Json, Object};
use crate::records::By;
use crate::split::{places_fit, Plan, Split};

/// What a view has read and checked so far. A failed call leaves nothing here.
#[derive(Default)]
struct Cache {
    /// Shard-table nodes by object digest.
    nodes: HashMap<String, Arc<Json>>,
    /// Shards' `skills` objects by shard name.
    shards: HashMap<String, Arc<Json>>,
    /// Commands whose shard entry has been checked.
    checked: HashSet<String>,
    /// Persona metas by persona.
    metas: HashMap<String, Arc<Json>>,
    /// Catalog texts by persona, read and hash-checked once: an object never changes under its
    /// name, and a rebuild is another build, another view.
    catalogs: HashMap<String, String>,
    /// Plans by object digest, checked against their persona's catalog.
    plans: HashMap<String, Arc<Plan>>,
    /// The requirements object's skills, read once.
    requires: Option<Arc<BTreeMap<String, Needs>>>,
    /// The split, read and checked once.
    split: Option<Arc<Split>>,
}

/// One build: the index read from `path` (absolute), and the objects it names, read as asked.
pub(crate) struct View {
    path: PathBuf,
    index: Json,
    /// The folder the build's paths are relative to on this machine, when the host named one.
    root: Option<String>,
    cache: Mutex<Cache>,
}

/// A skill entry of a shard, checked, with the shard it came from kept alive.
#[derive(Clone)]
pub(crate) struct Skill {
    shard: Arc<Json>,
    command: String,
}

impl Skill {
    pub(crate) fn entry(&self) -> &Object {
        let skills = self.shard.as_object().expect("a checked shard's skills are an object");
        skills.get(&self.command).and_then(Json::as_object).expect("a checked entry is an object")
    }
    pub(crate) fn get(&self, key: &str) -> &Json {
        member(self.entry(), key)
    }
    pub(crate) fn str(&self, key: &str) -> String {
        self.get(key).as_str().unwrap_or_default().to_string()
    }
    pub(crate) fn frontmatter(&self) -> &Object {
        self.get("frontmatter").as_object().expect("checked: an object")
    }
    /// What the skill is shown as (docs/format.md §7): its frontmatter `name` as written when it
    /// is a non-empty string (a display name such as `Sven Plan`), else the entry's `name`.
    pub(crate) fn label(&self) -> String {
        match self.frontmatter().get("name").and_then(Json::as_str) {
            Some(written) if !written.is_empty() => written.to_string(),
            _ => self.str("name"),
        }
    }
    /// The resolution the persona sees, or None when the skill is hidden from it.
    pub(crate) fn visible(&self, persona: &str) -> Option<&Object> {
        let exceptions = self.get("exceptions").as_object().expect("checked: an object");
        match exceptions.get(persona) {
            Some(r) => r.as_object(),
            None => self.get("default").as_object(),
        }
    }
    /// The resources a resolution exposes: a stub exposes nothing of the exclusive skill.
    pub(crate) fn resources(&self, r: &Object) -> Vec<&Object> {
        if member(r, "access").as_str() == Some("stub") {
            return Vec::new();
        }
        self.get("resources").as_array().unwrap_or_default().iter().filter_map(Json::as_object).collect()
    }
}

impl View {
    /// The view of the build whose checked index `index` was read from `path` (absolute).
    pub(crate) fn new(path: PathBuf, index: Json, root: Option<String>) -> View {
        View { path, index, root, cache: Mutex::new(Cache::default()) }
    }

    /// The build folder, absolute.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn root(&self) -> Option<&str> {
        self.root.as_deref()
    }

    pub(crate) fn build_hash(&self) -> String {
        self.top("build_hash").as_str().unwrap_or_default().to_string()
    }

    /// The build's persona ids, sorted.
    pub(crate) fn personas(&self) -> Vec<String> {
        let mut out: Vec<String> = self.persona_table().keys().cloned().collect();
        out.sort();
        out
    }

    pub(crate) fn top(&self, key: &str) -> &Json {
        member(self.index.as_object().expect("a checked index is an object"), key)
    }

    pub(crate) fn persona_table(&self) -> &Object {
        self.top("personas").as_object().expect("checked: an object")
    }

    fn cache(&self) -> std::sync::MutexGuard<'_, Cache> {
        // A panic elsewhere cannot leave the cache half-written: every insert is one statement.
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    // -- objects --------------------------------------------------------------------------

    pub(crate) fn object(&self, digest: &str, limit: u64) -> Result<Vec<u8>, ReaderError> {
        let mut place = self.path.clone();
        place.extend(object_path(digest));
        let shown = place.display().to_string();
        match read_regular(&place, limit) {
            Ok(data) => integrity(data, digest, &shown),
            Err(ReadError::NotFound) => {
                self.raise_if_rebuilt(&shown)?;
                Err(ReaderError::Integrity(format!("{}: missing (dist/ is incomplete; rebuild it)", shown)))
            }
            Err(e) => Err(ReaderError::Integrity(format!("{}: cannot read object: {}", shown, e))),
        }
    }

    fn raise_if_rebuilt(&self, place: &str) -> Result<(), ReaderError> {
        let now = match read_index(&self.path) {
            Ok(index) => index.as_object().and_then(|o| o.get("build_hash")).cloned(),
            Err(ReaderError::Format(_)) => return Ok(()),
            Err(e) => return Err(e),
        };
        let now = now.and_then(|n| n.as_str().map(str::to_string)).unwrap_or_default();
        let then = self.build_hash();
        if now != then {
            return Err(ReaderError::DistRebuilt(format!(
                "{}: {} was rebuilt during the call (build {} -> {}) and this call's build's objects were \
                 pruned; the next call answers from the new build",
                place,
                self.path.display(),
                &then[..12.min(then.len())],
                &now[..12.min(now.len())]
            )));
        }
        Ok(())
    }

    pub(crate) fn text(&self, digest: &str) -> Result<String, ReaderError> {
        String::from_utf8(self.object(digest, MAX_OBJECT_BYTES)?)
            .map_err(|e| ReaderError::Format(format!("object {}: not UTF-8 text: {}", digest, e)))
    }

    fn json(&self, digest: &str) -> Result<Json, ReaderError> {
        parse_json(&self.object(digest, MAX_INDEX_BYTES)?, &format!("object {}", digest))
    }

    /// The persona's catalog as the build rendered it, read and checked on the first call only.
    pub(crate) fn compiled(&self, persona: &str) -> Result<String, ReaderError> {
        if let Some(text) = self.cache().catalogs.get(persona) {
            return Ok(text.clone());
        }
        let digest = member(self.entry(persona)?, "prompt").as_str().unwrap_or_default().to_string();
        let text = self.text(&digest)?;
        self.cache().catalogs.insert(persona.to_string(), text.clone());
        Ok(text)
    }

    pub(crate) fn meta(&self, persona: &str) -> Result<Arc<Json>, ReaderError> {
        if let Some(meta) = self.cache().metas.get(persona) {
            return Ok(meta.clone());
        }
        let digest = self.str_of(self.entry(persona)?, "meta");
        let meta = self.json(&digest)?;
        check_persona_meta(&meta, persona, &format!("object {}", digest))?;
        let meta = Arc::new(meta);
        self.cache().metas.insert(persona.to_string(), meta.clone());
        Ok(meta)
    }

    fn str_of(&self, obj: &Object, key: &str) -> String {
        member(obj, key).as_str().unwrap_or_default().to_string()
    }

    pub(crate) fn entry(&self, persona: &str) -> Result<&Object, ReaderError> {
        match self.persona_table().get(persona) {
            Some(entry) => Ok(entry.as_object().expect("checked: an object")),
            None => Err(ReaderError::UnknownPersona { persona: persona.to_string(), known: self.personas() }),
        }
    }

    /// One node of the shard table, checked; `open` and `catalog` never read it.
    fn node(&self, digest: &str, prefix: &str) -> Result<Arc<Json>, ReaderError> {
        if let Some(node) = self.cache().nodes.get(digest) {
            return Ok(node.clone());
        }
        let node = self.json(digest)?;
        check_shard_table(&node, prefix, &format!("object {}", digest))?;
        let node = Arc::new(node);
        self.cache().nodes.insert(digest.to_string(), node.clone());
        Ok(node)
    }

    /// (shard name, shard object) of a command, walking the table from its root.
    fn shard_location(&self, command: &str) -> Result<(String, Option<String>), ReaderError> {
        let full = shard_of(command, 64);
        let mut digest = self.top("shards").as_str().unwrap_or_default().to_string();
        let mut prefix = String::new();
        for _ in 0..8 {
            let node = self.node(&digest, &prefix)?;
            let node = node.as_object().expect("checked: an object");
            let name = full[..node_width(&prefix)].to_string();
            if let Some(shards) = node.get("shards") {
                let found = shards.as_object().and_then(|s| s.get(&name)).and_then(Json::as_str);
                return Ok((name, found.map(str::to_string)));
            }
            let child = member(node, "tables").as_object().and_then(|t| t.get(&name)).and_then(Json::as_str);
            match child {
                Some(child) => digest = child.to_string(),
                None => return Ok((name, None)),
            }
            prefix = name;
        }
        Err(ReaderError::Format(format!("{}: the shard table is deeper than 8 levels", self.path.display())))
    }

    /// Every shard name and object in the table, walking the whole tree.
    fn shard_names(
        &self,
        digest: &str,
        prefix: &str,
        out: &mut BTreeMap<String, String>,
    ) -> Result<(), ReaderError> {
        let node = self.node(digest, prefix)?;
        let node = node.as_object().expect("checked: an object");
        if let Some(shards) = node.get("shards").and_then(Json::as_object) {
            for (name, d) in shards.iter() {
                out.insert(name.clone(), d.as_str().unwrap_or_default().to_string());
            }
            return Ok(());
        }
        if prefix.len() >= 7 {
            return Err(ReaderError::Format(format!(
                "{}: the shard table is deeper than 8 levels",
                self.path.display()
            )));
        }
        for (name, child) in member(node, "tables").as_object().expect("checked").iter() {
            self.shard_names(child.as_str().unwrap_or_default(), name, out)?;
        }
        Ok(())
    }

    /// A shard's skills, its envelope checked; each entry is checked when first served.
    fn shard(&self, name: &str, digest: Option<&str>) -> Result<Arc<Json>, ReaderError> {
        if let Some(shard) = self.cache().shards.get(name) {
            return Ok(shard.clone());
        }
        let skills = match digest {
            None => Json::Object(Object::default()),
            Some(digest) => {
                let doc = self.json(digest)?;
                check_shard(&doc, name, &format!("object {}", digest))?;
                member(doc.as_object().expect("checked"), "skills").clone()
            }
        };
        let skills = Arc::new(skills);
        self.cache().shards.insert(name.to_string(), skills.clone());
        Ok(skills)
    }

    pub(crate) fn skill(&self, command: &str) -> Result<Option<Skill>, ReaderError> {
        let (name, digest) = self.shard_location(command)?;
        let shard = self.shard(&name, digest.as_deref())?;
        let entry = match shard.as_object().and_then(|s| s.get(command)) {
            Some(entry) => entry,
            None => return Ok(None),
        };
        if !self.cache().checked.contains(command) {
            let place = format!("object {}", digest.as_deref().unwrap_or("None"));
            check_shard_skill(entry, command, self.persona_table(), &place)?;
            self.cache().checked.insert(command.to_string());
        }
        Ok(Some(Skill { shard: shard.clone(), command: command.to_string() }))
    }

    /// Every skill of the build, checked, sorted by command.
    pub(crate) fn all_skills(&self) -> Result<BTreeMap<String, Skill>, ReaderError> {
        let mut names = BTreeMap::new();
        self.shard_names(self.top("shards").as_str().unwrap_or_default(), "", &mut names)?;
        let mut out = BTreeMap::new();
        for (name, digest) in &names {
            let shard = self.shard(name, Some(digest))?;
            for command in shard.as_object().expect("checked").keys() {
                if let Some(skill) = self.skill(command)? {
                    out.insert(command.clone(), skill);
                }
            }
        }
        Ok(out)
    }

    /// (skill, resolution) of a pair the persona sees; UnknownPersona or UnknownSkill otherwise.
    pub(crate) fn resolved(&self, persona: &str, command: &str) -> Result<(Skill, Object), ReaderError> {
        self.entry(persona)?;
        if let Some(skill) = self.skill(command)? {
            if let Some(r) = skill.visible(persona) {
                let r = r.clone();
                return Ok((skill, r));
            }
        }
        Err(self.unknown(persona, command)?)
    }

    /// (skill, resolution) of a pair `by` may invoke; `NotInvocable` names who may otherwise.
    pub(crate) fn invocable(
        &self,
        persona: &str,
        command: &str,
        by: By,
    ) -> Result<(Skill, Object), ReaderError> {
        let (skill, r) = self.resolved(persona, command)?;
        invoker_allowed(persona, command, &r, by)?;
        Ok((skill, r))
    }

    /// The `UnknownSkill` of a command the persona does not see (persona `*`: of one that does
    /// not exist), with close commands found in a few reads (docs/format.md §12.1). The full list
    /// is read only if asked for, from a view of its own over the same build.
    pub(crate) fn unknown(&self, persona: &str, command: &str) -> Result<ReaderError, ReaderError> {
        let all = persona == "*";
        let catalog = if all { None } else { Some(self.compiled(persona)?) };
        let suggestions = crate::nearby::suggestions(
            command,
            catalog.as_deref(),
            |above| {
                let skill = self.skill(above)?;
                Ok(skill.map(|s| {
                    s.get("children")
                        .as_array()
                        .unwrap_or_default()
                        .iter()
                        .filter_map(Json::as_str)
                        .map(str::to_string)
                        .collect()
                }))
            },
            |near| Ok(self.skill(near)?.map_or(false, |s| all || s.visible(persona).is_some())),
        )?;
        // the list is read from this build when asked for, by a view of its own over its index
        let (path, index, who) = (self.path.clone(), self.index.clone(), persona.to_string());
        let visible = Visible::lazy(move || {
            let view = View::new(path.clone(), index.clone(), None);
            let skills = view.all_skills()?;
            Ok(skills
                .into_iter()
                .filter(|(_, s)| who == "*" || s.visible(&who).is_some())
                .map(|(c, _)| c)
                .collect())
        });
        Ok(ReaderError::UnknownSkill {
            persona: persona.to_string(),
            command: command.to_string(),
            suggestions,
            visible,
        })
    }

    /// The skills' requirements, by command (the index's requires object; empty when none).
    pub(crate) fn requires(&self) -> Result<Arc<BTreeMap<String, Needs>>, ReaderError> {
        if let Some(needs) = &self.cache().requires {
            return Ok(needs.clone());
        }
        let found = match self.top("requires").as_str() {
            None => BTreeMap::new(),
            Some(digest) => check_requires(&self.json(digest)?, &format!("object {}", digest))?,
        };
        let found = Arc::new(found);
        self.cache().requires = Some(found.clone());
        Ok(found)
    }

    /// The catalog template's split (§4.5), checked; None when the build has none.
    pub(crate) fn split(&self) -> Result<Option<Arc<Split>>, ReaderError> {
        let digest = match self.top("split").as_str() {
            None => return Ok(None),
            Some(digest) => digest,
        };
        if let Some(split) = &self.cache().split {
            return Ok(Some(split.clone()));
        }
        let split =
            Arc::new(check_split(&self.json(digest)?, self.persona_table(), &format!("object {}", digest))?);
        self.cache().split = Some(split.clone());
        Ok(Some(split))
    }

    /// The persona's plan of its catalog `text`, checked against it; None when the build has none.
    pub(crate) fn plan(&self, persona: &str, text: &str) -> Result<Option<Arc<Plan>>, ReaderError> {
        let digest = match member(self.entry(persona)?, "plan").as_str() {
            None => return Ok(None),
            Some(digest) => digest.to_string(),
        };
        if let Some(plan) = self.cache().plans.get(&digest) {
            return Ok(Some(plan.clone()));
        }
        let place = format!("object {}", digest);
        let plan = check_plan(&self.json(&digest)?, persona, &place)?;
        places_fit(&plan, text.chars().count() as u64)
            .map_err(|e| ReaderError::Format(format!("{}: malformed: {}", place, e)))?;
        let plan = Arc::new(plan);
        self.cache().plans.insert(digest, plan.clone());
        Ok(Some(plan))
    }
}

/// `NotInvocable` unless the resolution lets `by` invoke the skill.
pub(crate) fn invoker_allowed(persona: &str, command: &str, r: &Object, by: By) -> Result<(), ReaderError> {
    let may = |who: By| member(r, who.as_str()).as_bool() == Some(true);
    if may(by) {
        return Ok(());
    }
    Err(ReaderError::NotInvocable {
        persona: persona.to_string(),
        command: command.to_string(),
        by,
        invokers: By::ALL.iter().copied().filter(|who| may(*who)).collect(),
    })
}
