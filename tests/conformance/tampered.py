"""Tampered cases: each a build, the tamper ops that damage a copy of it, and the calls to make.

Two kinds of damage. Raw damage (a changed byte, a truncated file, a FIFO) breaks a hash or a
read. Well-hashed damage (a duplicate key, NaN, a malformed neighbour entry) is written as a new
object under its own sha256, with every document above it (shard table, index) rewritten to
point at it: only the reader's validation can catch it, not its hash checks.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conformance.fixtures import neighbour
from conformance.plan import Call, call

Op = dict[str, Any]


class Scratch:
    """A copy of a build that records, as tamper ops, the changes made to it."""

    def __init__(self, build: Path):
        self._tmp = tempfile.TemporaryDirectory()
        self.root = Path(self._tmp.name) / "dist"
        shutil.copytree(build, self.root, symlinks=True)
        self.ops: list[Op] = []

    def close(self) -> None:
        self._tmp.cleanup()

    def read(self, rel: str) -> bytes:
        return (self.root / rel).read_bytes()

    def write(self, rel: str, data: bytes) -> None:
        (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
        (self.root / rel).write_bytes(data)
        self.ops.append(write_op(rel, data))

    def put(self, data: bytes) -> str:
        """A new object under its own hash."""
        digest = hashlib.sha256(data).hexdigest()
        self.write(obj(digest), data)
        return digest

    def index(self) -> dict[str, Any]:
        doc: dict[str, Any] = json.loads(self.read("_index.json"))
        return doc

    def set_index(self, edit: Callable[[str], str]) -> None:
        self.write("_index.json", edit(self.read("_index.json").decode("utf-8")).encode("utf-8"))

    def shard_of(self, command: str) -> tuple[str, str, str]:
        """(table root digest, shard name, shard digest) of a command, in a one-node table."""
        root = self.index()["shards"]
        shards = json.loads(self.read(obj(root)))["shards"]
        name = next(n for n, d in shards.items() if command in json.loads(self.read(obj(d)))["skills"])
        return root, name, shards[name]

    def set_shard(self, command: str, edit: Callable[[str], str]) -> str:
        """Rewrite the text of a command's shard and everything above it; the new shard's digest."""
        root, _, old = self.shard_of(command)
        new = self.put(edit(self.read(obj(old)).decode("utf-8")).encode("utf-8"))
        table = self.put(self.read(obj(root)).replace(old.encode(), new.encode()))
        self.set_index(lambda t: t.replace(root, table))
        return new

    def set_meta(self, persona: str, edit: Callable[[str], str]) -> None:
        old = self.index()["personas"][persona]["meta"]
        new = self.put(edit(self.read(obj(old)).decode("utf-8")).encode("utf-8"))
        self.set_index(lambda t: t.replace(old, new))

    def body(self, command: str) -> str:
        _, _, shard = self.shard_of(command)
        digest: str = json.loads(self.read(obj(shard)))["skills"][command]["body"]
        return digest


def write_op(rel: str, data: bytes) -> Op:
    """A write op: its bytes as `text` when they are UTF-8 (readable in a diff), else `base64`."""
    try:
        return {"op": "write", "path": rel, "text": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"op": "write", "path": rel, "base64": base64.b64encode(data).decode("ascii")}


def obj(digest: str) -> str:
    return f"objects/{digest[:2]}/{digest}"


def _sub(old: str, new: str, count: int = 1) -> Callable[[str], str]:
    def edit(text: str) -> str:
        if old not in text:
            raise ValueError(f"tamper: {old!r} not found")
        return text.replace(old, new, count)

    return edit


def _case(
    name: str, build: str, ops: list[Op], calls: list[Call], after: list[Op] | None = None
) -> dict[str, Any]:
    case: dict[str, Any] = {"name": name, "build": build, "tamper": ops, "calls": calls}
    if after:
        case["tamper_after_open"] = after
    return case


def _tampered(
    builds: Path, name: str, build: str, damage: Callable[[Scratch], object], calls: list[Call]
) -> dict[str, Any]:
    s = Scratch(builds / build)
    try:
        damage(s)
        return _case(name, build, s.ops, calls)
    finally:
        s.close()


OPEN = [call("open")]


def _loads(persona: str, *commands: str) -> list[Call]:
    return [call("load", persona=persona, command=c) for c in commands]


def cases(builds: Path) -> list[dict[str, Any]]:
    return _raw(builds) + _hashed(builds)


def _raw(builds: Path) -> list[dict[str, Any]]:
    s = Scratch(builds / "main")
    index = s.index()
    deploy, notes = s.body("deploy"), s.body("notes")
    tiny = index["personas"]["tiny"]
    prompt = tiny["prompt"]
    s.close()
    after_load = [*_loads("tiny", "deploy", "notes"), call("catalog", persona="tiny")]
    out = [
        _case("index-truncated", "main", [{"op": "truncate", "path": "_index.json", "size": 100}], OPEN),
        _case("index-missing", "main", [{"op": "delete", "path": "_index.json"}], OPEN),
        _case("index-fifo", "main", [{"op": "fifo", "path": "_index.json"}], OPEN),
        _case("index-directory", "main", [{"op": "mkdir", "path": "_index.json"}], OPEN),
        _case(
            "index-symlink-dev-zero",
            "main",
            [{"op": "symlink", "path": "_index.json", "target": "/dev/zero"}],
            OPEN,
        ),
        _case("index-empty", "main", [{"op": "write", "path": "_index.json", "base64": ""}], OPEN),
        _case(
            "index-not-utf8",
            "main",
            [{"op": "patch", "path": "_index.json", "offset": 3, "base64": "/w=="}],
            OPEN,
        ),
        _case(
            "body-changed-byte",
            "main",
            [{"op": "patch", "path": obj(deploy), "offset": 0, "base64": "WA=="}],
            after_load,
        ),
        _case("body-truncated", "main", [{"op": "truncate", "path": obj(deploy), "size": 5}], after_load),
        _case("body-missing", "main", [{"op": "delete", "path": obj(deploy)}], after_load),
        _case("body-fifo", "main", [{"op": "fifo", "path": obj(deploy)}], after_load),
        _case("body-directory", "main", [{"op": "mkdir", "path": obj(deploy)}], after_load),
        _case(
            "body-symlink-dev-zero",
            "main",
            [{"op": "symlink", "path": obj(deploy), "target": "/dev/zero"}],
            after_load,
        ),
        _case(
            "body-symlink-loop",
            "main",
            [{"op": "symlink", "path": obj(deploy), "target": deploy}],
            after_load,
        ),
        _case(
            "body-symlink-dangling",
            "main",
            [{"op": "symlink", "path": obj(deploy), "target": "nowhere"}],
            after_load,
        ),
        _case(
            "body-symlink-to-fifo",
            "main",
            [
                {"op": "fifo", "path": "objects/fifo"},
                {"op": "symlink", "path": obj(deploy), "target": "../fifo"},
            ],
            after_load,
        ),
        # a symlink to a regular file holding the right bytes: followed, hash-checked, served
        _case(
            "prompt-symlink-to-copy",
            "main",
            [
                {"op": "symlink", "path": obj(prompt), "target": "../../" + tiny["copy"]},
            ],
            after_load,
        ),
        _case(
            "prompt-changed-byte",
            "main",
            [{"op": "patch", "path": obj(prompt), "offset": 1, "base64": "WA=="}],
            after_load,
        ),
        _case(
            "objects-dir-missing",
            "main",
            [{"op": "delete", "path": "objects"}],
            [*after_load, call("skills", persona="tiny")],
        ),
        _case("notes-body-missing", "main", [{"op": "delete", "path": obj(notes)}], after_load),
        # an UnknownSkill reads the persona's catalog for its suggestions; skill_meta reads none
        _case(
            "prompt-missing-near-miss",
            "main",
            [{"op": "delete", "path": obj(prompt)}],
            [*_loads("tiny", "deploy", "deploi"), call("skill_meta", command="deploi")],
        ),
    ]
    return out


def _hashed(builds: Path) -> list[dict[str, Any]]:
    """Damage under a valid hash: the reader's validation must refuse it, per document or entry."""
    near = neighbour("deploy")
    pairs = [call("load", persona="tiny", command=c) for c in ("deploy", near, "notes", "ops/restart")]
    pairs += [
        call("skill_meta", command="notes"),
        call("catalog", persona="tiny"),
        call("skills", persona="tiny"),
    ]
    pairs += [call("all_commands"), call("load", persona="tiny", command="no-such-skill")]
    metas = [
        call("persona_meta", persona="tiny"),
        call("skills", persona="tiny"),
        call("catalog", persona="tiny"),
    ]
    metas += [
        call("resolution", persona="tiny", command="notes"),
        call("load", persona="tiny", command="notes"),
    ]
    metas += [call("persona_meta", persona="paria")]
    damage: dict[str, tuple[Callable[[Scratch], object], list[Call]]] = {
        "index-format-1": (lambda s: s.set_index(_sub('"format": 3', '"format": 1')), OPEN),
        "index-format-2": (lambda s: s.set_index(_sub('"format": 3', '"format": 2')), OPEN),
        "index-format-4": (lambda s: s.set_index(_sub('"format": 3', '"format": 4')), OPEN),
        "index-format-string": (lambda s: s.set_index(_sub('"format": 3', '"format": "3"')), OPEN),
        "index-format-true": (lambda s: s.set_index(_sub('"format": 3', '"format": true')), OPEN),
        "index-format-float": (lambda s: s.set_index(_sub('"format": 3', '"format": 3.0')), OPEN),
        "index-duplicate-key": (
            lambda s: s.set_index(_sub('"format": 3,', '"format": 3,\n  "format": 3,')),
            OPEN,
        ),
        "index-extra-key": (lambda s: s.set_index(_sub('"format": 3,', '"format": 3,\n  "extra": 1,')), OPEN),
        "index-nan": (lambda s: s.set_index(_sub('"catalog_chars": 4000', '"catalog_chars": NaN')), OPEN),
        "index-float-count": (
            lambda s: s.set_index(_sub('"catalog_chars": 4000', '"catalog_chars": 4000.0')),
            OPEN,
        ),
        "index-negative-count": (
            lambda s: s.set_index(_sub('"catalog_chars": 4000', '"catalog_chars": -1')),
            OPEN,
        ),
        "index-huge-int": (
            lambda s: s.set_index(_sub('"catalog_chars": 4000', '"catalog_chars": 18446744073709551616')),
            OPEN,
        ),
        "index-lone-surrogate": (
            lambda s: s.set_index(_sub('"generator": "', '"generator": "\\ud800')),
            OPEN,
        ),
        "index-paired-surrogates": (
            lambda s: s.set_index(_sub('"generator": "', '"generator": "\\ud83d\\ude80')),
            [call("personas")],
        ),
        "index-bom": (lambda s: s.write("_index.json", b"\xef\xbb\xbf" + s.read("_index.json")), OPEN),
        "index-trailing-garbage": (lambda s: s.write("_index.json", s.read("_index.json") + b"x"), OPEN),
        "index-trailing-space": (
            lambda s: s.write("_index.json", s.read("_index.json") + b" \t\r\n"),
            [call("personas")],
        ),
        "index-bad-persona-id": (lambda s: s.set_index(_sub('"tiny": {', '"Tiny": {')), OPEN),
        "index-unsafe-copy": (
            lambda s: s.set_index(_sub('"personas/tiny/prompt.xml"', '"../prompt.xml"')),
            OPEN,
        ),
        "index-upper-hex": (
            lambda s: s.set_index(lambda t: t.replace(s.index()["shards"], s.index()["shards"].upper())),
            OPEN,
        ),
        "shard-unknown-format": (lambda s: s.set_shard("deploy", _sub('"format": 3', '"format": 4')), pairs),
        "shard-duplicate-key": (
            lambda s: s.set_shard(
                "deploy", _sub('"name": "deploy",', '"name": "deploy",\n      "name": "deploy",')
            ),
            pairs,
        ),
        "shard-misplaced-skill": (
            lambda s: s.set_shard("deploy", _sub('"deploy": {', '"deploy-x": {')),
            pairs,
        ),
        "neighbour-bad-entry": (lambda s: _bad_neighbour(s), pairs),
        "neighbour-nan": (lambda s: s.set_shard("deploy", _sub('"timeout": 1.5', '"timeout": NaN')), pairs),
        "neighbour-unsafe-resource": (
            lambda s: s.set_shard("deploy", _sub('"path": "scripts/run.sh"', '"path": "../../_index.json"')),
            pairs,
        ),
        "neighbour-exception-unknown-persona": (lambda s: _unknown_exception(s), pairs),
        "body-not-utf8": (lambda s: _non_utf8_body(s, "deploy"), pairs),
        "neighbour-depth-64": (lambda s: _deep(s, 64), pairs),
        "neighbour-depth-65": (lambda s: _deep(s, 65), pairs),
        "neighbour-lone-surrogate": (
            lambda s: s.set_shard("deploy", _sub('"timeout": 1.5', '"timeout": "\\udc00"')),
            pairs,
        ),
        "neighbour-escaped-nul": (
            lambda s: s.set_shard("deploy", _sub('"timeout": 1.5', '"timeout": "a\\u0000b"')),
            pairs,
        ),
        "neighbour-size-float": (
            lambda s: s.set_shard("deploy", _sub('"size": 256', '"size": 256.0')),
            pairs,
        ),
        "neighbour-bad-access": (
            lambda s: s.set_shard("deploy", _sub('"access": "open"', '"access": "closed"')),
            pairs,
        ),
        "meta-bad-budget": (lambda s: s.set_meta("tiny", _sub('"budget": 200', '"budget": 200.5')), metas),
        "meta-wrong-id": (lambda s: s.set_meta("tiny", _sub('"id": "tiny"', '"id": "paria"')), metas),
        "meta-duplicate-key": (
            lambda s: s.set_meta("tiny", _sub('"name": "Tiny",', '"name": "Tiny",\n  "name": "Tiny",')),
            metas,
        ),
        "table-wrong-prefix": (lambda s: _table(s, _sub('"prefix": ""', '"prefix": "0"')), pairs),
        "table-bad-name": (lambda s: _table(s, _bad_shard_name), pairs),
    }
    damage.update(_availability_damage())
    out = [_tampered(builds, name, "main", d, calls) for name, (d, calls) in damage.items()]
    out += [_two_faults(builds, first) for first in (True, False)]
    return [*out, *_rebuilt(builds)]


_LACKING: dict[str, Any] = {"env": {}, "path": []}  # an environment without any requirement


def _availability_damage() -> dict[str, tuple[Callable[[Scratch], object], list[Call]]]:
    """The plan and the requirements read for an environment (docs/format.md §4.6, §4.7, §17):
    calls for one that lacks everything, and as built."""
    calls = [
        call("catalog", persona="paria", **_LACKING),
        call("catalog", persona="paria"),
        call("unavailable", persona="paria", **_LACKING),
        call("skills", persona="paria", **_LACKING),
        call("catalog", persona="tiny", **_LACKING),
    ]
    return {
        "plan-out-of-catalog": (lambda s: _plan(s, "paria", _last_end(10**6)), calls),
        "plan-overlapping": (lambda s: _plan(s, "paria", _overlap), calls),
        "plan-wrong-persona": (
            lambda s: _plan(s, "paria", _sub('"persona": "paria"', '"persona": "tiny"')),
            calls,
        ),
        "plan-missing": (lambda s: _delete_object(s, s.index()["personas"]["paria"]["plan"]), calls),
        "plan-none": (lambda s: _set_plan(s, "paria", None), calls),
        "requires-bad-bins": (lambda s: _requires(s, _sub('"bins": [', '"bins": [1, ')), calls),
        "requires-none": (
            lambda s: s.set_index(_sub(f'"requires": "{s.index()["requires"]}"', '"requires": null')),
            calls,
        ),
    }


def _plan(s: Scratch, persona: str, edit: Callable[[str], str]) -> None:
    old = s.index()["personas"][persona]["plan"]
    new = s.put(edit(s.read(obj(old)).decode("utf-8")).encode("utf-8"))
    s.set_index(lambda t: t.replace(old, new))


def _set_plan(s: Scratch, persona: str, digest: str | None) -> None:
    old = s.index()["personas"][persona]["plan"]
    s.set_index(_sub(f'"plan": "{old}"', f'"plan": {json.dumps(digest)}'))


def _last_end(end: int) -> Callable[[str], str]:
    def edit(text: str) -> str:
        doc = json.loads(text)
        doc["entries"][-1]["end"] = end
        return json.dumps(doc, indent=2)

    return edit


def _overlap(text: str) -> str:
    doc = json.loads(text)
    doc["entries"][1]["start"] = doc["entries"][0]["start"]
    return json.dumps(doc, indent=2)


def _requires(s: Scratch, edit: Callable[[str], str]) -> None:
    old = s.index()["requires"]
    new = s.put(edit(s.read(obj(old)).decode("utf-8")).encode("utf-8"))
    s.set_index(lambda t: t.replace(old, new))


def _delete_object(s: Scratch, digest: str) -> None:
    (s.root / obj(digest)).unlink()
    s.ops.append({"op": "delete", "path": obj(digest)})


def _two_faults(builds: Path, before: bool) -> dict[str, Any]:
    """deploy's entry malformed and another shard missing, before or after deploy's in name order:
    a call that lists every skill meets the faults in a fixed order (docs/format.md §5.2)."""
    s = Scratch(builds / "main")
    try:
        _, mine, _ = s.shard_of("deploy")
        shards = json.loads(s.read(obj(s.index()["shards"])))["shards"]
        others = sorted(n for n in shards if (n < mine) == before and n != mine)
        victim = others[0] if before else others[-1]
        _bad_neighbour(s)
        s.ops.append({"op": "delete", "path": obj(shards[victim])})
        calls = [
            call("skills", persona="tiny"),
            call("all_commands"),
            call("load", persona="tiny", command="nope"),
        ]
        return _case(f"two-faults-{'before' if before else 'after'}", "main", s.ops, calls)
    finally:
        s.close()


def _entry(command: str, change: Callable[[dict[str, Any]], None]) -> Callable[[str], str]:
    """An edit of a shard's text that changes one skill's entry, leaving its neighbours as they are."""

    def edit(text: str) -> str:
        doc = json.loads(text)
        change(doc["skills"][command])
        return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))  # compact: cases.json stays small

    return edit


def _bad_neighbour(s: Scratch) -> None:
    """A shard whose entry for one skill is malformed: only the calls that serve it fail."""
    s.set_shard("deploy", _entry("deploy", lambda e: e["frontmatter"].update({"argument-hint": 7})))


def _unknown_exception(s: Scratch) -> None:
    s.set_shard("deploy", _entry("deploy", lambda e: e["exceptions"].update({"ghost": None})))


def _deep(s: Scratch, depth: int) -> None:
    """deploy's frontmatter nested so that its shard is `depth` levels deep (the limit is 64)."""
    inner = depth - 4  # shard, skills, entry, frontmatter: then the `nest` arrays

    def nest(e: dict[str, Any]) -> None:
        value: Any = []
        for _ in range(inner - 1):
            value = [value]
        e["frontmatter"]["nest"] = value

    s.set_shard("deploy", _entry("deploy", nest))


def _non_utf8_body(s: Scratch, command: str) -> None:
    old = s.body(command)
    new = s.put(b"caf\xe9 \xff body\n")
    s.set_shard(command, lambda t: t.replace(old, new))


def _table(s: Scratch, edit: Callable[[str], str]) -> None:
    old = s.index()["shards"]
    new = s.put(edit(s.read(obj(old)).decode("utf-8")).encode("utf-8"))
    s.set_index(lambda t: t.replace(old, new))


def _bad_shard_name(text: str) -> str:
    doc = json.loads(text)
    first = next(iter(doc["shards"]))
    return text.replace(f'"{first}":', f'"{first}0":', 1)


def _rebuilt(builds: Path) -> list[dict[str, Any]]:
    """The build is replaced while open (docs/format.md §6.4): the next call answers from the new
    build, whether the old one's objects are still there or pruned; refresh() says when it moved."""
    calls = [
        call("refresh"),
        call("build_hash"),
        *_loads("tiny", "notes", "fresh", "deploy"),
        call("catalog", persona="tiny"),
        call("all_commands"),
        call("refresh"),
    ]
    rebuilt = [{"op": "rebuild", "build": "main-next"}]
    pruned = [{"op": "rebuild", "build": "main-next", "prune": True}]
    back = [{"op": "rebuild", "build": "main-next"}, {"op": "rebuild", "build": "main"}]
    # an index rewritten with the same bytes is the same build; an unusable one is no build at all
    same = [write_op("_index.json", (builds / "main" / "_index.json").read_bytes())]
    broken = [write_op("_index.json", b'{"format": 3}')]  # none of its keys
    kept = [*_loads("tiny", "notes", "fresh"), call("build_hash"), call("refresh")]
    return [
        _case("rebuilt", "main", [], calls, rebuilt),
        _case("rebuilt-and-pruned", "main", [], calls, pruned),
        _case("rebuilt-and-back", "main", [], calls, back),
        _case("index-rewritten-same", "main", [], kept, same),
        _case("index-broken-after-open", "main", [], kept, broken),
    ]
