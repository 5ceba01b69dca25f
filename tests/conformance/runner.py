"""Run conformance cases through the Python reader: tamper ops, calls, results as JSON values.

The generator uses this to compute the expected results, and tests/conformance/test_conformance.py to check
them; the TypeScript and Rust runners do the same in their languages (see README.md here).
"""

from __future__ import annotations

import base64
import os
import shutil
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from skillc import reader

HERE = Path(__file__).resolve().parent
BUILDS = HERE / "builds"
CASES = HERE / "cases.json"


# -- tamper ops ----------------------------------------------------------------------------------


def _clear(path: Path) -> None:
    if path.is_symlink() or path.is_file() or (path.exists() and not path.is_dir()):
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def rebuild(root: Path, build: Path, prune: bool) -> None:
    """The `rebuild` op: the copy at root becomes `build` as skillc writes a build over another."""
    theirs = {p.relative_to(build).as_posix() for p in (build / "objects").rglob("*") if p.is_file()}
    for rel in sorted(theirs):
        target = root / rel
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(build / rel, target)
    if prune:
        for path in sorted((root / "objects").rglob("*")):
            if path.is_file() and path.relative_to(root).as_posix() not in theirs:
                path.unlink()
    root.mkdir(parents=True, exist_ok=True)  # an optional tier that was not there
    aside = root / ".skillc-tmp-rebuild"
    shutil.copyfile(build / "_index.json", aside)
    os.replace(aside, root / "_index.json")  # a new file renamed over the index: the commit


def apply(root: Path, op: Mapping[str, Any], builds: Path = BUILDS) -> None:
    """One tamper op on the copy of a build at root (ops are listed in README.md)."""
    kind = op["op"]
    if kind == "rebuild":
        rebuild(root, builds / op["build"], op.get("prune", False))
        return
    path = root.joinpath(*op["path"].split("/"))
    if kind == "patch":
        with path.open("r+b") as fh:
            fh.seek(op["offset"])
            fh.write(base64.b64decode(op["base64"]))
        return
    if kind == "truncate":
        os.truncate(path, op["size"])
        return
    _clear(path)
    if kind == "delete":
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "write":
        path.write_bytes(op["text"].encode("utf-8") if "text" in op else base64.b64decode(op["base64"]))
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "symlink":
        path.symlink_to(op["target"])
    elif kind == "mkdir":
        path.mkdir()
    else:
        raise ValueError(f"unknown tamper op {kind!r}")


def copy_build(build: str, dest: Path, builds: Path = BUILDS) -> Path:
    """A fresh, writable copy of a committed build (executable bits kept)."""
    shutil.copytree(builds / build, dest, symlinks=True)
    return dest


# -- results as JSON values ------------------------------------------------------------------------


def to_json(value: Any) -> Any:
    """A reader result as a JSON value: records -> objects by field name, tuples -> arrays,
    bytes -> {"base64": ...}; str, int, float, bool and None as they are."""
    if isinstance(value, bytes):
        return {"base64": base64.b64encode(value).decode("ascii")}
    if isinstance(value, list | tuple):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    fields = getattr(type(value), "__match_args__", None)
    if fields is None:
        raise TypeError(f"no JSON form for {type(value).__name__}")
    return {name: to_json(getattr(value, name)) for name in fields}


def error_json(exc: Exception) -> dict[str, Any]:
    out: dict[str, Any] = {"error": type(exc).__name__}
    if type(exc).__name__ == "NotInvocable":
        out["invokers"] = list(getattr(exc, "invokers", ()))
    if type(exc).__name__ == "UnknownSkill":  # by name: the single-file reader has its own classes
        out["suggestions"] = list(getattr(exc, "suggestions", ()))
        try:  # read on access: a fault elsewhere in the build shows here, not in the call
            out["visible"] = list(getattr(exc, "visible", ()))
        except Exception as failed:
            if "ReaderError" not in {c.__name__ for c in type(failed).__mro__}:
                raise
            out["visible"] = {"error": type(failed).__name__}
    return out


# -- calls ---------------------------------------------------------------------------------------


@contextmanager
def path_dir(entries: list[Mapping[str, str]], tmp: Path) -> Iterator[str]:
    """A folder holding the `path` entries of a missing_requirements call; yields it."""
    where = tmp / "path"
    where.mkdir()
    for entry in entries:
        target = where / entry["name"]
        if entry["kind"] == "dir":
            target.mkdir()
        else:
            target.write_text("#!/bin/sh\n")
            mode = 0o755 if entry["kind"] == "exec" else 0o644
            target.chmod(mode)
    try:
        yield str(where)
    finally:
        shutil.rmtree(where)


def _missing(dist: reader.Dist, a: Mapping[str, Any], tmp: Path) -> Any:
    with path_dir(a.get("path", []), tmp) as folder:
        env = dict(a.get("env", {}), PATH=folder)
        return dist.missing_requirements(a["persona"], a["command"], env=env)


def _for_env(name: str) -> Callable[[reader.Dist, Mapping[str, Any], Path], Any]:
    """A call that takes an environment: `env` (with `path`) as missing_requirements takes them;
    absent, EVERYWHERE (the build as it was made)."""

    def call(dist: reader.Dist, a: Mapping[str, Any], tmp: Path) -> Any:
        method = getattr(dist, name)
        if "env" not in a:
            return method(a["persona"], env=_everywhere(dist))
        with path_dir(a.get("path", []), tmp) as folder:
            return method(a["persona"], env=dict(a["env"], PATH=folder))

    return call


def _everywhere(dist: reader.Dist) -> Any:
    """The EVERYWHERE of the reader module the Dist comes from (the package or the single file)."""
    import sys

    return getattr(sys.modules[type(dist).__module__], "EVERYWHERE", reader.EVERYWHERE)


def _load(dist: reader.Dist, a: Mapping[str, Any]) -> Any:
    given = {k: a[k] for k in ("by", "base") if k in a}  # absent: the reader's defaults
    return dist.load(a["persona"], a["command"], args=a.get("args"), params=a.get("params"), **given)


CALLS: dict[str, Callable[[reader.Dist, Mapping[str, Any], Path], Any]] = {
    "build_hash": lambda d, a, t: d.build_hash,
    "personas": lambda d, a, t: d.personas(),
    "catalog": _for_env("catalog"),
    "skills": _for_env("skills"),
    "commands": _for_env("commands"),
    "unavailable": _for_env("unavailable"),
    "all_commands": lambda d, a, t: d.all_commands(),
    "load": lambda d, a, t: _load(d, a),
    "render": lambda d, a, t: _load(d, a).render(),
    "resources": lambda d, a, t: d.resources(a["persona"], a["command"], kind=a.get("kind")),
    "resource": lambda d, a, t: d.resource(a["persona"], a["command"], a["path"]),
    "read_object": lambda d, a, t: d.read_object(a["digest"]),
    "skill_meta": lambda d, a, t: d.skill_meta(a["command"]),
    "persona_meta": lambda d, a, t: d.persona_meta(a["persona"]),
    "resolution": lambda d, a, t: d.resolution(a["persona"], a["command"]),
    "refresh": lambda d, a, t: d.refresh(),
    "persona_context": lambda d, a, t: d.persona_context(a["persona"]),
    "shadowed": lambda d, a, t: d.shadowed(),
    "missing_requirements": _missing,
}


def _substitute(api: Any, a: Mapping[str, Any]) -> Any:
    return api.substitute(
        a["body"],
        a.get("args"),
        names=a.get("names", ()),
        skill_dir=a.get("skill_dir"),
        params=a.get("params"),
    )


def outcome(call: Callable[[], Any], api: Any = reader) -> dict[str, Any]:
    """{"result": value} or {"error": class name, ...}: what a call's `expect` holds."""
    try:
        return {"result": to_json(call())}
    except api.ReaderError as exc:
        return error_json(exc)


def run_case(
    case: Mapping[str, Any], tmp: Path, builds: Path = BUILDS, api: Any = reader
) -> list[dict[str, Any]]:
    """The outcome of every call of a case, in order, on a tampered copy of its build.

    api: the reader module (`skillc.reader`, or the single file `skillc vendor-reader` writes)."""
    tiers = case.get("tiers") or [{"build": case["build"]}]
    roots = [tmp / ("dist" if "tiers" not in case else f"tier-{i}") for i in range(len(tiers))]
    for tier, root in zip(tiers, roots, strict=True):
        if tier.get("build") is not None:  # none: an optional tier missing here
            copy_build(tier["build"], root, builds)
    for op in case.get("tamper", []):
        apply(roots[op.get("tier", 0)], op, builds)
    try:
        if "tiers" in case:
            given = [
                api.Tier(str(root), optional=t.get("optional", False), root=t.get("root"))
                for t, root in zip(tiers, roots, strict=True)
            ]
            dist = api.open(given)
        else:
            dist = api.open(roots[0], root=case.get("root"))
    except api.ReaderError as exc:  # such a case has one call, `open`
        return [error_json(exc)]
    for op in case.get("tamper_after_open", []):
        apply(roots[op.get("tier", 0)], op, builds)
    return [_call(api, dist, c, tmp) for c in case["calls"]]


def _call(api: Any, dist: reader.Dist, c: Mapping[str, Any], tmp: Path) -> dict[str, Any]:
    args = c.get("args", {})
    if c["call"] == "open":  # opened above
        return {"result": None}
    if c["call"] == "substitute":
        return outcome(lambda: _substitute(api, args), api)
    return outcome(lambda: CALLS[c["call"]](dist, args, tmp), api)
