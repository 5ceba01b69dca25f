"""The no-op path before the config is parsed: a build proven current from raw bytes and stat data.

When nothing changed, `skillc build` must not pay for YAML, JSON Schema or Jinja2. So this path
never imports them: it reads the recorded build (`head.json`), and checks, in order of cost,

1. the compiler (`fingerprint`, from stat data), the config path and the options;
2. every file the config side reads or looks for (the config, `pyproject.toml` beside it, the
   template and what it includes, the ignore files above the walked roots, the `.git` that marks
   the repository top), each by its raw bytes or its absence (`watch_list` names them);
3. the inputs: every directory and file of the recorded stat walk by its stat data (manifest.py),
   without listing a directory; when one differs, a walk (snapshot.py, listing again only the
   directories that changed) and its digest, against the one recorded;
4. the output by its directories, index, marker and persona files (`same_output`): objects are
   named by their hashes, so an object added or removed changes its folder's stat data.

A miss hands the walk on to the Session, so the build does not walk its inputs twice.
The limits: an object edited in place keeps its folder's stat data and is not noticed here (the
content path, `--no-cache` and `skillc check` notice it); the rest is session.py's stat-data limit.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import stat
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from .. import fs
from ..dataclass import dataclass, replace
from ..digests import digest
from ..format.layout import is_object
from ..options import Options
from . import lstats
from .manifest import Changes, Manifest, encode
from .outcome import Hit, hit
from .records import Quick, Record, Records, debris
from .report import Report
from .snapshot import Snapshot, Tops, take_snapshot
from .store import DIRNAME, load_key

if TYPE_CHECKING:
    from ..model import Config

# 6: per-skill memo buckets, the record by parts (head.json, outputs.json), the quick no-op path
# 7: the walk's manifest (walk.json), the walk's digest over sorted keys
# 8: each file's stat data in walk.json; what an edit build starts from (carry.json)
# 9: outputs.json packed (names, and their stat data as int64)
# 10: packed integers as raw sections of the signed files, not base64 (store.py); carry-catalog.json's
#     rows as columns (catalogrows.py)
# 11: long lists of strings (walk.json's paths, outputs.json's names, the catalog's commands) and the
#     carry's input lines as raw sections (packed.py)
# 12: outputs.json named by an id of its own, which outputs-edits.json names (records.Outputs)
FORMAT = 12
WATCH_CAP = 64 << 20  # larger than any file the config side reads (their own caps are 1 MiB)
_LIBRARIES = ("yaml", "_yaml", "jsonschema", "jsonschema_specifications", "jinja2", "markupsafe")


def fingerprint() -> str:
    """The compiler's own files, Python, and the parsing libraries, by stat data.

    Any edit to skillc itself (it moves the file's ctime), or an upgrade of PyYAML, jsonschema or
    Jinja2 (their package folders change), makes every cached result a miss. Nothing is imported.
    """
    h = hashlib.sha256(f"{FORMAT}\0{sys.version}\0".encode())
    here = Path(__file__).resolve().parent.parent
    _stat_tree(h, str(here), "skillc")
    for name in _LIBRARIES:
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec is not None and spec.origin else ""
        folder = os.path.dirname(origin) if spec is not None and spec.submodule_search_locations else ""
        h.update(f"{name}\0{origin}\0".encode())
        if folder:  # a package: its own folder (libyaml's extension module is in it)
            _stat_tree(h, folder, name, depth=0)
        elif origin:
            _stat_one(h, origin, name)
    return h.hexdigest()


def _stat_tree(h: hashlib._Hash, top: str, label: str, depth: int = 8) -> None:
    with os.scandir(top) as it:
        entries = sorted(it, key=lambda e: e.name)
    for entry in entries:
        if entry.name == "__pycache__":
            continue
        if entry.is_dir(follow_symlinks=False):
            if depth:
                _stat_tree(h, entry.path, f"{label}/{entry.name}", depth - 1)
        else:
            _stat_one(h, entry.path, f"{label}/{entry.name}")


def _stat_one(h: hashlib._Hash, path: str, label: str) -> None:
    try:
        st = os.stat(path)
    except OSError:
        h.update(f"{label}\0-\n".encode())
        return
    h.update(f"{label}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\0{st.st_ino}\n".encode())


def watch_list(config: Config, template_source: bytes) -> list[str]:
    """Every file the config side reads or looks for, as project/config.py and stages/template.py do."""
    from ..project import ignorefiles  # at record time only: the quick path reads the list
    from ..project.config import DEFAULT_TEMPLATE
    from ..project.pyproject import NAME as PYPROJECT

    root = config.root
    paths = [root / config.config_rel, root / PYPROJECT, root / DEFAULT_TEMPLATE, config.template]
    # The template and each template it includes, imports or extends ("name\0digest" lines).
    paths += [config.template.parent / line.split("\0")[0] for line in template_source.decode().splitlines()]
    here = root.resolve()
    for folder in (here, *here.parents):  # ignorefiles.repository_top looks for .git upwards
        paths.append(folder / ".git")
        if (folder / ".git").exists():
            break
    roots = tuple(config.source_dir(i) for i in range(len(config.sources)))
    roots += (root / config.personas,) if config.personas else ()
    roots += (root / config.knowledge,) if config.knowledge else ()
    for folder in ignorefiles.outer_folders(root, roots):
        paths += [folder / name for name in ignorefiles.IGNORE_FILES]
    return list(dict.fromkeys(str(p) for p in paths))


def quick_head(fingerprint: str, config_path: Path, options: Options, watched: Iterable[str]) -> str:
    """The fingerprint, the config path, the options and each watched file's state, as one digest."""
    flags = repr((options.strict, options.skip_invalid, options.verbose, options.ignore))
    states = (part for path in watched for part in (path, _state(path)))
    return digest("quick", fingerprint, str(config_path.resolve()), flags, *states)


def _state(path: str) -> str:
    try:
        return hashlib.sha256(fs.read_regular(path, WATCH_CAP)).hexdigest()
    except FileNotFoundError:
        return "absent"
    except fs.NotRegular:
        return "not a file"
    except OSError as exc:
        return f"unreadable {exc.errno}"


def output_signature(dist: Path, present: dict[str, list[int]], files: Iterable[str]) -> Quick:
    """The output as the quick path checks it: every directory's stat data, and every file that is
    no object (an incomplete Quick: the caller adds the head, the watch list and the tops)."""
    dirs = {""} | {rel.rsplit("/", 1)[0] for rel in present if "/" in rel}
    dirs |= {d.rsplit("/", i)[0] for d in list(dirs) for i in range(1, d.count("/") + 1)}
    signature = {d: _dir_stat(_under(dist, d)) for d in sorted(dirs)}
    ours = set(files)
    return Quick(
        "",
        [],
        [],
        "",
        {d: s for d, s in signature.items() if s is not None},
        {rel: st for rel, st in present.items() if not is_object(rel)},
        any(rel not in ours for rel in present),
    )


def signature_after(
    dist: Path, quick: Quick, written: Iterable[str], present: Callable[[str], list[int] | None]
) -> Quick:
    """`quick` for the output after a build wrote `written` into it in place (an edit build), as
    `same_output` found it just before: the folders the writes went into (and the folders above
    them) stat'ed again, the other folders as recorded, and the files that are no object as they
    are now (`present`: a file's stat data, or None for one not there). What `output_signature`
    gives after a scan of the whole output, without the scan. The other folders are not stat'ed
    again: nothing this build did moved theirs, and anything else that did is for the next build
    to see (the output's 257 folders took 2 ms at 10,000 skills)."""
    touched = {""}
    for rel in written:
        while "/" in rel:
            rel = rel.rsplit("/", 1)[0]
            touched.add(rel)
    now = {d: _dir_stat(_under(dist, d)) for d in touched}
    dirs = {d: s for d, s in quick.dirs.items() if d not in now}
    dirs.update((d, s) for d, s in now.items() if s is not None)
    plain = quick.files.keys() | {rel for rel in written if not is_object(rel)}
    return replace(
        quick,
        dirs={d: dirs[d] for d in sorted(dirs)},
        files={rel: st for rel in sorted(plain) if (st := present(rel)) is not None},
    )


def _under(dist: Path, rel: str) -> str:
    """dist/rel as text: the output's hundreds of folders are stat'ed on every build, and a Path
    made for each cost more than the lstat (2-3 ms at 10,000 skills)."""
    return f"{dist}/{rel}" if rel else str(dist)


def _dir_stat(path: str) -> list[int] | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_ctime_ns, st.st_ino] if stat.S_ISDIR(st.st_mode) else None


def same_output(dist: Path, quick: Quick) -> bool:
    for rel, want in quick.dirs.items():
        if _dir_stat(_under(dist, rel)) != want:
            return False
    return all(fs.stat_stands(dist / rel, want) for rel, want in quick.files.items())


@dataclass(frozen=True)
class Early:
    """What the quick path found: the replayed build (`hit`), else the walk it took, for the build."""

    records: Records
    tops: Tops | None = None
    snapshot: Snapshot | None = None
    hit: tuple[Record, Report] | None = None
    manifest: Manifest | None = None  # the recorded walk's, for a walk to reuse its listings
    # Files whose stat data moved while every directory lists what it listed: an edit build's start
    changes: Changes | None = None
    ahead: object = None  # what `quick_replay`'s `meanwhile` gave, for the edit build


# What the last build read to check and edit the recorded one (the recorded walk, an lstat result
# per input path, the carry), left to the process's end: freeing them object by object costs 10-20
# ms that a command about to leave (cli.run) need not pay, as a compiler driver leaves its memory to
# the system. One build's worth at most: the next build frees it (a watch's build leaves nothing).
_LEFT: list[object] = []


def left_to_exit(thing: object) -> None:
    """`thing` freed when the process ends, not when the build does (`_LEFT`)."""
    _LEFT.append(thing)


def leave_only(thing: object) -> None:
    """A new build: what the last one left is freed now, and `thing` (None: nothing) left instead."""
    _LEFT[:] = [] if thing is None else [thing]


_started: list[Records] = []  # `start`'s records, for the quick path of the same cache


def start(config_path: Path) -> None:
    """Read the recorded walk and start its lstats (lstats.begin) before the command line and the
    stages are imported, when they would be split with a forked child anyway: the child then has
    most of them done by the time `quick_replay` asks. `config_path` is the command line's config as
    far as it can be told without parsing it; `quick_replay` takes what this started only for the
    same cache, and the lstats only for the same paths below the same folder, and ends them otherwise."""
    discard()
    records = _records(config_path)
    manifest = records.walk() if records is not None else None
    if records is None or manifest is None:
        return
    _started.append(records)
    manifest.begin()


def discard() -> None:
    """Forget what `start` read and end what it started."""
    _started.clear()
    lstats.discard()


def _records(config_path: Path) -> Records | None:
    """The cache's records for the config, or None when the cache is off."""
    directory = config_path.resolve().parent / DIRNAME
    try:
        if not stat.S_ISDIR(os.lstat(directory).st_mode):
            return None
    except OSError:
        return None
    signing_key = load_key()
    if signing_key is None:
        return None
    for records in _started:  # what `start` read of this very cache: read once
        if records.directory == directory and records.signing_key == signing_key:
            return records
    return Records(directory, signing_key, fingerprint(), FORMAT)


def quick_replay(
    config_path: Path,
    options: Options,
    *,
    prune: bool,
    meanwhile: Callable[[Records, Manifest, Changes], object] | None = None,
) -> Early | None:
    """The recorded build when nothing it depends on changed, checked without parsing the config;
    None when the cache is off. `meanwhile`: what an edit build would read first, done while a
    forked child takes the lstats once a change is known (Manifest.changes, lstats.look), given the
    change found first as a guess at all of them: a no-op does not run it. What it gives is the
    Early's `ahead`."""
    records = _records(config_path)
    if not any(records is started for started in _started):
        lstats.discard()  # what `start` began for another cache
    _started.clear()
    try:
        return None if records is None else _replay(records, config_path, options, prune, meanwhile)
    finally:
        lstats.discard()  # what `start` began for lstats this build did not ask for


def _replay(
    records: Records,
    config_path: Path,
    options: Options,
    prune: bool,
    meanwhile: Callable[[Records, Manifest, Changes], object] | None,
) -> Early:
    record = records.record()
    quick = record.quick if record is not None else None
    if record is None or quick is None or record.inputs is None:
        return Early(records)
    if quick_head(records.fingerprint, config_path, options, quick.watched) != quick.head:
        return Early(records)
    tops = tuple((rel, where) for rel, where in quick.tops)
    manifest = records.walk()
    if manifest is not None and manifest.tops != tops:
        manifest = None
    now = None  # no walk: every directory and file has the recorded stat data
    got: list[object] = []  # what `meanwhile` gave, if a child's lstats gave it the time
    changes = None
    if manifest is not None:
        walked = manifest
        changes = manifest.changes(
            None if meanwhile is None else lambda guess: got.append(meanwhile(records, walked, guess))
        )
    if changes is not None and not changes.none:  # an edit build may take it from here
        return Early(records, tops, None, manifest=manifest, changes=changes, ahead=got[0] if got else None)
    if changes is None:
        known = (manifest.listings(), manifest.taken()) if manifest else (None, None)
        now = take_snapshot(tops, records.directory, *known)
        if now is None or now.digest != record.inputs:
            return Early(records, tops, now, manifest=manifest)
    dist = config_path.resolve().parent / quick.output
    if (
        str(dist.resolve()) != record.dist
        or (prune and quick.extra)
        or debris(dist)
        or not same_output(dist, quick)
    ):
        return Early(records, tops, now, manifest=manifest)
    report = records.report(record)
    if report is not None and now is not None:  # the same inputs, some directory touched: keep its stat
        records.keep_walk(encode(now, tops, record.inputs))
    return Early(records, tops, now, None if report is None else (record, report), manifest)


def quick_hit(early: Early | None) -> Hit | None:
    """The quick path's replayed build, if it had one."""
    return None if early is None or early.hit is None else hit(early.hit)
