//! The reader's results: the Python records, with their field names (api.py, prompts.py).

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

/// A child skill the persona's model may load, listed in a loaded skill's `<sub_skills>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SubSkill {
    pub command: String,
    pub name: String,
    pub description: String,
    pub label: String,
}

/// A skill resolved for a persona, its arguments substituted (`Dist::load`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LoadedSkill {
    pub persona: String,
    pub command: String,
    pub name: String,
    pub description: String,
    pub body: String,
    pub access: String,
    pub overlay: Option<String>,
    /// The first bundled files (at most 20), relative to the skill.
    pub files: Vec<String>,
    pub sub_skills: Vec<SubSkill>,
    pub context: String,
    pub agent: Option<String>,
    pub model: Option<String>,
    pub allowed_tools: Vec<String>,
    pub knowledge: Vec<String>,
    pub label: String,
}

impl LoadedSkill {
    /// sven's `<skill_content>` tool result (`render_skill`).
    pub fn render(&self) -> String {
        crate::prompts::render_skill(self)
    }
}
