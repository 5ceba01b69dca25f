"""One SKILL.md checked: frontmatter fields, names, harness blocks, tool lists."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.project import skill_md, src_project
from support.values import skill_source

from skillc.dataclass import replace
from skillc.model import DescriptionFallback, FrontmatterRules, Names, Skill
from skillc.options import Options
from skillc.pipeline import compile_project
from skillc.stages import frontmatter
from skillc.stages.skills import check_skill, lowercase_hyphens, split_tools


def test_unknown_field_is_a_warning_and_an_error_when_strict(tmp_path: Path) -> None:
    files = {"src/x/SKILL.md": skill_md("x", triggers="hello")}
    loose = compile_project(src_project(tmp_path, files))
    assert loose.ok and [d.format() for d in loose.diagnostics] == [
        "src/x/SKILL.md:4:1: warning[SKC205]: unknown frontmatter field 'triggers'"
    ]
    strict = compile_project(src_project(tmp_path, files), Options(strict=True))
    assert not strict.ok and [d.severity.value for d in strict.diagnostics] == ["error"]


def test_name_defaults_to_directory_and_must_match_it(tmp_path: Path) -> None:
    result = compile_project(
        src_project(
            tmp_path,
            {
                "src/good/SKILL.md": skill_md(None),
                "src/bad/SKILL.md": skill_md("other"),
            },
        )
    )
    assert result.program.skills["good"].name == "good"
    assert [d.format() for d in result.diagnostics] == [
        "src/bad/SKILL.md:2:7: error[SKC206]: name 'other' does not match its directory 'bad'"
    ]


def test_sven_block_is_folded_into_the_harness_fields(tmp_path: Path) -> None:
    text = "---\ndescription: d\nsven:\n  always: true\n  requires_bins: [docker]\n---\nBody\n"
    result = compile_project(src_project(tmp_path, {"src/s/SKILL.md": text}))
    skill = result.program.skills["s"]
    assert skill.flag("always") is True and skill.flag("requires_bins") == ["docker"]


@pytest.mark.parametrize(
    "text, tools",
    [
        ("Bash(git:*) Read", ["Bash(git:*)", "Read"]),
        ("read_file, grep_files", ["read_file", "grep_files"]),
        ("Bash(git add:*), Write", ["Bash(git add:*)", "Write"]),
    ],
)
def test_allowed_tools_spec_and_pegasus_forms(text: str, tools: list[str]) -> None:
    assert split_tools(text) == tools


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_the_pool_gives_what_the_serial_check_gives(method: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Forked workers read the sources from shared memory (this process checks its share too), spawned
    ones receive them; either way the results equal check_skill's, and the parent takes the digest a
    worker computed."""
    import hashlib
    import multiprocessing

    from support.values import skill_source

    from skillc.stages import skills

    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} here")
    sources = [skill_source(f"s{i}", skill_md(f"s{i}", body=f"Body {i}.\n")) for i in range(7)]
    sources.append(skill_source("bad", "---\nname: [\n---\n"))
    expected = [skills.check_skill(src) for src in sources]
    fresh = [skill_source(s.command, s.skill_md.data.decode()) for s in sources]
    monkeypatch.setattr(skills, "PARALLEL_THRESHOLD", 2)
    monkeypatch.setattr(skills, "_CHUNK", 3)
    monkeypatch.setattr(skills, "_fork_context", lambda: multiprocessing.get_context(method))
    monkeypatch.setattr(skills, "_forks", lambda: method == "fork")
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    assert skills.check_skills(fresh) == expected
    # a digest a worker computed is adopted (forked: this process checks chunks too, hashing on demand)
    adopted = [vars(s.skill_md).get("digest") for s in fresh]
    assert method == "fork" or None not in adopted
    assert all(
        d in (None, hashlib.sha256(s.skill_md.data).hexdigest()) for d, s in zip(adopted, fresh, strict=True)
    )
    assert skills._FORKED == ()  # nothing kept past the pool


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the workers fork here")
def test_forked_workers_import_no_process_pool() -> None:
    """A build whose workers are forked imports neither concurrent.futures nor multiprocessing (with
    logging, 8 ms of a full build's start-up): only a spawned pool needs them."""
    import subprocess
    import sys

    code = (
        "import os, sys\n"
        "from support.values import skill_source\n"
        "from support.project import skill_md\n"
        "from skillc.stages import skills\n"
        "skills.PARALLEL_THRESHOLD = 2\n"
        "os.cpu_count = lambda: 2\n"
        "srcs = [skill_source(f's{i}', skill_md(f's{i}')) for i in range(5)]\n"
        "assert skills.check_skills(srcs) == [skills.check_skill(s) for s in srcs]\n"
        "print(sorted(m for m in ('concurrent.futures', 'multiprocessing') if m in sys.modules))\n"
    )
    tests = str(Path(__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([tests, os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_chunks_of_a_worker_that_died_are_checked_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """The forked workers fail (a bug, a kill): this process checks their chunks, same results."""
    import multiprocessing

    from support.values import skill_source

    from skillc.stages import skills

    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork here")
    sources = [skill_source(f"s{i}", skill_md(f"s{i}", body=f"Body {i}.\n")) for i in range(9)]
    expected = [skills.check_skill(src) for src in sources]

    def dies(indices: range) -> list[skills.Packed]:
        os._exit(3)

    monkeypatch.setattr(skills, "PARALLEL_THRESHOLD", 2)
    monkeypatch.setattr(skills, "_CHUNK", 2)
    monkeypatch.setattr(skills, "_check_range", dies)
    monkeypatch.setattr("os.cpu_count", lambda: 3)
    assert skills.check_skills(sources) == expected


@pytest.mark.parametrize("count", [1, 99, 100, 101, 10_000, 102_400, 102_401, 300_000])
def test_chunks_cover_every_file_once_within_the_claims_pipe(count: int) -> None:
    from skillc.stages import skills, workers

    ranges = skills._ranges(count)
    assert len(ranges) <= workers.MAX_CHUNKS
    assert [i for r in ranges for i in r] == list(range(count))


# --- names are labels, commands are folders (issue 39) -------------------------------------------


def _checked(command: str, text: str, **changes: object) -> tuple[Skill | None, list[str]]:
    skill, diags = check_skill(replace(skill_source(command, text), **changes))
    return skill, [d.format() for d in diags]


def test_a_name_that_is_no_valid_id_is_the_label_and_the_folder_the_id() -> None:
    skill, diags = _checked("sven/plan", skill_md("Sven Plan"))
    assert skill is not None
    assert (skill.command, skill.name, skill.label) == ("sven/plan", "plan", "Sven Plan")
    assert skill.fields["name"] == "Sven Plan"  # kept as written: the readers read the label there
    assert diags == [
        "skills/sven/plan/SKILL.md:2:7: error[SKC219]: name: 'Sven Plan' must be lowercase; may hold "
        "only letters, digits and hyphens: it is the skill's label, not its id"
    ]


def test_the_name_rule_is_a_warning_where_every_selected_target_loads_the_skill() -> None:
    _, diags = _checked("sven/plan", skill_md("Sven Plan"), targets=("claude-code", "gemini"))
    assert [d.split(": ", 1)[1] for d in diags] == [
        "warning[SKC219]: name: 'Sven Plan' must be lowercase; may hold only letters, digits and "
        "hyphens: it is the skill's label, not its id (claude-code: loads; gemini: loads)"
    ]
    _, diags = _checked("long", skill_md("a" * 65), targets=("codex",))
    assert "error[SKC219]: name: 'aaaa" in diags[0] and "(codex: skips)" in diags[0]


def test_a_valid_name_is_the_id_and_the_label() -> None:
    skill, diags = _checked("plan", skill_md("plan"))
    assert skill is not None and (skill.name, skill.label) == ("plan", "plan") and diags == []
    skill, _ = _checked("plan", skill_md(None))
    assert skill is not None and (skill.name, skill.label) == ("plan", "plan")
    assert "name" not in skill.fields


def test_a_blank_name_is_no_label_and_an_empty_one_no_name() -> None:
    skill, diags = _checked("plan", skill_md('"  "'))
    assert skill is not None and (skill.name, skill.label) == ("plan", "plan")
    assert "name" not in skill.fields
    assert diags == [
        "skills/plan/SKILL.md:2:7: error[SKC219]: name: '  ' must be a non-empty string: it is the "
        "skill's label, not its id"
    ]
    skill, diags = _checked("plan", skill_md('""'))
    assert skill is None and [d.split(": ", 1)[1] for d in diags] == [
        "error[SKC204]: name: is 0 characters long; at least 1 required"
    ]


def test_a_label_over_a_folder_that_is_no_id_either() -> None:
    skill, diags = _checked("Big Folder", skill_md("Sven Plan"))
    assert skill is not None and (skill.name, skill.label) == ("Big Folder", "Sven Plan")
    assert diags[-1] == (
        "skills/Big Folder/SKILL.md:1:1: warning[SKC307]: directory 'Big Folder' is not a valid skill "
        "name and its frontmatter name is a label"
    )
    skill, diags = _checked("x" * 65, skill_md("Sven Plan"))
    assert skill is None and "error[SKC307]: directory name is 65 characters long" in diags[-1]


def test_lowercase_hyphens_makes_every_name_an_id() -> None:
    rules = FrontmatterRules(names=Names.LOWERCASE_HYPHENS)
    skill, _ = _checked("repo-survey", skill_md("Repo Survey Deluxe"), rules=rules)
    assert skill is not None
    assert (skill.command, skill.name, skill.label) == (
        "repo-survey",
        "repo-survey-deluxe",
        "Repo Survey Deluxe",
    )
    skill, _ = _checked("Some_Folder", skill_md(None), rules=rules)
    assert skill is not None and (skill.name, skill.label) == ("some-folder", "some-folder")
    skill, diags = _checked("x", skill_md("Überblick"), rules=rules)
    assert skill is not None and skill.name == "berblick"
    skill, diags = _checked("x", skill_md("'Ω ω'"), rules=rules)
    assert skill is None
    assert diags[-1] == (
        "skills/x/SKILL.md:2:7: error[SKC204]: name 'Ω ω' gives no id (frontmatter.names: "
        "lowercase-hyphens keeps only a-z, 0-9 and hyphens); give the skill a name with some"
    )


@pytest.mark.parametrize(
    "name, made",
    [("Repo Survey Deluxe", "repo-survey-deluxe"), ("--a__b--", "a-b"), ("ok-1", "ok-1"), ("Ω", "")],
)
def test_lowercase_hyphens_is_v1s_sanitize_skill_name(name: str, made: str) -> None:
    assert lowercase_hyphens(name) == made


def test_the_rules_key_the_check() -> None:
    src = skill_source("x", skill_md("x"))
    changed = replace(src, rules=FrontmatterRules(names=Names.LOWERCASE_HYPHENS))
    assert src.origin != changed.origin
    assert replace(src, rules=FrontmatterRules()).origin == src.origin


# --- leniency and extensions, by config (issue 39, item 4) ------------------------------------------

TRIGGERS = '{"type": "object", "properties": {"keywords": {"type": "array", "items": {"type": "string"}}}}'


def test_declared_extension_fields_are_kept_and_held_to_their_schema() -> None:
    rules = FrontmatterRules(extensions=(("toolsets", ""), ("triggers", TRIGGERS)))
    text = skill_md("x", triggers="\n  keywords: [hello, greet]\n  verbs: [say]", toolsets="[a, b]")
    skill, diags = _checked("x", text, rules=rules)
    assert skill is not None and diags == []
    assert skill.fields["triggers"] == {"keywords": ["hello", "greet"], "verbs": ["say"]}
    assert skill.fields["toolsets"] == ["a", "b"]
    skill, diags = _checked("x", skill_md("x", triggers="\n  keywords: [1, ok]"), rules=rules)
    assert skill is None
    assert diags == [
        "skills/x/SKILL.md:5:14: error[SKC204]: triggers.keywords.0: 1 is not of type 'string' "
        "(frontmatter.extensions)"
    ]


def test_an_undeclared_unknown_field_stays_a_warning_and_is_left_out() -> None:
    rules = FrontmatterRules(extensions=(("toolsets", ""),))
    skill, diags = _checked("x", skill_md("x", triggers="hi", toolsets="[a]"), rules=rules)
    assert skill is not None and "triggers" not in skill.fields and skill.fields["toolsets"] == ["a"]
    assert [d.split(": ", 1)[1] for d in diags] == ["warning[SKC205]: unknown frontmatter field 'triggers'"]


@pytest.mark.parametrize(
    "fallback, description",
    [
        (DescriptionFallback.FIRST_PARAGRAPH, "Review the code changes focusing on bugs."),
        (DescriptionFallback.FIRST_LINE, "# Code Review"),
    ],
)
def test_a_missing_description_falls_back_to_the_body_as_configured(
    fallback: DescriptionFallback, description: str
) -> None:
    text = "---\nname: review\n---\n# Code Review\n\nReview the code changes\nfocusing on bugs.\n\nMore.\n"
    skill, diags = _checked("review", text, rules=FrontmatterRules(description_fallback=fallback))
    assert skill is not None and skill.description == description
    assert [d.split(": ", 1)[1][:60] for d in diags] == [
        f"warning[SKC214]: description: missing; using the body's {fallback.value.replace('-', ' ')}"[:60]
    ]
    skill, diags = _checked("review", text)
    assert skill is None and "'description' is a required property" in diags[0]


def test_no_fallback_from_an_empty_body_or_over_a_given_description() -> None:
    rules = FrontmatterRules(description_fallback=DescriptionFallback.FIRST_PARAGRAPH)
    skill, _ = _checked("x", "---\nname: x\n---\n# Only a heading\n", rules=rules)
    assert skill is None
    skill, diags = _checked("x", skill_md("x", description="Given."), rules=rules)
    assert skill is not None and skill.description == "Given." and diags == []


@pytest.mark.parametrize(
    "body, paragraph",
    [
        ("First line\nsecond line\n\nThird.", "First line second line"),
        ("\n\n## Heading\n\n  Indented text.  \n", "Indented text."),
        ("# Title\nText right under.\n", "Text right under."),
        ("#hashtag is text\n", "#hashtag is text"),
        ("", ""),
    ],
)
def test_first_paragraph(body: str, paragraph: str) -> None:
    assert frontmatter.first_paragraph(body) == paragraph
