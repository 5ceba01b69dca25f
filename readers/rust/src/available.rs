//! Run-time availability: what a machine has of a skill's requirements (sven's `requires_bins`
//! and `requires_env`), for an environment a host names, the process's, or everywhere
//! (available.py). docs/format.md §11 is the rule: a program is found in the `PATH` of the
//! environment given (never the current directory), a variable is there when it is set and not
//! empty.

use std::cell::RefCell;
use std::collections::HashMap;

/// The environment a call checks requirements in (docs/format.md §7, §17.2).
#[derive(Clone, Copy, Default)]
pub enum Env<'a> {
    /// The process's environment: its variables, programs in its `PATH` (the default).
    #[default]
    Process,
    /// These variables; programs in their `PATH`.
    Map(&'a HashMap<String, String>),
    /// These variables; a program is there when `found` says so (Python's `which`): for tests,
    /// or a host that knows its programs otherwise.
    Searched(&'a HashMap<String, String>, &'a dyn Fn(&str) -> bool),
    /// The environment that has every requirement: the catalog and listings as the build made
    /// them, and nothing more is read.
    Everywhere,
}

impl std::fmt::Debug for Env<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Env::Process => f.write_str("Process"),
            Env::Map(vars) => f.debug_tuple("Map").field(vars).finish(),
            Env::Searched(vars, _) => f.debug_tuple("Searched").field(vars).finish(),
            Env::Everywhere => f.write_str("Everywhere"),
        }
    }
}

/// `None` is the process's environment, as the Python reader's `env=None`.
impl<'a> From<Option<&'a HashMap<String, String>>> for Env<'a> {
    fn from(env: Option<&'a HashMap<String, String>>) -> Env<'a> {
        env.map_or(Env::Process, Env::Map)
    }
}

impl<'a> From<&'a HashMap<String, String>> for Env<'a> {
    fn from(env: &'a HashMap<String, String>) -> Env<'a> {
        Env::Map(env)
    }
}

/// What a skill needs at run time, as the requirements object lists it (§4.7).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Needs {
    pub bins: Vec<String>,
    pub env: Vec<String>,
}

/// One call's environment: its variables and its program search, each program looked up once.
pub(crate) struct Machine<'a> {
    env: Env<'a>,
    process: Option<HashMap<String, String>>,
    found: RefCell<HashMap<String, bool>>,
}

impl<'a> Machine<'a> {
    pub(crate) fn new(env: Env<'a>) -> Machine<'a> {
        let process = match env {
            Env::Process => Some(
                std::env::vars_os()
                    .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                    .collect(),
            ),
            _ => None,
        };
        Machine { env, process, found: RefCell::new(HashMap::new()) }
    }

    /// Whether this is the environment that has everything.
    pub(crate) fn everything(&self) -> bool {
        matches!(self.env, Env::Everywhere)
    }

    fn vars(&self) -> Option<&HashMap<String, String>> {
        match self.env {
            Env::Map(vars) | Env::Searched(vars, _) => Some(vars),
            _ => self.process.as_ref(),
        }
    }

    fn has_program(&self, name: &str) -> bool {
        if let Some(&known) = self.found.borrow().get(name) {
            return known;
        }
        let known = match self.env {
            Env::Searched(_, found) => found(name),
            _ => {
                let path = self.vars().and_then(|v| v.get("PATH")).map_or("", String::as_str);
                which(name, path).is_some()
            }
        };
        self.found.borrow_mut().insert(name.to_string(), known);
        known
    }

    /// What this machine lacks of these requirements: `bin:` and `env:` entries, in order.
    pub(crate) fn missing(&self, bins: &[String], env: &[String]) -> Vec<String> {
        if self.everything() {
            return Vec::new();
        }
        let mut out: Vec<String> =
            bins.iter().filter(|b| !self.has_program(b)).map(|b| format!("bin:{}", b)).collect();
        let vars = self.vars();
        out.extend(
            env.iter()
                .filter(|e| vars.and_then(|v| v.get(e.as_str())).map_or(true, String::is_empty))
                .map(|e| format!("env:{}", e)),
        );
        out
    }

    /// What this machine lacks of a skill's requirements, if the requirements list it.
    pub(crate) fn lacks(&self, needs: Option<&Needs>) -> Vec<String> {
        needs.map_or_else(Vec::new, |n| self.missing(&n.bins, &n.env))
    }
}

/// The program `name` in a directory of `path` (`:`-separated; empty and relative entries
/// skipped): a regular file, symlinks followed, that this process may execute. A name holding
/// `/` or NUL, or `.` or `..`, is never found. Unlike a shell, the search reads only the PATH
/// given, never the process's, and never the current directory.
pub(crate) fn which(name: &str, path: &str) -> Option<String> {
    if name.is_empty() || name.contains('/') || name.contains('\0') || name == "." || name == ".." {
        return None;
    }
    path.split(':')
        .filter(|folder| folder.starts_with('/'))
        .map(|folder| format!("{}/{}", folder.trim_end_matches('/'), name))
        .find(|place| std::fs::metadata(place).map_or(false, |m| m.is_file()) && may_execute(place))
}

#[cfg(unix)]
fn may_execute(place: &str) -> bool {
    use std::os::raw::{c_char, c_int};
    extern "C" {
        // access(2), from the C library the standard library links already
        fn access(path: *const c_char, mode: c_int) -> c_int;
    }
    const X_OK: c_int = 1;
    match std::ffi::CString::new(place) {
        // SAFETY: c_path is a valid NUL-terminated string that outlives the call.
        Ok(c_path) => unsafe { access(c_path.as_ptr(), X_OK) == 0 },
        Err(_) => false,
    }
}

#[cfg(not(unix))]
fn may_execute(_place: &str) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_environment_lacks_what_it_does_not_have() {
        let vars: HashMap<String, String> = [("SET", "x"), ("EMPTY", ""), ("PATH", "/nonexistent:relative")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let machine = Machine::new(Env::Map(&vars));
        let wanted = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            machine.missing(&wanted(&["sh", "sh"]), &wanted(&["SET", "EMPTY", "UNSET"])),
            ["bin:sh", "bin:sh", "env:EMPTY", "env:UNSET"]
        );
        let found = |name: &str| name == "sh";
        let searched = Machine::new(Env::Searched(&vars, &found));
        assert_eq!(searched.missing(&wanted(&["sh", "git"]), &[]), ["bin:git"]);
        assert!(Machine::new(Env::Everywhere).missing(&wanted(&["no-such"]), &wanted(&["NO"])).is_empty());
        assert_eq!(which("..", "/bin"), None);
    }
}
