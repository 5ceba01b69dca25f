/**
 * A compiled dist/ (format 2), served to an application: the Python reader's Dist, method for method.
 *
 * open() reads and checks the small top-level index once; every later read is a content-addressed,
 * hash-checked object, so an open Dist keeps serving the build it opened after a rebuild (until the
 * rebuild prunes that build's objects: then DistRebuilt). Each document is checked before it is
 * served, and a skill entry only when a call serves it: a malformed neighbour fails only the calls
 * that read it (skills(), allCommands() and UnknownSkill's list read every entry).
 */

import { resolve } from "node:path";
import { checkPersonaMeta, checkShard, checkShardSkill, checkShardTable } from "./checks.js";
import type {
  IndexDoc,
  PersonaEntry,
  PersonaMetaDoc,
  ResolutionDoc,
  SkillEntry,
  TableNode,
} from "./documents.js";
import {
  DistRebuilt,
  FormatError,
  IntegrityError,
  UnknownPersona,
  UnknownResource,
  UnknownSkill,
} from "./errors.js";
import { FileRefused, readRegular } from "./files.js";
import {
  MAX_FILES,
  MAX_INDEX_BYTES,
  MAX_OBJECT_BYTES,
  MAX_TABLE_DEPTH,
  nodeWidth,
  shardOf,
} from "./format.js";
import { frontmatterValue } from "./frontmatter.js";
import { orderedKeys, type JsonObject, type JsonValue } from "./jsonvalue.js";
import { materializeSkill } from "./materialize.js";
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
import { documentValue, integrity, objectFile, readIndex, utf8 } from "./store.js";
import { argumentNames, substitute, type Args } from "./substitute.js";

export interface ArgsOptions {
  /** Arguments as typed (a string, split shell-style) or already split; absent: none. */
  readonly args?: Args | null;
}

export interface KindOptions {
  /** Only resources below this top folder (scripts, references, assets). */
  readonly kind?: string | null;
}

/** Open a dist/ directory: reads and checks its top-level index (FormatError if unusable). */
export function open(path: string): Dist {
  return new Dist(path);
}

export class Dist {
  /** The directory, made absolute at open (symbolic links in it not resolved): a later chdir changes nothing. */
  readonly path: string;
  readonly #index: IndexDoc;
  readonly #shards = new Map<string, JsonObject>(); // shard name -> its skills
  readonly #checked = new Set<string>(); // commands whose shard entry has been checked
  readonly #nodes = new Map<string, TableNode>(); // shard-table nodes read so far, by object
  readonly #metas = new Map<string, PersonaMetaDoc>();

  constructor(path: string) {
    this.path = resolve(path);
    this.#index = readIndex(path);
  }

  buildHash(): string {
    return this.#index.build_hash;
  }

  personas(): string[] {
    return Object.keys(this.#index.personas).sort(byCodePoint);
  }

  // -- objects ----------------------------------------------------------------------------------

  #object(digest: string, limit: number = MAX_OBJECT_BYTES): Uint8Array {
    const where = objectFile(this.path, digest);
    let data: Uint8Array;
    try {
      data = readRegular(where, limit);
    } catch (err) {
      if (!(err instanceof FileRefused)) throw err;
      if (err.code === "ENOENT") {
        this.#raiseIfRebuilt(where);
        throw new IntegrityError(`${where}: missing (dist/ is incomplete; rebuild it)`);
      }
      throw new IntegrityError(`cannot read object: ${err.message}`);
    }
    return integrity(data, digest, where);
  }

  #raiseIfRebuilt(where: string): void {
    let now: string;
    try {
      now = readIndex(this.path).build_hash;
    } catch (err) {
      if (err instanceof FormatError) return;
      throw err;
    }
    if (now !== this.buildHash()) {
      throw new DistRebuilt(
        `${where}: ${this.path} was rebuilt since it was opened (build ${this.buildHash().slice(0, 12)} -> ` +
          `${now.slice(0, 12)}) and the opened build's objects were pruned; reopen it with open()`,
      );
    }
  }

  #text(digest: string): string {
    const text = utf8(this.#object(digest));
    if (text === null) throw new FormatError(`object ${digest}: not UTF-8 text`);
    return text;
  }

  #json(digest: string): JsonValue {
    return documentValue(this.#object(digest, MAX_INDEX_BYTES), `object ${digest}`);
  }

  #meta(persona: string): PersonaMetaDoc {
    let meta = this.#metas.get(persona);
    if (meta === undefined) {
      const digest = this.#entry(persona).meta;
      meta = checkPersonaMeta(this.#json(digest), persona, `object ${digest}`);
      this.#metas.set(persona, meta);
    }
    return meta;
  }

  #entry(persona: string): PersonaEntry {
    const entry = own(this.#index.personas, persona);
    if (entry === undefined) throw new UnknownPersona(persona, this.personas());
    return entry;
  }

  /** One node of the shard table, checked; open() and catalog() never read it. */
  #node(digest: string, prefix: string): TableNode {
    let node = this.#nodes.get(digest);
    if (node === undefined) {
      node = checkShardTable(this.#json(digest), prefix, `object ${digest}`);
      this.#nodes.set(digest, node);
    }
    return node;
  }

  /** [shard name, shard object or null] of a command, walking the table from its root. */
  #shardOf(command: string): [string, string | null] {
    const full = shardOf(command, 64);
    let [digest, prefix] = [this.#index.shards, ""];
    for (let level = 0; level < MAX_TABLE_DEPTH; level++) {
      const node = this.#node(digest, prefix);
      const name = full.slice(0, nodeWidth(prefix));
      if (node.shards !== undefined) return [name, own(node.shards, name) ?? null];
      const child = own(node.tables as Record<string, string>, name);
      if (child === undefined) return [name, null];
      [digest, prefix] = [child, name];
    }
    throw new FormatError(`${this.path}: the shard table is deeper than ${MAX_TABLE_DEPTH} levels`);
  }

  /** Every [shard name, shard object] in the table, walking the whole tree. */
  #shardNames(digest: string = this.#index.shards, prefix = ""): [string, string][] {
    if (prefix.length >= MAX_TABLE_DEPTH) {
      throw new FormatError(`${this.path}: the shard table is deeper than ${MAX_TABLE_DEPTH} levels`);
    }
    const node = this.#node(digest, prefix); // depth first, parents before children, in file order
    const names = (node.shards ?? node.tables) as JsonObject & Record<string, string>;
    const here = orderedKeys(names).map((name): [string, string] => [name, names[name] as string]);
    if (node.shards !== undefined) return here;
    return here.flatMap(([name, child]) => this.#shardNames(child, name));
  }

  /** A shard's skills, its envelope checked; each entry is checked when first served (#skill). */
  #shard(name: string, digest: string | null): JsonObject {
    let shard = this.#shards.get(name);
    if (shard === undefined) {
      shard =
        digest === null
          ? {}
          : (checkShard(this.#json(digest), name, `object ${digest}`).skills as JsonObject);
      this.#shards.set(name, shard);
    }
    return shard;
  }

  #skill(command: string): SkillEntry | null {
    const [name, digest] = this.#shardOf(command);
    const entry = own(this.#shard(name, digest), command) ?? null;
    if (entry !== null && !this.#checked.has(command)) {
      checkShardSkill(entry, command, this.#index.personas, `object ${digest}`);
      this.#checked.add(command);
    }
    return entry as SkillEntry | null;
  }

  /** Every skill of the build, each entry checked, by command in code point order. */
  #allSkills(): [string, SkillEntry][] {
    const out: [string, SkillEntry][] = [];
    const shards = this.#shardNames().sort(([a], [b]) => byCodePoint(a, b));
    for (const [name, digest] of shards) {
      for (const command of orderedKeys(this.#shard(name, digest))) {
        const entry = this.#skill(command);
        if (entry !== null) out.push([command, entry]);
      }
    }
    return out.sort(([a], [b]) => byCodePoint(a, b));
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
    const skill = this.#skill(command);
    const r = Dist.#visible(skill, persona);
    if (skill === null || r === null) {
      const visible = this.#allSkills()
        .filter(([, s]) => Dist.#visible(s, persona) !== null)
        .map(([c]) => c);
      throw new UnknownSkill(persona, command, visible);
    }
    return [skill, r];
  }

  // -- tier 1 -----------------------------------------------------------------------------------

  /** The persona's precomputed tier-1 catalog fragment. */
  catalog(persona: string): string {
    return this.#text(this.#entry(persona).prompt);
  }

  skills(persona: string): SkillInfo[] {
    const included = new Set(this.#meta(persona).included);
    const out: SkillInfo[] = [];
    for (const [command, skill] of this.#allSkills()) {
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
    const text = this.#text(r.body);
    const body = substitute(text, options.args, { names: argumentNames(own(fm, "arguments")) });
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
    });
  }

  #subSkills(persona: string, skill: SkillEntry): SubSkill[] {
    const out: SubSkill[] = [];
    for (const child of skill.children) {
      const c = this.#skill(child);
      const r = Dist.#visible(c, persona);
      if (c !== null && r !== null && r.model) {
        out.push(frozen({ command: child, name: c.name, description: c.description }));
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
      if (res.path === path) return this.#object(res.sha256, count(res.size));
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
   * SKILL.md holds the resolved body (arguments substituted, `${CLAUDE_SKILL_DIR}` = dest), every
   * resource follows with its executable bit. dest must be missing or empty; nothing is ever
   * written outside it. Returns dest as an absolute path.
   */
  materialize(persona: string, command: string, dest: string, options: ArgsOptions = {}): string {
    const [skill, r] = this.#resolved(persona, command);
    const names = argumentNames(own(skill.frontmatter, "arguments"));
    return materializeSkill(command, skill, Dist.#resources(skill, r), dest, {
      body: (root) => substitute(this.#text(r.body), options.args, { names, skillDir: root }),
      bytes: (res) => this.#object(res.sha256, count(res.size)),
    });
  }

  // -- metadata for tools -----------------------------------------------------------------------

  allCommands(): string[] {
    return this.#allSkills().map(([c]) => c);
  }

  skillMeta(command: string): SkillMeta {
    const s = this.#skill(command);
    if (s === null) throw new UnknownSkill("*", command, this.allCommands());
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
    });
  }

  /** The bytes of one object of this build, hash-checked: for tools (diff, audit) that hold a digest
   * from skillMeta, resolution or ResourceMeta. */
  readObject(digest: string): Uint8Array {
    if (typeof digest !== "string" || !/^[0-9a-f]{64}$/.test(digest)) {
      throw new FormatError(`${JSON.stringify(digest)} is not a sha256 digest`);
    }
    return this.#object(digest);
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
