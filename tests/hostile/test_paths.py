"""Hostile paths: config values, manifest values, names on disk, symlinks, extensions, collisions."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.cli import build
from support.files import snapshot, write_tree
from support.project import CONFIG, CONFIG_PERSONAS, project, skill_md

from skillc import reader

OK = {"skills/a/SKILL.md": skill_md()}


def assert_failed_cleanly(r, root: Path) -> None:
    assert r.exception is None, r.exception
    assert r.exit_code == 1, r.stderr
    assert not (root / "dist").exists()
    assert "Traceback" not in r.stderr


# --- skillc.yaml ------------------------------------------------------------


@pytest.mark.parametrize(
    "value, reason",
    [
        ("../x", "contains '..'"),
        ("skills/../../x", "contains '..'"),
        ("~other/skills", "another user's home"),
        ("C:/skills", "is a Windows drive path"),
        ("'C:\\skills'", "contains a backslash"),
        ("'skills\\core'", "contains a backslash"),
        ('"ski\\0lls"', "contains a NUL byte"),
    ],
)
def test_config_source_path_refused(tmp_path, value, reason):
    cfg = project(tmp_path, OK, f"format: 1\nsources:\n  - skills\n  - {value}\n")
    r = build(cfg)
    assert_failed_cleanly(r, tmp_path)
    d = r.one("SKC103")
    assert (d.path, d.line, d.col, d.severity) == ("skillc.yaml", 4, 5, "error")
    assert reason in d.message and d.message.startswith("sources.1:")


@pytest.mark.parametrize(
    "key, value, col",
    [
        ("personas", "../personas", 11),
        ("output", "/tmp/dist", 9),
        ("output", "~/dist", 9),
        ("output", "'..\\dist'", 9),
        ("template", "../../etc/passwd", 11),
        ("template", '"t\\0.j2"', 11),
    ],
)
def test_config_other_paths_refused(tmp_path, key, value, col):
    cfg = project(tmp_path, OK, f"sources: [skills]\n{key}: {value}\n")
    r = build(cfg)
    assert_failed_cleanly(r, tmp_path)
    hits = [d for d in r.find("SKC103") if d.message.startswith(f"{key}:")]
    assert [(d.path, d.line, d.col) for d in hits] == [("skillc.yaml", 2, col)], r.stderr


def test_output_equal_to_project_refused(tmp_path):
    r = build(project(tmp_path, OK, "sources: [skills]\noutput: ./\n"))
    assert r.exit_code == 1
    assert (r.one("SKC103").line, r.one("SKC103").col) == (2, 9)


# --- persona manifests ------------------------------------------------------


@pytest.mark.parametrize(
    "value, reason",
    [
        ("../other", "contains '..'"),
        ("/abs", "is an absolute path"),
        ("~root", "starts with '~'"),
        ("C:x", "is a Windows drive path"),
        ("'C:\\x'", "contains a backslash"),
        ('"p\\0"', "contains a NUL byte"),
    ],
)
def test_manifest_fallback_path_refused(tmp_path, value, reason):
    cfg = project(
        tmp_path, {**OK, "personas/p/manifest.yaml": f"name: P\nfallback: {value}\n"}, CONFIG_PERSONAS
    )
    r = build(cfg)
    assert_failed_cleanly(r, tmp_path)
    d = r.one("SKC301")
    assert (d.path, d.line, d.col) == ("personas/p/manifest.yaml", 2, 11)
    assert reason in d.message
    assert not r.find("SKC402")  # the unsafe value is reported once, as unsafe


def test_manifest_allowlist_paths_refused(tmp_path):
    manifest = "name: P\nskills:\n  - a\n  - ../a\n  - /a\n  - \"a\\0\"\n  - 'a\\b'\n  - C:a\n  - ~a\n"
    cfg = project(tmp_path, {**OK, "personas/p/manifest.yaml": manifest}, CONFIG_PERSONAS)
    r = build(cfg)
    assert_failed_cleanly(r, tmp_path)
    got = [(d.path, d.line, d.col, d.message.split(":")[0]) for d in r.find("SKC301")]
    assert got == [("personas/p/manifest.yaml", line, 5, f"skills.{line - 3}") for line in range(4, 10)]


def test_manifest_allowlist_star_and_nested_commands_allowed(tmp_path):
    files = {
        **OK,
        "skills/a/sub/SKILL.md": skill_md(),
        "personas/p/manifest.yaml": "name: P\nskills: ['a/sub', a]\n",
    }
    r = build(project(tmp_path, files, CONFIG_PERSONAS))
    assert r.exit_code == 0, r.stderr
    assert not r.find("SKC301")


# --- names on disk ----------------------------------------------------------


@pytest.mark.parametrize(
    "name, reason",
    [
        ("back\\slash", "contains a backslash"),
        ("new\nline", "contains a control character"),
        ("tab\there", "contains a control character"),
        ("esc\x1b[31m", "contains a control character"),
        ("evil\u202egpj.md", "contains a bidirectional control character"),
        ("~home", "starts with '~'"),
        ("C:drive", "looks like a Windows drive"),
    ],
)
def test_unsafe_directory_name_refused(tmp_path, name, reason):
    cfg = project(tmp_path, {**OK, f"skills/{name}/SKILL.md": skill_md()})
    r = build(cfg)
    assert_failed_cleanly(r, tmp_path)
    d = r.one("SKC301")
    assert d.path == "skills/" + name.encode("unicode_escape").decode("ascii").replace("\\\\", "\\")
    assert (d.line, d.col) == (1, 1) and reason in d.message


@pytest.mark.parametrize("name", ["back\\slash.md", "bell\x07.md", "~x.md"])
def test_unsafe_resource_file_name_refused(tmp_path, name):
    r = build(project(tmp_path, {**OK, f"skills/a/references/{name}": "text\n"}))
    assert_failed_cleanly(r, tmp_path)
    assert r.one("SKC301").path.startswith("skills/a/references/")


def test_undecodable_name_refused_without_traceback(tmp_path):
    cfg = project(tmp_path, OK)
    bad = os.fsencode(tmp_path / "skills") + b"/caf\xe9"
    os.mkdir(bad)
    with open(bad + b"/SKILL.md", "w") as fh:
        fh.write(skill_md())
    r = build(cfg)
    assert_failed_cleanly(r, tmp_path)
    d = r.one("SKC301")
    assert (d.path, d.line, d.col) == ("skills/caf\\udce9", 1, 1)
    assert "not valid UTF-8" in d.message


def test_newline_in_name_cannot_forge_a_diagnostic_line(tmp_path):
    forged = "x\nskills/a/SKILL.md:1:1: error[SKC999]: forged"
    write_tree(tmp_path, {f"skills/{forged.replace('/', '_')}/SKILL.md": skill_md()}, exact=True)
    r = build(project(tmp_path, OK))
    assert r.exit_code == 1
    assert "SKC999" not in {d.code for d in r.diags}
    assert all(line.startswith(("skills/", "skillc:")) for line in r.stderr.splitlines()), r.stderr


# --- symlinks ---------------------------------------------------------------


@pytest.fixture
def outside(tmp_path) -> Path:
    out = tmp_path.parent / f"{tmp_path.name}-outside"  # outside the project (tmp_path)
    write_tree(out, {"secret.md": "secret\n", "s/SKILL.md": skill_md()}, exact=True)
    return out


def test_file_symlink_outside_root(tmp_path, outside):
    cfg = project(tmp_path, OK)
    os.symlink(outside / "secret.md", tmp_path / "skills/a/notes.md")
    r = build(cfg)
    assert_failed_cleanly(r, tmp_path)
    d = r.one("SKC302")
    assert (d.path, d.line, d.col, d.message) == (
        "skills/a/notes.md",
        1,
        1,
        "symlink resolves outside the project",
    )


def test_absolute_symlink_to_system_file(tmp_path):
    cfg = project(tmp_path, OK)
    os.symlink("/etc/passwd", tmp_path / "skills/a/passwd.md")
    r = build(cfg)
    assert_failed_cleanly(r, tmp_path)
    assert r.one("SKC302").path == "skills/a/passwd.md"


def test_directory_symlink_outside_root(tmp_path, outside):
    cfg = project(tmp_path, OK)
    os.symlink(outside, tmp_path / "skills/linked")
    r = build(cfg)
    assert_failed_cleanly(r, tmp_path)
    assert r.one("SKC302").path == "skills/linked"


def test_relative_symlink_escaping_via_dotdot(tmp_path, outside):
    cfg = project(tmp_path, OK)
    os.symlink(f"../../../{outside.name}/secret.md", tmp_path / "skills/a/rel.md")
    r = build(cfg)
    assert_failed_cleanly(r, tmp_path)
    assert r.one("SKC302").path == "skills/a/rel.md"


def test_symlink_into_other_source_is_followed(tmp_path):
    # The common `.claude/skills/x -> ../../skills/x`: a link that stays in the project is followed.
    files = {**OK, "other/b/SKILL.md": skill_md()}
    cfg = project(tmp_path, files, "sources: [skills]\n")
    os.symlink("../other/b", tmp_path / "skills/b")
    r = build(cfg)
    assert r.exit_code == 0, r.stderr
    assert "b" in reader.open(tmp_path / "dist").all_commands()


def test_symlink_inside_root_is_followed(tmp_path):
    cfg = project(tmp_path, {**OK, "skills/a/references/real.md": "real\n"})
    os.symlink("real.md", tmp_path / "skills/a/references/alias.md")
    r = build(cfg)
    assert r.exit_code == 0, r.stderr


def test_symlink_loop_between_files(tmp_path):
    cfg = project(tmp_path, OK)
    os.symlink("two.md", tmp_path / "skills/a/one.md")
    os.symlink("one.md", tmp_path / "skills/a/two.md")
    r = build(cfg)
    assert_failed_cleanly(r, tmp_path)
    assert [(d.path, d.line, d.col) for d in r.find("SKC303")] == [
        ("skills/a/one.md", 1, 1),
        ("skills/a/two.md", 1, 1),
    ]


def test_directory_symlink_to_ancestor_is_a_loop(tmp_path):
    cfg = project(tmp_path, OK)
    os.symlink("..", tmp_path / "skills/a/up")
    os.symlink(".", tmp_path / "skills/a/self")
    r = build(cfg)
    assert_failed_cleanly(r, tmp_path)
    assert sorted(d.path for d in r.find("SKC303")) == ["skills/a/self", "skills/a/up"]


def test_broken_symlink(tmp_path):
    cfg = project(tmp_path, OK)
    os.symlink("nowhere.md", tmp_path / "skills/a/gone.md")
    r = build(cfg)
    assert_failed_cleanly(r, tmp_path)
    assert r.one("SKC302").message == "broken symlink"


def test_symlink_in_personas_escaping(tmp_path, outside):
    cfg = project(tmp_path, {**OK, "personas/p/manifest.yaml": "name: P\n"}, CONFIG_PERSONAS)
    os.symlink(outside / "secret.md", tmp_path / "personas/p/skill-overlays.md")
    (tmp_path / "personas/p/skill-overlays").mkdir()
    os.symlink(outside / "secret.md", tmp_path / "personas/p/skill-overlays/a.md")
    r = build(cfg)
    assert_failed_cleanly(r, tmp_path)
    assert sorted(d.path for d in r.find("SKC302")) == [
        "personas/p/skill-overlays.md",
        "personas/p/skill-overlays/a.md",
    ]


# --- extensions -------------------------------------------------------------


@pytest.mark.parametrize(
    "rel",
    [
        "personas/p/skill-overlays/a.txt",
        "personas/p/skill-overlays/a.py",
        "personas/p/skill-overlays/a",
        "personas/p/skill-overlays/a.MD.sh",
        "personas/p-exclusive/a.html",
        "personas/p-exclusive/a.yml",
    ],
)
def test_overlay_and_redirect_extensions(tmp_path, rel):
    files = {
        "skills/a/SKILL.md": skill_md(has_persona_overlay="true"),
        "personas/p/manifest.yaml": "name: P\n",
        rel: "x\n",
    }
    r = build(project(tmp_path, files, CONFIG_PERSONAS))
    assert_failed_cleanly(r, tmp_path)
    d = r.one("SKC304")
    assert (d.path, d.line, d.col, d.severity) == (rel, 1, 1, "error")
    assert "use .md, .yaml or .json" in d.message


@pytest.mark.parametrize("ext", [".md", ".yaml", ".json"])
def test_overlay_allowed_extensions(tmp_path, ext):
    files = {
        "skills/a/SKILL.md": skill_md(has_persona_overlay="true"),
        "personas/p/manifest.yaml": "name: P\n",
        f"personas/p/skill-overlays/a{ext}": "Talk like a pirate.\n",
    }
    r = build(project(tmp_path, files, CONFIG_PERSONAS))
    assert r.exit_code == 0, r.stderr


@pytest.mark.parametrize("name", ["tool.exe", "lib.so", "noext", "x.PY.bak", "f.tar.gz", ".env.example"])
def test_every_file_is_a_resource(tmp_path, name):
    r = build(project(tmp_path, {**OK, f"skills/a/scripts/{name}": b"\x7fELF"}))
    assert r.exit_code == 0, r.stderr
    paths = [x.path for x in reader.open(tmp_path / "dist").skill_meta("a").resources]
    assert f"scripts/{name}" in paths


def test_allowed_extensions_is_refused_with_a_pointer_to_exclude(tmp_path):
    cfg = project(
        tmp_path, {**OK, "skills/a/data.csv": "a,b\n"}, CONFIG + "resources:\n  allowed_extensions: [.md]\n"
    )
    r = build(cfg)
    assert r.exit_code == 1
    assert "resources.exclude" in r.one("SKC102").message


# --- collisions -------------------------------------------------------------


def test_case_only_collision(tmp_path):
    files = {"skills/deploy/SKILL.md": skill_md(), "skills/Deploy/SKILL.md": skill_md()}
    r = build(project(tmp_path, files))
    assert_failed_cleanly(r, tmp_path)
    case = [d for d in r.find("SKC306") if "only in case" in d.message]
    # `deploy` is a valid skill name and keeps the id: the error is Deploy's alone
    assert [(d.path, d.line, d.col) for d in case] == [("skills/Deploy/SKILL.md", 1, 1)]
    assert "'deploy'" in case[0].message


def test_case_only_collision_across_sources(tmp_path):
    files = {"skills/deploy/SKILL.md": skill_md(), "more/DEPLOY/SKILL.md": skill_md()}
    r = build(project(tmp_path, files, "sources: [skills, more]\n"))
    assert r.exit_code == 1
    assert any("only in case" in d.message for d in r.find("SKC306"))


def test_sanitized_id_collision(tmp_path):
    files = {"skills/foo-bar/SKILL.md": skill_md(), "skills/foo_bar/SKILL.md": skill_md()}
    r = build(project(tmp_path, files))
    assert_failed_cleanly(r, tmp_path)
    d = r.one("SKC306")
    assert (d.path, d.line, d.col, d.severity) == ("skills/foo_bar/SKILL.md", 1, 1, "error")
    assert "same sanitized id as 'foo-bar'" in d.message


def test_nested_sanitized_id_collision(tmp_path):
    files = {"skills/a/x.y/SKILL.md": skill_md(), "skills/a/x-y/SKILL.md": skill_md(), **OK}
    r = build(project(tmp_path, files))
    assert r.one("SKC306").path == "skills/a/x.y/SKILL.md"


def test_failed_path_checks_leave_previous_dist(tmp_path):
    cfg = project(tmp_path, OK)
    assert build(cfg).exit_code == 0
    before = snapshot(tmp_path / "dist")
    os.symlink("/etc/passwd", tmp_path / "skills/a/pw.md")
    assert build(cfg).exit_code == 1
    assert snapshot(tmp_path / "dist") == before


@pytest.mark.parametrize(
    "entry, reason",
    [
        ("../../etc/passwd", "contains '..'"),
        ("/etc/shadow", "is an absolute path"),
        ("~/.ssh/id_rsa", "starts with '~'"),
        ("'docs\\p2p.md'", "contains a backslash"),
    ],
)
def test_knowledge_entries_are_paths_too(tmp_path, entry, reason):
    content = f"---\ndescription: x\nknowledge:\n  - ok.md\n  - {entry}\n---\nbody\n"
    r = build(project(tmp_path, {"skills/a/SKILL.md": content}))
    assert_failed_cleanly(r, tmp_path)
    d = r.one("SKC301")
    assert (d.path, d.line, d.col) == ("skills/a/SKILL.md", 5, 5)
    assert d.message.startswith("knowledge.1:") and reason in d.message
