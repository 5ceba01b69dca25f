//! Reading dist/ documents: regular files only, bounded, and every JSON document validated
//! before use (index.py). A document that fails is refused whole with `ReaderError::Format`.

use std::path::Path;

use crate::error::ReaderError;
use crate::files::{read_regular, ReadError};
use crate::format::{
    is_lower_hex, is_sha256, node_width, sha256_hex, shard_of, INDEX, MAX_INDEX_BYTES, VERSION,
};
use crate::json::{self, Json, Object};

type Check = Result<(), String>;

pub fn parse_json(data: &[u8], place: &str) -> Result<Json, ReaderError> {
    let text = std::str::from_utf8(data)
        .map_err(|e| ReaderError::Format(format!("{}: not a valid format {} file: {}", place, VERSION, e)))?;
    json::parse(text)
        .map_err(|e| ReaderError::Format(format!("{}: not a valid format {} file: {}", place, VERSION, e)))
}

/// The top-level index of the dist/ at `root`, read and checked.
pub fn read_index(root: &Path) -> Result<Json, ReaderError> {
    let place = root.join(INDEX);
    let shown = place.display();
    let data = read_regular(&place, MAX_INDEX_BYTES).map_err(|e| match e {
        ReadError::NotFound => {
            ReaderError::Format(format!("{}: no {} (not a skillc dist directory)", root.display(), INDEX))
        }
        e => ReaderError::Format(format!("{}: cannot read index: {}", shown, e)),
    })?;
    let doc = parse_json(&data, &shown.to_string())?;
    check_index(&doc, &shown.to_string())?;
    Ok(doc)
}

pub fn integrity(data: Vec<u8>, digest: &str, place: &str) -> Result<Vec<u8>, ReaderError> {
    if sha256_hex(&data) != digest {
        return Err(ReaderError::Integrity(format!(
            "{}: content does not match its sha256 {} (tampered or corrupt)",
            place, digest
        )));
    }
    Ok(data)
}

fn checked(result: Check, place: &str) -> Result<(), ReaderError> {
    result.map_err(|e| ReaderError::Format(format!("{}: malformed: {}", place, e)))
}

fn fail(path: &str, what: &str) -> Check {
    Err(format!("{}: {}", if path.is_empty() { "(root)" } else { path }, what))
}

// -- the shapes of values -------------------------------------------------------------------

/// An object with exactly these keys.
fn dict<'a>(v: &'a Json, path: &str, keys: &[&str]) -> Result<&'a Object, String> {
    let obj = v.as_object().ok_or_else(|| format!("{}: not an object", shown(path)))?;
    if obj.len() != keys.len() || !keys.iter().all(|k| obj.contains(k)) {
        let mut got: Vec<&String> = obj.keys().collect();
        got.sort();
        let mut want = keys.to_vec();
        want.sort_unstable();
        return Err(format!("{}: keys {:?} are not {:?}", shown(path), got, want));
    }
    Ok(obj)
}

fn shown(path: &str) -> &str {
    if path.is_empty() {
        "(root)"
    } else {
        path
    }
}

/// A member every caller has checked is there (`dict` saw the key).
pub fn member<'a>(obj: &'a Object, key: &str) -> &'a Json {
    obj.get(key).unwrap_or(&Json::Null)
}

fn string<'a>(v: &'a Json, path: &str) -> Result<&'a str, String> {
    v.as_str().ok_or_else(|| format!("{}: not a string", shown(path)))
}

fn opt_string(v: &Json, path: &str) -> Check {
    if *v != Json::Null {
        string(v, path)?;
    }
    Ok(())
}

fn boolean(v: &Json, path: &str) -> Check {
    if v.as_bool().is_none() {
        return fail(path, "not a boolean");
    }
    Ok(())
}

fn count(v: &Json, path: &str) -> Check {
    if v.as_count().is_none() {
        return fail(path, "not a non-negative integer");
    }
    Ok(())
}

fn sha(v: &Json, path: &str) -> Check {
    match v.as_str() {
        Some(s) if is_sha256(s) => Ok(()),
        _ => fail(path, "not a sha256"),
    }
}

fn relpath(v: &Json, path: &str) -> Check {
    let s = string(v, path)?;
    if s.is_empty()
        || s.starts_with('/')
        || s.contains('\\')
        || s.contains('\0')
        || s.split('/').any(|p| p == "..")
    {
        return fail(path, &format!("unsafe path {:?}", s));
    }
    Ok(())
}

fn strings<'a>(v: &'a Json, path: &str) -> Result<&'a [Json], String> {
    match v.as_array() {
        Some(items) if items.iter().all(|x| x.as_str().is_some()) => Ok(items),
        _ => Err(format!("{}: not a list of strings", shown(path))),
    }
}

/// A persona id: lowercase ASCII letters and digits in parts joined by `-`.
pub fn is_persona_id(s: &str) -> bool {
    s.split('-').all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
}

fn persona_id(v: &Json, path: &str) -> Check {
    let s = string(v, path)?;
    if !is_persona_id(s) {
        return fail(path, &format!("{:?} is not a persona id", s));
    }
    Ok(())
}

// -- the documents ----------------------------------------------------------------------------

pub fn check_index(doc: &Json, place: &str) -> Result<(), ReaderError> {
    let got = doc.as_object().and_then(|o| o.get("format"));
    if !got.map_or(false, |g| g.equals_int(VERSION)) {
        return Err(ReaderError::Format(format!(
            "{}: dist/ is format {}; this reader reads format {} only (rebuild dist/ with a skillc that \
             writes format {}, or use the reader that came with that build)",
            place,
            got.map_or("None".to_string(), |g| format!("{:?}", g)),
            VERSION,
            VERSION
        )));
    }
    checked(index_shape(doc), place)
}

fn index_shape(doc: &Json) -> Check {
    let d = dict(doc, "", &["format", "generator", "build_hash", "config", "personas", "shards"])?;
    string(member(d, "generator"), "generator")?;
    sha(member(d, "build_hash"), "build_hash")?;
    let c = dict(member(d, "config"), "config", &["sources", "personas", "template", "catalog_chars"])?;
    strings(member(c, "sources"), "config.sources")?;
    opt_string(member(c, "personas"), "config.personas")?;
    string(member(c, "template"), "config.template")?;
    count(member(c, "catalog_chars"), "config.catalog_chars")?;
    let personas = member(d, "personas").as_object().ok_or("personas: not an object")?;
    for (pid, p) in personas.iter() {
        let path = format!("personas.{}", pid);
        persona_id(&Json::Str(pid.clone()), &path)?;
        let e = dict(p, &path, &["prompt", "chars", "meta", "copy"])?;
        sha(member(e, "prompt"), &format!("{}.prompt", path))?;
        sha(member(e, "meta"), &format!("{}.meta", path))?;
        count(member(e, "chars"), &format!("{}.chars", path))?;
        relpath(member(e, "copy"), &format!("{}.copy", path))?;
    }
    sha(member(d, "shards"), "shards")
}

/// One node of the shard table: `shards` (shard name -> shard object) or `tables` (longer
/// prefix -> node), every name its prefix plus two hex digits at the root and one below it.
pub fn check_shard_table(doc: &Json, prefix: &str, place: &str) -> Result<(), ReaderError> {
    checked(shard_table_shape(doc, prefix), place)
}

fn shard_table_shape(doc: &Json, prefix: &str) -> Check {
    let obj = doc.as_object().ok_or("(root): not an object")?;
    let kind = if obj.contains("tables") { "tables" } else { "shards" };
    let d = dict(doc, "", &["format", "prefix", kind])?;
    if !member(d, "format").equals_int(VERSION) || member(d, "prefix").as_str() != Some(prefix) {
        return fail("prefix", &format!("not node {:?} of format {}", prefix, VERSION));
    }
    let entries = member(d, kind).as_object().ok_or_else(|| format!("{}: not an object", kind))?;
    if kind == "tables" && prefix.len() >= 7 {
        return fail(
            "tables",
            &format!("node {:?} is too deep to hold tables (shard names have at most 8 digits)", prefix),
        );
    }
    let width = node_width(prefix);
    for (key, digest) in entries.iter() {
        if key.len() != width || !key.starts_with(prefix) || !is_lower_hex(key) {
            return fail(
                &format!("{}.{}", kind, key),
                &format!("not a name of {} hex digits starting {:?}", width, prefix),
            );
        }
        sha(digest, &format!("{}.{}", kind, key))?;
    }
    Ok(())
}

pub fn check_persona_meta(doc: &Json, pid: &str, place: &str) -> Result<(), ReaderError> {
    checked(persona_meta_shape(doc, pid), place)
}

const PERSONA_META_KEYS: [&str; 13] = [
    "format",
    "id",
    "name",
    "faction",
    "fallback",
    "chain",
    "unrestricted",
    "allowlist",
    "budget",
    "included",
    "left_out",
    "shortened",
    "strategy",
];

fn persona_meta_shape(doc: &Json, pid: &str) -> Check {
    let d = dict(doc, "", &PERSONA_META_KEYS)?;
    if !member(d, "format").equals_int(VERSION) || member(d, "id").as_str() != Some(pid) {
        return fail("id", &format!("not the meta of persona {:?} in format {}", pid, VERSION));
    }
    string(member(d, "name"), "name")?;
    opt_string(member(d, "faction"), "faction")?;
    if *member(d, "fallback") != Json::Null {
        persona_id(member(d, "fallback"), "fallback")?;
    }
    for (i, p) in strings(member(d, "chain"), "chain")?.iter().enumerate() {
        persona_id(p, &format!("chain.{}", i))?;
    }
    boolean(member(d, "unrestricted"), "unrestricted")?;
    if *member(d, "allowlist") != Json::Null {
        strings(member(d, "allowlist"), "allowlist")?;
    }
    count(member(d, "budget"), "budget")?;
    for key in ["included", "left_out", "shortened"] {
        strings(member(d, key), key)?;
    }
    string(member(d, "strategy"), "strategy")?;
    Ok(())
}

/// The shard's envelope: format, name, and every command in it hashing to it. Each skill entry
/// is checked by `check_shard_skill` before it is first served, not with its neighbours.
pub fn check_shard(doc: &Json, name: &str, place: &str) -> Result<(), ReaderError> {
    checked(shard_shape(doc, name), place)
}

fn shard_shape(doc: &Json, name: &str) -> Check {
    let d = dict(doc, "", &["format", "shard", "skills"])?;
    if !member(d, "format").equals_int(VERSION) || member(d, "shard").as_str() != Some(name) {
        return fail("shard", &format!("not shard {:?} of format {}", name, VERSION));
    }
    let skills = member(d, "skills").as_object().ok_or("skills: not an object")?;
    for command in skills.keys() {
        let home = shard_of(command, name.len());
        if home != name {
            return fail(&format!("skills.{}", command), &format!("belongs to shard {:?}", home));
        }
    }
    Ok(())
}

pub fn check_shard_skill(
    entry: &Json,
    command: &str,
    personas: &Object,
    place: &str,
) -> Result<(), ReaderError> {
    checked(skill_shape(entry, &format!("skills.{}", command), personas), place)
}

const SKILL_KEYS: [&str; 11] = [
    "name",
    "description",
    "source",
    "path",
    "frontmatter",
    "body",
    "resources",
    "parent",
    "children",
    "default",
    "exceptions",
];
const STR_LISTS: [&str; 4] = ["allowed-tools", "knowledge", "requires_bins", "requires_env"];

fn skill_shape(entry: &Json, path: &str, personas: &Object) -> Check {
    let s = dict(entry, path, &SKILL_KEYS)?;
    for key in ["name", "description", "source", "path"] {
        string(member(s, key), &format!("{}.{}", path, key))?;
    }
    frontmatter(member(s, "frontmatter"), &format!("{}.frontmatter", path))?;
    sha(member(s, "body"), &format!("{}.body", path))?;
    let resources =
        member(s, "resources").as_array().ok_or_else(|| format!("{}.resources: not a list", path))?;
    for (i, r) in resources.iter().enumerate() {
        let p = format!("{}.resources.{}", path, i);
        let e = dict(r, &p, &["path", "sha256", "size", "executable"])?;
        relpath(member(e, "path"), &format!("{}.path", p))?;
        sha(member(e, "sha256"), &format!("{}.sha256", p))?;
        count(member(e, "size"), &format!("{}.size", p))?;
        boolean(member(e, "executable"), &format!("{}.executable", p))?;
    }
    opt_string(member(s, "parent"), &format!("{}.parent", path))?;
    strings(member(s, "children"), &format!("{}.children", path))?;
    if *member(s, "default") != Json::Null {
        resolution(member(s, "default"), &format!("{}.default", path))?;
    }
    let exceptions =
        member(s, "exceptions").as_object().ok_or_else(|| format!("{}.exceptions: not an object", path))?;
    for (pid, r) in exceptions.iter() {
        let p = format!("{}.exceptions.{}", path, pid);
        if !personas.contains(pid) {
            return fail(&p, "names no persona of the index");
        }
        if *r != Json::Null {
            resolution(r, &p)?;
        }
    }
    Ok(())
}

fn frontmatter(value: &Json, path: &str) -> Check {
    let fm = value.as_object().ok_or_else(|| format!("{}: not an object", path))?;
    for key in STR_LISTS {
        if let Some(v) = fm.get(key) {
            strings(v, &format!("{}.{}", path, key))?;
        }
    }
    for key in ["name", "context", "argument-hint", "agent", "model"] {
        if fm.get(key).map_or(false, |v| v.as_str().is_none()) {
            return fail(&format!("{}.{}", path, key), "not a string");
        }
    }
    Ok(())
}

const ACCESS: [&str; 3] = ["open", "granted", "stub"];

fn resolution(r: &Json, path: &str) -> Check {
    let e = dict(r, path, &["access", "via", "body", "overlay", "model", "user"])?;
    if !member(e, "access").as_str().map_or(false, |a| ACCESS.contains(&a)) {
        return fail(&format!("{}.access", path), &format!("not one of {}", ACCESS.join(", ")));
    }
    opt_string(member(e, "via"), &format!("{}.via", path))?;
    sha(member(e, "body"), &format!("{}.body", path))?;
    opt_string(member(e, "overlay"), &format!("{}.overlay", path))?;
    boolean(member(e, "model"), &format!("{}.model", path))?;
    boolean(member(e, "user"), &format!("{}.user", path))
}
