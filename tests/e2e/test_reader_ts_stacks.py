"""Stacks of builds through the TypeScript reader (docs/format.md §16): for each strategy and
budget, the stack's catalog, persona meta and listing are those the TypeScript reader gives for
one build of the tiers' sources, and those the Python reader gives for the stack. The conformance
suite holds `drop` and `shorten` stacks to the Python reader; this holds `names-only` too, and each
to a build the compiler packed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import tsreader
from support.project import skill_md
from support.stacks import stack_and_one, tier_skills

from skillc import reader

BASE = """\
format: 1
sources: [skills]
output: dist
budgets:
  catalog_chars: {budget}
  strategy: {strategy}
"""

CALLS = """
const [stack, one] = [reader.open([args[0], args[1]]), reader.open(args[2])];
const every = { env: reader.EVERYWHERE };
const view = (d) => ({
  catalog: d.catalog("default", every),
  meta: d.personaMeta("default"),
  skills: d.skills("default", every),
  body: d.load("default", "user-1").body,
});
process.stdout.write(JSON.stringify({ stack: view(stack), one: view(one), shadowed: stack.shadowed() }));
"""


def _python(d: reader.Dist) -> dict[str, Any]:
    """The Python reader's answers, named as the TypeScript reader names them."""
    every = reader.EVERYWHERE
    m = d.persona_meta("default")
    return {
        "catalog": d.catalog("default", env=every),
        "included": list(m.included),
        "leftOut": list(m.left_out),
        "shortened": list(m.shortened),
        "catalogChars": m.catalog_chars,
    }


@pytest.mark.parametrize("strategy", ["drop", "shorten", "names-only"])
@pytest.mark.parametrize("budget", [300, 900, 5000])
def test_a_stack_packs_as_one_build_in_typescript(tmp_path: Path, strategy: str, budget: int) -> None:
    node = tsreader.node()
    bundled = {
        **tier_skills("skills", 5, long=True),
        "skills/user-1/SKILL.md": skill_md(description="Shadowed."),
    }
    user = tier_skills("user", 6, long=strategy != "drop")
    config = BASE.format(budget=budget, strategy=strategy)
    tiers, one = stack_and_one(tmp_path, config, bundled, user)
    got = tsreader.module(node, CALLS, *tiers, one)
    assert got["stack"] == got["one"]
    assert got["shadowed"] == [{"command": "user-1", "tier": 0, "by": 1}]
    meta = got["stack"]["meta"]
    python = _python(reader.open(tiers))
    assert {k: python[k] for k in ("included", "leftOut", "shortened", "catalogChars")} == {
        k: meta[k] for k in ("included", "leftOut", "shortened", "catalogChars")
    }
    assert got["stack"]["catalog"] == python["catalog"]
