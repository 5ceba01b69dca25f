//! `Dist`: the handle an application holds on a build, or on a stack of builds (tiers), and every
//! call it makes on it (dist.py).
//!
//! Everything it returns was decided at build time and is read from `_index.json` and
//! hash-checked, validated objects (view.rs). A handle answers from the newest build in each of
//! its folders: each call looks at every `_index.json` once (its device, inode, size and times),
//! and when another index is there, reads it and answers from that build from then on; one call
//! never mixes two builds (docs/format.md §6.4).

use std::collections::HashMap;
use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::available::{Env, Machine};
use crate::build::Build;
use crate::error::ReaderError;
use crate::format::INDEX;
use crate::index::{index_at, IndexRead};
use crate::prompts::{Args, LoadOptions, LoadedSkill, Params};
use crate::records::{
    By, PersonaContext, PersonaMeta, Resolution, Shadowed, SkillInfo, SkillMeta, Tier, Unavailable,
};
use crate::stack::{Layer, Stack};
use crate::view::View;

/// What a handle compares to notice a new index without reading it: the device, inode, size,
/// modification and change times (ns) of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity([i128; 5]);

#[cfg(unix)]
fn identity_of(meta: &Metadata) -> Identity {
    use std::os::unix::fs::MetadataExt;
    let ns = |secs: i64, nanos: i64| i128::from(secs) * 1_000_000_000 + i128::from(nanos);
    Identity([
        i128::from(meta.dev()),
        i128::from(meta.ino()),
        i128::from(meta.size()),
        ns(meta.mtime(), meta.mtime_nsec()),
        ns(meta.ctime(), meta.ctime_nsec()),
    ])
}

#[cfg(not(unix))]
fn identity_of(meta: &Metadata) -> Identity {
    let modified = meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
    Identity([0, 0, i128::from(meta.len()), modified.map_or(0, |d| d.as_nanos() as i128), 0])
}

/// One build folder of a handle: the view of the build its index names now (None: an optional
/// tier that does not exist here), and what that index was (its identity and bytes).
struct Folder {
    path: PathBuf,
    optional: bool,
    root: Option<String>,
    view: Option<Arc<View>>,
    identity: Option<Identity>,
    data: Option<Vec<u8>>,
}

impl Folder {
    fn open(tier: &Tier) -> Result<Folder, ReaderError> {
        let path = crate::files::absolute(&tier.path)
            .map_err(|e| ReaderError::Format(format!("{}: cannot resolve: {}", tier.path.display(), e)))?;
        let found = index_at(&path, tier.optional)?;
        let mut folder = Folder {
            path,
            optional: tier.optional,
            root: tier.root.clone(),
            view: None,
            identity: None,
            data: None,
        };
        folder.take(found);
        Ok(folder)
    }

    /// Serve the index found (None: none); whether the view changed.
    fn take(&mut self, found: Option<IndexRead>) -> bool {
        let found = match found {
            None => {
                let changed = self.view.is_some();
                self.view = None;
                self.identity = None;
                self.data = None;
                return changed;
            }
            Some(found) => found,
        };
        self.identity = Some(identity_of(&found.meta));
        if self.data.as_ref() == Some(&found.data) {
            return false; // the same bytes (a rebuild that changed nothing): the same view
        }
        self.view = Some(Arc::new(View::new(self.path.clone(), found.doc, self.root.clone())));
        self.data = Some(found.data);
        true
    }

    /// Look at the index once; move to a newer build if one is there. Whether the view changed.
    ///
    /// Unless `force`, an index whose identity is the one last read is taken as unchanged without
    /// reading it. An index that cannot be read or checked now leaves the view as it is (that is
    /// no newer build), and so does a missing one for a tier that is not optional.
    fn check(&mut self, force: bool) -> bool {
        let mut now = None;
        if !force {
            match std::fs::metadata(self.path.join(INDEX)) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return self.optional && self.take(None);
                }
                Err(_) => return false,
                Ok(meta) if Some(identity_of(&meta)) == self.identity => return false,
                Ok(meta) => now = Some(identity_of(&meta)),
            }
        }
        match index_at(&self.path, true) {
            Err(_) => {
                if now.is_some() {
                    self.identity = now; // read once: it is read again when it changes again
                }
                false
            }
            Ok(None) if !self.optional => false,
            Ok(found) => self.take(found),
        }
    }
}

/// What the handle's folders hold now, and the stack they make (kept while they stay the same).
struct Folders {
    folders: Vec<Folder>,
    stack: Option<Arc<Stack>>,
}

/// What one call answers from: one build, or the stack of the tiers present.
enum Now {
    One(Arc<View>),
    Stack(Arc<Stack>),
}

impl Now {
    fn build(&self) -> &dyn Build {
        match self {
            Now::One(view) => &**view,
            Now::Stack(stack) => &**stack,
        }
    }
}

impl Folders {
    fn now(&mut self) -> Result<Now, ReaderError> {
        let present: Vec<usize> =
            (0..self.folders.len()).filter(|&i| self.folders[i].view.is_some()).collect();
        match present.len() {
            0 => {
                let paths: Vec<String> = self.folders.iter().map(|f| f.path.display().to_string()).collect();
                Err(ReaderError::Format(format!("none of the builds is there: {}", paths.join(", "))))
            }
            1 => Ok(Now::One(self.folders[present[0]].view.clone().expect("present"))),
            _ => {
                let views: Vec<&Arc<View>> =
                    present.iter().filter_map(|&i| self.folders[i].view.as_ref()).collect();
                if let Some(stack) = self.stack.as_ref().filter(|s| s.is_of(&views)) {
                    return Ok(Now::Stack(stack.clone()));
                }
                self.stack = None; // a stack refused leaves none behind
                let layers = present
                    .iter()
                    .map(|&i| {
                        let f = &self.folders[i];
                        Layer { place: i, view: f.view.clone().expect("present"), root: f.root.clone() }
                    })
                    .collect();
                let stack = Arc::new(Stack::new(layers)?);
                self.stack = Some(stack.clone());
                Ok(Now::Stack(stack))
            }
        }
    }
}

/// An open dist/ directory, or a stack of them: every call looks at each build folder once and
/// answers from the builds there.
pub struct Dist {
    folders: Mutex<Folders>,
    paths: Vec<PathBuf>,
}

impl std::fmt::Debug for Dist {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hash = self.build_hash().unwrap_or_else(|e| format!("({})", e.class_name()));
        f.debug_struct("Dist").field("paths", &self.paths).field("build_hash", &hash).finish()
    }
}

impl Dist {
    /// Open a dist/ directory: reads and validates its top-level index (`Format` if unusable).
    /// The path is made absolute here, once: a later change of the working directory changes
    /// nothing.
    pub fn open(path: impl AsRef<Path>) -> Result<Dist, ReaderError> {
        Dist::open_stack(&[Tier::new(path.as_ref())])
    }

    /// `open`, with the folder the build's paths are relative to on this machine: its catalog's
    /// locations are then absolute, and `load` gives each skill its folder (docs/format.md §17.3).
    pub fn open_with_root(path: impl AsRef<Path>, root: &str) -> Result<Dist, ReaderError> {
        Dist::open_stack(&[Tier::new(path.as_ref()).with_root(root)])
    }

    /// Open a stack of builds (tiers), lowest precedence first (bundled, user, project): the handle
    /// answers as one build compiled from their sources in that order would (docs/format.md §16),
    /// or the open is refused (`CannotStack`). An optional tier may be missing on this machine:
    /// it joins when it is built. No tier present is `Format`; one present is that build.
    pub fn open_stack(tiers: &[Tier]) -> Result<Dist, ReaderError> {
        if tiers.is_empty() {
            return Err(ReaderError::Reader("open_stack: no tier given".to_string()));
        }
        let folders = tiers.iter().map(Folder::open).collect::<Result<Vec<_>, _>>()?;
        let paths = folders.iter().map(|f| f.path.clone()).collect();
        let mut state = Folders { folders, stack: None };
        state.now()?; // a stack that cannot be one is refused at open
        Ok(Dist { folders: Mutex::new(state), paths })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, Folders> {
        self.folders.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What this call answers from, after one look at each index.
    fn now(&self) -> Result<Now, ReaderError> {
        let mut state = self.state();
        for folder in &mut state.folders {
            folder.check(false);
        }
        state.now()
    }

    /// Read each index now, whatever its identity says; whether a newer build is served.
    pub fn refresh(&self) -> bool {
        let mut state = self.state();
        let moved: Vec<bool> = state.folders.iter_mut().map(|f| f.check(true)).collect();
        moved.contains(&true)
    }

    /// The build folder this Dist was opened on (of a stack: its first tier's), absolute.
    pub fn path(&self) -> &Path {
        &self.paths[0]
    }

    /// The absolute path of each build folder, in the order they were given.
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// The build served now (of a stack: a digest of its tiers' build hashes and places).
    pub fn build_hash(&self) -> Result<String, ReaderError> {
        Ok(self.now()?.build().build_hash())
    }

    /// The persona ids, sorted.
    pub fn personas(&self) -> Result<Vec<String>, ReaderError> {
        Ok(self.now()?.build().personas())
    }

    /// The skills a later tier hides, each with its tier and the tier that hides it (places in the
    /// list `open_stack` was given), in command order; none for one build.
    pub fn shadowed(&self) -> Result<Vec<Shadowed>, ReaderError> {
        self.now()?.build().shadowed()
    }

    // -- tier 1 ----------------------------------------------------------------------------

    /// The persona's tier-1 catalog for the machine this process runs on: as the build rendered
    /// it, but for the entries of the skills whose requirements the process's environment lacks.
    pub fn catalog(&self, persona: &str) -> Result<String, ReaderError> {
        self.catalog_in(persona, Env::Process)
    }

    /// The catalog for `env` (`Env::Everywhere`: as the build rendered it). The budget's choice
    /// is kept: nothing the budget left out comes back (docs/format.md §17.2).
    pub fn catalog_in<'a>(&self, persona: &str, env: impl Into<Env<'a>>) -> Result<String, ReaderError> {
        self.now()?.build().catalog(persona, &Machine::new(env.into()), None)
    }

    /// `catalog_in` with `root`, the folder the build's paths are relative to here, for this call
    /// (one build; a stack's tiers have theirs: `ReaderError::Reader`): its locations are then
    /// absolute.
    pub fn catalog_rooted<'a>(
        &self,
        persona: &str,
        env: impl Into<Env<'a>>,
        root: &str,
    ) -> Result<String, ReaderError> {
        self.now()?.build().catalog(persona, &Machine::new(env.into()), Some(root))
    }

    /// The skills the persona sees, in command order, but those the process's environment lacks
    /// requirements for.
    pub fn skills(&self, persona: &str) -> Result<Vec<SkillInfo>, ReaderError> {
        self.skills_in(persona, Env::Process)
    }

    /// The skills the persona sees, but those `env` lacks requirements for (a stub is never left
    /// out: it needs nothing).
    pub fn skills_in<'a>(
        &self,
        persona: &str,
        env: impl Into<Env<'a>>,
    ) -> Result<Vec<SkillInfo>, ReaderError> {
        self.now()?.build().skills(persona, &Machine::new(env.into()))
    }

    /// Slash commands the user may type for this persona (of the skills the process may run).
    pub fn commands(&self, persona: &str) -> Result<Vec<String>, ReaderError> {
        self.commands_in(persona, Env::Process)
    }

    /// Slash commands the user may type for this persona, of the skills `env` may run.
    pub fn commands_in<'a>(
        &self,
        persona: &str,
        env: impl Into<Env<'a>>,
    ) -> Result<Vec<String>, ReaderError> {
        Ok(self.skills_in(persona, env)?.into_iter().filter(|s| s.user).map(|s| s.command).collect())
    }

    /// The skills the persona sees that the process's environment lacks requirements for.
    pub fn unavailable(&self, persona: &str) -> Result<Vec<Unavailable>, ReaderError> {
        self.unavailable_in(persona, Env::Process)
    }

    /// The skills the persona sees that `env` lacks requirements for, and what it lacks: what
    /// `catalog_in`, `skills_in` and `commands_in` leave out for that environment.
    pub fn unavailable_in<'a>(
        &self,
        persona: &str,
        env: impl Into<Env<'a>>,
    ) -> Result<Vec<Unavailable>, ReaderError> {
        self.now()?.build().unavailable(persona, &Machine::new(env.into()))
    }

    // -- tier 2 ----------------------------------------------------------------------------

    /// The skill as the persona sees it, loaded by the model, `args` (a line as typed)
    /// substituted.
    pub fn load(&self, persona: &str, command: &str, args: Option<&str>) -> Result<LoadedSkill, ReaderError> {
        self.load_with(
            persona,
            command,
            &LoadOptions { args: args.map(Args::from), ..LoadOptions::default() },
        )
    }

    /// `load` with the arguments as a line or as words (`Args::Words`, Python's list form).
    pub fn load_args(
        &self,
        persona: &str,
        command: &str,
        args: Option<&Args>,
    ) -> Result<LoadedSkill, ReaderError> {
        self.load_with(persona, command, &LoadOptions { args: args.cloned(), ..LoadOptions::default() })
    }

    /// The skill as the persona sees it, loaded as `options` say: its arguments and params, who
    /// invokes it (`NotInvocable` when the build says that invoker may not; nothing of the skill
    /// is read then) and its folder on this machine (default: under its build's root, when one
    /// was given).
    pub fn load_with(
        &self,
        persona: &str,
        command: &str,
        options: &LoadOptions,
    ) -> Result<LoadedSkill, ReaderError> {
        self.now()?.build().load(persona, command, options)
    }

    // -- tier 3 ----------------------------------------------------------------------------

    /// Resource paths of a skill; `kind` filters by top directory (scripts, references, assets).
    pub fn resources(
        &self,
        persona: &str,
        command: &str,
        kind: Option<&str>,
    ) -> Result<Vec<String>, ReaderError> {
        self.now()?.build().resources(persona, command, kind)
    }

    /// The bytes of one resource; only paths listed in the index are served.
    pub fn resource(&self, persona: &str, command: &str, path: &str) -> Result<Vec<u8>, ReaderError> {
        self.now()?.build().resource(persona, command, path)
    }

    /// sven's availability guards, checked in `env`: `["bin:docker", "env:TOKEN"]`.
    ///
    /// A variable is missing when unset or empty in `env` (`None`: the process environment);
    /// a program when no directory of that env's `PATH` holds it. A stub persona gets `[]` (the
    /// stub needs nothing), and so does `Env::Everywhere`.
    pub fn missing_requirements<'a>(
        &self,
        persona: &str,
        command: &str,
        env: impl Into<Env<'a>>,
    ) -> Result<Vec<String>, ReaderError> {
        self.now()?.build().missing_requirements(persona, command, &Machine::new(env.into()))
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
        self.missing_requirements(persona, command, Env::Searched(env, found))
    }

    /// Write the resolved skill folder into `dest`, loaded by the model: SKILL.md with the
    /// resolved body (`${CLAUDE_SKILL_DIR}` = dest), then every resource with its executable bit.
    /// `dest` must be missing, empty, or hold exactly what this call would write (then nothing is
    /// written); nothing is ever written outside it. Returns dest, made absolute.
    pub fn materialize(
        &self,
        persona: &str,
        command: &str,
        dest: impl AsRef<Path>,
        args: Option<&Args>,
    ) -> Result<PathBuf, ReaderError> {
        self.materialize_with(persona, command, dest, args, &Params::new(), By::Model)
    }

    /// `materialize` with values for `${CLAUDE_SESSION_ID}`, `${CLAUDE_EFFORT}` and
    /// `${CLAUDE_PROJECT_DIR}` (Python's `params=`), and who invokes the skill, as for `load`.
    pub fn materialize_with(
        &self,
        persona: &str,
        command: &str,
        dest: impl AsRef<Path>,
        args: Option<&Args>,
        params: &Params,
        by: By,
    ) -> Result<PathBuf, ReaderError> {
        self.now()?.build().materialize(persona, command, dest.as_ref(), args, params, by)
    }

    // -- metadata for tools ----------------------------------------------------------------

    /// Every command of the build, sorted.
    pub fn all_commands(&self) -> Result<Vec<String>, ReaderError> {
        self.now()?.build().all_commands()
    }

    pub fn skill_meta(&self, command: &str) -> Result<SkillMeta, ReaderError> {
        self.now()?.build().skill_meta(command)
    }

    /// The bytes of one object of this build, hash-checked: for tools (diff, audit) that hold a
    /// digest from `skill_meta`, `resolution` or `ResourceMeta`.
    pub fn read_object(&self, digest: &str) -> Result<Vec<u8>, ReaderError> {
        self.now()?.build().read_object(digest)
    }

    pub fn persona_meta(&self, persona: &str) -> Result<PersonaMeta, ReaderError> {
        self.now()?.build().persona_meta(persona)
    }

    /// ARIA's `persona_context`: the persona, its fallback, `unrestricted_skills`, and the overlay
    /// folders of the persona and of its fallback in the build's personas folder.
    pub fn persona_context(&self, persona: &str) -> Result<PersonaContext, ReaderError> {
        self.now()?.build().persona_context(persona)
    }

    pub fn resolution(&self, persona: &str, command: &str) -> Result<Resolution, ReaderError> {
        self.now()?.build().resolution(persona, command)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writable copy of one of the suite's builds, removed when dropped.
    struct Copy(PathBuf);

    impl Copy {
        fn of(build: &str, tag: &str) -> Copy {
            let to = std::env::temp_dir().join(format!("skillc-reader-unit-{}-{}", tag, std::process::id()));
            let _ = std::fs::remove_dir_all(&to);
            copy_tree(&suite(build), &to);
            Copy(to)
        }

        /// Another build written over this one as skillc writes it: its objects, then its index
        /// renamed over the old one; with `prune`, the objects it does not name removed.
        fn rebuild(&self, build: &str, prune: bool) {
            if prune {
                std::fs::remove_dir_all(self.0.join("objects")).unwrap();
            }
            copy_tree(&suite(build).join("objects"), &self.0.join("objects"));
            std::fs::copy(suite(build).join(INDEX), self.0.join("new-index")).unwrap();
            std::fs::rename(self.0.join("new-index"), self.0.join(INDEX)).unwrap();
        }
    }

    impl Drop for Copy {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn suite(build: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance/builds").join(build)
    }

    fn copy_tree(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                copy_tree(&entry.path(), &to.join(entry.file_name()));
            } else if !to.join(entry.file_name()).exists() {
                std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
            }
        }
    }

    #[test]
    fn one_call_never_mixes_two_builds() {
        let copy = Copy::of("main", "mix");
        let dist = Dist::open(&copy.0).unwrap();
        let old = dist.skills_in("tiny", Env::Everywhere).unwrap();
        let call = dist.now().unwrap(); // a call's look is made, then the build is replaced
        copy.rebuild("main-next", false);
        let during = call.build().skills("tiny", &Machine::new(Env::Everywhere)).unwrap();
        assert_eq!(during, old);
        assert_ne!(dist.skills_in("tiny", Env::Everywhere).unwrap(), old); // the next call: the new build
    }

    #[test]
    fn a_build_pruned_during_a_call_is_dist_rebuilt() {
        let copy = Copy::of("main", "pruned");
        let dist = Dist::open(&copy.0).unwrap();
        let call = dist.now().unwrap();
        copy.rebuild("main-next", true);
        let err = call.build().load("tiny", "notes", &LoadOptions::new()).unwrap_err();
        assert!(matches!(err, ReaderError::DistRebuilt(_)), "{:?}", err);
        assert!(err.to_string().contains("the next call answers from the new build"));
        let next = dist.load("tiny", "notes", None).unwrap();
        assert_eq!(next, Dist::open(suite("main-next")).unwrap().load("tiny", "notes", None).unwrap());
    }

    #[test]
    fn refresh_reads_an_index_its_identity_would_miss() {
        let copy = Copy::of("main", "refresh");
        let dist = Dist::open(&copy.0).unwrap();
        let first = dist.build_hash().unwrap();
        copy.rebuild("main-next", false);
        let now = identity_of(&std::fs::metadata(copy.0.join(INDEX)).unwrap());
        dist.state().folders[0].identity = Some(now); // as if the new index looked unchanged
        assert_eq!(dist.build_hash().unwrap(), first);
        assert!(dist.refresh());
        assert_ne!(dist.build_hash().unwrap(), first);
        assert!(!dist.refresh());
    }
}
