"""Run skillc over a directory of skill collections and report, per collection, what compiled.

    python bench/corpus.py /tmp/corpus [--only anthropics+skills,openai+skills]

Each collection is built with --skip-invalid into a scratch project (the
collections are only read): its sources are its `skills/` folder (or the
collection itself) plus every hidden folder below `skills/` that holds
skills (`skills/.curated`, ...). Printed per collection: skills found,
compiled, left out (with the codes of their errors), files bundled, files
excluded (regular files of compiled skills that are not in the index: the
default excludes), the warnings by code and what `--strict` would fail on.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile
import traceback
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from skillc import diagnostics as dg
from skillc import pipeline
from skillc.options import Options


def sources(collection: Path) -> list[Path]:
    root = collection / "skills" if (collection / "skills").is_dir() else collection
    hidden = sorted(
        p
        for p in root.iterdir()
        if p.is_dir() and p.name.startswith(".") and p.name not in (".git",) and any(p.rglob("SKILL.md"))
    )
    visible = any(
        not any(part.startswith(".") for part in p.relative_to(root).parts) for p in root.rglob("SKILL.md")
    )
    return [root, *hidden] if visible or not hidden else hidden


def report(collection: Path) -> dict[str, object]:
    srcs = sources(collection)
    with tempfile.TemporaryDirectory(prefix="skillc-corpus-") as scratch:
        cfg = Path(scratch) / "skillc.yaml"
        lines = "".join(f"  - {p}\n" for p in srcs)
        cfg.write_text(f"format: 1\nsources:\n{lines}output: dist\nbudgets:\n  catalog_chars: 1000000\n")
        try:
            result, written = pipeline.build(cfg, Options(skip_invalid=True), cache=False)
            strict = pipeline.compile_project(cfg, Options(strict=True, skip_invalid=False))
        except Exception:  # the report must show a crash, not stop at it
            return {"name": collection.name, "crash": traceback.format_exc()}
        program = result.program
        if program is None:
            return {"name": collection.name, "crash": "\n".join(d.format() for d in result.diagnostics)}
        bundled = sum(1 + len(s.resources) for s in program.skills.values())
        on_disk = _files_of(program)
        return {
            "name": collection.name,
            "sources": [str(p.relative_to(collection)) for p in srcs],
            "exit": 0 if written is not None else 1,
            "found": len(program.skills) + len(program.invalid),
            "compiled": len(program.skills),
            "left_out": dict(program.invalid),
            "bundled": bundled,
            "excluded": on_disk - bundled,
            "warnings": _codes(d for d in result.diagnostics if d.severity is dg.Severity.WARNING),
            "strict": _codes(d for d in strict.diagnostics if d.severity is dg.Severity.ERROR),
            "strict_lines": [d.format() for d in strict.diagnostics if d.code not in ("SKC305",)][:40],
        }


def _files_of(program) -> int:
    """Regular files below each compiled skill's directory, not counting nested skills' own."""
    dirs = {s.dir_rel for s in program.skills.values()}
    count = 0
    for skill in program.skills.values():
        for here, subdirs, names in os.walk(skill.dir_rel):
            subdirs[:] = [
                d for d in subdirs if os.path.join(here, d) not in dirs and d not in (".git", ".hg", ".svn")
            ]
            count += sum(os.path.isfile(os.path.join(here, n)) for n in names)
    return count


def _codes(diags) -> dict[str, int]:
    return dict(sorted(collections.Counter(d.code for d in diags).items()))


def table(rows: list[dict[str, object]]) -> str:
    out = [
        "| collection | sources | skills found | compiled | left out (codes) | files bundled | files excluded "
        "| exit | warnings | `--strict` errors |",
        "|" + " --- |" * 10,
    ]
    for r in rows:
        if "crash" in r:
            out.append(f"| {r['name']} | crash | | | | | | 1 | | |")
            continue
        left = ", ".join(f"{c} ({'/'.join(codes)})" for c, codes in r["left_out"].items()) or "none"
        fmt = lambda d: ", ".join(f"{k} x{v}" for k, v in d.items()) or "none"  # noqa: E731
        out.append(
            f"| {r['name']} | {', '.join(r['sources'])} | {r['found']} | {r['compiled']} | {left} "
            f"| {r['bundled']} | {r['excluded']} | {r['exit']} | {fmt(r['warnings'])} | {fmt(r['strict'])} |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--only", default="", help="comma-separated collection names")
    ap.add_argument("--details", action="store_true", help="print what --strict fails on")
    args = ap.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or sorted(
        p.name for p in args.corpus.iterdir() if p.is_dir()
    )
    rows = [report(args.corpus / n) for n in names]
    print(table(rows))
    for r in rows:
        if "crash" in r:
            print(f"\n{r['name']} crashed:\n{r['crash']}", file=sys.stderr)
        elif args.details and r["strict_lines"]:
            print(f"\n{r['name']} --strict:\n" + "\n".join(r["strict_lines"]), file=sys.stderr)
    return 1 if any("crash" in r or r.get("exit") for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
