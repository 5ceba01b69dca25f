"""The shard table of format 3: a tree of objects, built by the compiler and walked by readers.

Each node names hex prefixes of the commands' sha256: two digits at the root, one more at each
level below. A node whose names are as long as the build's shard names maps them to shard objects
(`shards`); any other maps them to the nodes below it (`tables`). No node holds more than 256
names, so a load() at any size reads a few kilobytes of the table. Standard library only.
"""

from __future__ import annotations

from .errors import FormatError
from .layout import VERSION, node_width, shard_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from .shapes import ShardTableDoc

    # (object digest, prefix) -> that node, checked; the reader's cache or the compiler's files
    ReadNode = Callable[[str, str], ShardTableDoc]

MAX_DEPTH = 8  # shard names are at most 8 hex digits (format/layout.py shard_digits)


def build_table(shards: dict[str, str], put: Callable[[ShardTableDoc], str], prefix: str = "") -> str:
    """The node for `prefix` over `shards` (shard name -> shard object, every name starting with
    `prefix`), stored with `put`; its digest."""
    width = node_width(prefix)
    if all(len(n) <= width for n in shards):
        return put({"format": VERSION, "prefix": prefix, "shards": dict(shards)})
    groups: dict[str, dict[str, str]] = {}
    for name, digest in shards.items():  # one pass: filtering per child is quadratic at 4,096 shards
        groups.setdefault(name[:width], {})[name] = digest
    below = {c: build_table(groups[c], put, c) for c in sorted(groups)}
    return put({"format": VERSION, "prefix": prefix, "tables": below})


def locate_shard(command: str, root: str, read: ReadNode, where: str) -> tuple[str, str | None]:
    """(shard name, shard object or None) of a command, walking down from the root node."""
    full = shard_of(command, 64)
    digest: str | None = root
    prefix = ""
    for _ in range(MAX_DEPTH):
        assert digest is not None
        node = read(digest, prefix)
        name = full[: node_width(prefix)]
        if "shards" in node:
            return name, node["shards"].get(name)
        digest, prefix = node["tables"].get(name), name
        if digest is None:
            return name, None
    raise FormatError(f"{where}: the shard table is deeper than {MAX_DEPTH} levels")


def table_nodes(root: str, read: ReadNode, where: str) -> Iterator[ShardTableDoc]:
    """Every node of the table, parents before children, siblings in name order."""
    todo = [(root, "")]
    while todo:
        digest, prefix = todo.pop()
        if len(prefix) >= MAX_DEPTH:
            raise FormatError(f"{where}: the shard table is deeper than {MAX_DEPTH} levels")
        node = read(digest, prefix)
        yield node
        todo += [(child, name) for name, child in reversed(node.get("tables", {}).items())]


def all_shards(root: str, read: ReadNode, where: str) -> dict[str, str]:
    """Every shard name and object in the table."""
    return {name: d for node in table_nodes(root, read, where) for name, d in node.get("shards", {}).items()}
