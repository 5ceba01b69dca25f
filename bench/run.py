"""skillc benchmark: build and reader timings on synthetic trees, printed as markdown.

    python bench/run.py [--sizes 100,1000,10000] [--repeat 3] [--workdir DIR]
                        [--persona base-g] [--skillc] [--no-skills-ref] [--out FILE]

For each N a fresh tree is written by bench/gen.py (N distinct commands, 12 personas),
then, each in a new process:

- full build      `python -m skillc build --config T/skillc.yaml`, no dist/ (median)
- no-op rebuild   the same again, nothing changed (median); also with -q, which
                  leaves out printing the warnings (at N=10,000 the budget warns
                  about 110,000 left-out catalog entries)
- touch 1         after bumping one SKILL.md's mtime, content unchanged (median)
- edit 1          after appending a line to one SKILL.md's body (median)
- peak RSS        ru_maxrss of the full build, read with resource.getrusage(
                  RUSAGE_CHILDREN) in a wrapper process that runs only the build
                  (for a multi-process build this is the largest single process)
- dist            bytes and files under dist/ after the first full build
- reader cold     `python -c "from skillc import reader; reader.open(D).catalog(P)"`
                  wall time (median of max(11, repeat)), with bytecode caching on as
                  for an installed package (PYTHONDONTWRITEBYTECODE is dropped for it);
                  `python -c pass` is printed too
- load()          per call, in one process: dist.load(P, command, args=...) over up to
                  2000 commands, first and second pass
- skills-ref      `agentskills to-prompt DIR...` over every SKILL.md directory
                  (bench/skills_ref_bench.py), for scale; it does much less work

Build output (warnings for every skill cut by the 30000-char catalog budget at large N)
goes to WORKDIR/logs/, not the terminal. Standard library only; the skillc is
imported from this checkout (PYTHONPATH) unless --skillc runs the `skillc` script.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.gen import SOURCES, commands, generate, skill_dirs  # noqa: E402
from bench.skills_ref_bench import time_skills_ref  # noqa: E402

GENERATED = {"skillc.yaml", "skills", "personas"}  # everything else in a tree is output

_MEASURE = r"""
import json, resource, subprocess, sys, time
argv = json.loads(sys.argv[1])
with open(sys.argv[2], "ab") as log:
    log.write(("$ " + " ".join(argv) + "\n").encode()); log.flush()
    t0 = time.perf_counter()
    rc = subprocess.call(argv, stdout=log, stderr=subprocess.STDOUT, cwd=sys.argv[3])
    dt = time.perf_counter() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
rss = ru.ru_maxrss * (1 if sys.platform == "darwin" else 1024)
print(json.dumps({"rc": rc, "seconds": dt, "maxrss_bytes": rss}))
"""

_READER = r"""
import json, statistics, sys, time
t0 = time.perf_counter()
from skillc import reader
t1 = time.perf_counter()
dist = reader.open(sys.argv[1])
t2 = time.perf_counter()
cat = dist.catalog(sys.argv[2])
t3 = time.perf_counter()
cmds = json.load(sys.stdin)
res = {"import_ms": (t1 - t0) * 1e3, "open_ms": (t2 - t1) * 1e3,
       "catalog_ms": (t3 - t2) * 1e3, "catalog_chars": len(cat), "errors": 0}
for label in ("first", "second"):
    times = []
    for c in cmds:
        s = time.perf_counter()
        try:
            body = dist.load(sys.argv[2], c, args="Jita 4-4").body
        except reader.ReaderError as e:
            res["errors"] += 1
            res.setdefault("error", f"{type(e).__name__}: {e}"[:200])
            continue
        times.append(time.perf_counter() - s)
    times.sort()
    if times:
        res[label + "_median_us"] = statistics.median(times) * 1e6
        res[label + "_p95_us"] = times[min(len(times) - 1, int(len(times) * 0.95))] * 1e6
    res["calls"] = len(times)
print(json.dumps(res))
"""


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def child_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    return env


def reader_env() -> dict:
    """An application's process: bytecode is cached, as for any installed package."""
    env = child_env()
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def wall(
    argv: list[str], stdin: bytes | None = None, cwd: Path | None = None, env: dict | None = None
) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    p = subprocess.run(argv, input=stdin, capture_output=True, cwd=cwd, env=env or child_env())
    return time.perf_counter() - t0, p


def median_wall(
    argv: list[str], n: int, cwd: Path | None = None, env: dict | None = None
) -> tuple[float | None, str]:
    wall(argv, cwd=cwd, env=env)  # warm-up: writes bytecode, fills the page cache
    times = []
    for _ in range(n):
        dt, p = wall(argv, cwd=cwd, env=env)
        if p.returncode != 0:
            return None, p.stderr.decode(errors="replace")[-1500:]
        times.append(dt)
    return statistics.median(times), ""


class Builder:
    def __init__(self, argv_prefix: list[str], logfile: Path):
        self.prefix = argv_prefix
        self.logfile = logfile

    def build(self, config: Path, *extra: str) -> dict:
        argv = [*self.prefix, "build", "--config", str(config), *extra]
        os.sync()  # start from settled disk writeback, not the previous run's
        p = subprocess.run(
            [sys.executable, "-c", _MEASURE, json.dumps(argv), str(self.logfile), str(config.parent)],
            capture_output=True,
            env=child_env(),
        )
        if p.returncode != 0:
            raise RuntimeError(p.stderr.decode(errors="replace")[-1500:])
        return json.loads(p.stdout)

    def log_tail(self, n: int = 15) -> str:
        try:
            lines = self.logfile.read_text(errors="replace").splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-n:])


def clean_outputs(tree: Path) -> None:
    for e in tree.iterdir():
        if e.name in GENERATED:
            continue
        if e.is_dir() and not e.is_symlink():
            shutil.rmtree(e)
        else:
            e.unlink()


def tree_size(root: Path) -> tuple[int, int]:
    total = files = 0
    for d, _, fs in os.walk(root):
        for f in fs:
            st = os.lstat(os.path.join(d, f))
            total += st.st_size
            files += 1
    return total, files


def pick_edit_target(tree: Path) -> Path:
    """A top-level src-a skill that src-b does not override, so that editing it matters."""
    a, b = (tree / "skills" / s for s in SOURCES)
    cands = [d for d in skill_dirs(tree) if d.parent == a and not (b / d.name / "SKILL.md").exists()]
    return cands[len(cands) // 2] / "SKILL.md"


def fmt(x, spec: str, scale: float = 1.0) -> str:
    if x is None:
        return "-"
    return format(x if scale == 1.0 else x * scale, spec)


def bench_size(n: int, args, builder_prefix: list[str], workdir: Path) -> dict:
    row: dict = {"N": n}
    tree = workdir / f"n{n}"
    if tree.exists():
        shutil.rmtree(tree)
    t0 = time.perf_counter()
    generate(tree, n, n_personas=12, seed=args.seed)
    log(f"[N={n}] tree written in {time.perf_counter() - t0:.1f}s: {tree}")
    dirs = skill_dirs(tree)
    row["files"] = len(dirs)
    row["src_bytes"] = tree_size(tree / "skills")[0] + tree_size(tree / "personas")[0]
    config = tree / "skillc.yaml"
    dist = tree / "dist"
    builder = Builder(builder_prefix, workdir / "logs" / f"build-n{n}.log")
    builder.logfile.parent.mkdir(parents=True, exist_ok=True)
    builder.logfile.write_bytes(b"")

    def runs(label: str, before=None, extra: tuple[str, ...] = ()) -> float | None:
        times = []
        for i in range(args.repeat):
            if before:
                before(i)
            r = builder.build(config, *extra)
            if r["rc"] != 0:
                row["error"] = f"{label}: exit {r['rc']}\n{builder.log_tail()}"
                log(f"[N={n}] {label} failed (exit {r['rc']}), log {builder.logfile}")
                return None
            times.append(r["seconds"])
            if label == "full":
                row["rss"] = max(row.get("rss", 0), r["maxrss_bytes"])
                if i == 0:
                    row["dist_bytes"], row["dist_files"] = tree_size(dist)
        t = statistics.median(times)
        log(f"[N={n}] {label}: median {t:.3f}s ({', '.join(f'{x:.3f}' for x in times)})")
        return t

    row["full"] = runs("full", before=lambda i: clean_outputs(tree))
    if row["full"] is not None:
        row["noop"] = runs("no-op")
        row["noop_q"] = runs("no-op -q", extra=("-q",))
        target = pick_edit_target(tree)
        original = target.read_bytes()

        def touch(i: int) -> None:
            st = target.stat()
            os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))

        def edit(i: int) -> None:
            target.write_bytes(original + f"\nEdited for the benchmark, run {i}.\n".encode())

        if row.get("noop") is not None:
            row["touch"] = runs("touch 1", before=touch)
        if row.get("touch") is not None:
            row["edit"] = runs("edit 1", before=edit)
        target.write_bytes(original)

    if dist.is_dir() and (dist / "_index.json").exists():
        d = str(dist.resolve())
        code = f"from skillc import reader; reader.open({d!r}).catalog({args.persona!r})"
        row["cold"], err = median_wall(
            [sys.executable, "-c", code], max(11, args.repeat), cwd=tree, env=reader_env()
        )
        if err:
            row.setdefault("error", f"reader cold start: {err}")
        cmds = commands(tree)
        step = max(1, len(cmds) // 2000)
        _, p = wall(
            [sys.executable, "-c", _READER, d, args.persona],
            stdin=json.dumps(cmds[::step]).encode(),
            cwd=tree,
            env=reader_env(),
        )
        if p.returncode == 0:
            row["reader"] = json.loads(p.stdout)
        else:
            row.setdefault("error", f"reader load: {p.stderr.decode(errors='replace')[-1500:]}")

    if not args.no_skills_ref:
        row["skills_ref"] = time_skills_ref(dirs, repeat=args.repeat)
    if not args.keep:
        shutil.rmtree(tree)
    return row


def table(rows: list[dict], py_start: float | None) -> str:
    head = [
        "N",
        "SKILL.md files",
        "sources MiB",
        "full build s",
        "no-op s",
        "no-op -q s",
        "touch 1 s",
        "edit 1 s",
        "peak RSS MiB",
        "dist MiB",
        "dist files",
        "reader cold ms",
        "load() us",
        "skills-ref to-prompt s",
        "skills-ref / reader cold",
    ]
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---:" for _ in head) + "|"]
    for r in rows:
        rd = r.get("reader") or {}
        cells = [
            str(r["N"]),
            str(r["files"]),
            fmt(r.get("src_bytes"), ".1f", 1 / 2**20),
            fmt(r.get("full"), ".3f"),
            fmt(r.get("noop"), ".3f"),
            fmt(r.get("noop_q"), ".3f"),
            fmt(r.get("touch"), ".3f"),
            fmt(r.get("edit"), ".3f"),
            fmt(r.get("rss"), ".0f", 1 / 2**20),
            fmt(r.get("dist_bytes"), ".1f", 1 / 2**20),
            fmt(r.get("dist_files"), "d"),
            fmt(r.get("cold"), ".0f", 1e3),
            fmt(rd.get("first_median_us"), ".0f"),
            fmt(r.get("skills_ref"), ".3f"),
            f"{r['skills_ref'] / r['cold']:.0f}x" if r.get("skills_ref") and r.get("cold") else "-",
        ]
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    out.append(
        "| N | reader import ms | open() ms | catalog() ms | catalog chars | load() 1st median / p95 us | load() 2nd median / p95 us | load() calls | errors |"
    )
    out.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        rd = r.get("reader") or {}
        out.append(
            f"| {r['N']} | {fmt(rd.get('import_ms'), '.1f')} | {fmt(rd.get('open_ms'), '.1f')} | "
            f"{fmt(rd.get('catalog_ms'), '.2f')} | {fmt(rd.get('catalog_chars'), 'd')} | "
            f"{fmt(rd.get('first_median_us'), '.0f')} / {fmt(rd.get('first_p95_us'), '.0f')} | "
            f"{fmt(rd.get('second_median_us'), '.0f')} / {fmt(rd.get('second_p95_us'), '.0f')} | "
            f"{fmt(rd.get('calls'), 'd')} | {rd.get('errors', '-')} |"
        )
    out.append("")
    out.append(
        f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs; "
        f"`python -c pass` takes {fmt(py_start, '.0f', 1e3)} ms (included in reader cold). "
        "Times are medians of wall clock; 12 personas; catalog budget 30000 chars."
    )
    errors = [(r["N"], r["error"]) for r in rows if r.get("error")]
    for n, e in errors:
        first, _, rest = e.partition("\n")
        out.append(f"\nN={n}: {first}" + (f"\n```\n{rest}\n```" if rest else ""))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Benchmark skillc on synthetic trees.")
    ap.add_argument("--sizes", default="100,1000,10000", help="comma-separated N values")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--persona", default="base-g", help="persona for catalog() and load()")
    ap.add_argument("--workdir", type=Path, help="where trees and logs go (default: a temp dir)")
    ap.add_argument("--keep", action="store_true", help="keep the generated trees")
    ap.add_argument("--skillc", action="store_true", help="run the `skillc` script, not python -m skillc")
    ap.add_argument("--no-skills-ref", action="store_true", help="skip the skills-ref comparison")
    ap.add_argument("--out", type=Path, help="also write the markdown table to this file")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]

    if args.skillc:
        exe = shutil.which("skillc")
        if not exe:
            log("skillc is not on PATH (pip install -e .)")
            return 2
        prefix = [exe]
    else:
        prefix = [sys.executable, "-m", "skillc"]
        if importlib.util.find_spec("skillc") is None:
            log(f"note: no `skillc` package in {REPO}; build and reader columns will fail")

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="skillc-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    log(f"workdir {workdir}")
    py_start, _ = median_wall([sys.executable, "-c", "pass"], 11, env=reader_env())

    rows = []
    for n in sizes:
        rows.append(bench_size(n, args, prefix, workdir))
        # print as we go, so a long run shows its early rows
        log(table(rows, py_start))
    text = table(rows, py_start)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    if not args.keep and args.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)
    else:
        log(f"logs in {workdir / 'logs'}")
    return 0 if all(not r.get("error") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
