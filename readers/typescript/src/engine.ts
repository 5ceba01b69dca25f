/**
 * What a handle answers a call from, once it has looked at its builds' indexes: one build (view.ts)
 * or a stack of them (stack.ts), with the same calls; and the options those calls take.
 */

import type { EnvOptions } from "./available.js";
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
import type { Args, Params } from "./substitute.js";

/** Who invokes a skill: the model (a tool call) or the user (a slash command). */
export type Invoker = "model" | "user";

export interface ArgsOptions {
  /** Arguments as typed (a string, split shell-style) or already split; absent: none. */
  readonly args?: Args | null;
  /** Values for `${CLAUDE_SESSION_ID}`, `${CLAUDE_EFFORT}`, `${CLAUDE_PROJECT_DIR}`; absent: none. */
  readonly params?: Params | null;
}

export interface MaterializeOptions extends ArgsOptions {
  /** Who invokes the skill (default "model"): NotInvocable when the build says that one may not. */
  readonly by?: Invoker;
}

export interface LoadOptions extends MaterializeOptions {
  /** The skill's folder on this machine (default: under its build's root, when the handle has one):
   * the body then begins with Claude Code's `Base directory for this skill:` line, and
   * `${CLAUDE_SKILL_DIR}` is it. */
  readonly base?: string | null;
}

export interface CatalogOptions extends EnvOptions {
  /** The folder the build's paths are relative to here, for this call (one build only; a stack's
   * tiers have theirs): its locations are then absolute. */
  readonly root?: string | null;
}

export interface KindOptions {
  /** Only resources below this top folder (scripts, references, assets). */
  readonly kind?: string | null;
}

/** One build, or a stack of builds answered as one: every call a handle forwards. */
export interface Engine {
  buildHash(): string;
  personas(): string[];
  shadowed(): Shadowed[];
  catalog(persona: string, options: EnvOptions, root?: string | null): string;
  skills(persona: string, options: EnvOptions): SkillInfo[];
  commands(persona: string, options: EnvOptions): string[];
  unavailable(persona: string, options: EnvOptions): Unavailable[];
  allCommands(): string[];
  load(persona: string, command: string, options: LoadOptions): LoadedSkill;
  resources(persona: string, command: string, kind: string | null): string[];
  resource(persona: string, command: string, path: string): Uint8Array;
  missingRequirements(persona: string, command: string, options: EnvOptions): string[];
  materialize(persona: string, command: string, dest: string, options: MaterializeOptions): string;
  skillMeta(command: string): SkillMeta;
  readObject(digest: string): Uint8Array;
  personaMeta(persona: string): PersonaMeta;
  personaContext(persona: string): PersonaContext;
  resolution(persona: string, command: string): Resolution;
}
