// V1's skill pipeline (seed 001) at run time, as a host of the TypeScript reader: the registry the
// build of <workDir>/skills holds, each agent's allowlist view, the `Available Skills` prompt
// section, and `activateSkill`, which mounts the skill into the task's private folder (a repeated
// activation in the same task is safe, and a no-op on disk).
//
//     node build/test/hosts/v1.js PROJECT      (PROJECT/dist built from PROJECT/workDir/skills)
//
// It runs the seed's walkthrough and prints what each step returned, as JSON.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Dist, SkillInfo } from "../../src/index.js";
import { reader } from "../reader.js";

const PERSONA = "default"; // V1 has no personas: every agent reads the one catalog

/** The skills V1's discovery registers, by id (sanitizeSkillName: the build's `name`). */
class DefaultSkillRegistry {
  readonly #dist: Dist;

  constructor(dist: Dist) {
    this.#dist = dist;
  }

  list(): SkillInfo[] {
    return this.#dist.skills(PERSONA);
  }
}

/** A read-only view for one agent: `undefined` all, `[]` none, `["*"]` all, else the ids listed. */
class FilteredSkillRegistry {
  readonly #registry: DefaultSkillRegistry;
  readonly #allowlist: readonly string[] | undefined;

  constructor(registry: DefaultSkillRegistry, allowlist: readonly string[] | undefined) {
    this.#registry = registry;
    this.#allowlist = allowlist;
  }

  list(): SkillInfo[] {
    const allow = this.#allowlist;
    const all = this.#registry.list();
    if (allow === undefined || allow.includes("*")) return all;
    return all.filter((s) => allow.includes(s.name));
  }

  get(id: string): SkillInfo | undefined {
    return this.list().find((s) => s.name === id);
  }
}

interface Agent {
  readonly id: string;
  readonly skillAllowlist?: readonly string[];
}

/** A folder's files: path, mode, and modification time (to see that nothing was written again). */
function listing(folder: string): string[] {
  return (readdirSync(folder, { recursive: true }) as string[]).sort().map((rel) => {
    const st = statSync(join(folder, rel), { bigint: true });
    return `${rel} ${st.mode.toString(8)} ${st.mtimeNs}`;
  });
}

/** Per task: the skills consented to and activated (in memory, cleared when the task ends). */
const sessions = new Map<string, Set<string>>();

class Runtime {
  readonly dist: Dist;
  readonly registry: DefaultSkillRegistry;
  readonly workDir: string;
  readonly project: string;

  constructor(project: string) {
    this.project = project;
    this.workDir = join(project, "workDir");
    this.dist = reader.open(join(project, "dist"));
    this.registry = new DefaultSkillRegistry(this.dist);
  }

  view(agent: Agent): FilteredSkillRegistry {
    return new FilteredSkillRegistry(this.registry, agent.skillAllowlist);
  }

  /** BaseToolAgent's prompt section: name, description, location; never a body. */
  availableSkills(agent: Agent): string {
    const lines = this.view(agent)
      .list()
      .map(
        (s) => `- ${s.name}: ${s.description} (${join(this.project, this.dist.skillMeta(s.command).path)})`,
      );
    return lines.length ? `## Available Skills\n${lines.join("\n")}\n` : "";
  }

  /** The `activateSkill` tool ({ name }), for an agent in a task. */
  activateSkill(args: { name: string }, task: { id: string; agent: Agent }): Record<string, unknown> {
    const view = this.view(task.agent);
    const skill = view.get(args.name); // 1. exists and is visible to this agent
    if (skill === undefined) {
      return { error: `unknown skill ${JSON.stringify(args.name)}`, visible: view.list().map((s) => s.name) };
    }
    const activated = sessions.get(task.id) ?? new Set<string>();
    const risk = activated.has(skill.name) ? "safe" : "risky"; // the first activation asks the user
    const loaded = this.dist.load(PERSONA, skill.command, { by: "model" }); // 2. the body, now
    activated.add(skill.name); // 3. consented and activated for this task
    sessions.set(task.id, activated);
    const folderStructure = this.dist.resources(PERSONA, skill.command); // 4.
    const disk = join(this.workDir, "private", task.id, ".skills", skill.name); // 5. the task's mount
    this.dist.materialize(PERSONA, skill.command, disk, { by: "model" }); // again: a no-op
    return {
      mount: listing(disk),
      risk,
      instructions: loaded.body,
      folderStructure,
      mountPath: `private:/.skills/${skill.name}`,
      disk,
      metadata: { name: skill.name, description: skill.description, allowedTools: loaded.allowedTools },
    };
  }

  /** The task reached its terminal state: its consents go. */
  endTask(id: string): void {
    sessions.delete(id);
  }
}

const runtime = new Runtime(process.argv[2] as string);
const everyone: Agent = { id: "planner" };
const nobody: Agent = { id: "reviewer", skillAllowlist: [] };
const star: Agent = { id: "helper", skillAllowlist: ["*"] };
const editor: Agent = { id: "editor", skillAllowlist: ["safe-edit", "test-first-fix"] };
const task = { id: "task-1", agent: editor };
const out = {
  registry: runtime.registry.list().map((s) => ({
    id: s.name,
    command: s.command,
    description: s.description,
    resources: runtime.dist.resources(PERSONA, s.command),
  })),
  views: Object.fromEntries(
    [everyone, nobody, star, editor].map((a) => [
      a.id,
      runtime
        .view(a)
        .list()
        .map((s) => s.name),
    ]),
  ),
  prompt: { planner: runtime.availableSkills(everyone), reviewer: runtime.availableSkills(nobody) },
  activations: [
    runtime.activateSkill({ name: "safe-edit" }, task),
    runtime.activateSkill({ name: "safe-edit" }, task), // repeated: safe
    runtime.activateSkill({ name: "repo-survey-deluxe" }, task), // not in the editor's allowlist
    runtime.activateSkill({ name: "repo-survey-deluxe" }, { id: "task-2", agent: everyone }),
  ],
  afterEnd: (runtime.endTask("task-1"), runtime.activateSkill({ name: "safe-edit" }, task)),
};
process.stdout.write(JSON.stringify(out, null, 2) + "\n");
