"""Integers packed for a cache file: int64, little-endian, base64 in one JSON string. Tens of
thousands of stat values parse as one string and one array, not a list object per path
(walk.json's stat data, outputs.json's)."""

from __future__ import annotations

import array
import binascii
import sys


def unpack(text: str) -> array.array[int] | None:
    """The integers of `pack`; None when the text is not such a string."""
    values = array.array("q")
    try:
        values.frombytes(binascii.a2b_base64(text, strict_mode=True))
    except ValueError:
        return None
    if sys.byteorder == "big":
        values.byteswap()
    return values


def pack(values: array.array[int]) -> str:
    if sys.byteorder == "big":
        values = array.array("q", values)
        values.byteswap()
    return binascii.b2a_base64(values.tobytes(), newline=False).decode("ascii")
