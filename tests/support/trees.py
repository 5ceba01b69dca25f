"""Random skill trees for property tests of discover: skills, sub-skills, hidden and ignored
folders, resources, ignore files and cache tags below `src/`, with few names so that twins (case,
sanitised id, look-alike) and nesting happen often; and the source's discovery rules, drawn."""

from __future__ import annotations

from hypothesis import strategies as st

from support.project import skill_md

# Few names, so that twins (case, sanitized id, look-alike) and nesting happen often.
NAMES = st.sampled_from(["a", "A", "b", "b_c", "b-c", "p\u0430ste", "paste", ".h", "x", "deep"])
PATHS = st.lists(NAMES, min_size=1, max_size=3).map("/".join)
LEAVES = st.sampled_from(
    [
        "SKILL.md",
        "skill.md",
        "notes.md",
        "run.log",
        ".gitignore",
        ".ignore",
        "CACHEDIR.TAG",
        "node_modules/m.md",
    ]
)
TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# a cache (bford.info/cachedir)\n"
IGNORES = st.lists(st.sampled_from(["*.log", "x/", "!keep.log", "deep", "notes.md", "/a", "b*"]), max_size=3)


@st.composite
def trees(draw: st.DrawFn) -> dict[str, str]:
    files: dict[str, str] = {}
    for folder, leaf in draw(st.lists(st.tuples(PATHS, LEAVES), min_size=1, max_size=14)):
        name = folder.rsplit("/", 1)[-1]
        if leaf in (".gitignore", ".ignore"):
            text = "\n".join(draw(IGNORES)) + "\n"
        elif leaf == "CACHEDIR.TAG":
            text = draw(st.sampled_from([TAG, "not the signature\n"]))
        elif leaf.lower() == "skill.md":
            text = skill_md(name.lower(), body=draw(st.sampled_from(["Do it.\n", ""])))
        else:
            text = "a resource\n"
        files[f"src/{folder}/{leaf}"] = text
    return files


RULES = st.fixed_dictionaries(
    {},
    optional={
        "depth": st.sampled_from([1, 2]),
        "root_skill": st.just("true"),
        "skip_folders": st.sampled_from(["[]", "[x]", "[node_modules, deep]"]),
        "duplicates": st.just("last-wins"),
    },
)


@st.composite
def configs(draw: st.DrawFn) -> str:
    """A project config whose source `src` has discovery rules drawn (none: a plain path)."""
    rules = draw(RULES)
    source = "\n".join(["  - path: src", *(f"    {k}: {v}" for k, v in rules.items())])
    return f"format: 1\nsources:\n{source}\npersonas: personas\noutput: dist\n"
