// The conformance suite's tamper ops (tests/conformance/README.md), applied to a copy of a build.
import { execFileSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  openSync,
  closeSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";

export interface TamperOp {
  op: string;
  path: string;
  base64?: string;
  text?: string;
  offset?: number;
  size?: number;
  target?: string;
}

export function copyBuild(build: string, dest: string): string {
  cpSync(build, dest, { recursive: true, verbatimSymlinks: true });
  return dest;
}

export function apply(root: string, op: TamperOp): void {
  const path = join(root, ...op.path.split("/"));
  if (op.op === "patch") {
    const fd = openSync(path, "r+");
    try {
      writeSync(fd, Buffer.from(op.base64 ?? "", "base64"), 0, undefined, op.offset ?? 0);
    } finally {
      closeSync(fd);
    }
    return;
  }
  if (op.op === "truncate") return truncateSync(path, op.size ?? 0);
  rmSync(path, { recursive: true, force: true });
  if (op.op === "delete") return;
  mkdirSync(dirname(path), { recursive: true });
  if (op.op === "write") writeFileSync(path, op.text ?? Buffer.from(op.base64 ?? "", "base64"));
  else if (op.op === "fifo")
    execFileSync("mkfifo", [path]); // Node has no mkfifo of its own
  else if (op.op === "symlink") symlinkSync(op.target ?? "", path);
  else if (op.op === "mkdir") mkdirSync(path);
  else throw new Error(`unknown tamper op ${op.op}`);
}
