/**
 * Close commands for an UnknownSkill (docs/format.md §12.1), as the Python reader's
 * format/nearby.py finds them: the command in its normal form, the words of the persona's catalog
 * and the children of the command's parent, ranked by distance to the normal form, then kept if
 * the persona sees them. A few reads at any size, where listing what a persona sees reads every
 * shard. Distances and order count code points, never UTF-16 units.
 */

import { byCodePoint } from "./paths.js";

const MAX_SUGGESTIONS = 3; // commands an UnknownSkill names
const MAX_CHECKED = 8; // candidates looked up, best first: each costs one shard read
const MAX_REACH = 3; // edits
const MAX_LENGTH = 256; // code points: longer commands are not ranked (a table of length squared cells)

/** ASCII white space and ASCII punctuation but `-`, `/`, `_`: what separates a catalog's words. */
const SEPARATORS = /[\t\n\v\f\r !"#$%&'()*+,.:;<=>?@[\\\]^`{|}~]+/;

/** The command as skillc spells commands: ASCII lowercase, `:` as `/`, `_` and space as `-`, no
 * `/` at either end (a slash command's leading `/`). */
export function normalCommand(command: string): string {
  const mapped = command
    .replace(/[A-Z]/g, (c) => c.toLowerCase())
    .replace(/:/g, "/")
    .replace(/[_ ]/g, "-");
  return mapped.replace(/^\/+|\/+$/g, "");
}

/** The words of a catalog text: the commands it lists are among them, whatever the template. */
export function catalogWords(catalog: string): string[] {
  return catalog.split(SEPARATORS).filter((w) => w !== "");
}

/** The command one level up ("a/b/c" -> "a/b"), or null at the top. */
export function parentCommand(command: string): string | null {
  const at = command.lastIndexOf("/");
  return at > 0 ? command.slice(0, at) : null;
}

/** The largest distance at which a candidate counts as close: a third of the length, from 1 to 3. */
function reach(points: number): number {
  return Math.min(MAX_REACH, Math.max(1, Math.floor(points / 3)));
}

/** The optimal string alignment distance of two code point arrays, or limit + 1 beyond limit;
 * only the cells within `limit` of the diagonal are computed. */
export function distance(a0: readonly string[], b0: readonly string[], limit: number): number {
  const far = limit + 1;
  if (Math.abs(a0.length - b0.length) > limit) return far;
  let start = 0;
  while (start < a0.length && start < b0.length && a0[start] === b0[start]) start++;
  let end = 0;
  while (
    end < a0.length - start &&
    end < b0.length - start &&
    a0[a0.length - 1 - end] === b0[b0.length - 1 - end]
  )
    end++;
  const a = a0.slice(start, a0.length - end);
  const b = b0.slice(start, b0.length - end);
  let before: number[] = [];
  let row = Array.from({ length: b.length + 1 }, (_, j) => (j <= limit ? j : far));
  for (let i = 1; i <= a.length; i++) {
    const prev = row;
    row = new Array<number>(b.length + 1).fill(far);
    row[0] = i <= limit ? i : far;
    for (let j = Math.max(1, i - limit); j <= Math.min(b.length, i + limit); j++) {
      let best = (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      best = Math.min(best, (prev[j] as number) + 1, (row[j - 1] as number) + 1);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (before[j - 2] as number) + 1);
      }
      row[j] = Math.min(best, far);
    }
    if (row.every((v) => v >= far)) return far; // no later row holds less than this row's least value
    before = prev;
  }
  return row[b.length] as number;
}

/** The candidates within reach of the command's normal form, best first (distance, then code
 * point order), without the command as typed, at most MAX_CHECKED of them. */
export function rankedCommands(command: string, candidates: Iterable<string>): string[] {
  const typed = Array.from(normalCommand(command));
  const limit = reach(typed.length);
  const scored: [number, string][] = [];
  if (typed.length > MAX_LENGTH) return [];
  for (const candidate of new Set(candidates)) {
    const points = Array.from(candidate);
    if (candidate === command || points.length > MAX_LENGTH) continue;
    const d = distance(typed, points, limit);
    if (d <= limit) scored.push([d, candidate]);
  }
  scored.sort(([d1, c1], [d2, c2]) => d1 - d2 || byCodePoint(c1, c2));
  return scored.slice(0, MAX_CHECKED).map(([, c]) => c);
}

/**
 * Up to three close commands the persona sees. `catalog` is the persona's catalog (null for
 * skillMeta, which has no persona), `children` the children of a command with an entry (null
 * without one), `sees` whether a command has an entry the persona sees; each is a read, made in
 * this order: the parent's entry, then the candidates best first.
 */
export function suggestions(
  command: string,
  catalog: string | null,
  children: (command: string) => readonly string[] | null,
  sees: (command: string) => boolean,
): string[] {
  const typed = normalCommand(command);
  const candidates = [typed, ...(catalog === null ? [] : catalogWords(catalog))];
  const above = parentCommand(typed);
  if (above !== null) candidates.push(...(children(above) ?? []));
  const out: string[] = [];
  for (const near of rankedCommands(command, candidates)) {
    if (sees(near)) out.push(near);
    if (out.length === MAX_SUGGESTIONS) break;
  }
  return out;
}
