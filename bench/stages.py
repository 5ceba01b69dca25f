"""Time each compiler stage in one process: where a build spends its time.

    python bench/stages.py TREE/skillc.yaml [--noop | --edit] [--profile OUT.pstats]

Runs the same stages as `skillc build --no-cache`, one at a time, and prints
wall time per stage. With --noop, times instead what a no-op rebuild with the
cache does (run `skillc build` first; twice if the tree changed in the
moment before, so that the record holds the inputs' stat data): the stat walk that stands in for discover, the replay
checks, loading the recorded diagnostics, and printing them the way the CLI
does. With --edit, appends a line to one SKILL.md and times each stage of the
rebuild with the cache (build once first). With --profile, the run is also recorded with cProfile for
`python -m pstats OUT.pstats`.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import itertools
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def stages(config_path: Path) -> list[tuple[str, float]]:
    import gc

    gc.set_threshold(50_000, 20, 100)  # as the CLI sets it: the default costs 30% more at 100,000 skills
    t = [("start", time.perf_counter())]

    def mark(label: str) -> None:
        t.append((label, time.perf_counter()))

    from skillc import config as config_mod
    from skillc.output.assemble import artifacts, build_hash, catalogs, load_template
    from skillc.output.write import write
    from skillc.stages.discover import discover
    from skillc.stages.resolve import resolve
    from skillc.stages.validate import validate

    mark("import")
    config, _ = config_mod.load(config_path)
    template, _ = load_template(config)
    mark("config + template")
    found = discover(config, os.listdir)
    mark("discover (walk + read)")
    program = validate(found)
    mark("parse + validate")
    resolutions = resolve(program)
    mark("resolve")
    texts, packings, _ = catalogs(config, program, resolutions, template)
    mark("catalogs (budget + Jinja)")
    art = artifacts(
        config, program, resolutions, template, texts, packings, build_hash(config, found.inputs, template)
    )
    mark("artifacts (objects + index)")
    write(config.root / config.output, art)
    mark("write")
    return [(label, t1 - t0) for (_, t0), (label, t1) in itertools.pairwise(t)]


def noop_stages(config_path: Path) -> list[tuple[str, float]]:
    t = [("start", time.perf_counter())]

    def mark(label: str) -> None:
        t.append((label, time.perf_counter()))

    from skillc import pipeline
    from skillc.cache import session as cache
    from skillc.cli import _report_recorded
    from skillc.output.assemble import build_hash

    mark("import")
    head = pipeline._head(config_path, None)
    mark("config + template")
    store = cache.open_cache(head.config)
    head_key = store.head_key(build_hash(head.config, (), head.template), head.config, head.diagnostics)
    mark("compiler fingerprint, head key")
    now = cache.take_snapshot(head.config, store.directory, head_key)
    assert now is not None, "the tree cannot be stat-walked (a directory symlink?)"
    mark(f"stat walk: {len(now.dirs)} directories, {len(now.files)} files (reads no input)")
    record = store._record()
    mark("load build.json")
    assert record is not None and record.inputs is not None, (
        "no record with stat data: run `skillc build` (again)"
    )
    assert cache.same_inputs(record.inputs, now), "inputs changed since the last build"
    mark("compare with the recorded stat data")
    assert cache.output_current(record, head.config.root / head.config.output, prune=False)
    mark("check the output directory (one walk)")
    report = cache.read_signed(store.directory, "report.json", store.key)
    mark("read and verify report.json (the printed text)")
    with open(os.devnull, "w") as sink, contextlib.redirect_stderr(sink):
        _report_recorded(cache._report_of(report, dict), quiet=False)
    mark("print it as the CLI does")
    rows = cache.decode_report(cache.read_signed(store.directory, "rows.json", store.key))
    mark(f"(not on the no-op path) read and decode {len(rows)} diagnostics")
    return [(label, t1 - t0) for (_, t0), (label, t1) in itertools.pairwise(t)]


def edit_stages(config_path: Path) -> list[tuple[str, float]]:
    """A rebuild with the cache after appending a line to one SKILL.md (the middle one, sorted):
    the pipeline's own functions timed in place, in the order they ran (nested ones apart)."""
    import functools
    import gc

    from skillc import pipeline
    from skillc.cache import session as cache
    from skillc.output import write as write_mod

    gc.set_threshold(50_000, 20, 100)  # as the CLI sets it
    spent: dict[str, float] = {}

    def timed(owner: object, name: str, label: str) -> None:
        fn = getattr(owner, name)

        @functools.wraps(fn)
        def wrapper(*args: object, **kwargs: object) -> object:
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[label] = spent.get(label, 0.0) + time.perf_counter() - t0

        setattr(owner, name, wrapper)

    for owner, name, label in (
        (cache.Session, "__init__", "stat walk (cache.Session)"),
        (cache.Session, "replay_unread", "no-op check (build.json)"),
        (pipeline, "_discovered", "discover (listings from the stat walk, reads)"),
        (pipeline, "build_hash", "build hash"),
        (cache.Session, "replay", "content check"),
        (cache.Cache, "load_memo", "load memo.json"),
        (pipeline, "validate", "validate (memo: only the edited file parsed)"),
        (pipeline, "resolve", "resolve"),
        (pipeline, "catalogs", "catalogs (memo)"),
        (pipeline, "artifacts", "artifacts (index, shards, objects)"),
        (write_mod, "compare", "write: compare"),
        (write_mod, "_fill", "write: fill and swap"),
        (cache.Cache, "save_memo", "save memo.json"),
        (cache.Session, "_record", "record the build"),
    ):
        timed(owner, name, label)
    skills = sorted(config_path.parent.rglob("SKILL.md"))
    with open(skills[len(skills) // 2], "a", encoding="utf-8") as fh:
        fh.write(f"\nEdited at {time.time()}.\n")
    t0 = time.perf_counter()
    result, _ = pipeline.build(config_path)
    total = time.perf_counter() - t0
    print(f"cache: {result.cache}", file=sys.stderr)
    rows = list(spent.items())
    return [*rows, ("rest (diagnostics, ordering, glue)", total - sum(s for _, s in rows))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("config", type=Path)
    ap.add_argument("--noop", action="store_true", help="time a no-op rebuild with the cache instead")
    ap.add_argument("--edit", action="store_true", help="time a rebuild with the cache after a one-file edit")
    ap.add_argument("--profile", type=Path, help="also write cProfile stats here")
    a = ap.parse_args(argv)
    prof = cProfile.Profile() if a.profile else None
    if prof:
        prof.enable()
    rows = noop_stages(a.config) if a.noop else edit_stages(a.config) if a.edit else stages(a.config)
    if prof:
        prof.disable()
        prof.dump_stats(a.profile)
    total = sum(s for _, s in rows)
    print("| stage | s | share |\n|---|---:|---:|")
    for label, s in rows:
        print(f"| {label} | {s:.3f} | {s / total:.0%} |")
    print(f"| total | {total:.3f} | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
