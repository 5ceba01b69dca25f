/** sven's availability guards: the programs and variables a skill's frontmatter requires. */

import { accessSync, constants, statSync } from "node:fs";
import type { JsonObject } from "./jsonvalue.js";
import { own } from "./paths.js";

export interface RequirementOptions {
  /** The environment to check (default: process.env); its PATH is where programs are looked for. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Replaces the search of env's PATH: a program's path, or null when it is not there. */
  readonly which?: (name: string) => string | null;
}

/** ["bin:NAME", ...] for each required program not found, then ["env:NAME", ...] for each variable
 * unset or empty. */
export function missingIn(fm: JsonObject, options: RequirementOptions): string[] {
  const env = options.env ?? process.env;
  const found = options.which ?? ((name: string) => which(name, own(env, "PATH") ?? ""));
  const bins = (own(fm, "requires_bins") as string[] | undefined) ?? [];
  const vars = (own(fm, "requires_env") as string[] | undefined) ?? [];
  return [
    ...bins.filter((b) => found(b) == null).map((b) => `bin:${b}`),
    ...vars.filter((e) => !own(env, e)).map((e) => `env:${e}`),
  ];
}

/**
 * The program `name` in a directory of `path` (":"-separated; empty and relative entries skipped): a
 * regular file, symlinks followed, that this process may execute. A name holding "/" or NUL, or "."
 * or "..", is never found; the current directory is never searched.
 */
export function which(name: string, path: string): string | null {
  if (!name || name.includes("/") || name.includes("\0") || name === "." || name === "..") return null;
  for (const folder of path.split(":")) {
    if (!folder.startsWith("/")) continue;
    const where = `${folder.replace(/\/+$/, "")}/${name}`;
    try {
      if (!statSync(where).isFile()) continue;
      accessSync(where, constants.X_OK);
      return where;
    } catch {
      continue; // missing, unreadable, not executable: the next folder
    }
  }
  return null;
}
