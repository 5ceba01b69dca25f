/**
 * The catalog template split into its frame and its entries (docs/format.md §4.5, §17.1): a stack
 * renders its catalog from the first tier's split, since no one build holds it. The compiler
 * renders its catalogs' plans with the same rules (compiler/format/split.py).
 */

import type { EntryPiece, Frames, FramePiece } from "./documents.js";
import { fieldValue } from "./plan.js";

/** The five text values of an entry, as templates see them. */
export interface EntryValues {
  readonly command: string;
  readonly name: string;
  readonly label: string;
  readonly description: string;
  readonly location: string;
}

/** One entry from its pattern and values. */
export function entryText(pattern: readonly EntryPiece[], values: EntryValues, markup: boolean): string {
  let out = "";
  for (const piece of pattern) {
    out += typeof piece === "string" ? piece : fieldValue(values[piece.field], markup, piece.lines);
  }
  return out;
}

/** [head, tail]: the persona's catalog around its entries when `omitted` skills are left out. */
export function frameText(frames: Frames, omitted: number): [string, string] {
  if (omitted === 0) return [...frames.none];
  if (omitted === 1) return [...frames.one];
  const number = String(omitted);
  const join = (part: readonly FramePiece[]) =>
    part.map((p) => (typeof p === "string" ? p : number)).join("");
  return [join(frames.many[0]), join(frames.many[1])];
}
