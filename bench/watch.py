"""skillc benchmark: how long `skillc build --watch` takes to show a one-file edit in dist/.

    python bench/watch.py [--skills 10000] [--personas 12] [--edits 5] [--workdir DIR] [--poll]

A tree from bench/gen.py is built once; then `python -m skillc build --watch` runs on it in a
subprocess. Once it prints that it is watching, one SKILL.md body is edited at a time and the
time until dist/_index.json is replaced is measured (the index is the build's commit point, so a
reader sees the edit from then on). Printed side by side: the median latency, a full build from
scratch, a one-edit build in a new process (what a watch saves by staying warm) and the watch's
own debounce, the floor any edit pays. `--poll` measures the polling fallback (SKILLC_WATCH_POLL=1).
Standard library only.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.gen import generate, skill_dirs  # noqa: E402

DEBOUNCE_MS = 30  # compiler/cli/watch.py DEBOUNCE_MS: the quiet time before a run


def _env(poll: bool) -> dict[str, str]:
    env = dict(os.environ)  # skillc as this Python has it installed (`pip install -e .` for a checkout)
    if poll:
        env["SKILLC_WATCH_POLL"] = "1"
    return env


def _build(config: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "skillc", "build", "-q", "--config", str(config)],
        env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    return time.perf_counter() - start


def _stamp(index: Path) -> tuple[int, int]:
    st = index.stat()
    return st.st_ino, st.st_mtime_ns


class Watch:
    """`skillc build --watch` in a subprocess, with its stderr read on a thread."""

    def __init__(self, config: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "skillc", "build", "-q", "--watch", "--config", str(config)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.watching = threading.Event()
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)
            if "watching for changes" in line:
                self.watching.set()

    def wait_watching(self, timeout: float = 300) -> None:
        if not self.watching.wait(timeout):
            raise SystemExit("the watch never said it was watching:\n" + "".join(self.lines))
        self.watching.clear()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)


def _latency(watch: Watch, target: Path, index: Path, i: int) -> float:
    watch.wait_watching()
    before = _stamp(index)
    start = time.perf_counter()
    with target.open("a", encoding="utf-8") as f:
        f.write(f"\nEdit {i} made by bench/watch.py.\n")
    while _stamp(index) == before:
        time.sleep(0.001)
        if time.perf_counter() - start > 300:
            raise SystemExit("dist/ never changed:\n" + "".join(watch.lines))
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--skills", type=int, default=10_000)
    ap.add_argument("--personas", type=int, default=12)
    ap.add_argument("--edits", type=int, default=5)
    ap.add_argument(
        "--workdir", type=Path, default=None, help="default: a temporary folder (tmpfs if /dev/shm)"
    )
    ap.add_argument("--poll", action="store_true", help="measure the polling fallback")
    args = ap.parse_args(argv)
    base = args.workdir or Path(tempfile.mkdtemp(dir="/dev/shm" if Path("/dev/shm").is_dir() else None))
    tree = base / f"watch-{args.skills}"
    shutil.rmtree(tree, ignore_errors=True)
    generate(tree, args.skills, args.personas)
    config, env = tree / "skillc.yaml", _env(args.poll)
    full = _build(config, env)
    target = skill_dirs(tree)[len(skill_dirs(tree)) // 2] / "SKILL.md"
    with target.open("a", encoding="utf-8") as f:
        f.write("\nA cold edit.\n")
    cold_edit = _build(config, env)
    watch = Watch(config, env)
    try:
        latencies = [_latency(watch, target, tree / "dist" / "_index.json", i) for i in range(args.edits)]
    finally:
        watch.stop()
    median = statistics.median(latencies)
    print(f"# bench/watch.py: {args.skills:,} skills x {args.personas} personas, {platform.machine()}, "
          f"{os.cpu_count()} cores, Python {platform.python_version()}, "
          f"{'polling' if args.poll else 'notifications'}")  # fmt: skip
    print("| measure | seconds | x full build |")
    print("| --- | ---: | ---: |")
    for label, value in [
        ("full build (new process, no dist/)", full),
        ("one edit, `skillc build` in a new process", cold_edit),
        (f"one edit under --watch, to dist/_index.json (median of {args.edits})", median),
        ("  of which the watch's debounce", DEBOUNCE_MS / 1000),
    ]:
        print(f"| {label} | {value:.3f} | {value / full:.3f} |")
    print("latencies: " + ", ".join(f"{x:.3f}" for x in latencies))
    if not args.workdir:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
