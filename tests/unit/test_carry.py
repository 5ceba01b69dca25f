"""carry.py: what a build leaves for the next edit build, kept and given back as it was."""

from __future__ import annotations

from pathlib import Path

from skillc.dataclass import replace
from skillc.diagnostics import warning
from skillc.diagnostics.codes import Code
from skillc.incremental import carry as carry_mod
from skillc.incremental.carry import Carry, Catalog, Found, load, load_catalog, save
from skillc.incremental.codec import from_json, to_json
from skillc.model import Config, Persona
from skillc.project import config as config_mod

KEY = b"k" * 32


def _carry(key: str = "key") -> Carry:
    said = (warning("s/b/SKILL.md", Code.OVERRIDDEN, "Careful.", 2, 3),)
    found = Found(
        "s/a/x/SKILL.md\0abc\ns/b/SKILL.md\0def\0x\n",
        {"b": said},
        said,
        ("s/.gitignore",),
        (((("a/x", "b"), (".h/y",))),),
    )
    return Carry(
        key=key,
        index="index",
        found=found,
        anchor=(2, 1),
        anchors={"b": (3, 1)},
        own={"b": said},
        shards={"00": "d0"},
        refs={"d1": 2},
        personas={"p": Persona("p", "P", None, (), False, None, None, "personas/p/manifest.yaml", {})},
        exclusive={("p", "b"): ("d2", "personas/p-exclusive/b.md")},
        lookups=frozenset({"b", "zz"}),
        packings={"p": said},
        included={"p": ["a/x"]},
        totals={"p": 90},
        unordered=said,
        early=said,
        counts=(2, 1, 7, 1),
        catalog=carry_mod.new_catalog_id(),
        config=Config(
            Path("/p"),
            "skillc.yaml",
            ("s",),
            None,
            "dist",
            Path("/p/t.j2"),
            "t.j2",
            False,
            900,
            (),
            100,
            b"x",
        ),
        template=(b"catalog.xml.j2\0abc\n", ".xml"),
    )


def _catalog() -> Catalog:
    rows = {
        "a/x": ["x", "Nested.", "s/a/x/SKILL.md", True, 50, 30, "x"],
        "b": ["b", "Bee.", "s/b/SKILL.md", False, 40, -1, "Shown As"],
        "é": ["e", "Non-ASCII \u2028 and \x00.", "s/é/SKILL.md", False, 41, -1, "e"],
    }
    listed = {"one": ["b"], "none": [], "all": ["a/x", "b", "é"], "two": ["a/x", "é"]}
    return Catalog(rows, listed, {"b": "b"})


def test_a_carry_and_its_catalog_come_back_as_they_were_kept(tmp_path: Path) -> None:
    carry, catalog = _carry(), _catalog()
    assert save(tmp_path, KEY, carry, catalog)
    assert load(tmp_path, KEY, "key") == carry
    assert load_catalog(tmp_path, KEY, carry) == catalog


def test_another_builds_carry_or_catalog_is_none(tmp_path: Path) -> None:
    carry = _carry()
    save(tmp_path, KEY, carry, _catalog())
    assert load(tmp_path, KEY, "another build's") is None
    assert load_catalog(tmp_path, KEY, replace(carry, catalog="another")) is None
    save(tmp_path, KEY, replace(carry, catalog=carry_mod.new_catalog_id()), None)  # the carry alone
    assert load_catalog(tmp_path, KEY, load(tmp_path, KEY, "key")) is None  # type: ignore[arg-type]


def test_a_config_that_does_not_round_trip_is_not_kept() -> None:
    config = _carry().config
    assert config is not None and carry_mod._round_trips(config)
    assert not carry_mod._round_trips(replace(config, sources=(object(),)))  # type: ignore[arg-type]


EVERY_OPTION = """\
format: 1
sources:
  - skills/core
  - ~/.claude/skills
  - path: skills/project
    optional: true
    depth: 2
    root_skill: false
    skip_folders: [node_modules, vendor]
    duplicates: last-wins
    git_ignored: true
personas: skills/personas
output: dist
strict: true
skip_invalid: true
follow_symlinks: outside
diagnostics:
  SKC305: ignore
  per_path:
    "skills/vendor/**": {SKC206: warning}
budgets:
  catalog_chars: 30000
  personas: {vind: 12000}
  strategy: shorten
  priority: [deploy, "sven/*"]
resources:
  exclude: ["*.log", "build/"]
  max_bytes: 1048576
frontmatter:
  names: lowercase-hyphens
  description_fallback: first-line
  extensions:
    toolsets: {type: array, items: {type: string}}
    triggers:
targets:
  claude-code: {window: 1000000}
  codex: {window: 272000}
  gemini:
"""


def test_a_config_with_every_option_round_trips(tmp_path: Path) -> None:
    """The carry keeps the config an edit build starts from (codec.to_json): every option the
    config schema has comes back equal, so no option leaves edit builds to the cached build."""
    (tmp_path / "skillc.yaml").write_text(EVERY_OPTION)
    config, diags = config_mod.load(tmp_path / "skillc.yaml")
    assert config is not None, [d.format() for d in diags]
    assert carry_mod._round_trips(config)
    assert from_json(to_json(config)) == config
