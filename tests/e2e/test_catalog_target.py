"""`skillc catalog --target T --persona P`: the listing a harness shows, predicted from the build."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import run
from support.project import skill_md
from support.project import src_project as project

from skillc import reader
from skillc.targets import claude_code, view


def _built(root: Path, n: int = 12, config: str = "sources: [src]\n") -> Path:
    files = {
        f"src/s{i:02}/SKILL.md": skill_md(f"s{i:02}", description=f"Skill {i:02} does a thing. " * 4)
        for i in range(n)
    }
    files["src/group/inner/SKILL.md"] = skill_md("inner", description="Nested.")
    files["src/manual/SKILL.md"] = skill_md(
        "manual", description="Manual.", **{"disable-model-invocation": True}
    )
    cfg = project(root, files, config)
    code, out = run("build", "--config", str(cfg))
    assert code == 0, out
    return cfg


def test_text_is_the_target_listing_of_the_persona(tmp_path: Path) -> None:
    cfg = _built(tmp_path)
    code, out = run("catalog", "--config", str(cfg), "--target", "claude-code", "--persona", "default")
    assert code == 0, out
    dist = reader.open(tmp_path / "dist")
    expected = claude_code.listing(view.skills_for(dist, "default", "claude-code"), view.CLAUDE_DEFAULT_CHARS)
    assert out == expected.text + "\n"
    assert "- group-inner (inner): Nested." in out  # one level: the nested folder is flattened
    assert "- manual" not in out  # disable-model-invocation: a command, never listed


def test_json_names_every_skill_with_its_status(tmp_path: Path) -> None:
    cfg = _built(tmp_path)
    code, out = run(
        "catalog", "--config", str(cfg), "--target", "claude-code", "--persona", "default",
        "--chars", "400", "--format", "json",
    )  # fmt: skip
    assert code == 0, out
    doc = json.loads(out)
    assert set(doc) == {"target", "persona", "budget", "text", "skills", "builtins"}
    assert doc["budget"] == {"window": None, "chars": 400} and doc["builtins"] == []
    statuses = {s["command"]: s["status"] for s in doc["skills"]}
    assert "dropped" in statuses.values() and statuses["manual"] == "not-listed"
    for skill in doc["skills"]:
        assert set(skill) == {"command", "name", "listed", "description", "status", "reason", "injection"}


def test_codex_cuts_round_robin_at_a_small_window_and_the_config_sets_it(tmp_path: Path) -> None:
    cfg = _built(tmp_path, 40, "sources: [src]\ntargets:\n  codex: {window: 20000}\n")
    code, out = run(
        "catalog", "--config", str(cfg), "--target", "codex", "--persona", "default", "--format", "json"
    )
    assert code == 0, out
    doc = json.loads(out)
    assert doc["budget"]["window"] == 20000
    assert {s["status"] for s in doc["skills"] if s["command"].startswith("s")} == {"cut"}
    assert f"`r0` = `{tmp_path.resolve().as_posix()}/.agents/skills`" in doc["text"]


def test_gemini_and_opencode_have_no_budget(tmp_path: Path) -> None:
    cfg = _built(tmp_path)
    for target in ("gemini", "opencode"):
        code, out = run(
            "catalog", "--config", str(cfg), "--target", target, "--persona", "default", "--format", "json"
        )
        assert code == 0, out
        doc = json.loads(out)
        assert doc["budget"] == {"window": None, "chars": None}
        assert all(s["status"] in ("full", "not-listed", "skipped") for s in doc["skills"])
        # The harness's own skills are in its listing, and named apart from the project's; the
        # persona's opencode agent (`skillc export`) allows only the persona's skills, so opencode's
        # built-in is hidden from it (golden export-lead: customize-opencode not listed).
        builtins = {"gemini": ["antigravity-support", "skill-creator"], "opencode": []}
        assert doc["builtins"] == builtins[target]
        assert all(f"<name>{name}</name>" in doc["text"] for name in builtins[target])
        assert not {s["command"] for s in doc["skills"]} & set(builtins[target])


def test_usage_errors_and_no_build(tmp_path: Path) -> None:
    cfg = _built(tmp_path)
    code, out = run("catalog", "--config", str(cfg), "--target", "codex", "--persona", "defualt")
    assert code == 2 and "did you mean 'default'" in out, out
    code, out = run("catalog", "--config", str(cfg), "--target", "codx", "--persona", "default")
    assert code == 2, out
    code, out = run(
        "catalog",
        "--config",
        str(cfg),
        "--target",
        "codex",
        "--persona",
        "default",
        "--dist",
        str(tmp_path / "none"),
    )
    assert code == 1 and "run `skillc build` first" in out, out


def test_explain_names_what_each_target_does_and_why(tmp_path: Path) -> None:
    cfg = _built(tmp_path, 12, "sources: [src]\ntargets:\n  claude-code: {chars: 400}\n  codex:\n")
    code, out = run("explain", "--config", str(cfg), "default", "s11")
    assert code == 0, out
    assert "claude-code: listed without its description: over the listing budget" in out, out
    assert "(listing budget 400 characters, greedy first fit)" in out
    assert "codex: listed with its whole description (window 272,000 tokens" in out
    code, out = run("explain", "--config", str(cfg), "--target", "gemini", "default", "manual")
    assert code == 0, out
    assert "gemini: " in out and "codex:" not in out


def test_diff_reports_skills_whose_listing_status_changes(tmp_path: Path) -> None:
    old = _built(tmp_path / "old", 12, "sources: [src]\ntargets:\n  claude-code: {chars: 900}\n")
    new_files = {"src/s00/SKILL.md": skill_md("s00", description="A much longer description now. " * 20)}
    _built(tmp_path / "new", 12, "sources: [src]\n")
    (tmp_path / "new/src/s00/SKILL.md").write_text(new_files["src/s00/SKILL.md"])
    assert run("build", "--config", str(tmp_path / "new/skillc.yaml"))[0] == 0
    dists = (str(tmp_path / "old/dist"), str(tmp_path / "new/dist"))
    code, plain = run("diff", *dists)
    assert code == 0 and "listing" not in plain
    code, out = run("diff", "--config", str(old), "--target", "claude-code", "--format", "json", *dists)
    assert code == 0, out
    changes = [c for c in json.loads(out)["changes"] if c["kind"] == "target"]
    assert changes and all(c["where"] == "claude-code listing" for c in changes), changes
    assert {(c["old"], c["new"]) for c in changes} <= {("full", "dropped"), ("dropped", "full")}


def test_claude_code_honours_the_team_priority_through_name_only_overrides(tmp_path: Path) -> None:
    config = "sources: [src]\nbudgets:\n  priority: [s11, group/inner]\n"
    cfg = _built(tmp_path, 12, config)
    args = ("catalog", "--config", str(cfg), "--target", "claude-code", "--persona", "default")
    code, out = run(*args, "--chars", "300", "--format", "json")
    assert code == 0, out
    full = [s["command"] for s in json.loads(out)["skills"] if s["status"] == "full"]
    # Claude Code alone keeps descriptions in listing order (s00 first, then s01...); ranked first,
    # s11 and the nested skill keep theirs, then the rest in command order while they fit.
    assert full[:2] == ["group-inner", "s00"] and "s11" in full and "s10" not in full
    code, plain = run(*args, "--chars", "300")
    assert "- s11: Skill 11" in plain and "- s10\n" in plain
