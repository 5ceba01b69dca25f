"""Issue 17 item 6: every config and manifest diagnostic at the key's own line and column,
'did you mean' for closed sets, YAML errors explained, explain at scale and on broken skills."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import run
from support.project import skill_md
from support.project import src_project as project

from skillc.names.suggest import close_matches, did_you_mean


def _validate(tmp_path: Path, config: str, files: dict[str, str] | None = None) -> str:
    cfg = project(tmp_path, files if files is not None else {"src/a/SKILL.md": skill_md("a")}, config)
    return run("validate", "--config", str(cfg))[1]


def test_close_matches_ignore_case_and_keep_spelling() -> None:
    assert close_matches("Sources", ["sources", "output"]) == ["sources"]
    assert did_you_mean("sorces", ["sources", "output"]) == " (did you mean 'sources'?)"
    assert did_you_mean("zzz", ["sources"]) == ""


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        # an unknown top-level key: at the key, with the key meant
        (
            "format: 1\nsorces: [src]\nsources: [src]\n",
            "skillc.yaml:2:1: error[SKC102]: unknown key 'sorces' (did you mean 'sources'",
        ),
        # an unknown key nested in another: at the nested key, not its parent
        (
            "sources: [src]\nbudgets:\n  catalog_chars: 500\n  catalog_char: 5\n",
            "skillc.yaml:4:3: error[SKC102]: budgets: unknown key 'catalog_char' (did you mean 'catalog_chars'?)",
        ),
        # an enum value: its choices and the close one
        (
            "sources: [src]\nbudgets:\n  strategy: dorp\n",
            "skillc.yaml:3:13: error[SKC102]: budgets.strategy: 'dorp' is not one of 'drop', 'shorten', 'names-only' (did you mean 'drop'?)",
        ),
        # a missing source: at its entry
        ("sources:\n  - src\n  - nope\n", "skillc.yaml:3:5: error[SKC308]: source 'nope' is not a directory"),
        # a missing personas folder: at its key
        (
            "sources: [src]\npersonas: people\n",
            "skillc.yaml:2:1: error[SKC103]: personas directory 'people' does not exist",
        ),
        # a source inside another: at the inner one's entry
        (
            "sources:\n  - src\n  - src/a\n",
            "skillc.yaml:3:5: warning[SKC321]: source 'src/a' is inside source 'src'",
        ),
        # a resources.exclude that would drop SKILL.md: at exclude
        (
            "sources: [src]\nresources:\n  exclude: ['*.md']\n",
            "skillc.yaml:3:3: warning[SKC323]: resources.exclude matches SKILL.md",
        ),
        # a budget for a persona that does not exist: at its key, with the persona meant
        (
            "sources: [src]\nbudgets:\n  personas:\n    defualt: 500\n",
            "skillc.yaml:4:5: warning[SKC412]: budgets.personas names unknown persona 'defualt' (did you mean 'default'?)",
        ),
    ],
)
def test_config_diagnostics_are_at_the_key(tmp_path: Path, config: str, expected: str) -> None:
    assert expected in _validate(tmp_path, config)


def test_every_unknown_key_is_its_own_diagnostic(tmp_path: Path) -> None:
    out = _validate(tmp_path, "sources: [src]\nresources:\n  exclud: []\n  max_byte: 5\n")
    assert "skillc.yaml:3:3: error[SKC102]: resources: unknown key 'exclud' (did you mean 'exclude'?)" in out
    assert (
        "skillc.yaml:4:3: error[SKC102]: resources: unknown key 'max_byte' (did you mean 'max_bytes'?)" in out
    )


def test_frontmatter_field_did_you_mean(tmp_path: Path) -> None:
    text = "---\nname: a\ndescription: Does x.\nalowed-tools: Read\n---\nBody\n"
    out = _validate(tmp_path, "sources: [src]\n", {"src/a/SKILL.md": text})
    assert (
        "src/a/SKILL.md:4:1: warning[SKC205]: unknown frontmatter field 'alowed-tools' (did you mean 'allowed-tools' or 'disallowed-tools'?)"
        in out
    )


def test_persona_names_and_commands_did_you_mean(tmp_path: Path) -> None:
    files = {
        "src/deploy/SKILL.md": skill_md("deploy"),
        "personas/ops/manifest.yaml": "name: Ops\nfallback: defualt\nskills: [deplyo]\n",
        "personas/default/manifest.yaml": "name: Default\n",
    }
    out = _validate(tmp_path, "sources: [src]\npersonas: personas\n", files)
    assert "fallback 'defualt' is not a persona (did you mean 'default'?)" in out
    assert (
        "personas/ops/manifest.yaml:3:10: warning[SKC409]: allowlist names unknown command 'deplyo' (did you mean 'deploy'?)"
        in out
    )


def test_yaml_colon_in_a_plain_value_says_quote_it(tmp_path: Path) -> None:
    text = "---\nname: a\ndescription: Use when: x\n---\nBody\n"
    out = _validate(tmp_path, "sources: [src]\n", {"src/a/SKILL.md": text})
    assert "src/a/SKILL.md:3:" in out and "must be quoted: description: 'Use when: x'" in out


def test_unterminated_quote_is_reported_where_it_opens(tmp_path: Path) -> None:
    text = '---\nname: a\ndescription: "Use when\nlicense: MIT\nmetadata: {}\n---\nBody\n'
    out = _validate(tmp_path, "sources: [src]\n", {"src/a/SKILL.md": text})
    assert "src/a/SKILL.md:3:14: error[SKC203]" in out and "never closed" in out


def test_unterminated_quote_in_the_config(tmp_path: Path) -> None:
    out = _validate(tmp_path, "output: 'dist\nsources: [src]\n")
    assert "skillc.yaml:1:9: error[SKC203]" in out and "never closed" in out


def test_explain_unknown_skill_at_scale_is_short(tmp_path: Path) -> None:
    files = {f"src/skill-{i:04d}/SKILL.md": skill_md(f"skill-{i:04d}") for i in range(300)}
    cfg = project(tmp_path, files, "sources: [src]\n")
    code, out = run("explain", "--config", str(cfg), "default", "skill-00x1")
    assert code == 1
    assert "did you mean" in out and "300 valid skill(s)" in out
    assert max(len(line) for line in out.splitlines()) < 300


def test_explain_a_skill_with_errors_names_them(tmp_path: Path) -> None:
    files = {
        "src/good/SKILL.md": skill_md("good"),
        "src/bad/SKILL.md": "---\nname: bad\ndescription: Use when: x\n---\nBody\n",
    }
    cfg = project(tmp_path, files, "sources: [src]\n")
    code, out = run("explain", "--config", str(cfg), "default", "bad")
    assert code == 1 and "unknown skill" not in out
    assert "default x bad: the skill has errors (SKC203)" in out
    assert "src/bad/SKILL.md:3:" in out
    code, out = run("explain", "--config", str(cfg), "--skip-invalid", "default", "bad")
    assert code == 1 and "left out of the build (--skip-invalid is on)" in out
