"""delta.py: which changes a delta build takes, and that it declines every other (None), writing
nothing. What it writes is held to a clean build by tests/property/test_delta_sequences.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.files import snapshot
from support.project import skill_md, src_project

from skillc import reader
from skillc.format import layout as fmt
from skillc.incremental.delta import State, rebuild, state_of, warm
from skillc.model import SKILL_MD_CAP
from skillc.pipeline import Compiled, Replayed, build

FILES = {
    "src/a/SKILL.md": skill_md("a", description="First."),
    "src/a/scripts/run": "#!/bin/sh\necho a\n",
    "src/b/SKILL.md": skill_md("b", description="Second."),
}


def _state(config: Path) -> State:
    result, written = build(config, cache=False, keep=True)
    assert written is not None and isinstance(result, Compiled) and result.artifacts is not None
    state = state_of(result, result.artifacts.files[fmt.INDEX])
    assert state is not None
    return warm(state)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return src_project(tmp_path, FILES)


def _path(config: Path, rel: str) -> Path:
    return (config.parent / rel).resolve()


def test_a_body_edit_is_written_and_served(config: Path) -> None:
    state = _state(config)
    target = _path(config, "src/a/SKILL.md")
    target.write_text(skill_md("a", description="First.") + "More body.\n")
    done = rebuild(state, [target])
    assert done is not None and done.written.written
    dist = reader.open(config.parent / "dist")
    assert "More body." in dist.load("default", "a").body
    assert done.summary.skills == 2


def test_a_description_edit_changes_the_catalog(config: Path) -> None:
    state = _state(config)
    target = _path(config, "src/a/SKILL.md")
    target.write_text(skill_md("a", description="Changed."))
    done = rebuild(state, [target])
    assert done is not None
    assert "Changed." in reader.open(config.parent / "dist").catalog("default")


def test_a_resource_made_executable_is_an_edit(config: Path) -> None:
    state = _state(config)
    script = _path(config, "src/a/scripts/run")
    script.chmod(0o755)
    done = rebuild(state, [script])
    assert done is not None and done.written.written
    assert reader.open(config.parent / "dist").skill_meta("a").resources[0].executable


def test_a_save_without_a_change_writes_nothing(config: Path) -> None:
    state = _state(config)
    target = _path(config, "src/a/SKILL.md")
    os.utime(target, ns=(0, 10**18))
    before = snapshot(config.parent / "dist")
    done = rebuild(state, [target])
    assert done is not None and not done.written.written
    assert snapshot(config.parent / "dist") == before


@pytest.mark.parametrize(
    "change",
    [
        "added",
        "removed",
        "config",
        "renamed",
        "error",
        "link",
        "fifo",
        "directory",
        "too large",
        "not utf-8",
        "foreign build",
    ],
)
def test_other_changes_are_declined_and_nothing_is_written(config: Path, change: str) -> None:
    state = _state(config)
    root = config.parent
    target = _path(config, "src/a/SKILL.md")
    changed = [target]
    if change == "added":
        changed = [_path(config, "src/a/new.md")]
        changed[0].write_text("new\n")
    elif change == "removed":
        _path(config, "src/a/scripts/run").unlink()
        changed = [_path(config, "src/a/scripts/run")]
    elif change == "config":
        config.write_text(config.read_text() + "\n")
        changed = [config.resolve()]
    elif change == "renamed":  # its name is what other skills and the harnesses key on
        target.write_text(skill_md("a", description="First.").replace("name: a", "name: b"))
    elif change == "error":
        target.write_text("---\nname: a\ndescription: [oops\n---\nbody\n")
    elif change == "link":
        target.unlink()
        target.symlink_to(_path(config, "src/b/SKILL.md"))
    elif change == "fifo":  # discover refuses what is not a regular file: so does the delta
        script = _path(config, "src/a/scripts/run")
        script.unlink()
        os.mkfifo(script)
        changed = [script]
    elif change == "directory":
        script = _path(config, "src/a/scripts/run")
        script.unlink()
        script.mkdir()
        changed = [script]
    elif change == "too large":
        target.write_bytes(b"x" * (SKILL_MD_CAP + 1))
    elif change == "not utf-8":
        target.write_bytes(skill_md("a").encode() + b"\xff\xfe\n")
    elif change == "foreign build":  # another build wrote the output since
        (root / "src/b/SKILL.md").write_text(skill_md("b", description="Other."))
        build(config, cache=False)
        target.write_text(skill_md("a", description="First.") + "More.\n")
    before = snapshot(root / "dist")
    assert rebuild(state, changed) is None
    assert snapshot(root / "dist") == before


def test_a_shadowed_skill_is_not_the_served_one(tmp_path: Path) -> None:
    config = src_project(
        tmp_path,
        {"low/a/SKILL.md": skill_md("a", description="Low."), "high/a/SKILL.md": skill_md("a")},
        "sources: [low, high]\n",
    )
    state = _state(config)
    low = (tmp_path / "low/a/SKILL.md").resolve()
    low.write_text(skill_md("a", description="Low, edited."))
    assert rebuild(state, [low]) is None


def test_a_document_over_the_reader_bound_is_left_to_the_whole_build(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = _state(config)
    monkeypatch.setattr(fmt, "MAX_OBJECT_BYTES", 500)
    target = _path(config, "src/a/SKILL.md")
    target.write_text(skill_md("a", description="First.") + "x" * 600 + "\n")
    assert rebuild(state, [target]) is None


def test_the_cache_is_not_fooled_by_a_delta_build(
    config: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A delta build writes dist/ but not .skillc-cache/: the next cached build still builds, and what
    it leaves is what a clean build of the same sources writes."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    build(config)  # recorded in the cache
    state = _state(config)
    target = _path(config, "src/a/SKILL.md")
    original = target.read_text()
    for text in (original + "Edited.\n", original):  # an edit, then back to the recorded bytes
        target.write_text(text)
        done = rebuild(state, [target])
        assert done is not None
        state = done.state
    result, written = build(config)
    assert written is not None and isinstance(result, Compiled | Replayed)
    clean = config.parent.parent / "clean"
    clean.mkdir()
    other = src_project(clean, FILES)
    build(other, cache=False)
    want = snapshot(clean / "dist")
    got = snapshot(config.parent / "dist")
    assert {rel: got.get(rel) for rel in want} == want


def test_under_strict_a_new_warning_fails_the_whole_build_not_the_delta(tmp_path: Path) -> None:
    config = src_project(tmp_path, FILES, "sources: [src]\noutput: dist\nstrict: true\n")
    state = _state(config)
    target = _path(config, "src/a/SKILL.md")
    target.write_text(skill_md("a", description="First.", body=""))  # SKC: no body, a warning
    before = snapshot(tmp_path / "dist")
    assert rebuild(state, [target]) is None
    assert snapshot(tmp_path / "dist") == before


@pytest.mark.parametrize("name", [".gitignore", ".ignore"])
def test_an_ignore_file_that_is_also_a_resource_is_declined(tmp_path: Path, name: str) -> None:
    """A skill's own `.gitignore` is bundled like any resource, but editing it changes which files
    the walk keeps: only a whole build can say (a delta build would keep notes.txt)."""
    config = src_project(tmp_path, {**FILES, f"src/a/{name}": "# nothing\n", "src/a/notes.txt": "x\n"})
    state = _state(config)
    ignore = _path(config, f"src/a/{name}")
    ignore.write_text("notes.txt\n")
    before = snapshot(tmp_path / "dist")
    assert rebuild(state, [ignore]) is None
    assert snapshot(tmp_path / "dist") == before


def test_a_template_file_that_is_also_a_resource_is_declined(tmp_path: Path) -> None:
    """A template (or a file it includes) inside a source is a resource too; editing it changes
    every catalog, which only a whole build renders."""
    template = "{% macro entry(skill) %}- {{ skill.command }}{% endmacro %}{% include 'head.j2' %}"
    template += "{% for s in skills %}{{ entry(s) }}\n{% endfor %}"
    files = {**FILES, "src/a/t/catalog.md.j2": template, "src/a/t/head.j2": "Skills:\n"}
    config = src_project(tmp_path, files, "sources: [src]\ntemplate: src/a/t/catalog.md.j2\n")
    state = _state(config)
    for rel in ("src/a/t/head.j2", "src/a/t/catalog.md.j2"):
        path = _path(config, rel)
        path.write_text(path.read_text().replace("Skills:", "Tools:").replace("- ", "* "))
        assert rebuild(state, [path]) is None


def test_an_edit_of_a_copy_an_earlier_one_stands_in_for_is_declined(tmp_path: Path) -> None:
    """With --skip-invalid, a copy left out for its errors is served by an earlier source's copy
    (validate._earlier_copies): an edit of the left-out one is the whole build's to take."""
    config = src_project(
        tmp_path,
        {
            "early/plan/SKILL.md": skill_md("plan", description="Early."),
            "src/plan/SKILL.md": skill_md("plan", description="[not, text]"),
        },
        "format: 1\nsources: [early, src]\npersonas: personas\noutput: dist\nskip_invalid: true\n",
    )
    state = _state(config)
    assert state.program.skills["plan"].path == "early/plan/SKILL.md"
    target = _path(config, "src/plan/SKILL.md")
    target.write_text(skill_md("plan", description="Mended."))  # served again, its warnings gone
    assert rebuild(state, [target]) is None
