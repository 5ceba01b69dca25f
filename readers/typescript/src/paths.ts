/** Small path and string helpers that keep Python's meaning where Node's differs. */

/** Python's os.path.join for relative parts: no normalisation (`a/..` stays as written). */
export function joinPath(root: string, ...parts: string[]): string {
  let out = root;
  for (const part of parts) out = out === "" || out.endsWith("/") ? out + part : `${out}/${part}`;
  return out;
}

/** Order strings by code point, as Python's sorted() does (JS's default order is by UTF-16 unit,
 * which puts U+10000 and above before U+E000-U+FFFF). */
export function byCodePoint(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return rank(x) - rank(y);
  }
  return a.length - b.length;
}

function rank(unit: number): number {
  if (unit >= 0xd800 && unit < 0xe000) return unit + 0x2000; // surrogates: above U+FFFF
  return unit >= 0xe000 ? unit - 0x800 : unit;
}

/** An own property of a plain object: `env.constructor` is not a variable. */
export function own<T>(obj: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}
