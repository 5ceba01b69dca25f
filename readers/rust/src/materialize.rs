//! `Dist::materialize`: write a resolved skill folder, as a workspace mounts a skill into a task
//! folder (view.py `materialize`); a destination that holds exactly that skill already is left
//! as it is (V1's second activation). Nothing is ever written outside the destination: every path
//! is checked to stay below it, parents are directories created here, files are created new
//! without following symlinks.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::ReaderError;
use crate::files::{absolute, read_regular_seen};
use crate::index::member;
use crate::json::Object;
use crate::prompts::{names, substitute, Args, Params};
use crate::records::By;
use crate::view::View;

pub(crate) fn materialize(
    view: &View,
    persona: &str,
    command: &str,
    dest: &Path,
    args: Option<&Args>,
    params: &Params,
    by: By,
) -> Result<PathBuf, ReaderError> {
    let (skill, r) = view.invocable(persona, command, by)?;
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
    let skill_dir =
        root.to_str().ok_or_else(|| ReaderError::Reader(format!("{}: not a UTF-8 path", root.display())))?;
    let fm = skill.frontmatter();
    let body = view.text(member(&r, "body").as_str().unwrap_or_default())?;
    let body = substitute(&body, args, &names(fm.get("arguments")), Some(skill_dir), params);
    let head = format!(
        "---\nname: {}\ndescription: {}\n---\n\n",
        json_string(&skill.str("name")),
        json_string(&skill.str("description"))
    );
    let skill_md = (head + &body).into_bytes();
    let os_err = |e: std::io::Error| ReaderError::Reader(format!("{}: cannot write: {}", root.display(), e));
    let read = |res: &Object| {
        let size = member(res, "size").as_count().unwrap_or(0);
        view.object(member(res, "sha256").as_str().unwrap_or_default(), size)
    };
    if is_occupied(&root).map_err(os_err)? {
        let mut wanted: BTreeMap<String, (Wanted<'_>, bool)> = BTreeMap::new();
        wanted.insert("SKILL.md".to_string(), (Wanted::Bytes(&skill_md), false));
        for (rel, res) in &files {
            wanted.insert(
                rel.clone(),
                (Wanted::Object(res), member(res, "executable").as_bool() == Some(true)),
            );
        }
        if holds(&root, &wanted, &read)? {
            return Ok(root); // this very skill is there already (a second activation)
        }
        return Err(ReaderError::Reader(format!(
            "{}: destination exists and holds something else than this skill",
            root.display()
        )));
    }
    std::fs::create_dir_all(&root).map_err(os_err)?;
    write_new(&root, "SKILL.md", &skill_md, false).map_err(os_err)?;
    for (rel, res) in files {
        let data = read(res)?;
        write_new(&root, &rel, &data, member(res, "executable").as_bool() == Some(true)).map_err(os_err)?;
    }
    Ok(root)
}

/// What a file of the destination must hold: these bytes, or a resource's object.
enum Wanted<'a> {
    Bytes(&'a [u8]),
    Object(&'a Object),
}

/// Whether the folder `root` holds exactly the files `wanted` (relative path -> (what it holds,
/// executable)) and the folders their paths need: no other file, folder, link or special file,
/// each file's bytes and owner execute bit as wanted (docs/format.md §7). Walked without following
/// links; each file is read only if it is the regular file the walk saw.
fn holds(
    root: &Path,
    wanted: &BTreeMap<String, (Wanted<'_>, bool)>,
    read: &dyn Fn(&Object) -> Result<Vec<u8>, ReaderError>,
) -> Result<bool, ReaderError> {
    if !std::fs::symlink_metadata(root).map_or(false, |m| m.is_dir()) {
        return Ok(false);
    }
    let folders: BTreeSet<String> = wanted
        .keys()
        .flat_map(|rel| rel.match_indices('/').map(move |(at, _)| rel[..at].to_string()))
        .collect();
    let mut found = BTreeMap::new();
    let mut todo = vec![String::new()];
    while let Some(rel_dir) = todo.pop() {
        let entries = match std::fs::read_dir(root.join(&rel_dir)) {
            Ok(entries) => entries,
            Err(_) => return Ok(false),
        };
        for entry in entries {
            let name = match entry.map(|e| e.file_name().into_string()) {
                Ok(Ok(name)) => name,
                _ => return Ok(false),
            };
            let rel = if rel_dir.is_empty() { name } else { format!("{}/{}", rel_dir, name) };
            let meta = match std::fs::symlink_metadata(root.join(&rel)) {
                Ok(meta) => meta,
                Err(_) => return Ok(false),
            };
            if meta.is_dir() && folders.contains(&rel) {
                todo.push(rel);
            } else if meta.is_file() && wanted.contains_key(&rel) {
                found.insert(rel, meta);
            } else {
                return Ok(false);
            }
        }
    }
    if found.len() != wanted.len() {
        return Ok(false);
    }
    for (rel, (what, executable)) in wanted {
        let expected = match what {
            Wanted::Bytes(data) => data.to_vec(),
            Wanted::Object(res) => read(res)?,
        };
        let seen = &found[rel];
        let (held, meta) = match read_regular_seen(&root.join(rel), expected.len() as u64) {
            Ok(read) => read,
            Err(_) => return Ok(false),
        };
        if !same_file(seen, &meta) || held != expected || owner_executes(&meta) != *executable {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether two stats are of one file: the file read is the one the walk saw without following
/// links, not a symlink swapped in since.
#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

#[cfg(not(unix))]
fn same_file(_a: &std::fs::Metadata, _b: &std::fs::Metadata) -> bool {
    true
}

#[cfg(unix)]
fn owner_executes(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o100 != 0
}

#[cfg(not(unix))]
fn owner_executes(_meta: &std::fs::Metadata) -> bool {
    false
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
