// The conformance suite's tamper ops (tests/conformance/README.md), applied to a copy of a build.
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  type Dirent,
  openSync,
  closeSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { dirname, join, relative, sep } from "node:path";

export interface TamperOp {
  op: string;
  path: string;
  tier?: number;
  build?: string;
  prune?: boolean;
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

/** The `rebuild` op: the copy at root becomes `build` as skillc writes a build over another (its
 * objects copied in, the old ones removed with `prune`, and last a new index renamed over the old). */
function rebuild(root: string, build: string, prune: boolean): void {
  const theirs = new Set(files(join(build, "objects")).map((rel) => `objects/${rel}`));
  for (const rel of [...theirs].sort()) {
    const target = join(root, ...rel.split("/"));
    if (!existsSync(target)) {
      mkdirSync(dirname(target), { recursive: true });
      cpSync(join(build, ...rel.split("/")), target, { preserveTimestamps: true });
    }
  }
  if (prune) {
    for (const rel of files(join(root, "objects"))) {
      if (!theirs.has(`objects/${rel}`)) rmSync(join(root, "objects", ...rel.split("/")));
    }
  }
  mkdirSync(root, { recursive: true }); // an optional tier that was not there
  const aside = join(root, ".skillc-tmp-rebuild");
  copyFileSync(join(build, "_index.json"), aside);
  renameSync(aside, join(root, "_index.json")); // a new file renamed over the index: the commit
}

/** The files below a folder, as `/`-separated paths relative to it (none when it is missing). */
function files(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return (readdirSync(folder, { recursive: true, withFileTypes: true }) as Dirent[])
    .filter((e) => e.isFile())
    .map((e) => relative(folder, join(e.parentPath, e.name)).split(sep).join("/"));
}

export function apply(root: string, op: TamperOp, builds: string): void {
  if (op.op === "rebuild") return rebuild(root, join(builds, op.build ?? ""), op.prune ?? false);
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
