"""sven's skill loader (seed 003) as a host of the Rust reader, end to end.

sven's tree as its seed lays it out (tests/support/seeds.py: six roots by precedence, the `~` ones
optional, nested commands, display names as labels, the `sven:` block with `always`,
`requires_bins`, `requires_env` and `user_invocable_only`), with a knowledge folder, a skill that
names docs in it, sven's `<available_skills>` template and enough skills to make the 30,000-character
budget bite, is built with the CLI. Then readers/rust/examples/load_skill.rs, a small host that does
what sven's loader does at run time, runs over the build through the Rust reader (offline, with
readers/rust/test-debian.sh's cargo setup), once on a machine that lacks what `sven/review` needs and
once on one that has it, and its output is held to the seed's document.

The seeds' trees (tests/support/seeds.py) come with main, together with the compiler that builds
them (issue 39): on a branch without them this module is skipped. Without cargo and Debian's two
crates (what readers/rust/test-debian.sh would install) it is skipped too.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from support.cli import invoke
from support.files import REPO, write_tree

if not (REPO / "tests" / "support" / "seeds.py").exists():
    pytest.skip("the seeds' trees (tests/support/seeds.py) are not on this branch", allow_module_level=True)
from support import seeds  # after the skip: the module is not on every branch

CRATE = REPO / "readers" / "rust"
CRATES = Path("/usr/share/cargo/registry")  # Debian's, which test-debian.sh builds against
BUDGET = 30000
TEMPLATE = """\
{%- macro entry(skill) %}
  <skill>
    <command>{{ skill.command }}</command>
    <name>{{ skill.label }}</name>
    <description>{{ skill.description }}</description>
  </skill>
{%- endmacro -%}
<available_skills>
{%- for skill in skills %}{{ entry(skill) }}{% endfor %}
{%- if omitted %}
  <!-- {{ omitted }} more skills not listed: the {{ budget }}-character budget was reached -->
{%- endif %}
</available_skills>
"""
# the seed's knowledge convention: a skill names docs of .sven/knowledge, load_skill gives their titles
EXTRA = {
    "templates/sven.xml.j2": TEMPLATE,
    ".sven/knowledge/sven-p2p.md": "---\nsubsystem: P2P Networking\n---\n# The p2p layer\n",
    ".sven/knowledge/sven-node.md": "# Node Gateway\n\nThe gateway.\n",
    ".sven/knowledge/notes.md": "no title here\n",
    ".sven/skills/p2p-specialist/SKILL.md": (
        "---\nname: p2p-specialist\ndescription: P2P networking expert. Use when modifying sven-p2p.\n"
        "knowledge:\n  - sven-p2p.md\n  - sven-node.md\n  - notes.md\n---\nKnow the swarm.\n"
    ),
    # a skill the model may load, on a machine that has docker and its token only (ranked before the tools)
    ".sven/skills/docker/SKILL.md": (
        "---\nname: Docker\ndescription: Run the stack in containers.\n"
        "sven:\n  requires_bins: [sven-docker-41]\n  requires_env: [SVEN_DOCKER_TOKEN_41]\n---\nDocker.\n"
    ),
    # ranked after every command of the seed: what the budget leaves out
    **{
        f".agents/skills/tool-{i:03}/SKILL.md": (
            f"---\nname: Tool {i}\ndescription: {'Does one narrow thing well, when asked to. ' * 6}\n---\nTool.\n"
        )
        for i in range(120)
    },
}


def sanitized(command: str) -> str:
    """sven's sanitize_command_name, per `/` segment (the seed's TUI section)."""
    return "/".join(re.sub(r"[^0-9a-z]+", "_", part.lower()) for part in command.split("/"))


@pytest.fixture(scope="module")
def sven(tmp_path_factory: pytest.TempPathFactory) -> seeds.Seed:
    if shutil.which("cargo") is None or not all(any(CRATES.glob(f"{c}-*")) for c in ("serde_json", "sha2")):
        pytest.skip(
            "the Rust reader builds offline with cargo and Debian's crates (readers/rust/test-debian.sh)"
        )
    seed = seeds.sven(tmp_path_factory.mktemp("sven"))
    write_tree(seed.root, EXTRA)
    config = seed.config.read_text() + "template: templates/sven.xml.j2\nknowledge: .sven/knowledge\n"
    seed.config.write_text(config)
    with pytest.MonkeyPatch.context() as patch:
        for key, value in seed.env.items():
            patch.setenv(key, value)
        patch.chdir(seed.root)
        built = invoke("build", config=seed.config)
    assert built.exit_code == 0, built.stderr
    return seed


def host(seed: seeds.Seed, tmp: Path, *actions: str, runnable: bool) -> dict[str, str]:
    """The host's output for each action, on a machine that has what docker and sven/review need or not."""
    env = {k: v for k, v in os.environ.items() if k not in ("SVEN_TOKEN_39", "SVEN_DOCKER_TOKEN_41")}
    real_home = Path.home()
    env.setdefault("CARGO_HOME", str(real_home / ".cargo"))  # cargo's and rustup's, not sven's HOME
    env.setdefault("RUSTUP_HOME", str(real_home / ".rustup"))
    env["HOME"] = str(seed.home)
    if runnable:
        tools = tmp / "bin"
        tools.mkdir(exist_ok=True)
        for program in ("sven-lint-39", "sven-docker-41"):
            (tools / program).write_text("#!/bin/sh\n")
            (tools / program).chmod(0o755)
        env["PATH"] = f"{tools}:{env['PATH']}"
        env["SVEN_TOKEN_39"] = env["SVEN_DOCKER_TOKEN_41"] = "t0k"
    argv = [str(CRATE / "test-debian.sh"), "run", "-q", "--example", "load_skill", "--"]
    argv += [str(seed.dist), str(seed.root), "default", *actions]
    out = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    sections = re.split(r"^== (.*)\n", out.stdout, flags=re.MULTILINE)
    assert sections[0] == ""
    return dict(zip(sections[1::2], sections[2::2], strict=True))


ACTIONS = (
    "prompt",
    "commands",
    "load:sven",
    "load:sven/plan",
    "load:git-workflow",
    "load:p2p-specialist",
    "load:sven/review",
    "load:sven/reveiw",
    "/sven/review check the auth module",
    "/git_workflow",
)


@pytest.fixture(scope="module")
def lacking(sven: seeds.Seed, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return host(sven, tmp_path_factory.mktemp("lacking"), *ACTIONS, runnable=False)


@pytest.fixture(scope="module")
def having(sven: seeds.Seed, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return host(sven, tmp_path_factory.mktemp("having"), *ACTIONS, runnable=True)


def _block(prompt: str) -> str:
    return prompt[prompt.index("<available_skills>") : prompt.index("</available_skills>\n") + 20]


def _entry(command: str, label: str, description: str) -> str:
    return (
        f"  <skill>\n    <command>{command}</command>\n    <name>{label}</name>\n"
        f"    <description>{description}</description>\n  </skill>\n"
    )


def test_the_prompt_is_the_budgeted_catalog_of_what_this_machine_can_run(lacking, having):
    for prompt in (lacking["prompt"], having["prompt"]):
        assert prompt.startswith("## Skills\n\nWhen you recognize that the current task matches")
        block = _block(prompt)
        assert len(block) <= BUDGET
        assert "more skills not listed: the 30000-character budget was reached" in block
        for command, (label, description, _source) in seeds.SVEN_SEES.items():
            if command != "sven/review":  # user_invocable_only: never in the model's list
                assert _entry(command, label, description) in block, command
        assert "<command>sven/review</command>" not in block
        assert "<command>tool-119</command>" not in block  # ranked last, left out by the budget
    docker = _entry("docker", "Docker", "Run the stack in containers.")
    assert docker in _block(having["prompt"]) and docker not in _block(lacking["prompt"])
    # the entry is cut out of the build's catalog: the budget's choice and its notice are kept
    assert _block(lacking["prompt"]) == _block(having["prompt"]).replace(docker, "")
    assert lacking["prompt"].endswith(
        "</available_skills>\n"
        "-- unavailable on this machine: docker: bin:sven-docker-41, env:SVEN_DOCKER_TOKEN_41\n"
        "-- unavailable on this machine: sven/review: bin:sven-lint-39, env:SVEN_TOKEN_39\n"
    )
    assert "unavailable" not in having["prompt"]


def test_the_always_skill_is_listed_whatever_the_budget(sven: seeds.Seed, lacking):
    assert "    <command>sven</command>\n    <name>Sven Methodology</name>" in lacking["prompt"]
    assert "<command>deploy</command>" in lacking["prompt"]  # ranked before the tools


def test_load_skill_gives_the_body_the_base_directory_and_the_children(sven: seeds.Seed, lacking):
    result = lacking["load:sven"]
    assert result.startswith(
        '<skill_content command="sven" name="Sven Methodology">\n'
        f"Base directory for this skill: {sven.root}/.sven/skills/sven\n\n"
        "# Skill: Sven Methodology\n"
    )
    assert (
        "Bundled files (load with the resource tool, paths relative to this skill):\n  - scripts/helper.sh\n"
        in result
    )
    # the direct children the model may load: not the grandchild, not the user-only review
    hints = re.findall(r'<sub_skill command="([^"]*)" name="([^"]*)">', result)
    assert hints == seeds.SVEN_SUB_SKILLS
    assert "<sub_skill" not in lacking["load:sven/plan"]
    assert lacking["load:sven/plan"].startswith('<skill_content command="sven/plan" name="Sven Plan">\n')


def test_a_user_tier_skill_has_its_base_under_home(sven: seeds.Seed, lacking):
    assert (
        f"Base directory for this skill: {sven.home}/.claude/skills/git-workflow\n\nGit.\n"
        in (lacking["load:git-workflow"])
    )


def test_knowledge_hints_carry_their_titles(sven: seeds.Seed, lacking):
    assert lacking["load:p2p-specialist"].endswith(
        "Relevant knowledge docs (use search_knowledge or read_file to load):\n"
        "  - .sven/knowledge/sven-p2p.md  (P2P Networking)\n"
        "  - .sven/knowledge/sven-node.md (Node Gateway)\n"
        "  - .sven/knowledge/notes.md\n"
        "</skill_content>\n"
    )


def test_a_user_only_skill_is_refused_to_the_model_and_served_to_the_user(sven: seeds.Seed, lacking, having):
    for seen in (lacking, having):
        assert (
            seen["load:sven/review"]
            == 'Skill "sven/review" is not for the model: only the user may invoke it.\n'
        )
    assert having["/sven/review check the auth module"] == (
        f"Base directory for this skill: {sven.root}/.sven/skills/sven/review\n\n"
        "Review the work.\n\nTask: check the auth module\n"
    )
    assert (
        lacking["/sven/review check the auth module"] == "Unknown command /sven/review\n"
    )  # not on this machine
    assert lacking["load:sven/reveiw"] == 'No skill "sven/reveiw". Did you mean: sven/review?\n'


def test_slash_commands_are_sanitised_as_sven_does(sven: seeds.Seed, lacking, having):
    def listed(seen: dict[str, str]) -> dict[str, str]:
        pairs = (line.split(" -> ") for line in seen["commands"].splitlines())
        return dict(pairs)

    assert all(name == "/" + sanitized(command) for name, command in listed(having).items())
    assert listed(having)["/git_workflow"] == "git-workflow"
    assert listed(having)["/sven/implement/research"] == "sven/implement/research"
    assert set(listed(having)) - set(listed(lacking)) == {"/docker", "/sven/review"}
    assert {c for c in listed(having).values() if not c.startswith("tool-")} == {
        *seeds.SVEN_SEES,
        "p2p-specialist",
        "docker",
    }
    assert (
        lacking["/git_workflow"]
        == f"Base directory for this skill: {sven.home}/.claude/skills/git-workflow\n\nGit.\n"
    )
