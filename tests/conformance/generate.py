"""Regenerate the conformance suite: builds/ and cases.json (see README.md here).

    python tests/conformance/generate.py           # rewrite builds/ and cases.json
    python tests/conformance/generate.py --check   # exit 1 when the committed suite is stale

Writes each fixture tree (fixtures.py) into a temp folder, builds it with the CLI, copies its
dist/ into builds/<name>/, and runs every case (plan.py, tampered.py) through the Python reader
to record the expected outcomes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # `conformance` as a package

from conformance import fixtures, plan, runner, stacks, tampered


def write_tree(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        executable = rel.endswith("*")
        path = root.joinpath(*rel.rstrip("*").split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
        path.chmod(0o755 if executable else 0o644)


def build(name: str, files: dict[str, str | bytes], tmp: Path, out: Path) -> None:
    """The tree built into out/name: with its skillc.yaml, or without one when it has none (`skillc
    build FOLDER -o dist`, its one top folder the source: a user's tier)."""
    project = tmp / name
    write_tree(project, files)
    if "skillc.yaml" in files:
        how = ["--config", str(project / "skillc.yaml"), "--no-cache"]
    else:
        (top,) = {rel.split("/", 1)[0] for rel in files}
        how = [str(project / top), "-o", str(project / "dist")]
    subprocess.run(
        [sys.executable, "-m", "skillc", "build", *how, "-q"],
        check=True,
        env=dict(os.environ, PYTHONHASHSEED="0"),
    )
    shutil.copytree(project / "dist", out / name, symlinks=True)


def cases(builds: Path) -> list[dict[str, Any]]:
    out = [
        {"name": "main-survey", "build": "main", "calls": plan.survey(builds / "main")},
        {"name": "main-unknowns", "build": "main", "calls": plan.unknowns("tiny")},
        {"name": "main-calls", "build": "main", "calls": plan.main_calls()},
        {"name": "substitute", "build": "main", "calls": plan.substitute_calls()},
        {"name": "delimiter", "build": "main", "calls": plan.delimiter_calls()},
        {"name": "hostile-survey", "build": "hostile", "calls": plan.survey(builds / "hostile")},
        {"name": "main-near-misses", "build": "main", "calls": plan.near_misses_main()},
        {"name": "hostile-near-misses", "build": "hostile", "calls": plan.near_misses_hostile()},
        {"name": "main-rooted", "build": "main", "root": "/work/main/", "calls": plan.rooted()},
    ]
    return out + tampered.cases(builds) + stacks.cases(builds)


def expect(case: dict[str, Any], builds: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        outcomes = runner.run_case(case, Path(tmp), builds)
    calls = case["calls"]
    if len(outcomes) < len(calls):
        raise SystemExit(f"case {case['name']}: open failed, so it must hold the one call `open`")
    filled = [dict(c, expect=o) for c, o in zip(calls, outcomes, strict=True)]
    return {**case, "tamper": case.get("tamper", []), "calls": filled}


def generate(target: Path) -> None:
    """builds/ and cases.json below target (the suite's folder, or a temp one to compare with)."""
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "builds"
        fresh.mkdir()
        for name, files in fixtures.BUILDS.items():
            build(name, files, Path(tmp), fresh)
        if (target / "builds").exists():
            shutil.rmtree(target / "builds")
        shutil.copytree(fresh, target / "builds", symlinks=True)
    done = [expect(c, target / "builds") for c in cases(target / "builds")]
    stacks.hold_to_merged(done, target / "builds")
    (target / "cases.json").write_text(dumps(done), encoding="utf-8")


def dumps(cases: list[dict[str, Any]]) -> str:
    """cases.json: one line per tamper op and per call, so a diff shows which outcome changed."""

    def one(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))

    def block(items: list[Any]) -> str:
        return "[\n" + ",\n".join("  " + one(v) for v in items) + "\n ]" if items else "[]"

    out = []
    for case in cases:
        head = ", ".join(f"{one(k)}: {one(v)}" for k, v in case.items() if k not in _LISTS)
        lists = "".join(f",\n {one(k)}: {block(case[k])}" for k in _LISTS if k in case)
        out.append("{" + head + lists + "}")
    return "[\n" + ",\n".join(out) + "\n]\n"


_LISTS = ("tiers", "tamper", "tamper_after_open", "calls")


if __name__ == "__main__":
    generate(runner.HERE)
