"""Cold start of the TypeScript reader (readers/typescript): a new `node` process that imports the
package and runs open() + catalog(), against `node -e ''`, in CPU time (user + sys).

    python bench/reader_ts_cold.py                    # the conformance suite's `main` build
    python bench/reader_ts_cold.py --skills 1000      # a bench/gen.py tree, built with skillc
    python bench/reader_ts_cold.py --dist DIST --persona P --runs 61

Each run is a new process in a clean environment (only PATH: no NODE_OPTIONS, no
NODE_EXTRA_CA_CERTS); the floor and the reader alternate, and the figures are the medians. The
package is imported by the path of its entry file (build/skillc-reader.js), as an application's
bundler or a path import would; `--bare` adds a row importing it by name from an application
folder, which adds Node's package resolution (the same for any package). The persona defaults
to the one with the longest catalog. Build the package first: `(cd readers/typescript && npm ci)`.
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
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "readers" / "typescript"
ENTRY = PACKAGE / "build" / "skillc-reader.js"
MAIN_BUILD = REPO / "tests" / "conformance" / "builds" / "main"
TARGET = 1.5


def cpu_seconds(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    """User + system CPU time of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def reader_code(specifier: str, dist: Path, persona: str) -> str:
    return (
        f"import {{ open }} from {json.dumps(specifier)};"
        f" open({json.dumps(str(dist))}).catalog({json.dumps(persona)});"
    )


def longest_catalog(dist: Path) -> str:
    personas: dict[str, dict[str, int]] = json.loads((dist / "_index.json").read_text("utf-8"))["personas"]
    return max(sorted(personas), key=lambda p: personas[p]["chars"])


def generated_build(skills: int, work: Path) -> Path:
    """A bench/gen.py tree of `skills` commands, compiled by this repository's skillc."""
    tree = work / "tree"
    subprocess.run(
        [sys.executable, str(REPO / "bench" / "gen.py"), str(tree), "--skills", str(skills)], check=True
    )
    subprocess.run(
        [sys.executable, "-m", "skillc", "--config", str(tree / "skillc.yaml"), "build"],
        check=True,
        cwd=tree,
        stdout=subprocess.DEVNULL,
    )
    return tree / "dist"


def app_folder(work: Path) -> Path:
    """An application folder whose node_modules/skillc-reader is the package (a symlink)."""
    app = work / "app"
    (app / "node_modules").mkdir(parents=True)
    (app / "node_modules" / "skillc-reader").symlink_to(PACKAGE)
    (app / "package.json").write_text('{"type": "module"}\n')
    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dist", type=Path, help="a built dist/ (default: the conformance main build)")
    parser.add_argument("--skills", type=int, help="generate and build a tree of this many skills instead")
    parser.add_argument("--persona", help="default: the persona with the longest catalog")
    parser.add_argument("--runs", type=int, default=41)
    parser.add_argument("--bare", action="store_true", help="also import the package by name")
    parser.add_argument("--node", default=shutil.which("node") or "node")
    args = parser.parse_args()
    if not ENTRY.exists():
        sys.exit(f"{ENTRY} is missing: run `npm ci` in {PACKAGE} first")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        dist = generated_build(args.skills, work) if args.skills else (args.dist or MAIN_BUILD).resolve()
        persona = args.persona or longest_catalog(dist)
        env = {"PATH": os.path.dirname(os.path.abspath(args.node)) + ":/usr/bin:/bin"}
        runs: dict[str, tuple[list[str], Path]] = {
            "node -e ''": ([args.node, "-e", ""], work),
            "import + open + catalog": (
                [args.node, "--input-type=module", "-e", reader_code(ENTRY.as_uri(), dist, persona)],
                work,
            ),
        }
        if args.bare:
            runs["same, imported by name"] = (
                [args.node, "--input-type=module", "-e", reader_code("skillc-reader", dist, persona)],
                app_folder(work),
            )
        times: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(args.runs):  # interleaved: a slow moment of the machine hits every row alike
            for name, (argv, cwd) in runs.items():
                times[name].append(cpu_seconds(argv, env, cwd))
    floor = statistics.median(times["node -e ''"])
    print(
        f"node {subprocess.run([args.node, '--version'], capture_output=True, text=True).stdout.strip()}, "
        f"dist {dist}, persona {persona}, {args.runs} runs each, medians of CPU time (user + sys)"
    )
    for name, values in times.items():
        ratio = statistics.median(values) / floor
        verdict = (
            ""
            if name == "node -e ''"
            else f"  target <= {TARGET}x: {'met' if ratio <= TARGET else 'NOT met'}"
        )
        print(f"  {name:26s} {statistics.median(values) * 1000:7.2f} ms  {ratio:5.2f}x{verdict}")


if __name__ == "__main__":
    main()
