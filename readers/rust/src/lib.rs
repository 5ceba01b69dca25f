//! Read a skillc `dist/` (format 2) from Rust: the twin of skillc's Python reader, answer for
//! answer (docs/format.md; the conformance suite in tests/conformance/ holds all readers to it).
//!
//! ```no_run
//! use skillc_reader::Dist;
//! let dist = Dist::open("dist")?;
//! let catalog = dist.catalog("paria-g")?;
//! let skill = dist.load("paria-g", "threat-assessment", Some("Jita"))?;
//! println!("{}\n{}", catalog, skill.render());
//! # Ok::<(), skillc_reader::ReaderError>(())
//! ```
//!
//! Every answer is read from hash-checked, validated objects; every failure is a
//! [`ReaderError`]. An open [`Dist`] keeps serving the build it opened across rebuilds.

mod api;
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
mod prompts;
mod records;
mod shlex;
mod unicode;
mod which;

pub use dist::Dist;
pub use error::{ReaderError, Visible};
pub use fold_table::UNICODE_VERSION;
pub use format::{escape_delimiter, VERSION};
pub use prompts::{render_skill, substitute, Args, Params, PARAMS};
pub use records::{LoadedSkill, PersonaMeta, Resolution, ResourceMeta, SkillInfo, SkillMeta, SubSkill};

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
