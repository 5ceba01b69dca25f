//! Reading dist/ documents: regular files only, bounded, and every JSON document validated
//! before use (index.py). A document that fails is refused whole with `ReaderError::Format`.

use std::collections::{BTreeMap, HashMap};
use std::fs::Metadata;
use std::path::Path;

use crate::available::Needs;
use crate::error::ReaderError;
use crate::files::{read_regular_seen, ReadError};
use crate::format::{
    is_lower_hex, is_sha256, node_width, sha256_hex, shard_of, INDEX, MAX_INDEX_BYTES, VERSION,
};
use crate::json::{self, Json, Object};
use crate::split::{Field, FramePiece, Frames, Piece, Place as SplitPlace, Plan, PlanEntry, Split};

type Check = Result<(), String>;

pub fn parse_json(data: &[u8], place: &str) -> Result<Json, ReaderError> {
    let text = std::str::from_utf8(data)
        .map_err(|e| ReaderError::Format(format!("{}: not a valid format {} file: {}", place, VERSION, e)))?;
    json::parse(text)
        .map_err(|e| ReaderError::Format(format!("{}: not a valid format {} file: {}", place, VERSION, e)))
}

/// An index as read: the document, checked; its bytes; the `fstat` of the file it was read from.
pub struct IndexRead {
    pub doc: Json,
    pub data: Vec<u8>,
    pub meta: Metadata,
}

/// The top-level index of the dist/ at `root`, read and checked.
pub fn read_index(root: &Path) -> Result<Json, ReaderError> {
    Ok(index_at(root, false)?.expect("a missing index is an error unless missing_ok").doc)
}

/// The index of the dist/ at `root`, read and checked (`Format` otherwise). A missing one
/// (ENOENT) is None with `missing_ok` (an optional tier that is absent).
pub fn index_at(root: &Path, missing_ok: bool) -> Result<Option<IndexRead>, ReaderError> {
    let place = root.join(INDEX);
    let shown = place.display();
    let (data, meta) = match read_regular_seen(&place, MAX_INDEX_BYTES) {
        Ok(read) => read,
        Err(ReadError::NotFound) if missing_ok => return Ok(None),
        Err(ReadError::NotFound) => {
            return Err(ReaderError::Format(format!(
                "{}: no {} (not a skillc dist directory)",
                root.display(),
                INDEX
            )))
        }
        Err(e) => return Err(ReaderError::Format(format!("{}: cannot read index: {}", shown, e))),
    };
    let doc = parse_json(&data, &shown.to_string())?;
    check_index(&doc, &shown.to_string())?;
    Ok(Some(IndexRead { doc, data, meta }))
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

const INDEX_KEYS: [&str; 10] = [
    "format",
    "generator",
    "build_hash",
    "config",
    "personas",
    "shards",
    "split",
    "requires",
    "personas_hash",
    "knowledge",
];

fn index_shape(doc: &Json) -> Check {
    let d = dict(doc, "", &INDEX_KEYS)?;
    string(member(d, "generator"), "generator")?;
    sha(member(d, "build_hash"), "build_hash")?;
    let c = dict(
        member(d, "config"),
        "config",
        &["sources", "personas", "template", "catalog_chars", "priority"],
    )?;
    strings(member(c, "sources"), "config.sources")?;
    opt_string(member(c, "personas"), "config.personas")?;
    string(member(c, "template"), "config.template")?;
    count(member(c, "catalog_chars"), "config.catalog_chars")?;
    strings(member(c, "priority"), "config.priority")?;
    let personas = member(d, "personas").as_object().ok_or("personas: not an object")?;
    for (pid, p) in personas.iter() {
        let path = format!("personas.{}", pid);
        persona_id(&Json::Str(pid.clone()), &path)?;
        let e = dict(p, &path, &["prompt", "chars", "meta", "copy", "plan"])?;
        sha(member(e, "prompt"), &format!("{}.prompt", path))?;
        sha(member(e, "meta"), &format!("{}.meta", path))?;
        count(member(e, "chars"), &format!("{}.chars", path))?;
        relpath(member(e, "copy"), &format!("{}.copy", path))?;
        opt_sha(member(e, "plan"), &format!("{}.plan", path))?;
    }
    sha(member(d, "shards"), "shards")?;
    for key in ["split", "requires", "personas_hash"] {
        opt_sha(member(d, key), key)?;
    }
    if *member(d, "knowledge") != Json::Null {
        let k = dict(member(d, "knowledge"), "knowledge", &["folder", "titles"])?;
        string(member(k, "folder"), "knowledge.folder")?;
        let titles = member(k, "titles").as_object().ok_or("knowledge.titles: not an object")?;
        for (name, title) in titles.iter() {
            string(title, &format!("knowledge.titles.{}", name))?;
        }
    }
    Ok(())
}

fn opt_sha(v: &Json, path: &str) -> Check {
    if *v != Json::Null {
        sha(v, path)?;
    }
    Ok(())
}

fn format_is_ours(v: &Json, path: &str) -> Check {
    if !v.equals_int(VERSION) {
        return fail(path, &format!("not format {}", VERSION));
    }
    Ok(())
}

/// The catalog template's split (§4.5): entry patterns, and frames for exactly the index's
/// personas.
pub fn check_split(doc: &Json, personas: &Object, place: &str) -> Result<Split, ReaderError> {
    split_shape(doc, personas).map_err(|e| ReaderError::Format(format!("{}: malformed: {}", place, e)))
}

fn split_shape(doc: &Json, personas: &Object) -> Result<Split, String> {
    let d = dict(doc, "", &["format", "markup", "entry", "always", "frames"])?;
    format_is_ours(member(d, "format"), "format")?;
    boolean(member(d, "markup"), "markup")?;
    let entry = pattern(member(d, "entry"), "entry")?;
    let always = pattern(member(d, "always"), "always")?;
    let frames = member(d, "frames").as_object();
    let frames = match frames {
        Some(f) if f.len() == personas.len() && f.keys().all(|k| personas.contains(k)) => f,
        _ => return Err("frames: not an object keyed by the index's personas".to_string()),
    };
    let mut out = HashMap::new();
    for (pid, f) in frames.iter() {
        out.insert(pid.clone(), if *f == Json::Null { None } else { Some(persona_frames(f, pid)?) });
    }
    Ok(Split { markup: member(d, "markup") == &Json::Bool(true), entry, always, frames: out })
}

fn persona_frames(f: &Json, pid: &str) -> Result<Frames, String> {
    let path = format!("frames.{}", pid);
    let f = dict(f, &path, &["none", "one", "many"])?;
    let pair = |key: &str| -> Result<&[Json], String> {
        match member(f, key).as_array() {
            Some(pair) if pair.len() == 2 => Ok(pair),
            _ => Err(format!("{}.{}: not a pair", path, key)),
        }
    };
    let texts = |key: &str| -> Result<(String, String), String> {
        let pair = pair(key)?;
        let part = |i: usize| string(&pair[i], &format!("{}.{}.{}", path, key, i)).map(str::to_string);
        Ok((part(0)?, part(1)?))
    };
    let (none, one) = (texts("none")?, texts("one")?);
    let many = pair("many")?;
    let part = |i: usize| frame_pattern(&many[i], &format!("{}.many.{}", path, i));
    Ok(Frames { none, one, many: (part(0)?, part(1)?) })
}

/// An entry pattern: fixed text (a string) and fields (`{"field", "lines"}`).
fn pattern(v: &Json, path: &str) -> Result<Vec<Piece>, String> {
    let items = v.as_array().ok_or_else(|| format!("{}: not a list", path))?;
    let mut out = Vec::new();
    for (i, piece) in items.iter().enumerate() {
        if let Some(text) = piece.as_str() {
            out.push(Piece::Text(text.to_string()));
            continue;
        }
        let p = format!("{}.{}", path, i);
        let e = dict(piece, &p, &["field", "lines"])?;
        let field = member(e, "field").as_str().and_then(Field::named);
        let field =
            field.ok_or_else(|| format!("{}.field: not one of command, name, description, location", p))?;
        boolean(member(e, "lines"), &format!("{}.lines", p))?;
        out.push(Piece::Field { field, lines: member(e, "lines") == &Json::Bool(true) });
    }
    Ok(out)
}

/// A frame pattern: fixed text (a string) and the number left out (`{"field": "omitted"}`).
fn frame_pattern(v: &Json, path: &str) -> Result<Vec<FramePiece>, String> {
    let items = v.as_array().ok_or_else(|| format!("{}: not a list", path))?;
    let mut out = Vec::new();
    for (i, piece) in items.iter().enumerate() {
        if let Some(text) = piece.as_str() {
            out.push(FramePiece::Text(text.to_string()));
            continue;
        }
        let p = format!("{}.{}", path, i);
        let e = dict(piece, &p, &["field"])?;
        if member(e, "field").as_str() != Some("omitted") {
            return Err(format!("{}.field: not one of omitted", p));
        }
        out.push(FramePiece::Omitted);
    }
    Ok(out)
}

/// A persona's plan (§4.6); its places are held to the catalog's text where it is used
/// (split::places_fit).
pub fn check_plan(doc: &Json, pid: &str, place: &str) -> Result<Plan, ReaderError> {
    plan_shape(doc, pid).map_err(|e| ReaderError::Format(format!("{}: malformed: {}", place, e)))
}

fn plan_shape(doc: &Json, pid: &str) -> Result<Plan, String> {
    let d = dict(doc, "", &["format", "persona", "markup", "entries"])?;
    if !member(d, "format").equals_int(VERSION) || member(d, "persona").as_str() != Some(pid) {
        return Err(format!("persona: not the plan of persona {:?} in format {}", pid, VERSION));
    }
    boolean(member(d, "markup"), "markup")?;
    let entries = member(d, "entries").as_array().ok_or("entries: not a list")?;
    let mut out = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let p = format!("entries.{}", i);
        let e = dict(entry, &p, &["command", "start", "end", "locations"])?;
        let command = string(member(e, "command"), &format!("{}.command", p))?.to_string();
        count(member(e, "start"), &format!("{}.start", p))?;
        count(member(e, "end"), &format!("{}.end", p))?;
        let at = member(e, "locations").as_array().ok_or_else(|| format!("{}.locations: not a list", p))?;
        let mut locations = Vec::new();
        for (j, loc) in at.iter().enumerate() {
            let q = format!("{}.locations.{}", p, j);
            let l = dict(loc, &q, &["at", "lines"])?;
            count(member(l, "at"), &format!("{}.at", q))?;
            boolean(member(l, "lines"), &format!("{}.lines", q))?;
            locations.push(SplitPlace {
                at: member(l, "at").as_count().unwrap_or(0),
                lines: member(l, "lines") == &Json::Bool(true),
            });
        }
        let start = member(e, "start").as_count().unwrap_or(0);
        let end = member(e, "end").as_count().unwrap_or(0);
        out.push(PlanEntry { command, start, end, locations });
    }
    Ok(Plan { markup: member(d, "markup") == &Json::Bool(true), entries: out })
}

/// The skills' requirements (§4.7), by command.
pub fn check_requires(doc: &Json, place: &str) -> Result<BTreeMap<String, Needs>, ReaderError> {
    requires_shape(doc).map_err(|e| ReaderError::Format(format!("{}: malformed: {}", place, e)))
}

fn requires_shape(doc: &Json) -> Result<BTreeMap<String, Needs>, String> {
    let d = dict(doc, "", &["format", "requires"])?;
    format_is_ours(member(d, "format"), "format")?;
    let requires = member(d, "requires").as_object().ok_or("requires: not an object")?;
    let mut out = BTreeMap::new();
    for (command, needs) in requires.iter() {
        let p = format!("requires.{}", command);
        let e = dict(needs, &p, &["bins", "env"])?;
        let list = |key: &str| -> Result<Vec<String>, String> {
            let items = strings(member(e, key), &format!("{}.{}", p, key))?;
            Ok(items.iter().filter_map(Json::as_str).map(str::to_string).collect())
        };
        out.insert(command.clone(), Needs { bins: list("bins")?, env: list("env")? });
    }
    Ok(out)
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
