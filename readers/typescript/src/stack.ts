/**
 * A stack of builds (tiers: bundled, user, project) answered as one build compiled from their
 * sources in that order would answer (docs/format.md §16; the Python reader's stack.py).
 *
 * A later tier wins per command; the shadowed skills are reported. Parent and children are those of
 * the union of commands; the catalog is packed again, over every tier's candidates, with the first
 * tier's template split, budget and strategy. Where that equality cannot hold (other persona inputs,
 * a first tier whose template does not split or that ranks by `budgets.priority`), the stack is
 * refused: CannotStack. A stack reads every shard of every tier before it answers a call that needs
 * a skill (tiers are small: a bundled set, a user's folder, a project's).
 */

import { lstatSync } from "node:fs";
import { Machine, type EnvOptions } from "./available.js";
import type { Frames, Needs, ResolutionDoc, SkillEntry, SplitDoc } from "./documents.js";
import type { Engine, LoadOptions, MaterializeOptions } from "./engine.js";
import { CannotStack, FormatError, IntegrityError, UnknownSkill } from "./errors.js";
import { sha256Hex } from "./format.js";
import { suggestions } from "./nearby.js";
import { fit, STRATEGIES, type Candidate, type Packed } from "./pack.js";
import { byCodePoint, own } from "./paths.js";
import { codePoints, relative, rootSlash } from "./plan.js";
import {
  frozen,
  labelOf,
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
import { entryText, frameText } from "./split.js";
import { objectFile } from "./store.js";
import { baseOf, invoker, isDigest, mayInvoke, optionalText, visibleTo, type View } from "./view.js";

/** A present tier: its place in the list given to open(), its build, its root. */
export type Present = readonly [place: number, view: View, root: string | null];

/** A stack of the present tiers, the first the base; CannotStack where it cannot be one build. */
export function openStack(tiers: readonly Present[]): Engine {
  return new Stack(tiers);
}

/** A pair the stack serves: the index of the winning tier, its entry, the resolution. */
type Found = readonly [tier: number, skill: SkillEntry, r: ResolutionDoc];

/** The command one level up, when the command has a `/`. */
function above(command: string): string | null {
  const at = command.lastIndexOf("/");
  return at >= 0 ? command.slice(0, at) : null;
}

/** The union of the tiers' skills: each command's winning tier and entry, and their links. */
class Merged {
  readonly winning = new Map<string, [number, SkillEntry]>();
  readonly commands: string[];
  readonly children = new Map<string, string[]>();
  readonly shadowed: Shadowed[];

  constructor(tiers: readonly Present[]) {
    const held = new Map<string, number[]>();
    tiers.forEach(([, view], i) => {
      for (const [command, entry] of view.allSkills()) {
        this.winning.set(command, [i, entry]);
        const places = held.get(command);
        if (places === undefined) held.set(command, [i]);
        else places.push(i);
      }
    });
    this.commands = [...this.winning.keys()].sort(byCodePoint);
    for (const command of this.commands) {
      const parent = this.parent(command);
      if (parent !== null) {
        const list = this.children.get(parent);
        if (list === undefined) this.children.set(parent, [command]);
        else list.push(command);
      }
    }
    this.shadowed = this.commands.flatMap((command) => {
      const places = held.get(command) as number[];
      const by = (tiers[places[places.length - 1] as number] as Present)[0];
      return places.slice(0, -1).map((i) => frozen({ command, tier: (tiers[i] as Present)[0], by }));
    });
  }

  parent(command: string): string | null {
    const up = above(command);
    return up !== null && this.winning.has(up) ? up : null;
  }
}

class Stack implements Engine {
  readonly #tiers: readonly Present[];
  readonly #base: View;
  #model: Merged | null = null;
  readonly #packs = new Map<string, [Packed, string]>();

  constructor(tiers: readonly Present[]) {
    this.#tiers = tiers;
    this.#base = (tiers[0] as Present)[1];
    cannotStack(tiers);
  }

  // -- the build as one ------------------------------------------------------------------------

  /** A digest of the tiers' build hashes, each with its place in the list open() was given. */
  buildHash(): string {
    const lines = this.#tiers.map(([place, view]) => `${place}\t${view.buildHash()}\n`).join("");
    return sha256Hex("skillc stack\n" + lines);
  }

  personas(): string[] {
    return this.#base.personas();
  }

  #merged(): Merged {
    this.#model ??= new Merged(this.#tiers);
    return this.#model;
  }

  #visible(persona: string, command: string): Found | null {
    const found = this.#merged().winning.get(command);
    if (found === undefined) return null;
    const r = visibleTo(found[1], persona);
    return r === null ? null : [found[0], found[1], r];
  }

  #resolved(persona: string, command: string): Found {
    this.#base.entry(persona);
    const found = this.#visible(persona, command);
    if (found === null) throw this.#unknown(persona, command);
    return found;
  }

  /** As a view's, over the union: the stack's catalog, the union's children. */
  #unknown(persona: string, command: string): UnknownSkill {
    const model = this.#merged();
    const all = persona === "*";
    const near = suggestions(
      command,
      all ? null : (this.#packed(persona)[1] as string),
      (up) => (model.winning.has(up) ? (model.children.get(up) ?? []) : null),
      (c) => model.winning.has(c) && (all || this.#visible(persona, c) !== null),
    );
    const seen = (): string[] => model.commands.filter((c) => all || this.#visible(persona, c) !== null);
    return new UnknownSkill(persona, command, seen, near);
  }

  shadowed(): Shadowed[] {
    return [...this.#merged().shadowed];
  }

  // -- the catalog, packed again ---------------------------------------------------------------

  /** The persona's packing over the union's candidates, and the catalog it renders (the locations as
   * the builds wrote them). */
  #packed(persona: string): [Packed, string] {
    let found = this.#packs.get(persona);
    if (found === undefined) {
      found = this.#pack(persona);
      this.#packs.set(persona, found);
    }
    return found;
  }

  #pack(persona: string): [Packed, string] {
    const meta = this.#base.meta(persona);
    const [strategy, budget] = [meta.strategy, Number(meta.budget)];
    if (!STRATEGIES.includes(strategy)) {
      throw new CannotStack(
        `the first tier packs persona ${JSON.stringify(persona)} by strategy ${JSON.stringify(strategy)}, unknown here`,
      );
    }
    const split = this.#base.split() as SplitDoc;
    const model = this.#merged();
    const frames = split.frames[persona] as Frames;
    const candidates: Candidate[] = [];
    for (const command of model.commands) {
      const found = this.#visible(persona, command);
      if (found === null || !found[2].model) continue;
      const entry = found[1];
      const text = this.#entry(split, entry, command, null);
      const bare = strategy === "names-only" ? codePoints(this.#entry(split, entry, command, null, "")) : -1;
      const always = own(entry.frontmatter, "always") === true;
      candidates.push({ command, always, cost: codePoints(text), description: entry.description, bare });
    }
    const frameCost = (n: number): number => frameText(frames, n).reduce((t, s) => t + codePoints(s), 0);
    const render = (packed: Packed): string => this.#render(split, frames, packed, () => null, new Set());
    return fit(budget, candidates, frameCost, strategy, render);
  }

  #entry(
    split: SplitDoc,
    entry: SkillEntry,
    command: string,
    root: string | null,
    description?: string,
  ): string {
    const path = entry.path;
    const location = root !== null && relative(path) ? rootSlash(root) + path : path;
    const values = {
      command,
      name: entry.name,
      label: labelOf(entry),
      description: description ?? entry.description,
      location,
    };
    const pattern = own(entry.frontmatter, "always") === true ? split.always : split.entry;
    return entryText(pattern, values, split.markup);
  }

  #render(
    split: SplitDoc,
    frames: Frames,
    packed: Packed,
    root: (tier: number) => string | null,
    drop: ReadonlySet<string>,
  ): string {
    const [head, tail] = frameText(frames, packed.leftOut.length);
    const winning = this.#merged().winning;
    const parts = [head];
    for (const command of packed.included) {
      if (drop.has(command)) continue;
      const [i, entry] = winning.get(command) as [number, SkillEntry];
      parts.push(this.#entry(split, entry, command, root(i), packed.descriptions.get(command)));
    }
    return parts.join("") + tail;
  }

  /** The stack's catalog for an environment (§16.3, §17): packed over every tier, the entries of the
   * skills the environment lacks requirements for left out, each location under its tier's root. */
  catalog(persona: string, options: EnvOptions): string {
    const machine = new Machine(options);
    this.#base.entry(persona);
    const [packed, text] = this.#packed(persona);
    const drop = new Set(packed.included.filter((c) => this.#lacks(machine, c)));
    const rooted = this.#tiers.some(([, , root]) => root !== null);
    if (drop.size === 0 && !rooted) return text;
    const split = this.#base.split() as SplitDoc;
    const frames = split.frames[persona] as Frames;
    return this.#render(split, frames, packed, (i) => (this.#tiers[i] as Present)[2], drop);
  }

  /** The command's requirements, by its winning tier's list (null: none). */
  #needs(command: string): Needs | null {
    const [i] = this.#merged().winning.get(command) as [number, SkillEntry];
    return own((this.#tiers[i] as Present)[1].requires(), command) ?? null;
  }

  /** Whether the machine lacks any of the command's requirements. */
  #lacks(machine: Machine, command: string): boolean {
    if (machine.everything) return false;
    const needs = this.#needs(command);
    return needs !== null && machine.lacks(needs.bins, needs.env);
  }

  // -- the calls, over the union ---------------------------------------------------------------

  skills(persona: string, options: EnvOptions): SkillInfo[] {
    const machine = new Machine(options);
    this.#base.meta(persona);
    const included = new Set(this.#packed(persona)[0].included);
    const out: SkillInfo[] = [];
    for (const command of this.#merged().commands) {
      const found = this.#visible(persona, command);
      if (found === null) continue;
      const [, skill, r] = found;
      if (r.access !== "stub" && this.#lacks(machine, command)) continue;
      out.push(skillInfo(command, skill, r, included.has(command)));
    }
    return out;
  }

  commands(persona: string, options: EnvOptions): string[] {
    return this.skills(persona, options)
      .filter((s) => s.user)
      .map((s) => s.command);
  }

  unavailable(persona: string, options: EnvOptions): Unavailable[] {
    const machine = new Machine(options);
    this.#base.entry(persona);
    const out: Unavailable[] = [];
    for (const command of this.#merged().commands) {
      const found = this.#visible(persona, command);
      if (found === null || found[2].access === "stub") continue;
      const needs = machine.everything ? null : this.#needs(command);
      const missing = needs === null ? [] : machine.missing(needs.bins, needs.env);
      if (missing.length) out.push(frozen({ command, missing }));
    }
    return out;
  }

  allCommands(): string[] {
    return [...this.#merged().commands];
  }

  load(persona: string, command: string, options: LoadOptions): LoadedSkill {
    const who = invoker(options.by);
    const given = optionalText(options.base, "base");
    const [i, skill, r] = this.#resolved(persona, command);
    mayInvoke(persona, command, r, who);
    const [, view, root] = this.#tiers[i] as Present;
    const body = view.objects.text(r.body);
    return loadedSkill({
      persona,
      command,
      skill,
      r,
      body,
      children: () => this.#subSkills(persona, command), // read after the body
      args: options.args,
      params: options.params ?? null,
      base: given ?? baseOf(skill.path, root),
      knowledge: view.index.knowledge,
    });
  }

  #subSkills(persona: string, command: string): SubSkill[] {
    const out: SubSkill[] = [];
    for (const child of this.#merged().children.get(command) ?? []) {
      const found = this.#visible(persona, child);
      if (found !== null && found[2].model) {
        out.push(subSkillOf(child, found[1]));
      }
    }
    return out;
  }

  /** The view of the tier whose skill the pair is, once the stack found it (that view answers the
   * rest of the call from the same entry). */
  #tier(persona: string, command: string): View {
    return (this.#tiers[this.#resolved(persona, command)[0]] as Present)[1];
  }

  resources(persona: string, command: string, kind: string | null): string[] {
    return this.#tier(persona, command).resources(persona, command, kind);
  }

  resource(persona: string, command: string, path: string): Uint8Array {
    return this.#tier(persona, command).resource(persona, command, path);
  }

  missingRequirements(persona: string, command: string, options: EnvOptions): string[] {
    new Machine(options); // its arguments checked first, as a view checks them
    return this.#tier(persona, command).missingRequirements(persona, command, options);
  }

  materialize(persona: string, command: string, dest: string, options: MaterializeOptions): string {
    const who = invoker(options.by);
    const [i, , r] = this.#resolved(persona, command);
    mayInvoke(persona, command, r, who);
    return (this.#tiers[i] as Present)[1].materialize(persona, command, dest, { ...options, by: who });
  }

  skillMeta(command: string): SkillMeta {
    const model = this.#merged();
    const found = model.winning.get(command);
    if (found === undefined) throw this.#unknown("*", command);
    return skillMeta(command, found[1], model.parent(command), model.children.get(command) ?? []);
  }

  /** The object from the last tier that has it (objects are named by their bytes: any tier's copy is
   * the same). */
  readObject(digest: string): Uint8Array {
    if (!isDigest(digest)) throw new FormatError(`${JSON.stringify(digest)} is not a sha256 digest`);
    for (let i = this.#tiers.length - 1; i >= 0; i--) {
      const view = (this.#tiers[i] as Present)[1];
      if (exists(objectFile(view.path, digest))) return view.readObject(digest);
    }
    throw new IntegrityError(`object ${digest}: in none of the stack's builds`);
  }

  personaContext(persona: string): PersonaContext {
    return this.#base.personaContext(persona);
  }

  personaMeta(persona: string): PersonaMeta {
    const m = this.#base.meta(persona);
    const [packed, text] = this.#packed(persona);
    const shortened = [...packed.descriptions.keys()].sort(byCodePoint);
    return personaMetaOf(persona, m, codePoints(text), packed.included, packed.leftOut, shortened);
  }

  resolution(persona: string, command: string): Resolution {
    const [, , r] = this.#resolved(persona, command);
    return resolutionOf(r, this.#packed(persona)[0].included.includes(command));
  }
}

/** Whether anything (a file, a folder, a link) is at path, as os.path.lexists says. */
function exists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/** CannotStack where the stack cannot answer as one build compiled from the tiers' sources
 * (docs/format.md §16.2), checked in this order. */
function cannotStack(tiers: readonly Present[]): void {
  const [place, base] = tiers[0] as Present;
  const ids = Object.keys(base.index.personas).sort(byCodePoint);
  const named = (list: readonly string[]): string => list.join(", ") || "none";
  for (const [otherPlace, view] of tiers.slice(1)) {
    const theirs = Object.keys(view.index.personas).sort(byCodePoint);
    if (theirs.join("\n") !== ids.join("\n") || theirs.length !== ids.length) {
      throw new CannotStack(
        `tier ${otherPlace} (${view.path}) has personas ${named(theirs)}; tier ${place} ` +
          `(${base.path}) has ${named(ids)}: builds with other personas do not stack`,
      );
    }
    if (view.index.personas_hash !== base.index.personas_hash) {
      throw new CannotStack(
        `tier ${otherPlace} (${view.path}) was built from other persona files than tier ${place} ` +
          `(${base.path}): their manifests, overlays or exclusive bodies differ`,
      );
    }
  }
  if (base.index.config.priority.length) {
    throw new CannotStack(
      `tier ${place} (${base.path}) ranks its catalog by budgets.priority, which a stack cannot apply ` +
        "to the other tiers' skills",
    );
  }
  const split = base.split();
  const unsplit =
    split === null
      ? []
      : Object.entries(split.frames)
          .filter(([, f]) => f === null)
          .map(([pid]) => pid);
  if (split === null || unsplit.length) {
    const which = split === null ? "" : ` for ${unsplit.join(", ")}`;
    throw new CannotStack(
      `tier ${place} (${base.path}): its catalog template does not split into frame and entries${which} ` +
        "(SKC603), so the other tiers' skills cannot be rendered into its catalog",
    );
  }
}
