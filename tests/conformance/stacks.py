"""Stacks of builds (docs/format.md §16): the cases that open several tiers, and the generator's
check that a stack answers as the one build compiled from its tiers' sources does.

A case with `tiers` (README.md here) is opened as a stack; its calls are planned over the union of
the tiers' commands. For the cases `MERGED` names, the generator builds the tiers' sources as one
project (fixtures.merged) and requires every call but `build_hash` and `shadowed` to give the same
outcome there: the equality the stack promises, held by the Python reader before any runner sees
the case.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from conformance import fixtures, plan, runner
from conformance.plan import Call, call

BUNDLED, USER, PROJECT = "tier-bundled", "tier-user", "tier-project"
THREE = [{"build": BUNDLED}, {"build": USER}, {"build": None, "optional": True}, {"build": PROJECT}]
# The three-tier agent's absolute <location>: the project tier's XML catalog, with roots.
ROOTS = [
    {"build": PROJECT, "root": "/work/project"},
    {"build": None, "optional": True, "root": "/nowhere"},
    {"build": USER, "root": "/home/u/.agent/"},
]
# The cases held to one build of the same sources: case name -> the fixture trees, in order.
MERGED = {
    "stack-three-tiers": [fixtures.TIER_BUNDLED, fixtures.TIER_USER, fixtures.TIER_PROJECT],
    "stack-shorten": [fixtures.TIER_BUNDLED_SHORTEN, fixtures.TIER_USER],
}
NOT_HELD = ("build_hash", "shadowed")  # the stack's own: a digest of the tiers', and which it hides

# What the tiers' skills need: deploy (bundled) docker and DEPLOY_TOKEN.
ENVS: list[dict[str, Any]] = [
    {"env": {}, "path": []},
    {"env": {"DEPLOY_TOKEN": "t"}, "path": [{"name": "docker", "kind": "exec"}]},
]


def _commands(builds: Path, names: list[str | None]) -> list[str]:
    found: set[str] = set()
    for name in names:
        if name is not None:
            found.update(plan.build_commands(builds / name))
    return sorted(found)


def survey(builds: Path, names: list[str | None]) -> list[Call]:
    """Every call over the union of the tiers' commands, as plan.survey makes them for one build."""
    commands = [*_commands(builds, names), "no-such-skill", "sven/revew", "Hello"]
    calls = [call("build_hash"), call("personas"), call("all_commands"), call("shadowed")]
    calls += [
        call(n, persona="default")
        for n in ("catalog", "skills", "commands", "persona_meta", "persona_context")
    ]
    for env in ENVS:
        calls += [call(n, persona="default", **env) for n in ("catalog", "skills", "unavailable")]
    calls += [call("skill_meta", command=c) for c in commands]
    for c in commands:
        calls += [
            call("resolution", persona="default", command=c),
            call("load", persona="default", command=c, args="a b"),
            call("load", persona="default", command=c, by="user"),
            call("render", persona="default", command=c),
            call("resources", persona="default", command=c),
        ]
    calls += [
        call("resource", persona="default", command="notes", path="references/n.md"),
        call("resource", persona="default", command="sven", path="scripts/helper.sh"),
        call("missing_requirements", persona="default", command="deploy", env={}, path=[]),
    ]
    return calls


def _packing() -> list[Call]:
    """What the packing decides: the catalog, the listing, the persona's meta."""
    calls = [call(n, persona="default") for n in ("catalog", "skills", "persona_meta")]
    calls += [call("resolution", persona="default", command=c) for c in ("notes", "sven/review", "commit")]
    return calls + [call(n, persona="default", **env) for env in ENVS for n in ("catalog", "unavailable")]


def _case(name: str, tiers: list[dict[str, Any]], calls: list[Call], **more: Any) -> dict[str, Any]:
    return {"name": name, "tiers": tiers, **more, "calls": calls}


def cases(builds: Path) -> list[dict[str, Any]]:
    three = [t["build"] for t in THREE]
    some = [call("catalog", persona="default"), call("all_commands"), call("shadowed"), call("build_hash")]
    some += [call("load", persona="default", command="hello"), call("skill_meta", command="sven")]
    refused = [call("open")]
    appear = [{"op": "rebuild", "tier": 1, "build": USER}]
    return [
        _case("stack-three-tiers", THREE, survey(builds, three)),
        _case(
            "stack-rooted",
            ROOTS,
            [
                call("catalog", persona="default"),
                *[call("catalog", persona="default", **env) for env in ENVS],
                call("load", persona="default", command="hello"),
                call("skill_meta", command="notes"),
            ],
        ),
        _case("stack-shorten", [{"build": "tier-bundled-shorten"}, {"build": USER}], _packing()),
        _case("stack-one-present", [{"build": None, "optional": True}, {"build": BUNDLED}], some),
        _case("stack-none-present", [{"build": None, "optional": True}], refused),
        _case(
            "stack-optional-appears",
            [{"build": BUNDLED}, {"build": None, "optional": True}],
            [*some, call("refresh"), *some],
            tamper_after_open=appear,
        ),
        _case(
            "stack-optional-appears-refused",
            [{"build": BUNDLED}, {"build": None, "optional": True}],
            some,
            tamper_after_open=[{"op": "rebuild", "tier": 1, "build": "tier-personas"}],
        ),
        _case("stack-personas-differ", [{"build": BUNDLED}, {"build": "tier-personas"}], refused),
        _case(
            "stack-persona-files-differ",
            [{"build": "tier-personas"}, {"build": "tier-personas-other"}],
            refused,
        ),
        _case("stack-base-priority", [{"build": "tier-priority"}, {"build": USER}], refused),
        _case("stack-base-unsplit", [{"build": "tier-unsplit"}, {"build": USER}], refused),
        _case("stack-later-priority", [{"build": USER}, {"build": "tier-priority"}], some),
        _case(
            "stack-tier-missing-required",
            [{"build": BUNDLED}, {"build": None}],
            refused,
        ),
        _case(
            "stack-tier-damaged",
            [{"build": BUNDLED}, {"build": USER}],
            some,
            tamper=[{"op": "write", "tier": 1, "path": _notes_shard(builds), "text": "{}"}],
        ),
    ]


def _notes_shard(builds: Path) -> str:
    """The user tier's shard holding `notes`, as a path in its build."""
    import json

    index = json.loads((builds / USER / "_index.json").read_bytes())
    root = json.loads((builds / USER / "objects" / index["shards"][:2] / index["shards"]).read_bytes())
    for digest in root["shards"].values():
        shard = json.loads((builds / USER / "objects" / digest[:2] / digest).read_bytes())
        if "notes" in shard["skills"]:
            return f"objects/{digest[:2]}/{digest}"
    raise AssertionError("no shard holds notes")


def hold_to_merged(done: list[dict[str, Any]], builds: Path) -> None:
    """Raise unless each case of MERGED gives, call for call, the outcomes of the one build of its
    tiers' sources (but NOT_HELD)."""
    from conformance.generate import write_tree

    for case in done:
        trees = MERGED.get(case["name"])
        if trees is None:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            project = Path(tmp) / "merged"
            write_tree(project, fixtures.merged(trees))
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "skillc",
                    "build",
                    "--config",
                    str(project / "skillc.yaml"),
                    "--no-cache",
                    "-q",
                ],
                check=True,
            )
            held = [c for c in case["calls"] if c["call"] not in NOT_HELD]
            one = {"name": "merged", "build": "dist", "calls": held}
            got = runner.run_case(one, Path(tmp) / "run", builds=project)
            for c, outcome in zip(held, got, strict=True):
                if outcome != c["expect"]:
                    raise AssertionError(
                        f"{case['name']}: {c['call']} {c.get('args')}: the stack gives {c['expect']}, "
                        f"one build of its sources {outcome}"
                    )
