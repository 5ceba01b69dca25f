"""One persona's skills in one build, as the Skills Extension serves them. Pure over a `reader.Dist`.

The skills are those `skills(persona)` returns for the build as made (stubs, skills the budget
left out of the catalog, and skills whose requirements this machine lacks, included: a served
skill's files are its export's), less those neither the model nor the user may invoke (nothing a host could
do with them). Each is served at its command's path (uris.py) under a name the spec's rule takes:
its folder, else a passing form of it; a skill with no passing form, or whose path another skill
already has, is left out. Every such choice is said in `notes`, never silently.

A skill's entry is made on first use and kept (a bounded number of them): its SKILL.md (the
export's harness-neutral frontmatter, targets/export.py, and the persona-resolved body), its own
resources with the build's digests and sizes, and, as the spec asks of an enclosing skill, the
files of the nested skills this persona is served.
"""

from __future__ import annotations

import hashlib
import mimetypes
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

from .. import reader
from ..dataclass import dataclass
from ..reader import EVERYWHERE as AS_BUILT  # the persona's export, whatever this machine has
from ..targets import export
from . import uris

# Entries kept per view: enough for every skill of most builds; past it, the least recently used
# is made again when asked (a few reads), so memory stays flat in builds of any size.
ENTRIES_KEPT = 2048
MARKDOWN = "text/markdown"
# The Skills Extension's per-skill limits ("Limits"): what every host must accept.
MAX_FILES = 512
MAX_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class File:
    """One served file: its URI, the digest (hex) and size of its bytes, and where they come from:
    the SKILL.md of `command` (`path` None) or its resource `path`."""

    uri: str
    digest: str
    size: int
    command: str
    path: str | None

    @property
    def mime_type(self) -> str:
        if self.path is None or self.path.endswith(".md"):
            return MARKDOWN
        return mimetypes.guess_type(self.path, strict=False)[0] or "application/octet-stream"


@dataclass(frozen=True)
class Entry:
    """One served skill: the spec's `Skill` entry and what resources/read needs to serve it."""

    command: str
    skill_path: str  # encoded, without the scheme
    frontmatter: dict[str, Any]
    skill_md: bytes
    own: dict[str, File]  # its SKILL.md and resources, by URI
    files: tuple[File, ...]  # own files, then those of its served nested skills: the spec's `resources`

    @property
    def uri(self) -> str:
        return uris.skill_uri(self.skill_path)

    def json(self) -> dict[str, Any]:
        resources = [{"uri": f.uri, "digest": f"sha256:{f.digest}", "size": f.size} for f in self.files]
        return {"uri": self.uri, "frontmatter": self.frontmatter, "resources": resources}


@dataclass(frozen=True)
class Served:
    """A skill in the table: its command, skill path and served name, and the reader's info."""

    command: str
    skill_path: str
    name: str
    info: reader.SkillInfo


class View:
    """The persona's skills of one opened build. Its table is made on first use (every shard of
    the build is read once: 0.45 s of CPU at 10,000 skills, so a server answers `initialize` before
    paying for it), and its notes are said then (`say`); entries as they are asked for."""

    def __init__(self, dist: reader.Dist, persona: str, say: Callable[[str], None] | None = None):
        self.dist = dist
        self.persona = persona
        self._say = say
        self._table: dict[str, Served] | None = None  # by skill path, in command order
        self._by_command: dict[str, Served] = {}
        self._children: dict[str, list[str]] = {}  # command -> served nested commands
        self._notes: list[str] = []
        self._entries: OrderedDict[str, Entry] = OrderedDict()

    @property
    def build_hash(self) -> str:
        return self.dist.build_hash

    # -- the table -----------------------------------------------------------

    def table(self) -> dict[str, Served]:
        if self._table is None:
            self._table = self._make_table()
            say = self._say
            if say is not None:
                for note in self._notes:
                    say(note)
        return self._table

    def notes(self) -> list[str]:
        """What the table left out or renamed, one sentence each."""
        self.table()
        return self._notes

    def skills(self) -> list[Served]:
        return list(self.table().values())

    def served(self, command: str) -> Served | None:
        self.table()
        return self._by_command.get(command)

    def _make_table(self) -> dict[str, Served]:
        commands = set(self.dist.all_commands())
        table: dict[str, Served] = {}
        for info in self.dist.skills(self.persona, env=AS_BUILT):
            if not (info.model or info.user):
                self._notes.append(
                    f"{info.command!r} is not served: neither the model nor the user may invoke it"
                )
                continue
            served = self._place(info, commands)
            if served is None:
                continue
            if served.skill_path in table:
                other = table[served.skill_path].command
                self._notes.append(
                    f"{info.command!r} is not served: its URI would be {other!r}'s, {uris.skill_uri(served.skill_path)}"
                )
                continue
            table[served.skill_path] = served
            self._by_command[info.command] = served
            folder = info.command.rsplit("/", 1)[-1]
            if served.name != info.name or served.name != folder:
                self._notes.append(
                    f"{info.command!r} is served as {served.name!r}: the URI's last segment is the served "
                    f"name, and the Agent Skills rule must take it (its folder is {folder!r}, its name {info.name!r})"
                )
        for served in table.values():
            parent = _parent(served.command, commands)
            if parent is not None and parent in self._by_command:
                self._children.setdefault(parent, []).append(served.command)
        return table

    def _place(self, info: reader.SkillInfo, commands: set[str]) -> Served | None:
        """Where the skill is served: its enclosing skill's path (a renamed one's too) and its name."""
        segments = info.command.split("/")
        name = uris.served_name(segments[-1])
        if name is None:
            self._notes.append(
                f"{info.command!r} is not served: its folder {segments[-1]!r} gives no name the Agent "
                "Skills rule takes (lowercase letters, digits and single hyphens, at most 64)"
            )
            return None
        parent = _parent(info.command, commands)
        above = self._by_command.get(parent) if parent is not None else None
        if above is not None:
            prefix = above.skill_path
        else:
            prefix = uris.encode("/".join(segments[:-1])) if len(segments) > 1 else ""
        path = f"{prefix}/{uris.encode(name)}" if prefix else uris.encode(name)
        return Served(info.command, path, name, info)

    # -- entries -------------------------------------------------------------

    def entry(self, command: str) -> Entry | None:
        """The entry of a served command (None when this persona is not served it)."""
        entry = self._entries.get(command)
        if entry is not None:
            self._entries.move_to_end(command)
            return entry
        served = self.served(command)
        if served is None:
            return None
        entry = self._make_entry(served)
        self._entries[command] = entry
        if len(self._entries) > ENTRIES_KEPT:
            self._entries.popitem(last=False)
        return entry

    def _make_entry(self, served: Served) -> Entry:
        fields = export.frontmatter(self.dist, export.NEUTRAL, served.info, name=served.name)
        data = export.skill_md_of(self.dist, self.persona, served.info, fields)
        own = [
            File(
                uris.skill_uri(served.skill_path),
                hashlib.sha256(data).hexdigest(),
                len(data),
                served.command,
                None,
            )
        ]
        meta = {r.path: r for r in self.dist.skill_meta(served.command).resources}
        for path in self.dist.resources(self.persona, served.command):
            r = meta[path]
            own.append(File(uris.file_uri(served.skill_path, path), r.sha256, r.size, served.command, path))
        nested = [f for child in self._children.get(served.command, ()) for f in self._files_of(child)]
        files = (*own, *nested)
        self._check_limits(served.command, files)
        return Entry(served.command, served.skill_path, fields, data, {f.uri: f for f in own}, files)

    def _check_limits(self, command: str, files: tuple[File, ...]) -> None:
        """The spec's per-skill limits, which a server SHOULD NOT exceed and every host must accept:
        such a skill is still served (a host may decline it), and said."""
        total = sum(f.size for f in files)
        if (len(files) > MAX_FILES or total > MAX_BYTES) and self._say is not None:
            self._say(
                f"{command!r} has {len(files)} files, {total:,} bytes with its nested skills': over the "
                f"Skills Extension's {MAX_FILES} files or {MAX_BYTES:,} bytes a host must accept, so a host may decline it"
            )

    def _files_of(self, command: str) -> tuple[File, ...]:
        entry = self.entry(command)
        return () if entry is None else entry.files

    # -- addressing ----------------------------------------------------------

    def skill_at(self, uri: str) -> Entry | None:
        """The entry whose SKILL.md is `uri`."""
        parts = uris.split(uri)
        if parts is None or len(parts) < 2 or parts[-1] != uris.SKILL_MD:
            return None
        served = self.table().get("/".join(parts[:-1]))
        return None if served is None else self.entry(served.command)

    def owner(self, parts: list[str]) -> Entry | None:
        """The entry of the deepest served skill whose path begins `parts`, the whole of it included."""
        table = self.table()
        for end in range(len(parts), 0, -1):
            served = table.get("/".join(parts[:end]))
            if served is not None:
                return self.entry(served.command)
        return None

    def file_at(self, uri: str) -> File | None:
        """The served file at `uri`: a SKILL.md or resource of the skill that owns that path."""
        parts = uris.split(uri)
        entry = None if parts is None or len(parts) < 2 else self.owner(parts[:-1])
        return None if entry is None else entry.own.get(uri)

    def read(self, file: File) -> bytes:
        """A served file's bytes (a resource hash-checked by the reader)."""
        if file.path is None:
            entry = self.entry(file.command)
            assert entry is not None
            return entry.skill_md
        return self.dist.resource(self.persona, file.command, file.path)

    def directory(self, uri: str) -> list[tuple[str, str, bool]] | None:
        """The direct children of a directory resource, as (uri, name, is a directory), sorted by
        URI; None when `uri` is not a directory of this namespace."""
        parts = uris.split(uri)
        if parts is None:
            return None
        entry = self.owner(parts)
        prefix = f"{uris.SCHEME}{'/'.join(parts)}/"
        if entry is not None:
            below: Iterator[str] = (f.uri for f in entry.files)
        else:  # a folder above skills: `tools` of `tools/lint`
            below = (uris.skill_uri(path) for path in self.table())
        children: dict[str, bool] = {}
        for found in below:
            if found.startswith(prefix):
                head, slash, _ = found[len(prefix) :].partition("/")
                children[prefix + head] = children.get(prefix + head, False) or bool(slash)
        if not children:
            return None
        return [(u, _unquoted(u.rsplit("/", 1)[1]), d) for u, d in sorted(children.items())]


def _parent(command: str, commands: set[str]) -> str | None:
    """The enclosing skill: the longest proper prefix of the command that is a command."""
    segments = command.split("/")
    for end in range(len(segments) - 1, 0, -1):
        prefix = "/".join(segments[:end])
        if prefix in commands:
            return prefix
    return None


def _unquoted(segment: str) -> str:
    from urllib.parse import unquote

    return unquote(segment)
