"""The dist layout: names and paths of format 3."""

from __future__ import annotations

from skillc.format import layout as fmt


def test_shard_names_get_longer_as_builds_grow():
    assert [fmt.shard_digits(n) for n in (0, 10_000, 16_384, 16_385, 262_144, 262_145)] == [2, 2, 2, 3, 3, 4]
