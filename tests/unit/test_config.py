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
