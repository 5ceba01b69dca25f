"""Format 2 of dist/: the one home of its version, file names, object paths, shard names and bounds.

dist/
  _index.json                 small: format, build hash, config, per persona the hashes of its
                              prompt and meta objects, and the hash of the shard table object
                              (per shard the hash of its skills object)
  personas/<id>/prompt<ext>   a readable copy of the catalog (the reader reads the object)
  objects/<aa>/<sha256>       content-addressed: bodies, resources, prompts, persona metas, the shard
                              table, skill shards

A skill lives in shard `shard_of(command, digits)` (`digits`: 2, or more for very large builds, see
shard_digits; every shard name in one index has that length); its entry holds its resolution for every persona as a
default plus per-persona exceptions. Everything but `_index.json` and the prompt copies is an
object, so an application's open Dist keeps serving the build it opened across rebuilds.
Imported by the compiler and the reader: standard library only. No other module spells a dist/ path.
"""

from __future__ import annotations

try:  # the C module hashlib wraps: importing hashlib loads OpenSSL, 4 ms of a cold start
    from _sha2 import sha256 as _sha256  # CPython 3.12+
except ImportError:
    try:
        from _sha256 import sha256 as _sha256  # CPython 3.11
    except ImportError:  # pragma: no cover - another interpreter
        from hashlib import sha256 as _sha256

VERSION = 3
INDEX = "_index.json"
OBJECTS = "objects"
PERSONAS = "personas"
# Written into every output by every build: skillc replaces only a directory that holds it.
OUTPUT_MARKER = ".skillc-dist"
OUTPUT_MARKER_TEXT = (
    b"skillc output: written by `skillc build`, replaced wholesale by the next build. Do not edit.\n"
)
# A file being written into dist/ (then renamed into place): a build killed midway leaves it, the
# next build removes it. Readers never read it: they read `_index.json` and objects by name.
TEMP_PREFIX = ".skillc-tmp-"
SHARD_HEX = 2  # the fewest hex digits in a shard name: 256 shards
SHARD_SKILLS = 64  # skills per shard, on average, before shard names get one more digit
MAX_INDEX_BYTES = 16 << 20
MAX_OBJECT_BYTES = 1 << 30
MAX_FILES = 20  # bundled files listed in a tool result


def sha256_hex(data: bytes) -> str:
    digest: str = _sha256(data).hexdigest()
    return digest


def object_path(digest: str) -> str:
    return f"{OBJECTS}/{digest[:2]}/{digest}"


def prompt_path(persona: str, suffix: str) -> str:
    return f"{PERSONAS}/{persona}/prompt{suffix}"


def is_object(rel: str) -> bool:
    """The dist/-relative path is below objects/ (content-addressed: kept across builds until --prune)."""
    return rel.startswith(OBJECTS + "/")


def shard_of(command: str, digits: int = SHARD_HEX) -> str:
    """The shard a command lives in: the first `digits` hex digits of its sha256."""
    return sha256_hex(command.encode("utf-8", "surrogatepass"))[:digits]


def node_width(prefix: str) -> int:
    """The length of the names in the shard-table node for `prefix`: 2 at the root, one more below.

    The table is a tree of objects: the root names 2-hex prefixes; a node whose names are as long
    as the shard names maps them to shard objects (`shards`), any other maps them to the nodes
    below (`tables`). A build of up to 16,384 skills has one node."""
    return len(prefix) + (SHARD_HEX if not prefix else 1)


def shard_digits(skills: int) -> int:
    """How long a build's shard names are: 2 up to 16,384 skills, 3 up to 262,144, and so on,
    so that load() parses about SHARD_SKILLS entries at any size. Every shard name in one index
    has this length; the reader reads it off the names."""
    digits = SHARD_HEX
    while skills > SHARD_SKILLS * 16**digits and digits < 8:
        digits += 1
    return digits


_BUILD_HASH_KEY = b'"build_hash": "'  # as the compiler writes it, near the top of the index


def build_hash_in(index_head: bytes) -> str | None:
    """The build hash named in the first bytes of an index the compiler wrote, without parsing it."""
    at = index_head.find(_BUILD_HASH_KEY)
    if at < 0:
        return None
    start = at + len(_BUILD_HASH_KEY)
    value = index_head[start : start + 64]
    return (
        value.decode("ascii", "replace")
        if len(value) == 64 and index_head[start + 64 : start + 65] == b'"'
        else None
    )
