//! `Dist::materialize`: write a resolved skill folder, as a workspace mounts a skill into a task
//! folder (api.py `materialize`). Nothing is ever written outside the destination: every path
//! is checked to stay below it, parents are directories created here, files are created new
//! without following symlinks.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::dist::Dist;
use crate::error::ReaderError;
use crate::files::absolute;
use crate::index::member;
use crate::prompts::{names, substitute, Args, Params};

pub fn materialize(
    dist: &Dist,
    persona: &str,
    command: &str,
    dest: &Path,
    args: Option<&Args>,
    params: &Params,
) -> Result<PathBuf, ReaderError> {
    let (skill, r) = dist.resolved(persona, command)?;
    let root = absolute(dest).map_err(|e| ReaderError::Reader(format!("{}: {}", dest.display(), e)))?;
    // A stub persona gets the stub's SKILL.md and nothing of the exclusive skill's files.
    let mut files = Vec::new();
    for res in skill.resources(&r) {
        let rel = safe_rel(member(res, "path").as_str().unwrap_or_default())?;
        files.push((rel, res));
    }
    if files.iter().any(|(rel, _)| rel == "SKILL.md") {
        return Err(ReaderError::Format(format!(
            "corrupt index: a resource of {:?} is named SKILL.md",
            command
        )));
    }
    let os_err = |e: std::io::Error| ReaderError::Reader(format!("{}: cannot write: {}", root.display(), e));
    if is_occupied(&root).map_err(os_err)? {
        return Err(ReaderError::Reader(format!(
            "{}: destination exists and is not an empty directory",
            root.display()
        )));
    }
    std::fs::create_dir_all(&root).map_err(os_err)?;
    let skill_dir =
        root.to_str().ok_or_else(|| ReaderError::Reader(format!("{}: not a UTF-8 path", root.display())))?;
    let fm = skill.frontmatter();
    let body = dist.text(member(&r, "body").as_str().unwrap_or_default())?;
    let body = substitute(&body, args, &names(fm.get("arguments")), Some(skill_dir), params);
    let head = format!(
        "---\nname: {}\ndescription: {}\n---\n\n",
        json_string(&skill.str("name")),
        json_string(&skill.str("description"))
    );
    write_new(&root, "SKILL.md", (head + &body).as_bytes(), false).map_err(os_err)?;
    for (rel, res) in files {
        let size = member(res, "size").as_count().unwrap_or(0);
        let data = dist.object(member(res, "sha256").as_str().unwrap_or_default(), size)?;
        write_new(&root, &rel, &data, member(res, "executable").as_bool() == Some(true)).map_err(os_err)?;
    }
    Ok(root)
}

/// Whether something other than a missing path or an empty real directory is at `root`.
fn is_occupied(root: &Path) -> std::io::Result<bool> {
    match std::fs::symlink_metadata(root) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
        Ok(meta) if !meta.is_dir() => Ok(true),
        Ok(_) => Ok(std::fs::read_dir(root)?.next().is_some()),
    }
}

/// A resource path from the index, refused unless it stays below the destination.
fn safe_rel(rel: &str) -> Result<String, ReaderError> {
    let bad = rel.is_empty()
        || rel.starts_with('/')
        || rel.contains('\\')
        || rel.contains('\0')
        || rel.split('/').any(|p| p.is_empty() || p == "." || p == "..")
        || (rel.len() > 1 && rel.as_bytes()[1] == b':' && rel.as_bytes()[0].is_ascii_alphabetic());
    if bad {
        return Err(ReaderError::Format(format!("corrupt index: resource path {:?}", rel)));
    }
    Ok(rel.to_string())
}

/// Create one file below root; every parent is a real directory created here (no symlink is
/// followed).
fn write_new(root: &Path, rel: &str, data: &[u8], executable: bool) -> std::io::Result<()> {
    let parts: Vec<&str> = rel.split('/').collect();
    let mut at = root.to_path_buf();
    for part in &parts[..parts.len() - 1] {
        at.push(part);
        let real_dir = std::fs::symlink_metadata(&at).map_or(false, |m| m.is_dir());
        if !real_dir {
            std::fs::create_dir(&at)?; // fails if something else is there
        }
    }
    at.push(parts[parts.len() - 1]);
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // create_new is O_EXCL, which never follows a symlink at the last component
        options.mode(if executable { 0o777 } else { 0o666 });
    }
    options.open(&at)?.write_all(data)?;
    #[cfg(unix)]
    if executable {
        // the umask may have cleared x bits; restore the owner's at least
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&at)?.permissions().mode() | 0o100;
        std::fs::set_permissions(&at, std::fs::Permissions::from_mode(mode))?;
    }
    Ok(())
}

/// `json.dumps(text, ensure_ascii=False)`: a JSON string with only what must be escaped.
fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
