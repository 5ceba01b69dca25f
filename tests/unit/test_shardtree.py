"""The shard table: build_table, locate_shard and all_shards agree, at one level and at several."""

from __future__ import annotations

import hashlib
import json

import pytest

from skillc.format.errors import FormatError
from skillc.format.layout import node_width, shard_of
from skillc.format.shapes import ShardTableDoc
from skillc.format.shardtree import all_shards, build_table, locate_shard, table_nodes

COMMANDS = [f"skill-{i}" for i in range(300)]


class Store:
    """Nodes kept by digest, as the compiler's files or the reader's objects hold them."""

    def __init__(self) -> None:
        self.nodes: dict[str, ShardTableDoc] = {}
        self.reads: list[str] = []

    def put(self, node: ShardTableDoc) -> str:
        digest = hashlib.sha256(json.dumps(node, sort_keys=True).encode()).hexdigest()
        self.nodes[digest] = node
        return digest

    def read(self, digest: str, prefix: str) -> ShardTableDoc:
        node = self.nodes[digest]
        assert node["prefix"] == prefix  # the walk asks for the node it expects
        self.reads.append(prefix)
        return node


def _shards(digits: int, commands: list[str]) -> dict[str, str]:
    """Shard name -> a stand-in for its object digest."""
    return {shard_of(c, digits): f"shard-object-{shard_of(c, digits)}" for c in commands}


def test_a_table_of_two_digit_names_is_one_node() -> None:
    store, shards = Store(), _shards(2, COMMANDS)
    root = build_table(shards, store.put)
    assert list(store.nodes) == [root]
    assert store.nodes[root] == {"format": 3, "prefix": "", "shards": shards}
    assert all_shards(root, store.read, "t") == shards
    for command in COMMANDS:
        assert locate_shard(command, root, store.read, "t") == (
            shard_of(command, 2),
            shards[shard_of(command, 2)],
        )


def test_longer_names_make_a_tree_that_finds_every_shard() -> None:
    store, shards = Store(), _shards(4, COMMANDS)
    root = build_table(shards, store.put)
    nodes = list(table_nodes(root, store.read, "t"))
    assert [len(n["prefix"]) for n in nodes][:2] == [0, 2]  # parents before children
    assert {len(n["prefix"]) for n in nodes} == {0, 2, 3}  # three levels: 2, 3 and 4 digit names
    for node in nodes:
        names = node.get("shards") or node.get("tables") or {}
        assert ("shards" in node) != ("tables" in node)  # exactly one of the two
        assert names and len(names) <= 256
        assert all(len(n) == node_width(node["prefix"]) and n.startswith(node["prefix"]) for n in names)
    assert all_shards(root, store.read, "t") == shards
    for command in COMMANDS:
        store.reads.clear()
        name = shard_of(command, 4)
        assert locate_shard(command, root, store.read, "t") == (name, shards[name])
        assert store.reads == ["", name[:2], name[:3]]  # one node a level, no more


def test_a_command_in_no_shard_is_located_nowhere() -> None:
    store, inside = Store(), _shards(3, COMMANDS[:5])
    root = build_table(inside, store.put)
    # one below a node that exists (its shard is missing from the leaf), one below none (a missing branch)
    near = next(
        c for c in COMMANDS if shard_of(c, 2) in {n[:2] for n in inside} and shard_of(c, 3) not in inside
    )
    far = next(c for c in COMMANDS if shard_of(c, 2) not in {n[:2] for n in inside})
    assert locate_shard(near, root, store.read, "t") == (shard_of(near, 3), None)
    assert locate_shard(far, root, store.read, "t") == (shard_of(far, 2), None)


def test_a_table_that_never_ends_is_refused() -> None:
    def endless(digest: str, prefix: str) -> ShardTableDoc:
        width = node_width(prefix)
        name = shard_of(COMMANDS[0], width)
        return {"format": 3, "prefix": prefix, "tables": {name: "again"}}

    with pytest.raises(FormatError, match="deeper than 8 levels"):
        locate_shard(COMMANDS[0], "root", endless, "t")
    with pytest.raises(FormatError, match="deeper than 8 levels"):
        all_shards("root", endless, "t")
