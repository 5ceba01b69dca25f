//! Finding a program for `missing_requirements` (api.py `_which`).

/// The program `name` in a directory of `path` (`:`-separated; empty and relative entries
/// skipped): a regular file, symlinks followed, that this process may execute. A name holding
/// `/` or NUL, or `.` or `..`, is never found. Unlike a shell, the search reads only the PATH
/// given, never the process's, and never the current directory.
pub fn which(name: &str, path: &str) -> Option<String> {
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
