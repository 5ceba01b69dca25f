/**
 * Writing a resolved skill folder (SKILL.md and its resources) into a destination that is missing or
 * empty; one that holds exactly that skill already (a second activation) is left as it is.
 */

import {
  chmodSync,
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  statSync,
  writeSync,
} from "node:fs";
import { resolve } from "node:path";
import type { ResourceEntry, SkillEntry } from "./documents.js";
import { FormatError, ReaderError } from "./errors.js";
import { LONE_SURROGATE } from "./format.js";
import { FileRefused, readRegular } from "./files.js";
import { joinPath } from "./paths.js";

/** What materializeSkill asks of the Dist: the body for a root, a resource's checked bytes. */
export interface Contents {
  body(root: string): string;
  bytes(res: ResourceEntry): Uint8Array;
}

export function materializeSkill(
  command: string,
  skill: SkillEntry,
  resources: readonly ResourceEntry[],
  dest: string,
  contents: Contents,
): string {
  const root = resolve(dest);
  const files = resources.map((res) => [safeRel(res.path), res] as const);
  if (files.some(([rel]) => rel === "SKILL.md")) {
    throw new FormatError(`corrupt index: a resource of ${JSON.stringify(command)} is named SKILL.md`);
  }
  const skillMd = skillMdBytes(skillMdHead(skill) + contents.body(root)); // before anything is written
  try {
    if (!emptyOrMissing(root)) {
      const wanted = new Map<string, Wanted>([["SKILL.md", { data: skillMd, executable: false }]]);
      for (const [rel, res] of files)
        wanted.set(rel, { data: () => contents.bytes(res), executable: res.executable });
      if (holds(root, wanted)) return root; // this very skill is there already
      throw new ReaderError(`${root}: destination exists and holds something else than this skill`);
    }
    mkdirSync(root, { recursive: true });
    writeNew(root, "SKILL.md", skillMd, false);
    for (const [rel, res] of files) writeNew(root, rel, contents.bytes(res), res.executable);
  } catch (err) {
    if (err instanceof ReaderError) throw err;
    throw new ReaderError(`${root}: cannot write: ${(err as Error).message}`);
  }
  return root;
}

/** A file materialize would write: its bytes (or how to read them) and whether it is executable. */
interface Wanted {
  readonly data: Uint8Array | (() => Uint8Array);
  readonly executable: boolean;
}

/**
 * Whether the folder `root` holds exactly the files `wanted` and the folders their paths need: no
 * other file, folder, link or special file, each file's bytes and owner execute bit as wanted
 * (docs/format.md §7). Walked without following links.
 */
function holds(root: string, wanted: ReadonlyMap<string, Wanted>): boolean {
  const st = lstatSync(root);
  if (!st.isDirectory()) return false;
  const folders = new Set<string>();
  for (const rel of wanted.keys()) {
    const parts = rel.split("/");
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join("/"));
  }
  let found = 0;
  const todo = [""];
  while (todo.length) {
    const dir = todo.pop() as string;
    for (const name of readdirSync(dir ? joinPath(root, ...dir.split("/")) : root)) {
      const rel = dir ? `${dir}/${name}` : name;
      const entry = lstatSync(joinPath(root, ...rel.split("/")));
      if (entry.isDirectory() && folders.has(rel)) todo.push(rel);
      else if (entry.isFile() && wanted.has(rel)) found++;
      else return false;
    }
  }
  if (found !== wanted.size) return false;
  for (const [rel, want] of wanted) {
    const expected = typeof want.data === "function" ? want.data() : want.data;
    let mode = 0;
    let held: Uint8Array;
    try {
      held = readRegular(
        joinPath(root, ...rel.split("/")),
        expected.length,
        false,
        (s) => (mode = Number(s.mode)),
      );
    } catch (err) {
      if (err instanceof FileRefused) return false;
      throw err;
    }
    if (Buffer.compare(held, expected) !== 0 || ((mode & 0o100) !== 0) !== want.executable) return false;
  }
  return true;
}

function emptyOrMissing(root: string): boolean {
  const st = lstatSync(root, { throwIfNoEntry: false });
  return st === undefined || (st.isDirectory() && readdirSync(root).length === 0);
}

/** A resource path from the index, refused unless it stays below the destination. */
function safeRel(rel: unknown): string {
  const bad =
    typeof rel !== "string" ||
    !rel ||
    rel.startsWith("/") ||
    rel.includes("\\") ||
    rel.includes("\0") ||
    rel.split("/").some((p) => p === "" || p === "." || p === "..") ||
    /^[A-Za-z]:/.test(rel); // a drive letter
  if (bad) throw new FormatError(`corrupt index: resource path ${JSON.stringify(rel)}`);
  return rel;
}

/** Create one file below root; every parent is a real directory created here (no symlink to follow). */
function writeNew(root: string, rel: string, data: Uint8Array, executable: boolean): void {
  const parts = rel.split("/");
  let where = root;
  for (const part of parts.slice(0, -1)) {
    where = joinPath(where, part);
    const st = lstatSync(where, { throwIfNoEntry: false });
    if (st === undefined || !st.isDirectory()) mkdirSync(where); // throws if something else is there
  }
  const path = joinPath(root, ...parts);
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  const fd = openSync(path, flags, executable ? 0o777 : 0o666);
  try {
    for (let done = 0; done < data.length;) done += writeSync(fd, data, done);
  } finally {
    closeSync(fd);
  }
  if (executable) chmodSync(path, statSync(path).mode | 0o100); // the umask may have cleared x bits
}

/** The UTF-8 of SKILL.md; an argument holding a lone surrogate has no UTF-8 (TextEncoder would write
 * U+FFFD in its place, the Python reader fails to encode it): refused. */
function skillMdBytes(text: string): Uint8Array {
  if (LONE_SURROGATE.test(text))
    throw new ReaderError("SKILL.md would hold a lone surrogate (from the arguments)");
  return new TextEncoder().encode(text);
}

/** name and description, so the written folder is a skill a harness can load. */
function skillMdHead(skill: SkillEntry): string {
  return `---\nname: ${JSON.stringify(skill.name)}\ndescription: ${JSON.stringify(skill.description)}\n---\n\n`;
}
