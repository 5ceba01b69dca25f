//! The reader's errors: every failure of the reader is a `ReaderError` (errors.py).

use std::fmt;
use std::sync::{Arc, Mutex};

use crate::records::By;

/// Every failure of the reader. The variants are the Python reader's exception classes; the
/// `String`s are messages for people, never for matching.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReaderError {
    /// Python's base class `ReaderError` itself: `materialize` cannot write its destination.
    Reader(String),
    /// An index file is missing, malformed, or of another format version.
    Format(String),
    /// An object file is missing or its bytes do not match its hash.
    Integrity(String),
    /// No such persona; `known` lists the build's personas.
    UnknownPersona { persona: String, known: Vec<String> },
    /// The persona does not see the command (persona `*`, for `skill_meta`: no such command).
    /// `suggestions` holds up to three close commands the persona sees, found in a few reads
    /// (docs/format.md §12.1); `visible` lists every command it sees (every command, for `*`),
    /// read when asked for: `visible.list()`.
    UnknownSkill { persona: String, command: String, suggestions: Vec<String>, visible: Visible },
    /// The path is not a resource the persona may read.
    UnknownResource(String),
    /// dist/ was rebuilt during the call and the call's build's objects were pruned; the next
    /// call answers from the new build (docs/format.md §6.4).
    DistRebuilt(String),
    /// `by` may not invoke the skill for the persona; `invokers` are those who may (the model
    /// before the user; none for a skill neither may invoke). Nothing of the skill was read.
    NotInvocable { persona: String, command: String, by: By, invokers: Vec<By> },
    /// A call needs the persona's plan (to leave an entry out of its catalog, or to give its
    /// locations a root) and the build's catalog template does not split (SKC603).
    CannotSplit(String),
    /// Builds opened together (tiers) that cannot answer as one build compiled from their
    /// sources would (docs/format.md §16.2).
    CannotStack(String),
}

impl ReaderError {
    /// The Python class name of the error (`FormatError`, `UnknownSkill`, ...).
    pub fn class_name(&self) -> &'static str {
        match self {
            ReaderError::Reader(_) => "ReaderError",
            ReaderError::Format(_) => "FormatError",
            ReaderError::Integrity(_) => "IntegrityError",
            ReaderError::UnknownPersona { .. } => "UnknownPersona",
            ReaderError::UnknownSkill { .. } => "UnknownSkill",
            ReaderError::UnknownResource(_) => "UnknownResource",
            ReaderError::DistRebuilt(_) => "DistRebuilt",
            ReaderError::NotInvocable { .. } => "NotInvocable",
            ReaderError::CannotSplit(_) => "CannotSplit",
            ReaderError::CannotStack(_) => "CannotStack",
        }
    }
}

impl fmt::Display for ReaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReaderError::Reader(m)
            | ReaderError::Format(m)
            | ReaderError::Integrity(m)
            | ReaderError::UnknownResource(m)
            | ReaderError::DistRebuilt(m)
            | ReaderError::CannotSplit(m)
            | ReaderError::CannotStack(m) => f.write_str(m),
            ReaderError::NotInvocable { persona, command, by, invokers } => {
                write!(f, "{:?} may not be invoked by the {} for persona {:?}: ", command, by, persona)?;
                match invokers.as_slice() {
                    [] => f.write_str("neither the model nor the user may invoke it"),
                    [By::User] => f.write_str("only the user may invoke it (a slash command)"),
                    [only, ..] => write!(f, "only the {} may invoke it", only),
                }
            }
            ReaderError::UnknownPersona { persona, known } => {
                let known = if known.is_empty() { "none".to_string() } else { known.join(", ") };
                write!(f, "unknown persona {:?}; known: {}", persona, known)
            }
            ReaderError::UnknownSkill { persona, command, suggestions, .. } => {
                write!(f, "no skill {:?} for persona {:?}", command, persona)?;
                let quoted: Vec<String> = suggestions.iter().map(|s| format!("{:?}", s)).collect();
                match quoted.split_last() {
                    None => Ok(()),
                    Some((only, [])) => write!(f, " (did you mean {}?)", only),
                    Some((last, rest)) => write!(f, " (did you mean {} or {}?)", rest.join(", "), last),
                }
            }
        }
    }
}

impl std::error::Error for ReaderError {}

type Lister = dyn Fn() -> Result<Vec<String>, ReaderError> + Send + Sync;

/// The commands an `UnknownSkill`'s persona sees, in code point order: listed when first asked
/// for, since listing reads every shard of the build (seconds at 100,000 skills) and raising the
/// error must not. Clones share the list once it is made; a failed listing keeps nothing.
#[derive(Clone)]
pub struct Visible {
    lister: Option<Arc<Lister>>,
    listed: Arc<Mutex<Option<Vec<String>>>>,
}

impl Visible {
    /// A list known already (an error built by hand).
    pub fn known(list: Vec<String>) -> Visible {
        Visible { lister: None, listed: Arc::new(Mutex::new(Some(list))) }
    }

    /// A list read by `lister` on first use.
    pub(crate) fn lazy(
        lister: impl Fn() -> Result<Vec<String>, ReaderError> + Send + Sync + 'static,
    ) -> Visible {
        Visible { lister: Some(Arc::new(lister)), listed: Arc::new(Mutex::new(None)) }
    }

    /// The list: read now unless it was read before. Reading may fail with the `Format`,
    /// `Integrity` or `DistRebuilt` error that listing the build meets.
    pub fn list(&self) -> Result<Vec<String>, ReaderError> {
        let mut listed = self.listed.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(list) = listed.as_ref() {
            return Ok(list.clone());
        }
        let lister = self.lister.as_ref().expect("a Visible without a list has a lister");
        let list = lister()?;
        *listed = Some(list.clone());
        Ok(list)
    }

    fn known_list(&self) -> Option<Vec<String>> {
        self.listed.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl From<Vec<String>> for Visible {
    fn from(list: Vec<String>) -> Visible {
        Visible::known(list)
    }
}

/// Two handles are equal when they are clones of one another, or when both lists are made and equal.
impl PartialEq for Visible {
    fn eq(&self, other: &Visible) -> bool {
        Arc::ptr_eq(&self.listed, &other.listed)
            || matches!((self.known_list(), other.known_list()), (Some(a), Some(b)) if a == b)
    }
}

impl Eq for Visible {}

impl fmt::Debug for Visible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.known_list() {
            Some(list) => f.debug_tuple("Visible").field(&list).finish(),
            None => f.write_str("Visible(not listed yet)"),
        }
    }
}
