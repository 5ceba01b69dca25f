"""Per-call cost of the three readers in one long-lived process (issue 19, "the reader's per-call
waste"): catalog() called again, load() with arguments, and argument substitution on a long body.

    python bench/reader_calls.py [--skills 1000] [--workdir /dev/shm/skillc-reader-calls]
                                 [--repo REPO] [--readers python,typescript,rust] [--calls 2000]

One bench/gen.py tree is generated and built once (by this checkout's skillc, into WORKDIR); the
readers of `--repo` (default: this checkout; another checkout measures "before") then read that
build. The persona is the one with the longest catalog. Each figure is the median of `--calls`
calls in one process, after one call that is not counted (the first catalog() reads, hashes and
checks the object; later ones are what an application pays for every prompt it assembles):

- catalog() again    the same persona's catalog, called again
- load(args)         load(P, command, "Jita 4-4"), each command P sees, second pass (warm shards)
- substitute, `$`    substitute(body, "Jita 4-4") on a 32 KB body holding a few placeholders
- substitute, no `$` the same body with its `$` removed

`--cold N` adds the Python reader's cold start, as bench/targets.py states its target: new
processes, interleaved, medians of CPU time (user + sys) of `python -c pass`, of `open()` +
`catalog()`, and of `open()` + `load(args)` (PYTHONPATH to a plain package directory, bytecode
cached as for an installed package).

The TypeScript reader is imported from REPO/readers/typescript/build (run `npm ci` there first);
the Rust reader runs readers/rust/examples/reader_calls.rs, built offline with Debian's crates
(readers/rust/test-debian.sh's sources); it has no substitute row (`load(args)` substitutes).
Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))

from bench.gen import generate  # noqa: E402 (after the path it is found on)

BODY_BYTES = 32 * 1024

PYTHON = r"""
import json, statistics, sys, time
from skillc import reader
dist_path, persona, calls, body = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.stdin.read()
dist = reader.open(dist_path)

def median_us(fn, n):
    fn()
    times = []
    for _ in range(n):
        t = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - t)
    return statistics.median(times) / 1e3

commands = [s.command for s in dist.skills(persona, env=reader.EVERYWHERE) if s.model]
def loads():
    times = []
    for c in commands:
        t = time.perf_counter_ns()
        dist.load(persona, c, args="Jita 4-4")
        times.append(time.perf_counter_ns() - t)
    return statistics.median(times) / 1e3
loads()
per_load = loads()
plain = body.replace("$", "")
print(json.dumps({
    "catalog again": median_us(lambda: dist.catalog(persona), calls),
    "load(args)": per_load,
    "substitute, $": median_us(lambda: reader.substitute(body, "Jita 4-4"), calls),
    "substitute, no $": median_us(lambda: reader.substitute(plain, "Jita 4-4"), calls),
}))
"""

TYPESCRIPT = r"""
import { readFileSync } from "node:fs";
const [entry, distPath, persona, n] = process.argv.slice(1);
const reader = await import(entry);
const body = readFileSync(0, "utf8");
const dist = reader.open(distPath);
const calls = Number(n);
function medianUs(fn) {
  fn();
  const times = [];
  for (let i = 0; i < calls; i++) {
    const t = process.hrtime.bigint();
    fn();
    times.push(Number(process.hrtime.bigint() - t));
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] / 1e3;
}
const commands = dist.skills(persona).map((s) => s.command);
const loads = () => {
  const times = [];
  for (const c of commands) {
    const t = process.hrtime.bigint();
    dist.load(persona, c, { args: "Jita 4-4" });
    times.push(Number(process.hrtime.bigint() - t));
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] / 1e3;
};
loads();
const perLoad = loads();
const plain = body.replaceAll("$", "");
console.log(JSON.stringify({
  "catalog again": medianUs(() => dist.catalog(persona)),
  "load(args)": perLoad,
  "substitute, $": medianUs(() => reader.substitute(body, "Jita 4-4")),
  "substitute, no $": medianUs(() => reader.substitute(plain, "Jita 4-4")),
}));
"""

CARGO_OFFLINE = [
    "--offline",
    "--config",
    'source.crates-io.replace-with="debian"',
    "--config",
    'source.debian.directory="/usr/share/cargo/registry"',
]


def build_tree(skills: int, workdir: Path) -> Path:
    tree = workdir / f"t{skills}"
    if not (tree / "dist" / "_index.json").exists():
        shutil.rmtree(tree, ignore_errors=True)
        generate(tree, skills, n_personas=12, seed=0)
        env = {**os.environ, "PYTHONPATH": str(HERE)}
        cmd = [sys.executable, "-m", "skillc", "build", "-q", "--config", str(tree / "skillc.yaml")]
        subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return tree / "dist"


def longest_catalog(dist: Path) -> str:
    personas: dict[str, dict[str, int]] = json.loads((dist / "_index.json").read_text("utf-8"))["personas"]
    return max(sorted(personas), key=lambda p: personas[p]["chars"])


def long_body(dist: Path) -> str:
    """32 KB of skill bodies from the build, as one long body: prose with a few placeholders."""
    text, objects = "", sorted((dist / "objects").glob("*/*"))
    for path in objects:
        data = path.read_bytes()
        if data.startswith(b"#") and b"$ARGUMENTS" in data:
            text += data.decode("utf-8") + "\n"
        if len(text) >= BODY_BYTES:
            break
    return text[:BODY_BYTES]


def python(repo: Path, dist: Path, persona: str, calls: int, body: str, workdir: Path) -> dict[str, float]:
    site = workdir / f"site-{abs(hash(str(repo)))}"
    site.mkdir(parents=True, exist_ok=True)
    if not (site / "skillc").exists():
        (site / "skillc").symlink_to(repo / "compiler")
    env = {**os.environ, "PYTHONPATH": str(site)}
    out = subprocess.run(
        [sys.executable, "-c", PYTHON, str(dist), persona, str(calls)],
        input=body,
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def cold(repo: Path, dist: Path, persona: str, runs: int, workdir: Path) -> dict[str, float]:
    """Milliseconds of CPU time of new processes (medians), and each reader row over the floor."""
    site = workdir / f"site-{abs(hash(str(repo)))}"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(site)
    first = subprocess.run(
        [
            sys.executable,
            "-c",
            f"from skillc import reader; d = reader.open({str(dist)!r}); "
            f"print(next(s.command for s in d.skills({persona!r}, env=reader.EVERYWHERE) if s.model))",
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    rows = {
        "python -c pass": "pass",
        "open + catalog": f"from skillc import reader; reader.open({str(dist)!r}).catalog({persona!r})",
        "open + load(args)": f"from skillc import reader; reader.open({str(dist)!r}).load({persona!r}, {first!r}, args='Jita 4-4')",
    }
    times: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(runs):  # interleaved: a slow moment of the machine hits every row alike
        for name, code in rows.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run([sys.executable, "-c", code], env=env, check=True, stdout=subprocess.DEVNULL)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            times[name].append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1e3)
    out = {name: statistics.median(values) for name, values in times.items()}
    floor = out["python -c pass"]
    out.update({f"{name} / floor": out[name] / floor for name in rows if name != "python -c pass"})
    return out


def typescript(repo: Path, dist: Path, persona: str, calls: int, body: str) -> dict[str, float]:
    entry = repo / "readers" / "typescript" / "build" / "skillc-reader.js"
    argv = ["node", "--input-type=module", "-e", TYPESCRIPT, entry.as_uri(), str(dist), persona, str(calls)]
    out = subprocess.run(argv, input=body, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def rust(repo: Path, dist: Path, persona: str, calls: int) -> dict[str, float]:
    crate = repo / "readers" / "rust"
    example = crate / "examples" / "reader_calls.rs"
    if not example.exists():  # an older checkout: measure it with this checkout's example
        shutil.copy(HERE / "readers" / "rust" / "examples" / "reader_calls.rs", example)
    argv = ["cargo", "run", "-q", "--release", *CARGO_OFFLINE, "--example", "reader_calls", "--"]
    out = subprocess.run([*argv, str(dist), persona, str(calls)], cwd=crate, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"rust: {out.stderr[-2000:]}")
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--workdir", type=Path, default=Path("/dev/shm/skillc-reader-calls"))
    parser.add_argument("--repo", type=Path, default=HERE, help="the checkout whose readers are measured")
    parser.add_argument("--readers", default="python,typescript,rust")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--cold", type=int, default=0, help="runs of the Python cold start (0: none)")
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    dist = build_tree(args.skills, args.workdir)
    persona, body = longest_catalog(dist), long_body(dist)
    rows: dict[str, dict[str, float]] = {}
    for name in args.readers.split(","):
        if name == "python":
            rows[name] = python(args.repo.resolve(), dist, persona, args.calls, body, args.workdir)
        elif name == "typescript":
            rows[name] = typescript(args.repo.resolve(), dist, persona, args.calls, body)
        elif name == "rust":
            rows[name] = rust(args.repo.resolve(), dist, persona, args.calls)
    catalog_chars = json.loads((dist / "_index.json").read_text("utf-8"))["personas"][persona]["chars"]
    print(
        f"{args.repo}: {args.skills} skills, persona {persona} ({catalog_chars} catalog chars), "
        f"body {len(body)} chars with {body.count('$')} `$`; medians in microseconds"
    )
    figures = ["catalog again", "load(args)", "substitute, $", "substitute, no $"]
    print("| reader | " + " | ".join(figures) + " |")
    print("|---" * (len(figures) + 1) + "|")
    for name, row in rows.items():
        print(f"| {name} | " + " | ".join(f"{row[f]:.1f}" if f in row else "" for f in figures) + " |")
    if args.cold and "python" in rows:
        found = cold(args.repo.resolve(), dist, persona, args.cold, args.workdir)
        print(
            f"\nPython cold start, CPU ms, medians of {args.cold} interleaved runs: "
            + ", ".join(f"{k} {v:.2f}{'x' if '/' in k else ''}" for k, v in found.items())
        )


if __name__ == "__main__":
    main()
