"""skillc diff and audit: every class of change a reviewer must see, said once, with gates."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from support.cli import run
from support.files import REPO, write_tree
from support.project import skill_md

from skillc import reader, review
from skillc.pipeline import build

# The golden review texts (golden/review/) quote this description.
DESCRIPTION = "Does a thing. Use when a thing is needed."
CONFIG = "sources: [base, extra]\npersonas: personas\ntemplate: t.xml.j2\n"
TEMPLATE = (
    "{% macro entry(s) %}<skill>{{ s.command }}: {{ s.description }}</skill>\n{% endmacro %}"
    "<available_skills>\n{% for s in skills %}{{ entry(s) }}{% endfor %}</available_skills>\n"
)
BASE = {
    "skillc.yaml": CONFIG,
    "t.xml.j2": TEMPLATE,
    "base/alpha/SKILL.md": skill_md(
        "alpha", DESCRIPTION, body="Alpha body.\n", **{"has_persona_overlay": True}
    ),
    "base/alpha/scripts/run.sh": "echo hi\n",
    "base/alpha/assets/logo.bin": b"\x00\x01binary",
    "base/beta/SKILL.md": skill_md("beta", DESCRIPTION, body="Beta body.\n"),
    "personas/pilot/manifest.yaml": "name: Pilot\n",
    "personas/pilot/skill-overlays/alpha.md": "Say arr.\n",
    "personas/pilot-x/manifest.yaml": "name: Pilot X\nfallback: pilot\n",
    "personas/crew/manifest.yaml": "name: Crew\n",
}


def _builds(tmp_path: Path, change: Callable[[Path], None]) -> review.Review:
    root = write_tree(tmp_path / "p", BASE)
    (root / "extra").mkdir()
    (root / "base/alpha/scripts/run.sh").chmod(0o644)
    result, _ = build(root / "skillc.yaml", cache=False)
    assert result.ok, result.diagnostics
    shutil.copytree(root / "dist", tmp_path / "old")
    change(root)
    result, _ = build(root / "skillc.yaml", cache=False)
    assert result.ok, result.diagnostics
    return review.compare(reader.open(tmp_path / "old"), reader.open(root / "dist"))


def _edit(rel: str, old: str, new: str) -> Callable[[Path], None]:
    def change(root: Path) -> None:
        path = root / rel
        path.write_text(path.read_text().replace(old, new, 1) if old else path.read_text() + new)

    return change


def _one(r: review.Review, kind: str, field: str) -> review.Change:
    hits = [c for c in r.changes if c.kind == kind and c.field == field]
    assert len(hits) == 1, [(c.kind, c.field) for c in r.changes]
    return hits[0]


@pytest.mark.parametrize(
    ("field", "line"),
    [
        ("allowed-tools", "allowed-tools: Bash(*)\n"),
        ("model", "model: opus\n"),
        ("context", "context: fork\n"),
        ("user-invocable", "user-invocable: false\n"),
        ("disable-model-invocation", "disable-model-invocation: true\n"),
        ("requires_bins", "requires_bins: [docker]\n"),
        ("hooks", "hooks: {PreToolUse: [{matcher: Bash}]}\n"),
    ],
)
def test_capability_fields_come_first_and_are_marked(tmp_path: Path, field: str, line: str) -> None:
    r = _builds(tmp_path, _edit("base/beta/SKILL.md", "description:", line + "description:"))
    c = _one(r, "frontmatter", field)
    assert c.capability and r.changes[0] == c and c.where == "base/beta/SKILL.md"


def test_a_description_change_is_no_capability_and_is_said_once(tmp_path: Path) -> None:
    r = _builds(tmp_path, _edit("base/beta/SKILL.md", "Does a thing.", "Does two things."))
    assert not _one(r, "frontmatter", "description").capability
    catalog = _one(r, "catalog", "catalog")
    assert catalog.personas == ("crew", "pilot", "pilot-x")  # one change, three personas
    assert not r.capability_changes


def test_resources_text_binary_and_executable_bit(tmp_path: Path) -> None:
    def change(root: Path) -> None:
        (root / "base/alpha/scripts/run.sh").write_text('echo hi\nos.system("rm -rf /")\n')
        (root / "base/alpha/assets/logo.bin").write_bytes(b"\x00\x02binary!")

    r = _builds(tmp_path, change)
    script = _one(r, "resource", "scripts/run.sh")
    assert script.capability and '+os.system("rm -rf /")' in script.diff  # a script the model runs
    binary = _one(r, "resource", "assets/logo.bin")
    assert binary.diff == () and "8 bytes" in (binary.old or "") and "9 bytes" in (binary.new or "")
    assert not binary.capability
    r = _builds(tmp_path / "x", lambda root: (root / "base/alpha/scripts/run.sh").chmod(0o755))
    bit = _one(r, "resource", "scripts/run.sh (executable bit)")
    assert bit.capability and (bit.old, bit.new) == ("false", "true")


def test_added_injection_and_hidden_unicode_are_audit_changes(tmp_path: Path) -> None:
    r = _builds(
        tmp_path, _edit("base/beta/SKILL.md", "", "Context: !`git log -5`\n```!\nls\n```\nzero\u200bwidth\n")
    )
    details = {c.new for c in r.changes if c.kind == "audit"}
    assert "!`git log -5`" in details and "```!" in details
    assert any(d and d.startswith("U+200B") for d in details)
    assert all(c.capability for c in r.changes if c.kind == "audit")


def test_persona_settings(tmp_path: Path) -> None:
    def change(root: Path) -> None:
        (root / "personas/crew/manifest.yaml").write_text(
            "name: Crew\nfallback: pilot\nunrestricted_skills: true\nskills: [beta]\n"
        )
        (root / "skillc.yaml").write_text(CONFIG + "budgets:\n  personas:\n    pilot: 5000\n")

    r = _builds(tmp_path, change)
    fields = {c.field: c for c in r.changes if c.kind == "persona"}
    assert fields["fallback chain"].new == "pilot" and fields["unrestricted_skills"].capability
    assert fields["allowlist"].new == "beta" and fields["budget"].new == "5000"
    assert _one(r, "access", "visibility").personas == ("crew",)  # alpha no longer visible to crew


def test_access_overlay_and_visibility_per_pair(tmp_path: Path) -> None:
    def change(root: Path) -> None:
        write_tree(root, {"personas/pilot-x/skill-overlays/alpha.md": "Say yo.\n"})

    r = _builds(tmp_path, change)
    overlay = _one(r, "access", "overlay")
    assert overlay.personas == ("pilot-x",) and overlay.new == "personas/pilot-x/skill-overlays/alpha.md"
    body = _one(r, "body", "resolved body")
    assert body.personas == ("pilot-x",) and "+Say yo." in body.diff


def test_exclusive_skill_changes_access(tmp_path: Path) -> None:
    def change(root: Path) -> None:
        write_tree(
            root,
            {
                "base/beta/SKILL.md": skill_md(
                    "beta", DESCRIPTION, body="Only pilots.\n", persona_exclusive="pilot"
                ),
                "personas/pilot-exclusive/beta.md": "Pilot body.\n",
            },
        )

    r = _builds(tmp_path, change)
    access = [c for c in r.changes if c.kind == "access" and c.field == "access"]
    assert {(c.old, c.new, c.personas) for c in access} == {
        ("open", "stub", ("crew",)),
        ("open", "granted", ("pilot", "pilot-x")),
    }
    assert all(c.capability for c in access)


def test_budget_cuts_show_in_the_pair_and_the_summary(tmp_path: Path) -> None:
    r = _builds(tmp_path, _edit("skillc.yaml", "", "budgets:\n  catalog_chars: 100\n  strategy: drop\n"))
    cut = [c for c in r.changes if c.field == "in catalog"]
    assert cut and all(c.new == "cut by the budget" for c in cut)
    crew = next(s for s in r.personas if s.persona == "crew")
    assert crew.newly_cut and crew.removed == crew.newly_cut


def test_skills_added_removed_and_moved(tmp_path: Path) -> None:
    def change(root: Path) -> None:
        shutil.move(root / "base/beta", root / "extra/beta")
        write_tree(root, {"base/gamma/SKILL.md": skill_md("gamma", DESCRIPTION)})
        shutil.rmtree(root / "base/alpha")
        (root / "personas/pilot/skill-overlays/alpha.md").unlink()

    r = _builds(tmp_path, change)
    skills = {(c.subject, c.field, c.old, c.new) for c in r.changes if c.kind == "skill"}
    assert ("gamma", "skill", None, "added") in skills and ("alpha", "skill", "removed", None) in skills
    assert ("beta", "source", "base/beta/SKILL.md", "extra/beta/SKILL.md") in skills


def test_no_change_no_output(tmp_path: Path) -> None:
    r = _builds(tmp_path, lambda root: None)
    assert r.changes == () and review.render_text(r) == ""


def _golden_scenario(root: Path) -> None:
    _edit("base/beta/SKILL.md", "description:", "allowed-tools: Bash(*)\nmodel: opus\ndescription:")(root)
    _edit("base/alpha/SKILL.md", "Does a thing.", "Does a thing well.")(root)
    (root / "base/alpha/scripts/run.sh").write_text("echo hi\nrm -rf /tmp/x\n")


@pytest.mark.parametrize(("fmt", "name"), [("text", "review.txt"), ("markdown", "review.md")])
def test_golden_outputs(tmp_path: Path, fmt: str, name: str) -> None:
    r = _builds(tmp_path, _golden_scenario)
    text = review.render_text(r) if fmt == "text" else review.render_markdown(r)
    expected = REPO / "tests" / "golden" / "review" / name
    if os.environ.get("UPDATE_GOLDEN"):
        expected.write_text(text)
    assert text == expected.read_text()


def test_json_is_the_same_structure(tmp_path: Path) -> None:
    r = _builds(tmp_path, _golden_scenario)
    doc = json.loads(review.render_json(r))
    assert doc["capability_changes"] == len(r.capability_changes) > 0
    assert [c["field"] for c in doc["changes"]] == [c.field for c in r.changes]


def test_exit_codes(tmp_path: Path) -> None:
    _builds(tmp_path, _edit("base/beta/SKILL.md", "Does a thing.", "Does two things."))
    old, new = str(tmp_path / "old"), str(tmp_path / "p" / "dist")
    assert run("diff", old, new)[0] == 0
    assert run("diff", "--exit-code", old, new)[0] == 1
    assert run("diff", "--fail-on", "capabilities", old, new)[0] == 0  # a description is no capability
    _builds(tmp_path / "c", _edit("base/beta/SKILL.md", "description:", "model: opus\ndescription:"))
    assert (
        run("diff", "--fail-on", "capabilities", str(tmp_path / "c/old"), str(tmp_path / "c/p/dist"))[0] == 1
    )
    assert run("diff", old)[0] == 2


def _git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = write_tree(
        tmp_path / "repo", {**{f"proj/{k}": v for k, v in BASE.items()}, "proj/extra/.keep": ""}
    )
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "one")
    _edit("proj/base/beta/SKILL.md", "description:", "model: opus\ndescription:")(root)
    _git(root, "commit", "-qam", "two")
    return root


def test_diff_against_git_refs(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo / "proj")  # the config is found in a subdirectory of the repository
    code, out = run("diff", "--git", "HEAD~1", "HEAD")
    assert code == 0 and '[capability] base/beta/SKILL.md (beta): model: (none) -> "opus"' in out
    assert run("diff", "--git", "HEAD")[1] == ""  # the working tree is HEAD
    _edit("proj/base/beta/SKILL.md", "Beta body.", "Beta body, edited.")(repo)
    code, out = run("diff", "--git", "HEAD", "--exit-code")
    assert code == 1 and "resolved body of 'beta' changed" in out
    assert not (repo / "proj" / "dist").exists()  # the project's own output is never written
    code, out = run("diff", "--git", "no-such-ref")
    assert code == 2 and "names no commit" in out


def test_shallow_clone_says_how_to_get_the_history(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clone = tmp_path / "shallow"
    _git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(clone))
    monkeypatch.chdir(clone / "proj")
    code, out = run("diff", "--git", "HEAD~1")
    assert code == 2 and "shallow clone" in out and "fetch-depth: 0" in out
    assert run("diff", "--git", "HEAD")[0] == 0


def test_audit_lists_what_each_skill_can_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_tree(
        tmp_path,
        {
            **BASE,
            "base/beta/SKILL.md": skill_md(
                "beta",
                DESCRIPTION,
                body="Run !`date` now.\n\u202eevil\n",
                **{"allowed-tools": "Read Bash(git:*)"},
            ),
        },
    )
    (root / "extra").mkdir()
    (root / "base/alpha/scripts/run.sh").chmod(0o755)
    assert run("build", "--config", str(root / "skillc.yaml"))[0] == 0
    code, out = run("audit", "--config", str(root / "skillc.yaml"))
    assert code == 0
    for line in (
        "beta: allowed-tools: Read",
        "beta: allowed-tools: Bash(git:*)",
        "beta: injection: !`date`",
        "alpha: executable: scripts/run.sh",
        "beta: hidden-unicode: U+202E RIGHT-TO-LEFT OVERRIDE x1",
    ):
        assert line in out
    code, out = run("audit", "--config", str(root / "skillc.yaml"), "--format", "json")
    assert {"command": "beta", "kind": "injection", "detail": "!`date`"} in json.loads(out)
