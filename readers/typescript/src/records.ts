/** The reader's results: plain frozen objects with the Python records' fields, in camelCase. */

/** A frontmatter value as the index holds it (integers beyond 2^53 are bigints, kept exactly). */
export type FrontmatterValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | readonly FrontmatterValue[]
  | { readonly [key: string]: FrontmatterValue };

export interface SkillInfo {
  readonly command: string;
  readonly name: string;
  readonly description: string;
  readonly access: string;
  readonly model: boolean;
  readonly user: boolean;
  readonly inCatalog: boolean;
  readonly argumentHint: string | null;
  readonly context: string;
  /** What the skill is shown as: its frontmatter `name` as written, else `name` (docs/format.md §7). */
  readonly label: string;
}

export interface SubSkill {
  readonly command: string;
  readonly name: string;
  readonly description: string;
  readonly label: string;
}

export interface LoadedSkill {
  readonly persona: string;
  readonly command: string;
  readonly name: string;
  readonly description: string;
  readonly body: string;
  readonly access: string;
  readonly overlay: string | null;
  readonly files: readonly string[];
  readonly subSkills: readonly SubSkill[];
  readonly context: string;
  readonly agent: string | null;
  readonly model: string | null;
  readonly allowedTools: readonly string[];
  readonly knowledge: readonly string[];
  readonly label: string;
}

export interface ResourceMeta {
  readonly path: string;
  readonly sha256: string;
  readonly size: number;
  readonly executable: boolean;
}

export interface SkillMeta {
  readonly command: string;
  readonly name: string;
  readonly description: string;
  readonly source: string;
  readonly path: string;
  readonly frontmatter: { readonly [key: string]: FrontmatterValue };
  readonly bodySha256: string;
  readonly resources: readonly ResourceMeta[];
  readonly parent: string | null;
  readonly children: readonly string[];
  readonly label: string;
}

export interface PersonaMeta {
  readonly id: string;
  readonly name: string;
  readonly faction: string | null;
  readonly fallback: string | null;
  readonly chain: readonly string[];
  readonly unrestricted: boolean;
  readonly allowlist: readonly string[] | null;
  readonly budget: number;
  readonly catalogChars: number;
  readonly included: readonly string[];
  readonly leftOut: readonly string[];
  /** Descriptions the budget shortened (strategy shorten / names-only). */
  readonly shortened: readonly string[];
}

export interface Resolution {
  readonly access: string;
  readonly via: string | null;
  readonly overlay: string | null;
  readonly model: boolean;
  readonly user: boolean;
  readonly inCatalog: boolean;
  readonly bodySha256: string;
}

/** A record as a frozen object (its arrays frozen too). */
export function frozen<T extends object>(record: T): T {
  for (const value of Object.values(record)) if (Array.isArray(value)) Object.freeze(value);
  return Object.freeze(record);
}

/** A size or count as a number: the format allows integers up to 2^64, a number is exact to 2^53. */
export function count(value: number | bigint): number {
  return Number(value);
}
