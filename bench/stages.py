"""Time each compiler stage in one process: where a build spends its time.

    python bench/stages.py TREE/skillc.yaml [--noop | --edit] [--profile OUT.pstats]

Runs the same stages as `skillc build --no-cache`, one at a time, and prints
wall time per stage. With --noop, times instead what a no-op rebuild with the
cache does (run `skillc build` first; twice if the tree changed in the moment
before, so that the record vouches for the inputs' stat data): the quick path
as a whole, then each of its checks (fingerprint, head.json, the watched files,
walk.json and the stat data of every folder and file in it, the output,
report.json) one by one, and the walks a build after a change takes. With --edit,
appends a line to one SKILL.md and times each stage of the rebuild with the
cache (build once first). With --profile, the run is also recorded with
cProfile for `python -m pstats OUT.pstats`.
"""

from __future__ import annotations

import argparse
import cProfile
import itertools
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def stages(config_path: Path) -> list[tuple[str, float]]:
    """The stages of `skillc build --no-cache`, called one by one through their public functions."""
    import gc

    t = [("start", time.perf_counter())]

    def mark(label: str) -> None:
        t.append((label, time.perf_counter()))

    from skillc.cli import GC_THRESHOLD
    from skillc.output.assemble import artifacts
    from skillc.output.write import write
    from skillc.project import config as config_mod
    from skillc.stages.buildhash import build_hash
    from skillc.stages.catalog import catalogs
    from skillc.stages.discover import discover_checked
    from skillc.stages.resolve import resolve
    from skillc.stages.skills import checked_first, walk_checks
    from skillc.stages.template import load_template
    from skillc.stages.validate import validate

    gc.set_threshold(*GC_THRESHOLD)  # as the CLI sets it: the default costs 30% more at 100,000 skills
    gc.disable()  # as the pipeline runs a build: the collector paused (pipeline.compile_project)
    mark("import")
    config, _ = config_mod.load(config_path)
    assert config is not None, "the config does not load"
    template, _ = load_template(config)
    assert template is not None, "the template does not load"
    mark("config + template")
    # As `--no-cache` runs them: a large source walked, read and checked by two processes.
    found, checked = discover_checked(config, walk_checks(), os.listdir)
    mark("discover (walk + read; a large source's checks too, in two processes)")
    program = validate(found, checked_first(checked))
    mark("parse + validate (the rest)")
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
    """A no-op rebuild with the cache: the quick path (cache.quick_replay) as a whole, then each of
    its checks again, one by one, through the functions it calls."""
    t = [("start", time.perf_counter())]

    def mark(label: str) -> None:
        t.append((label, time.perf_counter()))

    import gc

    from skillc.cli import GC_THRESHOLD
    from skillc.incremental import quick as q
    from skillc.incremental import quick_hit, quick_replay
    from skillc.incremental.records import Records, debris
    from skillc.incremental.snapshot import take_snapshot
    from skillc.options import Options

    gc.set_threshold(*GC_THRESHOLD)  # as the CLI runs
    mark("import")
    early = quick_replay(config_path, Options(), prune=False)
    hit = quick_hit(early)
    assert hit is not None, "not a no-op: something changed (run `skillc build` again)"
    mark("quick_replay, whole (what a no-op build does)")
    with open(os.devnull, "w") as sink:
        sink.write(hit.report.text)
    mark("print the recorded report")
    assert early is not None
    directory = early.records.directory
    print_ = q.fingerprint()
    mark("  compiler fingerprint (stat data)")
    records = Records(directory, early.records.signing_key, print_, q.FORMAT)
    record = records.record()
    assert record is not None and record.quick is not None
    mark("  read head.json")
    q.quick_head(print_, config_path, Options(), record.quick.watched)
    mark(f"  hash the {len(record.quick.watched)} watched files (config, template, ignore files)")
    manifest = records.walk()
    assert manifest is not None, "no walk.json for this build (run `skillc build` again)"
    mark(f"  read walk.json: {len(manifest.paths)} paths")
    assert manifest.unchanged()
    roots, folders, files = manifest.counts
    mark(f"  lstat {folders - roots} folders and {files} files, {len(manifest.digests)} digests")
    dist = config_path.resolve().parent / record.quick.output
    assert not debris(dist) and q.same_output(dist, record.quick)
    mark(
        f"  the output: {len(record.quick.dirs)} folders, {len(record.quick.files)} files that are no object"
    )
    records.report(record.build_key)
    mark("  read and verify report.json")
    tops = tuple((a, b) for a, b in record.quick.tops)
    now = take_snapshot(tops, directory, manifest.listings())
    assert now is not None and now.digest == record.inputs
    mark("(not on the no-op path) a walk after a change, nothing listed again, and its digest")
    now = take_snapshot(tops, directory)
    assert now is not None and now.digest == record.inputs
    mark(f"(not on the no-op path) a walk that lists all {len(now.dirs)} folders, and its digest")
    rows = hit.report.diagnostics()
    mark(f"(not on the no-op path) read and decode {len(rows)} diagnostics")
    return [(label, t1 - t0) for (_, t0), (label, t1) in itertools.pairwise(t)]


def edit_stages(config_path: Path) -> list[tuple[str, float]]:
    """A rebuild with the cache after appending a line to one SKILL.md (the middle one, sorted),
    timed by the pipeline's documented hook: Options.progress is told each stage as it starts."""
    import gc

    from skillc import pipeline
    from skillc.cli import GC_THRESHOLD
    from skillc.options import Options

    gc.set_threshold(*GC_THRESHOLD)
    marks: list[tuple[str, float]] = []
    skills = sorted(config_path.parent.rglob("SKILL.md"))
    with open(skills[len(skills) // 2], "a", encoding="utf-8") as fh:
        fh.write(f"\nEdited at {time.time()}.\n")
    t0 = time.perf_counter()
    result, _ = pipeline.build(
        config_path, Options(progress=lambda stage: marks.append((stage, time.perf_counter())))
    )
    end = time.perf_counter()
    print(f"cache: {result.cache}", file=sys.stderr)
    starts = [("config and template", t0), *marks, ("", end)]
    return [(label, t1 - t0) for (label, t0), (_, t1) in itertools.pairwise(starts)]


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
    total = sum(s for label, s in rows if not label.startswith(("  ", "(")))
    print("| stage | s | share |\n|---|---:|---:|")
    for label, s in rows:
        print(f"| {label} | {s:.3f} | {s / total:.0%} |")
    print(f"| total | {total:.3f} | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
