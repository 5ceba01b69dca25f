"""Paths spelled differently: Unicode normalisation, `./` and trailing slashes, a NUL byte in an index."""

from __future__ import annotations

import json
import shutil
import unicodedata
from pathlib import Path

import pytest
from support.cli import run
from support.files import GOLDEN_PROJECT
from support.project import skill_md, src_project

from skillc import reader
from skillc.pipeline import build, compile_project


def _golden(tmp_path: Path) -> Path:
    shutil.copytree(GOLDEN_PROJECT, tmp_path / "p")
    return tmp_path / "p" / "skillc.yaml"


def test_names_differing_only_in_unicode_normalisation_are_refused(tmp_path: Path) -> None:
    nfc, nfd = unicodedata.normalize("NFC", "café"), unicodedata.normalize("NFD", "café")
    config = src_project(
        tmp_path, {f"src/{nfc}/SKILL.md": skill_md(None), f"src/{nfd}/SKILL.md": skill_md(None)}
    )
    code, out = run("build", "--config", str(config))
    assert code == 1
    assert (
        f"src/{nfc}:1:1: error[SKC306]: two entries named '{nfc}' that differ only in Unicode normalisation"
        in out
    )


@pytest.mark.parametrize("spelling", ["src/", "./src", "src/."])
def test_path_spellings_give_identical_bytes(tmp_path: Path, spelling: str) -> None:
    files = {"src/a/SKILL.md": skill_md("a")}
    plain = compile_project(src_project(tmp_path / "plain", files, config="sources: [src]\n")).artifacts.files
    other = compile_project(
        src_project(tmp_path / "other", files, config=f"sources: ['{spelling}']\n")
    ).artifacts.files

    # build_hash covers the config's bytes, which differ; every path in the output must not
    def strip(files):
        return {
            k: v.replace(json.loads(files["_index.json"])["build_hash"].encode(), b"")
            for k, v in files.items()
        }

    assert strip(other) == strip(plain)


def test_reader_refuses_a_nul_byte_in_an_index_path(tmp_path: Path) -> None:
    config = _golden(tmp_path)
    build(config)
    index = tmp_path / "p" / "dist" / "_index.json"
    data = json.loads(index.read_text())
    data["personas"]["pilot"]["copy"] = "a\x00b"
    index.write_text(json.dumps(data))
    with pytest.raises(reader.FormatError):
        reader.open(tmp_path / "p" / "dist")
