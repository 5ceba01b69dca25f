/** Format 3 of dist/: its version, layout, object paths and size bounds (the Python reader's format.py). */

import * as crypto from "node:crypto";

export const VERSION = 3;
export const INDEX = "_index.json";
export const OBJECTS = "objects";
export const SHARD_HEX = 2; // the fewest hex digits in a shard name: the root node of the shard table
export const MAX_INDEX_BYTES = 16 << 20; // _index.json and every JSON object
export const MAX_OBJECT_BYTES = 2 ** 30; // any other object
export const MAX_FILES = 20; // bundled files listed in a loaded skill
export const MAX_TABLE_DEPTH = 8; // levels of the shard table

// crypto.hash (Node 20.12 and later) hashes in one call: a fifth of createHash's cost in a cold start.
const oneShot = (
  crypto as { hash?: (algorithm: string, data: Uint8Array | string, encoding: "hex") => string }
).hash;

export function sha256Hex(data: Uint8Array | string): string {
  return oneShot ? oneShot("sha256", data, "hex") : crypto.createHash("sha256").update(data).digest("hex");
}

export function objectPath(digest: string): string {
  return `${OBJECTS}/${digest.slice(0, 2)}/${digest}`;
}

/** The first `digits` hex digits of the sha256 of a command's UTF-8 bytes. */
export function shardOf(command: string, digits: number = SHARD_HEX): string {
  return sha256Hex(LONE_SURROGATE.test(command) ? surrogatePass(command) : command).slice(0, digits);
}

/** A surrogate code unit that is not half of a pair (with the u flag, pairs are one code point). */
export const LONE_SURROGATE = /[\ud800-\udfff]/u;

/** UTF-8 that keeps a lone surrogate as its three bytes, as Python's "surrogatepass" does (Node would
 * write U+FFFD), so that such a command names the same shard in every reader. */
function surrogatePass(text: string): Uint8Array {
  const out: number[] = [];
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  }
  return Uint8Array.from(out);
}

/** The length of the names in the shard-table node for `prefix`: 2 at the root, one more below. */
export function nodeWidth(prefix: string): number {
  return prefix.length + (prefix ? 1 : SHARD_HEX);
}

/** XML text content: only what it needs. */
export function escapeText(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

export function escapeAttr(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");
}
