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
// is not a function crossing from the rest to the entry). The two runtime files are shipped without
// comments and indentation: their text is a string V8 holds in the young generation of every process that imports
// the package, and a cold start that fills it past V8's threshold pays for a scavenge (the sources,
// src/*.ts, and the type declarations keep every comment).
import { readFileSync, writeFileSync } from "node:fs";
import ts from "typescript";

const SRC = new URL("../build/src/", import.meta.url);
const ENTRY = new URL("../build/skillc-reader.js", import.meta.url);
const CORE = new URL("../build/skillc-reader-core.js", import.meta.url);
const MORE = new URL("../build/skillc-reader-more.cjs", import.meta.url);
const LAZY = new Set([
  "strictjson.js",
  "foldtable.js",
  "delimiter.js",
  "words.js",
  "substitute.js",
  "render.js",
  "materialize.js",
  "frontmatter.js",
  "nearby.js",
  "split.js",
  "pack.js",
  "stack.js",
]);

const IMPORT = /^import \{([^}]*)\} from "([^"]+)";\n/gm;
const NAMESPACE = /^import \* as ([A-Za-z_$][\w$]*) from "(node:[a-z_/]+)";\n/gm;
const REEXPORT = /^export \{([^}]*)\} from "\.\/([^"]+)";$/gm;
const DECLARED = /^(?:export )?(?:async )?(function\*?|class|const|let|var) ([A-Za-z_$][\w$]*)/gm;

function names(list) {
  const out = list
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const n of out)
    if (!/^[A-Za-z_$][\w$]*$/.test(n)) throw new Error(`bundle: cannot join an import of ${n}`);
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
  mod.body = text
    .replace(IMPORT, "")
    .replace(NAMESPACE, "")
    .replace(/^\/\/# sourceMappingURL=.*\n?/m, "");
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

/** The Node built-ins a side uses, as `const` bindings taken from `source` (a map or require). */
function imports(mods, source) {
  const builtins = new Map();
  for (const mod of mods)
    for (const [from, list] of mod.builtins)
      builtins.set(from, new Set([...(builtins.get(from) ?? []), ...list]));
  return [
    ...mods.flatMap((m) => m.namespaces).map(([n, from]) => `const ${n} = ${source(from)};`),
    ...[...builtins]
      .sort()
      .map(([from, list]) => `const { ${[...list].sort().join(", ")} } = ${source(from)};`),
  ];
}

/** Every built-in module a side uses. */
function builtinsOf(mods) {
  return [
    ...new Set(mods.flatMap((m) => [...m.builtins.map(([f]) => f), ...m.namespaces.map(([, f]) => f)])),
  ].sort();
}

function checkNames(mods) {
  const declared = new Map();
  const claim = (name, where) => {
    if (declared.has(name) && declared.get(name) !== where)
      throw new Error(`bundle: ${name} is declared in ${declared.get(name)} and ${where}`);
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
  if (
    entry.body
      .replace(/^export \{[^}]*\} from "[^"]+";$/gm, "")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .trim()
  ) {
    throw new Error("index.js: the entry may only re-export");
  }
  checkNames(mods);
  const byFile = new Map(mods.map((m) => [m.file, m]));
  const core = mods.filter((m) => !LAZY.has(m.file));
  const more = mods.filter((m) => LAZY.has(m.file));
  const fromMore = crossing([...core, entry], true, byFile); // stubs in the entry
  const fromCore = crossing(more, false, byFile); // handed to the rest
  for (const [n, mod] of fromMore) {
    if (mod.declared.get(n) !== "function")
      throw new Error(`bundle: ${n} (${mod.file}) crosses to the entry but is not a function`);
  }
  const exported = entry.reexports.flatMap(([, list]) => list);
  const head =
    "// GENERATED by scripts/bundle.mjs from build/src/*.js (compiled from src/*.ts): do not edit.";
  const stubs = [...fromMore.keys()].map(
    (n) => `function ${n}(...args) {\n  return more().${n}(...args);\n}`,
  );
  const used = [...new Set([...builtinsOf(core), "node:fs", "node:module", "node:vm"])].sort();
  const coreText = [
    head,
    "// A script, not a module: skillc-reader.js compiles it with V8's code cache (see that file).",
    "(function (builtins, entryUrl) {",
    '"use strict";',
    ...imports(core, (from) => `builtins[${JSON.stringify(from)}]`),
    'const { createRequire } = builtins["node:module"];',
    "",
    ...core.map(strip),
    "// ---- the rest of the reader, loaded on first use (scripts/bundle.mjs) ----------------------",
    "let MORE;",
    "function more() {",
    `  MORE ??= createRequire(entryUrl)("./skillc-reader-more.cjs")({ ${[...fromCore.keys()].join(", ")} });`,
    "  return MORE;",
    "}",
    ...stubs,
    `return { ${exported.join(", ")} };`,
    "})\n",
  ].join("\n");
  const moreText = [
    head,
    '"use strict";',
    `module.exports = function more({ ${[...fromCore.keys()].join(", ")} }) {`,
    ...imports(more, (from) => `require(${JSON.stringify(from)})`),
    "",
    ...more.map(strip),
    `return { ${[...fromMore.keys()].join(", ")} };`,
    "};\n",
  ].join("\n");
  const entryText = ENTRY_TEMPLATE.replace(
    "BUILTIN_NAMES",
    used.map((from) => JSON.stringify(from)).join(", "),
  ).replace("EXPORTS", exported.join(", "));
  return [entryText, coreText, moreText];
}

// The entry: compiles the core script with the code cache scripts/cache.mjs wrote at build time
// (V8's compiled bytecode of the functions open() and catalog() run), or without it when there is
// none or V8 refuses it (another Node version): the cache saves a cold start about half a
// millisecond. Node's built-ins come from process.getBuiltinModule (Node 20.16 and later), which
// costs a third less than importing them as modules; older Node imports them.
const ENTRY_TEMPLATE = `// GENERATED by scripts/bundle.mjs: the package's entry. The reader itself is skillc-reader-core.js.
const NAMES = [BUILTIN_NAMES];
const builtin = process.getBuiltinModule;
const loaded = builtin ? NAMES.map((name) => builtin(name)) : await Promise.all(NAMES.map((name) => import(name)));
const builtins = Object.fromEntries(NAMES.map((name, i) => [name, loaded[i]]));

function load() {
  const { readFileSync } = builtins["node:fs"];
  const file = new URL("./skillc-reader-core.js", import.meta.url);
  let cachedData;
  try {
    cachedData = readFileSync(new URL("./skillc-reader-core.cache", import.meta.url));
  } catch {
    cachedData = undefined; // no cache: V8 compiles the script as usual
  }
  const script = new builtins["node:vm"].Script(readFileSync(file, "utf8"), { filename: file.href, cachedData });
  return script.runInThisContext()(builtins, import.meta.url);
}

export const { EXPORTS } = load();
`;

const [entryText, coreText, moreText] = bundle();
/** The text without its comments and its indentation (a line's leading spaces are kept only inside
 * a string or template that spans lines). TypeScript's printer leaves the code as it is. */
function compact(text) {
  const [head, ...rest] = text.split("\n");
  const options = { removeComments: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.None };
  const code = ts.transpileModule(rest.join("\n"), {
    compilerOptions: options,
    reportDiagnostics: false,
  }).outputText;
  const file = ts.createSourceFile("bundle.js", code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  const spans = []; // [start, end) of literals that hold a line feed
  const visit = (node) => {
    if (ts.isStringLiteral(node) || ts.isTemplateLiteralToken(node)) {
      if (node.getText(file).includes("\n")) spans.push([node.getStart(file), node.getEnd()]);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  let at = 0;
  const lines = code.split("\n").map((line) => {
    const start = at;
    at += line.length + 1;
    return spans.some(([a, b]) => a < start && start < b) ? line : line.replace(/^ +/, "");
  });
  return `${head}\n${lines.join("\n")}`;
}

writeFileSync(ENTRY, entryText);
writeFileSync(CORE, compact(coreText));
writeFileSync(MORE, compact(moreText));
