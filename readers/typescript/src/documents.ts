/** The shapes of format 3's JSON documents once checked (checks.ts holds the checks). */

import type { JsonObject, JsonValue } from "./jsonvalue.js";

export interface IndexDoc {
  format: number;
  generator: string;
  build_hash: string;
  config: {
    sources: string[];
    personas: string | null;
    template: string;
    catalog_chars: number;
    priority: string[];
  };
  personas: Record<string, PersonaEntry>;
  shards: string;
  split: string | null;
  requires: string | null;
  personas_hash: string | null;
  knowledge: KnowledgeIndex | null;
}

/** The build's knowledge folder and the titles found there (sven's `knowledge:` docs). */
export interface KnowledgeIndex {
  folder: string;
  titles: Record<string, string>;
}

export interface PersonaEntry {
  prompt: string;
  chars: number;
  meta: string;
  copy: string;
  plan: string | null;
}

/** A node of the shard table: `shards` (shard name -> shard object) or `tables` (prefix -> node). */
export interface TableNode {
  format: number;
  prefix: string;
  shards?: Record<string, string>;
  tables?: Record<string, string>;
}

export interface ShardDoc {
  format: number;
  shard: string;
  skills: Record<string, JsonValue>; // each entry checked (as a SkillEntry) when first served
}

export interface ResourceEntry {
  path: string;
  sha256: string;
  size: number;
  executable: boolean;
}

export interface ResolutionDoc {
  access: string;
  via: string | null;
  body: string;
  overlay: string | null;
  model: boolean;
  user: boolean;
}

export interface SkillEntry {
  name: string;
  description: string;
  source: string;
  path: string;
  frontmatter: JsonObject;
  body: string;
  resources: ResourceEntry[];
  parent: string | null;
  children: string[];
  default: ResolutionDoc | null;
  exceptions: Record<string, ResolutionDoc | null>;
}

export interface PersonaMetaDoc {
  format: number;
  id: string;
  name: string;
  faction: string | null;
  fallback: string | null;
  chain: string[];
  unrestricted: boolean;
  allowlist: string[] | null;
  budget: number;
  included: string[];
  left_out: string[];
  shortened: string[];
  strategy: string;
}

/** A piece of an entry pattern: fixed text, or a field's value (`lines`: line feeds as spaces). */
export type EntryPiece =
  string | { field: "command" | "name" | "label" | "description" | "location"; lines: boolean };

/** A piece of a frame pattern: fixed text, or the number of skills left out. */
export type FramePiece = string | { field: "omitted" };

/** A persona's frame: the catalog's text before and after its entries, by skills left out. */
export interface Frames {
  none: [string, string];
  one: [string, string];
  many: [FramePiece[], FramePiece[]];
}

/** The catalog template split into its frame and its entries (docs/format.md §4.5). */
export interface SplitDoc {
  format: number;
  markup: boolean;
  entry: EntryPiece[];
  always: EntryPiece[];
  frames: Record<string, Frames | null>;
}

/** Where one entry of a persona's catalog is, in code points, and where its relative locations start. */
export interface PlanEntry {
  command: string;
  start: number;
  end: number;
  locations: { at: number; lines: boolean }[];
}

/** A persona's plan of its catalog (docs/format.md §4.6). */
export interface PlanDoc {
  format: number;
  persona: string;
  markup: boolean;
  entries: PlanEntry[];
}

/** A skill's run-time requirements, as its frontmatter lists them (docs/format.md §4.7). */
export interface Needs {
  bins: string[];
  env: string[];
}
