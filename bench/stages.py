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
    from skillc.digests import build_hash
    from skillc.output.assemble import artifacts
    from skillc.output.write import write
    from skillc.project import config as config_mod
    from skillc.stages.catalog import catalogs
    from skillc.stages.discover import discover
    from skillc.stages.resolve import resolve
    from skillc.stages.template import load_template
    from skillc.stages.validate import validate

    gc.set_threshold(*GC_THRESHOLD)  # as the CLI sets it: the default costs 30% more at 100,000 skills
    mark("import")
    config, _ = config_mod.load(config_path)
    assert config is not None, "the config does not load"
    template, _ = load_template(config)
    assert template is not None, "the template does not load"
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
    """A no-op rebuild with the cache, through the cache's door (cache.open_session, Session.replay)."""
    t = [("start", time.perf_counter())]

    def mark(label: str) -> None:
        t.append((label, time.perf_counter()))

    from skillc.cache import Hit, open_session
    from skillc.digests import build_hash
    from skillc.project import config as config_mod
    from skillc.stages.template import load_template

    mark("import")
    config, diags = config_mod.load(config_path)
    assert config is not None, "the config does not load"
    template, problems = load_template(config)
    assert template is not None, "the template does not load"
    mark("config + template")
    door = open_session(config, build_hash(config, (), template), diags + problems, prune=False)
    assert door is not None, "the cache is off"
    mark("compiler fingerprint, head key, stat walk (reads no input)")

    def discover(_: object) -> Hit:
        raise AssertionError("not a no-op: the inputs or the output changed (run `skillc build` again)")

    hit = door.replay(discover)
    assert isinstance(hit, Hit)
    mark("replay: build.json, stat data, the output directory, report.json")
    with open(os.devnull, "w") as sink:
        sink.write(hit.report.text)
    mark("print the recorded report")
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
    total = sum(s for _, s in rows)
    print("| stage | s | share |\n|---|---:|---:|")
    for label, s in rows:
        print(f"| {label} | {s:.3f} | {s / total:.0%} |")
    print(f"| total | {total:.3f} | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
