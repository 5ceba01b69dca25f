"""A stub exposes nothing of its exclusive skill; nothing is dropped silently; config paths and
duplicates are reported where they belong."""

from __future__ import annotations

import os

import pytest
from support.cli import build, invoke
from support.project import CONFIG, CONFIG_PERSONAS, project, skill_md

from skillc import reader


@pytest.fixture
def exclusive(tmp_path):
    cfg = project(
        tmp_path,
        {
            "skills/secret/SKILL.md": skill_md(
                description="Exclusive.",
                body="Only for P. Ask P.\n",
                persona_exclusive="p",
                knowledge="[docs/secret-plan.md]",
            ),
            "skills/secret/references/plan.md": "the secret plan\n",
            "skills/secret/scripts/run.sh": "echo secret\n",
            "skills/secret/child/SKILL.md": skill_md(description="A part of the secret skill."),
            "personas/p/manifest.yaml": "name: P\n",
            "personas/q/manifest.yaml": "name: Q\n",
            "personas/p-exclusive/secret.md": "The real instructions.\n",
        },
        CONFIG_PERSONAS,
    )
    assert build(cfg).exit_code == 0
    return reader.open(tmp_path / "dist")


def test_granted_persona_sees_the_files(exclusive):
    loaded = exclusive.load("p", "secret")
    assert loaded.access == "granted" and loaded.files == ("references/plan.md", "scripts/run.sh")
    assert exclusive.resources("p", "secret") == ["references/plan.md", "scripts/run.sh"]
    assert exclusive.resource("p", "secret", "references/plan.md") == b"the secret plan\n"
    assert loaded.knowledge == ("docs/secret-plan.md",)
    assert [s.command for s in loaded.sub_skills] == ["secret/child"]


def test_stub_persona_sees_only_the_stub(exclusive):
    loaded = exclusive.load("q", "secret", by="user")  # the model is refused a stub
    assert loaded.access == "stub" and loaded.body == "Only for P. Ask P.\n"
    assert loaded.files == () and loaded.knowledge == () and loaded.sub_skills == ()
    assert (
        exclusive.resources("q", "secret") == [] and exclusive.resources("q", "secret", kind="scripts") == []
    )
    for path in ("references/plan.md", "scripts/run.sh", "SKILL.md"):
        with pytest.raises(reader.UnknownResource):
            exclusive.resource("q", "secret", path)
    rendered = loaded.render()
    assert "plan.md" not in rendered and "run.sh" not in rendered and "secret-plan" not in rendered
    assert "plan.md" not in exclusive.catalog("q")


# --- silent drops ----------------------------------------------------------------


def test_directory_name_over_64_characters_is_an_error(tmp_path):
    long = "a" * 65
    cfg = project(tmp_path, {"skills/ok/SKILL.md": skill_md(), f"skills/{long}/SKILL.md": skill_md()})
    r = build(cfg)
    assert r.exit_code == 1
    d = r.one("SKC307")
    assert d.severity == "error" and d.path == f"skills/{long}/SKILL.md" and "65" in d.message


def test_directory_name_of_64_characters_is_fine(tmp_path):
    cfg = project(tmp_path, {f"skills/{'b' * 64}/SKILL.md": skill_md()})
    assert build(cfg).exit_code == 0


@pytest.mark.parametrize(
    "body, kept",
    [
        ("---\n\n## First section\n\nKeep me.\n\n---\n\n## Second\n", "## First section"),
        ("---\nIntro paragraph, plain prose.\n---\nRest.\n", "Intro paragraph"),
        ("---\n- a list\n- of items\n---\nRest.\n", "- a list"),
        ("---\n# heading only\n---\nRest.\n", "# heading only"),
    ],
)
def test_redirect_body_opening_with_a_rule_keeps_its_first_section(tmp_path, body, kept):
    cfg = project(
        tmp_path,
        {
            "skills/secret/SKILL.md": skill_md(persona_exclusive="p"),
            "personas/p/manifest.yaml": "name: P\n",
            "personas/p-exclusive/secret.md": body,
        },
        CONFIG_PERSONAS,
    )
    r = build(cfg)
    assert r.exit_code == 0, r.stderr
    loaded = reader.open(tmp_path / "dist").load("p", "secret").body
    assert kept in loaded and loaded.startswith("---")


def test_redirect_body_with_real_frontmatter_drops_only_the_frontmatter(tmp_path):
    cfg = project(
        tmp_path,
        {
            "skills/secret/SKILL.md": skill_md(persona_exclusive="p"),
            "personas/p/manifest.yaml": "name: P\n",
            "personas/p-exclusive/secret.md": "---\ntitle: x\n---\nThe body.\n",
        },
        CONFIG_PERSONAS,
    )
    assert build(cfg).exit_code == 0
    assert reader.open(tmp_path / "dist").load("p", "secret").body == "The body.\n"


# --- config ---------------------------------------------------------------------


def test_source_listed_twice_is_one_config_warning(tmp_path):
    config = "format: 1\nsources:\n  - skills\n  - other\n  - ./skills\noutput: dist\n"
    cfg = project(
        tmp_path,
        {"skills/a/SKILL.md": skill_md(), "other/a/SKILL.md": skill_md(description="Other.")},
        config,
    )
    r = build(cfg)
    assert r.exit_code == 0, r.stderr
    d = r.one("SKC105")
    assert (d.path, d.line, d.col, d.severity) == ("skillc.yaml", 3, 5, "warning")
    assert [x.message for x in r.find("SKC305")] == [
        "command 'a' from this source overrides other/a/SKILL.md"
    ]
    assert not any(
        "overrides itself" in x.message or "skills/a/SKILL.md overrides skills/a" in x.message
        for x in r.diags
    )
    assert reader.open(tmp_path / "dist").skills("default")[0].description == "Does a thing."


def test_write_failure_path_is_relative_to_the_config(tmp_path, monkeypatch):
    from skillc.output import write as write_stage

    proj = tmp_path / "proj"
    cfg = project(proj, {"skills/a/SKILL.md": skill_md()})

    def full(*_a, **_k):
        raise OSError(28, "No space left on device", str(proj / "dist" / "objects" / "ab"))

    monkeypatch.setattr(write_stage, "write", full)
    monkeypatch.chdir(tmp_path)
    r = invoke("build", config=cfg)
    assert r.exit_code == 1
    assert r.one("SKC703").path == "proj/dist/objects/ab"  # from the working directory (issue 17)


def test_read_only_output_parent_reports_a_config_relative_path(tmp_path, monkeypatch):
    if os.geteuid() == 0:
        pytest.skip("root ignores permissions")
    proj = tmp_path / "proj"
    cfg = project(proj, {"skills/a/SKILL.md": skill_md()}, CONFIG.replace("output: dist", "output: out/dist"))
    (proj / "out").mkdir()
    os.chmod(proj / "out", 0o555)
    monkeypatch.chdir(tmp_path)
    try:
        r = invoke("build", config=cfg)
    finally:
        os.chmod(proj / "out", 0o755)
    assert r.exit_code == 1 and r.one("SKC703").path.startswith("out")
