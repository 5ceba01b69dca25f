/**
 * Splitting an argument string into words as the Python reader does: POSIX shell-style quoting
 * (Python's shlex.split: whitespace splits, '...' and "..." quote, a backslash escapes, and inside
 * "..." escapes only `"` and `\`), and on unbalanced quotes or a trailing backslash, a plain split at
 * Unicode white space (Python's str.split()).
 */

const SHELL_SPACE = " \t\r\n";
const QUOTES = "'\"";

/** The words of `text`, or null when its quotes do not balance or it ends in a backslash. */
export function shellSplit(text: string): string[] | null {
  const words: string[] = [];
  let word = "";
  let inWord = false; // a word has started (it may be empty: '')
  let quote = ""; // the open quote character, if any
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quote) {
      if (ch === quote) {
        quote = "";
      } else if (ch === "\\" && quote === '"') {
        const next = text[++i];
        if (next === undefined) return null;
        word += next === '"' || next === "\\" ? next : "\\" + next;
      } else {
        word += ch;
      }
    } else if (SHELL_SPACE.includes(ch)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else if (ch === "\\") {
      const next = text[++i];
      if (next === undefined) return null;
      word += next;
      inWord = true;
    } else if (QUOTES.includes(ch)) {
      quote = ch;
      inWord = true;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quote) return null;
  if (inWord) words.push(word);
  return words;
}

// Python's str.isspace(): the same set at every Unicode version since 6.3.
const PY_SPACE = /[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

/** Python's str.split(): words between runs of white space, none empty. */
export function pySplit(text: string): string[] {
  return text.split(PY_SPACE).filter((w) => w !== "");
}

/** shellSplit, or pySplit when the quoting does not parse. */
export function splitArgs(text: string): string[] {
  return shellSplit(text) ?? pySplit(text);
}

const PY_TRAILING_SPACE =
  /[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/;

/** Python's str.rstrip(): the text without its trailing white space. */
export function pyRstrip(text: string): string {
  return text.replace(PY_TRAILING_SPACE, "");
}
