/**
 * skillc-reader: serve a compiled skillc dist/ (format 2) to a Node application, synchronously and
 * with no dependency but Node's built-ins. The Python reader's API in camelCase, with the same answers:
 *
 *     import { open } from "skillc-reader";
 *     const dist = open("dist");
 *     dist.catalog("paria-g");
 *     dist.load("paria-g", "threat-assessment", { args: "Jita" }).body;
 */

export { Dist, open, type ArgsOptions, type KindOptions } from "./dist.js";
export {
  DistRebuilt,
  FormatError,
  IntegrityError,
  ReaderError,
  UnknownPersona,
  UnknownResource,
  UnknownSkill,
} from "./errors.js";
export { escapeDelimiter } from "./delimiter.js";
export { VERSION } from "./format.js";
export type {
  FrontmatterValue,
  LoadedSkill,
  PersonaMeta,
  ResourceMeta,
  Resolution,
  SkillInfo,
  SkillMeta,
  SubSkill,
} from "./records.js";
export { renderSkill } from "./render.js";
export type { RequirementOptions } from "./requirements.js";
export { substitute, type Args, type Params, type SubstituteOptions } from "./substitute.js";
