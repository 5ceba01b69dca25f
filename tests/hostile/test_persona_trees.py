"""Hostile persona trees: fallbacks, cycles, exclusives, overlays, broken manifests."""

from __future__ import annotations

import pytest
from support.cli import build
from support.project import CONFIG_PERSONAS, project, skill_md

SKILLS = {
    "skills/a/SKILL.md": skill_md(has_persona_overlay="true"),
    "skills/b/SKILL.md": skill_md(),
}


def personas(tmp_path, files, skills=SKILLS):
    return build(project(tmp_path, {**skills, **files}, CONFIG_PERSONAS))


def at(d):
    return (d.path, d.line, d.col, d.severity)


def test_unknown_fallback(tmp_path):
    r = personas(tmp_path, {"personas/p/manifest.yaml": "name: P\nfallback: parrot\n"})
    assert r.exit_code == 1 and r.exception is None
    d = r.one("SKC402")
    assert at(d) == ("personas/p/manifest.yaml", 2, 11, "error")
    assert d.message == "fallback 'parrot' is not a persona"
    assert not (tmp_path / "dist").exists()


def test_two_persona_cycle(tmp_path):
    r = personas(
        tmp_path,
        {
            "personas/a/manifest.yaml": "name: A\nfallback: b\n",
            "personas/b/manifest.yaml": "name: B\nfallback: a\n",
        },
    )
    assert r.exit_code == 1
    got = sorted((at(d), d.message) for d in r.find("SKC403"))
    assert got == [
        (("personas/a/manifest.yaml", 2, 11, "error"), "fallback cycle: a -> b -> a"),
        (("personas/b/manifest.yaml", 2, 11, "error"), "fallback cycle: b -> a -> b"),
    ]


def test_self_cycle(tmp_path):
    r = personas(tmp_path, {"personas/a/manifest.yaml": "name: A\nfallback: a\n"})
    assert r.one("SKC403").message == "fallback cycle: a -> a"


def test_chain_into_a_cycle_terminates(tmp_path):
    r = personas(
        tmp_path,
        {
            "personas/entry/manifest.yaml": "name: E\nfallback: x\n",
            "personas/x/manifest.yaml": "name: X\nfallback: y\n",
            "personas/y/manifest.yaml": "name: Y\nfallback: z\n",
            "personas/z/manifest.yaml": "name: Z\nfallback: x\n",
        },
    )
    assert r.exit_code == 1
    assert sorted(d.path for d in r.find("SKC403")) == [f"personas/{p}/manifest.yaml" for p in "xyz"]


def test_exclusive_directory_for_unknown_persona(tmp_path):
    r = personas(
        tmp_path, {"personas/p/manifest.yaml": "name: P\n", "personas/ghost-exclusive/b.md": "secret\n"}
    )
    assert r.exit_code == 1
    d = r.one("SKC404")
    assert at(d) == ("personas/ghost-exclusive", 1, 1, "error")
    assert "'ghost'" in d.message


def test_skill_exclusive_to_unknown_persona(tmp_path):
    skills = {**SKILLS, "skills/x/SKILL.md": skill_md(persona_exclusive="ghost")}
    r = personas(tmp_path, {"personas/p/manifest.yaml": "name: P\n"}, skills)
    assert r.exit_code == 1
    d = r.one("SKC411")
    assert at(d) == ("skills/x/SKILL.md", 3, 20, "error")
    assert "'ghost'" in d.message


def test_exclusive_body_without_skill(tmp_path):
    r = personas(tmp_path, {"personas/p/manifest.yaml": "name: P\n", "personas/p-exclusive/nope.md": "x\n"})
    assert at(r.one("SKC405")) == ("personas/p-exclusive/nope.md", 1, 1, "error")


def test_exclusive_skill_without_body(tmp_path):
    skills = {**SKILLS, "skills/x/SKILL.md": skill_md(persona_exclusive="p")}
    r = personas(tmp_path, {"personas/p/manifest.yaml": "name: P\n"}, skills)
    assert at(r.one("SKC406")) == ("skills/x/SKILL.md", 3, 20, "error")


def test_overlay_for_missing_skill(tmp_path):
    files = {
        "personas/p/manifest.yaml": "name: P\n",
        "personas/p/skill-overlays/ghost.md": "Talk like a pirate.\n",
    }
    r = personas(tmp_path, files)
    assert r.exit_code == 0, r.stderr
    d = r.one("SKC407")
    assert at(d) == ("personas/p/skill-overlays/ghost.md", 1, 1, "warning")
    assert "'ghost'" in d.message
    strict = build(tmp_path / "skillc.yaml", "--strict")
    assert strict.exit_code == 1 and strict.one("SKC407").severity == "error"


def test_overlay_for_skill_without_flag(tmp_path):
    files = {"personas/p/manifest.yaml": "name: P\n", "personas/p/skill-overlays/b.md": "x\n"}
    assert at(personas(tmp_path, files).one("SKC408")) == ("personas/p/skill-overlays/b.md", 1, 1, "warning")


@pytest.mark.parametrize(
    "manifest, code, line, col",
    [
        ("name: [\n", "SKC203", 2, 1),
        ("name: P\n  fallback: x\n", "SKC203", 2, 11),
        ("name: 'P\n", "SKC203", 1, 7),
        ("{{{{\n", "SKC203", 2, 1),
        ("name: P\nname: Q\n", "SKC209", 2, 1),
        ("name: &n P\nfaction: *n\n", "SKC208", 1, 7),
        ("- name\n- P\n", "SKC401", 1, 1),
        ("just a string\n", "SKC401", 1, 1),
        ("", "SKC401", 1, 1),
        ("name: P\nsecret_prompt: x\n", "SKC401", 2, 1),
        ("name: 5\n", "SKC401", 1, 7),
        ("name: P\nskills: a\n", "SKC401", 2, 9),
        ("name: P\nunrestricted_skills: 'yes'\n", "SKC401", 2, 22),
    ],
)
def test_manifest_not_valid(tmp_path, manifest, code, line, col):
    r = personas(tmp_path, {"personas/p/manifest.yaml": manifest})
    assert r.exit_code == 1 and r.exception is None, r.stderr
    hits = r.find(code)
    assert hits, r.stderr
    assert at(hits[0]) == ("personas/p/manifest.yaml", line, col, "error")


def test_manifest_not_utf8(tmp_path):
    r = personas(tmp_path, {"personas/p/manifest.yaml": b"name: \xff\n"})
    assert at(r.one("SKC201")) == ("personas/p/manifest.yaml", 1, 7, "error")


def test_persona_id_not_a_valid_name(tmp_path):
    r = personas(tmp_path, {"personas/Bad_Id/manifest.yaml": "name: P\n"})
    assert r.exit_code == 1
    assert "persona id 'Bad_Id'" in r.one("SKC401").message


def test_persona_directory_without_manifest(tmp_path):
    r = personas(tmp_path, {"personas/p/manifest.yaml": "name: P\n", "personas/q/skill-overlays/a.md": "x\n"})
    assert r.exit_code == 0
    assert at(r.one("SKC410")) == ("personas/q", 1, 1, "warning")


def test_allowlist_unknown_command(tmp_path):
    r = personas(tmp_path, {"personas/p/manifest.yaml": "name: P\nskills: [a, nope]\n"})
    assert r.exit_code == 0
    assert at(r.one("SKC409")) == ("personas/p/manifest.yaml", 2, 13, "warning")


def test_persona_failures_leave_previous_dist(tmp_path):
    from support.files import snapshot

    r = personas(tmp_path, {"personas/a/manifest.yaml": "name: A\n"})
    assert r.exit_code == 0
    before = snapshot(tmp_path / "dist")
    (tmp_path / "personas/a/manifest.yaml").write_text("name: A\nfallback: a\n")
    assert build(tmp_path / "skillc.yaml").exit_code == 1
    assert snapshot(tmp_path / "dist") == before
