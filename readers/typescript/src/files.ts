/**
 * Reading a hostile tree: regular files only, bounded, never blocking (the Python reader's files.py).
 *
 * O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer, and the fstat of the
 * descriptor then refuses it; a device (or a symlink to /dev/zero) is refused the same way before a
 * byte is read; a file that grows while it is read is cut at one byte past the cap and refused.
 */

import { closeSync, constants, fstatSync, openSync, readSync, type BigIntStats } from "node:fs";

/** Why a file was refused; `code` is the errno name when the system refused it (ENOENT, ELOOP...). */
export class FileRefused extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

const CHUNK = 1 << 20;

/** The bytes of a regular file of at most `cap` bytes; FileRefused otherwise. `seen` receives the
 * fstat of the descriptor read (in nanoseconds: the identity of a file, docs/format.md §6.4). */
export function readRegular(
  path: string,
  cap: number,
  follow = true,
  seen: ((st: BigIntStats) => void) | null = null,
): Uint8Array {
  const flags = constants.O_RDONLY | constants.O_NONBLOCK | (follow ? 0 : constants.O_NOFOLLOW);
  let fd: number;
  try {
    fd = openSync(path, flags);
  } catch (err) {
    throw refused(err, path);
  }
  try {
    return readOpen(fd, path, cap, seen);
  } catch (err) {
    throw err instanceof FileRefused ? err : refused(err, path);
  } finally {
    closeSync(fd);
  }
}

function readOpen(
  fd: number,
  path: string,
  cap: number,
  seen: ((st: BigIntStats) => void) | null,
): Uint8Array {
  const st = seen === null ? fstatSync(fd) : fstatSync(fd, { bigint: true });
  if (!st.isFile()) {
    throw new FileRefused("NOTREG", `${path}: is ${kind(st)}, not a regular file`);
  }
  const size = Number(st.size);
  if (size > cap) {
    throw new FileRefused("TOOLARGE", `${path}: is ${size} bytes; the cap is ${cap}`);
  }
  seen?.(st as BigIntStats);
  const chunks: Uint8Array[] = [];
  let left = cap + 1; // one byte more than allowed tells a file that grew past the cap
  let want = Math.min(left, size + 1);
  let total = 0;
  while (left > 0) {
    const buf = Buffer.allocUnsafeSlow(want); // not the shared pool: a resource is handed out as is;
    const n = readSync(fd, buf, 0, want, null);
    if (n === 0) break;
    chunks.push(buf.subarray(0, n));
    left -= n;
    total += n;
    want = Math.min(left, CHUNK);
  }
  if (total > cap) {
    throw new FileRefused("TOOLARGE", `${path}: exceeds the cap of ${cap} bytes`);
  }
  return chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks, total);
}

function kind(st: {
  isDirectory(): boolean;
  isFIFO(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSocket(): boolean;
  isSymbolicLink(): boolean;
}): string {
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a FIFO";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  if (st.isSocket()) return "a socket";
  if (st.isSymbolicLink()) return "a symlink";
  return "not a regular file";
}

function refused(err: unknown, path: string): FileRefused {
  const code = typeof (err as { code?: unknown }).code === "string" ? (err as { code: string }).code : "EIO";
  const message = err instanceof Error ? err.message : String(err);
  return new FileRefused(code, `${path}: ${message}`);
}
