"""The compiler's digests: the cache's keys, and sha256 (the build hash is stages/buildhash.py's).

sha256 is hashlib's (OpenSSL), 2.5-5.5x faster than the `_sha2` module the reader uses
(bench/RESULTS.md). The reader keeps `_sha2` (format/layout.py) because importing hashlib loads
OpenSSL, 4 ms of its cold start. Both give the same digest of the same bytes."""

from __future__ import annotations

import hashlib

from . import __version__

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
