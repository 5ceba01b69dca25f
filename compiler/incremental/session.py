"""The cache's door (Session) and its guarantee: incremental builds from `<project>/.skillc-cache/`.

Four levels:

- The quick no-op (quick.py), before the config is parsed: the config side by its raw bytes, the
  inputs by the stat data of every folder and file of the last walk (manifest.py; when one
  differs, a walk and its digest), the output by its folders, index, marker and the files that
  are not objects. Nothing is parsed; YAML, JSON Schema and Jinja2 are not imported.
- The no-op path (`head.json`), after the config is parsed: when the walk's digest and the
  head key (config, template, flags, compiler, their diagnostics) are those of the last
  successful build, the inputs are taken to be unchanged without reading them, as git's index
  and make do, and the build is replayed as below.
- The build record, keyed by content. When the build hash (every input byte, the config, the
  template, the generator), the compiler's own fingerprint, the flags and the discovery
  diagnostics are those of the last successful build, and the output directory still holds
  exactly the files that build left there (same size, mtime, ctime, inode and type against
  `outputs.json`, checked with one directory walk), `build` skips every stage after discover and
  replays that build's diagnostics (`report.json`). A build with errors is never recorded, so
  never replayed.
- The memo (memo.py), each entry keyed by a digest of everything it was made from: the result of
  checking one SKILL.md (parse, schema, name rules) by its bytes, path, command and source, kept
  in 256 bucket files by path so that an edit rewrites one; the catalog entry cost of a skill by
  the template and the entry's fields; and each persona's catalog text and packing by the key the
  memo derives from its entries, persona, budget settings and template. A changed tree re-parses
  and re-renders only what those keys say changed; resolution runs whole (memoising it costs
  more than it saves, see memo.py), and the index, shards and persona metas are assembled again.
  Entries not used by a build are dropped, so the memo follows the tree.

The trade-off of the stat data: a content change that keeps a file's size, mtime_ns, ctime_ns and
inode is not noticed, and the old output is kept. An ordinary write cannot do that: it sets the
ctime to the current time, which utime() cannot set back. The stat data is taken after a file
system time stamp and before the read, and is recorded only when every input is older than the
stamp, so a write during a build, or in the same clock tick as the stat, is seen too. (A build
with no record takes it after the read, against a stamp taken before: latewalk.py says when that
vouches for what it read.) What
remains: a clock set back, a file system without a real ctime or with a coarser clock than the
one `.skillc-cache/` is on (a source on another mount), and tools that write the device under the
file system. `build --no-cache`, or touching the file (the next build then reads every input),
brings such a change in; `check` never uses the cache, so CI still sees the truth. Trees holding a
symlink to a directory always take the content path (discover follows it, with loop and escape
checks the stat walk does not repeat), and any change in a walked directory, even a file no build
reads, makes the next build read the inputs once.

Trust: a cache directory may arrive with an untrusted checkout or archive. Nothing in it is ever
executed (JSON, never pickle), and every file carries an HMAC-SHA256 made with a per-user key kept
outside the project (`$XDG_CACHE_HOME/skillc/key`, else `~/.cache/skillc/key`), so a foreign,
truncated, hand-edited or older-format file is not used: the build runs from scratch, and its
output is the same bytes either way. When no key can be read or created the cache is off.

Each build reads each cache file at most once and writes only those whose content changed (and a
time stamp file, deleted at once); nothing here is global.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol, TypeVar

from .. import fs
from ..dataclass import replace
from ..diagnostics import Diagnostic
from ..format.layout import INDEX, build_hash_in
from ..model import Config
from ..options import Options
from . import latewalk
from .aside import Aside, aside
from .carry import Carry, Catalog
from .carry import save as save_carry
from .latewalk import LateWalk, Walk
from .manifest import Manifest, encode
from .memo import Memo
from .outcome import Hit, Stats, hit
from .quick import FORMAT, Early, fingerprint, output_signature, quick_head, watch_list
from .records import Quick, Record, Records, build_key, head_key
from .snapshot import Snapshot, Tops, Walked, _fs_now, recordable, roots_now, take_snapshot, walk_tops
from .store import DIRNAME, discard_temporary, load_key

# Skills checked (encoded into the memo at the end) from which the memo is saved by a forked child:
# fewer encode in less time than a fork costs the build (the pages it then copies as it writes)
ASIDE_AT = 2048


class Discovered(Protocol):
    """What the pipeline's discover step gives the session to key the build by."""

    @property
    def input_paths(self) -> Iterable[str]: ...

    @property
    def build_hash(self) -> str: ...

    @property
    def early(self) -> tuple[Diagnostic, ...]: ...  # problems of config, template and discovery


D = TypeVar("D", bound=Discovered)


class Session:
    """The cache's one door for one build. The pipeline calls `replay` once (before and after
    discover, which it hands in), passes `memo` to the stages, and calls `finish` once after the
    write; it knows nothing of keys, snapshots or files. (`quick`, before the config is parsed,
    is the door's front step.)"""

    def __init__(
        self,
        config: Config,
        records: Records,
        head: tuple[str, tuple[Diagnostic, ...], bytes],
        options: Options,
        prune: bool,
        walked: tuple[Snapshot | None, tuple[tuple[str, str], ...] | None, Manifest | None],
    ):
        config_hash, head_diags, self.template_source = head
        self.config, self.options, self.prune = config, options, prune
        self.dist = config.root / config.output
        self.stats = Stats()
        self.records = records
        directory = records.directory
        self._memo = Memo(directory, records.signing_key, records.fingerprint, FORMAT, self.stats)
        self._memo_loaded = False
        self._saving: Aside | None = None  # the memo's save, begun aside (`save_memo_aside`)
        self.head_key = head_key(records.fingerprint, config_hash, config, head_diags)
        sources = ((s, config.source_dir(i)) for i, s in enumerate(config.sources))
        self.tops = walk_tops(sources, config.personas, config.root, config.knowledge)
        snapshot, tops, manifest = walked  # the quick path's walk, when it walked these very roots
        usable = manifest is not None and manifest.tops == self.tops
        known = (manifest.listings(), manifest.taken()) if manifest is not None and usable else (None, None)
        # No record: nothing to replay, so the walk is taken after discover, by a helper (latewalk.py)
        self.late = _Late.of(self.tops, directory) if snapshot is None and self.fresh else None
        self.now = (
            snapshot
            if snapshot is not None and tops == self.tops
            else None
            if self.late is not None
            else take_snapshot(self.tops, directory, *known)
        )
        self.build_key = ""
        self.vouched = False  # the walk can vouch for every input this build read
        # The config side's files as they are now, right after the build read them: what the quick
        # path's record says of them must be what the build read, not a later save (`_vouch`)
        self.watched = watch_list(config, self.template_source)
        self.quick_head = quick_head(records.fingerprint, self._config_path, options, self.watched)

    def replay(self, discover: Callable[[Walked | None], D]) -> Hit | D:
        """The recorded build when it is provably current, else what `discover` found.

        First the no-op path: inputs unchanged by their stat walk's digest, output as the last
        build left it, nothing read. Then `discover` runs (with the stat walk's listing, so nothing
        is listed twice) and the content path compares the build key of what it read.
        """
        record = self.records.record()
        now = self.now
        if (
            record is not None
            and now is not None
            and record.inputs == now.digest
            and record.head_key == self.head_key
        ):
            found = self.records.replay(record.build_key, self.dist, prune=self.prune)
            if found is not None:
                self.stats.replayed = self.stats.unread = True
                self._keep(found[0], True)
                return hit(found)
        found_inputs = discover(now.walked if now else None)
        if self.late is not None:
            self.late.start(found_inputs.input_paths)  # `finish` settles what it vouches for
        else:
            self.vouched = recordable(now, found_inputs.input_paths)
        self.build_key = build_key(
            self.records.fingerprint, found_inputs.build_hash, self.config, found_inputs.early
        )
        same = self.records.replay(self.build_key, self.dist, prune=self.prune)
        if same is None:
            return found_inputs
        self.stats.replayed = True
        self._keep(same[0], self.vouched)  # so that the next no-op build need not read the inputs
        return hit(same)

    @property
    def _config_path(self) -> Path:
        return self.config.root / self.config.config_rel

    @property
    def fresh(self) -> bool:
        """No build of this compiler is recorded: the memo has nothing this build can reuse (a first
        build, or one after skillc or its parsers changed)."""
        return self.records.record() is None

    @property
    def memo(self) -> Memo:
        """The memo the stages use, read on first use (a replayed build needs none)."""
        if not self._memo_loaded:
            self._memo.load()
            record = self.records.record()
            if record is not None and record.dist == str(self.dist.resolve()):
                self._memo.output_files = self.records.outputs()
            self._memo_loaded = True
        return self._memo

    def finish(
        self,
        files: Iterable[str] | None,
        build_hash: str,
        summary: tuple[int, int, int],
        diagnostics: tuple[Diagnostic, ...],
        carry: Callable[[str], tuple[Carry, Catalog]] | None = None,
        left_out: int = 0,
    ) -> None:
        """Keep the memo; and when the build was written (`files`), the record its replay needs, and
        what the next edit build starts from (`carry`, made for the build key when it is kept).
        `left_out`: the SKILL.md files it found and did not build, for the replay's summary."""
        self.save_memo_aside()  # unless the pipeline began it already
        saving, self._saving = self._saving, None
        if saving is None and self._memo_loaded:
            self._memo.save()  # few skills to encode, or no child could be made
        try:  # (a late walk's helper a build without `files` leaves running: `end`, the caller's)
            if files is not None:
                if self.late is not None:
                    self.vouched = self.late.settle()
                self._record(tuple(files), build_hash, (*summary, left_out), diagnostics, carry)
        except BaseException:  # interrupted: the child is stopped, not waited for (nor its work redone)
            if saving is not None:
                self._abandon(saving)
            raise
        if saving is not None:
            self._saved(saving)

    def save_memo_aside(self) -> None:
        """Begin the memo's save in a forked child (aside.py), when the checks that make it are all
        done, with many skills to encode: it runs beside the write and the record, and `finish`
        joins it (`_saved`)."""
        if self._memo_loaded and self._saving is None and len(self._memo.made_skills) >= ASIDE_AT:
            self._saving = aside(self._memo.save)

    def _saved(self, saving: Aside) -> None:
        """The child's save waited for; done here if the child failed (an interrupt stops it)."""
        written = saving.join()
        if written is None:
            self._memo.save()
        else:
            self.stats.buckets_written = written

    def end(self) -> None:
        """Stop the late walk's helper and the memo's save, if either runs (a build that failed or
        was interrupted before `finish`): the pipeline calls it however the build ends."""
        if self.late is not None:
            self.late.end()
        if self._saving is not None:
            saving, self._saving = self._saving, None
            self._abandon(saving)

    def _abandon(self, saving: Aside) -> None:
        """The memo's child stopped, not waited for, and the file it was writing removed."""
        saving.end()
        discard_temporary(self.records.directory, saving.pid)

    def _record(
        self,
        files: tuple[str, ...],
        build_hash: str,
        summary: tuple[int, int, int, int],
        diagnostics: tuple[Diagnostic, ...],
        carry: Callable[[str], tuple[Carry, Catalog]] | None,
    ) -> None:
        present = fs.scan_tree(self.dist)
        if present is None or any(rel not in present for rel in files):
            return
        # The lock is released after the swap: a concurrent build of other sources may have
        # replaced dist since; its index names another build hash.
        try:
            if build_hash_in(fs.read_head(self.dist / INDEX, 4096, follow=False)) != build_hash:
                return
        except OSError:
            return
        inputs, quick = self._vouch(present, files)
        skills, personas, objects, left_out = summary
        dist = str(self.dist.resolve())
        record = Record(
            self.build_key, self.head_key, dist, skills, personas, objects, inputs, quick, None, left_out
        )
        if carry is not None and inputs is not None:  # an edit build starts from a walk it can trust
            save_carry(self.records.directory, self.records.signing_key, *carry(self.build_key))
        self.records.save(record, {rel: present[rel] for rel in files}, diagnostics, self._manifest(inputs))

    def _keep(self, record: Record, vouched: bool) -> None:
        """After a replay the quick path missed: record what lets the next one hit."""
        if not vouched or self.now is None:
            return
        present = self.records.scanned  # replay has just walked the output: not again
        files = self.records.outputs()
        if present is None or files is None:
            return
        inputs, quick = self._vouch(present, files)
        walk = self._manifest(inputs)
        if (inputs, quick) != (record.inputs, record.quick):
            self.records.save(replace(record, inputs=inputs, quick=quick), None, None, walk)
        else:
            self.records.keep_walk(walk)  # the same walk, some directory touched: keep its stat data

    def _manifest(self, inputs: str | None) -> dict[str, object] | None:
        """The walk's manifest, when the walk can vouch for the inputs (`inputs`, its digest)."""
        if inputs is None:
            return None
        if self.late is not None:
            return self.late.manifest()
        return None if self.now is None else encode(self.now, self.tops, inputs)

    def _vouch(self, present: dict[str, list[int]], files: Iterable[str]) -> tuple[str | None, Quick | None]:
        """The inputs' digest and the quick path's record, when the walk can vouch for the inputs."""
        digest = self.late.digest() if self.late is not None else self.now.digest if self.now else None
        if digest is None or not (self.vouched or self.stats.unread):
            return None, None
        if (
            quick_head(self.records.fingerprint, self._config_path, self.options, self.watched)
            != self.quick_head
        ):
            return None, None  # the config side changed while the build ran: the next build parses it
        quick = replace(
            output_signature(self.dist, present, files),
            head=self.quick_head,
            watched=self.watched,
            tops=[list(top) for top in self.tops],
            output=self.config.output,
        )
        return digest, quick


class _Late:
    """The walk of a build without a record, taken after discover (latewalk.py): the stamp and the
    roots (their real paths and stat data) from before discover read, then the helper's walk, or
    this process's when no helper has answered by then."""

    def __init__(self, tops: Tops, stamp: int, roots: dict[str, list[object]]) -> None:
        self.tops, self.stamp, self.roots = tops, stamp, roots
        self.inputs: tuple[str, ...] = ()
        self.running: LateWalk | None = None
        self.walk: Walk | None = None

    @classmethod
    def of(cls, tops: Tops, directory: Path) -> _Late | None:
        """None when no stamp can be taken (the cache's folder cannot be written): no walk then."""
        stamp, roots = _fs_now(directory), roots_now(tops)
        return None if stamp is None or roots is None else cls(tops, stamp, roots)

    def start(self, inputs: Iterable[str]) -> None:
        self.inputs = tuple(inputs)
        self.running = latewalk.start(self.tops, self.stamp, self.roots, self.inputs)

    def settle(self) -> bool:
        """Whether the walk vouches for the inputs discover read: the helper's, when it is done."""
        if self.running is not None:
            self.walk = self.running.result()
            self.running = None
        if self.walk is None:  # no helper, or none that answered: the walk is taken here
            self.walk = latewalk.walk(self.tops, self.stamp, self.roots, self.inputs)
        return self.walk is not None and self.walk.vouched

    def digest(self) -> str | None:
        return None if self.walk is None else self.walk.digest

    def manifest(self) -> dict[str, object] | None:
        return None if self.walk is None else self.walk.manifest

    def end(self) -> None:
        if self.running is not None:
            self.running.end()
            self.running = None


def open_session(
    config: Config,
    head: tuple[str, tuple[Diagnostic, ...], bytes],
    options: Options,
    *,
    prune: bool,
    early: Early | None = None,
) -> Session | None:
    """The cache's door for one build; None when the cache is off (no key can be kept, or
    `.skillc-cache` is not a real directory). `head`: the config hash (generator, config and
    template), the config side's diagnostics, the template's sources; `early`: what the quick
    path (quick.py) found, so nothing is read or walked twice."""
    directory = config.root / DIRNAME
    try:  # something planted at the name (a symlink out of the project, a FIFO): never read or written through
        if not stat.S_ISDIR(os.lstat(directory).st_mode):
            return None
    except FileNotFoundError:
        pass
    except OSError:
        return None
    if early is not None and early.records.directory == directory:
        records = early.records
    else:
        signing_key = load_key()
        if signing_key is None:
            return None
        records = Records(directory, signing_key, fingerprint(), FORMAT)
    walked = (early.snapshot, early.tops, early.manifest) if early is not None else (None, None, None)
    return Session(config, records, head, options, prune, walked)
