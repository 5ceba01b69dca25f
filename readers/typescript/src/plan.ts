/**
 * A persona's plan at run time (docs/format.md §17.2, §17.3): the compiled catalog with the entries
 * of the skills an environment lacks requirements for cut out, and a root put before each relative
 * location. The plan counts code points; a JavaScript string indexes UTF-16 units, so every offset
 * is converted (the two differ only where the catalog holds characters beyond U+FFFF).
 */

import type { PlanEntry } from "./documents.js";
import { escapeText } from "./format.js";

const SURROGATE = /[\ud800-\udfff]/;

/** The length of a text in code points. */
export function codePoints(text: string): number {
  if (!SURROGATE.test(text)) return text.length;
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** The UTF-16 index of each code point offset of `text` (0 to its length in code points). */
function unitIndex(text: string): (at: number) => number {
  if (!SURROGATE.test(text)) return (at) => at;
  const units: number[] = [];
  let i = 0;
  for (const ch of text) {
    units.push(i);
    i += ch.length;
  }
  units.push(i);
  return (at) => units[at] as number;
}

/** A field's text as the entry shows it: escaped for XML text (a markup template's values are), then
 * with each line feed a space when the template writes it so (`| replace("\n", " ")`). */
export function fieldValue(value: string, markup: boolean, lines: boolean): string {
  const text = markup ? escapeText(value) : value;
  return lines ? text.replaceAll("\n", " ") : text;
}

/** Whether a skill's location takes a root the host names: not already absolute (`/...`), nor under
 * a home folder (`~/...`: a source outside the project, as its config wrote it). */
export function relative(path: string): boolean {
  return !path.startsWith("/") && !path.startsWith("~");
}

/** A root without its trailing `/`, then one `/`: what goes before a relative location. */
export function rootSlash(root: string): string {
  return root.replace(/\/+$/, "") + "/";
}

/**
 * The compiled catalog `text`, the entries of its plan whose command is in `drop` cut out, and with
 * a root, the root's prefix put before each relative location the plan lists (from the end: each
 * change leaves the places before it where they are). The plan was checked against `text`.
 */
export function planned(
  text: string,
  entries: readonly PlanEntry[],
  drop: ReadonlySet<string>,
  root: string | null,
  markup: boolean,
): string {
  const unit = unitIndex(text);
  let out = text;
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i] as PlanEntry;
    if (drop.has(entry.command)) {
      out = out.slice(0, unit(Number(entry.start))) + out.slice(unit(Number(entry.end)));
    } else if (root !== null) {
      for (let j = entry.locations.length - 1; j >= 0; j--) {
        const where = entry.locations[j] as PlanEntry["locations"][number];
        const at = unit(Number(where.at));
        out = out.slice(0, at) + fieldValue(rootSlash(root), markup, where.lines) + out.slice(at);
      }
    }
  }
  return out;
}
