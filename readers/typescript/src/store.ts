/** Reading dist/'s files: the index, and hash-checked objects (bytes, text, JSON). */

import type { BigIntStats } from "node:fs";
import { checkIndex } from "./checks.js";
import type { IndexDoc } from "./documents.js";
import { DistRebuilt, FormatError, IntegrityError } from "./errors.js";
import { FileRefused, readRegular } from "./files.js";
import { INDEX, MAX_INDEX_BYTES, MAX_OBJECT_BYTES, objectPath, sha256Hex, VERSION } from "./format.js";
import { parseJson } from "./json.js";
import type { JsonValue } from "./jsonvalue.js";
import { joinPath } from "./paths.js";

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }); // a BOM is a character, as in Python

/** Strict UTF-8 text, or null when the bytes are not UTF-8. */
export function utf8(data: Uint8Array): string | null {
  try {
    return UTF8.decode(data);
  } catch {
    return null;
  }
}

/** A JSON document's value; FormatError when it is not UTF-8 or not the JSON the format accepts. */
export function documentValue(data: Uint8Array, where: string): JsonValue {
  const text = utf8(data);
  if (text === null) throw new FormatError(`${where}: not a valid format ${VERSION} file: not UTF-8`);
  try {
    return parseJson(text);
  } catch (err) {
    throw new FormatError(`${where}: not a valid format ${VERSION} file: ${(err as Error).message}`);
  }
}

export function readIndex(root: string): IndexDoc {
  return (indexAt(root, false) as FoundIndex).doc;
}

/** An index read and checked: its document, its bytes, and the identity of the file read. */
export interface FoundIndex {
  readonly doc: IndexDoc;
  readonly data: Uint8Array;
  readonly identity: string;
}

/** The index in `root`, checked (FormatError otherwise), with its bytes and the identity of the file
 * read; null for a missing one (ENOENT) when `missingOk` (an optional tier that is absent). */
export function indexAt(root: string, missingOk: boolean): FoundIndex | null {
  const where = joinPath(root, INDEX);
  let data: Uint8Array;
  let identity = "";
  try {
    data = readRegular(where, MAX_INDEX_BYTES, true, (st) => (identity = identityOf(st)));
  } catch (err) {
    if (!(err instanceof FileRefused)) throw err;
    if (err.code === "ENOENT") {
      if (missingOk) return null;
      throw new FormatError(`${root}: no ${INDEX} (not a skillc dist directory)`);
    }
    throw new FormatError(`cannot read index: ${err.message}`);
  }
  return { doc: checkIndex(documentValue(data, where), where), data, identity };
}

/** What a handle compares to notice a new index without reading it (docs/format.md §6.4): device,
 * inode, size, modification and change times (ns) of the file. */
export function identityOf(st: BigIntStats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

/** The path of an object below root. */
export function objectFile(root: string, digest: string): string {
  return joinPath(root, ...objectPath(digest).split("/"));
}

/** The bytes of an object whose file was read, refused unless they hash to its name. */
export function integrity(data: Uint8Array, digest: string, where: string): Uint8Array {
  if (sha256Hex(data) !== digest) {
    throw new IntegrityError(`${where}: content does not match its sha256 ${digest} (tampered or corrupt)`);
  }
  return data;
}

/** The objects of one build: read by digest, bounded, hash-checked before use. */
export class Objects {
  readonly root: string;
  readonly buildHash: string;

  constructor(root: string, buildHash: string) {
    this.root = root;
    this.buildHash = buildHash;
  }

  bytes(digest: string, limit: number = MAX_OBJECT_BYTES): Uint8Array {
    const where = objectFile(this.root, digest);
    let data: Uint8Array;
    try {
      data = readRegular(where, limit);
    } catch (err) {
      if (!(err instanceof FileRefused)) throw err;
      if (err.code === "ENOENT") {
        this.#raiseIfRebuilt(where);
        throw new IntegrityError(`${where}: missing (dist/ is incomplete; rebuild it)`);
      }
      throw new IntegrityError(`cannot read object: ${err.message}`);
    }
    return integrity(data, digest, where);
  }

  text(digest: string): string {
    const text = utf8(this.bytes(digest));
    if (text === null) throw new FormatError(`object ${digest}: not UTF-8 text`);
    return text;
  }

  json(digest: string): JsonValue {
    return documentValue(this.bytes(digest, MAX_INDEX_BYTES), `object ${digest}`);
  }

  /** A missing object: DistRebuilt when _index.json now names another build (its objects pruned
   * during the call); this re-read changes nothing the handle serves. */
  #raiseIfRebuilt(where: string): void {
    let now: string;
    try {
      now = readIndex(this.root).build_hash;
    } catch (err) {
      if (err instanceof FormatError) return; // no readable index: the object is just missing
      throw err;
    }
    if (now !== this.buildHash) {
      throw new DistRebuilt(
        `${where}: ${this.root} was rebuilt during the call (build ${this.buildHash.slice(0, 12)} -> ` +
          `${now.slice(0, 12)}) and this call's build's objects were pruned; the next call answers from the new build`,
      );
    }
  }
}
