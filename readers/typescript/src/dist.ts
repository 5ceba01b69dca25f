/**
 * Dist: the handle an application holds on a build, or on a stack of builds (tiers), and every call it
 * makes on it: the Python reader's Dist, method for method.
 *
 * A handle answers from the newest build in each folder: each call looks at every tier's
 * `_index.json` once (one stat: device, inode, size and times), and when another index is there,
 * reads it and answers from that build from then on; one call never mixes two builds
 * (docs/format.md §6.4). Everything but the index is a content-addressed, hash-checked object,
 * read when a call needs it (view.ts); several builds are answered as one (stack.ts).
 */

import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { EnvOptions } from "./available.js";
import type { CatalogOptions, Engine, KindOptions, LoadOptions, MaterializeOptions } from "./engine.js";
import { FormatError, ReaderError } from "./errors.js";
import { INDEX } from "./format.js";
import { joinPath } from "./paths.js";
import type {
  LoadedSkill,
  PersonaContext,
  PersonaMeta,
  Resolution,
  Shadowed,
  SkillInfo,
  SkillMeta,
  Unavailable,
} from "./records.js";
import { openStack, type Present } from "./stack.js";
import { identityOf, indexAt, type FoundIndex } from "./store.js";
import { optionalText, View } from "./view.js";

/** One build of a stack, as open() is given it. */
export interface Tier {
  /** The build's folder (made absolute at open). */
  readonly path: string;
  /** The build may be missing on this machine (the user's tier): it is left out until it is there. */
  readonly optional?: boolean;
  /** The folder the build's paths are relative to on this machine: its locations are then absolute,
   * and load()'s base folder is under it. */
  readonly root?: string | null;
}

export interface OpenOptions {
  /** One build's root (a stack's tiers each have theirs). */
  readonly root?: string | null;
}

/**
 * Open a dist/ directory, or a stack of them: reads and checks each top-level index (FormatError if
 * unusable). A list is a stack of builds (tiers), lowest precedence first (bundled, user, project):
 * the handle answers as one build compiled from their sources in that order would
 * (docs/format.md §16), or the open is refused (CannotStack). An item is a path or a Tier.
 */
export function open(path: string | readonly (string | Tier)[], options: OpenOptions = {}): Dist {
  if (typeof path === "string") {
    return new Dist([new TierState(absolute(path), false, optionalText(options.root, "root"))]);
  }
  if (options.root != null) throw new ReaderError("root: give each tier of a stack its own root");
  if (!Array.isArray(path) || path.length === 0) {
    throw new ReaderError("path must be a string or a non-empty array of paths and tiers");
  }
  return new Dist(path.map(tierOf));
}

const TIER_KEYS = new Set(["path", "optional", "root"]);

function tierOf(item: string | Tier): TierState {
  if (typeof item === "string") return new TierState(absolute(item), false, null);
  if (typeof item !== "object" || item === null || Object.keys(item).some((k) => !TIER_KEYS.has(k))) {
    throw new ReaderError("a tier is a path or an object of path, optional and root");
  }
  if (typeof item.path !== "string") throw new ReaderError("a tier's path must be a string");
  const optional = item.optional ?? false;
  if (typeof optional !== "boolean") throw new ReaderError("a tier's optional must be a boolean");
  return new TierState(absolute(item.path), optional, optionalText(item.root, "root"));
}

function absolute(path: string): string {
  try {
    return resolve(path); // resolved once: a later chdir() changes nothing
  } catch (err) {
    throw new FormatError(`${JSON.stringify(path)}: cannot resolve: ${(err as Error).message}`);
  }
}

/** Whether two byte arrays are equal. */
function same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

/** One build folder of a handle: the view of the build its index names now (null: an optional tier
 * that does not exist here), and what that index was (its identity and bytes). */
class TierState {
  readonly path: string;
  readonly optional: boolean;
  readonly root: string | null;
  view: View | null = null;
  #identity: string | null = null;
  #data: Uint8Array | null = null;

  constructor(path: string, optional: boolean, root: string | null) {
    this.path = path;
    this.optional = optional;
    this.root = root;
    this.#take(indexAt(path, optional));
  }

  /** Serve the index found (null: none); whether the view changed. */
  #take(found: FoundIndex | null): boolean {
    if (found === null) {
      const changed = this.view !== null;
      [this.view, this.#identity, this.#data] = [null, null, null];
      return changed;
    }
    this.#identity = found.identity;
    if (this.#data !== null && same(found.data, this.#data)) return false; // a rebuild that changed nothing
    this.view = new View(this.path, found.doc, this.root);
    this.#data = found.data;
    return true;
  }

  /**
   * Look at the index once; move to a newer build if one is there. Whether the view changed. Unless
   * `force`, an index whose identity is the one last read is taken as unchanged without reading it.
   * An index that cannot be read or checked now leaves the view as it is (that is no newer build),
   * and so does a missing one for a tier that is not optional.
   */
  check(force = false): boolean {
    let now = "";
    if (!force) {
      try {
        const st = statSync(joinPath(this.path, INDEX), { bigint: true, throwIfNoEntry: false });
        if (st === undefined) return this.optional ? this.#take(null) : false;
        now = identityOf(st);
      } catch {
        return false; // unreadable now: serve what was served
      }
      if (now === this.#identity) return false;
    }
    let found: FoundIndex | null;
    try {
      found = indexAt(this.path, true);
    } catch (err) {
      if (!(err instanceof FormatError)) throw err;
      if (!force) this.#identity = now; // read once: it is read again when it changes again
      return false;
    }
    if (found === null && !this.optional) return false;
    return this.#take(found);
  }
}

/**
 * The handle: every call looks at each build folder once and answers from the builds there: one
 * build's view, or the stack of the tiers present.
 */
export class Dist {
  readonly #tiers: readonly TierState[];
  #stack: { views: View[]; engine: Engine } | null = null;

  constructor(tiers: readonly TierState[]) {
    this.#tiers = tiers;
    this.#engine(); // a stack that cannot be one is refused at open
  }

  /** What this call answers from, after one look at each index. */
  #now(): Engine {
    for (const tier of this.#tiers) tier.check();
    return this.#engine();
  }

  #engine(): Engine {
    const present: Present[] = [];
    this.#tiers.forEach((t, i) => {
      if (t.view !== null) present.push([i, t.view, t.root]);
    });
    if (present.length === 0) {
      throw new FormatError(`none of the builds is there: ${this.#tiers.map((t) => t.path).join(", ")}`);
    }
    if (present.length === 1) return (present[0] as Present)[1];
    const views = present.map(([, view]) => view);
    const kept = this.#stack;
    if (kept !== null && kept.views.length === views.length && kept.views.every((v, i) => v === views[i])) {
      return kept.engine;
    }
    this.#stack = null; // a stack refused leaves none behind
    const engine = openStack(present);
    this.#stack = { views, engine };
    return engine;
  }

  /** Read each index now, whatever its identity says; whether a newer build is served. */
  refresh(): boolean {
    return this.#tiers.map((tier) => tier.check(true)).some((moved) => moved);
  }

  /** The absolute path of the build folder (of a stack: its first tier's). */
  get path(): string {
    return (this.#tiers[0] as TierState).path;
  }

  /** The absolute path of each build folder, in the order open() was given them. */
  get paths(): readonly string[] {
    return Object.freeze(this.#tiers.map((t) => t.path));
  }

  /** The build's hash (of a stack: a digest of its present tiers' hashes and places). */
  buildHash(): string {
    return this.#now().buildHash();
  }

  personas(): string[] {
    return this.#now().personas();
  }

  /** The skills a later tier hides, each with its tier and the tier that hides it (places in the list
   * open() was given), in command order; none for one build. */
  shadowed(): Shadowed[] {
    return this.#now().shadowed();
  }

  /**
   * The persona's tier-1 catalog, as the build rendered it but for the entries of the skills whose
   * requirements `env` lacks (default: the process environment; EVERYWHERE: none left out). The
   * budget's choice is kept: nothing the budget left out comes back. `root`: the folder the build's
   * paths are relative to here, for this call (one build; a stack's tiers have theirs).
   */
  catalog(persona: string, options: CatalogOptions = {}): string {
    const now = this.#now();
    const root = optionalText(options.root, "root");
    if (root === null) return now.catalog(persona, options);
    if (!(now instanceof View)) {
      throw new ReaderError("root: a stack's tiers each have their root (open([{ path, root }, ...]))");
    }
    return now.catalog(persona, options, root);
  }

  /** Every skill the persona sees, in command order, but those `env` lacks requirements for. */
  skills(persona: string, options: EnvOptions = {}): SkillInfo[] {
    return this.#now().skills(persona, options);
  }

  /** Slash commands the user may type for this persona (of the skills `env` may run). */
  commands(persona: string, options: EnvOptions = {}): string[] {
    return this.#now().commands(persona, options);
  }

  /** The skills the persona sees that `env` lacks requirements for, and what it lacks: what
   * catalog(), skills() and commands() leave out for that environment. */
  unavailable(persona: string, options: EnvOptions = {}): Unavailable[] {
    return this.#now().unavailable(persona, options);
  }

  allCommands(): string[] {
    return this.#now().allCommands();
  }

  /**
   * The skill as the persona sees it, `args` substituted; `params` gives values for
   * `${CLAUDE_SESSION_ID}`, `${CLAUDE_EFFORT}` and `${CLAUDE_PROJECT_DIR}` (else they stay). `by` is
   * who invokes it, "model" (a tool call, the default) or "user" (a slash command): NotInvocable when
   * the build says that invoker may not. `base` is the skill's folder on this machine (default: under
   * its build's root, when open() was given one): the body then begins with Claude Code's
   * `Base directory for this skill:` line, and `${CLAUDE_SKILL_DIR}` is it.
   */
  load(persona: string, command: string, options: LoadOptions = {}): LoadedSkill {
    return this.#now().load(persona, command, options);
  }

  /** Resource paths of a skill; kind filters by top folder (scripts, references, assets). */
  resources(persona: string, command: string, options: KindOptions = {}): string[] {
    return this.#now().resources(persona, command, optionalText(options.kind, "kind"));
  }

  /** The bytes of one resource; only paths listed in the index are served. */
  resource(persona: string, command: string, path: string): Uint8Array {
    return this.#now().resource(persona, command, path);
  }

  /**
   * sven's availability guards, checked on this machine: ["bin:docker", "env:TOKEN"]. A variable is
   * missing when unset or empty in `env` (default: the process environment); a program when no
   * directory of env's PATH holds it (`which` replaces that search). A stub persona gets [].
   */
  missingRequirements(persona: string, command: string, options: EnvOptions = {}): string[] {
    return this.#now().missingRequirements(persona, command, options);
  }

  /**
   * Write the resolved skill folder into dest, as a workspace mounts a skill into a task folder:
   * SKILL.md holds the resolved body (arguments and params substituted, `${CLAUDE_SKILL_DIR}` = dest),
   * every resource follows with its executable bit. dest must be missing, empty, or hold exactly
   * what this call would write (then nothing is written: a second activation); nothing is ever
   * written outside it. Returns dest as an absolute path. `by` as for load().
   */
  materialize(persona: string, command: string, dest: string, options: MaterializeOptions = {}): string {
    return this.#now().materialize(persona, command, dest, options);
  }

  skillMeta(command: string): SkillMeta {
    return this.#now().skillMeta(command);
  }

  /** The bytes of one object of this build, hash-checked: for tools (diff, audit) that hold a digest
   * from skillMeta, resolution or ResourceMeta. */
  readObject(digest: string): Uint8Array {
    return this.#now().readObject(digest);
  }

  personaMeta(persona: string): PersonaMeta {
    return this.#now().personaMeta(persona);
  }

  /** ARIA's persona_context: the persona, its fallback, `unrestrictedSkills`, and the overlay folders
   * of the persona and of its fallback in the build's personas folder. */
  personaContext(persona: string): PersonaContext {
    return this.#now().personaContext(persona);
  }

  resolution(persona: string, command: string): Resolution {
    return this.#now().resolution(persona, command);
  }
}
