/** The tool result a loaded skill renders to: sven's <skill_content> block. */

import { escapeAttr, escapeText } from "./format.js";
import type { LoadedSkill } from "./records.js";

export function renderSkill(s: LoadedSkill): string {
  const parts = [
    `<skill_content command="${escapeAttr(s.command)}" name="${escapeAttr(s.label)}">`,
    s.body.replace(/\n+$/, ""),
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
  if (s.knowledge.length) {
    parts.push("Relevant knowledge docs (use search_knowledge or read_file to load):");
    parts.push(...s.knowledge.map((k) => `  - ${k}`));
  }
  parts.push("</skill_content>");
  return parts.join("\n") + "\n";
}
