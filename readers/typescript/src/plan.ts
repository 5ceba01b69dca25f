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
 * a root, the root's prefix put before each relative location the plan lists. The plan was checked
 * against `text`, so its places are in order and do not overlap: the result is made in one pass
 * from pieces of `text` (each cut made on the text left by the previous one would copy it whole),
 * joined by `+` (V8 joins long strings without copying them; a host that reads the text pays once).
 */
export function planned(
  text: string,
  entries: readonly PlanEntry[],
  drop: ReadonlySet<string>,
  root: string | null,
  markup: boolean,
): string {
  const unit = unitIndex(text);
  let out = "";
  let from = 0; // the UTF-16 index in `text` up to which `out` reaches
  for (const entry of entries) {
    if (drop.has(entry.command)) {
      out += text.slice(from, unit(Number(entry.start)));
      from = unit(Number(entry.end));
    } else if (root !== null) {
      for (const where of entry.locations) {
        const at = unit(Number(where.at));
        out += text.slice(from, at) + fieldValue(rootSlash(root), markup, where.lines);
        from = at;
      }
    }
  }
  return out + text.slice(from);
}
