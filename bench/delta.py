"""skillc benchmark: `build --watch`'s delta builds (compiler/incremental/delta.py) in one process, beside the
whole build they replace.

    python bench/delta.py [--skills 10000] [--personas 12] [--edits 5] [--workdir DIR]

A bench/gen.py tree is built once without the cache (the whole build, timed); the watch's state is
taken from it and warmed (timed); then one SKILL.md is edited in place `--edits` times per case and
each `delta.rebuild` is timed, written to dist/ included: a body edit, a description edit (every
persona whose catalog lists the skill is packed and rendered again), a resource's executable bit.
Printed side by side as ratios to the whole build. The end-to-end latency of the watch, with its
notifications and debounce, is bench/watch.py's.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.gen import generate, skill_dirs  # noqa: E402


def _cases(target: Path) -> dict[str, Callable[[int], list[Path]]]:
    """Each case: an edit made in place, returning the paths the watch would be told changed."""

    def body(i: int) -> list[Path]:
        with target.open("a", encoding="utf-8") as f:
            f.write(f"\nBody edit {i}.\n")
        return [target.resolve()]

    def description(i: int) -> list[Path]:
        text = target.read_text(encoding="utf-8")
        target.write_text(text.replace("description: ", f"description: Edit {i}. ", 1), encoding="utf-8")
        return [target.resolve()]

    script = target.parent / "notes.txt"

    def mode(i: int) -> list[Path]:
        script.chmod(0o755 if i % 2 == 0 else 0o644)
        return [script.resolve()]

    return {"one body edit": body, "one description edit": description, "a resource's mode": mode}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--skills", type=int, default=10_000)
    ap.add_argument("--personas", type=int, default=12)
    ap.add_argument("--edits", type=int, default=5)
    ap.add_argument("--workdir", type=Path, default=None, help="default: a temporary folder (tmpfs if any)")
    args = ap.parse_args(argv)
    from skillc.format.layout import INDEX
    from skillc.incremental.delta import rebuild, state_of, warm
    from skillc.pipeline import Compiled, build

    base = args.workdir or Path(tempfile.mkdtemp(dir="/dev/shm" if Path("/dev/shm").is_dir() else None))
    tree = base / f"delta-{args.skills}"
    shutil.rmtree(tree, ignore_errors=True)
    generate(tree, args.skills, args.personas)
    target = skill_dirs(tree)[len(skill_dirs(tree)) // 3] / "SKILL.md"
    (target.parent / "notes.txt").write_text("A resource of the edited skill.\n")
    start = time.perf_counter()
    result, written = build(tree / "skillc.yaml", cache=False, keep=True)
    full = time.perf_counter() - start
    assert isinstance(result, Compiled) and result.artifacts is not None and written is not None
    start = time.perf_counter()
    state = state_of(result, result.artifacts.files[INDEX])
    assert state is not None
    taken = time.perf_counter() - start
    del result
    start = time.perf_counter()
    warm(state)
    warmed = time.perf_counter() - start
    rows = [
        ("whole build, no cache (in this process)", full),
        ("the state, taken", taken),
        ("... warmed", warmed),
    ]
    for label, edit in _cases(target).items():
        times = []
        for i in range(args.edits):
            changed = edit(i)
            start = time.perf_counter()
            done = rebuild(state, changed)
            times.append(time.perf_counter() - start)
            if done is None:
                raise SystemExit(f"{label}: the delta declined the edit")
            state = done.state
        rows.append((f"{label}: delta build, written (median of {args.edits})", statistics.median(times)))
    print(
        f"# bench/delta.py: {args.skills:,} skills x {args.personas} personas, {platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}"
    )
    print("| measure | seconds | x whole build |")
    print("| --- | ---: | ---: |")
    for label, value in rows:
        print(f"| {label} | {value:.3f} | {value / full:.4f} |")
    if not args.workdir:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
