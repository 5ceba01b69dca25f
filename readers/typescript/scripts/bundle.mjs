// Join the compiled modules of build/src/ into the package's two runtime files:
//
//   build/skillc-reader.js        the entry (ES module): what open() and catalog() need
//   build/skillc-reader-more.cjs  the rest (argument substitution, the delimiter table, materialize,
//                                 the strict JSON parser...), required on first use
//
// A cold start pays for every module Node loads (about 0.3 ms each) and for every byte V8 must parse
// (about 1 ms for all of the reader): one file, and only the code open() and catalog() run, keep a
// new process that imports the package and reads a catalog within 1.5x of `node -e ''`. A CommonJS
// file because only `require` loads code synchronously (the reader's API is synchronous).
//
// The modules stay the source: this concatenates them in dependency order, drops their `./` imports
// and `export` keywords, gives the entry a stub for each function it takes from the rest, and
// refuses anything it does not understand (an aliased import, a name declared twice, a value that
// is not a function crossing from the rest to the entry).
import { readFileSync, writeFileSync } from "node:fs";

const SRC = new URL("../build/src/", import.meta.url);
const ENTRY = new URL("../build/skillc-reader.js", import.meta.url);
const MORE = new URL("../build/skillc-reader-more.cjs", import.meta.url);
const LAZY = new Set([
  "strictjson.js",
  "foldtable.js",
  "delimiter.js",
  "words.js",
  "substitute.js",
  "render.js",
  "materialize.js",
  "requirements.js",
  "frontmatter.js",
]);

const IMPORT = /^import \{([^}]*)\} from "([^"]+)";\n/gm;
const NAMESPACE = /^import \* as ([A-Za-z_$][\w$]*) from "(node:[a-z_/]+)";\n/gm;
const REEXPORT = /^export \{([^}]*)\} from "\.\/([^"]+)";$/gm;
const DECLARED = /^(?:export )?(?:async )?(function\*?|class|const|let|var) ([A-Za-z_$][\w$]*)/gm;

function names(list) {
  const out = list.split(",").map((s) => s.trim()).filter(Boolean);
  for (const n of out) if (!/^[A-Za-z_$][\w$]*$/.test(n)) throw new Error(`bundle: cannot join an import of ${n}`);
  return out;
}

/** A compiled module: what it imports (from modules of the package, from Node) and its code. */
function read(file) {
  const text = readFileSync(new URL(file, SRC), "utf8");
  const mod = { file, local: [], builtins: [], namespaces: [], reexports: [] };
  for (const [, list, from] of text.matchAll(IMPORT)) {
    if (from.startsWith("./")) mod.local.push([from.slice(2), names(list)]);
    else if (from.startsWith("node:")) mod.builtins.push([from, names(list)]);
    else throw new Error(`${file}: imports ${from}, neither a module of the package nor a built-in`);
  }
  for (const [, name, from] of text.matchAll(NAMESPACE)) mod.namespaces.push([name, from]);
  for (const [, list, from] of text.matchAll(REEXPORT)) mod.reexports.push([from, names(list)]);
  mod.body = text.replace(IMPORT, "").replace(NAMESPACE, "").replace(/^\/\/# sourceMappingURL=.*\n?/m, "");
  mod.declared = new Map([...mod.body.matchAll(DECLARED)].map(([, kind, name]) => [name, kind]));
  return mod;
}

/** Every module the entry reaches, each after the modules it imports. */
function ordered(entry) {
  const seen = new Set();
  const out = [];
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    const mod = read(file);
    for (const [dep] of [...mod.local, ...mod.reexports]) visit(dep);
    out.push(mod);
  };
  visit(entry);
  return out;
}

function strip(mod) {
  const body = mod.body.replace(/^export \{\};\n?/m, "");
  if (/^export (?!(async )?(function|class|const|let|var) )/m.test(body)) {
    throw new Error(`${mod.file}: an export form the bundler does not join`);
  }
  return `// ---- ${mod.file.replace(/\.js$/, ".ts")} ${"-".repeat(80 - mod.file.length)}\n${body.replace(/^export /gm, "").trim()}\n`;
}

/** Names that one side imports from modules of the other, with the module that declares each. */
function crossing(mods, lazy, byFile) {
  const out = new Map();
  for (const mod of mods) {
    for (const [from, list] of [...mod.local, ...mod.reexports]) {
      if (LAZY.has(from) === lazy) for (const n of list) out.set(n, byFile.get(from));
    }
  }
  return out;
}

function imports(mods, lazy) {
  const builtins = new Map();
  for (const mod of mods) for (const [from, list] of mod.builtins) builtins.set(from, new Set([...(builtins.get(from) ?? []), ...list]));
  const namespaces = mods.flatMap((m) => m.namespaces);
  const lines = [...builtins].sort().map(([from, list]) => {
    const joined = [...list].sort().join(", ");
    return lazy ? `const { ${joined} } = require("${from}");` : `import { ${joined} } from "${from}";`;
  });
  return [...namespaces.map(([n, from]) => (lazy ? `const ${n} = require("${from}");` : `import * as ${n} from "${from}";`)), ...lines];
}

function checkNames(mods) {
  const declared = new Map();
  const claim = (name, where) => {
    if (declared.has(name) && declared.get(name) !== where) throw new Error(`bundle: ${name} is declared in ${declared.get(name)} and ${where}`);
    declared.set(name, where);
  };
  for (const mod of mods) {
    for (const [from, list] of mod.builtins) for (const n of list) claim(n, from);
    for (const [n, from] of mod.namespaces) claim(n, from);
    for (const n of mod.declared.keys()) claim(n, mod.file);
  }
}

function bundle() {
  const mods = ordered("index.js");
  const entry = mods.pop();
  if (entry.body.replace(/^export \{[^}]*\} from "[^"]+";$/gm, "").replace(/\/\*[\s\S]*?\*\//g, "").trim()) {
    throw new Error("index.js: the entry may only re-export");
  }
  checkNames(mods);
  const byFile = new Map(mods.map((m) => [m.file, m]));
  const core = mods.filter((m) => !LAZY.has(m.file));
  const more = mods.filter((m) => LAZY.has(m.file));
  const fromMore = crossing([...core, entry], true, byFile); // stubs in the entry
  const fromCore = crossing(more, false, byFile); // handed to the rest
  for (const [n, mod] of fromMore) {
    if (mod.declared.get(n) !== "function") throw new Error(`bundle: ${n} (${mod.file}) crosses to the entry but is not a function`);
  }
  const exported = entry.reexports.flatMap(([, list]) => list);
  const head = "// GENERATED by scripts/bundle.mjs from build/src/*.js (compiled from src/*.ts): do not edit.";
  const stubs = [...fromMore.keys()].map((n) => `function ${n}(...args) {\n  return more().${n}(...args);\n}`);
  const entryText = [
    head,
    ...imports(core, false),
    ...(more.length ? ['import { createRequire } from "node:module";'] : []),
    "",
    ...core.map(strip),
    "// ---- the rest of the reader, loaded on first use (scripts/bundle.mjs) ----------------------",
    "let MORE;",
    "function more() {",
    `  MORE ??= createRequire(import.meta.url)("./skillc-reader-more.cjs")({ ${[...fromCore.keys()].join(", ")} });`,
    "  return MORE;",
    "}",
    ...stubs,
    `export { ${exported.join(", ")} };\n`,
  ].join("\n");
  const moreText = [
    head,
    '"use strict";',
    `module.exports = function more({ ${[...fromCore.keys()].join(", ")} }) {`,
    ...imports(more, true),
    "",
    ...more.map(strip),
    `return { ${[...fromMore.keys()].join(", ")} };`,
    "};\n",
  ].join("\n");
  return [entryText, moreText];
}

const [entryText, moreText] = bundle();
writeFileSync(ENTRY, entryText);
writeFileSync(MORE, moreText);
