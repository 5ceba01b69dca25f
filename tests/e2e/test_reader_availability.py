"""Run-time availability (docs/format.md §17): the catalog and listings for an environment are the
ones the compiler builds without the skills that environment cannot run, while the budget does
not bite; and no longer than the compiled catalog when it does."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import build
from support.project import CONFIG, project, skill_md

from skillc import reader

MD = 'template: "md.j2"\n'
CUSTOM = """\
{%- macro entry(skill) -%}
* {{ skill.command }} ({{ skill.name }}){% if skill.always %} [always]{% endif %}: {{ skill.description | replace("\\n", " ") }}
  at {{ skill.location }}
{% endmacro -%}
Skills for {{ persona.name }}:
{% for skill in skills %}{{ entry(skill) }}{% endfor -%}
{% if omitted %}... and {{ omitted }} more ({{ budget }} chars){% endif %}
"""
SKILLS = {
    "docker": skill_md(description="Runs containers.", requires_bins="[docker]"),
    "deploy": skill_md(description="Deploys.\n  More.", requires_env="[DEPLOY_TOKEN]", always=True),
    "lint": skill_md(description="Lints & <checks>."),
    "ship": skill_md(description="Ships.", requires_bins="[docker, git]", requires_env="[TOKEN]"),
}
LACKING = {"PATH": "/nonexistent"}  # no program, no variable


def _built(root: Path, skills: dict[str, str], config: str, template: str | None = None) -> reader.Dist:
    files = {f"skills/{c}/SKILL.md": text for c, text in skills.items()}
    if template is not None:
        files["md.j2"] = template
    r = build(project(root, files, config))
    assert r.exit_code == 0, r.stderr
    return reader.open(root / "dist")


@pytest.mark.parametrize(
    ("config", "template"),
    [(CONFIG, None), (CONFIG + 'template: "md.j2"\n', None), (CONFIG + MD, CUSTOM)],
    ids=["xml", "md", "custom"],
)
def test_without_a_bite_the_catalog_is_the_one_built_without_those_skills(
    tmp_path: Path, config: str, template: str | None
) -> None:
    if template is None and "md.j2" in config:
        from skillc.project.config import BUILTIN_TEMPLATES

        template = (BUILTIN_TEMPLATES / "catalog.md.j2").read_text()
    whole = _built(tmp_path / "all", SKILLS, config, template)
    assert whole.unavailable("default", env=LACKING) == [
        reader.Unavailable("deploy", ("env:DEPLOY_TOKEN",)),
        reader.Unavailable("docker", ("bin:docker",)),
        reader.Unavailable("ship", ("bin:docker", "bin:git", "env:TOKEN")),
    ]
    runnable = {c: t for c, t in SKILLS.items() if c == "lint"}
    without = _built(tmp_path / "some", runnable, config, template)
    assert whole.catalog("default", env=LACKING) == without.catalog("default", env=reader.EVERYWHERE)
    assert whole.catalog("default", env=reader.EVERYWHERE) != without.catalog(
        "default", env=reader.EVERYWHERE
    )
    assert [s.command for s in whole.skills("default", env=LACKING)] == ["lint"]
    assert whole.commands("default", env=LACKING) == ["lint"]
    has_token = {"PATH": "/nonexistent", "DEPLOY_TOKEN": "t"}
    one_more = {c: t for c, t in SKILLS.items() if c in ("lint", "deploy")}
    more = _built(tmp_path / "more", one_more, config, template)
    assert whole.catalog("default", env=has_token) == more.catalog("default", env=reader.EVERYWHERE)


def test_when_the_budget_bites_the_build_s_choice_is_kept(tmp_path: Path) -> None:
    many = {f"s{i:02}": skill_md(description=f"Skill number {i}.") for i in range(30)}
    many["s05"] = skill_md(description="Needs a tool.", requires_bins="[no-such-tool]")
    d = _built(tmp_path, many, CONFIG + "budgets:\n  catalog_chars: 1500\n")
    built = d.catalog("default", env=reader.EVERYWHERE)
    meta = d.persona_meta("default")
    assert meta.left_out and "s05" in meta.included
    here = d.catalog("default", env=LACKING)
    assert len(here) < len(built) <= 1500
    assert here == built.replace(
        built[built.index("<skill>\n<command>s05") :].split("</skill>\n", 1)[0] + "</skill>\n", ""
    )
    assert f"{len(meta.left_out)} more skills not listed" in here  # the frame is the build's


def test_the_process_environment_is_the_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d = _built(tmp_path, {"a": skill_md(requires_env="[SKILLC_TEST_NEEDED]")}, CONFIG)
    monkeypatch.delenv("SKILLC_TEST_NEEDED", raising=False)
    assert d.skills("default") == [] and "<command>a</command>" not in d.catalog("default")
    monkeypatch.setenv("SKILLC_TEST_NEEDED", "yes")
    assert [s.command for s in d.skills("default")] == ["a"] and "<command>a</command>" in d.catalog(
        "default"
    )
    assert d.catalog("default", which=lambda name: None) == d.catalog("default")


def test_a_template_that_does_not_split_is_reported_and_refused(tmp_path: Path) -> None:
    numbered = (
        "{%- macro entry(skill) -%}{{ skill.command }}\n{% endmacro -%}"
        "{% for skill in skills %}{{ loop.index }}. {{ entry(skill) }}{% endfor %}"
    )
    files = {
        "skills/a/SKILL.md": skill_md(requires_bins="[no-such-tool]"),
        "skills/b/SKILL.md": skill_md(),
        "numbered.j2": numbered,
    }
    r = build(project(tmp_path, files, CONFIG + 'template: "numbered.j2"\n'))
    assert r.exit_code == 0 and "warning[SKC603]" in r.stderr, r.stderr
    d = reader.open(tmp_path / "dist")
    assert d.index["split"] is None and d.index["personas"]["default"]["plan"] is None
    assert d.catalog("default", env=reader.EVERYWHERE) == "1. a\n2. b\n"
    with pytest.raises(reader.CannotSplit, match=r"entries of a, which"):
        d.catalog("default", env=LACKING)
    assert d.catalog("default", env=LACKING, which=lambda name: "/bin/" + name) == "1. a\n2. b\n"
    assert [s.command for s in d.skills("default", env=LACKING)] == ["b"]  # listings need no split
