"""The build hash: what `_index.json` names a build by, and what the cache keys a build by.

It covers the generator, the config's bytes, the template (`Template.source`, with what it
includes) and each input's line (its path, digest and executable bit), in discovery's order."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from ..digests import GENERATOR, sha256_hex

if TYPE_CHECKING:
    from ..model import Config, InputFile
    from .template import Template


def build_hash(config: Config, inputs: tuple[InputFile, ...], template: Template) -> str:
    return hash_lines(config, template.source, [input_line(f) for f in inputs])


def input_line(f: InputFile) -> bytes:
    """One input's share of the build hash: `build --watch` keeps the lines and replaces an edited one."""
    mode = "\0x" if f.executable else ""  # a chmod +x changes the index, so the hash too
    return f"{f.rel}\0{f.digest}{mode}\n".encode()


def hash_lines(config: Config, template_source: bytes, lines: list[bytes]) -> str:
    """The build hash: the generator, the config and the template (`Template.source`), then each
    input's line in order."""
    h = hashlib.sha256()
    for label, data in (
        ("generator", GENERATOR.encode()),
        ("config", config.config_bytes),
        ("template", template_source),
    ):
        h.update(f"{label}\0{sha256_hex(data)}\n".encode())
    h.update(b"".join(lines))
    return h.hexdigest()
