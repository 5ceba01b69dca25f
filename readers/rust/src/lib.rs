//! Read a skillc `dist/` (format 3) from Rust: the twin of skillc's Python reader, answer for
//! answer (docs/format.md; the conformance suite in tests/conformance/ holds all readers to it).
//!
//! ```no_run
//! use skillc_reader::{By, Dist, LoadOptions};
//! let dist = Dist::open("dist")?;
//! let catalog = dist.catalog("paria-g")?; // without the skills this machine cannot run
//! let skill = dist.load("paria-g", "threat-assessment", Some("Jita"))?; // a tool call
//! let typed = dist.load_with("paria-g", "commit", &LoadOptions::new().by(By::User))?; // a slash command
//! println!("{}\n{}\n{}", catalog, skill.render(), typed.body);
//! # Ok::<(), skillc_reader::ReaderError>(())
//! ```
//!
//! Every answer is read from hash-checked, validated objects; every failure is a
//! [`ReaderError`]. An open [`Dist`] answers from the newest build in its folder, and may hold a
//! stack of builds (tiers: bundled, user, project) answered as one.

mod available;
mod build;
mod calls;
mod dist;
mod error;
mod files;
#[rustfmt::skip]
mod fold_table;
mod format;
mod index;
mod json;
mod materialize;
mod nearby;
mod pack;
mod prompts;
mod records;
mod shlex;
mod split;
mod stack;
mod unicode;
mod view;

pub use available::Env;
pub use dist::Dist;
pub use error::{ReaderError, Visible};
pub use fold_table::UNICODE_VERSION;
pub use format::{escape_delimiter, VERSION};
pub use prompts::{
    render_skill, substitute, Args, KnowledgeDoc, LoadOptions, LoadedSkill, Params, SubSkill, PARAMS,
};
pub use records::{
    By, PersonaContext, PersonaMeta, Resolution, ResourceMeta, Shadowed, SkillInfo, SkillMeta, Tier,
    Unavailable,
};

/// Internals exposed for this crate's own differential tests only; not part of the API.
#[doc(hidden)]
pub mod testing {
    /// A dist/ JSON document parsed as the reader parses it (§3), as serde_json holds it.
    pub fn parse_json(data: &[u8]) -> Result<serde_json::Value, String> {
        let text = std::str::from_utf8(data).map_err(|e| e.to_string())?;
        crate::json::parse(text).map(|v| v.to_serde())
    }

    /// Python's `str.isspace` for one character.
    pub fn is_space(c: char) -> bool {
        crate::unicode::is_space(c)
    }
}
