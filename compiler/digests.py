"""sha256 in the compiler: hashlib's (OpenSSL), 2.5-5.5x faster than the `_sha2` module the reader
uses (bench/RESULTS.md). The reader keeps `_sha2` (format/layout.py) because importing hashlib
loads OpenSSL, 4 ms of its cold start. Both give the same digest of the same bytes."""

from __future__ import annotations

import hashlib


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
