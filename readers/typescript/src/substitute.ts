/** Claude Code's argument substitution, as the Python reader does it (docs/format.md §8). */

import { escapeDelimiter } from "./delimiter.js";
import { ReaderError } from "./errors.js";
import { pySplit, splitArgs } from "./words.js";

/**
 * Values for the variables Claude Code always fills (`${CLAUDE_SESSION_ID}`, `${CLAUDE_EFFORT}`,
 * `${CLAUDE_PROJECT_DIR}`), keyed by the variable's name; a variable not given stays as written.
 */
export type Params = Readonly<Record<string, string>>;

/** The keys a Params may have (tests/harness/golden/claude@2.1.330/args.json records each). */
const PARAMS: readonly string[] = Object.freeze(["CLAUDE_SESSION_ID", "CLAUDE_EFFORT", "CLAUDE_PROJECT_DIR"]);

export interface SubstituteOptions {
  /** The skill's `arguments:` names: `$name` is the word at that name's position. */
  readonly names?: readonly string[];
  /** What `${CLAUDE_SKILL_DIR}` becomes; left as written when absent. */
  readonly skillDir?: string | null;
  /** What `${CLAUDE_SESSION_ID}`, `${CLAUDE_EFFORT}` and `${CLAUDE_PROJECT_DIR}` become. */
  readonly params?: Params | null;
}

/** Arguments as typed (a string, split shell-style), or already split (an array of words). */
export type Args = string | readonly string[];

/**
 * Claude Code 2.1.330's substitution. `${CLAUDE_SKILL_DIR}` becomes skillDir and each variable of
 * PARAMS its value, when given (a backslash before them is kept). With args: `$ARGUMENTS` is the
 * argument string as typed, whatever follows (`$ARGUMENTS_x`); `$ARGUMENTS[N]` and `$N` (0-based)
 * are its words, unchanged when there is no such word, and `$N` only when no word character follows
 * (`$1x` stays); `$name` for each name of the skill's `arguments:` list is the word at that position
 * (empty when missing), unless a word character or `[` follows. One backslash not after a backslash
 * escapes such a placeholder. When no placeholder used them, given arguments are appended as
 * `\n\nARGUMENTS: <value>`. Every argument is delimiter-escaped.
 */
export function substitute(
  body: string,
  args: Args | null | undefined,
  options: SubstituteOptions = {},
): string {
  const variables = variablesOf(options.skillDir ?? null, options.params ?? null);
  if (args == null && variables.size === 0) return body;
  let raw = "";
  let words: readonly string[] | null = null; // split only when a placeholder needs a word
  if (typeof args === "string") {
    raw = args;
  } else if (Array.isArray(args) && args.every((a) => typeof a === "string")) {
    [raw, words] = [args.join(" "), [...(args as readonly string[])]];
  } else if (args != null) {
    throw new ReaderError("args must be a string or an array of strings");
  }
  const given = args != null;
  if (!body.includes("$")) return given ? appended(body, raw) : body;
  const scan = new Scan(body, given, raw, words, named(options.names ?? []), variables);
  const out = scan.run();
  return given && !scan.used ? appended(out, raw) : out;
}

/** Unused arguments, appended as Claude Code does: after the body as it is, no newline after. */
function appended(body: string, raw: string): string {
  return raw ? body + "\n\nARGUMENTS: " + escapeDelimiter(raw) : body;
}

/** `{NAME}` -> value, for the variables given: skillDir and params, checked. */
function variablesOf(skillDir: string | null, params: Params | null): Map<string, string> {
  const out = new Map<string, string>();
  if (skillDir !== null) out.set("{CLAUDE_SKILL_DIR}", skillDir);
  if (params === null) return out;
  if (typeof params !== "object" || Array.isArray(params)) {
    throw new ReaderError("params must be an object of strings");
  }
  for (const [key, value] of Object.entries(params)) {
    if (!PARAMS.includes(key))
      throw new ReaderError(`params: ${JSON.stringify(key)} is not one of ${PARAMS.join(", ")}`);
    if (typeof value !== "string") throw new ReaderError(`params[${JSON.stringify(key)}] must be a string`);
    out.set(`{${key}}`, escapeDelimiter(value)); // as an argument: it may be text a user chose
  }
  return out;
}

/** Usable names with their positions, longest first; for a name given twice, its first position. */
function named(names: readonly string[]): [string, number][] {
  const seen = new Map<string, number>();
  names.forEach((n, i) => {
    if (typeof n === "string" && NAME.test(n) && !seen.has(n)) seen.set(n, i);
  });
  return [...seen.entries()].sort((a, b) => b[0].length - a[0].length); // stable
}

/** A usable `arguments:` name. */
const NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** `\w` of Claude Code's patterns (no `u` flag): ASCII letters, digits and `_`. */
function isWord(ch: string | undefined): boolean {
  return ch !== undefined && /^[A-Za-z0-9_]$/.test(ch);
}

function isDigit(ch: string | undefined): boolean {
  return ch !== undefined && ch >= "0" && ch <= "9";
}

/** The end of the run of ASCII digits at start. */
function digitRun(body: string, start: number): number {
  let end = start;
  while (isDigit(body[end])) end++;
  return end;
}

/** The value of an index as parseInt reads it ($01 is word 1); a huge one names no word. */
function indexOf(digits: string): number {
  const significant = digits.replace(/^0+/, "") || "0";
  return significant.length < 10 ? parseInt(significant, 10) : Number.MAX_SAFE_INTEGER;
}

/** One pass over a body from `$` to `$`; replaced text is never scanned again. */
class Scan {
  used = false;
  #words: readonly string[] | null = null;

  constructor(
    readonly body: string,
    readonly given: boolean,
    readonly raw: string,
    readonly givenWords: readonly string[] | null,
    readonly named: [string, number][],
    readonly variables: Map<string, string>,
  ) {}

  /** The words, split and delimiter-escaped on first use. */
  words(): readonly string[] {
    this.#words ??= (this.givenWords ?? splitArgs(this.raw)).map(escapeDelimiter);
    return this.#words;
  }

  run(): string {
    const body = this.body;
    const out: string[] = [];
    let last = 0;
    let at = body.indexOf("$");
    while (at >= 0) {
      if (this.given && this.escaped(at)) {
        out.push(body.slice(last, at - 1)); // drop the backslash; the `$` stays as written
        last = at;
      } else {
        const found = this.at(at);
        if (found !== null) {
          out.push(body.slice(last, at), found[1]);
          last = found[0];
        }
      }
      at = body.indexOf("$", Math.max(at + 1, last));
    }
    out.push(body.slice(last));
    return out.join("");
  }

  /** [end, replacement] of the placeholder whose `$` is at `at`, in Claude Code's order:
   * variables, names, `$ARGUMENTS[N]`, `$N`, `$ARGUMENTS`; null when nothing is replaced. */
  at(at: number): [number, string] | null {
    const body = this.body;
    const start = at + 1;
    if (body.startsWith("{", start)) {
      for (const [token, value] of this.variables) {
        if (body.startsWith(token, start)) return [start + token.length, value];
      }
      return null;
    }
    if (!this.given) return null;
    const end = this.nameEnd(start);
    if (end !== null) {
      this.used = true; // a name is a use even when its word is missing
      const name = body.slice(start, end);
      const i = (this.named.find(([n]) => n === name) as [string, number])[1];
      return [end, this.words()[i] ?? ""];
    }
    if (body.startsWith("ARGUMENTS[", start)) {
      const close = digitRun(body, start + 10);
      if (close > start + 10 && body[close] === "]") {
        return this.indexed(body.slice(start + 10, close), at, close + 1);
      }
    }
    const digits = digitRun(body, start);
    if (digits > start) {
      if (isWord(body[digits])) return null; // `$1x`: not a placeholder
      return this.indexed(body.slice(start, digits), at, digits);
    }
    if (body.startsWith("ARGUMENTS", start)) {
      this.used = true; // whatever follows (`$ARGUMENTS_x`)
      return [start + 9, escapeDelimiter(this.raw)];
    }
    return null;
  }

  /** An indexed word; without one, the placeholder stays and is not a use. */
  indexed(digits: string, at: number, end: number): [number, string] {
    const word = this.words()[indexOf(digits)];
    if (word === undefined) return [end, this.body.slice(at, end)];
    this.used = true;
    return [end, word];
  }

  /** The end of the usable name at start (longest first), unless `[` or a word character follows. */
  nameEnd(start: number): number | null {
    for (const [name] of this.named) {
      const end = start + name.length;
      const next = this.body[end];
      if (this.body.startsWith(name, start) && next !== "[" && !isWord(next)) return end;
    }
    return null;
  }

  /** Whether the `$` at `at` follows one backslash (itself not after a backslash) and starts what
   * Claude Code escapes: a digit, `ARGUMENTS`, or a name. */
  escaped(at: number): boolean {
    const body = this.body;
    if (at === 0 || body[at - 1] !== "\\" || (at > 1 && body[at - 2] === "\\")) return false;
    const start = at + 1;
    return isDigit(body[start]) || body.startsWith("ARGUMENTS", start) || this.nameEnd(start) !== null;
  }
}

/** The `arguments:` frontmatter value as names (the build wrote a list; a string is split). */
export function argumentNames(value: unknown): string[] {
  if (typeof value === "string") return pySplit(value);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
