"""The built-in templates' Python twins render what Jinja2 renders from the same bytes."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.files import REPO
from support.values import config

from skillc.stages import builtins
from skillc.stages import template as template_mod
from skillc.stages.template import Template, load_template

SETTINGS = settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
NAMES = ("catalog.xml.j2", "catalog.md.j2")

# Values as catalog_skill hands them on, escaped or not, and the characters Jinja2 or a format string
# could read as their own: braces, percent signs, newlines, markup, a surrogate-free Unicode mix.
TEXT = st.text(
    st.characters(blacklist_categories=["Cs"]) | st.sampled_from(["{", "}", "%", "\n", "\r", "<", "&"]),
    max_size=30,
)
SKILL = st.fixed_dictionaries(
    {
        "command": TEXT,
        "name": TEXT,
        "label": TEXT,
        "description": TEXT,
        "location": TEXT,
        "always": st.booleans(),
    }
)
PERSONA = st.fixed_dictionaries({"id": TEXT, "name": TEXT, "faction": st.none() | TEXT})


def _both(
    tmp_path: Path, name: str, as_name: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[Template, Template]:
    """The twin and Jinja2's template, loaded from a copy of the built-in `name` named `as_name`."""
    path = tmp_path / as_name
    path.write_bytes((REPO / "compiler" / "templates" / name).read_bytes())
    cfg = config(root=tmp_path, template=path, template_rel=as_name)
    twin, problems = load_template(cfg)
    assert twin is not None and not problems
    with monkeypatch.context() as m:
        m.setattr(template_mod, "builtin", lambda _source: None)
        jinja, problems = load_template(cfg)
    assert jinja is not None and not problems
    return twin, jinja


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("as_name", ["catalog.xml.j2", "list.md.j2", "plain.j2"])
def test_a_twin_is_what_jinja2_renders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, as_name: str
) -> None:
    twin, jinja = _both(tmp_path, name, as_name, monkeypatch)
    assert (twin.suffix, twin.source, twin.markup) == (jinja.suffix, jinja.source, jinja.markup)

    @SETTINGS
    @given(
        PERSONA,
        st.lists(SKILL, max_size=4),
        st.integers(0, 3) | st.integers(0, 10**6),
        st.integers(-5, 10**6),
    )
    def same(persona: dict[str, Any], skills: list[dict[str, Any]], omitted: int, budget: int) -> None:
        for skill in skills:
            assert twin.entry(skill) == jinja.entry(skill)
        kw = {"persona": persona, "skills": skills, "omitted": omitted, "budget": budget}
        assert twin.render(**kw) == jinja.render(**kw)

    same()


def test_a_built_in_loads_without_jinja2(tmp_path: Path) -> None:
    """A build with a built-in template imports no Jinja2 (a new process: this one has it)."""
    import subprocess

    (tmp_path / "catalog.xml.j2").write_bytes(
        (REPO / "compiler" / "templates" / "catalog.xml.j2").read_bytes()
    )
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from support.values import config\n"
        "from skillc.stages.template import load_template\n"
        f"t, p = load_template(config(template=Path({str(tmp_path / 'catalog.xml.j2')!r})))\n"
        "assert t is not None and not p\n"
        "print('jinja2' in sys.modules)\n"
    )
    env_path = str(REPO / "tests")
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={"PYTHONPATH": env_path}, check=True
    )
    assert out.stdout.strip() == "False"


def test_a_template_one_byte_away_is_rendered_by_jinja2(tmp_path: Path) -> None:
    source = (REPO / "compiler" / "templates" / "catalog.xml.j2").read_bytes()
    assert builtins.builtin(source) is not None
    assert builtins.builtin(source + b" ") is None
    path = tmp_path / "catalog.xml.j2"
    path.write_bytes(source.replace(b"<skill>", b"<skil>"))
    loaded, _ = load_template(config(root=tmp_path, template=path))
    assert loaded is not None
    entry = {"command": "a", "name": "a", "label": "a", "description": "d", "location": "l", "always": False}
    assert loaded.entry(entry).startswith("<skil>\n")
