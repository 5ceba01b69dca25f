"""Real skill trees (issue 8): what public collections contain, in small fixtures of our own."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.cli import build, invoke
from support.dist import expand
from support.files import write_tree
from support.project import CONFIG, project, skill_md

from skillc import reader
from skillc.stages.discover import walk

OK = {"skills/a/SKILL.md": skill_md()}


def index(root: Path) -> dict:
    """skills by command, and personas with their catalog (the persona meta) under "catalog"."""
    view = expand(root / "dist")
    return {
        "skills": view["skills"],
        "personas": {p: {**m, "catalog": m} for p, m in view["personas"].items()},
    }


def resources(root: Path, command: str) -> dict[str, dict]:
    return {r["path"]: r for r in index(root)["skills"][command]["resources"]}


# --- resources ----------------------------------------------------------------


def test_every_regular_file_ships_with_its_executable_bit(tmp_path):
    files = {
        **OK,
        "skills/a/fonts/x.ttf": b"\0\1",
        "skills/a/LICENSE": "MIT\n",
        "skills/a/assets/.env.example": "K=\n",
        "skills/a/scripts/task-brief": "#!/bin/sh\n",
        "skills/a/data.db-wal": b"w",
        "skills/a/x.tar.gz": b"z",
        "skills/a/.DS_Store": b"junk",
        "skills/a/Thumbs.db": b"junk",
        "skills/a/.git/HEAD": "ref\n",
    }
    cfg = project(tmp_path, files)
    os.chmod(tmp_path / "skills/a/scripts/task-brief", 0o755)
    r = build(cfg)
    assert r.exit_code == 0, r.stderr
    got = resources(tmp_path, "a")
    assert sorted(got) == [
        "LICENSE",
        "assets/.env.example",
        "data.db-wal",
        "fonts/x.ttf",
        "scripts/task-brief",
        "x.tar.gz",
    ]
    assert got["scripts/task-brief"]["executable"] is True and got["LICENSE"]["executable"] is False


def test_exclude_takes_gitignore_patterns_and_can_take_a_default_back(tmp_path):
    files = {
        **OK,
        "skills/a/build/out.o": b"o",
        "skills/a/notes.log": "x",
        "skills/a/keep.log": "x",
        "skills/a/.DS_Store": b"x",
    }
    cfg = project(
        tmp_path, files, CONFIG + "resources:\n  exclude: ['build/', '*.log', '!keep.log', '!.DS_Store']\n"
    )
    assert build(cfg).exit_code == 0
    assert sorted(resources(tmp_path, "a")) == [".DS_Store", "keep.log"]


def test_default_excludes_by_name_agree_with_their_gitignore_reading():
    from skillc.model import DEFAULT_EXCLUDES
    from skillc.names import gitignore
    from skillc.stages.discover import default_excludes

    spec = gitignore.from_entries(DEFAULT_EXCLUDES)
    names = [".git", ".hg", ".svn", ".DS_Store", "Thumbs.db", "git", ".gitignore", "thumbs.db", "x.DS_Store"]
    for rel in [*names, *(f"a/b/{n}" for n in names), "scripts/.git", ".github/x"]:
        for is_dir in (False, True):
            want = spec.verdict(rel, is_dir) is True
            assert default_excludes(rel, is_dir) == want, (rel, is_dir)


def test_a_file_over_max_bytes_names_the_file_and_the_setting(tmp_path):
    cfg = project(tmp_path, {**OK, "skills/a/big.bin": b"x" * 11}, CONFIG + "resources:\n  max_bytes: 10\n")
    r = build(cfg)
    d = r.one("SKC207")
    assert d.path == "skills/a/big.bin" and "resources.max_bytes is 10" in d.message


def test_exec_bit_change_rebuilds_with_the_cache(tmp_path):
    cfg = project(tmp_path, {**OK, "skills/a/run.sh": "echo\n"})
    assert invoke("build", config=cfg).exit_code == 0
    os.chmod(tmp_path / "skills/a/run.sh", 0o755)
    assert invoke("build", config=cfg).exit_code == 0
    assert resources(tmp_path, "a")["run.sh"]["executable"] is True


# --- one bad skill costs one skill ----------------------------------------------

BAD = {
    **OK,
    "skills/b/SKILL.md": skill_md(description="x" * 1025),
    "skills/c/SKILL.md": "---\nname: C\ndescription: y\n---\nbody\n",
    "skills/c/link.md": None,
}


def bad_tree(tmp_path: Path, config: str = CONFIG) -> Path:
    cfg = project(tmp_path, {k: v for k, v in BAD.items() if v is not None}, config)
    os.symlink("/etc/passwd", tmp_path / "skills/c/link.md")
    return cfg


def test_without_skip_invalid_errors_fail_and_every_problem_is_reported(tmp_path):
    r = build(bad_tree(tmp_path))
    assert r.exit_code == 1
    # c's bad resource does not hide its bad frontmatter
    assert {(d.path, d.code) for d in r.diags if d.severity == "error"} == {
        ("skills/b/SKILL.md", "SKC216"),
        ("skills/c/SKILL.md", "SKC219"),
        ("skills/c/link.md", "SKC302"),
    }


@pytest.mark.parametrize("how", ["flag", "config"])
def test_skip_invalid_leaves_out_each_bad_skill_and_writes(tmp_path, how):
    cfg = bad_tree(tmp_path, CONFIG + ("skip_invalid: true\n" if how == "config" else ""))
    r = invoke("build", *(["--skip-invalid"] if how == "flag" else []), config=cfg)
    assert r.exit_code == 0, r.stderr
    assert all(d.severity == "warning" for d in r.diags)
    summary = r.one("SKC314")
    assert summary.message.startswith("2 skill(s) left out") and "b, c" in summary.message
    assert sorted(index(tmp_path)["skills"]) == ["a"]


def test_skip_invalid_leaves_out_a_skill_with_late_errors_and_reports_them(tmp_path):
    cfg = project(tmp_path, {**OK, "skills/d/SKILL.md": skill_md(persona_exclusive="nobody")})
    r = invoke("build", "--skip-invalid", config=cfg)
    assert r.exit_code == 0, r.stderr
    assert r.one("SKC411").severity == "warning" and "1 skill(s) left out" in r.one("SKC314").message


def test_skip_invalid_does_not_hide_config_errors(tmp_path):
    cfg = project(tmp_path, OK, CONFIG + "budgets:\n  catalog_chars: 1\n")
    assert invoke("build", "--skip-invalid", config=cfg).exit_code == 1


# --- frontmatter the harnesses accept ----------------------------------------------


def test_argument_hint_list_version_number_and_metadata_are_normalised(tmp_path):
    md = "---\ndescription: d\nargument-hint: [file]\nversion: 1.10\nmetadata:\n  n: 2\n  ok: true\n---\nbody\n"
    r = build(project(tmp_path, {"skills/a/SKILL.md": md}))
    assert r.exit_code == 0, r.stderr
    fm = index(tmp_path)["skills"]["a"]["frontmatter"]
    assert (
        fm["argument-hint"] == "[file]"
        and fm["version"] == "1.1"
        and fm["metadata"] == {"n": "2", "ok": "true"}
    )
    messages = [d.message for d in r.find("SKC214")]
    assert any('argument-hint: "[file]"' in m for m in messages)
    assert any("reads 1.10 as the number 1.1" in m and 'version: "1.10"' in m for m in messages)
    assert len(messages) == 4


def test_scalar_text_fields_are_read_as_written_like_skills_ref(tmp_path):
    md = "---\nname: '2024'\ndescription: 1.50\nlicense: no\n---\nbody\n"
    r = build(project(tmp_path, {"skills/2024/SKILL.md": md}))
    assert r.exit_code == 0, r.stderr
    entry = index(tmp_path)["skills"]["2024"]
    assert entry["description"] == "1.50" and entry["frontmatter"]["license"] == "no"
    assert len(r.find("SKC214")) == 2


def test_claude_code_fields_are_known_and_typed(tmp_path):
    md = (
        "---\ndescription: d\nwhen_to_use: when\narguments: [issue, branch]\ndisallowed-tools: Bash Write\n"
        "effort: high\nbackground: false\nhooks: {PreToolUse: []}\npaths: 'src/**, docs/*'\nshell: bash\n---\nb\n"
    )
    r = invoke("build", "--strict", config=project(tmp_path, {"skills/a/SKILL.md": md}))
    assert r.exit_code == 0, r.stderr
    fm = index(tmp_path)["skills"]["a"]["frontmatter"]
    assert fm["disallowed-tools"] == ["Bash", "Write"] and fm["paths"] == ["src/**", "docs/*"]
    bad = invoke(
        "build",
        config=project(tmp_path / "x", {"skills/a/SKILL.md": md.replace("effort: high", "effort: huge")}),
    )
    assert bad.exit_code == 1 and bad.one("SKC204").message.startswith("effort:")


# The cases of skills-ref's own validator tests (skills-ref/tests/test_validator.py), same verdicts.
SPEC_CASES = [
    ("my-skill", "my-skill", True),
    ("MySkill", "myskill", False),  # uppercase
    ("a" * 65, "a" * 65, False),  # too long
    ("-my-skill", "-my-skill", False),  # leading hyphen
    ("my--skill", "my--skill", False),  # consecutive hyphens
    ("my_skill", "my_skill", False),  # invalid character
    ("correct-name", "wrong-name", False),  # directory mismatch
    ("技能", "技能", True),  # Chinese
    ("мой-навык", "мой-навык", True),  # Russian with hyphens
    ("навык", "навык", True),  # Russian lowercase
    ("НАВЫК", "навык", False),  # Russian uppercase
    ("cafe\u0301", "caf\u00e9", True),  # NFKC: decomposed name, composed directory
]


@pytest.mark.parametrize("name, directory, ok", SPEC_CASES)
def test_names_follow_the_spec_as_skills_ref_does(tmp_path, name, directory, ok):
    r = build(
        project(
            tmp_path,
            {f"skills/{directory}/SKILL.md": f"---\nname: {name}\ndescription: A test skill\n---\nBody\n"},
        )
    )
    assert (r.exit_code == 0) is ok, r.stderr


@pytest.mark.parametrize(
    "extra, ok",
    [
        ("license: MIT\nmetadata:\n  author: x\n  version: '1.0'\ncompatibility: Python 3\n", True),
        ("allowed-tools: Bash(jq:*) Read\n", True),
        ("compatibility: " + "c" * 501 + "\n", False),
        (
            "description2: x\n",
            False,
        ),  # unexpected field: skills-ref error, skillc warning (an error with --strict)
    ],
)
def test_spec_field_verdicts_match_skills_ref_under_strict(tmp_path, extra, ok):
    md = f"---\nname: my-skill\ndescription: A test skill\n{extra}---\nBody\n"
    r = invoke("build", "--strict", config=project(tmp_path, {"skills/my-skill/SKILL.md": md}))
    assert (r.exit_code == 0) is ok, r.stderr


def test_description_too_long_and_blank(tmp_path):
    assert (
        build(project(tmp_path / "1", {"skills/a/SKILL.md": skill_md(description="d" * 1025)})).exit_code == 1
    )
    assert build(project(tmp_path / "2", {"skills/a/SKILL.md": skill_md(description="'   '")})).exit_code == 1


# --- discovery -------------------------------------------------------------------


def test_lowercase_skill_md_is_accepted_with_a_warning_and_uppercase_wins(tmp_path):
    r = build(
        project(
            tmp_path,
            {
                "skills/a/skill.md": skill_md(),
                "skills/b/SKILL.md": skill_md(body="upper\n"),
                "skills/b/skill.md": skill_md(body="lower\n"),
            },
        )
    )
    assert r.exit_code == 0, r.stderr
    assert r.one("SKC312").path == "skills/a/skill.md"
    assert "skill.md" in resources(tmp_path, "b")


def test_a_source_with_only_hidden_skills_warns_naming_them(tmp_path):
    cfg = project(
        tmp_path, {"skills/.curated/x/SKILL.md": skill_md(), "skills/.system/y/SKILL.md": skill_md()}
    )
    r = build(cfg)
    d = r.one("SKC313")
    assert "skills/.curated" in d.message and "skills/.system" in d.message
    cfg.write_text(CONFIG.replace("  - skills\n", "  - skills/.curated\n  - skills/.system\n"))
    r = build(cfg)
    assert r.exit_code == 0 and sorted(index(tmp_path)["skills"]) == ["x", "y"]


def test_claude_layout_symlink_inside_the_project_is_followed(tmp_path):
    cfg = project(
        tmp_path,
        {"shared/x/SKILL.md": skill_md(), "shared/x/ref.md": "r\n"},
        CONFIG.replace("  - skills\n", "  - .claude/skills\n"),
    )
    (tmp_path / ".claude/skills").mkdir(parents=True)
    os.symlink("../../shared/x", tmp_path / ".claude/skills/x")
    r = build(cfg)
    assert r.exit_code == 0, r.stderr
    assert index(tmp_path)["skills"]["x"]["path"] == ".claude/skills/x/SKILL.md"


def test_symlink_diamond_walks_each_directory_once(tmp_path):
    # 40 levels, each holding two links to the next: 2**40 paths if links were walked blindly.
    write_tree(tmp_path, {"skills/d0/SKILL.md": skill_md()}, exact=True)
    for level in range(40):
        here = tmp_path / ("skills/d0" if level == 0 else f"levels/d{level}")
        (tmp_path / f"levels/d{level + 1}").mkdir(parents=True, exist_ok=True)
        for link in ("l", "r"):
            os.symlink(tmp_path / f"levels/d{level + 1}", here / link)
    tree = walk(tmp_path / "skills", "skills", confine=os.path.realpath(tmp_path))
    assert len(tree.dirs) == 42  # the root, d0 and 40 levels: each once
    assert sum(d.code == "SKC311" for d in tree.diagnostics) == 40


def test_symlink_loop_and_escape_stay_errors(tmp_path):
    cfg = project(tmp_path, OK)
    os.symlink("..", tmp_path / "skills/a/up")
    r = build(cfg)
    assert r.exit_code == 1 and r.one("SKC303").path == "skills/a/up"


def test_home_source_is_labelled_not_expanded(tmp_path, monkeypatch):
    home = tmp_path / "home"
    write_tree(
        home, {".claude/skills/p/SKILL.md": skill_md(description="line\ndescription: dup")}, exact=True
    )  # bad: duplicate key
    monkeypatch.setenv("HOME", str(home))
    cfg = project(tmp_path / "proj", OK, "format: 1\nsources: [skills, ~/.claude/skills]\noutput: dist\n")
    r = build(cfg)
    assert r.one("SKC209").path == "~/.claude/skills/p/SKILL.md"
    write_tree(home, {".claude/skills/p/SKILL.md": skill_md()}, exact=True)
    assert build(cfg).exit_code == 0
    data = "".join(
        p.read_text("utf-8", "replace") for p in (tmp_path / "proj/dist").rglob("*") if p.is_file()
    )
    assert str(home) not in data and '"source": "~/.claude/skills"' in data


# --- budgets ---------------------------------------------------------------------


def budget_tree(tmp_path: Path, strategy: str, budget: int = 900, priority: str = "[]") -> Path:
    files = {
        f"skills/s{i:02d}/SKILL.md": skill_md(description=f"Skill number {i} " + "word " * 20)
        for i in range(12)
    }
    return project(
        tmp_path,
        files,
        CONFIG + f"budgets:\n  catalog_chars: {budget}\n  strategy: {strategy}\n  priority: {priority}\n",
    )


def test_drop_warns_once_per_persona_and_verbose_names_all(tmp_path):
    cfg = budget_tree(tmp_path, "drop")
    r = build(cfg)
    assert len(r.find("SKC601")) == 1 and "--verbose lists all" in r.one("SKC601").message
    verbose = invoke("build", "--verbose", config=cfg)
    left = index(tmp_path)["personas"]["default"]["catalog"]["left_out"]
    assert all(c in verbose.one("SKC601").message for c in left)


def test_priority_globs_rank_before_command_order(tmp_path):
    build(budget_tree(tmp_path, "drop", budget=700, priority="[s11, 's1*']"))
    included = index(tmp_path)["personas"]["default"]["catalog"]["included"]
    assert included[-2:] == ["s10", "s11"] and "s09" not in included


def test_shorten_cuts_descriptions_evenly_before_dropping(tmp_path):
    assert build(budget_tree(tmp_path, "shorten", budget=2200)).exit_code == 0
    cat = index(tmp_path)["personas"]["default"]["catalog"]
    assert cat["left_out"] == [] and len(cat["shortened"]) == 12
    text = reader.open(tmp_path / "dist").catalog("default")
    assert len(text) <= 2200 and text.count("…") == 12


def test_names_only_keeps_every_name(tmp_path):
    assert build(budget_tree(tmp_path, "names-only", budget=2300)).exit_code == 0
    cat = index(tmp_path)["personas"]["default"]["catalog"]
    text = reader.open(tmp_path / "dist").catalog("default")
    assert cat["left_out"] == [] and all(f"s{i:02d}" in text for i in range(12)) and len(text) <= 2300
    assert cat["shortened"] and "s00" not in cat["shortened"]  # lowest priority loses its description first


def test_explain_says_why_a_skill_was_cut(tmp_path):
    cfg = budget_tree(tmp_path, "drop")
    build(cfg)
    left = index(tmp_path)["personas"]["default"]["catalog"]["left_out"][0]
    out = invoke("explain", "default", left, config=cfg).stdout
    assert "left out: the catalog is over its budget" in out and "priority rank" in out
