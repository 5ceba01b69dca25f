"""The documents of format 3 and their checks: every JSON document is validated before use.

The checks here are the reader's own, stdlib only, and mirror compiler/schemas/*.schema.json of
format 3 (the tests hold every golden and generated build to both). A document that fails them
is refused whole with FormatError: nothing is served from an index the reader has not validated.
"""

from __future__ import annotations

from .errors import FormatError, IntegrityError
from .layout import VERSION, node_width, sha256_hex, shard_of
from .split import FIELDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_HEXDIGITS = frozenset("0123456789abcdef")
_ACCESS = ("open", "granted", "stub")


# -- structural checks -------------------------------------------------------


class _Bad(Exception):
    """Where a document first breaks its shape; turned into FormatError with the file name."""


def _fail(path: str, what: str) -> None:
    raise _Bad(f"{path or '(root)'}: {what}")


def _dict(v: Any, path: str, keys: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(v, dict):
        _fail(path, "not an object")
    if set(v) != set(keys):
        _fail(path, f"keys {sorted(v)} are not {sorted(keys)}")
    return v  # type: ignore[no-any-return]


def _str(v: Any, path: str) -> str:
    if not isinstance(v, str):
        _fail(path, "not a string")
    return v  # type: ignore[no-any-return]


def _opt_str(v: Any, path: str) -> None:
    if v is not None:
        _str(v, path)


def _bool(v: Any, path: str) -> None:
    if not isinstance(v, bool):
        _fail(path, "not a boolean")


def _int(v: Any, path: str) -> None:
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        _fail(path, "not a non-negative integer")


def _sha(v: Any, path: str) -> None:
    if not (isinstance(v, str) and len(v) == 64 and _HEXDIGITS.issuperset(v)):
        _fail(path, "not a sha256")


def _relpath(v: Any, path: str) -> None:
    s = _str(v, path)
    if not s or s.startswith("/") or "\\" in s or "\x00" in s or ".." in s.split("/"):
        _fail(path, f"unsafe path {s!r}")


def _strs(v: Any, path: str) -> list[str]:
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        _fail(path, "not a list of strings")
    return v  # type: ignore[no-any-return]


def _id(v: Any, path: str) -> None:
    s = _str(v, path)
    parts = s.split("-")
    if not all(p and p.isascii() and p.isalnum() and p == p.lower() for p in parts):
        _fail(path, f"{s!r} is not a persona id")


def _checked(check: Any, doc: Any, where: str) -> None:
    try:
        check(doc)
    except _Bad as exc:
        raise FormatError(f"{where}: malformed: {exc}") from None


def _version(value: Any) -> bool:
    """The integer 2 itself: not 2.0 (which Python would call equal), not true."""
    return type(value) is int and value == VERSION


def check_index(doc: Any, where: str) -> None:
    got = doc.get("format") if isinstance(doc, dict) else None
    if not _version(got):
        raise FormatError(
            f"{where}: dist/ is format {got!r}; this reader reads format {VERSION} only "
            f"(rebuild dist/ with a skillc that writes format {VERSION}, or use the reader that came with that build)"
        )
    _checked(_index_shape, doc, where)


_INDEX_KEYS = (
    "format",
    "generator",
    "build_hash",
    "config",
    "personas",
    "shards",
    "split",
    "requires",
    "personas_hash",
    "knowledge",
)


def _index_shape(doc: Any) -> None:
    _dict(doc, "", _INDEX_KEYS)
    _str(doc["generator"], "generator")
    _sha(doc["build_hash"], "build_hash")
    c = _dict(doc["config"], "config", ("sources", "personas", "template", "catalog_chars", "priority"))
    _strs(c["sources"], "config.sources")
    _opt_str(c["personas"], "config.personas")
    _str(c["template"], "config.template")
    _int(c["catalog_chars"], "config.catalog_chars")
    _strs(c["priority"], "config.priority")
    personas = doc["personas"]
    if not isinstance(personas, dict):
        _fail("personas", "not an object")
    for pid, p in personas.items():
        _id(pid, f"personas.{pid}")
        e = _dict(p, f"personas.{pid}", ("prompt", "chars", "meta", "copy", "plan"))
        _sha(e["prompt"], f"personas.{pid}.prompt")
        _sha(e["meta"], f"personas.{pid}.meta")
        _int(e["chars"], f"personas.{pid}.chars")
        _relpath(e["copy"], f"personas.{pid}.copy")
        _opt_sha(e["plan"], f"personas.{pid}.plan")
    _sha(doc["shards"], "shards")
    for key in ("split", "requires", "personas_hash"):
        _opt_sha(doc[key], key)
    if doc["knowledge"] is not None:
        k = _dict(doc["knowledge"], "knowledge", ("folder", "titles"))
        _str(k["folder"], "knowledge.folder")
        if not isinstance(k["titles"], dict):
            _fail("knowledge.titles", "not an object")
        for name, title in k["titles"].items():
            _str(title, f"knowledge.titles.{name}")


def _opt_sha(v: Any, path: str) -> None:
    if v is not None:
        _sha(v, path)


def check_split(doc: Any, personas: Any, where: str) -> None:
    """The catalog template's split (§4.5): entry patterns, and frames for exactly the index's
    personas."""

    def shape(doc: Any) -> None:
        _dict(doc, "", ("format", "markup", "entry", "always", "frames"))
        if not _version(doc["format"]):
            _fail("format", f"not format {VERSION}")
        _bool(doc["markup"], "markup")
        _pattern(doc["entry"], "entry", FIELDS)
        _pattern(doc["always"], "always", FIELDS)
        frames = doc["frames"]
        if not isinstance(frames, dict) or set(frames) != set(personas):
            _fail("frames", "not an object keyed by the index's personas")
        for pid, f in frames.items():
            if f is None:
                continue
            _dict(f, f"frames.{pid}", ("none", "one", "many"))
            for key in ("none", "one", "many"):
                pair = f[key]
                if not isinstance(pair, list) or len(pair) != 2:
                    _fail(f"frames.{pid}.{key}", "not a pair")
                for i, part in enumerate(pair):
                    if key == "many":
                        _pattern(part, f"frames.{pid}.many.{i}", ("omitted",))
                    else:
                        _str(part, f"frames.{pid}.{key}.{i}")

    _checked(shape, doc, where)


def _pattern(v: Any, path: str, fields: tuple[str, ...]) -> None:
    """Fixed text (a string) and fields: an entry's `{"field", "lines"}`, a frame's `{"field"}`."""
    if not isinstance(v, list):
        _fail(path, "not a list")
    keys = ("field",) if fields == ("omitted",) else ("field", "lines")
    for i, piece in enumerate(v):
        if isinstance(piece, str):
            continue
        e = _dict(piece, f"{path}.{i}", keys)
        if e["field"] not in fields:
            _fail(f"{path}.{i}.field", f"not one of {', '.join(fields)}")
        if "lines" in e:
            _bool(e["lines"], f"{path}.{i}.lines")


def check_plan(doc: Any, pid: str, where: str) -> None:
    """A persona's plan (§4.6); its places are held to the catalog's text where it is used."""

    def shape(doc: Any) -> None:
        _dict(doc, "", ("format", "persona", "markup", "entries"))
        if not _version(doc["format"]) or doc["persona"] != pid:
            _fail("persona", f"not the plan of persona {pid!r} in format {VERSION}")
        _bool(doc["markup"], "markup")
        if not isinstance(doc["entries"], list):
            _fail("entries", "not a list")
        for i, entry in enumerate(doc["entries"]):
            e = _dict(entry, f"entries.{i}", ("command", "start", "end", "locations"))
            _str(e["command"], f"entries.{i}.command")
            _int(e["start"], f"entries.{i}.start")
            _int(e["end"], f"entries.{i}.end")
            if not isinstance(e["locations"], list):
                _fail(f"entries.{i}.locations", "not a list")
            for j, place in enumerate(e["locations"]):
                at = _dict(place, f"entries.{i}.locations.{j}", ("at", "lines"))
                _int(at["at"], f"entries.{i}.locations.{j}.at")
                _bool(at["lines"], f"entries.{i}.locations.{j}.lines")

    _checked(shape, doc, where)


def check_places(doc: Any, length: int, where: str) -> None:
    """A plan's places against its catalog of `length` code points: each entry within it, after
    the one before, and each location within its entry, after the one before."""
    last = 0
    for i, e in enumerate(doc["entries"]):
        if not last <= e["start"] <= e["end"] <= length:
            raise FormatError(f"{where}: malformed: entries.{i}: not within the catalog after entry {i - 1}")
        at = e["start"]
        for place in e["locations"]:
            if not at <= place["at"] <= e["end"]:
                raise FormatError(f"{where}: malformed: entries.{i}: a location outside its entry")
            at = place["at"]
        last = e["end"]


def check_requires(doc: Any, where: str) -> None:
    """The skills' requirements (§4.7)."""

    def shape(doc: Any) -> None:
        _dict(doc, "", ("format", "requires"))
        if not _version(doc["format"]):
            _fail("format", f"not format {VERSION}")
        if not isinstance(doc["requires"], dict):
            _fail("requires", "not an object")
        for command, needs in doc["requires"].items():
            e = _dict(needs, f"requires.{command}", ("bins", "env"))
            _strs(e["bins"], f"requires.{command}.bins")
            _strs(e["env"], f"requires.{command}.env")

    _checked(shape, doc, where)


def check_shard_table(doc: Any, prefix: str, where: str) -> None:
    """One node of the shard table: `shards` (shard name -> shard object) or `tables` (longer
    prefix -> node), every name its prefix plus two hex digits at the root and one below it."""

    def shape(doc: Any) -> None:
        if not isinstance(doc, dict):
            _fail("", "not an object")
        kind = "tables" if "tables" in doc else "shards"
        _dict(doc, "", ("format", "prefix", kind))
        if kind == "tables" and len(prefix) >= 7:  # shard names have at most 8 digits
            _fail("tables", f"node {prefix!r} is too deep to hold tables")
        if not _version(doc["format"]) or doc["prefix"] != prefix:
            _fail("prefix", f"not node {prefix!r} of format {VERSION}")
        entries = doc[kind]
        if not isinstance(entries, dict):
            _fail(kind, "not an object")
        width = node_width(prefix)
        names, digests = list(entries), list(entries.values())
        # Checked in bulk first; entry by entry only to name the bad one.
        if not (
            set(map(len, names)) <= {width}
            and _all_hex("".join(names))
            and all(n.startswith(prefix) for n in names)
            and set(map(type, digests)) <= {str}
            and set(map(len, digests)) <= {64}
            and _all_hex("".join(digests))
        ):
            for key, digest in entries.items():
                if len(key) != width or not key.startswith(prefix) or not _HEXDIGITS.issuperset(key):
                    _fail(f"{kind}.{key}", f"not a name of {width} hex digits starting {prefix!r}")
                _sha(digest, f"{kind}.{key}")

    _checked(shape, doc, where)


def _all_hex(text: str) -> bool:
    """Every character a lowercase hex digit, checked in C a whole string at a time (frozenset.issuperset,
    str.strip or str.isalnum over the 270,000 characters of a 100,000-skill index's shard table cost
    1.5-3 ms of every cold start; this costs a few hundredths of that)."""
    try:
        data = text.encode("ascii")
        if data != data.lower():
            return False
        import binascii  # here: open() and catalog() check no shard table

        binascii.unhexlify(data if len(data) % 2 == 0 else data + b"0")  # refuses any other byte
    except (UnicodeEncodeError, ValueError):  # binascii.Error is a ValueError
        return False
    return True


def check_persona_meta(doc: Any, pid: str, where: str) -> None:
    def shape(doc: Any) -> None:
        keys = (
            "format",
            "id",
            "name",
            "faction",
            "fallback",
            "chain",
            "unrestricted",
            "allowlist",
            "budget",
            "included",
            "left_out",
            "shortened",
            "strategy",
        )
        _dict(doc, "", keys)
        if not _version(doc["format"]) or doc["id"] != pid:
            _fail("id", f"not the meta of persona {pid!r} in format {VERSION}")
        _str(doc["name"], "name")
        _opt_str(doc["faction"], "faction")
        if doc["fallback"] is not None:
            _id(doc["fallback"], "fallback")
        for i, p in enumerate(_strs(doc["chain"], "chain")):
            _id(p, f"chain.{i}")
        _bool(doc["unrestricted"], "unrestricted")
        if doc["allowlist"] is not None:
            _strs(doc["allowlist"], "allowlist")
        _int(doc["budget"], "budget")
        _strs(doc["included"], "included")
        _strs(doc["left_out"], "left_out")
        _strs(doc["shortened"], "shortened")
        _str(doc["strategy"], "strategy")

    _checked(shape, doc, where)


def check_shard(doc: Any, name: str, where: str) -> None:
    """The shard's envelope: format, name, and every command in it hashing to it.

    Each skill entry is checked by check_shard_skill before it is first served: load() of one skill
    checks that entry, not the hundreds beside it (at 100,000 skills a shard holds ~400).
    """

    def shape(doc: Any) -> None:
        _dict(doc, "", ("format", "shard", "skills"))
        if not _version(doc["format"]) or doc["shard"] != name:
            _fail("shard", f"not shard {name!r} of format {VERSION}")
        skills = doc["skills"]
        if not isinstance(skills, dict):
            _fail("skills", "not an object")
        for command in skills:
            if shard_of(command, len(name)) != name:
                _fail(f"skills.{command}", f"belongs to shard {shard_of(command, len(name))!r}")

    _checked(shape, doc, where)


def check_shard_skill(entry: Any, command: str, personas: Any, where: str) -> None:
    _checked(lambda e: _skill(e, f"skills.{command}", personas), entry, where)


_SKILL_KEYS = (
    "name",
    "description",
    "source",
    "path",
    "frontmatter",
    "body",
    "resources",
    "parent",
    "children",
    "default",
    "exceptions",
)
_STR_LISTS = ("allowed-tools", "knowledge", "requires_bins", "requires_env")


def _skill(entry: Any, path: str, personas: Any) -> None:
    s = _dict(entry, path, _SKILL_KEYS)
    for key in ("name", "description", "source", "path"):
        _str(s[key], f"{path}.{key}")
    _frontmatter(s["frontmatter"], f"{path}.frontmatter")
    _sha(s["body"], f"{path}.body")
    if not isinstance(s["resources"], list):
        _fail(f"{path}.resources", "not a list")
    for i, r in enumerate(s["resources"]):
        e = _dict(r, f"{path}.resources.{i}", ("path", "sha256", "size", "executable"))
        _relpath(e["path"], f"{path}.resources.{i}.path")
        _sha(e["sha256"], f"{path}.resources.{i}.sha256")
        _int(e["size"], f"{path}.resources.{i}.size")
        _bool(e["executable"], f"{path}.resources.{i}.executable")
    _opt_str(s["parent"], f"{path}.parent")
    _strs(s["children"], f"{path}.children")
    if s["default"] is not None:
        _resolution(s["default"], f"{path}.default")
    if not isinstance(s["exceptions"], dict):
        _fail(f"{path}.exceptions", "not an object")
    for pid, r in s["exceptions"].items():
        if pid not in personas:
            _fail(f"{path}.exceptions.{pid}", "names no persona of the index")
        if r is not None:
            _resolution(r, f"{path}.exceptions.{pid}")


def _frontmatter(fm: Any, path: str) -> None:
    if not isinstance(fm, dict):
        _fail(path, "not an object")
    for key in _STR_LISTS:
        if key in fm:
            _strs(fm[key], f"{path}.{key}")
    for key in ("name", "context", "argument-hint", "agent", "model"):
        if key in fm and not isinstance(fm[key], str):
            _fail(f"{path}.{key}", "not a string")


def _resolution(r: Any, path: str) -> None:
    e = _dict(r, path, ("access", "via", "body", "overlay", "model", "user"))
    if e["access"] not in _ACCESS:
        _fail(f"{path}.access", f"not one of {', '.join(_ACCESS)}")
    _opt_str(e["via"], f"{path}.via")
    _sha(e["body"], f"{path}.body")
    _opt_str(e["overlay"], f"{path}.overlay")
    _bool(e["model"], f"{path}.model")
    _bool(e["user"], f"{path}.user")


def integrity(data: bytes, digest: str, where: str) -> bytes:
    if sha256_hex(data) != digest:
        raise IntegrityError(f"{where}: content does not match its sha256 {digest} (tampered or corrupt)")
    return data
