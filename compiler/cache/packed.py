"""Integers packed for a cache file: little-endian bytes (int64 unless said; carry-catalog.json's
places are uint32), written as a raw section of the signed file (store.py). Tens of thousands of
values read as one array, not a list object per value (walk.json's stat data, outputs.json's)."""

from __future__ import annotations

import array
import sys


def unpack(data: object, typecode: str = "q") -> array.array[int] | None:
    """The integers of `pack`; None when `data` is not such bytes."""
    if not isinstance(data, bytes):
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
