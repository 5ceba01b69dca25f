// The TypeScript three-tier agent (seed 002) at run time, as a host of the TypeScript reader: its
// SkillContextProvider over three builds (bundled, user, project), a stack in which a later tier
// wins. Tier 1 is the <available_skills> XML with absolute locations, tier 2 a skill's
// instructions, tier 3 its resources, served only as listed (no traversal).
//
//     node build/test/hosts/ts-agent.js APP HOME PROJECT
//
// APP/dist is the bundled tier (built from APP/src/_bundled_skills), HOME/.agent/dist the user's
// (`skillc build ~/.agent/skills -o ~/.agent/dist`, maybe not there), PROJECT/.agent/dist the
// project's. It prints what each call returned, as JSON.
import { join } from "node:path";
import type { Dist, SkillInfo } from "../../src/index.js";
import { reader } from "../reader.js";

type ResourceType = "scripts" | "references" | "assets";

class SkillContextProvider {
  readonly #dist: Dist;
  readonly #persona: string;

  constructor(dist: Dist, persona = "default") {
    this.#dist = dist;
    this.#persona = persona;
  }

  /** Tier 1: metadata for all skills, in the system prompt (~100 tokens a skill). */
  getTier1Context(): string {
    return this.#dist.catalog(this.#persona);
  }

  /** Tier 2: the full instructions of one skill. */
  async getTier2Context(skillName: string): Promise<string | null> {
    try {
      return this.#dist.load(this.#persona, skillName, { by: "model" }).body;
    } catch (err) {
      if (err instanceof reader.UnknownSkill || err instanceof reader.NotInvocable) return null;
      throw err;
    }
  }

  /** Tier 3: the resources of one kind. */
  async getTier3ResourceList(skillName: string, resourceType: ResourceType): Promise<string[]> {
    try {
      return this.#dist.resources(this.#persona, skillName, { kind: resourceType });
    } catch (err) {
      if (err instanceof reader.UnknownSkill) return [];
      throw err;
    }
  }

  /** Tier 3: one resource. The seed's pre-check refuses `../` and absolute paths; the reader serves
   * only the paths the build lists, hash-checked, so a symlink out of the skill is never read. */
  async getTier3Resource(skillName: string, resourcePath: string): Promise<string | null> {
    if (resourcePath.startsWith("/") || resourcePath.split("/").includes("..")) return null;
    try {
      return new TextDecoder().decode(this.#dist.resource(this.#persona, skillName, resourcePath));
    } catch (err) {
      if (err instanceof reader.UnknownSkill || err instanceof reader.UnknownResource) return null;
      throw err;
    }
  }

  getSkill(name: string): SkillInfo | undefined {
    return this.#dist.skills(this.#persona).find((s) => s.command === name);
  }

  getSkillNames(): string[] {
    return this.#dist
      .skills(this.#persona)
      .filter((s) => s.model)
      .map((s) => s.command);
  }
}

const [app, home, project] = process.argv.slice(2) as [string, string, string];
const dist = reader.open([
  { path: join(app, "dist"), root: app }, // shipped with the agent
  { path: join(home, ".agent", "dist"), optional: true, root: join(home, ".agent") }, // installed by the user
  { path: join(project, ".agent", "dist"), optional: true, root: join(project, ".agent") }, // this project's
]);
const provider = new SkillContextProvider(dist);
const names = provider.getSkillNames();
const out = {
  tier1: provider.getTier1Context(),
  names,
  shadowed: dist.shadowed(),
  tier2: Object.fromEntries(
    await Promise.all(names.map(async (n) => [n, await provider.getTier2Context(n)])),
  ),
  unknown: await provider.getTier2Context("no-such-skill"),
  tier3: Object.fromEntries(
    await Promise.all(names.map(async (n) => [n, await provider.getTier3ResourceList(n, "scripts")])),
  ),
  references: await provider.getTier3ResourceList("greet", "references"),
  resource: await provider.getTier3Resource("my-skill", "scripts/run.ts"),
  traversal: await Promise.all(
    [
      "../../../etc/passwd",
      "/etc/passwd",
      "scripts/../../greet/SKILL.md",
      "SKILL.md",
      "scripts/escape.ts",
    ].map((p) => provider.getTier3Resource("my-skill", p)),
  ),
  source: provider.getSkill("my-skill")?.description ?? null,
};
process.stdout.write(JSON.stringify(out, null, 2) + "\n");
