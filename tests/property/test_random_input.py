"""Property: random bytes and random YAML never crash a build or write outside dist/."""

from __future__ import annotations

import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.cli import DIAG, build
from support.files import snapshot, tree_digest
from support.project import CONFIG_PERSONAS, project, skill_md

from skillc import reader

SETTINGS = settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])

FIELDS = [
    "name",
    "description",
    "license",
    "metadata",
    "allowed-tools",
    "always",
    "context",
    "sven",
    "has_persona_overlay",
    "persona_exclusive",
    "requires_bins",
    "fallback",
    "skills",
    "unrestricted_skills",
    "faction",
    "a",
    "p",
]
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(max_size=40),
    st.sampled_from(["a", "p", "*", "../x", "/abs", "~", "C:\\x", "a" * 65, "A--b", "</untrusted-data>"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda kids: (
        st.lists(kids, max_size=4)
        | st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=8), kids, max_size=4)
    ),
    max_leaves=12,
)
YAML_CHARS = st.sampled_from(
    [
        *list("-:{}[]&*!|>'\"%@`#,? \n\t\r\x00\x07\ufeff\u2028é"),
        "---",
        "...",
        "!!python/object:os.system",
        "*a",
        "&a",
        "<<",
        *FIELDS,
    ]
)


def dumped(value) -> str:
    return yaml.safe_dump(value, allow_unicode=True, sort_keys=False)


YAML_TEXT = st.one_of(
    VALUES.map(dumped),
    st.dictionaries(st.sampled_from(FIELDS), VALUES, max_size=5).map(dumped),
    st.lists(YAML_CHARS, max_size=40).map("".join),
)
RAW = st.one_of(
    st.binary(max_size=600),
    YAML_TEXT.map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.tuples(YAML_TEXT, st.text(max_size=80)).map(
        lambda p: f"---\n{p[0]}---\n{p[1]}".encode("utf-8", "surrogatepass")
    ),
    st.tuples(YAML_TEXT, st.binary(max_size=40)).map(
        lambda p: b"---\n" + p[0].encode("utf-8", "surrogatepass") + p[1]
    ),
)

BASE = {
    "skills/a/SKILL.md": skill_md(has_persona_overlay="true"),
    "skills/b/SKILL.md": skill_md(),
    "skills/b/references/r.md": "ref\n",
    "personas/p/manifest.yaml": "name: P\n",
    "personas/p/skill-overlays/a.md": "Talk like a pirate.\n",
}


ALLOWED = ("dist", ".dist.lock", ".skillc-cache")  # the output, its lock, the build cache


def outside_dist(root: Path) -> dict[str, str]:
    return {k: v for k, v in tree_digest(root).items() if k.split("/")[0] not in ALLOWED}


def assert_clean_build(root: Path, rel: str, data: bytes) -> None:
    """Build the good tree, swap in `data`, build again: exit 0 or 1, diagnostics only, dist/ alone."""
    cfg = project(root, BASE, CONFIG_PERSONAS)
    first = build(cfg)
    assert first.exit_code == 0, first.stderr
    good = snapshot(root / "dist")
    (root / rel).write_bytes(data)
    before = outside_dist(root)
    r = build(cfg)
    assert r.exception is None, repr(r.exception)
    assert r.exit_code in (0, 1), r.stderr
    for line in r.stderr.splitlines():
        assert DIAG.match(line) or line.startswith("skillc: "), line
    assert outside_dist(root) == before
    if r.exit_code == 1:
        assert any(d.severity == "error" for d in r.diags), r.stderr
        assert snapshot(root / "dist") == good
    else:
        dist = reader.open(root / "dist")
        for persona in dist.personas():
            dist.catalog(persona)
            for info in dist.skills(persona):
                dist.load(persona, info.command)


@SETTINGS
@given(RAW)
def test_random_skill_md(data):
    with tempfile.TemporaryDirectory() as tmp:
        assert_clean_build(Path(tmp), "skills/a/SKILL.md", data)


@SETTINGS
@given(RAW)
def test_random_manifest(data):
    with tempfile.TemporaryDirectory() as tmp:
        assert_clean_build(Path(tmp), "personas/p/manifest.yaml", data)


@SETTINGS
@given(
    st.one_of(
        RAW,
        YAML_TEXT.map(
            lambda t: ("sources: [skills]\npersonas: personas\n" + t).encode("utf-8", "surrogatepass")
        ),
    )
)
def test_random_config(data):
    with tempfile.TemporaryDirectory() as tmp:
        assert_clean_build(Path(tmp), "skillc.yaml", data)


@SETTINGS
@given(RAW)
def test_random_overlay(data):
    with tempfile.TemporaryDirectory() as tmp:
        assert_clean_build(Path(tmp), "personas/p/skill-overlays/a.md", data)
