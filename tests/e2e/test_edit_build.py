"""Edit builds (compiler/incremental/edit.py): `skillc build` after files of served skills were edited in place,
made from what the last build left in the cache. Each case is compared with a build of a copy
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
from support.forks import split_lstats

from skillc import reader
from skillc.format.layout import is_object, object_path
from skillc.fs import output_stat
from skillc.incremental import carry as carry_mod
from skillc.incremental import edit as edit_mod
from skillc.incremental import lstats
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
    monkeypatch.setattr("skillc.incremental.edit.read_input", spy)
    return seen


def test_a_body_edit_reads_and_checks_that_file_alone(tree, tmp_path, monkeypatch):
    target = served(tree)[3]
    target.write_text(target.read_text() + "\nOne more line.\n")
    seen, parsed = reads(monkeypatch), []
    real = skills_stage.check_skill
    monkeypatch.setattr(
        "skillc.incremental.delta.check_skill", lambda src: parsed.append(src.command) or real(src)
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
    assert result.cache.edited and result.cache.checked == 0  # its SKILL.md was not read again
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
    real = edit_mod._scan

    def reversed_scan(where):
        names, kinds = real(where)
        return names[::-1], kinds[::-1]

    monkeypatch.setattr(edit_mod, "_scan", reversed_scan)
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


def test_a_new_file_in_a_skill_goes_to_the_cached_build(tree, tmp_path):
    target = served(tree)[0]
    (target.parent / "notes.md").write_text("New notes.\n")
    target.write_text(target.read_text() + "\nSee notes.md.\n")
    declined(tree, tmp_path, "a file added, removed or renamed")


def test_an_overlay_edit_goes_to_the_cached_build(tree, tmp_path):
    overlay = next(tree.parent.glob("personas/*/skill-overlays/**/*.md"))
    overlay.write_text(overlay.read_text() + "\nAlso this.\n")
    declined(tree, tmp_path, "a file outside the sources")


def test_a_shadowed_skill_edit_goes_to_the_cached_build(tree, tmp_path):
    a, b = tree.parent / "skills" / "src-a", tree.parent / "skills" / "src-b"
    shadowed = next(
        f for f in sorted(a.glob("**/SKILL.md")) if (b / f.parent.relative_to(a) / "SKILL.md").exists()
    )
    shadowed.write_text(shadowed.read_text() + "\nNot served.\n")
    declined(tree, tmp_path, "a file outside every served skill")


def test_a_renamed_skill_goes_to_the_cached_build(tree, tmp_path):
    target = served(tree)[4]
    text = target.read_text()
    name = target.parent.name
    target.write_text(text.replace(f"name: {name}", f"name: {name}-x", 1))
    # The name does not match its folder: an error, reported as a clean build reports it.
    declined(tree, tmp_path, "the edit reaches beyond the skill, or brings an error")


@pytest.mark.parametrize(
    "rules",
    ["optional: true", "depth: 3", "duplicates: last-wins", "git_ignored: true", "skip_folders: []"],
)
def test_a_source_with_discovery_rules_goes_to_the_cached_build(tree, tmp_path, rules):
    """Edit builds know skillc's own discovery only: a config whose sources have rules of their
    own keeps no config in the carry (carry._round_trips), and every edit build declines."""
    text = tree.read_text()
    tree.write_text(re.sub(r"^  - skills/src-b$", f"  - path: skills/src-b\n    {rules}", text, flags=re.M))
    assert tree.read_text() != text
    build(tree)
    target = served(tree)[2]
    target.write_text(target.read_text() + "\nOne more line.\n")
    declined(tree, tmp_path, "a config the carry cannot hold")


def test_a_label_goes_to_the_cached_build(tree, tmp_path):
    """An edit build renders catalogs from rows that keep a skill's id, not its label: an edit that
    gives a skill a label (a name that is not its id) is declined, and so is every edit build after
    a build that holds one, until the label is gone."""
    target, other = served(tree)[4], served(tree)[7]
    labelled = re.sub(
        r"^name: .*$", "name: Shown As\n# skillc: ignore[SKC219]", target.read_text(), flags=re.M
    )
    plain = target.read_text()
    target.write_text(labelled)
    declined(tree, tmp_path, "a skill with a label")
    source = tree.parent / "skills" / target.relative_to(tree.parent / "skills").parts[0]
    command = target.parent.relative_to(source).as_posix()
    assert reader.open(tree.parent / "dist").skill_meta(command).label == "Shown As"
    other.write_text(other.read_text() + "\nMore.\n")
    settle(tree.parent)  # so this build records its walk, and the next one reads a record
    declined(tree, tmp_path, "a config the carry cannot hold")
    target.write_text(plain)
    settle(tree.parent)  # the build records the walk only when it is older than its stamp
    declined(tree, tmp_path, "a config the carry cannot hold")
    other.write_text(other.read_text() + "\nMore again.\n")
    result, _ = build(tree)
    assert result.cache.edited, result.cache.declined  # no label left: edit builds again


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


def test_an_edit_build_journals_the_output_record_and_the_next_build_reads_it(tree, tmp_path):
    """outputs.json stays as the full build wrote it; outputs-edits.json holds what the edit builds
    changed since, and the record read with it is the output as it is."""
    whole = tree.parent / ".skillc-cache" / "outputs.json"
    kept = (whole.read_bytes(), whole.stat().st_ino)
    new_skill(tree.parent / "skills" / "src-a" / "brand-new", "brand-new")
    assert build(tree)[0].cache.edited
    target = served(tree)[2]
    target.write_text(target.read_text() + "\nThen edited.\n")
    result, _ = build(tree)
    assert result.cache.edited
    same_as_clean(tree, tmp_path, result)
    assert (whole.read_bytes(), whole.stat().st_ino) == kept
    assert whole.with_name("outputs-edits.json").exists()
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
    """The second build has the key of the full build before the first, and outputs.json is that
    build's, yet both rewrote files since (a shard, the personas' prompts). The record read after it
    is the output as it is (the journal, not the older whole file), so the builds that follow still
    replay (a stale record cost the no-op after the next edit a full compile)."""
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


def test_edit_builds_in_a_row_journal_the_walk_and_the_next_check_finds_it_as_a_walk_would(tree, tmp_path):
    """walk.json stays as the full build wrote it; walk-edits.json, over it, describes the walk after
    each edit build: nothing changed since, each folder listing what a new walk lists."""
    from skillc.incremental.snapshot import take_snapshot

    walk_json = tree.parent / ".skillc-cache" / "walk.json"
    kept = (walk_json.read_bytes(), walk_json.stat().st_ino)
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
        assert (walk_json.read_bytes(), walk_json.stat().st_ino) == kept
        manifest = records_of(tree).walk()
        assert manifest is not None and manifest.origin is not None and manifest.unchanged()
        record = records_of(tree).record()
        fresh = take_snapshot(tuple(map(tuple, record.quick.tops)), tmp_path / "scratch")
        assert fresh is not None and fresh.walked is not None
        listed = {f[1]: (list(f[3]), f[4]) for f in fresh.walked.folders}
        assert {w: (names, kinds) for w, (_st, names, kinds) in manifest.listings().items()} == listed
        assert build(tree)[0].cache.quick
    same_as_clean(tree, tmp_path, build(tree)[0])


def test_past_its_limit_the_walk_is_written_whole_again(tree, tmp_path, monkeypatch):
    from skillc.incremental import manifest as manifest_mod

    monkeypatch.setattr(manifest_mod, "EDITS_LIMIT", 0)
    walk_json = tree.parent / ".skillc-cache" / "walk.json"
    before = walk_json.read_bytes()
    new_skill(tree.parent / "skills" / "src-a" / "brand-new", "brand-new")
    assert build(tree)[0].cache.edited
    assert walk_json.read_bytes() != before and not walk_json.with_name("walk-edits.json").exists()
    manifest = records_of(tree).walk()
    assert manifest is not None and manifest.origin is None and manifest.unchanged()
    assert build(tree)[0].cache.quick
    same_as_clean(tree, tmp_path, build(tree)[0])


@pytest.mark.parametrize("damage", ["outputs-edits.json", "outputs.json", "walk-edits.json", "walk.json"])
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
    declined(tree, tmp_path, "a persona names the skill")


def test_a_skill_like_one_a_persona_names_goes_to_the_cached_build(tree, tmp_path):
    """An overlay for a skill that is not there says "did you mean" with the closest commands."""
    persona = next((tree.parent / "personas").glob("*/manifest.yaml")).parent
    (persona / "skill-overlays").mkdir(exist_ok=True)
    (persona / "skill-overlays" / "reconcile-widgets.md").write_text("For a skill not written yet.\n")
    settle(tree.parent)  # the build records the walk only when it is older than its stamp
    build(tree)
    new_skill(tree.parent / "skills" / "src-a" / "reconcile-widget", "reconcile-widget")
    declined(tree, tmp_path, "a persona names a skill like it")
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


def test_two_skills_added_at_once_go_to_the_cached_build(tree, tmp_path):
    """Each would have to be held to the other's command too (case, sanitized id, look-alike)."""
    new_skill(tree.parent / "skills" / "src-a" / "c1ip-z", "c1ip-z")
    new_skill(tree.parent / "skills" / "src-a" / "clip-z", "clip-z")
    declined(tree, tmp_path, "more than one skill added")


def test_a_new_folder_whose_name_is_not_ascii_goes_to_the_cached_build(tree, tmp_path):
    """discover names a skill by its folder's NFC form; the folder on disk may be NFD."""
    name = unicodedata.normalize("NFD", "café")
    new_skill(tree.parent / "skills" / "src-a" / name, unicodedata.normalize("NFC", "café"))
    declined(tree, tmp_path, "a folder name that is not ASCII")


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


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the split is Linux's")
def test_edit_builds_are_the_same_when_a_child_takes_half_the_lstats(tree, tmp_path, monkeypatch):
    split_lstats(monkeypatch)
    edited, described = served(tree)[3], served(tree)[-1]  # in the first half of the paths, and the second
    edited.write_text(edited.read_text() + "\nOne more line.\n")
    described.write_text(described.read_text().replace("description: ", "description: Changed. ", 1))
    result, _ = build(tree)
    assert result.cache.edited
    same_as_clean(tree, tmp_path, result)
    again, written = build(tree)
    assert again.cache.quick and not written.written


def late_child(monkeypatch) -> None:
    """The lstats' child waits before it takes a chunk: this process takes them all, and finds the
    change itself, whatever the machine's load (which process finds it is a race otherwise)."""
    import time

    real = lstats._theirs

    def late(*args):
        time.sleep(0.5)
        real(*args)

    monkeypatch.setattr(lstats, "_theirs", late)


def counted(monkeypatch, name: str) -> list[int]:
    """Calls of the edit module's `name` (a reader of the cache)."""
    calls: list[int] = []
    real = getattr(edit_mod, name)

    def spy(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(edit_mod, name, spy)
    return calls


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the split is Linux's")
@pytest.mark.parametrize("kind", ["description", "add", "delete"])
def test_an_edit_build_takes_what_was_read_while_a_child_took_the_lstats(tree, tmp_path, monkeypatch, kind):
    """The carry, the catalog rows and the output's record are read once, while the child takes
    lstats (edit.ahead), and the edit build starts from that reading. A no-op reads nothing ahead."""
    late_split(monkeypatch)
    carries, catalogs = counted(monkeypatch, "load"), counted(monkeypatch, "load_catalog")
    taken: list[object] = []
    real_ahead = edit_mod.ahead
    monkeypatch.setattr(edit_mod, "ahead", lambda *args: taken.append(real_ahead(*args)) or taken[-1])
    scans: list[str] = []
    real_scan = edit_mod._scan
    monkeypatch.setattr(edit_mod, "_scan", lambda path: scans.append(path) or real_scan(path))
    source = tree.parent / "skills" / "src-a"
    if kind == "description":
        described = served(tree)[-1]
        described.write_text(described.read_text().replace("description: ", "description: Changed. ", 1))
    elif kind == "add":
        new_skill(source / "brand-new", "brand-new")
    else:
        source = unnamed(tree)[0].parent.parent
        shutil.rmtree(unnamed(tree)[0].parent)
    result, _ = build(tree)
    assert result.cache.edited and len(taken) == 1 and taken[0] is not None
    assert (len(carries), len(catalogs)) == (1, 1)  # ahead's: the edit build read neither again
    # The source folder an add or a delete changed was listed ahead, once (a root: known at once)
    assert [p for p in scans if p.endswith(f"/{source.name}")] == ([] if kind == "description" else scans[:1])
    same_as_clean(tree, tmp_path, result)
    again, written = build(tree)  # no change found: nothing read ahead
    assert again.cache.quick and not written.written and len(taken) == 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the split is Linux's")
def test_a_reading_ahead_that_fails_leaves_the_edit_build_to_read(tree, tmp_path, monkeypatch):
    split_lstats(monkeypatch)

    def broken(*args):
        raise RuntimeError("a bug in reading ahead")

    monkeypatch.setattr(edit_mod, "ahead", broken)
    late_child(monkeypatch)
    carries = counted(monkeypatch, "load")
    edited = served(tree)[3]
    edited.write_text(edited.read_text() + "\nOne more line.\n")
    result, _ = build(tree)
    assert result.cache.edited and len(carries) == 1
    same_as_clean(tree, tmp_path, result)


def made_and_written(monkeypatch) -> tuple[list[bool], list[object]]:
    """Each edit build made (whether while reading ahead, as the forked child takes the lstats: the
    one made on a guess, edit._guessed), and each build written (its `_Made`)."""
    made: list[bool] = []
    written: list[object] = []
    reading: list[int] = []  # read ahead (edit.ahead) now: the child takes lstats meanwhile
    real_made, real_commit, real_ahead = edit_mod._Edit.made, edit_mod._Edit.commit, edit_mod.ahead

    def spy_ahead(*args):
        reading.append(1)
        try:
            return real_ahead(*args)
        finally:
            reading.pop()

    def spy_made(self):
        made.append(bool(reading))
        return real_made(self)

    def spy_commit(self, one, changes):
        written.append(one)
        return real_commit(self, one, changes)

    monkeypatch.setattr(edit_mod, "ahead", spy_ahead)
    monkeypatch.setattr(edit_mod._Edit, "made", spy_made)
    monkeypatch.setattr(edit_mod._Edit, "commit", spy_commit)
    return made, written


def late_split(monkeypatch) -> None:
    """A forked child takes the lstats of the small tree too, late: this process reads ahead first."""
    split_lstats(monkeypatch)
    late_child(monkeypatch)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the split is Linux's")
@pytest.mark.parametrize("kind", ["add", "delete", "add and delete", "body", "description", "rename save"])
def test_the_change_found_first_is_built_while_the_child_takes_the_lstats(tree, tmp_path, monkeypatch, kind):
    """A source folder that moved is known before any lstat, a file edited once a chunk holds it
    (with its folder, saved through a rename): the edit build of that change alone is made
    meanwhile, and written once the lstats found nothing else."""
    late_split(monkeypatch)
    made, written = made_and_written(monkeypatch)
    if "add" in kind:
        new_skill(tree.parent / "skills" / "src-b" / "brand-new", "brand-new")
    if "delete" in kind:
        shutil.rmtree(unnamed(tree)[0].parent)
    edited = served(tree)[-2]
    if kind == "body":
        edited.write_text(edited.read_text() + "\nOne more line.\n")
    elif kind == "description":
        edited.write_text(edited.read_text().replace("description: ", "description: Changed. ", 1))
    elif kind == "rename save":  # a new file renamed over it (sed -i, many editors): its folder moved too
        (edited.parent / "SKILL.md.new").write_text(edited.read_text() + "\nSaved.\n")
        os.replace(edited.parent / "SKILL.md.new", edited)
    result, out = build(tree)
    assert result.cache.edited and out.written
    assert made == [True] and len(written) == 1  # made once, during the lstats, and that one written
    same_as_clean(tree, tmp_path, result)
    again, out = build(tree)
    assert again.cache.quick and not out.written and made == [True]


def _beside(tree: Path, how: str) -> None:
    """A change the lstats find beside a skill added: the guess that the source moved alone is wrong."""
    if how in ("body edit", "two body edits"):
        edited = served(tree)[-1]
        edited.write_text(edited.read_text() + "\nAn edit beside the add.\n")
    elif how == "folder touched":  # its entries stand, and a folder inside the source moved
        os.utime(served(tree)[2].parent)
    elif how == "resource removed":
        resource = next(
            p for f in served(tree)[4:] for p in sorted(f.parent.rglob("*")) if p.is_file() and p != f
        )
        resource.unlink()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the split is Linux's")
@pytest.mark.parametrize("how", ["body edit", "folder touched", "resource removed", "two body edits"])
def test_a_guess_the_lstats_prove_wrong_is_not_written(tree, tmp_path, monkeypatch, how):
    """The build made on the guess is dropped, and the edit build is made again from what the lstats
    found (or the cached build makes it): the output is the clean build's either way. The guess is
    a skill added (its source folder moved), else the first file edited (this process takes every
    chunk here, in path order: the folders, then the files)."""
    late_split(monkeypatch)
    made, written = made_and_written(monkeypatch)
    if how == "two body edits":
        first = served(tree)[1]
        first.write_text(first.read_text() + "\nThe first edit.\n")
    else:
        new_skill(tree.parent / "skills" / "src-a" / "brand-new", "brand-new")
    _beside(tree, how)
    result, out = build(tree)
    assert made[0] is True and len(made) == 2  # the guess, then the build of what was found
    assert len(written) == (0 if how == "resource removed" else 1)
    if how == "resource removed":
        assert not result.cache.edited and result.cache.declined == "a file added, removed or renamed"
    else:
        assert result.cache.edited and out.written
    same_as_clean(tree, tmp_path, result)
    assert build(tree)[0].cache.quick


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the split is Linux's")
def test_a_file_saved_again_after_the_guess_read_it_is_built_as_it_is_now(tree, tmp_path, monkeypatch):
    """Saved through a rename, the skill's folder is found first (the folders come first) and the
    guess reads SKILL.md before the lstats reach it. Saved again meanwhile, the lstats record the
    new save: the guess, which built the one before, must not be written (the next build would
    find nothing changed and keep it). Its stamp tells: the file moved after it."""
    late_split(monkeypatch)
    monkeypatch.setattr(lstats, "CHUNK", 4)  # the folder and the file in different chunks
    made, written = made_and_written(monkeypatch)
    saved = served(tree)[1]
    real_made = edit_mod._Edit.made

    def then_saved_again(self):
        one = real_made(self)
        if len(made) == 1:  # the guess: made while the lstats run
            saved.write_text(saved.read_text() + "\nSaved again.\n")
        return one

    monkeypatch.setattr(edit_mod._Edit, "made", then_saved_again)
    (saved.parent / "SKILL.md.new").write_text(saved.read_text() + "\nSaved.\n")
    os.replace(saved.parent / "SKILL.md.new", saved)
    result, _ = build(tree)
    assert made == [True, False] and len(written) == 1  # the guess dropped, the build made again
    assert result.cache.edited
    same_as_clean(tree, tmp_path, result)
    assert build(tree)[0].cache.quick
    same_as_clean(tree, tmp_path, result)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the split is Linux's")
def test_a_guess_that_declines_is_made_again_and_says_why(tree, tmp_path, monkeypatch):
    late_split(monkeypatch)
    made, written = made_and_written(monkeypatch)
    new_skill(tree.parent / "skills" / "src-a" / "one-new", "one-new")
    new_skill(tree.parent / "skills" / "src-a" / "two-new", "two-new")
    declined(tree, tmp_path, "more than one skill added")
    assert made == [True, False] and written == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the split is Linux's")
def test_a_guess_that_fails_leaves_the_edit_build_to_make_it(tree, tmp_path, monkeypatch):
    late_split(monkeypatch)
    real_made = edit_mod._Edit.made
    calls: list[int] = []

    def failing_first(self):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("a bug in the guess")
        return real_made(self)

    monkeypatch.setattr(edit_mod._Edit, "made", failing_first)
    new_skill(tree.parent / "skills" / "src-a" / "brand-new", "brand-new")
    result, out = build(tree)
    assert result.cache.edited and out.written and len(calls) == 2
    same_as_clean(tree, tmp_path, result)


def _described(md: Path) -> int:
    found = re.search(r"^description: (.*)$", md.read_text(), re.M)
    return 0 if found is None else len(found.group(1))


def _shortened(md: Path, n: int) -> None:
    """n characters cut out of the description, past its first 20."""
    text = md.read_text()
    found = re.search(r"^description: (.*)$", text, re.M)
    assert found is not None and len(found.group(1)) > n + 40
    value = found.group(1)
    md.write_text(text[: found.start(1)] + value[:20] + value[20 + n :] + text[found.end(1) :])


def _budgeted(config: Path, pid: str, budget: int) -> None:
    """`pid`'s catalog budget set (the config's last section is `budgets:`, as bench/gen.py writes it)."""
    text = re.sub(r"\n  personas:\n    \S+: \d+\n", "\n", config.read_text())
    config.write_text(text + f"  personas:\n    {pid}: {budget}\n")


def _whole_from(config: Path, tmp_path: Path, pid: str) -> int:
    """The least budget with which `pid`'s catalog lists every skill it may (a search, with builds
    of a copy)."""
    probe = tmp_path / "probe"
    shutil.copytree(config.parent, probe, ignore=shutil.ignore_patterns("dist", ".skillc-cache"))
    every = len(included(config)[pid])
    low, high = 0, 30000
    while low < high:
        middle = (low + high) // 2
        _budgeted(probe / config.name, pid, middle)
        build(probe / config.name, cache=False)
        low, high = (low, middle) if len(included(probe / config.name)[pid]) == every else (middle + 1, high)
    shutil.rmtree(probe)
    return low


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the split is Linux's")
def test_a_guess_that_does_not_stand_leaves_the_catalog_rows_as_the_last_build_left_them(
    tree, tmp_path, monkeypatch
):
    """Two descriptions shortened at once: together they let a persona's catalog fit whole, the
    first alone does not. The guess (the first, alone) changes the catalog rows read ahead in place;
    the build made again after the lstats must start from the rows the last build left, or it takes
    the guessed skill's new row for its old one and packs from a wrong total (the next builds then
    kept that output, 'already up to date')."""
    pid = "aria"
    listed = included(tree)[pid]
    whole = _whole_from(tree, tmp_path, pid)
    _budgeted(tree, pid, whole - 100)  # over by 100: one cut of 80 leaves it over, two fit
    build(tree)
    assert len(included(tree)[pid]) < len(listed)
    sources = [tree.parent / "skills" / "src-b", tree.parent / "skills" / "src-a"]  # src-b's first
    by_command: dict[str, Path] = {}
    for source in sources:
        for md in sorted(source.rglob("SKILL.md")):
            by_command.setdefault(md.parent.relative_to(source).as_posix(), md)
    long = [by_command[c] for c in sorted(listed) if _described(by_command[c]) > 160]
    late_split(monkeypatch)
    made, written = made_and_written(monkeypatch)
    _shortened(long[0], 80)
    _shortened(long[1], 80)
    result, _ = build(tree)
    assert made == [True, False] and len(written) == 1  # the guess dropped, the build made again
    assert result.cache.edited and included(tree)[pid] == listed
    same_as_clean(tree, tmp_path, result)


def test_a_file_made_in_a_new_skill_while_it_is_listed_is_seen_by_the_next_build(tree, tmp_path, monkeypatch):
    """The edit build records a new skill folder's stat data before its entries, as the walk does:
    a file made in it after it was listed (a copy still running) moves it past the record, and the
    next build lists it again; the other way round, it recorded the folder with the file and the
    entries without it, and never saw the file again."""
    folder = tree.parent / "skills" / "src-a" / "brand-new"
    real_scan = edit_mod._scan

    def then_a_file(path: str) -> tuple[list[str], str]:
        found = real_scan(path)
        if path == str(folder) and not (folder / "notes.md").exists():
            (folder / "notes.md").write_text("Notes, first.\n")
        return found

    monkeypatch.setattr(edit_mod, "_scan", then_a_file)
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
    real, stamps = edit_mod._fs_now, []

    def coarse(directory):
        stamps.append(1)
        return changed if len(stamps) == 1 else real(directory)

    monkeypatch.setattr(edit_mod, "_fs_now", coarse)
    result, _ = build(tree)
    assert result.cache.edited and len(stamps) == 3  # the listings' taken again, then the reads'
    same_as_clean(tree, tmp_path, result)


def test_a_new_folder_changed_since_the_stamp_before_its_listing_goes_to_the_cached_build(
    tree, tmp_path, monkeypatch
):
    """A clock that has not moved on since the new skill's folder was made: the folder may change
    again, after it is listed, with the ctime it is recorded with."""
    folder = tree.parent / "skills" / "src-a" / "brand-new"
    new_skill(folder, "brand-new")
    time.sleep(0.02)  # the folder changed a tick after its source (which the stamp must pass)
    os.utime(folder)
    real, stamps = edit_mod._fs_now, []

    def coarse(directory):
        stamps.append(1)
        return folder.stat().st_ctime_ns if len(stamps) == 1 else real(directory)

    monkeypatch.setattr(edit_mod, "_fs_now", coarse)
    declined(tree, tmp_path, "a new folder changed while the build started")


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


def _early_builds(monkeypatch) -> list[str]:
    """What each `look` did with what `begin` started: "joined", "ended" (other paths), or "none"."""
    split_lstats(monkeypatch)
    seen: list[str] = []
    real_take = lstats._take

    def take(paths, fd):
        had = bool(lstats._early)
        split = real_take(paths, fd)
        seen.append("joined" if split is not None else ("ended" if had else "none"))
        return split

    monkeypatch.setattr(lstats, "_take", take)
    return seen


def _main(*argv: str) -> int:
    from skillc.cli import main

    try:
        main(list(argv))
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the split is Linux's")
def test_skillc_build_starts_its_lstats_before_the_cli_is_imported(tree, tmp_path, monkeypatch):
    """`skillc build` begins the quick path's lstats from the command line alone (cli `_start`,
    quick.start); the quick path joins them, and the build is the one a clean build makes."""
    seen = _early_builds(monkeypatch)
    edited = served(tree)[5]
    edited.write_text(edited.read_text() + "\nAn edit the early lstats see.\n")
    assert _main("build", "-q", "--config", str(tree)) == 0
    assert seen == ["joined"] and not lstats._early
    monkeypatch.chdir(tree.parent)  # no --config: the one find_config finds from here
    edited.write_text(edited.read_text() + "\nAnd another.\n")
    assert _main("build", "-q") == 0
    assert seen == ["joined", "joined"]
    result, written = build(tree)
    assert result.cache.quick and not written.written  # what the early builds recorded is current
    same_as_clean(tree, tmp_path, result)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the split is Linux's")
def test_what_was_started_for_another_cache_is_ended(tree, tmp_path, monkeypatch):
    """A guess that names another project (quick.start) is ended by the quick path of this one, and
    a build whose command line keeps it off the quick path starts nothing."""
    from skillc.incremental import quick

    seen = _early_builds(monkeypatch)
    other = tmp_path / "other"
    generate(other, 12, n_personas=2, seed=7)
    settle(other)
    for _ in range(2):  # the first has no cache to start from; the second, a no-op, has
        assert _main("build", "-q", "--config", str(other / "skillc.yaml")) == 0
    assert seen == ["joined"] and not lstats._early
    quick.start(other / "skillc.yaml")
    assert lstats._early
    edited = served(tree)[2]
    edited.write_text(edited.read_text() + "\nEdited.\n")
    result, _ = build(tree)
    assert result.cache.edited and seen == ["joined", "none"] and not lstats._early
    same_as_clean(tree, tmp_path, result)
    # The last --config is the build's own (click's rule): the guess is right.
    edited.write_text(edited.read_text() + "\nAgain.\n")
    assert _main("--config", str(other / "skillc.yaml"), "build", "-q", "--config", str(tree)) == 0
    assert seen[-1] == "joined"
    starts: list[object] = []
    monkeypatch.setattr(quick, "start", starts.append)
    for argv in (["build", "--no-cache", "-q"], ["build", "--watch", "--help"], ["check", "-q"]):
        _main(*argv, "--config", str(tree))
    assert starts == [] and not lstats._early
