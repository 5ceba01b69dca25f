"""FIFOs, devices, directories where files are expected: a diagnostic, never a hang, never a silent drop.

Every test that could hang runs the CLI in a subprocess with a timeout, so a regression fails instead of
blocking the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import DIAG, build
from support.files import write_tree
from support.project import CONFIG, CONFIG_PERSONAS, project, skill_md

TIMEOUT = 60


def cli(cfg: Path, *args: str) -> tuple[int, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "skillc", *args, "--config", str(cfg)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        cwd=cfg.parent,
    )
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, proc.stderr


def diags(stderr: str) -> list[tuple[str, str, str]]:
    return [(m["path"], m["sev"], m["code"]) for m in map(DIAG.match, stderr.splitlines()) if m]


def plant(path: Path, kind: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        os.symlink("/dev/zero", path)
    elif kind == "dir":
        path.mkdir()
        (path / "inner.md").write_text("x\n")
    else:
        raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["fifo", "device", "dir"])
@pytest.mark.parametrize(
    "where",
    [
        "skills/b/SKILL.md",
        "skills/a/references/r.md",
        "personas/q/manifest.yaml",
        "personas/p/skill-overlays/a.md",
        "personas/p-exclusive/a.md",
    ],
)
def test_non_regular_input_is_an_error(tmp_path, kind, where):
    if kind == "dir" and where.startswith(("skills/a/", "personas/p/skill", "personas/p-excl")):
        pytest.skip("a directory there is an ordinary directory")
    cfg = project(
        tmp_path,
        {
            "skills/a/SKILL.md": skill_md(has_persona_overlay="true"),
            "personas/p/manifest.yaml": "name: P\n",
        },
        CONFIG_PERSONAS,
    )
    plant(tmp_path / where, kind)
    for command in ("build", "validate", "check"):
        code, err = cli(cfg, command)
        assert code == 1, err
        # A link to /dev/zero leaves the root (SKC302); either way it is an error, never read.
        assert {(where, "error", "SKC310"), (where, "error", "SKC302")} & set(diags(err)), err
    assert not (tmp_path / "dist").exists()


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_non_regular_config_is_a_usage_error(tmp_path, kind):
    cfg = tmp_path / "skillc.yaml"
    plant(cfg, kind)
    code, err = cli(cfg, "build")
    assert code == 2 and "not a regular file" in err


@pytest.mark.parametrize("kind", ["fifo", "device"])
@pytest.mark.parametrize("where", ["templates/catalog.xml.j2", "templates/part.j2"])
def test_non_regular_template_is_an_error(tmp_path, kind, where):
    config = CONFIG + "template: templates/catalog.xml.j2\n"
    files = {"skills/a/SKILL.md": skill_md()}
    if where.endswith("part.j2"):
        files["templates/catalog.xml.j2"] = (
            "{% macro entry(s) %}{{ s.command }}{% endmacro %}{% include 'part.j2' %}"
        )
    cfg = project(tmp_path, files, config)
    plant(tmp_path / where, kind)
    code, err = cli(cfg, "build")
    assert code == 1
    assert any(c in ("SKC103", "SKC104") for _p, _s, c in diags(err)), err


# --- a hostile committed output ------------------------------------------------------


@pytest.fixture
def built(tmp_path) -> Path:
    cfg = project(tmp_path, {"skills/a/SKILL.md": skill_md(), "skills/a/references/r.md": "ref\n"})
    assert build(cfg).exit_code == 0
    return cfg


def objects(dist: Path) -> list[Path]:
    return sorted(p for p in (dist / "objects").rglob("*") if p.is_file())


@pytest.mark.parametrize("kind", ["fifo", "device"])
@pytest.mark.parametrize("which", ["_index.json", "object", "prompt", "stray", "marker"])
def test_check_and_build_against_a_hostile_output(built, kind, which):
    dist = built.parent / "dist"
    target = {
        "_index.json": dist / "_index.json",
        "object": objects(dist)[0],
        "prompt": dist / "personas/default/prompt.xml",
        "stray": dist / "personas/stray.md",
        "marker": dist / ".skillc-dist",
    }[which]
    if target.exists():
        target.unlink()
    plant(target, kind)
    code, err = cli(built, "check")
    assert code == 1 and "SKC70" in err, err
    code, err = cli(built, "build")
    if which in ("marker", "stray"):  # not provably skillc's (a stray: foreign, issue 17): left alone
        assert code == 1 and "SKC704" in err
        return
    assert code == 0, err
    assert cli(built, "check")[0] == 0
    assert not target.is_symlink()


def test_build_without_cache_against_a_hostile_object(built):
    dist = built.parent / "dist"
    obj = objects(dist)[0]
    obj.unlink()
    os.symlink("/dev/zero", obj)
    code, err = cli(built, "build", "--no-cache")
    assert code == 0, err
    assert cli(built, "check")[0] == 0


def test_fifo_named_skill_md_is_reported_not_dropped(tmp_path):
    cfg = project(tmp_path, {"skills/a/SKILL.md": skill_md()})
    os.makedirs(tmp_path / "skills/b")
    os.mkfifo(tmp_path / "skills/b/SKILL.md")
    r = build(cfg)
    assert r.exit_code == 1 and r.one("SKC310").path == "skills/b/SKILL.md"
    assert "FIFO" in r.one("SKC310").message


def test_directory_named_skill_md_or_manifest_is_reported(tmp_path):
    cfg = project(
        tmp_path,
        {
            "skills/a/SKILL.md": skill_md(),
            "skills/b/SKILL.md/x.md": "x\n",
            "personas/p/manifest.yaml/x.md": "x\n",
            "personas/q/manifest.yaml": "name: Q\n",
        },
        CONFIG_PERSONAS,
    )
    r = build(cfg)
    assert r.exit_code == 1
    assert sorted(d.path for d in r.find("SKC310")) == ["personas/p/manifest.yaml", "skills/b/SKILL.md"]


def test_socket_is_reported(tmp_path):
    import socket

    cfg = project(tmp_path, {"skills/a/SKILL.md": skill_md()})
    where = tmp_path / "skills/a/s.md"
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(where))
    except OSError:
        pytest.skip("cannot bind a unix socket here")
    try:
        r = build(cfg)
    finally:
        sock.close()
    assert r.exit_code == 1 and "socket" in r.one("SKC310").message


def test_regular_symlinks_inside_the_root_still_work(tmp_path):
    cfg = project(tmp_path, {"skills/a/SKILL.md": skill_md(), "skills/shared.md": "shared\n"})
    os.symlink("../shared.md", tmp_path / "skills/a/linked.md")
    assert build(cfg).exit_code == 0


def test_reads_are_bounded_for_a_growing_file(tmp_path):
    from skillc import fs

    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    with pytest.raises(fs.TooLarge):
        fs.read_regular(big, 100)
    assert fs.read_regular(big, 101) == b"x" * 101
    write_tree(tmp_path, {"small": "y"}, exact=True)
    assert fs.read_regular(tmp_path / "small", 1) == b"y"


def test_objects_behind_a_planted_symlink_are_never_reused(built, tmp_path):
    dist = built.parent / "dist"
    decoy = tmp_path / "decoy"
    for obj in objects(dist):
        rel = obj.relative_to(dist / "objects")
        (decoy / rel).parent.mkdir(parents=True, exist_ok=True)
        (decoy / rel).write_bytes(b"X" * obj.stat().st_size)  # right names and sizes, wrong bytes
    good = {p.relative_to(dist).as_posix(): p.read_bytes() for p in objects(dist)}
    os.rename(dist / "objects", tmp_path / "moved")
    os.symlink(decoy, dist / "objects")
    for flags in ((), ("--no-cache",)):
        code, err = cli(built, "build", *flags)
        assert code == 0, err
        assert not (dist / "objects").is_symlink()
        assert {p.relative_to(dist).as_posix(): p.read_bytes() for p in objects(dist)} == good
    assert cli(built, "check")[0] == 0
