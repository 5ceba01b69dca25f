/**
 * A compiled dist/ (format 2), served to an application: the Python reader's Dist, method for method.
 *
 * open() reads and checks the small top-level index once; every later read is a content-addressed,
 * hash-checked object, so an open Dist keeps serving the build it opened after a rebuild (until the
 * rebuild prunes that build's objects: then DistRebuilt). Each document is checked before it is
 * served, and a skill entry only when a call serves it: a malformed neighbour fails only the calls
 * that read it (skills(), allCommands() and UnknownSkill's `visible`, when asked for, read every entry).
 */

import { resolve } from "node:path";
import { checkPersonaMeta } from "./checks.js";
import type { IndexDoc, PersonaEntry, PersonaMetaDoc, ResolutionDoc, SkillEntry } from "./documents.js";
import { FormatError, UnknownPersona, UnknownResource, UnknownSkill } from "./errors.js";
import { MAX_FILES } from "./format.js";
import { frontmatterValue } from "./frontmatter.js";
import { materializeSkill } from "./materialize.js";
import { suggestions } from "./nearby.js";
import { byCodePoint, own } from "./paths.js";
import {
  count,
  frozen,
  type LoadedSkill,
  type PersonaMeta,
  type Resolution,
  type SkillInfo,
  type SkillMeta,
  type SubSkill,
} from "./records.js";
import { missingIn, type RequirementOptions } from "./requirements.js";
import { Objects, readIndex } from "./store.js";
import { argumentNames, substitute, type Args, type Params } from "./substitute.js";
import { SkillTable } from "./table.js";

export interface ArgsOptions {
  /** Arguments as typed (a string, split shell-style) or already split; absent: none. */
  readonly args?: Args | null;
  /** Values for `${CLAUDE_SESSION_ID}`, `${CLAUDE_EFFORT}`, `${CLAUDE_PROJECT_DIR}`; absent: none. */
  readonly params?: Params | null;
}

export interface KindOptions {
  /** Only resources below this top folder (scripts, references, assets). */
  readonly kind?: string | null;
}

/** Open a dist/ directory: reads and checks its top-level index (FormatError if unusable). */
/** What a skill is shown as (docs/format.md §7): its frontmatter `name` as written when it is a
 * non-empty string (a display name such as `Sven Plan`), else the entry's `name`. */
function label(skill: SkillEntry): string {
  const written = own(skill.frontmatter, "name");
  return typeof written === "string" && written !== "" ? written : skill.name;
}

export function open(path: string): Dist {
  return new Dist(path);
}

export class Dist {
  /** The directory, made absolute at open (symbolic links in it not resolved): a later chdir changes nothing. */
  readonly path: string;
  readonly #index: IndexDoc;
  readonly #objects: Objects;
  readonly #table: SkillTable;
  readonly #metas = new Map<string, PersonaMetaDoc>(); // persona metas read and checked so far
  // Catalogs read and hash-checked, by persona: an object never changes under its name, and a
  // rebuild is another build, which open() opens again.
  readonly #catalogs = new Map<string, string>();

  constructor(path: string) {
    this.path = resolve(path);
    this.#index = readIndex(this.path);
    this.#objects = new Objects(this.path, this.#index.build_hash);
    this.#table = new SkillTable(this.#objects, this.#index.shards, this.#index.personas);
  }

  buildHash(): string {
    return this.#index.build_hash;
  }

  personas(): string[] {
    return Object.keys(this.#index.personas).sort(byCodePoint);
  }

  #meta(persona: string): PersonaMetaDoc {
    let meta = this.#metas.get(persona);
    if (meta === undefined) {
      const digest = this.#entry(persona).meta;
      meta = checkPersonaMeta(this.#objects.json(digest), persona, `object ${digest}`);
      this.#metas.set(persona, meta);
    }
    return meta;
  }

  #entry(persona: string): PersonaEntry {
    const entry = own(this.#index.personas, persona);
    if (entry === undefined) throw new UnknownPersona(persona, this.personas());
    return entry;
  }

  /** The pair's resolution, or null when the persona does not see the skill. */
  static #visible(skill: SkillEntry | null, persona: string): ResolutionDoc | null {
    if (skill === null) return null;
    const exceptions = skill.exceptions;
    return Object.prototype.hasOwnProperty.call(exceptions, persona)
      ? (exceptions[persona] ?? null)
      : skill.default;
  }

  /** [skill entry, resolution] of a pair the persona sees; UnknownPersona or UnknownSkill otherwise. */
  #resolved(persona: string, command: string): [SkillEntry, ResolutionDoc] {
    this.#entry(persona);
    const skill = this.#table.skill(command);
    const r = Dist.#visible(skill, persona);
    if (skill === null || r === null) throw this.#unknown(persona, command);
    return [skill, r];
  }

  /** The UnknownSkill of a command the persona does not see (persona "*": of one that does not
   * exist), with close commands found in a few reads; the full list is read only if asked for. */
  #unknown(persona: string, command: string): UnknownSkill {
    const all = persona === "*";
    const near = suggestions(
      command,
      all ? null : this.catalog(persona),
      (above) => this.#table.skill(above)?.children ?? null,
      (c) => {
        const s = this.#table.skill(c);
        return s !== null && (all || Dist.#visible(s, persona) !== null);
      },
    );
    const visible = (): string[] =>
      this.#table
        .all()
        .filter(([, s]) => all || Dist.#visible(s, persona) !== null)
        .map(([c]) => c);
    return new UnknownSkill(persona, command, visible, near);
  }

  // -- tier 1 -----------------------------------------------------------------------------------

  /** The persona's precomputed tier-1 catalog fragment. */
  catalog(persona: string): string {
    let text = this.#catalogs.get(persona);
    if (text === undefined) {
      text = this.#objects.text(this.#entry(persona).prompt);
      this.#catalogs.set(persona, text);
    }
    return text;
  }

  skills(persona: string): SkillInfo[] {
    const included = new Set(this.#meta(persona).included);
    const out: SkillInfo[] = [];
    for (const [command, skill] of this.#table.all()) {
      const r = Dist.#visible(skill, persona);
      if (r === null) continue;
      const fm = skill.frontmatter;
      out.push(
        frozen({
          command,
          name: skill.name,
          description: skill.description,
          access: r.access,
          model: r.model,
          user: r.user,
          inCatalog: included.has(command),
          argumentHint: (own(fm, "argument-hint") as string | undefined) ?? null,
          context: (own(fm, "context") as string | undefined) ?? "inline",
          label: label(skill),
        }),
      );
    }
    return out;
  }

  /** Slash commands the user may type for this persona. */
  commands(persona: string): string[] {
    return this.skills(persona)
      .filter((s) => s.user)
      .map((s) => s.command);
  }

  // -- tier 2 -----------------------------------------------------------------------------------

  load(persona: string, command: string, options: ArgsOptions = {}): LoadedSkill {
    const [skill, r] = this.#resolved(persona, command);
    const fm = skill.frontmatter;
    const stub = r.access === "stub"; // the stub is all such a persona gets: no files, no knowledge docs
    const text = this.#objects.text(r.body);
    const names = argumentNames(own(fm, "arguments"));
    const body = substitute(text, options.args, { names, params: options.params ?? null });
    return frozen({
      persona,
      command,
      name: skill.name,
      description: skill.description,
      body,
      access: r.access,
      overlay: r.overlay,
      files: Dist.#resources(skill, r)
        .map((res) => res.path)
        .slice(0, MAX_FILES),
      subSkills: stub ? [] : this.#subSkills(persona, skill),
      context: (own(fm, "context") as string | undefined) ?? "inline",
      agent: (own(fm, "agent") as string | undefined) ?? null,
      model: (own(fm, "model") as string | undefined) ?? null,
      allowedTools: [...((own(fm, "allowed-tools") as string[] | undefined) ?? [])],
      knowledge: stub ? [] : [...((own(fm, "knowledge") as string[] | undefined) ?? [])],
      label: label(skill),
    });
  }

  #subSkills(persona: string, skill: SkillEntry): SubSkill[] {
    const out: SubSkill[] = [];
    for (const child of skill.children) {
      const c = this.#table.skill(child);
      const r = Dist.#visible(c, persona);
      if (c !== null && r !== null && r.model) {
        out.push(frozen({ command: child, name: c.name, description: c.description, label: label(c) }));
      }
    }
    return out;
  }

  // -- tier 3 -----------------------------------------------------------------------------------

  /** A stub exposes nothing of the exclusive skill but the stub itself. */
  static #resources(skill: SkillEntry, r: ResolutionDoc): SkillEntry["resources"] {
    return r.access === "stub" ? [] : skill.resources;
  }

  /** Resource paths of a skill; kind filters by top folder (scripts, references, assets). */
  resources(persona: string, command: string, options: KindOptions = {}): string[] {
    const [skill, r] = this.#resolved(persona, command);
    const paths = Dist.#resources(skill, r).map((res) => res.path);
    const kind = options.kind;
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
    for (const res of Dist.#resources(skill, r)) {
      if (res.path === path) return this.#objects.bytes(res.sha256, count(res.size));
    }
    throw new UnknownResource(`${JSON.stringify(path)} is not a resource of ${JSON.stringify(command)}`);
  }

  /**
   * sven's availability guards, checked on this machine: ["bin:docker", "env:TOKEN"]. A variable is
   * missing when unset or empty in `env` (default: the process environment); a program when no
   * directory of env's PATH holds it (`which` replaces that search). A stub persona gets [].
   */
  missingRequirements(persona: string, command: string, options: RequirementOptions = {}): string[] {
    const [skill, r] = this.#resolved(persona, command);
    if (r.access === "stub") return [];
    return missingIn(skill.frontmatter, options);
  }

  /**
   * Write the resolved skill folder into dest, as a workspace mounts a skill into a task folder:
   * SKILL.md holds the resolved body (arguments and params substituted, `${CLAUDE_SKILL_DIR}` = dest), every
   * resource follows with its executable bit. dest must be missing or empty; nothing is ever
   * written outside it. Returns dest as an absolute path.
   */
  materialize(persona: string, command: string, dest: string, options: ArgsOptions = {}): string {
    const [skill, r] = this.#resolved(persona, command);
    const names = argumentNames(own(skill.frontmatter, "arguments"));
    return materializeSkill(command, skill, Dist.#resources(skill, r), dest, {
      body: (root) =>
        substitute(this.#objects.text(r.body), options.args, {
          names,
          skillDir: root,
          params: options.params ?? null,
        }),
      bytes: (res) => this.#objects.bytes(res.sha256, count(res.size)),
    });
  }

  // -- metadata for tools -----------------------------------------------------------------------

  allCommands(): string[] {
    return this.#table.all().map(([c]) => c);
  }

  skillMeta(command: string): SkillMeta {
    const s = this.#table.skill(command);
    if (s === null) throw this.#unknown("*", command);
    return frozen({
      command,
      name: s.name,
      description: s.description,
      source: s.source,
      path: s.path,
      frontmatter: frontmatterValue(s.frontmatter),
      bodySha256: s.body,
      resources: s.resources.map((r) =>
        frozen({ path: r.path, sha256: r.sha256, size: count(r.size), executable: r.executable }),
      ),
      parent: s.parent,
      children: [...s.children],
      label: label(s),
    });
  }

  /** The bytes of one object of this build, hash-checked: for tools (diff, audit) that hold a digest
   * from skillMeta, resolution or ResourceMeta. */
  readObject(digest: string): Uint8Array {
    if (typeof digest !== "string" || !/^[0-9a-f]{64}$/.test(digest)) {
      throw new FormatError(`${JSON.stringify(digest)} is not a sha256 digest`);
    }
    return this.#objects.bytes(digest);
  }

  personaMeta(persona: string): PersonaMeta {
    const m = this.#meta(persona);
    const entry = this.#entry(persona);
    return frozen({
      id: persona,
      name: m.name,
      faction: m.faction,
      fallback: m.fallback,
      chain: [...m.chain],
      unrestricted: m.unrestricted,
      allowlist: m.allowlist === null ? null : Object.freeze([...m.allowlist]),
      budget: count(m.budget),
      catalogChars: count(entry.chars),
      included: [...m.included],
      leftOut: [...m.left_out],
      shortened: [...m.shortened],
    });
  }

  resolution(persona: string, command: string): Resolution {
    const [, r] = this.#resolved(persona, command);
    const inCatalog = this.#meta(persona).included.includes(command);
    return frozen({
      access: r.access,
      via: r.via,
      overlay: r.overlay,
      model: r.model,
      user: r.user,
      inCatalog,
      bodySha256: r.body,
    });
  }
}
