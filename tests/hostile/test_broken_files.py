"""Hostile and broken files: frontmatter, YAML, encodings, sizes, field limits."""

from __future__ import annotations

import pytest
import yaml
from support.cli import build
from support.dist import expand
from support.project import CONFIG, project, skill_md

from skillc.model import SKILL_MD_CAP
from skillc.stages import yamlgraph

MD = "skills/a/SKILL.md"


def one_skill(tmp_path, content, config=CONFIG):
    return build(project(tmp_path, {MD: content}, config))


def assert_error_at(r, code, line, col, path=MD):
    assert r.exception is None, r.exception
    assert r.exit_code == 1, r.stderr
    d = r.one(code)
    assert (d.path, d.line, d.col, d.severity) == (path, line, col, "error"), r.stderr
    return d


# --- frontmatter shape ------------------------------------------------------


@pytest.mark.parametrize(
    "content, reason",
    [
        ("Just a body.\n", "no frontmatter"),
        ("", "no frontmatter"),
        ("\n\n---\ndescription: x\n---\nbody\n", "no frontmatter"),
        ("---\ndescription: x\nbody without end\n", "unterminated frontmatter"),
        ("---\n", "unterminated frontmatter"),
    ],
)
def test_missing_or_unterminated_frontmatter(tmp_path, content, reason):
    d = assert_error_at(one_skill(tmp_path, content), "SKC202", 1, 1)
    assert d.message.startswith(reason)


@pytest.mark.parametrize("fm", ["- a\n- b\n", "just text\n", "42\n", "[description, x]\n"])
def test_frontmatter_not_a_mapping(tmp_path, fm):
    d = assert_error_at(one_skill(tmp_path, f"---\n{fm}---\nbody\n"), "SKC202", 2, 1)
    assert d.message == "frontmatter is not a mapping"


def test_empty_frontmatter_is_missing_description(tmp_path):
    d = assert_error_at(one_skill(tmp_path, "---\n---\nbody\n"), "SKC204", 1, 1)
    assert "'description' is a required property" in d.message


# --- YAML -------------------------------------------------------------------


@pytest.mark.parametrize(
    "fm, line, col",
    [
        ("description: x\n  bad: indent\n", 3, 6),
        ("description: x\nname: 'unclosed\n", 3, 7),
        ("description: [a, b\n", 3, 1),
        ("description: x\n\tname: tab\n", 3, 1),
        ("description: x\nkey: @reserved\n", 3, 6),
        ("description: x\nname: a\x07b\n", 3, 8),
    ],
)
def test_yaml_syntax_error_has_line_and_column(tmp_path, fm, line, col):
    d = assert_error_at(one_skill(tmp_path, f"---\n{fm}---\nbody\n"), "SKC203", line, col)
    assert d.message.startswith("YAML syntax error")


def test_yaml_control_character_position_with_pure_python_loader(tmp_path, monkeypatch):
    # Without libyaml the reader refuses the character in the constructor.
    monkeypatch.setattr(yamlgraph, "_Loader", yaml.SafeLoader)
    d = assert_error_at(one_skill(tmp_path, "---\ndescription: é\nname: é\x07\n---\nbody\n"), "SKC203", 3, 8)
    assert "U+0007" in d.message


def test_yaml_control_character_position_counts_characters_not_bytes(tmp_path):
    d = assert_error_at(one_skill(tmp_path, "---\ndescription: é\nname: éé\x07\n---\nbody\n"), "SKC203", 3, 9)
    assert "U+0007" in d.message


BILLION_LAUGHS = (
    "---\n"
    'description: &a "lol"\n'
    "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
    "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
    "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
    "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
    "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
    "h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
    "i: [*h, *h, *h, *h, *h, *h, *h, *h, *h]\n"
    "---\nbody\n"
)


def test_billion_laughs_rejected_before_expansion(tmp_path):
    r = one_skill(tmp_path, BILLION_LAUGHS)
    assert r.exit_code == 1 and r.exception is None
    hits = r.find("SKC208")
    assert hits and all(d.severity == "error" and d.path == MD for d in hits)
    assert (hits[0].line, hits[0].col) == (2, 14)  # the first node reached twice: the anchored scalar


def test_single_alias_rejected(tmp_path):
    r = one_skill(tmp_path, "---\ndescription: &d x\nlicense: *d\n---\nbody\n")
    assert_error_at(r, "SKC208", 2, 14)


def test_merge_key_rejected(tmp_path):
    assert_error_at(one_skill(tmp_path, "---\ndescription: x\n<<: {name: a}\n---\nbody\n"), "SKC204", 3, 1)


@pytest.mark.parametrize(
    "tag",
    [
        "!!python/object/apply:os.system ['touch {marker}']",
        "!!python/object/new:os.system ['touch {marker}']",
        "!!python/name:os.system",
        "!!python/object:builtins.object {{}}",
        "!custom x",
        "!!binary aGVsbG8=",
        "!!set {{a: null}}",
    ],
)
def test_custom_tags_never_execute(tmp_path, tag):
    marker = tmp_path / "PWNED"
    r = one_skill(tmp_path, f"---\ndescription: {tag.format(marker=marker)}\n---\nbody\n")
    d = assert_error_at(r, "SKC212", 2, 14)
    assert "is not allowed" in d.message
    assert not marker.exists()


def test_custom_tag_in_config_and_manifest_never_executes(tmp_path):
    marker = tmp_path / "PWNED"
    cfg = project(
        tmp_path, {MD: skill_md()}, f"sources: !!python/object/apply:os.system ['touch {marker}']\n"
    )
    r = build(cfg)
    assert_error_at(r, "SKC212", 1, 10, path="skillc.yaml")
    cfg.write_text("sources: [skills]\npersonas: personas\n")
    (tmp_path / "personas/p").mkdir(parents=True)
    (tmp_path / "personas/p/manifest.yaml").write_text(
        f"name: !!python/object/apply:os.system ['touch {marker}']\n"
    )
    assert_error_at(build(cfg), "SKC212", 1, 7, path="personas/p/manifest.yaml")
    assert not marker.exists()


@pytest.mark.parametrize(
    "fm, line, col",
    [
        ("description: x\nname: a\ndescription: y\n", 4, 1),
        ("description: x\nmetadata:\n  k: 1\n  k: 2\n", 5, 3),
    ],
)
def test_duplicate_keys(tmp_path, fm, line, col):
    d = assert_error_at(one_skill(tmp_path, f"---\n{fm}---\nbody\n"), "SKC209", line, col)
    assert "duplicate key" in d.message


def test_non_string_key(tmp_path):
    assert_error_at(one_skill(tmp_path, "---\ndescription: x\n1: one\n---\nbody\n"), "SKC204", 3, 1)


def test_deep_nesting(tmp_path):
    deep = "[" * 5000 + "]" * 5000
    r = one_skill(tmp_path, f"---\ndescription: x\nmetadata: {deep}\n---\nbody\n")
    assert r.exit_code == 1 and r.exception is None
    assert r.one("SKC203").message == "nesting deeper than 32 levels"


# --- encodings --------------------------------------------------------------


def test_bom_is_removed_silently(tmp_path):
    r = one_skill(tmp_path, "\ufeff" + skill_md())
    assert r.exit_code == 0, r.stderr
    assert r.diags == ()


def test_crlf_is_normalised_silently(tmp_path):
    r = one_skill(tmp_path, "---\r\ndescription: x\r\n---\r\nline one\r\nline two\r\n")
    assert r.exit_code == 0, r.stderr
    assert r.diags == ()
    index = expand(tmp_path / "dist")
    body = (
        tmp_path / "dist/objects" / index["skills"]["a"]["body"][:2] / index["skills"]["a"]["body"]
    ).read_bytes()
    assert body == b"line one\nline two\n"


def test_crlf_and_bom_build_the_same_as_clean(tmp_path):
    clean, dirty = tmp_path / "clean", tmp_path / "dirty"
    build(project(clean, {MD: skill_md()}))
    build(project(dirty, {MD: "\ufeff" + skill_md().replace("\n", "\r\n")}))
    a = expand(clean / "dist")
    b = expand(dirty / "dist")
    assert a["skills"] == b["skills"] and a["resolutions"] == b["resolutions"]


@pytest.mark.parametrize(
    "data, line, col",
    [
        ("---\ndescription: café\n---\n".encode("latin-1"), 2, 17),
        (b"---\ndescription: x\n---\nok\n\xc3\x28\n", 5, 1),
        (b"\xff\xfedescription: x", 1, 1),
        ("---\ndescription: x\n---\n".encode("utf-16"), 1, 4),
    ],
)
def test_non_utf8(tmp_path, data, line, col):
    d = assert_error_at(one_skill(tmp_path, data), "SKC201", line, col)
    assert d.message.startswith("not valid UTF-8") or d.message.startswith("binary file")


def test_binary_file(tmp_path):
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
    d = assert_error_at(one_skill(tmp_path, png), "SKC201", 3, 1)
    assert d.message == "binary file (contains NUL bytes)"


def test_binary_overlay_and_manifest(tmp_path):
    cfg = project(
        tmp_path,
        {
            MD: skill_md(has_persona_overlay="true"),
            "personas/p/manifest.yaml": b"name: P\x00\n",
            "personas/q/manifest.yaml": "name: Q\n",
            "personas/q/skill-overlays/a.md": b"\x00\x01\x02",
        },
        CONFIG + "personas: personas\n",
    )
    r = build(cfg)
    assert r.exit_code == 1
    assert sorted((d.path, d.line, d.col) for d in r.find("SKC201")) == [
        ("personas/p/manifest.yaml", 1, 8),
        ("personas/q/skill-overlays/a.md", 1, 1),
    ]


def test_empty_file(tmp_path):
    assert_error_at(one_skill(tmp_path, b""), "SKC202", 1, 1)


def test_empty_body_warns(tmp_path):
    r = one_skill(tmp_path, "---\ndescription: x\n---\n")
    assert r.exit_code == 0
    d = r.one("SKC213")
    assert (d.line, d.severity) == (4, "warning")


# --- sizes and field limits -------------------------------------------------


def test_skill_md_over_cap(tmp_path):
    content = skill_md(body="x" * SKILL_MD_CAP)
    d = assert_error_at(one_skill(tmp_path, content), "SKC207", 1, 1)
    assert f"the cap is {SKILL_MD_CAP}" in d.message


def test_skill_md_at_cap_is_fine(tmp_path):
    head = skill_md(body="")
    r = one_skill(tmp_path, head + "x" * (SKILL_MD_CAP - len(head)))
    assert r.exit_code == 0, r.stderr


def test_resource_over_cap(tmp_path):
    cfg = project(
        tmp_path, {MD: skill_md(), "skills/a/big.txt": "x" * 101}, CONFIG + "resources:\n  max_bytes: 100\n"
    )
    d = assert_error_at(build(cfg), "SKC207", 1, 1, path="skills/a/big.txt")
    assert "resources.max_bytes is 100" in d.message


def test_description_1025_chars(tmp_path):
    d = assert_error_at(one_skill(tmp_path, skill_md(description="d" * 1025)), "SKC216", 2, 14)
    assert d.message == "description: is 1025 characters long; the limit is 1024"


def test_description_1024_chars_is_fine(tmp_path):
    assert one_skill(tmp_path, skill_md(description="d" * 1024)).exit_code == 0


def test_name_65_chars(tmp_path):
    name = "a" * 65
    r = build(project(tmp_path, {f"skills/{name}/SKILL.md": skill_md(name=name)}))
    d = assert_error_at(r, "SKC219", 3, 7, path=f"skills/{name}/SKILL.md")
    assert (
        d.message
        == f"name: {name!r} is 65 characters long; the limit is 64: it is the skill's label, not its id"
    )


def test_name_64_chars_is_fine(tmp_path):
    name = "a" * 64
    assert build(project(tmp_path, {f"skills/{name}/SKILL.md": skill_md(name=name)})).exit_code == 0


@pytest.mark.parametrize(
    "name, why",
    [
        ("Bad", "must be lowercase"),
        ("bad--name", "consecutive hyphens"),
        ("-bad", "start or end with a hyphen"),
        ("bad-", "start or end with a hyphen"),
        ("bad_name", "only letters, digits and hyphens"),
    ],
)
def test_invalid_names(tmp_path, name, why):
    r = build(project(tmp_path, {f"skills/{name}/SKILL.md": skill_md(name=name)}))
    d = assert_error_at(r, "SKC219", 3, 7, path=f"skills/{name}/SKILL.md")
    assert why in d.message


def test_name_differs_from_directory(tmp_path):
    r = build(project(tmp_path, {"skills/a/SKILL.md": skill_md(name="b")}))
    assert_error_at(r, "SKC206", 3, 7)


def test_uppercase_directory_without_name_warns(tmp_path):
    r = build(project(tmp_path, {"skills/Bad--Dir/SKILL.md": skill_md()}))
    assert r.exit_code == 0
    assert r.one("SKC307").path == "skills/Bad--Dir/SKILL.md"
    assert build(project(tmp_path, {}), "--strict").exit_code == 1


def test_wrong_field_types_report_each_field(tmp_path):
    r = one_skill(tmp_path, "---\ndescription: [5]\nalways: maybe\ncontext: nope\n---\nbody\n")
    assert r.exit_code == 1
    assert sorted((d.line, d.col) for d in r.find("SKC204")) == [(2, 14), (3, 9), (4, 10)]
