"""The five seed systems' skill trees, each laid out as its seed document lays it out, with the
config its developer would write, and what the seed's own loader would see of it.

The seed documents are in /work/shared/seeds/ (000 ARIA, 001 V1 workspace pipeline, 002 TS 3-tier
agent, 003 sven, 004 Pegasus). A tree is written below a root; the sources a seed keeps in the
user's home (`~/.sven/skills`, `~/.agent/skills`) are written below `<root>/home`, so a build must
run with HOME set to it (`Seed.env`). The expectations (`*_SEES`) are plain data about the loader's
view: tests/e2e/test_seed_trees.py holds the build to them through the Python reader, and a host
program in the seed's own language can hold its reading of the same build to them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from support.files import REPO, write_tree


@dataclass(frozen=True)
class Seed:
    name: str
    root: Path  # the project: the config's folder
    config: Path
    home: Path  # HOME for the build: the `~` sources are below it

    @property
    def env(self) -> dict[str, str]:
        return {"HOME": str(self.home)}

    @property
    def dist(self) -> Path:
        return self.root / "dist"


def _md(frontmatter: str, body: str) -> str:
    return f"---\n{frontmatter.strip()}\n---\n{body}"


def _seed(name: str, root: Path, files: dict[str, str], home: dict[str, str] | None = None) -> Seed:
    write_tree(root / "project", files, exact=True)
    write_tree(root / "home", home or {".keep": ""}, exact=True)
    project = root / "project"
    return Seed(name, project, project / "skillc.yaml", root / "home")


# --- 000 ARIA: .claude/skills, personas/{p}/skill-overlays, personas/{p}-exclusive ----------------

# id: (name, faction, fallback, unrestricted): the seed's persona resolution table
ARIA_TABLE = {
    "aria-mk4": ("ARIA Mk.IV", "gallente", None, False),
    "aura-c": ("AURA-C", "caldari", None, False),
    "vind": ("VIND", "minmatar", None, False),
    "throne": ("THRONE", "amarr", None, False),
    "paria": ("PARIA", "pirate", None, False),
    "paria-a": ("PARIA-A", "angel_cartel", "paria", False),
    "paria-s": ("PARIA-S", "serpentis", "paria", False),
    "paria-g": ("PARIA-G", "guristas", "paria", False),
    "paria-b": ("PARIA-B", "blood_raiders", "paria", False),
    "paria-n": ("PARIA-N", "sanshas_nation", "paria", False),
    "forge": ("FORGE", None, None, True),
}
ARIA_PERSONAS = {pid: ARIA_TABLE[pid] for pid in ("aria-mk4", "paria", "paria-g", "forge")}


def aria_manifests(personas: dict[str, tuple[str, str | None, str | None, bool]]) -> dict[str, str]:
    """`personas/<id>/manifest.yaml` of each persona, from rows of the seed's table."""
    files = {}
    for pid, (name, faction, fallback, unrestricted) in personas.items():
        lines = [f"name: {name}"]
        lines += [f"faction: {faction}"] if faction else []
        lines += [f"fallback: {fallback}"] if fallback else []
        lines += ["unrestricted_skills: true"] if unrestricted else []
        files[f"personas/{pid}/manifest.yaml"] = "\n".join(lines) + "\n"
    return files


def aria(root: Path) -> Seed:
    files = {
        "skillc.yaml": "format: 1\nsources: [.claude/skills]\npersonas: personas\n",
        # the seed's index lives beside the skills: a file at the source root, no skill's
        ".claude/skills/_index.json": '{"threat-assessment": {"has_persona_overlay": true}}\n',
        ".claude/skills/threat-assessment/SKILL.md": _md(
            "name: threat-assessment\ndescription: Assess the threat in a system.\nhas_persona_overlay: true",
            "Assess threats for $ARGUMENTS.\n",
        ),
        ".claude/skills/mark-assessment/SKILL.md": _md(
            "name: mark-assessment\ndescription: Size up a mark.\npersona_exclusive: paria",
            "Only PARIA pilots can use this skill.\n",
        ),
        ".claude/skills/price/SKILL.md": _md("name: price\ndescription: Price an item.", "Look up prices.\n"),
        "personas/_shared/skill-loading.md": "# Skill Loading System\n",
        "personas/paria/skill-overlays/threat-assessment.md": "Frame threats as opportunities.\n",
        "personas/paria-exclusive/mark-assessment.md": "# Mark assessment\nSize up the mark.\n",
    }
    return _seed("aria", root, files | aria_manifests(ARIA_PERSONAS))


# persona -> command -> (access, what the loaded body holds, the overlay's path or None)
ARIA_SEES = {
    "paria-g": {
        "threat-assessment": (
            "open",
            "Frame threats as opportunities.",
            "personas/paria/skill-overlays/threat-assessment.md",
        ),
        "mark-assessment": ("granted", "Size up the mark.", None),
        "price": ("open", "Look up prices.", None),
    },
    "aria-mk4": {
        "threat-assessment": ("open", "Assess threats for", None),
        "mark-assessment": ("stub", "Only PARIA pilots can use this skill.", None),
        "price": ("open", "Look up prices.", None),
    },
    "forge": {
        "mark-assessment": ("granted", "Size up the mark.", None),
    },
}


# --- 001 V1: <workDir>/skills, SKILL.md and */SKILL.md, ids by sanitizeSkillName ------------------


def v1(root: Path) -> Seed:
    files = {
        "skillc.yaml": (
            "format: 1\n"
            "sources:\n"
            "  - path: workDir/skills      # SKILL.md and */SKILL.md, node_modules ignored\n"
            "    root_skill: true\n"
            "    depth: 1\n"
            "    duplicates: last-wins     # last discovered wins, with a warning\n"
            "frontmatter:\n"
            "  names: lowercase-hyphens    # sanitizeSkillName\n"
            "diagnostics:\n"
            "  SKC219: warning             # V1 reads display names\n"
            "skip_invalid: true            # a skill V1 cannot read is skipped with a warning\n"
        ),
        "workDir/skills/SKILL.md": _md(
            "name: Workspace Guide\ndescription: How this workspace is laid out.", "Read me first.\n"
        ),
        "workDir/skills/repo-survey/SKILL.md": _md(
            "name: Repo Survey Deluxe\ndescription: Survey a repository before changing it.",
            "Survey the repo.\n",
        ),
        "workDir/skills/repo-survey/scripts/survey.sh": "#!/bin/sh\nls -R\n",
        "workDir/skills/safe-edit/SKILL.md": _md(
            "name: safe-edit\ndescription: Edit files safely.", "Edit with care.\n"
        ),
        "workDir/skills/safe-edit/examples/SKILL.md": _md(
            "name: example\ndescription: An example.", "Example.\n"
        ),
        "workDir/skills/safe-edit/references/guide.md": "# Guide\n",
        "workDir/skills/test-first-fix/SKILL.md": _md(
            "name: Test First Fix\ndescription: Write the failing test first.", "Test first.\n"
        ),
        # the same id as test-first-fix, discovered later: it wins
        "workDir/skills/tff-v2/SKILL.md": _md(
            "name: test first fix\ndescription: Write the failing test first (v2).", "Test first, v2.\n"
        ),
        "workDir/skills/no-description/SKILL.md": _md("name: no-description", "Nothing said.\n"),
        "workDir/skills/node_modules/some-pkg/SKILL.md": _md(
            "name: some-pkg\ndescription: A package.", "Pkg.\n"
        ),
    }
    return _seed("v1", root, files)


# id -> (command, label, description, resources): what V1's registry holds
V1_SEES = {
    "workspace-guide": ("skills", "Workspace Guide", "How this workspace is laid out.", []),
    "repo-survey-deluxe": (
        "repo-survey",
        "Repo Survey Deluxe",
        "Survey a repository before changing it.",
        ["scripts/survey.sh"],
    ),
    "safe-edit": (
        "safe-edit",
        "safe-edit",
        "Edit files safely.",
        ["examples/SKILL.md", "references/guide.md"],
    ),
    "test-first-fix": ("tff-v2", "test first fix", "Write the failing test first (v2).", []),
}


# --- 002 TS 3-tier agent: bundled, user, project; triggers and toolsets ----------------------------

TRIGGERS_SCHEMA = (
    "      type: object\n"
    "      additionalProperties: false\n"
    "      properties:\n"
    "        keywords: {type: array, items: {type: string}}\n"
    "        verbs: {type: array, items: {type: string}}\n"
    "        patterns: {type: array, items: {type: string}}\n"
)


def ts_agent(root: Path, *, user_tier: bool = True) -> Seed:
    files = {
        "skillc.yaml": (
            "format: 1\n"
            "sources:\n"
            "  - src/_bundled_skills\n"
            "  - path: ~/.agent/skills\n"
            "    optional: true\n"
            "  - .agent/skills\n"
            "frontmatter:\n"
            "  extensions:\n"
            "    triggers:\n" + TRIGGERS_SCHEMA + "    toolsets: {type: array, items: {type: string}}\n"
            "diagnostics:\n"
            "  SKC324: ignore              # a machine without user skills\n"
        ),
        "src/_bundled_skills/greet/SKILL.md": _md(
            "name: greet\ndescription: Greet the user.\n"
            'triggers:\n  keywords: ["hello", "greet"]\n  verbs: ["say", "wave"]\n  patterns: ["greet\\\\s+\\\\w+"]',
            "Say hello.\n",
        ),
        "src/_bundled_skills/my-skill/SKILL.md": _md(
            "name: my-skill\ndescription: The bundled version.", "Bundled.\n"
        ),
        "src/_bundled_skills/my-skill/references/examples.md": "# Examples\n",
        ".agent/skills/my-skill/SKILL.md": _md(
            "name: my-skill\ndescription: My custom skill for doing useful things.\n"
            "license: MIT\ncompatibility: Requires Node.js 18+\n"
            'metadata:\n  author: Your Name\n  version: "1.0.0"\n'
            'allowed-tools: "Bash(git:*) Read"\n'
            'toolsets:\n  - "toolsets/index:MyToolset"',
            "# My Skill\n\nInstructions for the LLM.\n",
        ),
        ".agent/skills/my-skill/scripts/run.ts": "console.log('run')\n",
    }
    home = (
        {
            ".agent/skills/notes/SKILL.md": _md(
                "name: notes\ndescription: Take notes (installed by the user).", "Notes.\n"
            )
        }
        if user_tier
        else None
    )
    return _seed("ts-agent", root, files, home)


# command -> (description, frontmatter fields the agent reads, resources)
TS_AGENT_SEES = {
    "greet": (
        "Greet the user.",
        {
            "triggers": {
                "keywords": ["hello", "greet"],
                "verbs": ["say", "wave"],
                "patterns": ["greet\\s+\\w+"],
            }
        },
        [],
    ),
    "my-skill": (
        "My custom skill for doing useful things.",
        {
            "toolsets": ["toolsets/index:MyToolset"],
            "allowed-tools": ["Bash(git:*)", "Read"],
            "license": "MIT",
        },
        ["scripts/run.ts"],
    ),
    "notes": ("Take notes (installed by the user).", {}, []),
}


# --- 003 sven: six roots by precedence, nested commands, display names, the sven: block ------------


def sven(root: Path) -> Seed:
    files = {
        "skillc.yaml": (
            "format: 1\n"
            "sources:                      # lowest precedence first\n"
            "  - {path: ~/.sven/skills, optional: true}\n"
            "  - {path: ~/.agents/skills, optional: true}\n"
            "  - {path: ~/.claude/skills, optional: true}\n"
            "  - .agents/skills\n"
            "  - .claude/skills\n"
            "  - .sven/skills\n"
            "diagnostics:\n"
            "  SKC219: warning             # names are labels; the command is the folder\n"
            "  SKC324: ignore              # the user tiers are not on every machine\n"
            "skip_invalid: true            # a skill that does not load is skipped\n"
        ),
        ".sven/skills/sven/SKILL.md": _md(
            "name: Sven Methodology\ndescription: Use when the user asks to work on a task.\n"
            "sven:\n  always: true",
            "# Skill: Sven Methodology\n\nPlan, implement, review.\n",
        ),
        ".sven/skills/sven/scripts/helper.sh": "#!/bin/sh\necho help\n",
        ".sven/skills/sven/plan/SKILL.md": _md(
            "name: Sven Plan\ndescription: Planning phase.", "Plan the work.\n"
        ),
        ".sven/skills/sven/implement/research/SKILL.md": _md(
            "name: Sven Research\ndescription: Research before implementing.", "Research.\n"
        ),
        ".sven/skills/sven/review/SKILL.md": _md(
            "name: Sven Review\ndescription: Review phase.\n"
            "sven:\n  requires_bins: [sven-lint-39]\n  requires_env: [SVEN_TOKEN_39]\n  user_invocable_only: true",
            "Review the work.\n",
        ),
        ".claude/skills/deploy/SKILL.md": _md("description: Deploy the project.", "Deploy.\n"),
        # a broken copy of a command a user tier holds: it does not hide the user's copy
        ".claude/skills/git-workflow/SKILL.md": _md(
            "name: Git Workflow\ndescription: [not, text]", "Broken.\n"
        ),
        ".agents/skills/docs/SKILL.md": _md("name: Docs Writer\ndescription: Write the docs.", "Docs.\n"),
    }
    home = {
        ".claude/skills/git-workflow/SKILL.md": _md(
            "name: Git Workflow\ndescription: Branch, commit, push.", "Git.\n"
        ),
        ".sven/skills/deploy/SKILL.md": _md("description: The user's deploy, overridden.", "Old deploy.\n"),
    }
    return _seed("sven", root, files, home)


# command -> (label, description, source): sven's <available_skills>, every one listed
SVEN_SEES = {
    "deploy": ("deploy", "Deploy the project.", ".claude/skills"),
    "docs": ("Docs Writer", "Write the docs.", ".agents/skills"),
    "git-workflow": ("Git Workflow", "Branch, commit, push.", "~/.claude/skills"),
    "sven": ("Sven Methodology", "Use when the user asks to work on a task.", ".sven/skills"),
    "sven/implement/research": ("Sven Research", "Research before implementing.", ".sven/skills"),
    "sven/plan": ("Sven Plan", "Planning phase.", ".sven/skills"),
    "sven/review": ("Sven Review", "Review phase.", ".sven/skills"),
}
# load_skill("sven"): its direct children the model may load (review is user_invocable_only)
SVEN_SUB_SKILLS = [("sven/plan", "Sven Plan")]


# --- 004 Pegasus: skills/ and the git-ignored data/skills, first-paragraph descriptions ------------


def pegasus(root: Path) -> Seed:
    template = (REPO / "compiler" / "templates" / "catalog.md.j2").read_text()
    files = {
        "skillc.yaml": (
            "format: 1\n"
            "sources:\n"
            "  - skills                    # builtin, tracked\n"
            "  - path: data/skills         # user-installed and LLM-created: git-ignored on purpose\n"
            "    git_ignored: true\n"
            "template: templates/catalog.md.j2\n"
            "frontmatter:\n"
            "  description_fallback: first-paragraph\n"
        ),
        ".gitignore": "node_modules/\ndata/\n",
        "templates/catalog.md.j2": template,
        "skills/commit/SKILL.md": _md(
            "name: commit\ndescription: Use when committing changes to git with conventional commit format\n"
            "disable-model-invocation: true",
            "Create a git commit following conventional commits:\n\n1. Run `git status`\n",
        ),
        "skills/code-review/SKILL.md": _md(
            "name: code-review\ndescription: Use when reviewing code changes, PRs, or asking for code feedback\n"
            'context: fork\nargument-hint: "[pr-number or branch]"\nallowed-tools: read_file, grep_files',
            "Review code changes for $ARGUMENTS:\n\n1. Get the diff\n",
        ),
        "skills/summarize/SKILL.md": _md(
            "name: summarize",
            "# Summarize\n\nSummarize a document\nin three sentences.\n\nKeep it short.\n",
        ),
        "data/skills/project-conventions/SKILL.md": _md(
            "name: project-conventions\ndescription: Coding conventions for this project. Use when writing new code.\n"
            "user-invocable: false",
            "# Project Conventions\n\n- Runtime: Bun (not Node)\n",
        ),
        # the user's copy of a builtin: data/skills > skills
        "data/skills/code-review/SKILL.md": _md(
            "name: code-review\ndescription: Use when reviewing code, the team's way\ncontext: fork",
            "Review $ARGUMENTS the team's way.\n",
        ),
    }
    return _seed("pegasus", root, files)


# command -> (description, in the system prompt, the user may type it)
PEGASUS_SEES = {
    "code-review": ("Use when reviewing code, the team's way", True, True),
    "commit": ("Use when committing changes to git with conventional commit format", False, True),
    "project-conventions": ("Coding conventions for this project. Use when writing new code.", True, False),
    "summarize": ("Summarize a document in three sentences.", True, True),
}


SEEDS = {"aria": aria, "v1": v1, "ts-agent": ts_agent, "sven": sven, "pegasus": pegasus}
