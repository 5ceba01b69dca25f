"""Incremental builds, issue 19's cases, as ratios within one run (each build a new process, medians).

    python bench/incremental.py [--skills 10000] [--personas 12] [--workdir /dev/shm/skillc-incr]
                                [--repeat 3] [--python PY] [--compiler DIR] [--out FILE]

Cases: the naive loader (glob SKILL.md + yaml.CSafeLoader), a full build (`--no-cache`), and with
the cache: a no-op, a touch (mtime only), one body edit, one description edit, one skill added,
one skill deleted. skillc is imported from a plain package directory (WORKDIR/site/skillc ->
--compiler, default this checkout's compiler/), as an installed package would be; pass another
checkout's compiler/ to measure it in the same session. Standard library only (PyYAML for the
naive loader).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.gen import generate, skill_dirs  # noqa: E402
from bench.targets import NAIVE  # noqa: E402


def timed(argv: list[str], env: dict[str, str]) -> float:
    t = time.perf_counter()
    p = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    took = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit(f"failed ({p.returncode}): {' '.join(argv)}")
    return took


def median(
    argv: list[str], env: dict[str, str], n: int, before: Callable[[int], None] | None = None
) -> float:
    runs = []
    for i in range(n):
        if before:
            before(i)
        runs.append(timed(argv, env))
    return statistics.median(runs)


def measure(args: argparse.Namespace) -> list[tuple[str, float]]:
    work: Path = args.workdir
    site = work / "site"
    site.mkdir(parents=True, exist_ok=True)
    link = site / "skillc"
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(Path(args.compiler).resolve())
    env = {**os.environ, "PYTHONPATH": str(site), "XDG_CACHE_HOME": str(work / "xdg")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    tree = work / f"t{args.skills}x{args.personas}"
    if not tree.exists():
        generate(tree, args.skills, n_personas=args.personas, seed=0)
    py, cfg = args.python, tree / "skillc.yaml"
    build = [py, "-m", "skillc", "build", "-q", "--config", str(cfg)]

    def clean(_: int) -> None:
        shutil.rmtree(tree / "dist", ignore_errors=True)
        shutil.rmtree(tree / ".skillc-cache", ignore_errors=True)

    rows = [("naive loader", median([py, "-c", NAIVE, str(tree / "skills")], env, args.repeat))]
    rows.append(("full build (--no-cache)", median([*build, "--no-cache"], env, args.repeat, clean)))
    timed(build, env)  # the cache, from scratch
    time.sleep(0.05)  # past the clock tick of the last write, so the next build can vouch for it
    timed(build, env)
    dirs = skill_dirs(tree)
    target = dirs[len(dirs) // 2] / "SKILL.md"
    original = target.read_bytes()

    def settle(_: int) -> None:
        time.sleep(0.05)
        timed(build, env)  # the previous case's change, built: each case starts current

    rows.append(("no-op", median(build, env, args.repeat)))

    def touch(i: int) -> None:
        settle(i)
        st = target.stat()
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))

    rows.append(("touch one file", median(build, env, args.repeat, touch)))

    def body(i: int) -> None:
        settle(i)
        target.write_bytes(original + f"\nEdited {i}.\n".encode())

    rows.append(("edit one body", median(build, env, args.repeat, body)))

    def description(i: int) -> None:
        settle(i)
        text = original.decode()
        target.write_text(text.replace("description: ", f"description: Edited {i}. ", 1))

    rows.append(("edit one description", median(build, env, args.repeat, description)))
    target.write_bytes(original)
    added = target.parent.parent / "bench-added-skill"

    def add(i: int) -> None:
        settle(i)
        shutil.rmtree(added, ignore_errors=True)
        timed(build, env)
        added.mkdir()
        (added / "SKILL.md").write_text(
            f"---\nname: bench-added-skill\ndescription: Added {i}.\n---\nAdded.\n"
        )

    rows.append(("add one skill", median(build, env, args.repeat, add)))

    def delete(i: int) -> None:
        settle(i)
        (added / "SKILL.md").unlink()
        added.rmdir()

    def restore_then_delete(i: int) -> None:
        if not added.exists():
            add(i)
            timed(build, env)
        delete(i)

    rows.append(("delete one skill", median(build, env, args.repeat, restore_then_delete)))
    return rows


def table(rows: list[tuple[str, float]], label: str) -> str:
    naive, full = rows[0][1], rows[1][1]
    out = [f"| case ({label}) | s | x naive | x full |", "| --- | ---: | ---: | ---: |"]
    out += [f"| {name} | {s:.3f} | {s / naive:.2f} | {s / full:.2f} |" for name, s in rows]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skills", type=int, default=10000)
    ap.add_argument("--personas", type=int, default=12)
    ap.add_argument("--workdir", type=Path, default=Path("/dev/shm/skillc-incr"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--python", default=sys.executable, help="interpreter with skillc's dependencies")
    ap.add_argument("--compiler", type=Path, default=REPO / "compiler", help="the skillc package to measure")
    ap.add_argument("--label", default="this checkout")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    head = (
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}; {args.skills:,} skills x {args.personas} personas; "
        f"workdir {args.workdir}\n\n"
    )
    text = head + table(measure(args), args.label)
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
