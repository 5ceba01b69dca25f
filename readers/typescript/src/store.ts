/** Reading dist/'s files: the index, and hash-checked objects (bytes, text, JSON). */

import { checkIndex } from "./checks.js";
import type { IndexDoc } from "./documents.js";
import { FormatError, IntegrityError } from "./errors.js";
import { FileRefused, readRegular } from "./files.js";
import { INDEX, MAX_INDEX_BYTES, objectPath, sha256Hex, VERSION } from "./format.js";
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
  const where = joinPath(root, INDEX);
  let data: Uint8Array;
  try {
    data = readRegular(where, MAX_INDEX_BYTES);
  } catch (err) {
    if (!(err instanceof FileRefused)) throw err;
    if (err.code === "ENOENT") throw new FormatError(`${root}: no ${INDEX} (not a skillc dist directory)`);
    throw new FormatError(`cannot read index: ${err.message}`);
  }
  return checkIndex(documentValue(data, where), where);
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
