"""Integers and strings packed for a cache file, written as raw sections of the signed file
(store.py).

Integers are little-endian bytes (int64 unless said; carry-catalog.json's places are uint32): tens
of thousands of values read as one array, not a list object per value (walk.json's stat data,
outputs.json's). Strings are UTF-8, each ended by a NUL: tens of thousands of paths split in C from
one section instead of parsed one by one as JSON strings (walk.json's paths: 8 ms of every cached
build's start with the standard library's parser, which the quick path uses before orjson is loaded).
"""

from __future__ import annotations

import array
import sys
from collections.abc import Sequence
from typing import TypeGuard

Raw = bytes | memoryview  # a raw section as written, or as read (a view of the file's bytes, store.py)


def is_raw(data: object) -> TypeGuard[Raw]:
    return isinstance(data, (bytes, memoryview))


def unpack(data: object, typecode: str = "q") -> array.array[int] | None:
    """The integers of `pack`; None when `data` is not such bytes."""
    if not is_raw(data):
        return None
    values = array.array(typecode)
    try:
        values.frombytes(data)
    except ValueError:  # not a whole number of values
        return None
    if sys.byteorder == "big":
        values.byteswap()
    return values


def pack(values: array.array[int]) -> bytes:
    if sys.byteorder == "big":
        values = array.array(values.typecode, values)
        values.byteswap()
    return values.tobytes()


def pack_texts(texts: Sequence[str]) -> bytes:
    """Strings as one section, each ended by a NUL; a string holding a NUL fails (TypeError, which
    leaves the cache file unwritten: store.write_signed). Surrogates pass through, as they came."""
    if not texts:
        return b""
    joined = "\0".join(texts)
    if joined.count("\0") != len(texts) - 1:
        raise TypeError("a string with a NUL in it")
    return (joined + "\0").encode("utf-8", "surrogatepass")


def unpack_texts(data: object) -> list[str] | None:
    """The strings of `pack_texts`; None when `data` is not such bytes."""
    text = unpack_text(data)
    if text is None or (text and not text.endswith("\0")):
        return None
    return text[:-1].split("\0") if text else []


def pack_text(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def unpack_text(data: object) -> str | None:
    """The string of `pack_text`; None when `data` is not such bytes."""
    if not is_raw(data):
        return None
    try:
        return str(data, "utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return None
