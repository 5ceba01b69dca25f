"""Frontmatter rules a schema cannot say: here, what graded validation reads as the harnesses do."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillc.model import Document
from skillc.stages import frontmatter
from skillc.stages.frontmatter import harness_values


def _doc(body: str = "First line.\n\nMore.\n") -> Document:
    return Document("s/SKILL.md", {}, {}, body, 5, ())


@pytest.mark.parametrize(
    ("written", "value"),
    [(1, True), (0, False), ("oN", True), ("YES", True), ("Off", False), ("maybe", False), (None, False)],
)
def test_a_flag_is_read_as_claude_code_reads_it(written: object, value: bool) -> None:
    data, diags = harness_values(_doc(), {"description": "d", "user-invocable": written}, "", ("codex",))
    assert data["user-invocable"] is value
    assert [d.code for d in diags] == ["SKC214"]
    assert f"read as {str(value).lower()}, as Claude Code reads it" in diags[0].message
    assert diags[0].message.endswith(f"(codex: loads). Write user-invocable: {str(value).lower()}")


def test_an_empty_flag_is_said_as_such() -> None:
    diags = harness_values(_doc(), {"description": "d", "user-invocable": None}, "", ("gemini",))[1]
    assert diags[0].message.startswith("user-invocable: an empty value is not a YAML boolean; read as false")


def test_without_targets_nothing_is_read_differently() -> None:
    data = {"user-invocable": 1}
    assert harness_values(_doc(), data, "", ()) == (data, ())


def test_a_list_is_not_a_flag() -> None:
    data = {"description": "d", "disable-model-invocation": ["x"]}
    assert harness_values(_doc(), data, "", ("claude-code",)) == (data, ())


def test_a_missing_description_is_the_first_line_when_claude_code_is_selected() -> None:
    data, diags = harness_values(_doc(), {"name": "s"}, "", ("claude-code", "codex"))
    assert data["description"] == "First line."
    assert diags[0].message == (
        "description: missing; using the body's first line 'First line.', as Claude Code reads such a "
        "skill (claude-code: loads; codex: skips). Write a description that says when to use the skill"
    )


def test_a_missing_description_stays_missing_for_targets_that_skip_it() -> None:
    assert harness_values(_doc(), {"name": "s"}, "", ("gemini",)) == ({"name": "s"}, ())


def test_an_empty_description_is_filled_when_every_target_loads_it() -> None:
    data, diags = harness_values(_doc(), {"description": ""}, "", ("gemini", "opencode"))
    assert data["description"] == "First line." and "(gemini: loads; opencode: loads)" in diags[0].message
    assert harness_values(_doc(), {"description": ""}, "", ("codex",))[1] == ()


def test_no_body_line_leaves_the_description_missing() -> None:
    assert harness_values(_doc(""), {}, "", ("claude-code",)) == ({}, ())


@settings(max_examples=500)
@given(st.text(st.sampled_from("ab09-zAÉé_ ."), max_size=70) | st.sampled_from(["a" * 64, "a" * 65, "a-b"]))
def test_the_plain_name_shortcut_answers_as_every_check(name: str) -> None:
    assert frontmatter.name_problems(name) == frontmatter.name_checks(name)


_VALUES = st.one_of(
    st.sampled_from(["x", "1.10", "", "true"]),
    st.sampled_from([1, 1.5, True, None, ["a", 1]]),
    st.dictionaries(st.sampled_from(["author", "v"]), st.sampled_from(["a", 2, False, None]), max_size=2),
)


@settings(max_examples=500)
@given(
    st.dictionaries(
        st.sampled_from(["name", "description", "version", "argument-hint", "metadata", "license", "sven"]),
        _VALUES,
        max_size=5,
    )
)
def test_the_all_text_shortcut_normalises_as_every_rule(data: dict[str, object]) -> None:
    doc = Document("s/SKILL.md", data, {}, "", 5, ())
    assert frontmatter.normalise(doc, dict(data), "") == frontmatter.normalise_each(doc, dict(data), "")
