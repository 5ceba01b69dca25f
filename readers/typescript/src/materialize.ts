/** Writing a resolved skill folder (SKILL.md and its resources) into an empty destination. */

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
  try {
    if (!emptyOrMissing(root))
      throw new ReaderError(`${root}: destination exists and is not an empty directory`);
    mkdirSync(root, { recursive: true });
    writeNew(root, "SKILL.md", skillMdBytes(skillMdHead(skill) + contents.body(root)), false);
    for (const [rel, res] of files) writeNew(root, rel, contents.bytes(res), res.executable);
  } catch (err) {
    if (err instanceof ReaderError) throw err;
    throw new ReaderError(`${root}: cannot write: ${(err as Error).message}`);
  }
  return root;
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
