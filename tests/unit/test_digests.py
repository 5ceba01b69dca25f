"""The compiler's sha256 (hashlib) and the reader's (_sha2) name every object alike."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from skillc.digests import sha256_hex as compiler_sha256
from skillc.format.layout import sha256_hex as reader_sha256


@given(st.binary(max_size=4096))
def test_compiler_and_reader_hash_alike(data: bytes) -> None:
    assert compiler_sha256(data) == reader_sha256(data)


def test_a_known_digest() -> None:
    assert compiler_sha256(b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
