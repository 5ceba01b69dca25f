/**
 * The <untrusted-data> delimiter and its escaping (docs/format.md, "The delimiter").
 *
 * A spelling is the delimiter when, each character folded, the text reads `<untrusted-data` or
 * `</untrusted-data`. ASCII folds to lowercase with its white space dropped; every other code point
 * folds through the generated table (foldtable.ts, at one Unicode version, so that every reader on
 * every runtime agrees), or to itself when the table does not list it. Escaping replaces the
 * character that reads as `<` with `&lt;`; the rest of the text is kept as written.
 */

import { FOLD_TABLE } from "./foldtable.js";

export const DELIMITER_TAG = "untrusted-data";

const ASCII = /^[\x00-\x7f]*$/;
const ASCII_SPACE = /[\t\n\x0b\x0c\r\x1c-\x1f ]/;
let FOLDS: Map<number, string> | null = null; // read from the table on first use: not in a cold start

function folds(): Map<number, string> {
  if (FOLDS === null) {
    FOLDS = new Map();
    for (const line of FOLD_TABLE.split("\n")) {
      if (!line) continue;
      const [cps = "", fold = ""] = line.split("\t");
      const [first = "", last = first] = cps.split("..");
      const folded =
        fold === "drop" ? "" : String.fromCodePoint(...fold.split(" ").map((h) => parseInt(h, 16)));
      for (let cp = parseInt(first, 16); cp <= parseInt(last, 16); cp++) FOLDS.set(cp, folded);
    }
  }
  return FOLDS;
}

/** The folded text, and for each of its UTF-16 units the index in `text` of the character it came from. */
function fold(text: string): { chars: string; origin: number[] } {
  const table = ASCII.test(text) ? null : folds();
  let chars = "";
  const origin: number[] = [];
  for (let i = 0; i < text.length;) {
    const cp = text.codePointAt(i) as number;
    const width = cp > 0xffff ? 2 : 1;
    let folded: string;
    if (cp < 0x80) {
      const ch = text[i] as string;
      folded = ASCII_SPACE.test(ch) ? "" : ch.toLowerCase();
    } else {
      folded = table?.get(cp) ?? text.slice(i, i + width);
    }
    chars += folded;
    for (let k = 0; k < folded.length; k++) origin.push(i);
    i += width;
  }
  return { chars, origin };
}

/** Index in text (UTF-16) of the `<` (or its look-alike) of every delimiter spelling, in order. */
export function delimiterPositions(text: string): number[] {
  if (!text.includes("<") && ASCII.test(text)) return []; // nothing can read as `<`: no scan
  const { chars, origin } = fold(text);
  const out: number[] = [];
  for (let at = chars.indexOf("<"); at >= 0; at = chars.indexOf("<", at + 1)) {
    const slash = chars[at + 1] === "/" ? 1 : 0;
    if (chars.startsWith(DELIMITER_TAG, at + 1 + slash)) {
      out.push(origin[at] as number);
      at += slash + DELIMITER_TAG.length;
    }
  }
  return out;
}

/** Neutralise every spelling of `<untrusted-data` / `</untrusted-data`, so content cannot break out. */
export function escapeDelimiter(text: string): string {
  const positions = delimiterPositions(text);
  if (positions.length === 0) return text;
  let out = "";
  let last = 0;
  for (const at of positions) {
    out += text.slice(last, at) + "&lt;";
    last = at + ((text.codePointAt(at) as number) > 0xffff ? 2 : 1);
  }
  return out + text.slice(last);
}
