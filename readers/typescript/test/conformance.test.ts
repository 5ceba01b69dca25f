// The conformance suite (tests/conformance/, README.md there) run through this reader: every case,
// every call, each outcome compared with the one the Python reader gave.
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Dist, LoadOptions } from "../src/index.js";
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
interface TierCase {
  build: string | null;
  optional?: boolean;
  root?: string;
}
interface Case {
  name: string;
  build?: string;
  tiers?: TierCase[];
  root?: string;
  tamper?: TamperOp[];
  tamper_after_open?: TamperOp[];
  calls: Call[];
}
// A call's arguments, by their Python names.
type A = Record<string, any>;

const cases: Case[] = existsSync(CASES) ? (parseJson(readFileSync(CASES, "utf8")) as unknown as Case[]) : [];

/** load's options: `by` and `base` only when the case gives them (absent: the reader's defaults). */
function loadArgs(a: A): LoadOptions {
  const given: A = { args: a["args"] ?? null, params: a["params"] ?? null };
  for (const key of ["by", "base"]) if (key in a) given[key] = a[key];
  return given;
}

const CALLS: Record<string, (d: Dist, a: A, tmp: string) => unknown> = {
  build_hash: (d) => d.buildHash(),
  personas: (d) => d.personas(),
  catalog: forEnv((d, p, env) => d.catalog(p, { env })),
  skills: forEnv((d, p, env) => d.skills(p, { env })),
  commands: forEnv((d, p, env) => d.commands(p, { env })),
  unavailable: forEnv((d, p, env) => d.unavailable(p, { env })),
  shadowed: (d) => d.shadowed(),
  persona_context: (d, a) => d.personaContext(a["persona"]),
  all_commands: (d) => d.allCommands(),
  load: (d, a) => d.load(a["persona"], a["command"], loadArgs(a)),
  render: (d, a) => reader.renderSkill(d.load(a["persona"], a["command"], loadArgs(a))),
  resources: (d, a) => d.resources(a["persona"], a["command"], { kind: a["kind"] ?? null }),
  resource: (d, a) => d.resource(a["persona"], a["command"], a["path"]),
  read_object: (d, a) => d.readObject(a["digest"]),
  refresh: (d) => d.refresh(),
  skill_meta: (d, a) => d.skillMeta(a["command"]),
  persona_meta: (d, a) => d.personaMeta(a["persona"]),
  resolution: (d, a) => d.resolution(a["persona"], a["command"]),
  missing_requirements: (d, a, tmp) =>
    withPath(a, tmp, (env) => d.missingRequirements(a["persona"], a["command"], { env })),
};

type Env = Record<string, string> | typeof reader.EVERYWHERE;

/** A call that takes an environment: `env` (with `path`) as missing_requirements takes them;
 * absent, EVERYWHERE (the build as it was made). */
function forEnv(call: (d: Dist, persona: string, env: Env) => unknown) {
  return (d: Dist, a: A, tmp: string): unknown =>
    "env" in a
      ? withPath(a, tmp, (env) => call(d, a["persona"], env))
      : call(d, a["persona"], reader.EVERYWHERE);
}

/** The call with the case's env, and PATH a folder holding the case's `path` entries. */
function withPath(a: A, tmp: string, call: (env: Record<string, string>) => unknown): unknown {
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
    return call({ ...(a["env"] ?? {}), PATH: folder });
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

/** The outcome of every call of a case, in order, on tampered copies of its builds. */
function runCase(c: Case, tmp: string): unknown[] {
  const builds = join(SUITE, "builds");
  const tiers: TierCase[] = c.tiers ?? [{ build: c.build as string }];
  const roots = tiers.map((_, i) => join(tmp, c.tiers === undefined ? "dist" : `tier-${i}`));
  tiers.forEach((t, i) => {
    if (t.build !== null) copyBuild(join(builds, t.build), roots[i] as string); // none: a tier missing here
  });
  for (const op of c.tamper ?? []) apply(roots[op.tier ?? 0] as string, op, builds);
  let dist: Dist | undefined;
  const opened = outcome(() => {
    dist =
      c.tiers === undefined
        ? reader.open(roots[0] as string, { root: c.root ?? null })
        : reader.open(
            tiers.map((t, i) => ({
              path: roots[i] as string,
              optional: t.optional ?? false,
              root: t.root ?? null,
            })),
          );
  });
  if (dist === undefined) return [opened];
  for (const op of c.tamper_after_open ?? []) apply(roots[op.tier ?? 0] as string, op, builds);
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
