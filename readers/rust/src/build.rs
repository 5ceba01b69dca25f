//! The calls every build answers, one build (a `View`, calls.rs) or a stack of builds (stack.rs):
//! what `Dist` asks of whatever its look at the indexes left it with (docs/format.md §7).

use std::path::{Path, PathBuf};

use crate::available::Machine;
use crate::error::ReaderError;
use crate::prompts::{Args, LoadOptions, LoadedSkill, Params};
use crate::records::{
    By, PersonaContext, PersonaMeta, Resolution, Shadowed, SkillInfo, SkillMeta, Unavailable,
};

pub(crate) trait Build: Send + Sync {
    fn build_hash(&self) -> String;
    fn personas(&self) -> Vec<String>;
    /// The catalog for `machine`, its locations under `root` (a call's own root: one build only).
    fn catalog(
        &self,
        persona: &str,
        machine: &Machine<'_>,
        root: Option<&str>,
    ) -> Result<String, ReaderError>;
    fn skills(&self, persona: &str, machine: &Machine<'_>) -> Result<Vec<SkillInfo>, ReaderError>;
    fn unavailable(&self, persona: &str, machine: &Machine<'_>) -> Result<Vec<Unavailable>, ReaderError>;
    fn load(&self, persona: &str, command: &str, options: &LoadOptions) -> Result<LoadedSkill, ReaderError>;
    fn resources(&self, persona: &str, command: &str, kind: Option<&str>)
        -> Result<Vec<String>, ReaderError>;
    fn resource(&self, persona: &str, command: &str, path: &str) -> Result<Vec<u8>, ReaderError>;
    fn missing_requirements(
        &self,
        persona: &str,
        command: &str,
        machine: &Machine<'_>,
    ) -> Result<Vec<String>, ReaderError>;
    #[allow(clippy::too_many_arguments)]
    fn materialize(
        &self,
        persona: &str,
        command: &str,
        dest: &Path,
        args: Option<&Args>,
        params: &Params,
        by: By,
    ) -> Result<PathBuf, ReaderError>;
    fn all_commands(&self) -> Result<Vec<String>, ReaderError>;
    fn skill_meta(&self, command: &str) -> Result<SkillMeta, ReaderError>;
    fn read_object(&self, digest: &str) -> Result<Vec<u8>, ReaderError>;
    fn persona_meta(&self, persona: &str) -> Result<PersonaMeta, ReaderError>;
    fn persona_context(&self, persona: &str) -> Result<PersonaContext, ReaderError>;
    fn resolution(&self, persona: &str, command: &str) -> Result<Resolution, ReaderError>;
    fn shadowed(&self) -> Result<Vec<Shadowed>, ReaderError>;
}
