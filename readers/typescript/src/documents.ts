/** The shapes of format 2's JSON documents once checked (checks.ts holds the checks). */

import type { JsonObject, JsonValue } from "./jsonvalue.js";

export interface IndexDoc {
  format: number;
  generator: string;
  build_hash: string;
  config: { sources: string[]; personas: string | null; template: string; catalog_chars: number };
  personas: Record<string, PersonaEntry>;
  shards: string;
}

export interface PersonaEntry {
  prompt: string;
  chars: number;
  meta: string;
  copy: string;
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
