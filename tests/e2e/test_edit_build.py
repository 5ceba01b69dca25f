"""Edit builds (compiler/incremental/edit.py): `skillc build` after skills were edited, added or
removed, made from what the last build left in the cache and what discover finds where they changed. Each case is compared with a build of a copy
without the cache; the cases the edit build declines are built by the cached pipeline, correctly."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
import unicodedata
from pathlib import Path

import pytest
from support.files import REPO, settle
from support.files import snapshot as dist_bytes

from skillc import reader
from skillc.format.layout import is_object, object_path
from skillc.fs import output_stat
from skillc.incremental import carry as carry_mod
from skillc.incremental import edit as edit_mod
from skillc.incremental import walk as walk_mod
from skillc.incremental.quick import output_signature
from skillc.pipeline import build
from skillc.stages import readinput
from skillc.stages import skills as skills_stage

sys.path.insert(0, str(REPO))
from bench.gen import generate


@pytest.fixture
def tree(tmp_path) -> Path:
    generate(tmp_path / "t", 30, n_personas=4, seed=5)
    config = tmp_path / "t" / "skillc.yaml"
    settle(config.parent)
    build(config)
    return config


def served(config: Path) -> list[Path]:
    """SKILL.md files the build serves (src-b overrides some of src-a's commands), leaves only."""
    a, b = config.parent / "skills" / "src-a", config.parent / "skills" / "src-b"
    found = sorted(config.parent.glob("skills/**/SKILL.md"))
    files = [f for f in found if b in f.parents or not (b / f.parent.relative_to(a) / "SKILL.md").exists()]
    return [f for f in files if not any(f.parent.glob("*/SKILL.md"))]


def same_as_clean(config: Path, tmp_path: Path, result) -> None:
    copy = tmp_path / "clean"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(config.parent, copy, ignore=shutil.ignore_patterns("dist", ".skillc-cache"))
    clean, written = build(copy / config.name, cache=False)
    assert written is not None
    want, got = dist_bytes(copy / "dist"), dist_bytes(config.parent / "dist")
    assert {rel: got.get(rel) for rel in want} == want
    assert all(is_object(rel) for rel in got.keys() - want.keys())
    assert [d.format() for d in result.diagnostics] == [d.format() for d in clean.diagnostics]
    assert result.summary == clean.summary


def reads(monkeypatch) -> list[str]:
    seen: list[str] = []
    real = readinput.read_input

    def spy(entry, rel, *args):
        seen.append(rel)
        return real(entry, rel, *args)

    monkeypatch.setattr("skillc.stages.discover.read_input", spy)
    return seen


def test_a_body_edit_reads_and_checks_that_file_alone(tree, tmp_path, monkeypatch):
    target = served(tree)[3]
    target.write_text(target.read_text() + "\nOne more line.\n")
    seen, parsed = reads(monkeypatch), []
    real = skills_stage.check_skill
    monkeypatch.setattr(
        "skillc.incremental.edit.check_skill", lambda src: parsed.append(src.command) or real(src)
    )
    result, written = build(tree)
    assert result.cache.edited and written.written
    assert seen == [target.relative_to(tree.parent).as_posix()] and len(parsed) == 1
    assert result.cache.rendered == 0  # a body is in no catalog
    same_as_clean(tree, tmp_path, result)
    again, written = build(tree)  # what the edit build recorded lets the next no-op be quick
    assert again.cache.quick and not written.written


def test_a_description_edit_renders_the_catalogs_that_list_it(tree, tmp_path):
    target = served(tree)[5]
    target.write_text(target.read_text().replace("description: ", "description: Changed. ", 1))
    result, _ = build(tree)
    assert result.cache.edited and result.cache.rendered >= 1 and result.cache.measured == 1
    same_as_clean(tree, tmp_path, result)


@pytest.mark.parametrize("how", ["bytes", "mode"])
def test_a_resource_edit_is_an_edit_build(tree, tmp_path, how):
    resource = next(p for f in served(tree) for p in sorted(f.parent.rglob("*")) if p.is_file() and p != f)
    if how == "bytes":
        resource.write_bytes(resource.read_bytes() + b"\nmore\n")
    else:
        resource.chmod(resource.stat().st_mode ^ 0o111)
    result, _ = build(tree)
    assert result.cache.edited and result.cache.checked == 1  # discover reads the skill again
    same_as_clean(tree, tmp_path, result)


def test_edits_in_a_row_each_start_from_the_last(tree, tmp_path):
    for i, target in enumerate(served(tree)[:6]):
        target.write_text(target.read_text() + f"\nEdit {i}.\n")
        if i % 2:
            target.write_text(target.read_text().replace("description: ", f"description: Now {i}. ", 1))
        result, _ = build(tree)
        assert result.cache.edited
    same_as_clean(tree, tmp_path, result)


def test_a_save_through_a_new_file_and_a_rename_is_an_edit_build(tree, tmp_path):
    """What editors that save atomically do: the folder's stat data moves, its entries do not."""
    target = served(tree)[2]
    temporary = target.with_name(".SKILL.md.swp")
    temporary.write_text(target.read_text() + "\nSaved atomically.\n")
    os.replace(temporary, target)
    result, _ = build(tree)
    assert result.cache.edited
    same_as_clean(tree, tmp_path, result)


def test_a_folder_listed_in_another_order_is_the_same_folder(tree, tmp_path, monkeypatch):
    """A rename over a name may move it in the order the system lists a folder (tmpfs does)."""
    target = served(tree)[2]
    temporary = target.with_name("sedXYZ")
    temporary.write_text(target.read_text() + "\nSaved by sed -i.\n")
    os.replace(temporary, target)
    real = os.listdir
    monkeypatch.setattr(os, "listdir", lambda where: real(where)[::-1])
    result, _ = build(tree)
    assert result.cache.edited
    same_as_clean(tree, tmp_path, result)


def test_a_touched_file_is_read_and_the_build_replayed(tree):
    target = served(tree)[1]
    target.write_bytes(target.read_bytes())
    result, written = build(tree)
    assert result.cache.replayed and not result.cache.edited and not written.written
    again, _ = build(tree)
    assert again.cache.quick


def declined(config: Path, tmp_path: Path, why: str, **options) -> None:
    result, written = build(config, **options)
    assert not (result.cache and result.cache.edited)
    assert not (result.cache and result.cache.declined.startswith("internal error"))
    if why:
        assert result.cache.declined == why, result.cache
    if written is not None:
        same_as_clean(config, tmp_path, result)


@pytest.mark.parametrize("how", ["added", "removed", "renamed"])
def test_a_file_added_removed_or_renamed_in_a_skill_is_an_edit_build(tree, tmp_path, how):
    """discover says what the skill's files are now: a resource more, one fewer, or another."""
    target = served(tree)[0]
    notes = target.parent / "notes.md"
    if how == "added":
        notes.write_text("New notes.\n")
        target.write_text(target.read_text() + "\nSee notes.md.\n")
    else:
        resource = next(
            p for f in served(tree) for p in sorted(f.parent.rglob("*")) if p.is_file() and p != f
        )
        if how == "removed":
            resource.unlink()
        else:
            resource.rename(resource.with_name("renamed-" + resource.name))
    result, _ = build(tree)
    assert result.cache.edited, result.cache.declined
    same_as_clean(tree, tmp_path, result)


def test_an_overlay_edit_goes_to_the_cached_build(tree, tmp_path):
    overlay = next(tree.parent.glob("personas/*/skill-overlays/**/*.md"))
    overlay.write_text(overlay.read_text() + "\nAlso this.\n")
    declined(tree, tmp_path, "a file of the personas")


def test_a_shadowed_skill_edit_goes_to_the_cached_build(tree, tmp_path):
    a, b = tree.parent / "skills" / "src-a", tree.parent / "skills" / "src-b"
    shadowed = next(
        f for f in sorted(a.glob("**/SKILL.md")) if (b / f.parent.relative_to(a) / "SKILL.md").exists()
    )
    shadowed.write_text(shadowed.read_text() + "\nNot served.\n")
    declined(tree, tmp_path, "a skill the last build did not serve")


def test_a_renamed_skill_goes_to_the_cached_build(tree, tmp_path):
    target = served(tree)[4]
    text = target.read_text()
    name = target.parent.name
    target.write_text(text.replace(f"name: {name}", f"name: {name}-x", 1))
    # The name does not match its folder: an error, reported as a clean build reports it.
    declined(tree, tmp_path, "the edit reaches beyond the skill")


@pytest.mark.parametrize(
    "rules",
    ["optional: true", "depth: 3", "duplicates: last-wins", "git_ignored: true", "skip_folders: []"],
)
def test_a_source_with_discovery_rules_is_edited(tree, tmp_path, rules):
    """Edit builds ask discover, which knows every rule of a source: a config whose sources have
    rules of their own is edited as any other, with what a clean build makes."""
    text = tree.read_text()
    tree.write_text(re.sub(r"^  - skills/src-b$", f"  - path: skills/src-b\n    {rules}", text, flags=re.M))
    assert tree.read_text() != text
    build(tree)
    target = served(tree)[-2]
    target.write_text(target.read_text() + "\nOne more line.\n")
    result, _ = build(tree)
    assert result.cache.edited, result.cache.declined
    same_as_clean(tree, tmp_path, result)


def test_a_label_is_edited(tree, tmp_path):
    """A skill given a label (a name that is not its id), and the label taken away again, are edit
    builds: the catalog rows keep each listed skill's label (stages/catalog.row). No `settle`
    between the builds: each edit build takes its stamp after the newest change it found and
    records the walk it made (incremental/edit.py `_stamp`), so the next one always has a walk to
    start from, however soon the next edit comes (on main this test once failed under load when a
    build's walk was not recorded)."""
    target, other = served(tree)[4], served(tree)[7]
    labelled = re.sub(
        r"^name: .*$", "name: Shown As\n# skillc: ignore[SKC219]", target.read_text(), flags=re.M
    )
    plain = target.read_text()
    for text in (labelled, None, plain):
        if text is None:
            other.write_text(other.read_text() + "\nMore.\n")
        else:
            target.write_text(text)
        result, _ = build(tree)
        assert result.cache.edited, result.cache.declined
        same_as_clean(tree, tmp_path, result)
    target.write_text(labelled)
    result, _ = build(tree)
    assert result.cache.edited, result.cache.declined
    source = tree.parent / "skills" / target.relative_to(tree.parent / "skills").parts[0]
    command = target.parent.relative_to(source).as_posix()
    assert reader.open(tree.parent / "dist").skill_meta(command).label == "Shown As"


def test_an_error_goes_to_the_cached_build_and_leaves_the_output(tree, tmp_path):
    dist = tree.parent / "dist"
    before = dist_bytes(dist)
    target = served(tree)[6]
    target.write_text(target.read_text().replace("name: ", "name: [", 1))
    result, written = build(tree)
    assert written is None and not result.ok and dist_bytes(dist) == before
    target.write_text(target.read_text().replace("name: [", "name: ", 1))
    declined(tree, tmp_path, "")  # the failed build recorded nothing: the content path, not an edit


def test_prune_goes_to_the_cached_build(tree, tmp_path):
    target = served(tree)[7]
    target.write_text(target.read_text() + "\nPruned.\n")
    declined(tree, tmp_path, "", prune=True)  # never tried: --prune removes what only a full build knows


@pytest.mark.parametrize("damage", ["carry", "catalog", "index", "shard"])
def test_a_damaged_start_goes_to_the_cached_build(tree, tmp_path, damage):
    root = tree.parent
    if damage == "carry":
        (root / ".skillc-cache" / carry_mod.NAME).write_text("not signed\n")
    elif damage == "catalog":
        (root / ".skillc-cache" / carry_mod.CATALOG).write_text("not signed\n")
    elif damage == "index":
        index = root / "dist" / "_index.json"
        index.write_bytes(index.read_bytes().replace(b'"format"', b'"format" ', 1))
    else:  # every shard, edited in place
        for obj in (root / "dist" / "objects").rglob("*"):
            if obj.is_file() and b'"shard": "' in obj.read_bytes():
                obj.write_bytes(obj.read_bytes() + b" ")
    target = served(tree)[8]
    target.write_text(target.read_text().replace("description: ", "description: Damaged. ", 1))
    result, written = build(tree)
    assert written is not None
    why = {
        "carry": "no carry for the recorded build",
        "catalog": "no catalog rows",
        "index": "the output is not the one recorded",
        "shard": "an object in the output was changed",
    }
    assert not result.cache.edited and result.cache.declined == why[damage]
    if damage != "shard":  # an object edited in place is check's to find (docs/cache.md)
        same_as_clean(tree, tmp_path, result)


# Runs `skillc build` in a new process, killed with SIGKILL at the chosen call (counted across both)
# of write._put (each file the write puts into the output) and of the cache's write_signed (each
# file the build keeps in .skillc-cache/), or prints how many there were.
KILLER = """
import atexit, os, signal, sys
from skillc.incremental import edit
from skillc.incremental import carry, records
from skillc.output import write

config, at = sys.argv[1], int(sys.argv[2])
calls = [0]

def counted(real):
    def call(*args):
        calls[0] += 1
        if calls[0] == at:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(*args)
    return call

write._put = counted(write._put)
records.write_signed = counted(records.write_signed)
carry.write_signed = counted(carry.write_signed)
made = []
real_edit = edit.edit_build
edit.edit_build = lambda early: made.append(real_edit(early)) or made[-1]
if at == 0:
    atexit.register(lambda: print(calls[0], "edited" if made and not isinstance(made[-1], str) else made))
from skillc.cli import main
sys.argv = ["skillc", "build", "-q", "--config", config]
main()
"""


def killed(config: Path, at: int, xdg: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "XDG_CACHE_HOME": str(xdg)}
    return subprocess.run(
        [sys.executable, "-c", KILLER, str(config), str(at)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def _edited_tree(root: Path, xdg: Path, monkeypatch) -> Path:
    """A tree of its own, built (and recorded) in a cache of its own, then one description edited:
    what the next build makes as an edit build. A tree copied back after a kill would not do: its
    folders and files are new to the record, and the build then declines to the cached build."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(xdg))
    generate(root, 30, n_personas=4, seed=5)
    config = root / "skillc.yaml"
    settle(root)
    build(config)
    target = served(config)[9]
    target.write_text(target.read_text().replace("description: ", "description: Killed. ", 1))
    return config


def served_whole(got: dict[str, bytes], before: dict[str, bytes], after: dict[str, bytes], at: int) -> None:
    """What a reader is served (the index and the objects it names) is one build whole: the
    previous one, or the new one."""
    build_ = before if got["_index.json"] == before["_index.json"] else after
    assert got["_index.json"] == build_["_index.json"], at
    objects = {rel: data for rel, data in build_.items() if is_object(rel)}
    assert {rel: got.get(rel) for rel in objects} == objects, at


def test_sigkill_at_any_write_of_an_edit_build_leaves_a_build_the_next_one_repairs(tmp_path, monkeypatch):
    config = _edited_tree(tmp_path / "counted", tmp_path / "xdg-counted", monkeypatch)
    counted = killed(config, 0, tmp_path / "xdg-counted")
    assert counted.returncode == 0, counted.stderr
    writes, how = counted.stdout.split()[-2:]
    assert how == "edited" and int(writes) > 4  # the build the kills land in is an edit build
    want = dist_bytes(config.parent / "dist")
    for at in range(1, int(writes) + 1):
        xdg = tmp_path / f"xdg-{at}"
        tree = _edited_tree(tmp_path / f"t{at}", xdg, monkeypatch)
        before = dist_bytes(tree.parent / "dist")
        done = killed(tree, at, xdg)
        assert done.returncode == -signal.SIGKILL, (at, done.stderr)
        served_whole(dist_bytes(tree.parent / "dist"), before, want, at)
        result, written = build(tree)  # an edit build again, or the cached build: the new bytes
        assert written is not None, at
        got = dist_bytes(tree.parent / "dist")
        assert {rel: got.get(rel) for rel in want} == want, at
        again, _ = build(tree)
        assert again.cache.replayed, at
        same_as_clean(tree, tmp_path, result)
        shutil.rmtree(tree.parent)


def test_an_edited_ignore_file_goes_to_the_cached_build(tree, tmp_path):
    """Its rules reach other files of the skill, and other skills below it."""
    skill = served(tree)[3].parent
    (skill / "notes.log").write_text("kept until ignored\n")
    (skill / ".gitignore").write_text("# nothing yet\n")
    settle(tree.parent)  # the build records the walk only when it is older than its stamp
    build(tree)
    (skill / ".gitignore").write_text("*.log\n")
    declined(tree, tmp_path, "an ignore file")


def test_an_output_another_build_wrote_meanwhile_is_not_recorded(tree, tmp_path, monkeypatch):
    """The lock is released after the write: a build of other sources may commit its index after."""
    index = tree.parent / "dist" / "_index.json"
    old = index.read_bytes()
    real = edit_mod.write_delta

    def then_another(dist, files, objects, previous):
        done = real(dist, files, objects, previous)
        index.write_bytes(old)  # what a build that started before this one would leave
        return done

    monkeypatch.setattr(edit_mod, "write_delta", then_another)
    target = served(tree)[4]
    target.write_text(target.read_text() + "\nRaced.\n")
    result, _ = build(tree)
    assert result.cache.edited
    monkeypatch.undo()
    again, _ = build(tree)
    assert not again.cache.quick  # not recorded: the next build sees an output it did not record
    same_as_clean(tree, tmp_path, again)


def test_an_edit_build_records_the_output_folders_as_a_scan_finds_them(tree, tmp_path):
    """The folders it wrote into stat'ed again, the others as recorded: what a scan would record."""
    new_skill(tree.parent / "skills" / "src-a" / "brand-new", "brand-new")
    result, _ = build(tree)
    assert result.cache.edited
    dist = tree.parent / "dist"
    present = {p.relative_to(dist).as_posix(): [] for p in dist.rglob("*") if p.is_file()}
    assert records_of(tree).record().quick.dirs == output_signature(dist, present, ()).dirs


def test_an_output_folder_changed_during_an_edit_build_is_not_recorded_as_current(
    tree, tmp_path, monkeypatch
):
    """A folder the edit build did not write into keeps its recorded stat data: a change made to it
    by something else while the build ran is for the next build to see, not to record."""
    real = edit_mod.write_delta
    objects = tree.parent / "dist" / "objects"

    def and_something_else(dist, files, objects_, previous):
        done = real(dist, files, objects_, previous)
        untouched = sorted(
            d for d in objects.iterdir() if not any(rel.startswith(f"objects/{d.name}/") for rel in files)
        )
        os.chmod(untouched[0], 0o700)  # its ctime moves, its listing does not
        return done

    monkeypatch.setattr(edit_mod, "write_delta", and_something_else)
    target = served(tree)[3]
    target.write_text(target.read_text() + "\nEdited.\n")
    assert build(tree)[0].cache.edited
    monkeypatch.undo()
    again, _ = build(tree)
    assert not again.cache.quick
    same_as_clean(tree, tmp_path, again)
    assert build(tree)[0].cache.quick


def test_a_template_that_fails_on_an_edit_is_reported_as_the_stages_report_it(tree, tmp_path):
    template = tree.parent / "templates" / "fails.md.j2"
    template.parent.mkdir(exist_ok=True)
    template.write_text(
        "{% macro entry(skill) %}- {{ skill.description.split('(')[1] }}\n{% endmacro %}"
        "{% for s in skills %}{{ entry(s) }}{% endfor %}"
    )
    for f in served(tree):
        f.write_text(
            re.sub(
                r"^description: .*$", "description: With (a parenthesis).", f.read_text(), count=1, flags=re.M
            )
        )
    tree.write_text(tree.read_text() + "template: templates/fails.md.j2\n")
    first, written = build(tree)
    assert written is not None, [d.format() for d in first.diagnostics]
    for f in served(tree):  # some catalog lists one of them: it is rendered again, and fails
        f.write_text(f.read_text().replace("With (a parenthesis).", "Without one.", 1))
    result, written = build(tree)
    assert written is None and result.cache.declined == "the template failed"
    assert any(d.code == "SKC104" for d in result.diagnostics)


def test_a_touch_keeps_the_output_signature(tree):
    target = served(tree)[1]
    target.write_bytes(target.read_bytes())
    before = records_of(tree).record().quick
    settle(tree.parent)  # the build records the walk only when it is older than its stamp
    build(tree)
    after = records_of(tree).record().quick
    assert after.extra == before.extra and after.dirs == before.dirs and after.files == before.files


def test_a_folder_touched_after_an_edit_build_is_replayed_without_a_read(tree, monkeypatch):
    target = served(tree)[2]
    target.write_text(target.read_text() + "\nEdited.\n")
    assert build(tree)[0].cache.edited
    (target.parent / "scratch.tmp").write_text("x")
    (target.parent / "scratch.tmp").unlink()
    seen = reads(monkeypatch)
    result, written = build(tree)
    assert result.cache.replayed and not written.written and seen == []
    assert build(tree)[0].cache.quick


def new_skill(folder: Path, name: str) -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Added after the build.\n---\nNew {name}.\n"
    )
    (folder / "references").mkdir()
    (folder / "references" / "guide.md").write_text("A guide.\n")


def test_an_added_skill_is_an_edit_build(tree, tmp_path):
    new_skill(tree.parent / "skills" / "src-a" / "brand-new", "brand-new")
    result, written = build(tree)
    assert result.cache.edited and written.written and result.cache.checked == 1
    same_as_clean(tree, tmp_path, result)
    assert build(tree)[0].cache.quick
    target = tree.parent / "skills" / "src-a" / "brand-new" / "SKILL.md"
    target.write_text(target.read_text() + "\nThen edited.\n")
    again, _ = build(tree)
    assert again.cache.edited
    same_as_clean(tree, tmp_path, again)


def test_an_edit_build_keeps_the_report_its_diagnostics_are_and_writes_one_they_are_not(tree, tmp_path):
    """report.json and rows.json are written again only when the diagnostics changed; head.json
    names the build whose files hold them, and the next no-op replays what a clean build reports."""
    report = tree.parent / ".skillc-cache" / "report.json"
    rows = report.with_name("rows.json")
    kept = {f: (f.read_bytes(), f.stat().st_ino) for f in (report, rows)}  # a write renames a new file
    target = served(tree)[0]
    target.write_text(target.read_text() + "\nEdited.\n")
    result, _ = build(tree)
    assert result.cache.edited
    assert {f: (f.read_bytes(), f.stat().st_ino) for f in kept} == kept
    replayed, _ = build(tree)
    assert replayed.cache.quick
    same_as_clean(tree, tmp_path, replayed)

    folder = tree.parent / "skills" / "src-a" / "brand-new"
    new_skill(folder, "brand-new")
    skill_md = folder / "SKILL.md"
    skill_md.write_text(skill_md.read_text().replace("name:", "colour: blue\nname:", 1))
    result, _ = build(tree)
    assert result.cache.edited and any(d.code == "SKC205" for d in result.diagnostics)
    assert report.read_bytes() != kept[report][0] and rows.read_bytes() != kept[rows][0]
    replayed, _ = build(tree)
    assert replayed.cache.quick and any(d.code == "SKC205" for d in replayed.diagnostics)
    same_as_clean(tree, tmp_path, replayed)


def outputs_as_recorded(config: Path) -> bool:
    """The record's output files (outputs.json with its journal) have the stat data they have now;
    every other file in the output is an object the build stopped using."""
    dist = config.parent / "dist"
    now = {p.relative_to(dist).as_posix(): output_stat(os.lstat(p)) for p in dist.rglob("*") if p.is_file()}
    recorded = records_of(config).outputs()
    return (
        recorded is not None
        and {rel: now.get(rel) for rel in recorded} == recorded
        and all(is_object(rel) for rel in now.keys() - recorded.keys())
    )


def test_an_edit_build_records_the_output_as_it_is(tree, tmp_path):
    """outputs.json, written again by each edit build, is the output as it is: the next build
    replays."""
    new_skill(tree.parent / "skills" / "src-a" / "brand-new", "brand-new")
    assert build(tree)[0].cache.edited
    target = served(tree)[2]
    target.write_text(target.read_text() + "\nThen edited.\n")
    result, _ = build(tree)
    assert result.cache.edited
    same_as_clean(tree, tmp_path, result)
    assert outputs_as_recorded(tree)
    assert build(tree)[0].cache.quick


def away_and_back(config: Path, how: str) -> None:
    """A change built, then the sources as they were before it."""
    if how == "an edit undone":  # the file as it was, as `git checkout` leaves it
        target = served(config)[4]
        text = target.read_text()
        target.write_text(text + "\nFor a moment.\n")
        assert build(config)[0].cache.edited
        target.write_text(text)
    else:
        folder = config.parent / "skills" / "src-a" / "brand-new"
        new_skill(folder, "brand-new")
        assert build(config)[0].cache.edited
        shutil.rmtree(folder)


@pytest.mark.parametrize("how", ["an edit undone", "a skill added and removed"])
def test_a_build_back_at_an_earlier_key_keeps_the_record_of_the_files_it_rewrote(tree, tmp_path, how):
    """The second build has the key of the full build before the first, yet both rewrote files since
    (a shard, the personas' prompts). The record read after it is the output as it is, so the
    builds that follow still replay (a stale record cost the no-op after the next edit a full
    compile)."""
    before = records_of(tree).record()
    away_and_back(tree, how)
    result, _ = build(tree)
    assert result.cache.edited and records_of(tree).record().build_key == before.build_key
    assert outputs_as_recorded(tree)
    other = served(tree)[7]
    other.write_text(other.read_text() + "\nThen this.\n")
    assert build(tree)[0].cache.edited
    replayed, written = build(tree)
    assert replayed.cache.quick and not written.written
    same_as_clean(tree, tmp_path, replayed)


def walk_now(config: Path) -> walk_mod.Walk:
    """What a build now would record of discover's walk of the tree."""
    from skillc.incremental.session import walk_tops
    from skillc.project import config as config_mod
    from skillc.stages.discover import discover
    from skillc.stages.seen import Seen

    loaded, _ = config_mod.load(config)
    assert loaded is not None
    tops = walk_tops(loaded)
    roots = walk_mod.roots_now(tops)
    seen = Seen()
    found = discover(loaded, seen.listdir, seen.lstat)
    assert roots is not None
    walk = walk_mod.recorded(
        seen, tops, roots, 2**63 - 1, [str(config.parent / rel) for rel in found.ignore_files]
    )
    assert walk is not None
    return walk


def test_edit_builds_in_a_row_record_the_walk_a_whole_walk_records(tree, tmp_path):
    """After each edit build the recorded walk is discover's walk of the tree as it is: the same
    paths with the same stat data, the same folders listing the same names."""
    src = tree.parent / "skills" / "src-a"
    doomed = unnamed(tree)
    steps = [
        lambda: new_skill(src / "brand-new", "brand-new"),
        lambda: served(tree)[3].write_text(served(tree)[3].read_text() + "\nEdited.\n"),
        lambda: shutil.rmtree(doomed[0].parent),
        lambda: new_skill(src / "another-new", "another-new"),
        lambda: shutil.rmtree(src / "brand-new"),
    ]
    for step in steps:
        step()
        result, _ = build(tree)
        assert result.cache.edited, result.cache.declined
        walk, now = records_of(tree).walk(), walk_now(tree)
        assert walk is not None and (walk.paths, walk.names, walk.root_names) == (
            now.paths,
            now.names,
            now.root_names,
        )
        assert walk.stats == now.stats and walk.roots == now.roots
        assert build(tree)[0].cache.quick
    same_as_clean(tree, tmp_path, build(tree)[0])


@pytest.mark.parametrize("damage", ["outputs.json", "walk.json", "carry.json", "carry-catalog.json"])
def test_a_damaged_record_or_journal_costs_a_build_its_shortcut_not_its_answer(tree, tmp_path, damage):
    new_skill(tree.parent / "skills" / "src-a" / "brand-new", "brand-new")
    assert build(tree)[0].cache.edited
    cache = tree.parent / ".skillc-cache"
    (cache / damage).write_text("not signed\n")
    target = served(tree)[5]
    target.write_text(target.read_text() + "\nAfter the damage.\n")
    result, written = build(tree)
    assert written is not None
    same_as_clean(tree, tmp_path, result)
    again, _ = build(tree)  # whatever the build above recorded, this one is the clean build's
    same_as_clean(tree, tmp_path, again)
    assert build(tree)[0].cache.quick


def top_level(config: Path) -> list[Path]:
    """Served leaves just below their source: removing one moves no parent's children."""
    return [f for f in served(config) if f.parent.parent.name.startswith("src-")]


def unnamed(config: Path) -> list[Path]:
    """Top-level leaves no persona names, nor anything like them (no "did you mean" reaches them)."""
    named = " ".join(
        p.read_text(errors="replace") + str(p) for p in (config.parent / "personas").rglob("*") if p.is_file()
    )
    return [f for f in top_level(config) if f.parent.name.rsplit("-", 1)[0] not in named]


def test_a_removed_skill_is_an_edit_build(tree, tmp_path):
    shutil.rmtree(unnamed(tree)[0].parent)
    result, written = build(tree)
    assert result.cache.edited and written.written
    same_as_clean(tree, tmp_path, result)
    assert build(tree)[0].cache.quick


def test_a_renamed_skill_is_an_edit_build(tree, tmp_path):
    old = unnamed(tree)[1].parent
    new = old.with_name(old.name + "-renamed")
    old.rename(new)
    text = (new / "SKILL.md").read_text()
    (new / "SKILL.md").write_text(text.replace(f"name: {old.name}\n", f"name: {new.name}\n", 1))
    result, _ = build(tree)
    assert result.cache.edited
    same_as_clean(tree, tmp_path, result)


def test_a_skill_added_inside_another_goes_to_the_cached_build(tree, tmp_path):
    new_skill(served(tree)[8].parent / "inner", "inner")
    declined(tree, tmp_path, "a parent or child skill")


def test_a_skill_a_persona_names_goes_to_the_cached_build(tree, tmp_path):
    persona = next((tree.parent / "personas").glob("*/manifest.yaml")).parent
    (persona / "skill-overlays").mkdir(exist_ok=True)
    (persona / "skill-overlays" / "named-later.md").write_text("An overlay for a skill to come.\n")
    settle(tree.parent)  # the build records the walk only when it is older than its stamp
    build(tree)
    new_skill(tree.parent / "skills" / "src-a" / "named-later", "named-later")
    declined(tree, tmp_path, "a persona names the skill, or one like it")


def test_a_skill_like_one_a_persona_names_goes_to_the_cached_build(tree, tmp_path):
    """An overlay for a skill that is not there says "did you mean" with the closest commands."""
    persona = next((tree.parent / "personas").glob("*/manifest.yaml")).parent
    (persona / "skill-overlays").mkdir(exist_ok=True)
    (persona / "skill-overlays" / "reconcile-widgets.md").write_text("For a skill not written yet.\n")
    settle(tree.parent)  # the build records the walk only when it is older than its stamp
    build(tree)
    new_skill(tree.parent / "skills" / "src-a" / "reconcile-widget", "reconcile-widget")
    declined(tree, tmp_path, "a persona names the skill, or one like it")
    new_skill(tree.parent / "skills" / "src-a" / "unrelated-thing", "unrelated-thing")
    result, _ = build(tree)
    assert result.cache.edited  # far from every name a persona looks up
    same_as_clean(tree, tmp_path, result)


def records_of(config: Path):
    from skillc.incremental.quick import FORMAT, fingerprint
    from skillc.incremental.records import Records
    from skillc.incremental.store import load_key

    return Records(config.parent / ".skillc-cache", load_key(), fingerprint(), FORMAT)


def test_with_targets_a_skill_added_or_removed_keeps_names_apart(tree, tmp_path):
    """`targets:` report skills that share a `name`: an add or a removal that would change that
    report goes to the stages; one that would not is an edit build."""
    tree.write_text(tree.read_text() + "targets: [claude-code, codex]\n")
    settle(tree.parent)  # the build records the walk only when it is older than its stamp
    build(tree)
    new_skill(tree.parent / "skills" / "src-a" / "quite-new", "quite-new")
    result, _ = build(tree)
    assert result.cache.edited
    same_as_clean(tree, tmp_path, result)
    taken = unnamed(tree)[2].parent.name
    new_skill(tree.parent / "skills" / "src-a" / "same-name-folder", taken)  # a name another has
    declined(tree, tmp_path, "a name another skill has")
    shutil.rmtree(unnamed(tree)[3].parent)
    result, _ = build(tree)
    assert result.cache.edited
    same_as_clean(tree, tmp_path, result)


def test_two_skills_added_at_once_are_held_to_each_other(tree, tmp_path):
    """Each is held to the other's command too (case, sanitized id, look-alike: discover.Across)."""
    new_skill(tree.parent / "skills" / "src-a" / "c1ip-z", "c1ip-z")
    new_skill(tree.parent / "skills" / "src-a" / "clip-z", "clip-z")
    declined(tree, tmp_path, "a command another folder has, or one like another")
    shutil.rmtree(tree.parent / "skills" / "src-a" / "c1ip-z")
    build(tree)
    new_skill(tree.parent / "skills" / "src-a" / "first-of-two", "first-of-two")
    new_skill(tree.parent / "skills" / "src-b" / "second-of-two", "second-of-two")
    result, _ = build(tree)
    assert result.cache.edited, result.cache.declined
    same_as_clean(tree, tmp_path, result)


def test_a_new_folder_whose_name_is_not_ascii_goes_to_the_cached_build(tree, tmp_path):
    """discover names a skill by its folder's NFC form; the folder on disk may be NFD."""
    name = unicodedata.normalize("NFD", "café")
    new_skill(tree.parent / "skills" / "src-a" / name, unicodedata.normalize("NFC", "café"))
    declined(tree, tmp_path, "discover reports something there, or walks it only with its source")


def test_a_skill_md_below_a_hidden_folder_is_no_command(tree, tmp_path):
    """It is a resource of the skill around it: it neither blocks an add as a child skill nor
    counts among the commands a "did you mean" picks from."""
    kit = unnamed(tree)[4].parent
    (kit / ".drafts").mkdir()
    (kit / ".drafts" / "SKILL.md").write_text("---\nname: drafts\ndescription: A draft.\n---\nDraft.\n")
    settle(tree.parent)  # the build records the walk only when it is older than its stamp
    build(tree)
    shutil.rmtree(kit)
    result, _ = build(tree)
    assert result.cache.edited
    same_as_clean(tree, tmp_path, result)


def test_a_file_made_in_a_new_skill_while_it_is_listed_is_seen_by_the_next_build(tree, tmp_path, monkeypatch):
    """The edit build records a new skill folder's stat data as discover took it, before its entries:
    a file made in it after it was listed (a copy still running) moves it past the record, and the
    next build lists it again; the other way round, it would record the folder with the file and the
    entries without it, and never see the file again."""
    from skillc.stages.seen import Seen

    folder = tree.parent / "skills" / "src-a" / "brand-new"
    real_listdir = Seen.listdir

    def then_a_file(self: Seen, path: str) -> list[str]:
        found = real_listdir(self, path)
        if path == str(folder) and not (folder / "notes.md").exists():
            (folder / "notes.md").write_text("Notes, first.\n")
        return found

    monkeypatch.setattr(Seen, "listdir", then_a_file)
    new_skill(folder, "brand-new")
    result, _ = build(tree)
    assert result.cache.edited
    (folder / "notes.md").write_text("Notes, second.\n")
    result, written = build(tree)
    assert not result.cache.quick and written.written
    same_as_clean(tree, tmp_path, result)


def test_the_folders_are_listed_once_the_clock_has_moved_past_their_change(tree, tmp_path, monkeypatch):
    """A folder is listed after a stamp later than the ctime it is recorded with, as the walk lists
    them: changed again after the listing within the clock's tick of that ctime, it would keep it,
    and the record would vouch for entries it does not hold. Here the first stamp is in that tick."""
    source = tree.parent / "skills" / "src-a"
    new_skill(source / "brand-new", "brand-new")
    changed = source.stat().st_ctime_ns
    real, stamps = edit_mod.stamp_now, []

    def coarse(directory):
        stamps.append(1)
        return changed if len(stamps) == 1 else real(directory)

    monkeypatch.setattr(edit_mod, "stamp_now", coarse)
    result, _ = build(tree)
    assert result.cache.edited and len(stamps) >= 2  # taken again, past the source's change
    same_as_clean(tree, tmp_path, result)


def test_a_new_folder_as_new_as_the_stamp_is_read_again_after_a_later_one(tree, tmp_path, monkeypatch):
    """A clock that has not moved on since the new skill's folder was made: the folder may change
    again, after it is listed, with the ctime it is recorded with; so it is listed and read again
    after a stamp past it."""
    folder = tree.parent / "skills" / "src-a" / "brand-new"
    new_skill(folder, "brand-new")
    time.sleep(0.02)  # the folder changed a tick after its source (which the stamp must pass)
    os.utime(folder)
    real, stamps = edit_mod.stamp_now, []

    def coarse(directory):
        stamps.append(1)
        return folder.stat().st_ctime_ns if len(stamps) == 1 else real(directory)

    monkeypatch.setattr(edit_mod, "stamp_now", coarse)
    result, _ = build(tree)
    assert result.cache.edited and len(stamps) >= 2
    same_as_clean(tree, tmp_path, result)


@pytest.fixture
def tight(tmp_path) -> Path:
    """A tree whose catalogs leave most skills out (the budget holds a few entries)."""
    generate(tmp_path / "t", 60, n_personas=4, seed=7)
    config = tmp_path / "t" / "skillc.yaml"
    config.write_text(re.sub(r"catalog_chars: \d+", "catalog_chars: 2500", config.read_text()))
    settle(config.parent)
    build(config)
    return config


def packs(monkeypatch) -> list[str]:
    """The personas whose catalog an edit build packs again (the others keep their packing)."""
    packed: list[str] = []
    real = edit_mod.persona_catalog

    def spy(config, program, persona, *args):
        packed.append(persona.id)
        return real(config, program, persona, *args)

    monkeypatch.setattr(edit_mod, "persona_catalog", spy)
    return packed


def left_out_everywhere(config: Path) -> list[Path]:
    """Served SKILL.md files of skills every catalog leaves out (or does not list), last first."""
    import json

    dist = config.parent / "dist"
    index = json.loads((dist / "_index.json").read_text())
    taken = set()
    for entry in index["personas"].values():
        meta = json.loads((dist / object_path(entry["meta"])).read_text())
        taken.update(meta["included"])
    root = config.parent / "skills"
    return [
        f
        for f in reversed(served(config))
        if f.parent.relative_to(f.parent.parents[1]).as_posix() not in taken and root in f.parents
    ]


def test_a_left_out_skill_described_anew_keeps_every_packing(tight, tmp_path, monkeypatch):
    target = left_out_everywhere(tight)[0]
    text = target.read_text()
    target.write_text(text.replace("description: ", "description: Longer now, and left out still. ", 1))
    packed = packs(monkeypatch)
    result, _ = build(tight)
    assert result.cache.edited and result.cache.rendered and packed == []
    same_as_clean(tight, tmp_path, result)


def test_a_left_out_skill_added_then_removed_keeps_every_packing(tight, tmp_path, monkeypatch):
    """The catalogs say one more skill is left out, then one fewer, without a packing made again."""
    folder = tight.parent / "skills" / "src-a" / "zz-added-last"
    new_skill(folder, "zz-added-last")
    packed = packs(monkeypatch)
    result, _ = build(tight)
    assert result.cache.edited and result.cache.rendered and packed == []
    same_as_clean(tight, tmp_path, result)
    shutil.rmtree(folder)
    result, _ = build(tight)
    assert result.cache.edited and result.cache.rendered and packed == []
    same_as_clean(tight, tmp_path, result)


def included(config: Path) -> dict[str, list[str]]:
    import json

    dist = config.parent / "dist"
    index = json.loads((dist / "_index.json").read_text())
    metas = {
        pid: json.loads((dist / object_path(e["meta"])).read_text()) for pid, e in index["personas"].items()
    }
    return {pid: meta["included"] for pid, meta in metas.items()}


def test_a_skill_that_may_fit_now_or_was_included_changes_the_packing(tight, tmp_path, monkeypatch):
    """First fit resumed where the change is (budget.refit) chooses what packing anew chooses."""
    packed = packs(monkeypatch)
    before = included(tight)
    first = served(tight)[0]  # in command order: in every catalog that lists it
    first.write_text(first.read_text().replace("description: ", "description: Now longer. ", 1))
    result, _ = build(tight)
    assert result.cache.edited
    same_as_clean(tight, tmp_path, result)
    for target in left_out_everywhere(tight)[:8]:  # shorter: each may take room that was left
        target.write_text(re.sub(r"description: .*", "description: Short.", target.read_text(), count=1))
        result, _ = build(tight)
        assert result.cache.edited
        same_as_clean(tight, tmp_path, result)
    shutil.rmtree(served(tight)[0].parent)  # an included skill removed: the next may take its room
    result, _ = build(tight)
    assert result.cache.edited
    same_as_clean(tight, tmp_path, result)
    assert included(tight) != before and packed == []
