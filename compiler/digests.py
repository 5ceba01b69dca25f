"""The compiler's digests: the build hash, the cache's keys, and sha256.

sha256 is hashlib's (OpenSSL), 2.5-5.5x faster than the `_sha2` module the reader uses
(bench/RESULTS.md). The reader keeps `_sha2` (format/layout.py) because importing hashlib loads
OpenSSL, 4 ms of its cold start. Both give the same digest of the same bytes."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from . import __version__

if TYPE_CHECKING:
    from .model import Config, InputFile
    from .stages.template import Template

GENERATOR = f"skillc {__version__}"  # in every index, and in every build hash


def digest(*parts: str | bytes) -> str:
    """sha256 of length-prefixed parts: no two different lists of parts join to the same bytes
    (the cache's keys)."""
    h = hashlib.sha256()
    for part in parts:
        # surrogatepass: file names that are not UTF-8 reach diagnostics as surrogates
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


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
