"""Before and after in one run: the naive loader, a full build by another checkout, a full build by this one.

    python bench/ab.py TREE --base OTHER_CHECKOUT [--repeat 7] [--python PY]

TREE: a tree from bench/gen.py. OTHER_CHECKOUT: a work tree of skillc (e.g. `git worktree add --detach
/tmp/base main`). Each round runs the naive loader (bench/targets.py's NAIVE), then
`skillc build --no-cache` of each checkout, the two in alternating order, each in a new process with
skillc imported from a plain package directory (a `skillc -> compiler/` link on PYTHONPATH). Prints
each round and the medians: wall time, CPU time (user + system, with the pool's workers) and peak
RSS, each also as a ratio to the naive loader. On a machine other work shares, CPU time moves less
than wall time; compare ratios within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.targets import NAIVE  # noqa: E402

MEASURE = r"""
import json, os, resource, subprocess, sys, time
argv, env = json.loads(sys.argv[1]), dict(os.environ, **json.loads(sys.argv[2]))
t = time.perf_counter()
rc = subprocess.call(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
wall = time.perf_counter() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps([rc, wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss]))
"""

Run = tuple[float, float, int]  # wall s, CPU s, peak RSS KiB


def measure(py: str, argv: list[str], env: dict[str, str]) -> Run:
    out = subprocess.run(
        [py, "-c", MEASURE, json.dumps(argv), json.dumps(env)], capture_output=True, text=True
    )
    rc, wall, cpu, rss = json.loads(out.stdout)
    if rc != 0:
        raise SystemExit(f"failed ({rc}): {' '.join(argv)}")
    return wall, cpu, rss


def site(work: Path, label: str, checkout: Path) -> str:
    d = work / label
    d.mkdir()
    (d / "skillc").symlink_to(checkout / "compiler")
    return str(d)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("tree", type=Path)
    ap.add_argument("--base", type=Path, required=True, help="the other checkout (before)")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--python", default=sys.executable)
    args = ap.parse_args()
    tree, py = args.tree.resolve(), args.python
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        paths = {"before": site(work, "before", args.base.resolve()), "after": site(work, "after", REPO)}
        runs: dict[str, list[Run]] = {"naive": [], "before": [], "after": []}
        for i in range(args.repeat):
            runs["naive"].append(measure(py, [py, "-c", NAIVE, str(tree / "skills")], {}))
            for label in ("before", "after") if i % 2 == 0 else ("after", "before"):
                shutil.rmtree(tree / "dist", ignore_errors=True)
                shutil.rmtree(tree / ".skillc-cache", ignore_errors=True)
                env = {"PYTHONPATH": paths[label], "XDG_CACHE_HOME": str(work / "xdg")}
                build = [py, "-m", "skillc", "build", "--no-cache", "--config", str(tree / "skillc.yaml")]
                runs[label].append(measure(py, build, env))
            line = {k: f"{v[-1][0]:.2f} s wall, {v[-1][1]:.2f} s CPU" for k, v in runs.items()}
            print(i, line, f"load {os.getloadavg()[0]:.1f}", flush=True)
    naive = [statistics.median(r[i] for r in runs["naive"]) for i in (0, 1)]
    print("\n| | wall | x naive | CPU | x naive | peak RSS |\n| --- | ---: | ---: | ---: | ---: | ---: |")
    for label, rs in runs.items():
        wall, cpu = (statistics.median(r[i] for r in rs) for i in (0, 1))
        peak = max(r[2] for r in rs) / 1024
        print(
            f"| {label} | {wall:.2f} s | {wall / naive[0]:.2f}x | {cpu:.2f} s | {cpu / naive[1]:.2f}x | {peak:.0f} MiB |"
        )


if __name__ == "__main__":
    main()
