"""Discover: which directories are skills, which files their resources, which source wins."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.project import skill_md, src_project

from skillc.pipeline import compile_project
from skillc.project import config as config_mod
from skillc.stages.discover import Checked, Outside, discover, discover_checked, walk


def test_discover_commands_nesting_resources_and_ignores(tmp_path: Path) -> None:
    cfg_path = src_project(
        tmp_path,
        {
            "src/sven/SKILL.md": skill_md("sven"),
            "src/sven/scripts/helper.sh": "echo hi\n",
            "src/sven/plan/SKILL.md": skill_md("plan"),
            "src/sven/plan/notes.md": "plan notes\n",
            "src/deep/er/still/SKILL.md": skill_md("still"),
            "src/.git/y/SKILL.md": skill_md("y"),
            "src/.hidden/z/SKILL.md": skill_md("z"),
        },
    )
    cfg, _ = config_mod.load(cfg_path)
    found = discover(cfg)
    assert [s.command for s in found.skills] == ["deep/er/still", "sven", "sven/plan"]
    sven = found.skills[1]
    assert [r.path for r in sven.resources] == ["scripts/helper.sh"]  # plan/notes.md belongs to the sub-skill
    assert [r.path for r in found.skills[2].resources] == ["notes.md"]


def test_later_source_wins_with_a_warning(tmp_path: Path) -> None:
    cfg = "sources: [a, b]\n"
    result = compile_project(
        src_project(
            tmp_path,
            {
                "a/x/SKILL.md": skill_md("x", body="from a\n"),
                "b/x/SKILL.md": skill_md("x", body="from b\n"),
            },
            config=cfg,
        )
    )
    assert result.program.skills["x"].body == "from b\n"
    assert [d.format() for d in result.diagnostics] == [
        "b/x/SKILL.md:1:1: warning[SKC305]: command 'x' from this source overrides a/x/SKILL.md"
    ]


def test_a_link_out_of_the_project_is_refused_or_followed_by_the_walk(tmp_path: Path) -> None:
    (tmp_path / "out" / "x").mkdir(parents=True)
    (tmp_path / "out" / "x" / "SKILL.md").write_text(skill_md("x"), encoding="utf-8")
    (tmp_path / "p" / "src").mkdir(parents=True)
    (tmp_path / "p" / "src" / "x").symlink_to(tmp_path / "out" / "x")
    confine = str((tmp_path / "p").resolve())
    refused = walk(tmp_path / "p" / "src", "src", confine=confine, outside=Outside(note=" (codex: loads)"))
    assert refused.files == ()
    assert [d.format() for d in refused.diagnostics] == [
        "src/x:1:1: error[SKC302]: symlink resolves outside the project (codex: loads); "
        "`follow_symlinks: outside` follows it"
    ]
    followed = walk(tmp_path / "p" / "src", "src", confine=confine, outside=Outside(follow=True))
    assert [e.rel for e in followed.files] == ["x/SKILL.md"]
    assert [(d.severity.value, d.code) for d in followed.diagnostics] == [("warning", "SKC302")]


# --- a large source split between this process and a forked helper ----------------------------


def _split_like_serial(cfg_path: Path, monkeypatch: pytest.MonkeyPatch, tops: int = 1) -> Checked:
    """discover_checked with every source split in chunks of `tops` top-level folders gives what
    discover gives (every skill, input, diagnostic, ignore file, in every order), and the checks it
    made are check_skill's. Returns them."""
    from skillc.stages import discover as discover_mod
    from skillc.stages.skills import check_skill, walk_checks

    cfg, _ = config_mod.load(cfg_path)
    assert cfg is not None
    serial = discover(cfg)
    monkeypatch.setattr(discover_mod, "SPLIT_THRESHOLD", 1)
    monkeypatch.setattr(discover_mod, "_TOPS", tops)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    split, checked = discover_checked(cfg, walk_checks())
    assert split == serial
    assert [f.rel for f in split.inputs] == [f.rel for f in serial.inputs]
    assert all(a.digest == b.digest for a, b in zip(split.inputs, serial.inputs, strict=True))
    by_key = {(s.source, s.command): s for s in split.skills}
    assert all(checked[key] == check_skill(by_key[key]) for key in checked if key in by_key)
    return checked


def _hostile_tree(tmp_path: Path) -> Path:
    files: dict[str, str | bytes] = {f"src/s{i:02}/SKILL.md": skill_md(f"s{i:02}") for i in range(12)}
    files |= {
        "src/.gitignore": "*.log\nignored-dir/\n",
        "src/s01/debug.log": "left out\n",
        "src/ignored-dir/x/SKILL.md": skill_md("x"),
        "src/s02/.gitignore": "secret.md\n!keep.log\n",
        "src/s02/secret.md": "not shipped\n",
        "src/s02/keep.log": "taken back\n",
        "src/s03/scripts/run.sh": "echo hi\n",
        "src/s03/nested/SKILL.md": skill_md("nested"),
        "src/s03/nested/notes.md": "the sub-skill's\n",
        "src/lower/skill.md": skill_md("lower"),  # only the lowercase file: accepted with a warning
        "src/SKILL.md": skill_md("root"),  # at the root: ignored with a warning
        "src/.hidden/z/SKILL.md": skill_md("z"),
        "src/s05/.b/SKILL.md": skill_md("b"),  # hidden below a skill: its resource, as serially
        "src/.git/y/SKILL.md": skill_md("y"),
        "src/Foo/SKILL.md": skill_md("foo"),  # a case twin of `foo`, in another chunk
        "src/foo/SKILL.md": skill_md("foo"),
        "src/foo_bar/SKILL.md": skill_md("foo-bar"),  # the same sanitized id as foo-bar
        "src/foo-bar/SKILL.md": skill_md("foo-bar"),
        "src/p\u0430ste/SKILL.md": skill_md("paste"),  # Cyrillic a: looks like paste
        "src/paste/SKILL.md": skill_md("paste"),
        "src/bad/SKILL.md": "---\nname: [\n---\n",
        "src/~tilde/SKILL.md": skill_md("tilde"),  # an unsafe top-level name: refused at the root
        "src/caf\u00e9/SKILL.md": skill_md("caf\u00e9"),
        "src/cafe\u0301/SKILL.md": skill_md("cafe"),  # its NFD twin: the root's diagnostic, café's problem
    }
    cfg = src_project(tmp_path, files)
    (tmp_path / "src" / "s06" / ".ignore").mkdir()  # an ignore file that cannot be read
    (tmp_path / "src" / "s07" / "link.md").symlink_to(tmp_path / "src" / "s08" / "SKILL.md")
    (tmp_path / "src" / "s09" / "broken.md").symlink_to(tmp_path / "src" / "nowhere")
    os.mkfifo(tmp_path / "src" / "s10" / "pipe")
    (tmp_path / "src" / "zdocs").mkdir()
    os.mkfifo(tmp_path / "src" / "zdocs" / "pipe")  # no skill's: the source's own diagnostic
    return cfg


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the split walk forks")
@pytest.mark.parametrize("tops", [1, 3, 100])
def test_a_split_walk_gives_what_the_serial_walk_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tops: int
) -> None:
    """Ignore files at the root and in a share, hidden folders, links to files, a FIFO, an
    unreadable ignore file, collisions and look-alikes across shares, a SKILL.md at the root, name
    twins at the root: each in its place and order, whichever process walked it."""
    checked = _split_like_serial(_hostile_tree(tmp_path), monkeypatch, tops)
    assert {"s00", "bad", "s03/nested", "lower"} <= {command for _, command in checked}
    cfg, _ = config_mod.load(tmp_path / "skillc.yaml")
    found = discover(cfg)
    said = {d.code for d in found.diagnostics} | {d.code for s in found.skills for d in s.problems}
    # the tree says each of these, compared above in place and order
    assert {"SKC301", "SKC302", "SKC306", "SKC309", "SKC310", "SKC312", "SKC320"} <= said
    assert "src/.ignore" not in found.ignore_files and "src/.gitignore" in found.ignore_files
    assert "src/s02/.gitignore" in found.ignore_files


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the split walk forks")
def test_a_split_walk_of_two_sources_keeps_precedence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {f"{s}/k{i}/SKILL.md": skill_md(f"k{i}", body=f"from {s}\n") for s in "ab" for i in range(6)}
    cfg = src_project(tmp_path, files, config="sources: [a, b]\npersonas: personas\noutput: dist\n")
    checked = _split_like_serial(cfg, monkeypatch, 2)
    assert set(checked) == {(i, f"k{n}") for i in (0, 1) for n in range(6)}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the split walk forks")
def test_a_followed_link_to_a_folder_walks_the_source_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Which of a folder and a link to it the walk meets first depends on the whole walk: the
    source is walked again in one process (nothing checked on the way), with the serial answer."""
    files = {f"src/s{i}/SKILL.md": skill_md(f"s{i}") for i in range(6)}
    cfg = src_project(tmp_path, files)
    (tmp_path / "src" / "s5" / "more").symlink_to(tmp_path / "src" / "s1")  # s1 again, as s5/more
    (tmp_path / "src" / "s0" / "again").symlink_to(tmp_path / "src" / "s4")
    assert _split_like_serial(cfg, monkeypatch) == {}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the split walk forks")
def test_a_helper_that_dies_leaves_its_chunks_to_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillc.stages import discover as discover_mod

    def dies(share: object) -> tuple[object, ...]:
        os._exit(3)  # in the helper only: this process never packs

    monkeypatch.setattr(discover_mod, "_packed", dies)
    checked = _split_like_serial(_hostile_tree(tmp_path), monkeypatch, 2)
    assert checked  # every chunk walked and checked here


def test_no_fork_walks_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from skillc.stages import workers

    def refused(*args: object) -> None:
        raise OSError("no processes here")

    monkeypatch.setattr(workers, "share", refused)
    assert _split_like_serial(_hostile_tree(tmp_path), monkeypatch) == {}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the split walk forks")
def test_a_split_build_is_the_serial_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the pipeline: the checks made on the way stand for the check stage's."""
    from skillc.stages import discover as discover_mod

    cfg = _hostile_tree(tmp_path)
    monkeypatch.setattr(discover_mod, "SPLIT_THRESHOLD", 10**9)
    serial = compile_project(cfg)
    monkeypatch.setattr(discover_mod, "SPLIT_THRESHOLD", 1)
    monkeypatch.setattr(discover_mod, "_TOPS", 2)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    split = compile_project(cfg)
    assert split.diagnostics == serial.diagnostics and split.diagnostics
    assert split.program == serial.program
    assert split.artifacts is not None and serial.artifacts is not None
    assert dict(split.artifacts.files) == dict(serial.artifacts.files)


def test_one_core_walks_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from skillc.stages import discover as discover_mod
    from skillc.stages.skills import walk_checks

    cfg, _ = config_mod.load(_hostile_tree(tmp_path))
    assert cfg is not None
    monkeypatch.setattr(discover_mod, "SPLIT_THRESHOLD", 1)
    monkeypatch.setattr("os.cpu_count", lambda: 1)
    found, checked = discover_checked(cfg, walk_checks())
    assert checked == {} and found == discover(cfg)


# --- discovery per source, as each loader defines it (issue 39, item 3) ----------------------------


def _found(tmp_path: Path, files: dict[str, str], config: str) -> tuple[list[str], list[str]]:
    """The commands discover serves and its diagnostics, formatted, for a project."""
    cfg, diags = config_mod.load(src_project(tmp_path, files, config=config))
    assert cfg is not None and not diags, [d.format() for d in diags]
    found = discover(cfg)
    return [s.command for s in found.skills], [d.format() for d in found.diagnostics]


def test_an_optional_source_that_is_missing_is_a_warning(tmp_path: Path) -> None:
    commands, diags = _found(
        tmp_path,
        {"src/a/SKILL.md": skill_md("a")},
        "sources: [src, {path: ~/.nowhere-39/skills, optional: true}]\n",
    )
    assert commands == ["a"]
    assert diags == [
        "skillc.yaml:1:23: warning[SKC324]: optional source '~/.nowhere-39/skills' does not exist here: "
        "nothing compiled from it"
    ]
    _, diags = _found(tmp_path / "2", {"src/a/SKILL.md": skill_md("a")}, "sources: [src, gone]\n")
    assert diags == [
        "skillc.yaml:1:16: error[SKC308]: source 'gone' is not a directory; `optional: true` on it makes a "
        "missing one a warning"
    ]


def test_an_optional_source_that_is_a_file_is_still_an_error(tmp_path: Path) -> None:
    _, diags = _found(
        tmp_path,
        {"src/a/SKILL.md": skill_md("a"), "afile": "x\n"},
        "sources: [src, {path: afile, optional: true}]\n",
    )
    assert [d.split(": ", 1)[1] for d in diags] == ["error[SKC308]: source 'afile' is not a directory"]


def test_depth_one_and_a_root_skill_are_v1s_discovery(tmp_path: Path) -> None:
    """V1: `SKILL.md` and `*/SKILL.md` below its root; a deeper SKILL.md is a file of the skill
    above it, and one no skill holds is said (SKC316)."""
    files = {
        "skills/SKILL.md": skill_md("skills"),
        "skills/notes.md": "root notes\n",
        "skills/edit/SKILL.md": skill_md("edit"),
        "skills/edit/examples/SKILL.md": skill_md("examples"),
        "skills/lone/deep/SKILL.md": skill_md("deep"),
    }
    config = "sources:\n  - path: skills\n    depth: 1\n    root_skill: true\n"
    cfg, _ = config_mod.load(src_project(tmp_path, files, config=config))
    assert cfg is not None
    found = discover(cfg)
    assert [(s.command, s.dir_rel, s.skill_md.rel) for s in found.skills] == [
        ("edit", "skills/edit", "skills/edit/SKILL.md"),
        ("skills", "skills", "skills/SKILL.md"),
    ]
    assert [r.path for r in found.skills[0].resources] == ["examples/SKILL.md"]
    assert [r.path for r in found.skills[1].resources] == ["lone/deep/SKILL.md", "notes.md"]
    assert found.diagnostics == ()
    commands, diags = _found(tmp_path / "1", files, "sources: [{path: skills, depth: 1}]\n")
    assert commands == ["edit"]
    assert [d for d in diags if "SKC316" in d] == [
        "skills/lone/deep/SKILL.md:1:1: warning[SKC316]: 2 folders below the source, deeper than its "
        "depth (1), and no skill above it holds it: not compiled"
    ]
    commands, diags = _found(tmp_path / "2", files, "sources: [skills]\n")
    assert commands == ["edit", "edit/examples", "lone/deep"]
    assert [d.split(": ", 1)[1][:30] for d in diags] == ["warning[SKC309]: SKILL.md at a"]


def test_node_modules_is_never_walked_unless_configured(tmp_path: Path) -> None:
    files = {
        "src/a/SKILL.md": skill_md("a"),
        "src/a/node_modules/dep/index.js": "x\n",
        "src/node_modules/pkg/SKILL.md": skill_md("pkg"),
    }
    cfg, _ = config_mod.load(src_project(tmp_path, files, config="sources: [src]\n"))
    assert cfg is not None
    found = discover(cfg)
    assert [s.command for s in found.skills] == ["a"] and found.skills[0].resources == ()
    commands, _ = _found(tmp_path / "2", files, "sources: [{path: src, skip_folders: []}]\n")
    assert commands == ["a", "node_modules/pkg"]


def test_duplicates_last_wins_keeps_the_later_with_a_warning(tmp_path: Path) -> None:
    files = {"src/foo-bar/SKILL.md": skill_md("foo-bar"), "src/foo_bar/SKILL.md": skill_md(None)}
    commands, diags = _found(tmp_path, files, "sources: [{path: src, duplicates: last-wins}]\n")
    assert commands == ["foo_bar"]
    assert diags == [
        "src/foo-bar/SKILL.md:1:1: warning[SKC305]: left out: src/foo_bar/SKILL.md has the same id "
        "('foo_bar') and comes later (duplicates: last-wins)"
    ]
    cfg, _ = config_mod.load(
        src_project(tmp_path / "2", files, config="sources: [{path: src, duplicates: last-wins}]\n")
    )
    assert cfg is not None and discover(cfg).dropped == ("src/foo-bar/SKILL.md",)


def test_a_git_ignored_tier_is_said_with_its_ignore_line_and_compiled_on_request(tmp_path: Path) -> None:
    """Pegasus: `data/skills` is git-ignored on purpose."""
    files = {
        ".gitignore": "# runtime data\n*.log\ndata/\n",
        "skills/a/SKILL.md": skill_md("a"),
        "data/skills/mine/SKILL.md": skill_md("mine"),
        "data/skills/mine/.gitignore": "*.tmp\n",
        "data/skills/mine/scratch.tmp": "x\n",
    }
    (tmp_path / ".git").mkdir()
    commands, diags = _found(tmp_path, files, "sources: [skills, data/skills]\n")
    assert commands == ["a"]
    assert diags == [
        "skillc.yaml:1:19: warning[SKC313]: source 'data/skills' holds no skills: its 1 SKILL.md file(s) "
        "are git-ignored (.gitignore:3: data/); `git_ignored: true` on the source compiles it"
    ]
    config = "sources: [skills, {path: data/skills, git_ignored: true}]\n"
    cfg, _ = config_mod.load(src_project(tmp_path, files, config=config))
    assert cfg is not None
    found = discover(cfg)
    assert [s.command for s in found.skills] == ["a", "mine"]
    assert [r.path for r in found.skills[1].resources] == [".gitignore"]  # its own ignore file still applies


def test_skills_ignored_inside_a_source_are_said_with_the_inner_file(tmp_path: Path) -> None:
    files = {"src/.ignore": "drafts/\n", "src/drafts/a/SKILL.md": skill_md("a")}
    _, diags = _found(tmp_path, files, "sources: [src]\n")
    assert diags == [
        "skillc.yaml:1:11: warning[SKC313]: source 'src' holds no skills: its 1 SKILL.md file(s) are "
        "git-ignored (src/.ignore:1: drafts/)"
    ]


def test_a_root_skill_and_a_folder_of_its_name_are_duplicates(tmp_path: Path) -> None:
    files = {"skills/SKILL.md": skill_md("skills"), "skills/skills/SKILL.md": skill_md("skills")}
    config = "sources: [{path: skills, root_skill: true}]\n"
    commands, diags = _found(tmp_path, files, config)
    assert commands == ["skills"]
    assert diags == [
        "skills/skills/SKILL.md:1:1: error[SKC306]: command 'skills' is also skills/SKILL.md of this "
        "source; `duplicates: last-wins` on the source keeps the later"
    ]
    config = "sources: [{path: skills, root_skill: true, duplicates: last-wins}]\n"
    cfg, _ = config_mod.load(src_project(tmp_path / "2", files, config=config))
    assert cfg is not None
    found = discover(cfg)
    assert [s.skill_md.rel for s in found.skills] == ["skills/skills/SKILL.md"]
    assert found.dropped == ("skills/SKILL.md",)
