//! The reader's records, with the Python records' field names (records.py): its results but the
//! tool results of prompts.rs, and the inputs that name who invokes and which builds to open.

use std::path::PathBuf;

/// One skill a persona sees, for listings (`Dist::skills`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SkillInfo {
    pub command: String,
    pub name: String,
    pub description: String,
    /// `open`, `granted` or `stub`.
    pub access: String,
    /// The model may invoke it.
    pub model: bool,
    /// The user may type it as a slash command.
    pub user: bool,
    /// Listed in the persona's tier-1 catalog.
    pub in_catalog: bool,
    pub argument_hint: Option<String>,
    pub context: String,
    /// What the skill is shown as: its frontmatter `name` as written, else `name` (docs/format.md §7).
    pub label: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ResourceMeta {
    pub path: String,
    pub sha256: String,
    pub size: u64,
    pub executable: bool,
}

/// A skill as the build holds it, for tools (`Dist::skill_meta`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillMeta {
    pub command: String,
    pub name: String,
    pub description: String,
    pub source: String,
    pub path: String,
    /// The frontmatter as the index holds it (integers beyond 64 bits become floats).
    pub frontmatter: serde_json::Map<String, serde_json::Value>,
    pub body_sha256: String,
    pub resources: Vec<ResourceMeta>,
    pub parent: Option<String>,
    pub children: Vec<String>,
    pub label: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PersonaMeta {
    pub id: String,
    pub name: String,
    pub faction: Option<String>,
    pub fallback: Option<String>,
    pub chain: Vec<String>,
    pub unrestricted: bool,
    pub allowlist: Option<Vec<String>>,
    pub budget: u64,
    pub catalog_chars: u64,
    pub included: Vec<String>,
    pub left_out: Vec<String>,
    /// Descriptions the budget shortened.
    pub shortened: Vec<String>,
}

/// How a persona sees a skill (`Dist::resolution`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Resolution {
    pub access: String,
    pub via: Option<String>,
    pub overlay: Option<String>,
    pub model: bool,
    pub user: bool,
    pub in_catalog: bool,
    pub body_sha256: String,
}

/// Who invokes a skill: the model (a tool call, the default) or the user (a slash command). The
/// build decided who may, for each persona (docs/format.md §7): `load` and `materialize` hold the
/// invoker to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum By {
    #[default]
    Model,
    User,
}

impl By {
    /// Both invokers, in the order the errors list them.
    pub const ALL: [By; 2] = [By::Model, By::User];

    /// `"model"` or `"user"`, the Python reader's names.
    pub fn as_str(self) -> &'static str {
        match self {
            By::Model => "model",
            By::User => "user",
        }
    }
}

impl std::fmt::Display for By {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A skill an environment lacks requirements for, and what it lacks (`bin:NAME`, `env:NAME`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Unavailable {
    pub command: String,
    pub missing: Vec<String>,
}

/// A skill of a tier that a later tier's skill of the same command hides: `tier` and `by` are
/// their places in the list given to `Dist::open_stack`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Shadowed {
    pub command: String,
    pub tier: usize,
    pub by: usize,
}

/// One build of a stack, as `Dist::open_stack` is given it: its folder; whether it may be missing
/// on this machine (it is then left out until it is there); the folder its build's paths are
/// relative to here, which makes its locations absolute (docs/format.md §16.1, §17.3).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Tier {
    pub path: PathBuf,
    pub optional: bool,
    pub root: Option<String>,
}

impl Tier {
    /// A build that must be there.
    pub fn new(path: impl Into<PathBuf>) -> Tier {
        Tier { path: path.into(), optional: false, root: None }
    }

    /// A build that may be missing on this machine (the user's, a run-time one).
    pub fn optional(path: impl Into<PathBuf>) -> Tier {
        Tier { optional: true, ..Tier::new(path) }
    }

    /// This tier with the folder its build's paths are relative to on this machine.
    pub fn with_root(self, root: impl Into<String>) -> Tier {
        Tier { root: Some(root.into()), ..self }
    }
}

/// ARIA's `persona_context` (docs/format.md §18): the persona, its fallback, whether it may have
/// every exclusive skill, and where its skill overlays are (and its fallback's), in the build's
/// personas folder.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PersonaContext {
    pub persona: String,
    pub fallback: Option<String>,
    pub unrestricted_skills: bool,
    pub skill_overlay_path: Option<String>,
    pub overlay_fallback_path: Option<String>,
}
