"""Regression tests for bugs found in review: each failed before its fix."""

from __future__ import annotations

import json
import shutil
import unicodedata
from pathlib import Path

import pytest
from conftest import project, run, skill_md, snapshot

from skillc import reader
from skillc.pipeline import build, compile_project

GOLDEN_PROJECT = Path(__file__).parent / "golden" / "project"


def _golden(tmp_path: Path) -> Path:
    shutil.copytree(GOLDEN_PROJECT, tmp_path / "p")
    return tmp_path / "p" / "skillc.yaml"


def test_build_repairs_a_tampered_object_instead_of_linking_it_back(tmp_path: Path) -> None:
    config = _golden(tmp_path)
    build(config)
    good = snapshot(tmp_path / "p" / "dist")
    victim = next(p for p in sorted((tmp_path / "p" / "dist" / "objects").rglob("*")) if p.is_file())
    victim.write_bytes(bytes([victim.read_bytes()[0] ^ 1]) + victim.read_bytes()[1:])  # same size
    assert run("build", "--no-cache", "--config", str(config))[0] == 0
    assert snapshot(tmp_path / "p" / "dist") == good
    assert run("check", "--config", str(config))[0] == 0


@pytest.mark.parametrize(
    "config_text, message",
    [
        (
            "sources: [src]\noutput: t\ntemplate: t/c.xml.j2\n",
            "output 't' would replace the template 'c.xml.j2'",
        ),
        (
            "sources: [src]\noutput: skillc.yaml\n",
            "output 'skillc.yaml' would replace the config file 'skillc.yaml'",
        ),
    ],
)
def test_output_may_not_replace_the_config_or_the_template(
    tmp_path: Path, config_text: str, message: str
) -> None:
    from conftest import REPO

    config = project(tmp_path, {"src/a/SKILL.md": skill_md("a")}, config=config_text)
    (tmp_path / "t").mkdir()
    shutil.copy(REPO / "templates" / "catalog.xml.j2", tmp_path / "t" / "c.xml.j2")
    before = (config.read_bytes(), (tmp_path / "t" / "c.xml.j2").read_bytes())
    code, out = run("build", "--config", str(config))
    assert code == 1 and message in out
    assert (config.read_bytes(), (tmp_path / "t" / "c.xml.j2").read_bytes()) == before


def test_output_that_is_a_file_is_refused(tmp_path: Path) -> None:
    config = project(tmp_path, {"src/a/SKILL.md": skill_md("a"), "dist": "not a directory\n"})
    code, out = run("build", "--config", str(config))
    assert code == 1 and "output 'dist' exists and is not a directory" in out
    assert (tmp_path / "dist").read_text() == "not a directory\n"


def test_output_through_a_symlink_out_of_the_project_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    root = tmp_path / "proj"
    config = project(root, {"src/a/SKILL.md": skill_md("a")}, config="sources: [src]\noutput: link/dist\n")
    (root / "link").symlink_to(elsewhere)
    code, out = run("build", "--config", str(config))
    assert code == 1 and "output 'link/dist' resolves outside the project" in out
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize(
    "body, expected",
    [
        ("{% for s in skills %}{{ s.nope }}{% endfor %}", "template failed while rendering: UndefinedError"),
        ("{{ 1 // budget }}", "template failed: ZeroDivisionError"),
    ],
)
def test_template_errors_at_render_time_are_diagnostics(tmp_path: Path, body: str, expected: str) -> None:
    template = "{% macro entry(skill) %}<s>{{ skill.name }}</s>{% endmacro %}" + body
    config = project(
        tmp_path,
        {"src/a/SKILL.md": skill_md("a"), "t.xml.j2": template},
        config="sources: [src]\ntemplate: t.xml.j2\n",
    )
    code, out = run("build", "--config", str(config))
    assert code == 1 and "Traceback" not in out and "internal error" not in out
    assert f"t.xml.j2:1:1: error[SKC104]: {expected}" in out


def test_included_templates_feed_the_build_hash(tmp_path: Path) -> None:
    template = "{% macro entry(skill) %}<s>{{ skill.name }}</s>{% endmacro %}{% include 'part.txt' %}"
    files = {"src/a/SKILL.md": skill_md("a"), "t/c.xml.j2": template, "t/part.txt": "one\n"}
    config = project(tmp_path, files, config="sources: [src]\ntemplate: t/c.xml.j2\n")
    assert run("build", "--config", str(config))[0] == 0
    (tmp_path / "t" / "part.txt").write_text("two\n")
    code, out = run("build", "--config", str(config))
    assert code == 0 and "already up to date" not in out
    assert (tmp_path / "dist" / "personas" / "default" / "prompt.xml").read_text() == "two\n"


def test_computed_include_names_are_refused(tmp_path: Path) -> None:
    template = "{% macro entry(skill) %}x{% endmacro %}{% include persona.id ~ '.txt' %}"
    config = project(
        tmp_path,
        {"src/a/SKILL.md": skill_md("a"), "t.xml.j2": template},
        config="sources: [src]\ntemplate: t.xml.j2\n",
    )
    code, out = run("build", "--config", str(config))
    assert code == 1 and "error[SKC104]: template 't.xml.j2' includes a template by a computed name" in out


def test_names_differing_only_in_unicode_normalisation_are_refused(tmp_path: Path) -> None:
    nfc, nfd = unicodedata.normalize("NFC", "café"), unicodedata.normalize("NFD", "café")
    config = project(tmp_path, {f"src/{nfc}/SKILL.md": skill_md(None), f"src/{nfd}/SKILL.md": skill_md(None)})
    code, out = run("build", "--config", str(config))
    assert code == 1
    assert (
        f"src/{nfc}:1:1: error[SKC306]: two entries named '{nfc}' that differ only in Unicode normalisation"
        in out
    )


@pytest.mark.parametrize("spelling", ["src/", "./src", "src/."])
def test_path_spellings_give_identical_bytes(tmp_path: Path, spelling: str) -> None:
    files = {"src/a/SKILL.md": skill_md("a")}
    plain = compile_project(project(tmp_path / "plain", files, config="sources: [src]\n")).artifacts.files
    other = compile_project(
        project(tmp_path / "other", files, config=f"sources: ['{spelling}']\n")
    ).artifacts.files

    # build_hash covers the config's bytes, which differ; every path in the output must not
    def strip(files):
        return {
            k: v.replace(json.loads(files["_index.json"])["build_hash"].encode(), b"")
            for k, v in files.items()
        }

    assert strip(other) == strip(plain)


def test_reader_refuses_a_nul_byte_in_an_index_path(tmp_path: Path) -> None:
    config = _golden(tmp_path)
    build(config)
    index = tmp_path / "p" / "dist" / "_index.json"
    data = json.loads(index.read_text())
    data["personas"]["pilot"]["copy"] = "a\x00b"
    index.write_text(json.dumps(data))
    with pytest.raises(reader.FormatError):
        reader.open(tmp_path / "p" / "dist")
