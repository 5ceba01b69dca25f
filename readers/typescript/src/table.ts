/**
 * The shard table and its shards (docs/format.md §5): finding a command's entry, and listing every
 * entry. Every node, shard envelope and entry is checked before its first use, and kept once it
 * passed (objects never change); an entry is checked only when a call needs it.
 */

import { checkShard, checkShardSkill, checkShardTable } from "./checks.js";
import type { PersonaEntry, SkillEntry, TableNode } from "./documents.js";
import { FormatError } from "./errors.js";
import { MAX_TABLE_DEPTH, nodeWidth, shardOf } from "./format.js";
import { orderedKeys, type JsonObject } from "./jsonvalue.js";
import { byCodePoint, own } from "./paths.js";
import type { Objects } from "./store.js";

export class SkillTable {
  readonly #objects: Objects;
  readonly #root: string; // the root node's digest
  readonly #personas: Record<string, PersonaEntry>; // the index's: an exception must name one
  readonly #nodes = new Map<string, TableNode>(); // nodes read so far, by object
  readonly #shards = new Map<string, JsonObject>(); // shard name -> its skills
  readonly #checked = new Set<string>(); // commands whose entry has been checked

  constructor(objects: Objects, root: string, personas: Record<string, PersonaEntry>) {
    this.#objects = objects;
    this.#root = root;
    this.#personas = personas;
  }

  /** The command's entry, checked, or null when the build has no such command. */
  skill(command: string): SkillEntry | null {
    const [name, digest] = this.#shardOf(command);
    const entry = own(this.#shard(name, digest), command) ?? null;
    if (entry !== null && !this.#checked.has(command)) {
      checkShardSkill(entry, command, this.#personas, `object ${digest}`);
      this.#checked.add(command);
    }
    return entry as SkillEntry | null;
  }

  /** Every entry of the build, each checked, by command in code point order: the table's nodes
   * first, then each shard in name order with its entries in file order (§5.2). */
  all(): [string, SkillEntry][] {
    const out: [string, SkillEntry][] = [];
    const shards = this.#shardNames(this.#root, "").sort(([a], [b]) => byCodePoint(a, b));
    for (const [name, digest] of shards) {
      for (const command of orderedKeys(this.#shard(name, digest))) {
        const entry = this.skill(command);
        if (entry !== null) out.push([command, entry]);
      }
    }
    return out.sort(([a], [b]) => byCodePoint(a, b));
  }

  #node(digest: string, prefix: string): TableNode {
    let node = this.#nodes.get(digest);
    if (node === undefined) {
      node = checkShardTable(this.#objects.json(digest), prefix, `object ${digest}`);
      this.#nodes.set(digest, node);
    }
    return node;
  }

  /** [shard name, shard object or null] of a command, walking the table from its root. */
  #shardOf(command: string): [string, string | null] {
    const full = shardOf(command, 64);
    let [digest, prefix] = [this.#root, ""];
    for (let level = 0; level < MAX_TABLE_DEPTH; level++) {
      const node = this.#node(digest, prefix);
      const name = full.slice(0, nodeWidth(prefix));
      if (node.shards !== undefined) return [name, own(node.shards, name) ?? null];
      const child = own(node.tables as Record<string, string>, name);
      if (child === undefined) return [name, null];
      [digest, prefix] = [child, name];
    }
    throw new FormatError(`${this.#objects.root}: the shard table is deeper than ${MAX_TABLE_DEPTH} levels`);
  }

  /** Every [shard name, shard object] below a node: depth first, parents before children, file order. */
  #shardNames(digest: string, prefix: string): [string, string][] {
    if (prefix.length >= MAX_TABLE_DEPTH) {
      throw new FormatError(
        `${this.#objects.root}: the shard table is deeper than ${MAX_TABLE_DEPTH} levels`,
      );
    }
    const node = this.#node(digest, prefix);
    const names = (node.shards ?? node.tables) as JsonObject & Record<string, string>;
    const here = orderedKeys(names).map((name): [string, string] => [name, names[name] as string]);
    if (node.shards !== undefined) return here;
    return here.flatMap(([name, child]) => this.#shardNames(child, name));
  }

  /** A shard's skills, its envelope checked (a missing shard is an empty one). */
  #shard(name: string, digest: string | null): JsonObject {
    let shard = this.#shards.get(name);
    if (shard === undefined) {
      const doc = digest === null ? null : checkShard(this.#objects.json(digest), name, `object ${digest}`);
      shard = doc === null ? {} : (doc.skills as JsonObject);
      this.#shards.set(name, shard);
    }
    return shard;
  }
}
