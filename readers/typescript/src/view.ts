/**
 * View: one build as read from its `_index.json`, and every call an application makes on it (the
 * Python reader's view.py). A View is made from one index and reads everything else by digest, so it
 * answers for that build alone; dist.ts's Dist holds the views of its tiers, looks at each index once
 * a call, and moves to a new view when a newer build is there.
 *
 * Each document is checked before it is served, and a skill entry only when a call serves it: a
 * malformed neighbour fails only the calls that read it (skills(), allCommands() and UnknownSkill's
 * `visible`, when asked for, read every entry).
 */

import { Machine, type EnvOptions } from "./available.js";
import { checkPersonaMeta, checkPlaces, checkPlan, checkRequires, checkSplit } from "./checks.js";
import type {
  IndexDoc,
  Needs,
  PersonaEntry,
  PersonaMetaDoc,
  PlanDoc,
  ResolutionDoc,
  SkillEntry,
  SplitDoc,
} from "./documents.js";
import type { Engine, Invoker, LoadOptions, MaterializeOptions } from "./engine.js";
import {
  CannotSplit,
  FormatError,
  NotInvocable,
  ReaderError,
  UnknownPersona,
  UnknownResource,
  UnknownSkill,
} from "./errors.js";
import { materializeSkill } from "./materialize.js";
import { suggestions } from "./nearby.js";
import { byCodePoint, own } from "./paths.js";
import { codePoints, planned } from "./plan.js";
import {
  count,
  frozen,
  personaMetaOf,
  resolutionOf,
  skillInfo,
  skillMeta,
  subSkillOf,
  type LoadedSkill,
  type PersonaContext,
  type PersonaMeta,
  type Resolution,
  type Shadowed,
  type SkillInfo,
  type SkillMeta,
  type SubSkill,
  type Unavailable,
} from "./records.js";
import { loadedSkill } from "./render.js";
import { Objects } from "./store.js";
import { argumentNames, substitute } from "./substitute.js";
import { SkillTable } from "./table.js";

/** Who may invoke a skill, in the order an error names them: the resolution's `model` and `user`. */
export const INVOKERS: readonly Invoker[] = Object.freeze(["model", "user"]);

/** The `by` of load(), render() and materialize(), checked before anything is read. */
export function invoker(by: unknown): Invoker {
  if (by === undefined || by === null) return "model";
  if (by !== "model" && by !== "user")
    throw new ReaderError(`by must be "model" or "user", not ${String(by)}`);
  return by;
}

/** A string argument that may be absent, checked (a host in plain JavaScript may pass anything). */
export function optionalText(value: unknown, what: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") throw new ReaderError(`${what} must be a string or null`);
  return value;
}

/** The invokers the resolution allows; NotInvocable unless `by` is among them. */
export function mayInvoke(persona: string, command: string, r: ResolutionDoc, by: Invoker): void {
  if (!r[by])
    throw new NotInvocable(
      persona,
      command,
      by,
      INVOKERS.filter((who) => r[who]),
    );
}

/** The pair's resolution, or null when the persona does not see the skill (docs/format.md §5.3). */
export function visibleTo(skill: SkillEntry | null, persona: string): ResolutionDoc | null {
  if (skill === null) return null;
  const exceptions = skill.exceptions;
  return Object.prototype.hasOwnProperty.call(exceptions, persona)
    ? (exceptions[persona] ?? null)
    : skill.default;
}

/** The folder of a skill's SKILL.md on this machine: under the root the host named for its build
 * (docs/format.md §17.3); null without a root, or for a path under a home folder. */
export function baseOf(path: string, root: string | null): string | null {
  if (root === null || path.startsWith("~")) return null;
  const slash = path.lastIndexOf("/");
  const folder = slash >= 0 ? path.slice(0, slash) : "";
  if (path.startsWith("/")) return folder || "/";
  const trimmed = root.replace(/\/+$/, "");
  return folder ? `${trimmed}/${folder}` : trimmed || "/";
}

/** A stub exposes nothing of the exclusive skill but the stub itself. */
export function listedResources(skill: SkillEntry, r: ResolutionDoc): SkillEntry["resources"] {
  return r.access === "stub" ? [] : skill.resources;
}

export function isDigest(digest: unknown): digest is string {
  return typeof digest === "string" && /^[0-9a-f]{64}$/.test(digest);
}

export class View implements Engine {
  /** The build's folder, absolute. */
  readonly path: string;
  readonly index: IndexDoc;
  /** The folder the build's paths are relative to on this machine, when the host named one. */
  readonly root: string | null;
  readonly objects: Objects;
  readonly #table: SkillTable;
  readonly #metas = new Map<string, PersonaMetaDoc>(); // persona metas read and checked so far
  // Catalogs read and hash-checked, by persona: an object never changes under its name, and a
  // rebuild is another build, another view.
  readonly #catalogs = new Map<string, string>();
  readonly #plans = new Map<string, PlanDoc>(); // plan object -> the plan, checked
  #needs: Record<string, Needs> | null = null; // the requirements, read once
  #split: SplitDoc | null = null; // the split, read and checked once

  constructor(path: string, index: IndexDoc, root: string | null) {
    this.path = path;
    this.index = index;
    this.root = root;
    this.objects = new Objects(path, index.build_hash);
    this.#table = new SkillTable(this.objects, index.shards, index.personas);
  }

  buildHash(): string {
    return this.index.build_hash;
  }

  personas(): string[] {
    return Object.keys(this.index.personas).sort(byCodePoint);
  }

  shadowed(): Shadowed[] {
    return [];
  }

  meta(persona: string): PersonaMetaDoc {
    let meta = this.#metas.get(persona);
    if (meta === undefined) {
      const digest = this.entry(persona).meta;
      meta = checkPersonaMeta(this.objects.json(digest), persona, `object ${digest}`);
      this.#metas.set(persona, meta);
    }
    return meta;
  }

  /** The index's entry of a persona; UnknownPersona when it has none. */
  entry(persona: string): PersonaEntry {
    const entry = own(this.index.personas, persona);
    if (entry === undefined) throw new UnknownPersona(persona, this.personas());
    return entry;
  }

  /** The command's entry, checked, or null when the build has no such command. */
  skill(command: string): SkillEntry | null {
    return this.#table.skill(command);
  }

  /** Every entry of the build, checked, in command order (§5.2's reads). */
  allSkills(): [string, SkillEntry][] {
    return this.#table.all();
  }

  /** [skill entry, resolution] of a pair the persona sees; UnknownPersona or UnknownSkill otherwise. */
  #resolved(persona: string, command: string): [SkillEntry, ResolutionDoc] {
    this.entry(persona);
    const skill = this.#table.skill(command);
    const r = visibleTo(skill, persona);
    if (skill === null || r === null) throw this.#unknown(persona, command);
    return [skill, r];
  }

  /** [entry, resolution] of a pair `by` may invoke; NotInvocable names who may otherwise. */
  #invocable(persona: string, command: string, by: Invoker): [SkillEntry, ResolutionDoc] {
    const [skill, r] = this.#resolved(persona, command);
    mayInvoke(persona, command, r, by);
    return [skill, r];
  }

  /** The UnknownSkill of a command the persona does not see (persona "*": of one that does not
   * exist), with close commands found in a few reads; the full list is read only if asked for. */
  #unknown(persona: string, command: string): UnknownSkill {
    const all = persona === "*";
    const near = suggestions(
      command,
      all ? null : this.compiled(persona),
      (above) => this.#table.skill(above)?.children ?? null,
      (c) => {
        const s = this.#table.skill(c);
        return s !== null && (all || visibleTo(s, persona) !== null);
      },
    );
    const visible = (): string[] =>
      this.#table
        .all()
        .filter(([, s]) => all || visibleTo(s, persona) !== null)
        .map(([c]) => c);
    return new UnknownSkill(persona, command, visible, near);
  }

  // -- tier 1 -----------------------------------------------------------------------------------

  /** The persona's catalog as the build rendered it. */
  compiled(persona: string): string {
    let text = this.#catalogs.get(persona);
    if (text === undefined) {
      text = this.objects.text(this.entry(persona).prompt);
      this.#catalogs.set(persona, text);
    }
    return text;
  }

  /** The persona's catalog for an environment: the compiled one, without the entries of the skills
   * whose requirements it lacks, its relative locations under the root when there is one
   * (docs/format.md §17.2, §17.3). */
  catalog(persona: string, options: EnvOptions, root: string | null = this.root): string {
    const machine = new Machine(options);
    const text = this.compiled(persona);
    const requires = machine.everything ? {} : this.requires();
    const needed = Object.keys(requires).length > 0;
    if (!needed && root === null) return text;
    const plan = this.#plan(persona, text);
    const listed = plan !== null ? plan.entries.map((e) => e.command) : this.meta(persona).included;
    const drop = new Set<string>();
    for (const command of needed ? listed : []) {
      const needs = own(requires, command);
      if (needs !== undefined && machine.lacks(needs.bins, needs.env)) drop.add(command);
    }
    if (drop.size === 0 && root === null) return text;
    if (plan === null) {
      const why = drop.size
        ? `the entries of ${[...drop].sort(byCodePoint).join(", ")}, which this environment lacks ` +
          "requirements for, cannot be left out of its catalog"
        : `its locations cannot be given the root ${JSON.stringify(root)}`;
      throw new CannotSplit(
        `persona ${JSON.stringify(persona)}: this build's catalog template does not split (SKC603), so ${why}`,
      );
    }
    return planned(text, plan.entries, drop, root, plan.markup);
  }

  /** The skills' requirements, by command (the index's requirements object; {} when none). */
  requires(): Record<string, Needs> {
    if (this.#needs === null) {
      const digest = this.index.requires;
      this.#needs = digest === null ? {} : checkRequires(this.objects.json(digest), `object ${digest}`);
    }
    return this.#needs;
  }

  /** The catalog template's split (§4.5), checked; null when the build has none. */
  split(): SplitDoc | null {
    const digest = this.index.split;
    if (digest === null) return null;
    this.#split ??= checkSplit(this.objects.json(digest), this.index.personas, `object ${digest}`);
    return this.#split;
  }

  /** The persona's plan of its catalog `text`, checked against it; null when the build has none. */
  #plan(persona: string, text: string): PlanDoc | null {
    const digest = this.entry(persona).plan;
    if (digest === null) return null;
    let plan = this.#plans.get(digest);
    if (plan === undefined) {
      plan = checkPlan(this.objects.json(digest), persona, `object ${digest}`);
      checkPlaces(plan, codePoints(text), `object ${digest}`);
      this.#plans.set(digest, plan);
    }
    return plan;
  }

  /** The skills the persona sees whose requirements the environment lacks, with what it lacks, in
   * command order (a stub needs nothing). */
  unavailable(persona: string, options: EnvOptions): Unavailable[] {
    const machine = new Machine(options);
    this.entry(persona);
    if (machine.everything) return [];
    const requires = this.requires();
    const out: Unavailable[] = [];
    for (const command of Object.keys(requires).sort(byCodePoint)) {
      const r = visibleTo(this.#table.skill(command), persona);
      if (r === null || r.access === "stub") continue;
      const needs = requires[command] as Needs;
      const missing = machine.missing(needs.bins, needs.env);
      if (missing.length) out.push(frozen({ command, missing }));
    }
    return out;
  }

  /** Every skill the persona sees, in command order, but those the environment lacks requirements for. */
  skills(persona: string, options: EnvOptions): SkillInfo[] {
    const machine = new Machine(options);
    const found = this.#skills(persona);
    if (machine.everything) return found;
    const requires = this.requires();
    return found.filter((s) => {
      const needs = own(requires, s.command);
      return s.access === "stub" || needs === undefined || !machine.lacks(needs.bins, needs.env);
    });
  }

  #skills(persona: string): SkillInfo[] {
    const included = new Set(this.meta(persona).included);
    const out: SkillInfo[] = [];
    for (const [command, skill] of this.#table.all()) {
      const r = visibleTo(skill, persona);
      if (r !== null) out.push(skillInfo(command, skill, r, included.has(command)));
    }
    return out;
  }

  /** Slash commands the user may type for this persona (of the skills the environment may run). */
  commands(persona: string, options: EnvOptions): string[] {
    return this.skills(persona, options)
      .filter((s) => s.user)
      .map((s) => s.command);
  }

  // -- tier 2 -----------------------------------------------------------------------------------

  load(persona: string, command: string, options: LoadOptions): LoadedSkill {
    const given = optionalText(options.base, "base");
    const [skill, r] = this.#invocable(persona, command, invoker(options.by));
    const body = this.objects.text(r.body);
    return loadedSkill({
      persona,
      command,
      skill,
      r,
      body,
      children: () => this.#subSkills(persona, skill), // read after the body
      args: options.args,
      params: options.params ?? null,
      base: given ?? baseOf(skill.path, this.root),
      knowledge: this.index.knowledge,
    });
  }

  #subSkills(persona: string, skill: SkillEntry): SubSkill[] {
    const out: SubSkill[] = [];
    for (const child of skill.children) {
      const c = this.#table.skill(child);
      const r = visibleTo(c, persona);
      if (c !== null && r !== null && r.model) {
        out.push(subSkillOf(child, c));
      }
    }
    return out;
  }

  // -- tier 3 -----------------------------------------------------------------------------------

  /** Resource paths of a skill; kind filters by top folder (scripts, references, assets). */
  resources(persona: string, command: string, kind: string | null): string[] {
    const [skill, r] = this.#resolved(persona, command);
    const paths = listedResources(skill, r).map((res) => res.path);
    if (kind == null) return paths;
    const top = kind.replace(/\/+$/, "") + "/";
    return paths.filter((p) => p.startsWith(top));
  }

  /** The bytes of one resource; only paths listed in the index are served. */
  resource(persona: string, command: string, path: string): Uint8Array {
    const [skill, r] = this.#resolved(persona, command);
    if (r.access === "stub") {
      throw new UnknownResource(
        `${JSON.stringify(path)}: ${JSON.stringify(command)} is exclusive to another persona; only its stub is served`,
      );
    }
    for (const res of listedResources(skill, r)) {
      if (res.path === path) return this.objects.bytes(res.sha256, count(res.size));
    }
    throw new UnknownResource(`${JSON.stringify(path)} is not a resource of ${JSON.stringify(command)}`);
  }

  /** sven's availability guards for a pair: ["bin:docker", "env:TOKEN"]; [] for a stub. */
  missingRequirements(persona: string, command: string, options: EnvOptions): string[] {
    const machine = new Machine(options);
    const [skill, r] = this.#resolved(persona, command);
    if (r.access === "stub") return [];
    const fm = skill.frontmatter;
    return machine.missing(
      (own(fm, "requires_bins") as string[] | undefined) ?? [],
      (own(fm, "requires_env") as string[] | undefined) ?? [],
    );
  }

  /** Write the resolved skill folder into dest (missing, empty, or holding exactly this skill). */
  materialize(persona: string, command: string, dest: string, options: MaterializeOptions): string {
    const [skill, r] = this.#invocable(persona, command, invoker(options.by));
    const names = argumentNames(own(skill.frontmatter, "arguments"));
    return materializeSkill(command, skill, listedResources(skill, r), dest, {
      body: (root) =>
        substitute(this.objects.text(r.body), options.args, {
          names,
          skillDir: root,
          params: options.params ?? null,
        }),
      bytes: (res) => this.objects.bytes(res.sha256, count(res.size)),
    });
  }

  // -- metadata for tools -----------------------------------------------------------------------

  allCommands(): string[] {
    return this.#table.all().map(([c]) => c);
  }

  skillMeta(command: string): SkillMeta {
    const s = this.#table.skill(command);
    if (s === null) throw this.#unknown("*", command);
    return skillMeta(command, s, s.parent, s.children);
  }

  readObject(digest: string): Uint8Array {
    if (!isDigest(digest)) throw new FormatError(`${JSON.stringify(digest)} is not a sha256 digest`);
    return this.objects.bytes(digest);
  }

  personaMeta(persona: string): PersonaMeta {
    const m = this.meta(persona);
    const entry = this.entry(persona);
    return personaMetaOf(persona, m, count(entry.chars), m.included, m.left_out, m.shortened);
  }

  /** ARIA's record (docs/format.md §18): from the persona meta and the build's personas folder. */
  personaContext(persona: string): PersonaContext {
    const meta = this.meta(persona);
    const folder = this.index.config.personas;
    const overlays = (pid: string | null): string | null =>
      folder === null || pid === null ? null : `${folder}/${pid}/skill-overlays`;
    return frozen({
      persona,
      fallback: meta.fallback,
      unrestrictedSkills: meta.unrestricted,
      skillOverlayPath: overlays(persona),
      overlayFallbackPath: overlays(meta.fallback),
    });
  }

  resolution(persona: string, command: string): Resolution {
    const [, r] = this.#resolved(persona, command);
    return resolutionOf(r, this.meta(persona).included.includes(command));
  }
}
