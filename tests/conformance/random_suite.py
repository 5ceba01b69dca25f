"""A conformance suite of random builds, not in the repository: the Rust runner's second check.

Writes OUT/builds/<name>/ (dists the compiler makes from random fixture trees: hostile and
Unicode names, nesting, overlays, exclusives, allowlists, fallbacks, arguments, executables) and
OUT/cases.json in the format of tests/conformance/ (its README), every expected outcome given by
the Python reader, with tampered copies (a changed byte, a missing object, a FIFO, a symlink to
/dev/zero, a truncated index). The Rust and TypeScript runners run it (CI: .ci/run);
by hand:

    python tests/conformance/random_suite.py OUT [--seed N] [--builds K]
    SKILLC_CONFORMANCE_DIR=OUT cargo test --test conformance
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

from conformance import generate, plan  # noqa: E402 (after the path it is found on)

NAMES = ["deploy", "ops", "a-b", "навык", "z技能", "x", "y\ufa0eb", "y\U00020000c", "Ünï", "e\u0301t", "q_1"]
WORDS = [
    "$ARGUMENTS",
    "$0",
    "$1",
    "$ARGUMENTS[2]",
    "\\$0",
    "${CLAUDE_SKILL_DIR}",
    "$name",
    "$5.00",
    "$1x",
    "$ARGUMENTS_x",
    "$name-x",
    "\\$1",
    "${CLAUDE_EFFORT}",
    "\\${CLAUDE_SKILL_DIR}",
    "<b>",
    "</untrusted-data>",
    "＜untrusted-data",
    "<un\u200btrusted-data",
    "&lt;",
    "\u202e",
    "日本",
    "word",
    "\n",
]
TEXT = ["plain", "quotes \"q\" 'a'", "amp & <tag>", "Кириллица", "emoji 🚀", "tab\there", "ʼn ß ﬆ"]


def _yaml(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a YAML string


def _skill(rng: random.Random, personas: list[str], exclusive: bool) -> tuple[str, bool]:
    fm = [f"description: {_yaml(rng.choice(TEXT) + ' ' + rng.choice(TEXT))}"]
    if rng.random() < 0.4:
        fm.append("arguments: [name, other]" if rng.random() < 0.7 else "arguments: name other")
    if rng.random() < 0.3:
        fm.append(f"argument-hint: {_yaml('<' + rng.choice(TEXT) + '>')}")
    if rng.random() < 0.3:
        fm.append(f"context: {rng.choice(['fork', 'inline'])}")
    if rng.random() < 0.3:
        fm.append("requires_bins: [docker, nope]\nrequires_env: [HOME_X, EMPTY]")
    if rng.random() < 0.2:
        fm.append("knowledge: [k.md]\nallowed-tools: [Bash]")
    for flag in ("always", "disable-model-invocation", "user-invocable"):
        if rng.random() < 0.15:
            fm.append(f"{flag}: {'true' if flag != 'user-invocable' else 'false'}")
    overlay = rng.random() < 0.3
    if overlay:
        fm.append("has_persona_overlay: true")
    if exclusive:
        fm.append(f"persona_exclusive: {personas[0]}")
    body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 12))) + "\n"
    return "---\n" + "\n".join(fm) + "\n---\n" + body, overlay


def tree(rng: random.Random) -> dict[str, str | bytes]:
    personas = rng.sample(["pa", "pb", "pc-x", "pd"], rng.randint(1, 4))
    tops = rng.sample(NAMES, rng.randint(2, 7))
    commands = tops + [f"{t}/{rng.choice(NAMES)}" for t in tops if rng.random() < 0.3]
    files: dict[str, str | bytes] = {
        "skillc.yaml": "format: 1\nsources:\n  - skills\npersonas: personas\noutput: dist\n"
        + f"budgets:\n  catalog_chars: {rng.choice([150, 600, 4000])}\n"
    }
    overlays = []
    for i, command in enumerate(commands):
        exclusive = "/" not in command and i == 0 and rng.random() < 0.6
        files[f"skills/{command}/SKILL.md"], overlay = _skill(rng, personas, exclusive)
        if exclusive:
            files[f"personas/{personas[0]}-exclusive/{command}.md"] = "Granted body $ARGUMENTS.\n"
        if overlay and "/" not in command:
            overlays.append(command)
        if rng.random() < 0.4:
            files[f"skills/{command}/scripts/run {i}.sh*"] = "#!/bin/sh\necho hi\n"
        if rng.random() < 0.3:
            files[f"skills/{command}/assets/b.bin"] = bytes(rng.randrange(256) for _ in range(40))
    for j, p in enumerate(personas):
        manifest = f"name: {_yaml(rng.choice(TEXT))}\n"
        if j and rng.random() < 0.5:
            manifest += f"fallback: {personas[rng.randrange(j)]}\n"
        if rng.random() < 0.3:
            allowed = rng.sample(commands, rng.randint(0, len(commands)))
            manifest += f"skills: {json.dumps(allowed, ensure_ascii=False)}\n"
            if rng.random() < 0.5:
                manifest += "unrestricted_skills: true\n"
        files[f"personas/{p}/manifest.yaml"] = manifest
        for command in overlays:
            if rng.random() < 0.5:
                files[f"personas/{p}/skill-overlays/{command}.md"] = (
                    f"Overlay of {p}: $ARGUMENTS </untrusted-data>\n"
                )
    return files


def _tampers(rng: random.Random, build: Path) -> list[list[dict[str, Any]]]:
    objects = sorted(str(p.relative_to(build)) for p in (build / "objects").rglob("*") if p.is_file())
    picks = rng.sample(objects, min(4, len(objects)))
    return [
        [{"op": "patch", "path": picks[0], "offset": 0, "base64": "WA=="}],
        [{"op": "delete", "path": picks[1 % len(picks)]}],
        [{"op": "fifo", "path": picks[2 % len(picks)]}],
        [{"op": "symlink", "path": picks[3 % len(picks)], "target": "/dev/zero"}],
        [{"op": "truncate", "path": "_index.json", "size": rng.randrange(1, 200)}],
    ]


def _loads(build: Path, persona: str) -> list[dict[str, Any]]:
    """Every command loaded by one persona with arguments and params (survey loads without)."""
    params = {"CLAUDE_EFFORT": "high", "CLAUDE_SESSION_ID": "s-1"}
    return [
        plan.call("load", persona=persona, command=c, args="a 'b c'", params=params)
        for c in plan.build_commands(build)
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--builds", type=int, default=3)
    a = parser.parse_args()
    rng = random.Random(a.seed)
    builds = a.out / "builds"
    builds.mkdir(parents=True, exist_ok=True)
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(a.builds):
            name = f"random-{a.seed}-{k}"
            generate.build(name, tree(rng), Path(tmp), builds)
            first = min(json.loads((builds / name / "_index.json").read_bytes())["personas"])
            calls = plan.survey(builds / name) + plan.unknowns(first) + _loads(builds / name, first)
            cases.append({"name": name, "build": name, "calls": calls})
            for i, ops in enumerate(_tampers(rng, builds / name)):
                opens = ops[0]["path"] == "_index.json"  # a case whose open fails has that one call
                case = {"name": f"{name}-tamper-{i}", "build": name, "tamper": ops}
                cases.append(dict(case, calls=[plan.call("open")] if opens else calls))
    done = [generate.expect(c, builds) for c in cases]
    (a.out / "cases.json").write_text(generate.dumps(done), encoding="utf-8")
    print(f"{len(done)} cases, {sum(len(c['calls']) for c in done)} calls in {a.out}")


if __name__ == "__main__":
    main()
