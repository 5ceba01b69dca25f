"""stages/buildhash.py: the build hash covers the generator, the config, the template and each input."""

from __future__ import annotations

from support import values

from skillc.model import InputFile
from skillc.stages.buildhash import build_hash, hash_lines, input_line

A = InputFile("skills/a/SKILL.md", b"---\nname: a\n---\n")
B = InputFile("skills/b/run.sh", b"#!/bin/sh\n", executable=True)


def test_an_input_s_line_is_its_path_digest_and_mode() -> None:
    assert input_line(A) == f"skills/a/SKILL.md\0{A.digest}\n".encode()
    assert input_line(B) == f"skills/b/run.sh\0{B.digest}\0x\n".encode()


def test_the_build_hash_is_its_lines_hashed() -> None:
    config, template = values.config(), values.template()
    assert build_hash(config, (A, B), template) == hash_lines(
        config, template.source, [input_line(A), input_line(B)]
    )


def test_each_part_moves_the_hash() -> None:
    config, template = values.config(), values.template()
    base = build_hash(config, (A, B), template)
    moved = {
        build_hash(values.config(config_bytes=b"sources: [other]\n"), (A, B), template),
        hash_lines(config, b"another template", [input_line(A), input_line(B)]),
        build_hash(config, (A,), template),
        build_hash(config, (B, A), template),
        build_hash(config, (A, InputFile(B.rel, B.data)), template),  # chmod -x
    }
    assert base not in moved and len(moved) == 5
