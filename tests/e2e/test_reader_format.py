"""Format 2 as the reader sees it: the generated single file, the open build across rebuilds,
only regular files, and every failure a ReaderError."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.cli import build
from support.dist import expand
from support.files import REPO
from support.project import CONFIG_PERSONAS, project, skill_md

from skillc import pipeline, reader
from skillc.cli import cli
from skillc.format import layout as fmt
from skillc.reader import vendor as bundle


@pytest.fixture
def proj(tmp_path) -> Path:
    cfg = project(
        tmp_path,
        {
            "skills/a/SKILL.md": skill_md(body="Body of a.\n"),
            "skills/a/scripts/run.sh": "echo hi\n",
            "skills/b/SKILL.md": skill_md(),
            "personas/p/manifest.yaml": "name: P\n",
            "personas/q/manifest.yaml": "name: Q\n",
            "personas/q/skill-overlays/a.md": "Be brief.\n",
        },
        CONFIG_PERSONAS,
    )
    assert build(cfg).exit_code == 0
    return cfg


def test_vendor_reader_writes_the_single_file_reader(tmp_path):
    out = tmp_path / "vendor" / "skillc_reader.py"
    result = CliRunner().invoke(cli, ["vendor-reader", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text("utf-8") == bundle.bundle()
    assert CliRunner().invoke(cli, ["vendor-reader", str(out)]).exit_code == 0  # its own file: rewritten


def test_vendor_reader_never_overwrites_a_file_it_did_not_write(tmp_path):
    out = tmp_path / "skillc_reader.py"
    out.write_text("mine\n")
    result = CliRunner().invoke(cli, ["vendor-reader", str(out)])
    assert result.exit_code == 1 and "not written by skillc" in result.output
    assert out.read_text() == "mine\n"


def test_no_generated_reader_is_committed_inside_the_package():
    assert not list((REPO / "compiler").glob("*reader*.py"))


def _vendored(tmp_path: Path) -> Path:
    (tmp_path / "reader.py").write_text(bundle.bundle(), "utf-8")  # copied alone
    return tmp_path / "reader.py"


SCRIPT = """
import sys
before = set(sys.modules)
sys.path.insert(0, sys.argv[1])
import reader
new = set(sys.modules) - before - {"reader"}
third = sorted(m for m in new if m.split(".")[0] not in sys.stdlib_module_names)
print(third)
"""


def _pythons() -> list[str]:
    """This interpreter and any other CPython 3.11-3.13 on the machine (pyenv's, or on PATH)."""
    found = [sys.executable]
    for version in ("3.11", "3.12", "3.13"):
        for candidate in (
            *sorted(Path("/root/.pyenv/versions").glob(f"{version}.*/bin/python")),
            shutil.which(f"python{version}"),
        ):
            if candidate and os.access(candidate, os.X_OK):
                found.append(str(candidate))
                break
    return found


@pytest.mark.parametrize("python", _pythons())
def test_reader_imports_only_the_standard_library(tmp_path, python):
    _vendored(tmp_path)
    out = subprocess.run([python, "-I", "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_copied_reader_serves_the_example(tmp_path):
    _vendored(tmp_path)
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import reader; d = reader.open(sys.argv[2]); "
        "print(len(d.catalog(d.personas()[0])) > 0, d.load(d.personas()[0], d.skills(d.personas()[0])[0].command).name)"
    )
    for python in _pythons()[1:]:
        out = subprocess.run(
            [python, "-I", "-c", code, str(tmp_path), str(REPO / "dist")], capture_output=True, text=True
        )
        assert out.returncode == 0 and out.stdout.startswith("True "), (python, out.stderr)
    out = subprocess.run(
        [sys.executable, "-I", "-c", code, str(tmp_path), str(REPO / "dist")], capture_output=True, text=True
    )
    assert out.returncode == 0 and out.stdout.startswith("True "), out.stderr


def test_reader_answers_what_the_compiler_resolved():
    result = pipeline.compile_project(REPO / "skillc.yaml")
    d = reader.open(REPO / "dist")
    seen = {(r.persona, r.command): r for r in result.resolutions}
    for persona in d.personas():
        visible = {s.command for s in d.skills(persona, env=reader.EVERYWHERE)}
        assert visible == {c for p, c in seen if p == persona}
        for command in visible:
            got, want = d.resolution(persona, command), seen[(persona, command)]
            assert (got.access, got.via, got.overlay, got.model, got.user) == (
                want.access,
                want.via,
                want.overlay,
                want.model,
                want.user,
            )
            invokers = [by for by in ("model", "user") if getattr(want, by)]
            if invokers:
                assert d.load(persona, command, by=invokers[0]).body == want.body
            for by in {"model", "user"} - set(invokers):
                with pytest.raises(reader.NotInvocable) as refused:
                    d.load(persona, command, by=by)
                assert (refused.value.by, refused.value.invokers) == (by, tuple(invokers))
            assert got.in_catalog == (command in result.packings[persona].included)


def test_most_pairs_are_not_written_out():
    view = expand(REPO / "dist")
    exceptions = sum(len(s["exceptions"]) for s in view["skills"].values())
    pairs = len(view["skills"]) * len(view["personas"])
    assert exceptions < pairs / 3


def test_format_1_is_refused_naming_both_versions(proj):
    dist = proj.parent / "dist"
    (dist / "_index.json").write_text(
        json.dumps({"format": 1, "personas": {}, "skills": {}, "resolutions": {}})
    )
    with pytest.raises(reader.FormatError, match="format 1; this reader reads format 3"):
        reader.open(dist)


# --- an open Dist across rebuilds ------------------------------------------------------------


def _edit_and_rebuild(proj: Path, *extra: str) -> None:
    (proj.parent / "skills/a/SKILL.md").write_text(skill_md(body="New body.\n", description="Changed."))
    (proj.parent / "personas/p/manifest.yaml").write_text("name: P2\n")
    assert build(proj, *extra).exit_code == 0


def test_an_open_dist_answers_from_the_newest_build(proj):
    d = reader.open(proj.parent / "dist")
    before = (d.build_hash, d.catalog("p"), d.load("p", "a").body)
    assert before[2] == "Body of a.\n"
    _edit_and_rebuild(proj)
    assert d.load("p", "a").body == "New body.\n" and d.skill_meta("a").description == "Changed."
    assert d.build_hash != before[0] and d.catalog("p") != before[1]
    assert d.persona_meta("p").name == "P2"
    assert d.refresh() is False  # already moved, at the calls above


def _rebuilt_during_the_next_call(monkeypatch, proj, *extra: str) -> None:
    """The next call's look at the index is made, and then the build is replaced."""
    from skillc.reader import dist as handle

    check = handle._Tier.check

    def then_rebuild(self, force=False):
        moved = check(self, force)
        monkeypatch.setattr(handle._Tier, "check", check)
        _edit_and_rebuild(proj, *extra)
        return moved

    monkeypatch.setattr(handle._Tier, "check", then_rebuild)


def test_one_call_never_mixes_two_builds(proj, monkeypatch):
    d = reader.open(proj.parent / "dist")
    old = [(s.command, s.description) for s in reader.open(proj.parent / "dist").skills("p")]
    _rebuilt_during_the_next_call(monkeypatch, proj)
    assert [(s.command, s.description) for s in d.skills("p")] == old  # read after the rebuild
    assert d.skill_meta("a").description == "Changed."  # the next call: the new build


def test_a_build_pruned_during_a_call_is_dist_rebuilt(proj, monkeypatch):
    d = reader.open(proj.parent / "dist")
    _rebuilt_during_the_next_call(monkeypatch, proj, "--prune")
    with pytest.raises(reader.DistRebuilt, match=r"rebuilt during the call.*the next call") as exc:
        d.load("p", "a")
    assert "tamper" not in str(exc.value)
    assert isinstance(exc.value, reader.ReaderError)
    assert d.load("p", "a").body == "New body.\n"


def test_refresh_reads_an_index_its_identity_would_miss(proj, monkeypatch):
    from skillc.reader import dist as handle

    d = reader.open(proj.parent / "dist")
    first = d.build_hash
    _edit_and_rebuild(proj)
    monkeypatch.setattr(handle, "identity_of", lambda st: d._tiers[0].identity)  # looks unchanged
    assert d.build_hash == first
    assert d.refresh() is True and d.build_hash != first
    assert d.refresh() is False


def test_a_missing_or_broken_index_leaves_the_build_served(proj):
    dist = proj.parent / "dist"
    d = reader.open(dist)
    first = d.build_hash
    (dist / "_index.json").write_text("{")
    assert d.build_hash == first and d.load("p", "a").body == "Body of a.\n"
    (dist / "_index.json").unlink()
    assert d.build_hash == first and d.refresh() is False


# --- regular files only, bounded ----------------------------------------------------------------


def _object_of(dist: Path, digest: str) -> Path:
    return dist / fmt.object_path(digest)


def _put(dist: Path, doc: object) -> str:
    """Write doc as an object (a hostile build's, hash matching) and return its hash."""
    data = json.dumps(doc).encode()
    path = _object_of(dist, fmt.sha256_hex(data))
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(data)
    return fmt.sha256_hex(data)


def _shard_table(dist: Path) -> dict:
    index = json.loads((dist / "_index.json").read_text())
    return json.loads(_object_of(dist, index["shards"]).read_text())


def _replace_table(dist: Path, table: dict) -> None:
    index = json.loads((dist / "_index.json").read_text())
    index["shards"] = _put(dist, table)
    (dist / "_index.json").write_text(json.dumps(index))


@pytest.mark.parametrize("kind", ["fifo", "devzero", "directory"])
def test_non_regular_object_is_refused_without_blocking(proj, kind):
    dist = proj.parent / "dist"
    path = _object_of(dist, expand(dist)["resolutions"]["p"]["a"]["body"])
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "devzero":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()
    with pytest.raises(reader.IntegrityError):
        reader.open(dist).load("p", "a")


@pytest.mark.parametrize("kind", ["fifo", "devzero"])
def test_non_regular_index_is_refused_without_blocking(proj, kind):
    index = proj.parent / "dist" / "_index.json"
    index.unlink()
    if kind == "fifo":
        os.mkfifo(index)
    else:
        index.symlink_to("/dev/zero")
    with pytest.raises(reader.FormatError, match="not a regular file"):
        reader.open(proj.parent / "dist")


def test_non_utf8_object_with_matching_hash_is_a_reader_error(proj):
    dist = proj.parent / "dist"
    data = b"\xff\xfe not text"
    digest = fmt.sha256_hex(data)
    path = _object_of(dist, digest)
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(data)
    index = json.loads((dist / "_index.json").read_text())
    index["personas"]["p"]["prompt"] = digest
    (dist / "_index.json").write_text(json.dumps(index))
    with pytest.raises(reader.FormatError, match="not UTF-8"):
        reader.open(dist).catalog("p")


def test_malformed_shard_with_matching_hash_is_refused(proj):
    dist = proj.parent / "dist"
    table = _shard_table(dist)
    name = fmt.shard_of("a")
    shard = json.loads(_object_of(dist, table["shards"][name]).read_text())
    shard["skills"]["a"]["default"]["access"] = "root"
    table["shards"][name] = _put(dist, shard)
    _replace_table(dist, table)
    with pytest.raises(reader.FormatError, match="access: not one of"):
        reader.open(dist).load("p", "a")


def test_each_shard_entry_is_checked_before_it_is_served(proj):
    """load() checks the entry it serves, not every entry of the shard; whatever reads the others
    (skills(), skill_meta()) checks those before serving them."""
    dist = proj.parent / "dist"
    table = _shard_table(dist)
    name = fmt.shard_of("a")
    other = next(c for c in (f"z{i}" for i in range(10_000)) if fmt.shard_of(c) == name)
    shard = json.loads(_object_of(dist, table["shards"][name]).read_text())
    shard["skills"][other] = {**shard["skills"]["a"], "default": {"access": "root"}}
    table["shards"][name] = _put(dist, shard)
    _replace_table(dist, table)
    d = reader.open(dist)
    assert d.load("p", "a").command == "a"
    with pytest.raises(reader.FormatError, match=f"skills.{other}.default"):
        d.skill_meta(other)
    with pytest.raises(reader.FormatError, match=f"skills.{other}.default"):
        reader.open(dist).skills("p")


def test_stub_sees_no_resources(tmp_path):
    cfg = project(
        tmp_path,
        {
            "skills/x/SKILL.md": skill_md(body="Ask the owner.\n", persona_exclusive="owner"),
            "skills/x/scripts/s.sh": "echo secret\n",
            "personas/owner-exclusive/x.md": "Secret.\n",
            "personas/owner/manifest.yaml": "name: O\n",
            "personas/other/manifest.yaml": "name: X\n",
        },
        CONFIG_PERSONAS,
    )
    r = build(cfg)
    assert r.exit_code == 0, r.stderr
    d = reader.open(tmp_path / "dist")
    assert d.resolution("other", "x").access == "stub"
    assert d.load("other", "x", by="user").files == () and d.resources("other", "x") == []
    with pytest.raises(reader.NotInvocable):  # a stub is not for the model: it is not in its catalog
        d.load("other", "x")
    with pytest.raises(reader.UnknownResource):
        d.resource("other", "x", "scripts/s.sh")
    assert d.resources("owner", "x") == ["scripts/s.sh"]


# --- shard names grow with the build ---------------------------------------------------


def test_a_build_with_longer_shard_names_has_a_table_tree_and_is_served(tmp_path, monkeypatch):
    monkeypatch.setattr(fmt, "SHARD_SKILLS", 0.01)  # 20 skills then need 3-digit shard names
    files = {f"skills/s{i}/SKILL.md": skill_md() for i in range(20)}
    cfg = project(tmp_path, {**files, "personas/p/manifest.yaml": "name: P\n"}, CONFIG_PERSONAS)
    assert build(cfg).exit_code == 0
    dist = tmp_path / "dist"
    view = expand(dist)  # every file held to its schema
    root = _shard_table(dist)  # a tree now: the root names 2-hex prefixes, its nodes 3-hex shards
    assert root["prefix"] == "" and {len(name) for name in root["tables"]} == {2}
    node = json.loads(_object_of(dist, next(iter(root["tables"].values()))).read_text())
    assert {len(name) for name in node["shards"]} == {3}
    d = reader.open(dist)
    assert d.load("p", "s7").command == "s7"
    assert sorted(s.command for s in d.skills("p")) == sorted(view["skills"])


def test_a_shard_table_with_names_of_two_lengths_is_refused(proj):
    dist = proj.parent / "dist"
    table = _shard_table(dist)
    table["shards"]["abc"] = next(iter(table["shards"].values()))
    _replace_table(dist, table)
    d = reader.open(dist)  # open() and catalog() never read the shard table
    assert d.catalog("p")
    with pytest.raises(reader.FormatError, match=r"shards\.abc"):
        d.skills("p")


def test_a_table_node_under_the_wrong_prefix_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(fmt, "SHARD_SKILLS", 0.01)
    files = {f"skills/s{i}/SKILL.md": skill_md() for i in range(20)}
    cfg = project(tmp_path, {**files, "personas/p/manifest.yaml": "name: P\n"}, CONFIG_PERSONAS)
    assert build(cfg).exit_code == 0
    dist = tmp_path / "dist"
    root = _shard_table(dist)
    first, second = sorted(root["tables"])[:2]
    root["tables"][first] = root["tables"][second]  # a node filed under another prefix
    _replace_table(dist, root)
    with pytest.raises(reader.FormatError, match="prefix"):
        reader.open(dist).skills("p")
