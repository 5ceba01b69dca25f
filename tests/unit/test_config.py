"""The config: defaults, positioned schema errors, a missing file."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.project import src_project

from skillc.errors import UsageError
from skillc.project import config as config_mod


def test_config_defaults(tmp_path: Path) -> None:
    cfg, diags = config_mod.load(src_project(tmp_path, {}))
    assert diags == ()
    assert (cfg.output, cfg.catalog_chars, cfg.strict) == ("dist", 30_000, False)
    assert cfg.template.name == "catalog.xml.j2"


def test_config_schema_errors_are_positioned(tmp_path: Path) -> None:
    cfg, diags = config_mod.load(
        src_project(tmp_path, {}, config="sources: [src]\nbudgets:\n  catalog_chars: ten\n")
    )
    assert cfg is None
    assert [d.format() for d in diags] == [
        "skillc.yaml:3:18: error[SKC102]: budgets.catalog_chars: 'ten' is not of type 'integer'"
    ]


def test_missing_config_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        config_mod.load(tmp_path / "nope.yaml")


def test_targets_as_a_list_or_a_map_of_settings(tmp_path: Path) -> None:
    from skillc import targets
    from skillc.model import TargetSetting

    listed, _ = config_mod.load(
        src_project(tmp_path, {}, config="sources: [src]\ntargets: [codex, gemini]\n")
    )
    assert listed.targets == (TargetSetting("codex"), TargetSetting("gemini"))
    mapped, _ = config_mod.load(
        src_project(tmp_path, {}, config="sources: [src]\ntargets:\n  claude-code: {chars: 900}\n  codex:\n")
    )
    assert mapped.targets == (TargetSetting("claude-code", chars=900), TargetSetting("codex"))
    schema = config_mod.schema.validator("config").schema["properties"]["targets"]["oneOf"]
    assert tuple(schema[0]["items"]["enum"]) == targets.NAMES == tuple(schema[1]["properties"])


def test_a_misspelt_target_is_reported_in_its_branch_of_the_schema(tmp_path: Path) -> None:
    cfg, diags = config_mod.load(
        src_project(tmp_path, {}, config="sources: [src]\ntargets: [codex, cluade-code]\n")
    )
    assert cfg is None
    assert [d.format() for d in diags] == [
        "skillc.yaml:2:18: error[SKC102]: targets.1: 'cluade-code' is not one of 'claude-code', 'codex',"
        " 'gemini', 'opencode' (did you mean 'claude-code'?)"
    ]


def test_follow_symlinks_is_inside_unless_set_to_outside(tmp_path: Path) -> None:
    assert config_mod.load(src_project(tmp_path, {}))[0].symlinks_outside is False
    cfg, _ = config_mod.load(src_project(tmp_path, {}, config="sources: [src]\nfollow_symlinks: outside\n"))
    assert cfg is not None and cfg.symlinks_outside is True
    bad, diags = config_mod.load(src_project(tmp_path, {}, config="sources: [src]\nfollow_symlinks: yes\n"))
    assert bad is None and [d.code for d in diags] == ["SKC102"]


# Every number a project sets, by its place in the schema: its range (model.py), one definition.
BOUNDED = {
    ("budgets", "catalog_chars"): ("MIN_BUDGET", "MAX_CHARS"),
    ("budgets", "personas", "*"): ("MIN_BUDGET", "MAX_CHARS"),
    ("resources", "max_bytes"): (1, "MAX_RESOURCE_BYTES"),
    **{
        ("targets", name, "window"): (1, "MAX_WINDOW")
        for name in ("claude-code", "codex", "gemini", "opencode")
    },
    **{
        ("targets", name, "chars"): (1, "MAX_CHARS")
        for name in ("claude-code", "codex", "gemini", "opencode")
    },
}


def _integers(node: object, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], dict[str, object]]:
    """Every integer in a schema by its path (`*` for additionalProperties, branches of oneOf merged)."""
    found: dict[tuple[str, ...], dict[str, object]] = {}
    if not isinstance(node, dict):
        return found
    if node.get("type") == "integer":
        found[path] = node
    for key, sub in (node.get("properties") or {}).items():
        found.update(_integers(sub, (*path, key)))
    found.update(_integers(node.get("additionalProperties"), (*path, "*")))
    for branch in node.get("oneOf") or ():
        found.update(_integers(branch, path))
    return found


def test_every_number_of_the_config_is_bounded_by_the_ranges_of_model() -> None:
    from skillc import model
    from skillc.stages import schema

    found = _integers(schema.document("config"))
    assert set(found) == set(BOUNDED)
    for path, (low, high) in BOUNDED.items():
        want = [getattr(model, v) if isinstance(v, str) else v for v in (low, high)]
        assert [found[path].get("minimum"), found[path].get("maximum")] == want, path


@pytest.mark.parametrize(
    ("setting", "where"),
    [
        ("budgets:\n  catalog_chars: 1000000001\n", "budgets.catalog_chars"),
        ("budgets:\n  personas: {a: 18446744073709551615}\n", "budgets.personas.a"),
        ("resources:\n  max_bytes: 1073741825\n", "resources.max_bytes"),
        ("targets:\n  codex: {window: 1000000001}\n", "targets.codex.window"),
        ("targets:\n  claude-code: {chars: 9223372036854775807}\n", "targets.claude-code.chars"),
    ],
)
def test_a_number_past_its_range_is_an_error_at_its_value(tmp_path: Path, setting: str, where: str) -> None:
    cfg, diags = config_mod.load(src_project(tmp_path, {}, config="sources: [src]\n" + setting))
    assert cfg is None
    (d,) = diags
    assert d.code == "SKC102" and d.message.startswith(f"{where}: ") and "maximum" in d.message


# --- sources as mappings: each source's discovery rules (issue 39) ---------------------------------


SOURCES = """\
sources:
  - skills
  - path: ~/.agent/skills
    optional: true
  - path: data/skills/
    git_ignored: true
    depth: 1
    root_skill: true
    skip_folders: []
    duplicates: last-wins
"""


def test_a_source_is_a_path_or_a_mapping_with_its_rules(tmp_path: Path) -> None:
    from skillc.model import DEFAULT_SOURCE_RULES, Duplicates, SourceRules

    cfg, diags = config_mod.load(src_project(tmp_path, {}, config=SOURCES))
    assert cfg is not None and diags == ()
    assert cfg.sources == ("skills", "~/.agent/skills", "data/skills")
    assert cfg.source_rules == (
        DEFAULT_SOURCE_RULES,
        SourceRules(optional=True),
        SourceRules(
            depth=1, root_skill=True, skip_folders=(), duplicates=Duplicates.LAST_WINS, git_ignored=True
        ),
    )
    assert cfg.at("sources", 2) == (5, 11)  # the path's value, where a diagnostic on the source goes


def test_sources_with_the_default_rules_keep_none(tmp_path: Path) -> None:
    """A config without rules is the config it was: edit builds keep it (cache/carry.py)."""
    cfg, _ = config_mod.load(src_project(tmp_path, {}, config="sources: [src, {path: other}]\n"))
    assert cfg is not None and cfg.source_rules == () and cfg.sources == ("src", "other")


@pytest.mark.parametrize(
    "entry, message",
    [
        ("{path: a, dpeth: 1}", "sources.0: unknown key 'dpeth' (did you mean 'depth' or 'path'?)"),
        ("{optional: true}", "sources.0: 'path' is a required property"),
        (
            "{path: a, duplicates: first-wins}",
            "sources.0.duplicates: 'first-wins' is not one of 'error', 'last-wins' (did you mean 'last-wins'?)",
        ),
        ("{path: a, depth: -1}", "sources.0.depth: -1 is less than the minimum of 0"),
        ("{path: '../up'}", "sources.0.path: path '../up' contains '..'"),
    ],
)
def test_a_bad_source_mapping_is_said_where_it_is(tmp_path: Path, entry: str, message: str) -> None:
    cfg, diags = config_mod.load(src_project(tmp_path, {}, config=f"sources: [{entry}]\n"))
    assert cfg is None and [d.message for d in diags] == [message]


def test_a_repeated_source_keeps_the_rules_of_its_last_place(tmp_path: Path) -> None:
    from skillc.model import SourceRules

    config = "sources: [{path: src, depth: 1}, other, {path: src, optional: true}]\n"
    cfg, diags = config_mod.load(src_project(tmp_path, {}, config=config))
    assert cfg is not None and [d.code for d in diags] == ["SKC105"]
    assert cfg.sources == ("other", "src") and cfg.source_rules[1] == SourceRules(optional=True)


def test_sources_as_toml_tables(tmp_path: Path) -> None:
    from skillc.model import SourceRules

    (tmp_path / "src").mkdir()
    (tmp_path / "pyproject.toml").write_text(
        '[tool.skillc]\nsources = ["src", {path = "~/.sven/skills", optional = true}]\n'
    )
    cfg, diags = config_mod.load(tmp_path / "pyproject.toml")
    assert cfg is not None and diags == ()
    assert cfg.source_rules == (SourceRules(), SourceRules(optional=True))


def test_frontmatter_names(tmp_path: Path) -> None:
    from skillc.model import Names

    cfg, _ = config_mod.load(
        src_project(tmp_path, {}, config="sources: [src]\nfrontmatter: {names: lowercase-hyphens}\n")
    )
    assert cfg is not None and cfg.frontmatter.names is Names.LOWERCASE_HYPHENS
    cfg, diags = config_mod.load(
        src_project(tmp_path, {}, config="sources: [src]\nfrontmatter: {names: hyphens}\n")
    )
    assert cfg is None and "frontmatter.names: 'hyphens' is not one of" in diags[0].message


def test_frontmatter_extensions_and_fallback(tmp_path: Path) -> None:
    from skillc.model import DescriptionFallback

    config = (
        "sources: [src]\nfrontmatter:\n  description_fallback: first-paragraph\n  extensions:\n"
        "    toolsets: {type: array, items: {type: string}}\n    triggers:\n"
    )
    cfg, diags = config_mod.load(src_project(tmp_path, {}, config=config))
    assert cfg is not None and diags == ()
    assert cfg.frontmatter.description_fallback is DescriptionFallback.FIRST_PARAGRAPH
    assert cfg.frontmatter.extensions == (
        ("toolsets", '{"items": {"type": "string"}, "type": "array"}'),
        ("triggers", ""),
    )


@pytest.mark.parametrize(
    "declared, message",
    [
        (
            "name: {type: string}",
            "frontmatter.extensions.name: 'name' is a field skillc reads already; declare only fields of your own",
        ),
        (
            "triggers: {type: nope}",
            "frontmatter.extensions.triggers: not a JSON Schema: 'nope' is not valid under any of the given schemas",
        ),
        ("triggers: 5", "frontmatter.extensions.triggers: 5 is not of type ['object', 'boolean', 'null']"),
    ],
)
def test_a_bad_extension_is_said_where_it_is_declared(tmp_path: Path, declared: str, message: str) -> None:
    config = f"sources: [src]\nfrontmatter:\n  extensions:\n    {declared}\n"
    cfg, diags = config_mod.load(src_project(tmp_path, {}, config=config))
    assert cfg is None and [(d.line, d.message) for d in diags] == [(4, message)]
