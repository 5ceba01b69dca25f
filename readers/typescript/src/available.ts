/**
 * Run-time availability: what a machine has of a skill's requirements (sven's `requires_bins` and
 * `requires_env`), for an environment a host names, the process's, or EVERYWHERE.
 *
 * docs/format.md §11 is the rule: a program is found in the PATH of the environment given (never the
 * current directory), a variable is there when it is set and not empty.
 */

import { accessSync, constants, statSync } from "node:fs";
import { ReaderError } from "./errors.js";
import { own } from "./paths.js";

/** The environment that has every requirement: the catalog and listings as the build made them. */
export const EVERYWHERE: unique symbol = Symbol("EVERYWHERE");

/** Environment variables by name (process.env, or a map a host builds). */
export type Environment = Readonly<Record<string, string | undefined>>;

export interface EnvOptions {
  /** The environment to check (default: process.env; EVERYWHERE: every requirement met). Its PATH
   * is where programs are looked for. */
  readonly env?: Environment | typeof EVERYWHERE | null;
  /** Replaces the search of env's PATH: a program's path, or null when it is not there. */
  readonly which?: ((name: string) => string | null) | null;
}

/** One call's environment: its variables and its program search, each program looked up once. */
export class Machine {
  readonly everything: boolean;
  readonly env: Environment;
  readonly #which: ((name: string) => string | null) | null;
  readonly #found = new Map<string, boolean>();
  #folders: string[] | null = null; // the absolute folders of env's PATH, each without trailing `/`

  constructor(options: EnvOptions) {
    const env = options.env;
    if (env != null && env !== EVERYWHERE && (typeof env !== "object" || Array.isArray(env))) {
      throw new ReaderError("env must be an object of strings, EVERYWHERE, or null");
    }
    this.everything = env === EVERYWHERE;
    this.env = env == null || env === EVERYWHERE ? process.env : env;
    this.#which = options.which ?? null;
  }

  found(name: string): boolean {
    let known = this.#found.get(name);
    if (known === undefined) {
      if (this.#which) known = this.#which(name) != null;
      else {
        this.#folders ??= folders(own(this.env, "PATH") ?? "");
        known = found(name, this.#folders) !== null;
      }
      this.#found.set(name, known);
    }
    return known;
  }

  /** Whether this machine lacks any of these requirements: what a catalog or a listing needs to
   * know, answered with the fewest program lookups (the variables first, then the programs, up to
   * the first one missing). */
  lacks(bins: readonly string[], vars: readonly string[]): boolean {
    if (this.everything) return false;
    return vars.some((e) => !own(this.env, e)) || bins.some((b) => !this.found(b));
  }

  /** What this machine lacks of these requirements: `bin:` and `env:` entries, in order. */
  missing(bins: readonly string[], vars: readonly string[]): string[] {
    if (this.everything) return [];
    return [
      ...bins.filter((b) => !this.found(b)).map((b) => `bin:${b}`),
      ...vars.filter((e) => !own(this.env, e)).map((e) => `env:${e}`),
    ];
  }
}

/**
 * The program `name` in a directory of `path` (":"-separated; empty and relative entries skipped): a
 * regular file, symlinks followed, that this process may execute. A name holding "/" or NUL, or "."
 * or "..", is never found; the current directory is never searched.
 */
export function which(name: string, path: string): string | null {
  return found(name, folders(path));
}

/** The absolute folders of a PATH, without their trailing `/`. */
function folders(path: string): string[] {
  return path
    .split(":")
    .filter((folder) => folder.startsWith("/"))
    .map((folder) => folder.replace(/\/+$/, ""));
}

const QUIET = Object.freeze({ throwIfNoEntry: false });

function found(name: string, folders: readonly string[]): string | null {
  if (!name || name.includes("/") || name.includes("\0") || name === "." || name === "..") return null;
  for (const folder of folders) {
    const where = `${folder}/${name}`;
    try {
      if (!statSync(where, QUIET)?.isFile()) continue;
      accessSync(where, constants.X_OK);
      return where;
    } catch {
      continue; // unreadable, not executable, a NUL in the folder: the next folder
    }
  }
  return null;
}
