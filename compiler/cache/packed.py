"""Integers packed for a cache file: little-endian, base64 in one JSON string (int64 unless said;
carry-catalog.json's places are uint32). Tens of thousands of values parse as one string and one
array, not a list object per value (walk.json's stat data, outputs.json's)."""

from __future__ import annotations

import array
import binascii
import sys


def unpack(text: str, typecode: str = "q") -> array.array[int] | None:
    """The integers of `pack`; None when the text is not such a string."""
    values = array.array(typecode)
    try:
        values.frombytes(binascii.a2b_base64(text, strict_mode=True))
    except ValueError:
        return None
    if sys.byteorder == "big":
        values.byteswap()
    return values


def pack(values: array.array[int]) -> str:
    if sys.byteorder == "big":
        values = array.array(values.typecode, values)
        values.byteswap()
    return binascii.b2a_base64(values.tobytes(), newline=False).decode("ascii")
