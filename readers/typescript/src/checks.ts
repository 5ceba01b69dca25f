/**
 * The reader's checks of format 3's JSON documents (the Python reader's format/documents.py, rule
 * for rule; docs/format.md §4).
 * A document that fails them is refused whole with FormatError: nothing is served from a document
 * the reader has not checked.
 */

import type {
  IndexDoc,
  Needs,
  PersonaMetaDoc,
  PlanDoc,
  ShardDoc,
  SkillEntry,
  SplitDoc,
  TableNode,
} from "./documents.js";
import { FormatError } from "./errors.js";
import { MAX_TABLE_DEPTH, nodeWidth, shardOf, VERSION } from "./format.js";
import { JsonFloat, type JsonObject, type JsonValue } from "./jsonvalue.js";

/** Where a document first breaks its shape; turned into FormatError with the document's name. */
class Bad extends Error {}

function fail(path: string, what: string): never {
  throw new Bad(`${path || "(root)"}: ${what}`);
}

function checked(where: string, check: () => void): void {
  try {
    check();
  } catch (err) {
    if (err instanceof Bad) throw new FormatError(`${where}: malformed: ${err.message}`);
    throw err;
  }
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof JsonFloat);
}

/** The integer 3 itself: not 3.0, not true. */
function isVersion(v: JsonValue | undefined): boolean {
  return v === VERSION;
}

/** Whether v is an object of exactly these keys. It allocates nothing, and neither do the other
 * tests (`is...`): they run on every entry of every document a cold start reads, and a path for the
 * message is made only when a test fails. */
function hasKeys(v: JsonValue | undefined, keys: readonly string[]): v is JsonObject {
  if (!isObject(v)) return false;
  let n = 0;
  for (const k in v) if (Object.prototype.hasOwnProperty.call(v, k)) n++;
  if (n !== keys.length) return false;
  for (let i = 0; i < keys.length; i++)
    if (!Object.prototype.hasOwnProperty.call(v, keys[i] as string)) return false;
  return true;
}

function dict(v: JsonValue | undefined, path: string, keys: readonly string[]): JsonObject {
  if (hasKeys(v, keys)) return v;
  if (!isObject(v)) return fail(path, "not an object");
  return fail(
    path,
    `keys ${JSON.stringify(Object.keys(v).sort())} are not ${JSON.stringify([...keys].sort())}`,
  );
}

function str(v: JsonValue | undefined, path: string): string {
  if (typeof v !== "string") return fail(path, "not a string");
  return v;
}

function optStr(v: JsonValue | undefined, path: string): void {
  if (v !== null) str(v, path);
}

function bool(v: JsonValue | undefined, path: string): void {
  if (typeof v !== "boolean") fail(path, "not a boolean");
}

/** A non-negative integer: a float (even 1.0) and a boolean are refused. */
function isCount(v: JsonValue | undefined): boolean {
  return (typeof v === "number" || typeof v === "bigint") && v >= 0;
}

function int(v: JsonValue | undefined, path: string): void {
  if (!isCount(v)) fail(path, "not a non-negative integer");
}

const HEX = /^[0-9a-f]*$/;

function isSha(v: JsonValue | undefined): boolean {
  return typeof v === "string" && v.length === 64 && HEX.test(v);
}

function sha(v: JsonValue | undefined, path: string): void {
  if (!isSha(v)) fail(path, "not a sha256");
}

/** A relpath: not empty, not absolute, no `\\`, no NUL, no `..` segment. */
function isRelpath(v: JsonValue | undefined): boolean {
  if (typeof v !== "string" || !v || v.startsWith("/") || v.includes("\\") || v.includes("\0")) return false;
  for (let at = v.indexOf(".."); at >= 0; at = v.indexOf("..", at + 1)) {
    if ((at === 0 || v[at - 1] === "/") && (at + 2 === v.length || v[at + 2] === "/")) return false;
  }
  return true;
}

function relpath(v: JsonValue | undefined, path: string): void {
  const s = str(v, path);
  if (!isRelpath(s)) fail(path, `unsafe path ${JSON.stringify(s)}`);
}

function isStrs(v: JsonValue | undefined): v is string[] {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== "string") return false;
  return true;
}

function strs(v: JsonValue | undefined, path: string): string[] {
  if (!isStrs(v)) return fail(path, "not a list of strings");
  return v;
}

const PERSONA_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

function id(v: JsonValue | undefined, path: string): void {
  const s = str(v, path);
  if (!PERSONA_ID.test(s)) fail(path, `${JSON.stringify(s)} is not a persona id`);
}

// -- _index.json ------------------------------------------------------------------------------

export function checkIndex(doc: JsonValue, where: string): IndexDoc {
  const got = isObject(doc) ? doc["format"] : undefined;
  if (!isVersion(got)) {
    throw new FormatError(
      `${where}: dist/ is format ${JSON.stringify(got ?? null)}; this reader reads format ${VERSION} only ` +
        `(rebuild dist/ with a skillc that writes format ${VERSION})`,
    );
  }
  checked(where, () => indexShape(doc));
  return doc as unknown as IndexDoc;
}

const INDEX_KEYS = [
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
] as const;

function indexShape(doc: JsonValue): void {
  const d = dict(doc, "", INDEX_KEYS);
  str(d["generator"], "generator");
  sha(d["build_hash"], "build_hash");
  const c = dict(d["config"], "config", ["sources", "personas", "template", "catalog_chars", "priority"]);
  strs(c["sources"], "config.sources");
  optStr(c["personas"], "config.personas");
  str(c["template"], "config.template");
  int(c["catalog_chars"], "config.catalog_chars");
  strs(c["priority"], "config.priority");
  const personas = d["personas"];
  if (!isObject(personas)) return fail("personas", "not an object");
  for (const pid in personas) {
    if (!Object.prototype.hasOwnProperty.call(personas, pid)) continue;
    const p = personas[pid];
    if (!(PERSONA_ID.test(pid) && hasKeys(p, PERSONA_KEYS) && personaEntry(p))) personaShape(pid, p);
  }
  sha(d["shards"], "shards");
  for (const key of ["split", "requires", "personas_hash"]) optSha(d[key], key);
  if (d["knowledge"] !== null) {
    const k = dict(d["knowledge"], "knowledge", ["folder", "titles"]);
    str(k["folder"], "knowledge.folder");
    const titles = k["titles"];
    if (!isObject(titles)) return fail("knowledge.titles", "not an object");
    for (const [name, title] of Object.entries(titles)) str(title, `knowledge.titles.${name}`);
  }
}

const PERSONA_KEYS = ["prompt", "chars", "meta", "copy", "plan"];

/** Whether an index's persona entry is well formed (personaShape says where it is not). */
function personaEntry(e: JsonObject): boolean {
  return (
    isSha(e["prompt"]) &&
    isSha(e["meta"]) &&
    isCount(e["chars"]) &&
    isRelpath(e["copy"]) &&
    (e["plan"] === null || isSha(e["plan"]))
  );
}

function personaShape(pid: string, p: JsonValue | undefined): void {
  id(pid, `personas.${pid}`);
  const e = dict(p, `personas.${pid}`, PERSONA_KEYS);
  sha(e["prompt"], `personas.${pid}.prompt`);
  sha(e["meta"], `personas.${pid}.meta`);
  int(e["chars"], `personas.${pid}.chars`);
  relpath(e["copy"], `personas.${pid}.copy`);
  optSha(e["plan"], `personas.${pid}.plan`);
}

function optSha(v: JsonValue | undefined, path: string): void {
  if (v !== null) sha(v, path);
}

// -- the split, plans, requirements (docs/format.md §4.5-§4.7) --------------------------------

const FIELDS = ["command", "name", "label", "description", "location"];
const OMITTED = ["omitted"];

/** The catalog template's split: entry patterns, and frames for exactly the index's personas. */
export function checkSplit(doc: JsonValue, personas: object, where: string): SplitDoc {
  checked(where, () => {
    const d = dict(doc, "", ["format", "markup", "entry", "always", "frames"]);
    if (!isVersion(d["format"])) fail("format", `not format ${VERSION}`);
    bool(d["markup"], "markup");
    pattern(d["entry"], "entry", FIELDS);
    pattern(d["always"], "always", FIELDS);
    const frames = d["frames"];
    const ids = Object.keys(personas);
    if (
      !isObject(frames) ||
      Object.keys(frames).length !== ids.length ||
      !ids.every((pid) => Object.prototype.hasOwnProperty.call(frames, pid))
    ) {
      return fail("frames", "not an object keyed by the index's personas");
    }
    for (const [pid, f] of Object.entries(frames)) {
      if (f === null) continue;
      const e = dict(f, `frames.${pid}`, ["none", "one", "many"]);
      for (const key of ["none", "one", "many"]) {
        const pair = e[key];
        if (!Array.isArray(pair) || pair.length !== 2) fail(`frames.${pid}.${key}`, "not a pair");
        (pair as JsonValue[]).forEach((part, i) => {
          if (key === "many") pattern(part, `frames.${pid}.many.${i}`, OMITTED);
          else str(part, `frames.${pid}.${key}.${i}`);
        });
      }
    }
  });
  return doc as unknown as SplitDoc;
}

/** Fixed text (a string) and fields: an entry's `{field, lines}`, a frame's `{field}`. */
function pattern(v: JsonValue | undefined, path: string, fields: readonly string[]): void {
  if (!Array.isArray(v)) return fail(path, "not a list");
  const keys = fields === OMITTED ? ["field"] : ["field", "lines"];
  v.forEach((piece, i) => {
    if (typeof piece === "string") return;
    const e = dict(piece, `${path}.${i}`, keys);
    if (typeof e["field"] !== "string" || !fields.includes(e["field"])) {
      fail(`${path}.${i}.field`, `not one of ${fields.join(", ")}`);
    }
    if (keys.length === 2) bool(e["lines"], `${path}.${i}.lines`);
  });
}

/** A persona's plan; its places are held to the catalog's text by checkPlaces where it is used. */
export function checkPlan(doc: JsonValue, pid: string, where: string): PlanDoc {
  checked(where, () => {
    const d = dict(doc, "", ["format", "persona", "markup", "entries"]);
    if (!isVersion(d["format"]) || d["persona"] !== pid) {
      fail("persona", `not the plan of persona ${JSON.stringify(pid)} in format ${VERSION}`);
    }
    bool(d["markup"], "markup");
    const entries = d["entries"];
    if (!Array.isArray(entries)) return fail("entries", "not a list");
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i];
      if (!(hasKeys(e, PLAN_ENTRY_KEYS) && planEntry(e))) planEntryShape(e, i);
    }
  });
  return doc as unknown as PlanDoc;
}

const PLAN_ENTRY_KEYS = ["command", "start", "end", "locations"];
const PLACE_KEYS = ["at", "lines"];

/** Whether a plan entry is well formed (planEntryShape says where it is not). */
function planEntry(e: JsonObject): boolean {
  const locations = e["locations"];
  if (!(
    typeof e["command"] === "string" &&
    isCount(e["start"]) &&
    isCount(e["end"]) &&
    Array.isArray(locations)
  )) {
    return false;
  }
  for (let j = 0; j < locations.length; j++) {
    const at = locations[j];
    if (!(hasKeys(at, PLACE_KEYS) && isCount(at["at"]) && typeof at["lines"] === "boolean")) return false;
  }
  return true;
}

function planEntryShape(entry: JsonValue | undefined, i: number): void {
  const e = dict(entry, `entries.${i}`, PLAN_ENTRY_KEYS);
  str(e["command"], `entries.${i}.command`);
  int(e["start"], `entries.${i}.start`);
  int(e["end"], `entries.${i}.end`);
  const locations = e["locations"];
  if (!Array.isArray(locations)) return fail(`entries.${i}.locations`, "not a list");
  locations.forEach((place, j) => {
    const at = dict(place, `entries.${i}.locations.${j}`, PLACE_KEYS);
    int(at["at"], `entries.${i}.locations.${j}.at`);
    bool(at["lines"], `entries.${i}.locations.${j}.lines`);
  });
}

/** A plan's places against its catalog of `length` code points: each entry within it, after the one
 * before, and each location within its entry, after the one before. */
export function checkPlaces(plan: PlanDoc, length: number, where: string): void {
  let last = 0;
  plan.entries.forEach((e, i) => {
    const [start, end] = [Number(e.start), Number(e.end)]; // a bigint is beyond any catalog
    if (!(last <= start && start <= end && end <= length)) {
      throw new FormatError(`${where}: malformed: entries.${i}: not within the catalog after entry ${i - 1}`);
    }
    let at = start;
    for (const place of e.locations) {
      const here = Number(place.at);
      if (!(at <= here && here <= end)) {
        throw new FormatError(`${where}: malformed: entries.${i}: a location outside its entry`);
      }
      at = here;
    }
    last = end;
  });
}

const NEEDS_KEYS = ["bins", "env"];

/** The skills' requirements: by command, the programs and variables each needs. */
export function checkRequires(doc: JsonValue, where: string): Record<string, Needs> {
  checked(where, () => {
    const d = dict(doc, "", ["format", "requires"]);
    if (!isVersion(d["format"])) fail("format", `not format ${VERSION}`);
    const requires = d["requires"];
    if (!isObject(requires)) return fail("requires", "not an object");
    for (const command in requires) {
      if (!Object.prototype.hasOwnProperty.call(requires, command)) continue;
      const needs = requires[command];
      if (hasKeys(needs, NEEDS_KEYS) && isStrs(needs["bins"]) && isStrs(needs["env"])) continue;
      const e = dict(needs, `requires.${command}`, NEEDS_KEYS);
      strs(e["bins"], `requires.${command}.bins`);
      strs(e["env"], `requires.${command}.env`);
    }
  });
  return (doc as unknown as { requires: Record<string, Needs> }).requires;
}

// -- the shard table, shards, persona metas ---------------------------------------------------

/** One node of the shard table: every name its prefix plus two hex digits at the root, one below. */
export function checkShardTable(doc: JsonValue, prefix: string, where: string): TableNode {
  checked(where, () => {
    if (!isObject(doc)) fail("", "not an object");
    const kind = Object.prototype.hasOwnProperty.call(doc, "tables") ? "tables" : "shards";
    dict(doc, "", ["format", "prefix", kind]);
    if (kind === "tables" && prefix.length >= MAX_TABLE_DEPTH - 1) {
      fail("tables", `node ${JSON.stringify(prefix)} is too deep to hold tables`); // shard names have at most 8 digits
    }
    if (!isVersion(doc["format"]) || doc["prefix"] !== prefix) {
      fail("prefix", `not node ${JSON.stringify(prefix)} of format ${VERSION}`);
    }
    const entries = doc[kind];
    if (!isObject(entries)) return fail(kind, "not an object");
    const width = nodeWidth(prefix);
    for (const [key, digest] of Object.entries(entries)) {
      if (key.length !== width || !key.startsWith(prefix) || !HEX.test(key)) {
        fail(`${kind}.${key}`, `not a name of ${width} hex digits starting ${JSON.stringify(prefix)}`);
      }
      sha(digest, `${kind}.${key}`);
    }
  });
  return doc as unknown as TableNode;
}

export function checkPersonaMeta(doc: JsonValue, pid: string, where: string): PersonaMetaDoc {
  checked(where, () => {
    const d = dict(doc, "", PERSONA_META_KEYS);
    if (!isVersion(d["format"]) || d["id"] !== pid) {
      fail("id", `not the meta of persona ${JSON.stringify(pid)} in format ${VERSION}`);
    }
    str(d["name"], "name");
    optStr(d["faction"], "faction");
    if (d["fallback"] !== null) id(d["fallback"], "fallback");
    strs(d["chain"], "chain").forEach((p, i) => id(p, `chain.${i}`));
    bool(d["unrestricted"], "unrestricted");
    if (d["allowlist"] !== null) strs(d["allowlist"], "allowlist");
    int(d["budget"], "budget");
    strs(d["included"], "included");
    strs(d["left_out"], "left_out");
    strs(d["shortened"], "shortened");
    str(d["strategy"], "strategy");
  });
  return doc as unknown as PersonaMetaDoc;
}

const PERSONA_META_KEYS = [
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
] as const;

/** A shard's envelope: format, name, and every command in it hashing to it. Each skill entry is
 * checked by checkShardSkill before it is first served, not the hundreds beside it. */
export function checkShard(doc: JsonValue, name: string, where: string): ShardDoc {
  checked(where, () => {
    const d = dict(doc, "", ["format", "shard", "skills"]);
    if (!isVersion(d["format"]) || d["shard"] !== name) {
      fail("shard", `not shard ${JSON.stringify(name)} of format ${VERSION}`);
    }
    const skills = d["skills"];
    if (!isObject(skills)) return fail("skills", "not an object");
    for (const command of Object.keys(skills)) {
      const home = shardOf(command, name.length);
      if (home !== name) fail(`skills.${command}`, `belongs to shard ${JSON.stringify(home)}`);
    }
  });
  return doc as unknown as ShardDoc;
}

// -- skill entries ----------------------------------------------------------------------------

export function checkShardSkill(
  entry: JsonValue,
  command: string,
  personas: object,
  where: string,
): SkillEntry {
  checked(where, () => skill(entry, `skills.${command}`, personas));
  return entry as unknown as SkillEntry;
}

const SKILL_KEYS = [
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
] as const;

function skill(entry: JsonValue, path: string, personas: object): void {
  const s = dict(entry, path, SKILL_KEYS);
  for (const key of ["name", "description", "source", "path"]) str(s[key], `${path}.${key}`);
  frontmatter(s["frontmatter"], `${path}.frontmatter`);
  sha(s["body"], `${path}.body`);
  const resources = s["resources"];
  if (!Array.isArray(resources)) return fail(`${path}.resources`, "not a list");
  resources.forEach((r, i) => {
    const e = dict(r, `${path}.resources.${i}`, ["path", "sha256", "size", "executable"]);
    relpath(e["path"], `${path}.resources.${i}.path`);
    sha(e["sha256"], `${path}.resources.${i}.sha256`);
    int(e["size"], `${path}.resources.${i}.size`);
    bool(e["executable"], `${path}.resources.${i}.executable`);
  });
  optStr(s["parent"], `${path}.parent`);
  strs(s["children"], `${path}.children`);
  if (s["default"] !== null) resolution(s["default"], `${path}.default`);
  const exceptions = s["exceptions"];
  if (!isObject(exceptions)) return fail(`${path}.exceptions`, "not an object");
  for (const [pid, r] of Object.entries(exceptions)) {
    if (!Object.prototype.hasOwnProperty.call(personas, pid)) {
      fail(`${path}.exceptions.${pid}`, "names no persona of the index");
    }
    if (r !== null) resolution(r, `${path}.exceptions.${pid}`);
  }
}

const STR_LISTS = ["allowed-tools", "knowledge", "requires_bins", "requires_env"];
const STRINGS = ["name", "context", "argument-hint", "agent", "model"];

function frontmatter(fm: JsonValue | undefined, path: string): void {
  if (!isObject(fm)) return fail(path, "not an object");
  for (const key of STR_LISTS) if (key in fm) strs(fm[key], `${path}.${key}`);
  for (const key of STRINGS)
    if (key in fm && typeof fm[key] !== "string") fail(`${path}.${key}`, "not a string");
}

const ACCESS = ["open", "granted", "stub"];

function resolution(r: JsonValue | undefined, path: string): void {
  const e = dict(r, path, ["access", "via", "body", "overlay", "model", "user"]);
  if (typeof e["access"] !== "string" || !ACCESS.includes(e["access"])) {
    fail(`${path}.access`, `not one of ${ACCESS.join(", ")}`);
  }
  optStr(e["via"], `${path}.via`);
  sha(e["body"], `${path}.body`);
  optStr(e["overlay"], `${path}.overlay`);
  bool(e["model"], `${path}.model`);
  bool(e["user"], `${path}.user`);
}
