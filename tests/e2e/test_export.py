"""`skillc export --target T --persona P DEST`: the project tree a harness loads, through the CLI."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest
import yaml
from support.cli import run
from support.files import snapshot, write_tree
from support.targets import HARNESS

from skillc.output import export as writer
from skillc.targets import claude_code, codex, view
from skillc.targets.model import Skill

sys.path.insert(0, str(HARNESS))
import exports

TARGETS = ("claude-code", "codex", "gemini", "opencode")


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("source")
    exports.source(root)
    code, out = run("build", "--config", str(root / "skillc.yaml"))
    assert code == 0, out
    return root / "skillc.yaml"


def export(config: Path, *args: str | Path) -> tuple[int, str]:
    return run("export", "--config", str(config), *map(str, args))


@pytest.mark.parametrize("target", TARGETS)
def test_export_twice_is_byte_identical_and_the_second_writes_nothing(
    config: Path, tmp_path: Path, target: str
) -> None:
    dest = tmp_path / "dest"
    code, out = export(config, "--target", target, "--persona", "lead", dest)
    assert code == 0 and "exported" in out, out
    first = snapshot(dest)
    assert f"{view.ROOTS[target]}/s00/SKILL.md" in first
    code, out = export(config, "--target", target, "--persona", "lead", dest)
    assert code == 0 and "already current" in out, out
    again = tmp_path / "again"
    export(config, "--target", target, "--persona", "lead", again)
    assert snapshot(dest) == first == snapshot(again)


def test_scripts_stay_executable(config: Path, tmp_path: Path) -> None:
    export(config, "--target", "opencode", "--persona", "lead", tmp_path / "d")
    script = tmp_path / "d/.opencode/skills/tool/scripts/run.sh"
    assert os.stat(script).st_mode & stat.S_IXUSR
    assert not os.stat(tmp_path / "d/.opencode/skills/tool/SKILL.md").st_mode & stat.S_IXUSR


def test_overlays_exclusives_and_stubs_per_persona(config: Path, tmp_path: Path) -> None:
    for persona in ("lead", "ops"):
        code, out = export(config, "--target", "claude-code", "--persona", persona, tmp_path / persona)
        assert code == 0, out
    skills = tmp_path / "lead/.claude/skills"
    assert "The lead's own instructions." in (skills / "secret/SKILL.md").read_text()
    assert "<untrusted-data" not in (skills / "overlaid/SKILL.md").read_text()
    ops = tmp_path / "ops/.claude/skills"
    assert "Ops: page the on-call." in (ops / "overlaid/SKILL.md").read_text()
    assert "The lead's own instructions." not in (ops / "secret/SKILL.md").read_text()
    assert "disable-model-invocation: true" in (ops / "secret/SKILL.md").read_text()  # the stub


def test_all_personas_writes_one_project_folder_each(config: Path, tmp_path: Path) -> None:
    code, out = export(config, "--target", "gemini", "--all-personas", tmp_path / "d")
    assert code == 0, out
    assert sorted(p.name for p in (tmp_path / "d").iterdir()) == [
        ".skillc-export.json",
        *sorted(exports.PERSONAS),
    ]
    guest = {p.name for p in (tmp_path / "d/guest/.gemini/skills").iterdir()}
    assert guest == {"s00", "s01", "s02", "s03", "manual", "model-only", "secret", "tool", "overlaid"}


def test_codex_warns_about_what_it_leaves_out(config: Path, tmp_path: Path) -> None:
    code, out = export(config, "--target", "codex", "--persona", "lead", tmp_path / "d")
    assert code == 0 and "warning: codex: lead: 'nobody' is left out" in out
    assert not (tmp_path / "d/.agents/skills/nobody").exists()
    policy = tmp_path / "d/.agents/skills/manual/agents/openai.yaml"
    assert yaml.safe_load(policy.read_text()) == {"policy": {"allow_implicit_invocation": False}}


# A real project, as ARIA's: its own files, settings and skill beside the export (issue 39).
PROJECT = {
    "src/main.py": "print()\n",
    "CLAUDE.md": "# the project\n",
    ".claude/settings.json": '{"permissions": {"allow": ["Bash(ls)"]}, "skillOverrides": {"doctor": "off"}}',
    ".claude/skills/own/SKILL.md": "---\nname: own\ndescription: The project's own skill.\n---\n",
    ".gemini/settings.json": '{"skills": {"disabled": ["own"]}, "ui": {"theme": "x"}}',
    "opencode.json": '{"agent": {"build": {"mode": "primary"}}}',
}


@pytest.mark.parametrize("target", TARGETS)
def test_an_export_goes_beside_the_projects_own_files_and_keys(
    config: Path, tmp_path: Path, target: str
) -> None:
    dest = write_tree(tmp_path / "project", PROJECT)
    for persona in ("lead", "guest", "lead"):  # a re-export takes back only what the last one wrote
        code, out = export(config, "--target", target, "--persona", persona, "--chars", "2000", dest)
        assert code == 0, out
    after = snapshot(dest)
    assert {k: after[k] for k in PROJECT if not k.endswith("json")} == {
        k: v.encode() for k, v in PROJECT.items() if not k.endswith("json")
    }
    for name in (".claude/settings.json", ".gemini/settings.json", "opencode.json"):
        mine, now = json.loads(PROJECT[name]), json.loads(after[name])
        assert all(now[k] == v or k in ("skills", "agent", "skillOverrides") for k, v in mine.items()), name
    assert json.loads(after[".gemini/settings.json"])["skills"]["disabled"][0] == "own"
    assert json.loads(after["opencode.json"])["agent"]["build"] == {"mode": "primary"}
    assert json.loads(after[".claude/settings.json"])["skillOverrides"]["doctor"] == "off"
    assert f"{view.ROOTS[target]}/s00/SKILL.md" in after
    again = tmp_path / "again"
    export(config, "--target", target, "--persona", "lead", "--chars", "2000", write_tree(again, PROJECT))
    assert snapshot(again) == after  # the same bytes, whatever came before


def test_the_export_into_the_skillc_project_itself(config: Path) -> None:
    root = config.parent
    code, out = export(config, "--target", "claude-code", "--persona", "lead", root)
    assert code == 0, out
    assert (root / ".claude/skills/s00/SKILL.md").is_file()
    code, out = run("build", "--config", str(config))
    assert code == 0, out  # the build is not disturbed


@pytest.mark.parametrize(
    ("dest", "what"),
    [("src", "the source 'src'"), ("src/s00", "the source"), ("personas", "the personas folder"),
     ("dist", "the output 'dist'"), ("dist/x", "the output"), (".skillc-cache/x", "the build cache")],
)  # fmt: skip
def test_a_dest_a_build_reads_or_writes_is_refused_untouched(config: Path, dest: str, what: str) -> None:
    root = config.parent
    before = snapshot(root / dest.split("/")[0])
    code, out = export(config, "--target", "codex", "--persona", "ops", root / dest)
    assert code == 1 and f"is inside {what}" in out, out
    assert snapshot(root / dest.split("/")[0]) == before


def test_a_settings_file_that_is_not_json_refuses_the_export(config: Path, tmp_path: Path) -> None:
    dest = write_tree(tmp_path / "project", {".gemini/settings.json": "{\n  // mine\n}\n"})
    code, out = export(config, "--target", "gemini", "--persona", "lead", dest)
    assert code == 1 and ".gemini/settings.json is not valid JSON" in out, out
    assert snapshot(dest) == {".gemini/settings.json": b"{\n  // mine\n}\n"}


def test_a_skill_folder_of_the_projects_own_is_never_replaced(config: Path, tmp_path: Path) -> None:
    dest = write_tree(tmp_path / "project", {".claude/skills/s00/SKILL.md": "mine\n"})
    code, out = export(config, "--target", "claude-code", "--persona", "lead", dest)
    assert code == 1 and ".claude/skills/s00/ (no export for this target wrote it)" in out
    assert snapshot(dest) == {".claude/skills/s00/SKILL.md": b"mine\n"}


def test_a_user_file_in_an_exported_folder_refuses_the_next_export(config: Path, tmp_path: Path) -> None:
    dest = tmp_path / "d"
    export(config, "--target", "claude-code", "--persona", "lead", dest)
    (dest / ".claude/skills/s00/notes.md").write_text("mine\n")
    before = snapshot(dest)
    code, out = export(config, "--target", "claude-code", "--persona", "ops", dest)
    assert code == 1 and ".claude/skills/s00/notes.md" in out
    assert snapshot(dest) == before


def test_a_failed_write_leaves_the_previous_export(
    config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dest = tmp_path / "d"
    export(config, "--target", "opencode", "--persona", "lead", dest)
    before = snapshot(dest)
    real, count = writer._put, [0]

    def failing(path: Path, data: bytes, executable: bool) -> None:
        count[0] += 1
        if count[0] == 20:
            raise OSError(5, "Input/output error")
        real(path, data, executable)

    monkeypatch.setattr(writer, "_put", failing)
    code, out = export(config, "--target", "opencode", "--persona", "ops", dest)
    assert code == 1 and "cannot write the export: Input/output error" in out
    assert snapshot(dest) == before
    assert [p.name for p in tmp_path.iterdir()] == ["d"]
    assert not list(dest.glob(".skillc-export.tmp-*"))


@pytest.mark.skipif(os.geteuid() == 0, reason="root removes a read-only folder's files anyway")
def test_a_previous_export_that_cannot_be_removed_fails_without_debris(config: Path, tmp_path: Path) -> None:
    dest = tmp_path / "d"
    export(config, "--target", "codex", "--persona", "lead", dest)
    (dest / ".agents/skills/tool/scripts").chmod(0o555)
    before = snapshot(dest)
    try:
        code, out = export(config, "--target", "codex", "--persona", "ops", dest)
        assert code == 1 and "cannot be removed" in out, out
        assert snapshot(dest) == before and not list(dest.glob(".skillc-export.tmp-*"))
    finally:
        (dest / ".agents/skills/tool/scripts").chmod(0o755)


def test_a_previous_export_that_cannot_be_removed_fails_without_debris_as_root_too(
    config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dest = tmp_path / "d"
    export(config, "--target", "codex", "--persona", "lead", dest)
    before = snapshot(dest)
    locked = str(dest / ".agents/skills/tool/scripts")
    real = os.access
    monkeypatch.setattr(writer.os, "access", lambda p, m: os.fspath(p) != locked and real(p, m))
    code, out = export(config, "--target", "codex", "--persona", "ops", dest)
    assert code == 1 and "cannot be removed" in out, out
    assert snapshot(dest) == before and [p.name for p in tmp_path.iterdir()] == ["d"]


def test_usage_errors(config: Path, tmp_path: Path) -> None:
    assert export(config, "--target", "codex", tmp_path / "d")[0] == 2
    assert export(config, "--target", "codex", "--persona", "lead", "--all-personas", tmp_path / "d")[0] == 2
    code, out = export(config, "--target", "codex", "--persona", "laed", tmp_path / "d")
    assert code == 2 and "did you mean 'lead'" in out
    assert not (tmp_path / "d").exists()


def _read_back(dest: Path, target: str) -> list[Skill]:
    """The exported SKILL.md files read the way the harness reads them (fields it looks at)."""
    base = dest / view.ROOTS[target]
    out = []
    for path in sorted(base.rglob("SKILL.md")):
        front = yaml.safe_load(path.read_text().split("---\n", 2)[1])
        folder = path.parent.relative_to(base).as_posix()
        out.append(
            Skill(
                folder=folder,
                name=front.get("name"),
                description=front.get("description"),
                when_to_use=front.get("when_to_use"),
                disable_model_invocation=front.get("disable-model-invocation"),
                user_invocable=front.get("user-invocable"),
                paths=tuple(front.get("paths", ())),
                root=base.as_posix(),
                allow_implicit_invocation=not (path.parent / "agents/openai.yaml").exists(),
            )
        )
    return out


@pytest.mark.parametrize(("target", "budget"), [("claude-code", 2000), ("codex", 20000), ("codex", 2000)])
def test_the_rules_on_the_exported_files_give_the_catalog_prediction(
    config: Path, tmp_path: Path, target: str, budget: int
) -> None:
    dest = tmp_path / "d"
    export(config, "--target", target, "--persona", "lead", dest)
    option = "--chars" if target == "claude-code" else "--window"
    code, out = run(
        "catalog", "--config", str(config), "--target", target, "--persona", "lead",
        option, str(budget), "--project", str(dest), "--format", "json",
    )  # fmt: skip
    assert code == 0, out
    skills = _read_back(dest, target)
    root = (dest / view.ROOTS[target]).as_posix()
    if target == "claude-code":
        listing = claude_code.listing(skills, budget)
    else:
        listing = codex.listing(skills, [root], budget)
    assert json.loads(out)["text"] == listing.text
