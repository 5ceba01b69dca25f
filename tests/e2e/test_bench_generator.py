"""The benchmark's generator still writes a tree that builds (no timings here: bench/ is a script)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from support.cli import run
from support.dist import expand
from support.files import REPO, write_tree
from support.project import skill_md

sys.path.insert(0, str(REPO))
from bench import gen

N = 50


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("bench") / "n50"
    gen.generate(root, N, n_personas=12, seed=0)
    return root


def test_generated_tree_builds(tree, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    code, out = run("build", "--config", str(tree / "skillc.yaml"))
    assert code == 0, out
    index = expand(tree / "dist")
    assert sorted(index["skills"]) == gen.commands(tree)
    assert len(index["skills"]) == N
    assert len(index["personas"]) == 12
    skills = index["skills"].values()
    assert any(s["parent"] for s in skills), "nested skills"
    assert any(s["source"].endswith("src-b") and "Project override" in s["description"] for s in skills), (
        "overrides"
    )
    assert any(s["resources"] for s in skills), "references and scripts"
    table = index["resolutions"]
    accesses = {r["access"] for rows in table.values() for r in rows.values()}
    assert accesses == {"open", "granted", "stub"}
    assert any(r["overlay"] for rows in table.values() for r in rows.values()), "persona overlays"
    assert index["personas"]["base-g"]["chain"] == ["base"]
    assert any(p["unrestricted"] for p in index["personas"].values())


def test_skill_files_are_realistic(tree):
    dirs = gen.skill_dirs(tree)
    assert len(dirs) >= N  # plus the src-b overrides
    sizes = [(d / "SKILL.md").stat().st_size for d in dirs]
    assert min(sizes) >= gen.SKILL_MIN and max(sizes) <= gen.SKILL_MAX
    overlays = list(tree.glob("personas/*/skill-overlays/**/*.md"))
    assert overlays


def test_same_seed_same_bytes(tree, tmp_path):
    again = tmp_path / "again"
    gen.generate(again, N, n_personas=12, seed=0)
    for d in gen.skill_dirs(tree):
        rel = d.relative_to(tree)
        assert (again / rel / "SKILL.md").read_bytes() == (d / "SKILL.md").read_bytes()


def test_generator_refuses_a_non_empty_directory(tree):
    with pytest.raises(FileExistsError):
        gen.generate(tree, N)


def test_corpus_report_counts_a_small_collection(tmp_path, capsys):
    from bench import corpus

    write_tree(
        tmp_path / "c1",
        {
            "skills/.curated/a/SKILL.md": skill_md(),
            "skills/.curated/a/LICENSE": "MIT\n",
            "skills/.curated/a/.DS_Store": b"x",
            "skills/.curated/b/SKILL.md": skill_md(description="d" * 1025),
        },
        exact=True,
    )
    assert corpus.main([str(tmp_path)]) == 0
    row = capsys.readouterr().out.splitlines()[2]
    assert row.startswith("| c1 | skills/.curated | 2 | 1 | b (SKC216) | 2 | 1 | 0 |"), row


def test_the_delta_bench_runs_its_cases_on_a_small_tree(tmp_path, capsys):
    """bench/delta.py takes every case as an edit build (it exits when the edit build declines one)."""
    from bench import delta

    assert delta.main(["--skills", "40", "--personas", "3", "--edits", "2", "--workdir", str(tmp_path)]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert any(r.startswith("| one description edit: edit build") for r in rows), rows
