/** Claude Code's argument substitution, as the Python reader does it (docs/format.md, "Arguments"). */

import { escapeDelimiter } from "./delimiter.js";
import { ReaderError } from "./errors.js";
import { pySplit, splitArgs } from "./words.js";

export interface SubstituteOptions {
  /** The skill's `arguments:` names: `$name` is the word at that name's position. */
  readonly names?: readonly string[];
  /** What `${CLAUDE_SKILL_DIR}` becomes; left as written when absent. */
  readonly skillDir?: string | null;
}

/** Arguments as typed (a string, split shell-style), or already split (an array of words). */
export type Args = string | readonly string[];

/**
 * `$ARGUMENTS` is the argument string as typed; `$ARGUMENTS[N]` and `$N` (0-based) are its words,
 * unchanged when there is no such word; `$name` for each name of the skill's `arguments:` list is the
 * word at that position (empty when missing); `\$1` stays `$1` (a doubled backslash does not
 * escape). Without a placeholder in the body, given arguments are appended as `ARGUMENTS: <value>`.
 * `${CLAUDE_SKILL_DIR}` becomes skillDir when one is given. Every argument is delimiter-escaped.
 */
export function substitute(
  body: string,
  args: Args | null | undefined,
  options: SubstituteOptions = {},
): string {
  const skillDir = options.skillDir ?? null;
  if (args == null && skillDir === null) return body;
  let raw: string;
  let parts: string[];
  if (args == null) {
    [raw, parts] = ["", []];
  } else if (typeof args === "string") {
    [raw, parts] = [args, splitArgs(args)];
  } else if (Array.isArray(args) && args.every((a) => typeof a === "string")) {
    [raw, parts] = [args.join(" "), [...args]];
  } else {
    throw new ReaderError("args must be a string or an array of strings");
  }
  raw = escapeDelimiter(raw);
  parts = parts.map(escapeDelimiter);
  const named = new Map<string, number>();
  (options.names ?? []).forEach((n, i) => {
    if (typeof n === "string" && NAME.test(n)) named.set(n, i);
  });
  const state = { raw, parts, named, skillDir, given: args != null, used: false };
  const out = body.replace(placeholders([...named.keys()]), (...m) =>
    replace(state, m.at(-1) as Groups, m[0]),
  );
  if (state.given && !state.used && raw) return out.replace(/\n+$/, "") + `\n\nARGUMENTS: ${raw}\n`;
  return out;
}

interface Groups {
  slashes: string;
  dir?: string;
  index?: string;
  name?: string;
  num?: string;
}

interface State {
  raw: string;
  parts: string[];
  named: Map<string, number>;
  skillDir: string | null;
  given: boolean;
  used: boolean;
}

function replace(s: State, g: Groups, whole: string): string {
  const slashes = g.slashes;
  const token = whole.slice(slashes.length);
  if (slashes.length % 2 === 1) return slashes.slice(0, -1) + token; // escaped: drop one backslash
  if (g.dir !== undefined) return slashes + (s.skillDir ?? token);
  if (!s.given) return whole;
  s.used = true;
  const index = g.index ?? g.num;
  if (index !== undefined) {
    const i = index.length < 10 ? parseInt(index, 10) : s.parts.length; // a huge index names no word
    return slashes + (i < s.parts.length ? (s.parts[i] as string) : token);
  }
  if (g.name !== undefined) {
    const i = s.named.get(g.name) as number;
    return slashes + (i < s.parts.length ? (s.parts[i] as string) : "");
  }
  return slashes + s.raw;
}

/** A usable `arguments:` name. */
const NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const PATTERNS = new Map<string, RegExp>();

/** One pattern for every placeholder; named ones must not run on into a longer word; longest first.
 * Digits are ASCII only. */
function placeholders(names: string[]): RegExp {
  const sorted = [...names].sort((a, b) => b.length - a.length); // stable: equal lengths keep their order
  const key = sorted.join(" ");
  let hit = PATTERNS.get(key);
  if (hit === undefined) {
    const named = sorted.length ? `|\\$(?<name>${sorted.join("|")})(?![A-Za-z0-9_-])` : "";
    hit = new RegExp(
      String.raw`(?<slashes>\\*)(?:\$\{(?<dir>CLAUDE_SKILL_DIR)\}|\$ARGUMENTS\[(?<index>[0-9]+)\]` +
        named +
        String.raw`|\$ARGUMENTS(?![A-Za-z0-9_])|\$(?<num>[0-9]+))`,
      "g",
    );
    PATTERNS.set(key, hit);
  }
  return hit;
}

/** The `arguments:` frontmatter value as names (the build wrote a list; a string is split). */
export function argumentNames(value: unknown): string[] {
  if (typeof value === "string") return pySplit(value);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
