/** Tool results: a loaded skill's record, and the <skill_content> block it renders to (sven's). */

import type { KnowledgeIndex, ResolutionDoc, SkillEntry } from "./documents.js";
import { ReaderError } from "./errors.js";
import { escapeAttr, escapeText, MAX_FILES } from "./format.js";
import { own } from "./paths.js";
import { codePoints } from "./plan.js";
import { frozen, labelOf, type KnowledgeDoc, type LoadedSkill, type SubSkill } from "./records.js";
import { argumentNames, substitute, type Args, type Params } from "./substitute.js";

/** What load() found for a pair it may serve. */
export interface Found {
  readonly persona: string;
  readonly command: string;
  readonly skill: SkillEntry;
  readonly r: ResolutionDoc;
  /** The resolved body's text, read before the children are (docs/format.md §12). */
  readonly body: string;
  /** The sub-skills the persona's model sees (read when asked: not for a stub). */
  readonly children: () => SubSkill[];
  readonly args: Args | null | undefined;
  readonly params: Params | null;
  /** The skill's folder (`${CLAUDE_SKILL_DIR}`, and the body's first line), when known. */
  readonly base: string | null;
  /** The index's knowledge folder and the titles found there. */
  readonly knowledge: KnowledgeIndex | null;
}

const BASE_LINE = "Base directory for this skill: ";

/** The LoadedSkill of a pair: its body substituted (docs/format.md §7, §8). */
export function loadedSkill(f: Found): LoadedSkill {
  const fm = f.skill.frontmatter;
  const stub = f.r.access === "stub"; // the stub is all such a persona gets: no files, no knowledge docs
  const names = argumentNames(own(fm, "arguments"));
  const text = substitute(f.body, f.args, { names, skillDir: f.base, params: f.params });
  const knowledge = stub ? [] : [...((own(fm, "knowledge") as string[] | undefined) ?? [])];
  return frozen({
    persona: f.persona,
    command: f.command,
    name: f.skill.name,
    description: f.skill.description,
    body: f.base === null ? text : `${BASE_LINE}${f.base}\n\n${text}`,
    access: f.r.access,
    overlay: f.r.overlay,
    files: (stub ? [] : f.skill.resources).map((res) => res.path).slice(0, MAX_FILES),
    subSkills: stub ? [] : f.children(),
    context: (own(fm, "context") as string | undefined) ?? "inline",
    agent: (own(fm, "agent") as string | undefined) ?? null,
    model: (own(fm, "model") as string | undefined) ?? null,
    allowedTools: [...((own(fm, "allowed-tools") as string[] | undefined) ?? [])],
    knowledge,
    base: f.base,
    knowledgeDocs: knowledge.map((e) => knowledgeDoc(e, f.knowledge)),
    label: labelOf(f.skill),
  });
}

/** A `knowledge:` entry as a doc: in the build's knowledge folder, with the title found there. */
function knowledgeDoc(entry: string, knowledge: KnowledgeIndex | null): KnowledgeDoc {
  if (knowledge === null) return frozen({ path: entry, title: null });
  return frozen({ path: `${knowledge.folder}/${entry}`, title: own(knowledge.titles, entry) ?? null });
}

export interface RenderOptions {
  /** The skill's folder, for a skill loaded without one (load's `base` also sets
   * `${CLAUDE_SKILL_DIR}`): the block's body then begins with the base directory line. */
  readonly base?: string | null;
}

/** The <skill_content> block of a loaded skill (docs/format.md §10). */
export function renderSkill(s: LoadedSkill, options: RenderOptions = {}): string {
  let body = s.body;
  const base = options.base ?? null;
  if (base !== null && (s.base ?? null) === null) {
    if (typeof base !== "string") throw new ReaderError("base must be a string or null");
    body = `${BASE_LINE}${base}\n\n${body}`;
  }
  const parts = [
    `<skill_content command="${escapeAttr(s.command)}" name="${escapeAttr(s.label)}">`,
    body.replace(/\n+$/, ""),
    "",
  ];
  if (s.files.length) {
    parts.push("Bundled files (load with the resource tool, paths relative to this skill):");
    parts.push(...s.files.map((f) => `  - ${f}`));
    parts.push("");
  }
  if (s.subSkills.length) {
    parts.push("<sub_skills>");
    parts.push("<!-- Call load_skill(command) to load any sub-skill's full instructions. -->");
    for (const c of s.subSkills) {
      parts.push(
        `  <sub_skill command="${escapeAttr(c.command)}" name="${escapeAttr(c.label)}">` +
          `${escapeText(c.description)}</sub_skill>`,
      );
    }
    parts.push("</sub_skills>");
  }
  // A record made by hand may have knowledge without knowledgeDocs.
  const docs = s.knowledgeDocs?.length ? s.knowledgeDocs : s.knowledge.map((k) => ({ path: k, title: null }));
  if (docs.length) {
    parts.push("Relevant knowledge docs (use search_knowledge or read_file to load):");
    const width = Math.max(0, ...docs.filter((d) => d.title !== null).map((d) => codePoints(d.path)));
    for (const d of docs) {
      parts.push(d.title === null ? `  - ${d.path}` : `  - ${d.path}${pad(d.path, width)} (${d.title})`);
    }
  }
  parts.push("</skill_content>");
  return parts.join("\n") + "\n";
}

/** The spaces that pad `text` to `width` code points (Python's str.ljust). */
function pad(text: string, width: number): string {
  return " ".repeat(Math.max(0, width - codePoints(text)));
}
