/** The reader's results: plain frozen objects with the Python records' fields, in camelCase, and how
 * each is made from the documents it reports (a view and a stack make them alike). */

import type { PersonaMetaDoc, ResolutionDoc, SkillEntry } from "./documents.js";
import { frontmatterValue } from "./frontmatter.js";
import { own } from "./paths.js";

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
  /** The skill's folder on this machine, when known: the body then begins with Claude Code's
   * `Base directory for this skill:` line, and `${CLAUDE_SKILL_DIR}` is it. */
  readonly base: string | null;
  /** The `knowledge` entries as docs: in the build's knowledge folder, with their titles. */
  readonly knowledgeDocs: readonly KnowledgeDoc[];
  readonly label: string;
}

/** A knowledge doc a skill names (sven's `knowledge:`): its path (in the build's knowledge folder,
 * when it has one) and its title, when the build found one. */
export interface KnowledgeDoc {
  readonly path: string;
  readonly title: string | null;
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

/** A skill an environment lacks requirements for, and what it lacks (`bin:NAME`, `env:NAME`). */
export interface Unavailable {
  readonly command: string;
  readonly missing: readonly string[];
}

/** A skill of a tier that a later tier's skill of the same command hides: `tier` and `by` are their
 * places in the list given to open(). */
export interface Shadowed {
  readonly command: string;
  readonly tier: number;
  readonly by: number;
}

/** ARIA's `persona_context`: the persona, its fallback, whether it may have every exclusive skill,
 * and where its skill overlays are (and its fallback's), in the build's personas folder. */
export interface PersonaContext {
  readonly persona: string;
  readonly fallback: string | null;
  readonly unrestrictedSkills: boolean;
  readonly skillOverlayPath: string | null;
  readonly overlayFallbackPath: string | null;
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

// -- records made from the documents --------------------------------------------------------

/** What a skill is shown as (docs/format.md §7): its frontmatter `name` as written when it is a
 * non-empty string (a display name such as `Sven Plan`), else the entry's `name`. */
export function labelOf(skill: SkillEntry): string {
  const written = own(skill.frontmatter, "name");
  return typeof written === "string" && written !== "" ? written : skill.name;
}

/** A child skill as load() lists it under its parent (`command` is the child's). */
export function subSkillOf(command: string, skill: SkillEntry): SubSkill {
  return frozen({ command, name: skill.name, description: skill.description, label: labelOf(skill) });
}

/** A SkillInfo of a visible pair. */
export function skillInfo(
  command: string,
  skill: SkillEntry,
  r: ResolutionDoc,
  inCatalog: boolean,
): SkillInfo {
  const fm = skill.frontmatter;
  return frozen({
    command,
    name: skill.name,
    description: skill.description,
    access: r.access,
    model: r.model,
    user: r.user,
    inCatalog,
    argumentHint: (own(fm, "argument-hint") as string | undefined) ?? null,
    context: (own(fm, "context") as string | undefined) ?? "inline",
    label: labelOf(skill),
  });
}

/** A SkillMeta of an entry, with the links given (a stack's are the union's). */
export function skillMeta(
  command: string,
  s: SkillEntry,
  parent: string | null,
  children: readonly string[],
): SkillMeta {
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
    parent,
    children: [...children],
    label: labelOf(s),
  });
}

/** A Resolution record. */
export function resolutionOf(r: ResolutionDoc, inCatalog: boolean): Resolution {
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

/** A PersonaMeta record: the meta's fields, with the catalog's packing given. */
export function personaMetaOf(
  persona: string,
  m: PersonaMetaDoc,
  catalogChars: number,
  included: readonly string[],
  leftOut: readonly string[],
  shortened: readonly string[],
): PersonaMeta {
  return frozen({
    id: persona,
    name: m.name,
    faction: m.faction,
    fallback: m.fallback,
    chain: [...m.chain],
    unrestricted: m.unrestricted,
    allowlist: m.allowlist === null ? null : Object.freeze([...m.allowlist]),
    budget: count(m.budget),
    catalogChars,
    included: [...included],
    leftOut: [...leftOut],
    shortened: [...shortened],
  });
}
