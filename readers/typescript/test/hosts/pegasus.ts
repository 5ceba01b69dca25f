// Pegasus' skill system (seed 004) at run time, as a host of the TypeScript reader: the skill list
// in the system prompt, the `use_skill` tool (by the model), user `/` commands, and skills the
// model writes into data/skills/ at run time, served once `skillc build` made their tier: the open
// reader sees the new build at its next call.
//
//     node build/test/hosts/pegasus.js PROJECT SKILLC...
//
// PROJECT/dist is the builtin tier (skills/, tracked), PROJECT/data/dist the runtime one
// (data/skills/, git-ignored: `skillc build data/skills -o data/dist`); SKILLC... runs skillc.
// It prints what each step returned, as JSON.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { reader } from "../reader.js";

const [project, ...skillc] = process.argv.slice(2) as [string, ...string[]];
const persona = "default";
// data/skills > skills: the later tier wins.
const dist = reader.open([join(project, "dist"), { path: join(project, "data", "dist"), optional: true }]);

/** The system prompt: identity, then the skill list (budgeted at build time; skills only the user
 * may invoke are not in it). */
const systemPrompt = (): string => `You are Pegasus.\n\n${dist.catalog(persona)}`;

const submitted: string[] = [];
const agent = {
  submit(input: string): string {
    submitted.push(input);
    return `task-${submitted.length}`;
  },
};

type ToolResult = { success: true; result: unknown } | { success: false; error: string };

/** The `use_skill` tool: the model invokes a skill. */
function useSkill(params: { skill: string; args?: string }): ToolResult {
  try {
    const loaded = dist.load(persona, params.skill, { args: params.args ?? null, by: "model" });
    if (loaded.context === "fork") {
      return { success: true, result: { taskId: agent.submit(loaded.body), status: "spawned" } };
    }
    return { success: true, result: loaded.body };
  } catch (err) {
    if (err instanceof reader.UnknownSkill) {
      return { success: false, error: `Skill "${params.skill}" not found` };
    }
    if (err instanceof reader.NotInvocable) {
      return { success: false, error: `Skill "${params.skill}" is invoked by the user only` };
    }
    throw err;
  }
}

/** MainAgent.send: a `/` command the user may type becomes the skill's message; anything else is
 * a normal message. */
function send(text: string): { kind: string; content: string } {
  if (text.startsWith("/")) {
    const [command = "", ...rest] = text.slice(1).split(" ");
    if (dist.commands(persona).includes(command)) {
      const loaded = dist.load(persona, command, { args: rest.join(" "), by: "user" });
      if (loaded.context === "fork") return { kind: "task", content: agent.submit(loaded.body) };
      return { kind: "user-message", content: `[Skill: ${command}]\n\n${loaded.body}` };
    }
  }
  return { kind: "message", content: text };
}

/** The model writes a skill into data/skills/ and builds that tier; the next call serves it. */
function createSkill(name: string, text: string): void {
  const folder = join(project, "data", "skills", name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "SKILL.md"), text);
  const [program = "skillc", ...args] = skillc;
  execFileSync(
    program,
    [...args, "build", join(project, "data", "skills"), "-o", join(project, "data", "dist")],
    {
      stdio: "ignore",
    },
  );
}

const out: Record<string, unknown> = {
  prompt: systemPrompt(),
  commands: dist.commands(persona),
  shadowed: dist.shadowed(),
  useSkill: {
    review: useSkill({ skill: "code-review", args: "PR #42" }),
    commit: useSkill({ skill: "commit" }),
    conventions: useSkill({ skill: "project-conventions" }),
    summarize: useSkill({ skill: "summarize", args: "the report" }),
    unknown: useSkill({ skill: "deploy" }),
  },
  send: {
    commit: send("/commit"),
    review: send("/code-review PR #42"),
    conventions: send("/project-conventions"),
    help: send("/help"),
  },
  submitted: [...submitted],
};
const before = dist.buildHash();
createSkill(
  "release-notes",
  "---\nname: release-notes\ndescription: Use when writing release notes from the git log.\n---\n\nWrite notes for $ARGUMENTS.\n",
);
out["created"] = {
  moved: dist.buildHash() !== before,
  prompt: systemPrompt(),
  useSkill: useSkill({ skill: "release-notes", args: "v2.1" }),
  send: send("/release-notes v2.1"),
};
process.stdout.write(JSON.stringify(out, null, 2) + "\n");
