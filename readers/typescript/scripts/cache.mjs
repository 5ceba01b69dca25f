// Write build/skillc-reader-core.cache: V8's code cache for the reader's core script, taken after
// open() and catalog() have run on a small dist/ made here, so that it holds the compiled bytecode
// of the functions a cold start runs. The entry (build/skillc-reader.js) hands it to V8, which
// uses it only when it was made by the same V8 with the same flags, and else compiles as usual.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Script } from "node:vm";

const CORE = new URL("../build/skillc-reader-core.js", import.meta.url);
const CACHE = new URL("../build/skillc-reader-core.cache", import.meta.url);
const ENTRY = new URL("../build/skillc-reader.js", import.meta.url);

const sha = (data) => createHash("sha256").update(data).digest("hex");

/** A dist/ of one persona and one skill that needs a program no machine has: enough for open() and
 * catalog(), which then reads the requirements and the plan, looks for the program and cuts the
 * entry out (docs/format.md §17.2), as a cold catalog() does on a build with requirements. */
function smallDist(root) {
  const head = "<available_skills>\n";
  const entry = "<skill>\n<command>a</command>\n<location>skills/a/SKILL.md</location>\n</skill>\n";
  const prompt = `${head}${entry}</available_skills>\n`;
  const put = (data) => {
    const digest = sha(data);
    mkdirSync(join(root, "objects", digest.slice(0, 2)), { recursive: true });
    writeFileSync(join(root, "objects", digest.slice(0, 2), digest), data);
    return digest;
  };
  const json = (value) => put(JSON.stringify(value, null, 2) + "\n");
  const at = head.length + entry.indexOf("skills/");
  const plan = {
    format: 3,
    persona: "pilot",
    markup: true,
    entries: [
      {
        command: "a",
        start: head.length,
        end: head.length + entry.length,
        locations: [{ at, lines: false }],
      },
    ],
  };
  const needs = { bins: ["skillc-cache-no-such-program"], env: ["SKILLC_CACHE_NO_SUCH_VARIABLE"] };
  const index = {
    format: 3,
    generator: "scripts/cache.mjs",
    build_hash: sha("build"),
    config: {
      sources: ["skills"],
      personas: null,
      template: "catalog.xml.j2",
      catalog_chars: 30000,
      priority: [],
    },
    personas: {
      pilot: {
        prompt: put(prompt),
        chars: prompt.length,
        meta: sha("meta"),
        copy: "personas/pilot/prompt.xml",
        plan: json(plan),
      },
    },
    shards: sha("shards"),
    split: null,
    requires: json({ format: 3, requires: { a: needs } }),
    personas_hash: null,
    knowledge: null,
  };
  writeFileSync(join(root, "_index.json"), JSON.stringify(index, null, 2) + "\n");
}

const script = new Script(readFileSync(CORE, "utf8"), { filename: CORE.href });
const require = createRequire(import.meta.url);
const builtins = new Proxy({}, { get: (_, name) => require(name) }); // whichever the core asks for
const api = script.runInThisContext()(builtins, ENTRY.href);
const root = mkdtempSync(join(tmpdir(), "skillc-reader-cache-"));
try {
  smallDist(root);
  const dist = api.open(root);
  if (dist.catalog("pilot") !== "<available_skills>\n</available_skills>\n")
    throw new Error("cache.mjs: the cut");
  dist.catalog("pilot", { root: "/r" });
} finally {
  rmSync(root, { recursive: true, force: true });
}
writeFileSync(CACHE, script.createCachedData());
