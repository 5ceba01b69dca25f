//! The conformance runner's mechanics (tests/conformance/README.md): a fresh copy of a build,
//! the tamper ops, results as the suite's JSON, temp folders. Test code only.

#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{json, Value};

/// The suite's folder in the repository this crate lives in.
pub fn suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance")
}

/// A temporary folder, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("skillc-reader-{}-{}-{}", tag, std::process::id(), n));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Copy a tree, keeping file modes and symlinks.
pub fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let kind = entry.file_type().unwrap();
        let dest = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &dest);
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(entry.path()).unwrap(), &dest).unwrap();
        } else {
            fs::copy(entry.path(), &dest).unwrap(); // copies the permissions too
        }
    }
}

fn remove_any(path: &Path) {
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => fs::remove_dir_all(path).unwrap(),
        Ok(_) => fs::remove_file(path).unwrap(),
        Err(_) => {}
    }
}

extern "C" {
    fn mkfifo(path: *const std::os::raw::c_char, mode: u32) -> std::os::raw::c_int;
}

/// The `rebuild` op: the copy at root becomes `build` as skillc writes a build over another (its
/// objects added, with `prune` the others deleted, then its index renamed over the old one).
pub fn rebuild(root: &Path, build: &Path, prune: bool) {
    let mut theirs = Vec::new();
    files_below(&build.join("objects"), "objects", &mut theirs);
    for rel in &theirs {
        let target = root.join(rel);
        if fs::symlink_metadata(&target).is_err() {
            fs::create_dir_all(target.parent().unwrap()).unwrap();
            fs::copy(build.join(rel), &target).unwrap();
        }
    }
    if prune {
        let mut ours = Vec::new();
        files_below(&root.join("objects"), "objects", &mut ours);
        for rel in ours.iter().filter(|rel| !theirs.contains(rel)) {
            fs::remove_file(root.join(rel)).unwrap();
        }
    }
    fs::create_dir_all(root).unwrap(); // an optional tier that was not there
    let aside = root.join(".skillc-tmp-rebuild");
    fs::copy(build.join("_index.json"), &aside).unwrap();
    fs::rename(&aside, root.join("_index.json")).unwrap(); // a new file renamed over the index: the commit
}

/// The regular files below `dir`, as paths relative to its parent (`objects/aa/...`).
fn files_below(dir: &Path, rel: &str, out: &mut Vec<String>) {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(_) => return,
    };
    for entry in entries {
        let entry = entry.unwrap();
        let name = format!("{}/{}", rel, entry.file_name().to_str().unwrap());
        if entry.file_type().unwrap().is_dir() {
            files_below(&entry.path(), &name, out);
        } else if entry.file_type().unwrap().is_file() {
            out.push(name);
        }
    }
}

/// Apply one tamper op to the dist/ at root (`builds`: where a `rebuild` op's builds are).
pub fn tamper(root: &Path, op: &Value, builds: &Path) {
    if op["op"] == "rebuild" {
        rebuild(root, &builds.join(op["build"].as_str().unwrap()), op["prune"] == true);
        return;
    }
    let path = root.join(op["path"].as_str().unwrap());
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    match op["op"].as_str().unwrap() {
        "write" => {
            remove_any(&path);
            let data = match op.get("text") {
                Some(t) => t.as_str().unwrap().as_bytes().to_vec(),
                None => base64_decode(op["base64"].as_str().unwrap()),
            };
            fs::write(&path, data).unwrap();
        }
        "patch" => {
            use std::io::{Seek, SeekFrom, Write};
            let mut f = fs::OpenOptions::new().write(true).open(&path).unwrap();
            f.seek(SeekFrom::Start(op["offset"].as_u64().unwrap())).unwrap();
            f.write_all(&base64_decode(op["base64"].as_str().unwrap())).unwrap();
        }
        "truncate" => {
            fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .unwrap()
                .set_len(op["size"].as_u64().unwrap())
                .unwrap();
        }
        "delete" => remove_any(&path),
        "fifo" => {
            remove_any(&path);
            let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
            // SAFETY: a valid NUL-terminated path.
            assert_eq!(unsafe { mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo {}", path.display());
        }
        "symlink" => {
            remove_any(&path);
            std::os::unix::fs::symlink(op["target"].as_str().unwrap(), &path).unwrap();
        }
        "mkdir" => {
            remove_any(&path);
            fs::create_dir(&path).unwrap();
        }
        other => panic!("unknown tamper op {}", other),
    }
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

pub fn base64_encode(data: &[u8]) -> String {
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | (b as u32) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

pub fn base64_decode(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in text.bytes().filter(|&c| c != b'=') {
        acc = acc << 6 | B64.iter().position(|&b| b == c).expect("base64") as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

pub fn bytes(data: Vec<u8>) -> Value {
    json!({ "base64": base64_encode(&data) })
}
