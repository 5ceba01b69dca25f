//! The reader's errors: every failure of the reader is a `ReaderError` (errors.py).

use std::fmt;

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
    /// The persona does not see the command; `visible` lists the commands it sees (all the
    /// build's commands, with persona `*`, for `skill_meta`).
    UnknownSkill { persona: String, command: String, visible: Vec<String> },
    /// The path is not a resource the persona may read.
    UnknownResource(String),
    /// dist/ was rebuilt since it was opened and the opened build's objects were pruned.
    DistRebuilt(String),
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
            | ReaderError::DistRebuilt(m) => f.write_str(m),
            ReaderError::UnknownPersona { persona, known } => {
                let known = if known.is_empty() { "none".to_string() } else { known.join(", ") };
                write!(f, "unknown persona {:?}; known: {}", persona, known)
            }
            ReaderError::UnknownSkill { persona, command, visible } => {
                let mut shown = visible.iter().take(50).cloned().collect::<Vec<_>>().join(", ");
                if visible.len() > 50 {
                    shown.push_str(", ...");
                }
                let shown = if shown.is_empty() { "none".to_string() } else { shown };
                write!(f, "no skill {:?} for persona {:?}; visible skills: {}", command, persona, shown)
            }
        }
    }
}

impl std::error::Error for ReaderError {}
