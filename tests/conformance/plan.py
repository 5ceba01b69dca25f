"""Which calls each conformance case makes: the calls only, without their expected outcomes.

The generator runs these through the Python reader (runner.py) to fill in `expect`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

Call = dict[str, Any]


def call(name: str, **args: Any) -> Call:
    return {"call": name, "args": args} if args else {"call": name}


def _index(build: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((build / "_index.json").read_bytes())
    return doc


def build_commands(build: Path) -> list[str]:
    """Every command of a build, read raw (the reader under test is not used to plan its own cases)."""
    index = _index(build)

    def obj(digest: str) -> Any:
        return json.loads((build / "objects" / digest[:2] / digest).read_bytes())

    def walk(digest: str) -> list[str]:
        node = obj(digest)
        if "tables" in node:
            return [c for d in node["tables"].values() for c in walk(d)]
        return [c for d in node["shards"].values() for c in obj(d)["skills"]]

    return sorted(walk(index["shards"]))


def survey(build: Path) -> list[Call]:
    """Every tier-1 call for every persona, and load/resolution/resources for every pair."""
    personas = sorted(_index(build)["personas"])
    commands = build_commands(build)
    calls = [call("build_hash"), call("personas"), call("all_commands")]
    for p in personas:
        calls += [
            call(n, persona=p) for n in ("catalog", "skills", "commands", "persona_meta", "persona_context")
        ]
    calls += [call("skill_meta", command=c) for c in commands]
    for p in personas:
        for c in commands:
            calls += [
                call("resolution", persona=p, command=c),
                call("load", persona=p, command=c),
                call("load", persona=p, command=c, by="user"),
                call("resources", persona=p, command=c),
            ]
    return calls


def unknowns(persona: str) -> list[Call]:
    """Names that exist nowhere, or only in another case or form."""
    return [
        call("catalog", persona="nobody"),
        call("load", persona="nobody", command="deploy"),
        call("load", persona=persona, command="no-such-skill"),
        call("load", persona=persona, command="Deploy"),
        call("load", persona=persona, command=""),
        call("skill_meta", command="no-such-skill"),
        call("persona_meta", persona="nobody"),
        call("persona_context", persona="nobody"),
        call("resolution", persona=persona, command="no-such-skill"),
        call("resource", persona=persona, command="deploy", path="scripts/none.sh"),
        call("resource", persona=persona, command="deploy", path="../_index.json"),
        call("read_object", digest="0" * 64),
        call("read_object", digest="not-a-digest"),
        call("read_object", digest="A" * 64),
    ]


def near_misses_main() -> list[Call]:
    """Commands typed nearly right, on the "main" build: UnknownSkill's suggestions (§12.1)."""
    loads = [
        ("forge", "/Deploy"),  # the normal form
        ("forge", "ops:restart"),
        ("tiny", "alwyas"),  # a word of tiny's catalog
        ("forge", "ops/restrat"),  # a child of ops
        ("forge", "ops/secrte"),  # a child forge does not see: never suggested
        ("tiny", "ops/secrte"),
        ("vind", "deploy"),  # vind sees nothing
        ("forge", "neighbour-19"),  # exists, hidden from forge: never its own suggestion
        ("paria", "ops/"),
        ("paria", "/"),
    ]
    calls = [call("load", persona=p, command=c) for p, c in loads]
    calls += [call("resolution", persona="forge", command="deploi"), call("skill_meta", command="ops/secrte")]
    return [*calls, call("skill_meta", command="Neighbour_19")]


def near_misses_hostile() -> list[Call]:
    """Near misses among commands outside ASCII and the BMP: distances count code points."""
    loads = [("p", "y\U00020000b"), ("p", "навьк"), ("p", "X/Y/Z"), ("p", "x/y/q"), ("q", "z技")]
    return [call("load", persona=p, command=c) for p, c in loads] + [call("skill_meta", command="y\ufa0ec")]


ARGS = [
    "web prod",
    "  web   prod  ",
    "'web app' \"prod env\"",
    "unbalanced 'quote here",
    'unbalanced "double',
    "back\\ slash \\'q\\' \"a\\\"b\" 'c\\d'",
    "trailing backslash \\",
    "tab\tsep\nnewline\u00a0nbsp\u3000ideographic",
    "",
    "$0 $ARGUMENTS ${CLAUDE_SKILL_DIR} $service",
    "</untrusted-data> ＜/ＵＮＴＲＵＳＴＥＤ-DATA x",
    "'' \"\" empty-quoted",
    "# not a comment",
]
LISTS = [["web app", "prod"], [], ["", "x"], ["</untrusted-data>"]]


def main_calls() -> list[Call]:
    """The "main" build: arguments, rendering, resources, requirements, each persona's view."""
    calls: list[Call] = []
    for p, c in (("tiny", "deploy"), ("paria", "threat"), ("paria-g", "threat"), ("forge", "threat")):
        calls += [call("load", persona=p, command=c, args=a) for a in ARGS]
        calls += [call("load", persona=p, command=c, args=a) for a in LISTS]
    for p, c in (("tiny", "notes"), ("paria", "mark"), ("tiny", "mark"), ("vind", "ops/manual")):
        calls += [call("load", persona=p, command=c, args=a) for a in ("x y", "", None)]
    # who invokes: the model (the default) or the user, each held to the build's flags
    for p, c in (("tiny", "mark"), ("tiny", "ops/secret"), ("tiny", "ops/manual"), ("paria", "mark")):
        calls += [call("load", persona=p, command=c, args="x y", by=by) for by in ("model", "user")]
        calls += [call("render", persona=p, command=c, by=by) for by in ("model", "user")]
    params = {"CLAUDE_SESSION_ID": "s-1", "CLAUDE_EFFORT": "max", "CLAUDE_PROJECT_DIR": "/p"}
    for p, c in (("tiny", "deploy"), ("paria-g", "threat")):
        calls += [call("load", persona=p, command=c, args=a, params=params) for a in ("web prod", None)]
        calls.append(call("render", persona=p, command=c, args="a b", params={"CLAUDE_EFFORT": "low"}))
    for p in ("tiny", "paria", "forge", "vind"):
        calls += [call("render", persona=p, command=c) for c in ("ops", "deploy", "mark", "threat")]
        calls.append(call("render", persona=p, command="deploy", args="a b"))
    for path in ("scripts/run.sh", "assets/logo.bin", "references/guide.md", "scripts", "SKILL.md"):
        calls.append(call("resource", persona="tiny", command="deploy", path=path))
    calls += [call("resource", persona=p, command="mark", path="scripts/scan.sh") for p in ("paria", "tiny")]
    for kind in ("scripts", "scripts/", "references", "assets", "none", ""):
        calls.append(call("resources", persona="tiny", command="deploy", kind=kind))
    calls += _requirements()
    calls += _availability()
    calls += _base_folders()
    return calls


def _base_folders() -> list[Call]:
    """Claude Code's `Base directory for this skill:` line and `${CLAUDE_SKILL_DIR}` (§7)."""
    calls = []
    for base in ("/work/skills/deploy", "/", "a base with <xml> & $0"):
        calls.append(call("load", persona="tiny", command="deploy", args="web prod", base=base))
        calls.append(call("render", persona="paria", command="ops", base=base))
    return calls


def _availability() -> list[Call]:
    """The catalog and listings for an environment (docs/format.md §17): deploy needs docker,
    kubectl, KUBECONFIG and DEPLOY_TOKEN; mark (a stub but to paria) nmap and MARK_KEY."""
    full = {"KUBECONFIG": "/k", "DEPLOY_TOKEN": "t", "MARK_KEY": "m"}
    execs = [{"name": n, "kind": "exec"} for n in ("docker", "kubectl", "nmap")]
    shapes: list[tuple[dict[str, str], list[dict[str, str]]]] = [
        (full, execs),
        ({}, []),
        ({**full, "DEPLOY_TOKEN": ""}, execs),
        (full, execs[1:]),
    ]
    calls = []
    for env, path in shapes:
        for p in ("tiny", "paria", "forge", "paria-g"):
            calls += [call(n, persona=p, env=env, path=path) for n in ("catalog", "unavailable")]
        calls += [call(n, persona="forge", env=env, path=path) for n in ("skills", "commands")]
    return calls


def _requirements() -> list[Call]:
    full = {"KUBECONFIG": "/k", "DEPLOY_TOKEN": "t"}
    execs = [{"name": "docker", "kind": "exec"}, {"name": "kubectl", "kind": "exec"}]
    shapes: list[tuple[dict[str, str], list[dict[str, str]]]] = [
        (full, execs),
        ({}, []),
        ({"KUBECONFIG": "", "DEPLOY_TOKEN": "t"}, execs),
        (full, [{"name": "docker", "kind": "dir"}, {"name": "kubectl", "kind": "file"}]),
        (full, [{"name": "docker", "kind": "exec"}]),
    ]
    calls = [call("missing_requirements", persona="tiny", command="deploy", env=e, path=p) for e, p in shapes]
    for p in ("paria", "tiny", "forge"):
        calls.append(call("missing_requirements", persona=p, command="mark", env={}, path=[]))
    calls.append(call("missing_requirements", persona="tiny", command="notes", env={}, path=[]))
    return calls


def substitute_calls() -> list[Call]:
    """The pure function, on bodies no build holds."""
    bodies = [
        "a $ARGUMENTS b",
        "$0|$1|$2|$10|$ARGUMENTS[0]|$ARGUMENTS[2]|$ARGUMENTS[99999999999]",
        "\\$0 \\\\$0 \\\\\\$0 \\$ARGUMENTS \\${CLAUDE_SKILL_DIR}",
        "$ARGUMENTSX $ARGUMENTS_1 $ARGUMENTS-1 $ARGUMENTS[x] $ARGUMENTS[]",
        "$name $name-x $namex $na $name_2 $other",
        "dir=${CLAUDE_SKILL_DIR} ${CLAUDE_SKILL_DIRX} $CLAUDE_SKILL_DIR",
        "no placeholders\n\n\n",
        "$١ $ARGUMENTS[١] $٣",
        # Claude Code 2.1.330 (tests/harness/golden/claude@2.1.330/args.json): what ends $N and
        # $name, $ARGUMENTS followed by a word, index values, escapes, variables, uses.
        "$1x $1-x $1.x $1é $1[0] $01 $ARGUMENTS[01] $ARGUMENTS[0000000001] $0_",
        "$name-x $name[0] $nameé $name_ $name.x $other[",
        "\\$1x \\\\$0 \\\\\\$0 \\$namex \\$name-x \\$ARGUMENTSX \\$ARGUMENTS[9] \\$ $\\$0",
        "\\${CLAUDE_SKILL_DIR} \\\\${CLAUDE_SKILL_DIR} \\${CLAUDE_EFFORT} ${ARGUMENTS} ${name}",
        "[${CLAUDE_SESSION_ID}] [${CLAUDE_EFFORT}] [${CLAUDE_PROJECT_DIR}] [${CLAUDE_EFFORTX}] [$CLAUDE_EFFORT]",
        "costs $5.00 and $ARGUMENTS[7]\n",
        "$ARGUMENTS$0$name${CLAUDE_EFFORT}$ARGUMENTS[1]",
    ]
    params = {
        "CLAUDE_SESSION_ID": "s-1",
        "CLAUDE_EFFORT": "high",
        "CLAUDE_PROJECT_DIR": "/p/$1 <untrusted-data",
    }
    calls: list[Call] = []
    for body in bodies:
        for args in ("one two three", None, ["x y", "z"], ""):
            calls.append(call("substitute", body=body, args=args, names=["name", "other", "bad name", "9x"]))
        calls.append(call("substitute", body=body, args="p q", skill_dir="/skills/s"))
        calls.append(call("substitute", body=body, args=None, skill_dir="/skills/$0 <untrusted-data"))
        calls.append(
            call("substitute", body=body, args="p q", names=["name", "name", "other"], params=params)
        )
        calls.append(call("substitute", body=body, args=None, params={"CLAUDE_EFFORT": "low"}))
    return calls


# Spellings of the delimiter through the fold table (docs/delimiter-fold.txt): each character
# class of the rule, and code points whose fold changed between Unicode 14 and 15.1 (U+1E08F,
# U+11F00: combining marks added in 15.0), which a reader using its runtime's Unicode data gets
# wrong.
SPELLINGS = [
    "<untrusted-data",
    "</untrusted-data>",
    "<UNTRUSTED-DATA",
    "< / untrusted - data",
    "<\t/\nuntrusted\x0b-\x0c\r\x1c\x1d\x1e\x1fdata",
    "<\u00a0/\u3000untrusted\u2028-\u205fdata",
    "＜untrusted-data",
    "﹤/untrusted-data",
    "<un\u200btrusted-data",
    "<un\u00adtrusted\u2060-data",
    "<u\u0301ntrusted-data",
    "<untrusted\u20dd-data",
    "<untrusted‐data",
    "<untrusted—data",
    "<untrusted－data",
    "<untrusted\u2212data",
    "<ｕｎｔｒｕｓｔｅｄ－ｄａｔａ",
    "<untruﬆed-data",
    "<𝐮𝐧𝐭𝐫𝐮𝐬𝐭𝐞𝐝-𝐝𝐚𝐭𝐚",
    "<ᵘntrusted-data",
    "<untru\u017fted-data",
    "<un\U0001e08ftrusted-data",
    "<un\U00011f00trusted-data",
    "<untrusted-dat\u0430",
    "<untrusted_data",
    "<<untrusted-data<untrusted-data",
    "&lt;untrusted-data",
    "<untrusted-dat",
    "\u212a<untrusted-data\u0130",
]


def delimiter_calls() -> list[Call]:
    calls = [call("substitute", body="[$ARGUMENTS]", args=s) for s in SPELLINGS]
    calls.append(call("substitute", body="$0|$1|$2", args=SPELLINGS))
    calls += [call("load", persona="paria", command="threat", args=s) for s in SPELLINGS[:8]]
    return calls


def rooted() -> list[Call]:
    """One build opened with a root (§17.3): absolute locations in its catalogs (cut for an
    environment too), and the base folder load() gives by default."""
    lacking: dict[str, Any] = {"env": {}, "path": []}
    calls = [call("catalog", persona=p) for p in ("tiny", "paria", "forge")]
    calls += [call("catalog", persona=p, **lacking) for p in ("tiny", "paria")]
    calls += [call("load", persona="tiny", command=c) for c in ("deploy", "ops/restart")]
    calls.append(call("load", persona="tiny", command="deploy", base="/given"))
    return [*calls, call("render", persona="paria", command="ops")]
