// The conformance suite (tests/conformance/, README.md there) run through this reader: every case,
// every call, each outcome compared with the one the Python reader gave.
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Dist } from "../src/index.js";
import { parseJson } from "../src/json.js";
import { canonical, outcome } from "./outcome.js";
import { reader } from "./reader.js";
import { apply, copyBuild, type TamperOp } from "./tamper.js";

// SKILLC_CONFORMANCE_DIR: another suite of the same shape (tests/conformance/random_suite.py writes one)
const SUITE =
  process.env.SKILLC_CONFORMANCE_DIR ??
  fileURLToPath(new URL("../../../../tests/conformance/", import.meta.url));
const CASES = join(SUITE, "cases.json");

interface Call {
  call: string;
  args?: A;
  expect: unknown;
}
interface Case {
  name: string;
  build: string;
  tamper?: TamperOp[];
  tamper_after_open?: TamperOp[];
  calls: Call[];
}
// A call's arguments, by their Python names.
type A = Record<string, any>;

const cases: Case[] = existsSync(CASES) ? (parseJson(readFileSync(CASES, "utf8")) as unknown as Case[]) : [];

const loadArgs = (a: A) => ({ args: a["args"] ?? null, params: a["params"] ?? null });

const CALLS: Record<string, (d: Dist, a: A, tmp: string) => unknown> = {
  build_hash: (d) => d.buildHash(),
  personas: (d) => d.personas(),
  catalog: (d, a) => d.catalog(a["persona"]),
  skills: (d, a) => d.skills(a["persona"]),
  commands: (d, a) => d.commands(a["persona"]),
  all_commands: (d) => d.allCommands(),
  load: (d, a) => d.load(a["persona"], a["command"], loadArgs(a)),
  render: (d, a) => reader.renderSkill(d.load(a["persona"], a["command"], loadArgs(a))),
  resources: (d, a) => d.resources(a["persona"], a["command"], { kind: a["kind"] ?? null }),
  resource: (d, a) => d.resource(a["persona"], a["command"], a["path"]),
  read_object: (d, a) => d.readObject(a["digest"]),
  skill_meta: (d, a) => d.skillMeta(a["command"]),
  persona_meta: (d, a) => d.personaMeta(a["persona"]),
  resolution: (d, a) => d.resolution(a["persona"], a["command"]),
  missing_requirements: missing,
};

/** missing_requirements with the case's env, and PATH a folder holding the case's `path` entries. */
function missing(d: Dist, a: A, tmp: string): unknown {
  const folder = join(tmp, "path");
  mkdirSync(folder);
  try {
    for (const entry of a["path"] ?? []) {
      const where = join(folder, entry.name);
      if (entry.kind === "dir") mkdirSync(where);
      else {
        writeFileSync(where, "#!/bin/sh\n");
        chmodSync(where, entry.kind === "exec" ? 0o755 : 0o644);
      }
    }
    return d.missingRequirements(a["persona"], a["command"], { env: { ...(a["env"] ?? {}), PATH: folder } });
  } finally {
    rmSync(folder, { recursive: true });
  }
}

function substitute(a: A): unknown {
  return reader.substitute(a["body"], a["args"] ?? null, {
    names: a["names"] ?? [],
    skillDir: a["skill_dir"] ?? null,
    params: a["params"] ?? null,
  });
}

/** The outcome of every call of a case, in order, on a tampered copy of its build. */
function runCase(c: Case, tmp: string): unknown[] {
  const root = copyBuild(join(SUITE, "builds", c.build), join(tmp, "dist"));
  for (const op of c.tamper ?? []) apply(root, op);
  let dist: Dist | undefined;
  const opened = outcome(() => (dist = reader.open(root)));
  if (dist === undefined) return [opened];
  for (const op of c.tamper_after_open ?? []) apply(root, op);
  return c.calls.map((call) => {
    if (call.call === "open") return { result: null };
    if (call.call === "substitute") return outcome(() => substitute(call.args ?? {}));
    const run = CALLS[call.call];
    if (run === undefined) throw new Error(`unknown call ${call.call}`);
    return outcome(() => run(dist as Dist, call.args ?? {}, tmp));
  });
}

test(
  "the conformance suite is there",
  { skip: existsSync(CASES) ? false : "not in the skillc repository" },
  () => {
    assert.ok(cases.length > 0);
  },
);

for (const c of cases) {
  test(`conformance: ${c.name}`, () => {
    const tmp = mkdtempSync(join(tmpdir(), "skillc-reader-"));
    try {
      const got = runCase(c, tmp);
      c.calls.forEach((call, i) => {
        assert.deepStrictEqual(
          canonical(got[i]),
          canonical(call.expect),
          `call ${i}: ${call.call} ${JSON.stringify(call.args ?? {})}`,
        );
      });
      assert.equal(got.length, c.calls.length);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
}
