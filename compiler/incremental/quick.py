"""The no-op path before the config is parsed: a build proven current from raw bytes and stat data.

When nothing changed, `skillc build` must not pay for YAML, JSON Schema or Jinja2. So this path
never imports them: it reads the recorded build (`head.json`), and checks, in order of cost,

1. the compiler (`fingerprint`, from stat data), the config path and the options;
2. every file the config side reads or looks for (the config, `pyproject.toml` beside it, the
   template and what it includes, the ignore files above the walked roots, the `.git` that marks
   the repository top), each by its raw bytes or its absence (project/config.py `side_files` names them);
3. the inputs: every folder and file discover's walk saw, by its stat data (walk.py), without
   listing a folder; when one differs, an edit build may take it from there (edit.py);
4. the output by its directories, index, marker and persona files (`same_output`): objects are
   named by their hashes, so an object added or removed changes its folder's stat data.

A miss hands what it found on to the edit build and the Session (`Early`).
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

from .. import fs
from ..dataclass import dataclass, replace
from ..digests import digest
from ..format.layout import is_object
from ..options import Options
from . import lstats
from .outcome import Hit, hit
from .records import Quick, Record, Records, debris
from .report import Report
from .store import DIRNAME, load_key
from .walk import Changes, Walk

# 13: walk.json is what discover's walk saw (walk.py); no journals, each file written whole; no
# catalog memo (git log tells the earlier formats)
FORMAT = 13
WATCH_CAP = 64 << 20  # larger than any file the config side reads (their own caps are 1 MiB)
_LIBRARIES = ("yaml", "_yaml", "jsonschema", "jsonschema_specifications", "jinja2", "markupsafe")


def fingerprint() -> str:
    """The compiler's own files, Python and the parsing libraries, by stat data (nothing imported):
    an edit to skillc or an upgrade of PyYAML, jsonschema or Jinja2 makes every cached result a miss."""
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


def quick_head(fingerprint: str, config_path: Path, options: Options, watched: Iterable[str]) -> str:
    """The fingerprint, the config path, the options, what the config's `~` expands to (a source
    `~/skills` is another folder under another HOME: issue 40) and each watched file's state, as
    one digest."""
    flags = repr((options.strict, options.skip_invalid, options.verbose, options.ignore))
    states = (part for path in watched for part in (path, _state(path)))
    home = os.path.expanduser("~")
    return digest("quick", fingerprint, str(config_path.resolve()), flags, home, *states)


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
    no object (an incomplete Quick: the caller adds the head, the watch list and the output)."""
    dirs = {""} | {rel.rsplit("/", 1)[0] for rel in present if "/" in rel}
    dirs |= {d.rsplit("/", i)[0] for d in list(dirs) for i in range(1, d.count("/") + 1)}
    signature = {d: _dir_stat(_under(dist, d)) for d in sorted(dirs)}
    ours = set(files)
    return Quick(
        "",
        [],
        "",
        {d: s for d, s in signature.items() if s is not None},
        {rel: st for rel, st in present.items() if not is_object(rel)},
        any(rel not in ours for rel in present),
    )


def signature_after(
    dist: Path, quick: Quick, written: Iterable[str], present: Callable[[str], list[int] | None]
) -> Quick:
    """`quick` after an edit build wrote `written` in place, as `same_output` found it just before:
    the folders written into (and those above) stat'ed again, the others as recorded (nothing this
    build did moved them), and the files that are no object as they are now (`present`)."""
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
    """What the quick path found: the replayed build (`hit`); else the recorded walk and what moved
    since it (`changes`, None when it cannot tell), and whether the config side is as recorded
    (`head`: an edit build may then start from the carry's config)."""

    records: Records
    hit: tuple[Record, Report] | None = None
    walk: Walk | None = None
    changes: Changes | None = None
    head: bool = False
    ahead: object = None  # what `quick_replay`'s `meanwhile` gave, for the edit build

    @property
    def edits(self) -> bool:
        """Inputs moved while the config side stands: an edit build's start."""
        return self.head and self.changes is not None and not self.changes.none


_started: list[Records] = []  # `start`'s records, for the quick path of the same cache


def start(config_path: Path) -> None:
    """Read the recorded walk and begin its lstats in a forked child (lstats.begin) before the
    command line and the stages are imported: `quick_replay` takes them for the same cache and the
    same paths below the same folder. `config_path` is the command line's config as far as it can be
    told without parsing it."""
    discard()
    records = records_for(config_path)
    walk = None if records is None else records.walk()
    if records is not None and walk is not None:
        _started.append(records)
        lstats.begin(walk.paths, walk.base)


def discard() -> None:
    """Forget what `start` read and end what it began."""
    _started.clear()
    lstats.discard()


def records_for(config_path: Path, *, new: bool = False) -> Records | None:
    """The cache's records for the config, or None when the cache is off: no key can be kept, or
    something planted at `.skillc-cache` (a symlink out of the project, a FIFO), never read or
    written through. `new`: no folder there yet is a cache this build may make."""
    directory = config_path.resolve().parent / DIRNAME
    try:
        if not stat.S_ISDIR(os.lstat(directory).st_mode):
            return None
    except FileNotFoundError:
        if not new:
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
    config_path: Path, options: Options, *, prune: bool, meanwhile: Callable[[Records], object] | None = None
) -> Early | None:
    """The recorded build when nothing it depends on changed, checked without parsing the config;
    None when the cache is off. `meanwhile`: what an edit build would do first (its imports, the
    carry), done while a forked child takes the lstats, which this process would otherwise wait for
    (a large tree: lstats.begin); what it gives is the Early's `ahead`."""
    records = records_for(config_path)
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
    meanwhile: Callable[[Records], object] | None,
) -> Early:
    record = records.record()
    quick = record.quick if record is not None else None
    if record is None or quick is None:
        return Early(records)
    walk = records.walk()
    head = quick_head(records.fingerprint, config_path, options, quick.watched) == quick.head
    ahead = meanwhile(records) if meanwhile is not None and head and lstats.running() else None
    changes = walk.check() if walk is not None else None
    early = Early(records, None, walk, changes, head, ahead)
    if not head or changes is None or not changes.none:
        return early
    dist = config_path.resolve().parent / quick.output
    if (
        str(dist.resolve()) != record.dist
        or (prune and quick.extra)
        or debris(dist)
        or not same_output(dist, quick)
    ):
        return early
    report = records.report(record)
    return early if report is None else replace(early, hit=(record, report))


def quick_hit(early: Early | None) -> Hit | None:
    """The quick path's replayed build, if it had one."""
    return None if early is None or early.hit is None else hit(early.hit)
