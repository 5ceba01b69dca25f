/**
 * skillc-reader: serve a compiled skillc dist/ (format 3) to a Node application, synchronously and
 * with no dependency but Node's built-ins. The Python reader's API in camelCase, with the same answers:
 *
 *     import { open } from "skillc-reader";
 *     const dist = open("dist");
 *     dist.catalog("paria-g");
 *     dist.load("paria-g", "threat-assessment", { args: "Jita" }).body;
 */

export { EVERYWHERE, type EnvOptions, type Environment } from "./available.js";
export { Dist, open, type OpenOptions, type Tier } from "./dist.js";
export type {
  ArgsOptions,
  CatalogOptions,
  Invoker,
  KindOptions,
  LoadOptions,
  MaterializeOptions,
} from "./engine.js";
export {
  CannotSplit,
  CannotStack,
  DistRebuilt,
  FormatError,
  IntegrityError,
  NotInvocable,
  ReaderError,
  UnknownPersona,
  UnknownResource,
  UnknownSkill,
} from "./errors.js";
export { escapeDelimiter } from "./delimiter.js";
export { VERSION } from "./format.js";
export type {
  FrontmatterValue,
  KnowledgeDoc,
  LoadedSkill,
  PersonaContext,
  PersonaMeta,
  ResourceMeta,
  Resolution,
  Shadowed,
  SkillInfo,
  SkillMeta,
  SubSkill,
  Unavailable,
} from "./records.js";
export { renderSkill, type RenderOptions } from "./render.js";
export { substitute, type Args, type Params, type SubstituteOptions } from "./substitute.js";
