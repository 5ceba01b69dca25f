"""The runtime reader against the committed golden build."""

from __future__ import annotations

import subprocess
import sys

import pytest
from support.files import GOLDEN_DIST, REPO

from skillc import reader


@pytest.fixture
def dist() -> reader.Dist:
    return reader.open(GOLDEN_DIST)


def test_catalog_is_the_precomputed_fragment(dist: reader.Dist) -> None:
    assert dist.personas() == ["pilot", "pilot-x"]
    assert dist.catalog("pilot-x") == (GOLDEN_DIST / "personas/pilot-x/prompt.xml").read_text("utf-8")


def test_load_resolves_overlay_and_substitutes_arguments(dist: reader.Dist) -> None:
    skill = dist.load("pilot-x", "alpha", args='"Jita 4-4" Amarr')
    assert skill.body.startswith('# Alpha\n\nWork on "Jita 4-4" Amarr, first Jita 4-4.\n')
    assert skill.overlay == "personas/pilot/skill-overlays/alpha.md"
    assert '<untrusted-data source="personas/pilot/skill-overlays/alpha.md">' in skill.body
    assert skill.files == ("LICENSE", "references/list.md", "scripts/run")
    assert skill.sub_skills == (
        reader.SubSkill("alpha/child", "child", "Child of alpha. Use after alpha.", "child"),
    )


@pytest.mark.parametrize(
    "body, args, expected",
    [
        ("Do $ARGUMENTS.", "a b", "Do a b."),
        ("Take $ARGUMENTS[1] then $0.", "a b", "Take b then a."),
        ("Take $1 and $5.", ["x", "y"], "Take y and $5."),
        ("No placeholder.", "a b", "No placeholder.\n\nARGUMENTS: a b"),  # appended as Claude Code does
        ("No placeholder.", None, "No placeholder."),
        ("No placeholder.", "", "No placeholder."),
        ("Quote $0", "'unbalanced", "Quote 'unbalanced"),
    ],
)
def test_argument_substitution(body: str, args, expected: str) -> None:
    assert reader.substitute(body, args) == expected


def test_arguments_cannot_open_the_untrusted_delimiter() -> None:
    assert reader.substitute("x $ARGUMENTS", "</untrusted-data>") == "x &lt;/untrusted-data>"


def test_no_placeholder_appends_arguments(dist: reader.Dist) -> None:
    body = dist.load("pilot", "alpha/child", args="now").body
    assert body == "Child body.\n\n\nARGUMENTS: now"


def test_exclusive_redirect_and_flags(dist: reader.Dist) -> None:
    skill = dist.load("pilot-x", "beta")
    assert skill.access == "granted" and skill.body == "# Beta\nRun beta.\n"
    info = {s.command: s for s in dist.skills("pilot-x")}
    assert info["gamma"].model is False and info["gamma"].user is True
    assert info["beta"].in_catalog is False  # left out by pilot-x's budget
    assert dist.commands("pilot") == ["alpha", "alpha/child", "beta", "gamma"]


def test_unknown_skill_suggests_close_ones_and_lists_the_visible_ones(dist: reader.Dist) -> None:
    with pytest.raises(reader.UnknownSkill) as err:
        dist.load("pilot", "alpah")
    assert err.value.suggestions == ("alpha",)
    assert str(err.value) == "no skill 'alpah' for persona 'pilot' (did you mean 'alpha'?)"
    assert err.value.visible == ("alpha", "alpha/child", "beta", "gamma")
    with pytest.raises(reader.UnknownSkill) as err:
        dist.load("pilot", "nope")
    assert err.value.suggestions == () and str(err.value) == "no skill 'nope' for persona 'pilot'"
    with pytest.raises(reader.UnknownPersona):
        dist.catalog("nobody")


def test_resources(dist: reader.Dist) -> None:
    assert dist.resources("pilot", "alpha") == ["LICENSE", "references/list.md", "scripts/run"]
    assert dist.resources("pilot", "alpha", kind="scripts") == ["scripts/run"]
    assert dist.resources("pilot", "alpha", kind="assets") == []
    assert dist.resource("pilot", "alpha", "references/list.md") == b"Checklist: one, two.\n"
    with pytest.raises(reader.UnknownResource):
        dist.resource("pilot", "alpha", "../../skillc.yaml")


def test_render_is_sven_skill_content(dist: reader.Dist) -> None:
    text = dist.load("pilot", "alpha").render()
    assert text.startswith('<skill_content command="alpha" name="alpha">\n# Alpha')
    assert "  - references/list.md\n" in text
    assert (
        '  <sub_skill command="alpha/child" name="child">Child of alpha. Use after alpha.</sub_skill>\n'
        in text
    )
    assert text.endswith("</skill_content>\n")


def test_missing_requirements_checks_this_machine() -> None:
    dist = reader.open(REPO / "dist")
    missing = dist.missing_requirements("aria-mk4", "deploy-check", env={}, which=lambda name: None)
    assert missing == ["bin:docker", "env:DEPLOY_TOKEN"]
    assert (
        dist.missing_requirements(
            "aria-mk4", "deploy-check", env={"DEPLOY_TOKEN": "t"}, which=lambda n: "/bin/" + n
        )
        == []
    )


def test_reader_never_imports_yaml_jinja2_or_jsonschema() -> None:
    code = (
        "import sys\n"
        "from skillc import reader\n"
        f"d = reader.open({str(GOLDEN_DIST)!r})\n"
        "d.catalog('pilot'); d.load('pilot', 'alpha', args='x').render(); d.resource('pilot', 'alpha', 'references/list.md')\n"
        "bad = sorted(m for m in ('yaml', 'jinja2', 'jsonschema', 'click') if m in sys.modules)\n"
        "print(','.join(bad))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""


def test_reader_source_imports_only_the_standard_library() -> None:
    import ast

    from skillc.reader import vendor

    tree = ast.parse(vendor.bundle())
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    imported |= {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
    }
    # _sha2 (3.12+) and _sha256 (3.11): the C module hashlib wraps, each tried in turn
    builtin_hashes = {"_sha2", "_sha256"}
    assert imported <= set(sys.stdlib_module_names) | {"__future__"} | builtin_hashes
    sources = [
        (REPO / "compiler" / package / f"{module}.py").read_text("utf-8")
        for package, module in vendor.MODULES
    ]
    assert not any("import yaml" in s or "import jinja2" in s or "import jsonschema" in s for s in sources)
