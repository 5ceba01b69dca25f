"""YAML values their tag's constructor refuses, control characters from escapes, numbers JSON
cannot hold: a located diagnostic in every kind of YAML document, never an internal error."""

from __future__ import annotations

import pytest
import yaml
from support.cli import build
from support.project import CONFIG, CONFIG_PERSONAS, project, skill_md

from skillc.stages import parse, yamlgraph

BAD_VALUES = [
    ("!!bool maybe", "SKC203"),
    ('!!int ""', "SKC203"),
    ('!!float ""', "SKC203"),
    ("!!timestamp nope", "SKC203"),
    ("!!timestamp 2020-13-45", "SKC203"),
    ("!!int 0x", "SKC203"),
    ("!!int 1e3", "SKC203"),
    ("!!null x", "SKC203"),
    ("!!float .nan", "SKC203"),
    (".inf", "SKC203"),
    ("!!int 99999999999999999999999", "SKC203"),
    ("!!str [a]", "SKC203"),
    ("!!map [a]", "SKC203"),
    ("!!seq {a: 1}", "SKC203"),
    ("!!binary aGVsbG8=", "SKC212"),
    ("!!set {a: null}", "SKC212"),
    ("!!omap [a: 1]", "SKC212"),
    ("!!pairs [a: 1]", "SKC212"),
    ("!!merge x", "SKC212"),
    ('"\\0"', "SKC215"),
    ('"\\e[31mred"', "SKC215"),
    ('"a\\x9bb"', "SKC215"),
    ('"\\x7f"', "SKC215"),
    ('"\\r"', "SKC215"),
]


@pytest.mark.parametrize("value, code", BAD_VALUES)
@pytest.mark.parametrize("loader", ["c", "python"])
def test_load_yaml_locates_a_refused_value(monkeypatch, value, code, loader):
    if loader == "python":
        monkeypatch.setattr(yamlgraph, "_Loader", yaml.SafeLoader)
    data, _pos, diags = parse.load_yaml(f"ok: 1\nnested:\n  key: {value}\n", "f.yaml", 10)
    # A control character is an error, but the data stays usable so later checks still report theirs.
    assert data is None or code == "SKC215"
    assert [(d.code, d.line, d.col, d.severity.value) for d in diags] == [(code, 13, 8, "error")], diags


@pytest.mark.parametrize(
    "value", ["true", "1", "1.5", "2020-01-01", "~", "null", '"tab\\there"', '"line\\nbreak"']
)
def test_good_values_still_load(value):
    data, _pos, diags = parse.load_yaml(f"k: {value}\n", "f.yaml", 0)
    assert diags == () and "k" in data


def test_control_character_in_a_key():
    _data, _pos, diags = parse.load_yaml('"\\e": 1\n', "f.yaml", 0)
    assert [d.code for d in diags] == ["SKC215"]


@pytest.mark.parametrize("key", ["<<: {name: a}", "<<: [{name: a}]", "? !!merge <<\n: {name: a}"])
def test_merge_keys_are_refused(key):
    data, _pos, diags = parse.load_yaml(f"description: x\n{key}\n", "f.yaml", 0)
    assert data is None and diags and all(d.severity.value == "error" for d in diags)


# --- every document kind, end to end ---------------------------------------------


def kinds(value: str) -> dict[str, tuple[dict[str, str], str, str, int]]:
    """kind -> (files, config, path of the bad document, line of the value)."""
    ok_persona = {"personas/p/manifest.yaml": "name: P\n"}
    return {
        "frontmatter": (
            {"skills/a/SKILL.md": f"---\ndescription: x\nlicense: {value}\n---\nbody\n"},
            CONFIG,
            "skills/a/SKILL.md",
            3,
        ),
        "manifest": (
            {"skills/a/SKILL.md": skill_md(), "personas/p/manifest.yaml": f"name: P\nfaction: {value}\n"},
            CONFIG_PERSONAS,
            "personas/p/manifest.yaml",
            2,
        ),
        "redirect body": (
            {
                "skills/a/SKILL.md": skill_md(persona_exclusive="p"),
                **ok_persona,
                "personas/p-exclusive/a.md": f"---\ntitle: {value}\n---\nThe real body.\n",
            },
            CONFIG_PERSONAS,
            "personas/p-exclusive/a.md",
            2,
        ),
        "config": ({"skills/a/SKILL.md": skill_md()}, CONFIG + f"strict: {value}\n", "skillc.yaml", 5),
    }


@pytest.mark.parametrize("kind", ["frontmatter", "manifest", "redirect body", "config"])
@pytest.mark.parametrize("value, code", [*[v for v in BAD_VALUES if v[1] != "SKC212"][::3], BAD_VALUES[-5]])
def test_every_document_kind_reports_a_located_error(tmp_path, kind, value, code):
    files, config, path, line = kinds(value)[kind]
    r = build(project(tmp_path, files, config))
    assert r.exception is None, r.exception
    assert "internal error" not in r.stderr
    assert r.exit_code == 1, r.stderr
    hits = [d for d in r.diags if d.path == path and d.line == line and d.severity == "error"]
    assert code in [d.code for d in hits], r.stderr
    assert {d.code for d in hits} <= {code, "SKC102", "SKC204", "SKC401"}, r.stderr
    assert not (tmp_path / "dist").exists()


def test_control_characters_never_reach_a_prompt(tmp_path):
    r = build(
        project(
            tmp_path,
            {
                "skills/a/SKILL.md": '---\ndescription: "Looks fine\\e]0;owned\\a"\n---\nbody\n',
                "personas/p/manifest.yaml": 'name: "P\\0"\n',
            },
            CONFIG_PERSONAS,
        )
    )
    assert r.exit_code == 1
    assert sorted((d.path, d.code) for d in r.diags if d.severity == "error") == [
        ("personas/p/manifest.yaml", "SKC215"),
        ("skills/a/SKILL.md", "SKC215"),
    ]
