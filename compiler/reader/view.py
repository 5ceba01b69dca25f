"""View: one build as read from its `_index.json`, and every call an application makes on it.

Standard library only. It never imports yaml, jinja2 or jsonschema and never looks at skill
sources: everything it returns was decided at build time and is read from `_index.json` and
hash-checked, validated object files. A View is made from one index and reads everything else by
digest, so it answers for that build alone; dist.py's `Dist` holds the views of its tiers, looks
at each index once a call, and moves to a new view when a newer build is there.
"""

from __future__ import annotations

import os

from ..format.documents import (
    check_index,
    check_persona_meta,
    check_places,
    check_plan,
    check_requires,
    check_shard,
    check_shard_skill,
    check_shard_table,
    check_split,
    integrity,
)
from ..format.errors import (
    ArgumentType,
    CannotSplit,
    DistRebuilt,
    FormatError,
    IntegrityError,
    NotInvocable,
    ReaderError,
    UnknownPersona,
    UnknownResource,
    UnknownSkill,
)
from ..format.files import read_regular
from ..format.jsonio import parse_json
from ..format.layout import INDEX, MAX_INDEX_BYTES, MAX_OBJECT_BYTES, object_path
from .available import Machine
from .records import (
    PersonaContext,
    PersonaMeta,
    Resolution,
    SkillInfo,
    SkillMeta,
    Unavailable,
    label_of,
    persona_meta_of,
    skill_info_of,
    skill_meta_of,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from pathlib import Path
    from typing import Any

    from ..format.shapes import (
        IndexDoc,
        PersonaEntry,
        PersonaMetaDoc,
        ResolutionDoc,
        ResourceDoc,
        ShardTableDoc,
        SkillDoc,
    )
    from .prompts import LoadedSkill, SubSkill


def _text_arg(value: object, what: str, *, optional: bool = False) -> None:
    """Every public call checks its string arguments here: a wrong type is ArgumentType (a
    TypeError and a ReaderError), never an AttributeError from deep inside a lookup."""
    if not isinstance(value, str) and not (optional and value is None):
        raise ArgumentType(
            f"{what} must be a str{' or None' if optional else ''}, not {type(value).__name__}"
        )


INVOKERS = ("model", "user")  # who may invoke a skill: the resolution's `model` and `user`


def may_invoke(persona: str, command: str, by: str, r: ResolutionDoc) -> None:
    """NotInvocable unless `by` may invoke the pair (`r`, its resolution), naming who may."""
    if not r[by]:  # type: ignore[literal-required]
        raise NotInvocable(persona, command, by, [who for who in INVOKERS if r[who]])  # type: ignore[literal-required]


def _invoker(by: object) -> str:
    """The `by` of load(), render() and materialize(), checked before anything is read."""
    _text_arg(by, "by")
    if by not in INVOKERS:
        raise ArgumentType(f"by must be 'model' or 'user', not {by!r}")
    return str(by)


class View:
    """One build: the index read from `path` (absolute), and the objects it names, read as asked."""

    def __init__(self, path: str, index: IndexDoc, root: str | None = None):
        self.path, self.index, self.root = path, index, root
        self._shards: dict[str, dict[str, SkillDoc]] = {}
        self._checked: set[str] = set()  # commands whose shard entry has been checked
        self._nodes: dict[str, ShardTableDoc] = {}  # shard-table nodes read so far, by object
        self._metas: dict[str, PersonaMetaDoc] = {}
        self._catalogs: dict[str, str] = {}  # persona -> its catalog, read and hash-checked once
        self._plans: dict[str, Any] = {}  # plan object -> the plan, checked
        self._needs: dict[str, Any] | None = None  # the requires object's skills, read once
        self._split: Any = None  # the split, read and checked once

    @property
    def build_hash(self) -> str:
        return str(self.index["build_hash"])

    def personas(self) -> list[str]:
        return sorted(self.index["personas"])

    # -- objects -------------------------------------------------------------

    def _object(self, digest: str, limit: int = MAX_OBJECT_BYTES) -> bytes:
        where = os.path.join(self.path, *object_path(digest).split("/"))
        try:
            data = read_regular(where, limit)
        except FileNotFoundError:
            self._raise_if_rebuilt(where)
            raise IntegrityError(f"{where}: missing (dist/ is incomplete; rebuild it)") from None
        except OSError as exc:
            raise IntegrityError(f"{where}: cannot read object: {exc.strerror or exc}") from None
        return integrity(data, digest, where)

    def _raise_if_rebuilt(self, where: str) -> None:
        try:
            now = read_index(self.path)["build_hash"]
        except FormatError:
            return
        if now != self.build_hash:
            raise DistRebuilt(
                f"{where}: {self.path} was rebuilt during the call (build {self.build_hash[:12]} -> "
                f"{now[:12]}) and this call's build's objects were pruned; the next call answers from the new build"
            )

    def _text(self, digest: str) -> str:
        data = self._object(digest)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise FormatError(f"object {digest}: not UTF-8 text: {exc}") from None

    def _json(self, digest: str) -> Any:
        return parse_json(self._object(digest, MAX_INDEX_BYTES), f"object {digest}")

    def _meta(self, persona: str) -> PersonaMetaDoc:
        _text_arg(persona, "persona")
        meta = self._metas.get(persona)
        if meta is None:
            digest = self._entry(persona)["meta"]
            meta = self._json(digest)
            check_persona_meta(meta, persona, f"object {digest}")
            self._metas[persona] = meta
        return meta

    def _entry(self, persona: str) -> PersonaEntry:
        _text_arg(persona, "persona")
        entry = self.index["personas"].get(persona)
        if entry is None:
            raise UnknownPersona(persona, self.personas())
        return entry

    def _node(self, digest: str, prefix: str) -> ShardTableDoc:
        """One node of the shard table (a tree: at most 256 names a node, so a load() at any size
        reads a few kilobytes of it), checked; open() and catalog() never read it."""
        node = self._nodes.get(digest)
        if node is None:
            node = self._json(digest)
            check_shard_table(node, prefix, f"object {digest}")
            self._nodes[digest] = node
        return node

    def _shard_of(self, command: str) -> tuple[str, str | None]:
        """(shard name, shard object) of a command, walking the table from its root."""
        from ..format.shardtree import locate_shard  # load() and skills() only

        return locate_shard(command, self.index["shards"], self._node, self.path)

    def _shard_names(self) -> dict[str, str]:
        """Every shard name and object in the table, walking the whole tree."""
        from ..format.shardtree import all_shards

        return all_shards(self.index["shards"], self._node, self.path)

    def _shard(self, name: str, digest: str | None) -> dict[str, SkillDoc]:
        """A shard's skills, its envelope checked; each entry is checked when first served (_skill)."""
        shard = self._shards.get(name)
        if shard is None:
            if digest is None:
                shard = {}
            else:
                doc = self._json(digest)
                check_shard(doc, name, f"object {digest}")
                shard = doc["skills"]
            self._shards[name] = shard
        return shard

    def _skill(self, command: str) -> SkillDoc | None:
        _text_arg(command, "command")
        name, digest = self._shard_of(command)
        entry = self._shard(name, digest).get(command)
        if entry is not None and command not in self._checked:
            check_shard_skill(entry, command, self.index["personas"], f"object {digest}")
            self._checked.add(command)
        return entry

    def _all_skills(self) -> dict[str, SkillDoc]:
        out: dict[str, SkillDoc] = {}
        for name, digest in sorted(self._shard_names().items()):
            for command in self._shard(name, digest):
                entry = self._skill(command)
                if entry is not None:
                    out[command] = entry
        return dict(sorted(out.items()))

    @staticmethod
    def _visible(skill: SkillDoc | None, persona: str) -> ResolutionDoc | None:
        if skill is None:
            return None
        exceptions = skill["exceptions"]
        return exceptions[persona] if persona in exceptions else skill["default"]

    def _resolved(self, persona: str, command: str) -> tuple[SkillDoc, ResolutionDoc]:
        """(skill entry, resolution) of a pair the persona sees; UnknownPersona/UnknownSkill otherwise."""
        self._entry(persona)
        skill = self._skill(command)
        r = self._visible(skill, persona)
        if skill is None or r is None:
            raise self._unknown(persona, command)
        return skill, r

    def _invocable(self, persona: str, command: str, by: str) -> tuple[SkillDoc, ResolutionDoc]:
        """(entry, resolution) of a pair `by` may invoke; NotInvocable names who may otherwise."""
        skill, r = self._resolved(persona, command)
        may_invoke(persona, command, by, r)
        return skill, r

    def _unknown(self, persona: str, command: str) -> UnknownSkill:
        """The UnknownSkill of a command the persona does not see (persona "*": of one that does
        not exist), with close commands found in a few reads (docs/format.md §12.1); the full
        list is read only if a program asks the error for it."""
        from ..format.nearby import MAX_SUGGESTIONS, normal, parent, ranked, words  # the unknown path

        candidates = {normal(command)}
        if persona != "*":
            candidates |= words(self.compiled(persona))
        above = parent(normal(command))
        entry = None if above is None else self._skill(above)
        candidates.update(entry["children"] if entry is not None else ())
        suggestions: list[str] = []
        for near in ranked(command, candidates):
            entry = self._skill(near)
            if entry is not None and (persona == "*" or self._visible(entry, persona) is not None):
                suggestions.append(near)
                if len(suggestions) == MAX_SUGGESTIONS:
                    break
        return UnknownSkill(persona, command, lambda: self._visible_commands(persona), suggestions)

    def _visible_commands(self, persona: str) -> list[str]:
        """Every command the persona sees (persona "*": every command), in command order."""
        skills = self._all_skills().items()
        return [c for c, s in skills if persona == "*" or self._visible(s, persona) is not None]

    # -- tier 1 --------------------------------------------------------------

    def compiled(self, persona: str) -> str:
        """The persona's catalog as the build rendered it."""
        _text_arg(persona, "persona")
        text = self._catalogs.get(persona)
        if text is None:  # an object never changes under its name: once checked, kept
            text = self._catalogs[persona] = self._text(self._entry(persona)["prompt"])
        return text

    def catalog(
        self,
        persona: str,
        env: object = None,
        which: Callable[[str], str | None] | None = None,
        root: str | None = None,
    ) -> str:
        """The persona's catalog for `env`: the compiled one, without the entries of the skills
        whose requirements it lacks, its relative locations under the root when the build has
        one (docs/format.md §17)."""
        machine = Machine(env, which)
        _text_arg(root, "root", optional=True)
        root = self.root if root is None else root
        text = self.compiled(persona)
        requires = {} if machine.everything else self._requires()
        if not requires and root is None:
            return text
        plan = self._plan(persona, text)
        listed = (
            [e["command"] for e in plan["entries"]] if plan is not None else self._meta(persona)["included"]
        )
        drop = {
            c for c in listed if c in requires and machine.missing(requires[c]["bins"], requires[c]["env"])
        }
        if not drop and root is None:
            return text
        if plan is None:
            why = (
                f"the entries of {', '.join(sorted(drop))}, which this environment lacks requirements for, "
                "cannot be left out of its catalog"
                if drop
                else f"its locations cannot be given the root {root!r}"
            )
            raise CannotSplit(
                f"persona {persona!r}: this build's catalog template does not split (SKC603), so {why}"
            )
        from ..format.split import planned

        return planned(text, plan["entries"], drop, root, plan["markup"])

    def _requires(self) -> dict[str, Any]:
        """The skills' requirements, by command (the index's requires object; {} when none)."""
        if self._needs is None:
            digest = self.index["requires"]
            found: dict[str, Any] = {}
            if digest is not None:
                doc = self._json(digest)
                check_requires(doc, f"object {digest}")
                found = doc["requires"]
            self._needs = found
        return self._needs

    def split(self) -> Any:
        """The catalog template's split (§4.5), checked; None when the build has none."""
        digest = self.index["split"]
        if digest is None:
            return None
        if self._split is None:
            doc = self._json(digest)
            check_split(doc, self.index["personas"], f"object {digest}")
            self._split = doc
        return self._split

    def _plan(self, persona: str, text: str) -> Any:
        """The persona's plan of its catalog `text`, checked against it; None when the build has none."""
        digest = self._entry(persona)["plan"]
        if digest is None:
            return None
        plan = self._plans.get(digest)
        if plan is None:
            plan = self._json(digest)
            check_plan(plan, persona, f"object {digest}")
            check_places(plan, len(text), f"object {digest}")
            self._plans[digest] = plan
        return plan

    def unavailable(
        self, persona: str, env: object = None, which: Callable[[str], str | None] | None = None
    ) -> list[Unavailable]:
        """The skills the persona sees whose requirements `env` lacks, with what it lacks, in
        command order (a stub needs nothing)."""
        machine = Machine(env, which)
        self._entry(persona)
        if machine.everything:
            return []
        out = []
        for command, needs in sorted(self._requires().items()):
            r = self._visible(self._skill(command), persona)
            if r is None or r["access"] == "stub":
                continue
            missing = machine.missing(needs["bins"], needs["env"])
            if missing:
                out.append(Unavailable(command, tuple(missing)))
        return out

    def skills(
        self, persona: str, env: object = None, which: Callable[[str], str | None] | None = None
    ) -> list[SkillInfo]:
        """Every skill the persona sees, in command order, but those `env` lacks requirements for."""
        machine = Machine(env, which)
        found = self._skills(persona)
        if machine.everything:
            return found
        requires = self._requires()
        return [
            s
            for s in found
            if s.access == "stub"
            or s.command not in requires
            or not machine.missing(requires[s.command]["bins"], requires[s.command]["env"])
        ]

    def _skills(self, persona: str) -> list[SkillInfo]:
        included = set(self._meta(persona)["included"])
        out = []
        for command, skill in self._all_skills().items():
            r = self._visible(skill, persona)
            if r is not None:
                out.append(skill_info_of(command, skill, r, command in included))
        return out

    def commands(
        self, persona: str, env: object = None, which: Callable[[str], str | None] | None = None
    ) -> list[str]:
        """Slash commands the user may type for this persona (of the skills `env` may run)."""
        return [s.command for s in self.skills(persona, env, which) if s.user]

    # -- tier 2 --------------------------------------------------------------

    def load(
        self,
        persona: str,
        command: str,
        args: str | Sequence[str] | None = None,
        *,
        params: Mapping[str, str] | None = None,
        by: str = "model",
        base: str | None = None,
    ) -> LoadedSkill:
        """The skill as the persona sees it, `args` substituted; `params` gives values for
        `${CLAUDE_SESSION_ID}`, `${CLAUDE_EFFORT}` and `${CLAUDE_PROJECT_DIR}` (else they stay).
        `by` is who invokes it, "model" (a tool call) or "user" (a slash command): NotInvocable
        when the build says that invoker may not. `base`: the skill's folder (default: under the
        build's root, when it has one), given as Claude Code gives it."""
        from .prompts import loaded  # load() only: catalog() does without

        _text_arg(base, "base", optional=True)
        skill, r = self._invocable(persona, command, _invoker(by))
        body = self._text(r["body"])
        folder = base if base is not None else base_of(skill["path"], self.root)
        children = lambda: self._sub_skills(persona, skill)  # noqa: E731 (read after the body)
        return loaded(
            persona, command, skill, r, body, children, args, params, folder, self.index["knowledge"]
        )

    def _sub_skills(self, persona: str, skill: SkillDoc) -> tuple[SubSkill, ...]:
        from .prompts import SubSkill

        out = []
        for child in skill["children"]:
            c = self._skill(child)
            r = self._visible(c, persona)
            if c is not None and r is not None and r["model"]:
                out.append(SubSkill(child, c["name"], c["description"], label_of(c)))
        return tuple(out)

    # -- tier 3 --------------------------------------------------------------

    @staticmethod
    def _resources(skill: SkillDoc, r: ResolutionDoc) -> list[ResourceDoc]:
        # A stub exposes nothing of the exclusive skill but the stub itself.
        listed: list[ResourceDoc] = [] if r["access"] == "stub" else skill["resources"]
        return listed

    def resources(self, persona: str, command: str, kind: str | None = None) -> list[str]:
        """Resource paths of a skill; kind filters by top directory (scripts, references, assets)."""
        _text_arg(kind, "kind", optional=True)
        skill, r = self._resolved(persona, command)
        paths = [res["path"] for res in self._resources(skill, r)]
        return [p for p in paths if kind is None or p.startswith(kind.rstrip("/") + "/")]

    def resource(self, persona: str, command: str, path: str) -> bytes:
        """The bytes of one resource; only paths listed in the index are served."""
        _text_arg(path, "path")
        skill, r = self._resolved(persona, command)
        if r["access"] == "stub":
            raise UnknownResource(
                f"{path!r}: {command!r} is exclusive to another persona; only its stub is served"
            )
        for res in self._resources(skill, r):
            if res["path"] == path:
                return self._object(res["sha256"], res["size"])
        raise UnknownResource(f"{path!r} is not a resource of {command!r}")

    def missing_requirements(
        self,
        persona: str,
        command: str,
        env: Mapping[str, str] | None = None,
        which: Callable[[str], str | None] | None = None,
    ) -> list[str]:
        """sven's availability guards, checked on this machine: ['bin:docker', 'env:TOKEN'].

        A variable is missing when unset or empty in `env` (default: the process environment);
        a program when no directory of env's PATH holds it (`which` replaces that search). A
        stub persona gets [] (the stub needs nothing).
        """
        machine = Machine(env, which)
        skill, r = self._resolved(persona, command)
        if r["access"] == "stub":
            return []
        fm = skill["frontmatter"]
        return machine.missing(fm.get("requires_bins", []), fm.get("requires_env", []))

    def materialize(
        self,
        persona: str,
        command: str,
        dest: str | os.PathLike[str],
        args: str | Sequence[str] | None = None,
        *,
        params: Mapping[str, str] | None = None,
        by: str = "model",
    ) -> Path:
        """Write the resolved skill folder into dest, as a workspace mounts a skill into a task folder.

        SKILL.md holds the resolved body (arguments and params substituted, `${CLAUDE_SKILL_DIR}`
        = dest); every resource follows with its executable bit. dest must be missing, empty, or
        hold exactly what this call would write (then nothing is written); nothing is ever written
        outside it. Returns dest. `by` as for load().
        """
        skill, r = self._invocable(persona, command, _invoker(by))
        fm = skill["frontmatter"]
        root = os.path.abspath(os.fspath(dest))
        # A stub persona gets the stub's SKILL.md and nothing of the exclusive skill's files.
        files = [(_safe_rel(res["path"]), res) for res in self._resources(skill, r)]
        if any(rel == "SKILL.md" for rel, _ in files):
            raise FormatError(f"corrupt index: a resource of {command!r} is named SKILL.md")
        from .prompts import _names, substitute

        names = _names(fm.get("arguments"))
        body = substitute(self._text(r["body"]), args, names=names, skill_dir=root, params=params)
        try:  # before anything is written: a lone surrogate (from args or dest) has no UTF-8 form
            skill_md = (_skill_md_head(skill) + body).encode("utf-8")
        except UnicodeEncodeError:
            raise ReaderError(f"{command!r}: the resolved SKILL.md cannot be written as UTF-8") from None
        from pathlib import Path  # only here: a cold catalog() must not pay for pathlib

        try:
            if os.path.lexists(root) and (
                not os.path.isdir(root) or os.path.islink(root) or os.listdir(root)
            ):
                wanted: dict[str, tuple[Any, bool]] = {"SKILL.md": (skill_md, False)}
                wanted.update((rel, (res, res["executable"])) for rel, res in files)
                if _holds(root, wanted, lambda res: self._object(res["sha256"], res["size"])):
                    return Path(root)  # this very skill is there already (a second activation)
                raise ReaderError(f"{root}: destination exists and holds something else than this skill")
            os.makedirs(root, exist_ok=True)
            _write_new(root, "SKILL.md", skill_md, False)
            for rel, res in files:
                _write_new(root, rel, self._object(res["sha256"], res["size"]), res["executable"])
        except (OSError, ValueError) as exc:  # ValueError: a NUL in dest
            raise ReaderError(f"{root}: cannot write: {getattr(exc, 'strerror', None) or exc}") from None
        return Path(root)

    # -- metadata for tools --------------------------------------------------

    def all_commands(self) -> list[str]:
        return list(self._all_skills())

    def skill_meta(self, command: str) -> SkillMeta:
        s = self._skill(command)
        if s is None:
            raise self._unknown("*", command)
        return skill_meta_of(command, s, s["parent"], s["children"])

    def read_object(self, digest: str) -> bytes:
        """The bytes of one object of this build, hash-checked: for tools (diff, audit) that hold a
        digest from `skill_meta`, `resolution` or `ResourceMeta`."""
        _text_arg(digest, "digest")
        if not (len(digest) == 64 and all(c in "0123456789abcdef" for c in digest)):
            raise FormatError(f"{digest!r} is not a sha256 digest")
        return self._object(digest)

    def persona_meta(self, persona: str) -> PersonaMeta:
        m, entry = self._meta(persona), self._entry(persona)
        return persona_meta_of(
            persona, m, entry["chars"], m["included"], m["left_out"], m.get("shortened", ())
        )

    def persona_context(self, persona: str) -> PersonaContext:
        """ARIA's record (docs/format.md §18): from the persona meta and the build's personas folder."""
        meta = self._meta(persona)
        folder = self.index["config"]["personas"]

        def overlays(pid: str | None) -> str | None:
            return None if folder is None or pid is None else f"{folder}/{pid}/skill-overlays"

        fallback = meta["fallback"]
        return PersonaContext(persona, fallback, meta["unrestricted"], overlays(persona), overlays(fallback))

    def resolution(self, persona: str, command: str) -> Resolution:
        _, r = self._resolved(persona, command)
        in_catalog = command in self._meta(persona)["included"]
        return Resolution(r["access"], r["via"], r["overlay"], r["model"], r["user"], in_catalog, r["body"])


def read_index(root: str) -> IndexDoc:
    found = index_at(root)
    assert found is not None
    return found[0]


# What a handle compares to notice a new index without reading it (docs/format.md §6.4):
# device, inode, size, modification and change times (ns) of the file.
Identity = tuple[int, int, int, int, int]


def identity_of(st: os.stat_result) -> Identity:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def index_at(root: str, missing_ok: bool = False) -> tuple[IndexDoc, bytes, Identity] | None:
    """The index in `root`, checked (FormatError otherwise), its bytes and the identity of the file
    read. A missing one (ENOENT) is None with `missing_ok` (an optional tier that is absent)."""
    where = os.path.join(root, INDEX)
    seen: list[os.stat_result] = []
    try:
        data = read_regular(where, MAX_INDEX_BYTES, seen=seen)
    except FileNotFoundError:
        if missing_ok:
            return None
        raise FormatError(f"{root}: no {INDEX} (not a skillc dist directory)") from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        raise FormatError(f"{where}: cannot read index: {getattr(exc, 'strerror', None) or exc}") from None
    doc = parse_json(data, where)
    check_index(doc, where)
    return doc, data, identity_of(seen[0])


def base_of(path: str, root: str | None) -> str | None:
    """The folder of a skill's SKILL.md on this machine: under the root the host named for its
    build (§17.3); None without a root, or for a path under a home folder."""
    if root is None or path.startswith("~"):
        return None
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    if path.startswith("/"):
        return folder or "/"
    trimmed = root.rstrip("/")
    return f"{trimmed}/{folder}" if folder else trimmed or "/"


def _safe_rel(rel: Any) -> str:
    """A resource path from the index, refused unless it stays below the destination."""
    if not isinstance(rel, str) or not rel or rel.startswith("/") or "\\" in rel or "\x00" in rel:
        raise FormatError(f"corrupt index: resource path {rel!r}")
    parts = rel.split("/")
    if any(p in ("", ".", "..") for p in parts) or (
        len(rel) > 1 and rel[1] == ":" and rel[0].isascii() and rel[0].isalpha()
    ):
        raise FormatError(f"corrupt index: resource path {rel!r}")
    return rel


def _holds(root: str, wanted: dict[str, tuple[Any, bool]], read: Callable[[Any], bytes]) -> bool:
    """Whether the folder `root` holds exactly the files `wanted` (rel path -> (bytes, or what
    `read` reads them from; executable)) and the folders their paths need: no other file, folder,
    link or special file, each file's bytes and owner execute bit as wanted (docs/format.md §7)."""
    import stat  # here: a cold catalog() does not need it

    if not os.path.isdir(root) or os.path.islink(root):
        return False
    folders = {"/".join(rel.split("/")[:i]) for rel in wanted for i in range(1, rel.count("/") + 1)}
    found_files: list[str] = []
    todo = [""]
    while todo:
        rel_dir = todo.pop()
        for name in sorted(os.listdir(os.path.join(root, *rel_dir.split("/")) if rel_dir else root)):
            rel = f"{rel_dir}/{name}" if rel_dir else name
            mode = os.lstat(os.path.join(root, *rel.split("/"))).st_mode
            if stat.S_ISDIR(mode) and rel in folders:
                todo.append(rel)
            elif stat.S_ISREG(mode) and rel in wanted:
                found_files.append(rel)
            else:
                return False
    if set(found_files) != set(wanted):
        return False
    for rel, (data, executable) in wanted.items():
        expected = data if isinstance(data, bytes) else read(data)
        path = os.path.join(root, *rel.split("/"))
        seen: list[os.stat_result] = []
        try:
            held = read_regular(path, len(expected), follow=False, seen=seen)
        except OSError:
            return False
        if held != expected or bool(seen[0].st_mode & 0o100) != executable:
            return False
    return True


def _write_new(root: str, rel: str, data: str | bytes, executable: bool) -> None:
    """Create one file below root; every parent is a real directory created here (no symlink to follow)."""
    where = root
    for part in rel.split("/")[:-1]:
        where = os.path.join(where, part)
        if not os.path.isdir(where) or os.path.islink(where):
            os.mkdir(where)  # raises if something else is there
    path = os.path.join(root, *rel.split("/"))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o777 if executable else 0o666)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data.encode("utf-8") if isinstance(data, str) else data)
    if executable:  # the umask may have cleared x bits; restore the owner's at least
        os.chmod(path, os.stat(path).st_mode | 0o100)


def _skill_md_head(skill: SkillDoc) -> str:
    """name and description, so the written folder is a skill a harness can load."""
    import json  # materialize only: kept out of the cold start

    return f"---\nname: {json.dumps(skill['name'], ensure_ascii=False)}\ndescription: {json.dumps(skill['description'], ensure_ascii=False)}\n---\n\n"
