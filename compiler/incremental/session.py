"""The cache's door (Session) for a build past the quick path, and its guarantee (docs/cache.md).

- The no-op path: nothing the last walk saw moved (the quick path checked it, quick.py) and the
  head key (config, template, flags, compiler, their diagnostics, the roots) is the last build's:
  the inputs are taken to be unchanged without reading them, as git's index and make do.
- The content path: discover runs (through a Seen, whose walk the record keeps: walk.py), and when
  the build key of what it read is the last successful build's and the output still holds exactly
  the files that build left there (outputs.json), every stage after discover is skipped and that
  build's diagnostics are replayed. A build with errors is never recorded, so never replayed.
- The memo (memo.py) for the stages of any other build; `finish` records the build, its walk and
  what the next edit build starts from (carry.py).

Stat data is trusted as git trusts it: a content change that keeps a file's size, mtimes, ctime
and inode is not seen (an ordinary write sets the ctime, which no call sets back); walk.py says
when a walk vouches for what discover read. Nothing in the cache is ever executed (JSON, never
pickle), and every file is signed with a per-user key (store.py): a foreign, damaged or older
file is not used, and the build runs from scratch. Each build reads each cache file at most once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol, TypeVar

from .. import fs
from ..dataclass import replace
from ..diagnostics import Diagnostic
from ..format.layout import INDEX, build_hash_in
from ..model import Config
from ..options import Options
from ..project.config import side_files
from ..stages.seen import Seen
from .aside import Aside, aside
from .carry import Carry, Catalog
from .carry import save as save_carry
from .memo import Memo
from .outcome import Hit, Stats, hit
from .quick import FORMAT, Early, output_signature, quick_head, records_for
from .records import Quick, Record, Records, build_key, head_key
from .store import DIRNAME, discard_temporary
from .walk import Root, Tops, Walk, recorded, roots_now, stamp_now

# Skills checked (encoded into the memo at the end) from which the memo is saved by a forked child:
# fewer encode in less time than a fork costs the build (the pages it then copies as it writes)
ASIDE_AT = 2048


class Discovered(Protocol):
    """What the pipeline's discover step gives the session to key the build by."""

    @property
    def ignore_files(self) -> Iterable[str]: ...  # the ignore files discover read, as it names them

    @property
    def build_hash(self) -> str: ...

    @property
    def early(self) -> tuple[Diagnostic, ...]: ...  # problems of config, template and discovery


D = TypeVar("D", bound=Discovered)


def walk_tops(config: Config) -> Tops:
    """What discover walks: every source (its label, where it is), the personas and knowledge folders."""
    tops = [(label, str(config.source_dir(i))) for i, label in enumerate(config.sources)]
    tops += [(folder, str(config.root / folder)) for folder in (config.personas, config.knowledge) if folder]
    return tuple(tops)


class Session:
    """The cache's one door for one build. The pipeline calls `replay` once (it hands in discover),
    passes `memo` to the stages, and calls `finish` once after the write; it knows nothing of keys,
    walks or files. (`quick`, before the config is parsed, is the door's front step.)"""

    def __init__(
        self,
        config: Config,
        records: Records,
        head: tuple[str, tuple[Diagnostic, ...], bytes],
        options: Options,
        prune: bool,
        early: Early | None,
    ):
        config_hash, head_diags, self.template_source = head
        self.config, self.options, self.prune, self.early = config, options, prune, early
        self.dist = config.root / config.output
        self.stats = Stats()
        self.records = records
        directory = records.directory
        self._memo = Memo(directory, records.signing_key, records.fingerprint, FORMAT, self.stats)
        self._memo_loaded = False
        self._saving: Aside | None = None  # the memo's save, begun aside (`save_memo_aside`)
        self.head_key = head_key(records.fingerprint, config_hash, config, head_diags)
        self.tops = walk_tops(config)
        self.build_key = ""
        # What discover saw, and the stamp and roots taken before it read (`_walked`)
        self.seen: Seen | None = None
        self.before: tuple[int, list[Root]] | None = None
        self.ignore_files: tuple[str, ...] = ()
        # The config side's files as they are now, right after the build read them: what the quick
        # path's record says of them must be what the build read, not a later save (`_quick`)
        self.watched = side_files(config, self.template_source)
        self.quick_head = quick_head(records.fingerprint, self._config_path, options, self.watched)

    def replay(self, discover: Callable[[Seen], D]) -> Hit | D:
        """The recorded build when it is provably current (the no-op path, then the content path:
        the module's docstring), else what `discover` found (with a Seen: the walk to record)."""
        record, early = self.records.record(), self.early
        if (
            record is not None
            and early is not None
            and early.walk is not None
            and early.changes is not None
            and early.changes.none
            and early.walk.tops == self.tops
            and record.head_key == self.head_key
        ):
            found = self.records.replay(record.build_key, self.dist, prune=self.prune)
            if found is not None:
                self.stats.replayed = self.stats.unread = True
                self._keep(found[0], early.walk)
                return hit(found)
        stamp, roots = stamp_now(self.records.directory), roots_now(self.tops)
        self.before = None if stamp is None or roots is None else (stamp, roots)
        self.seen = Seen()
        found_inputs = discover(self.seen)
        self.ignore_files = tuple(found_inputs.ignore_files)
        self.build_key = build_key(
            self.records.fingerprint, found_inputs.build_hash, self.config, found_inputs.early
        )
        same = self.records.replay(self.build_key, self.dist, prune=self.prune)
        if same is None:
            return found_inputs
        self.stats.replayed = True
        self._keep(same[0], self._walked())  # so that the next no-op build need not read the inputs
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
            record = self.records.record()
            if record is not None and record.dist == str(self.dist.resolve()):
                self._memo.output_files = self.records.outputs()
            self._memo_loaded = True
        return self._memo

    def finish(
        self,
        files: Iterable[str] | None,
        build_hash: str,
        summary: tuple[int, int, int, int],
        diagnostics: tuple[Diagnostic, ...],
        carry: Callable[[str], tuple[Carry, Catalog]] | None = None,
    ) -> None:
        """Keep the memo; and when the build was written (`files`), the record its replay needs, and
        what the next edit build starts from (`carry`, made for the build key when it is kept)."""
        self.save_memo_aside()  # unless the pipeline began it already
        saving, self._saving = self._saving, None
        if saving is None and self._memo_loaded:
            self._memo.save()  # few skills to encode, or no child could be made
        try:
            if files is not None:
                self._record(tuple(files), build_hash, summary, diagnostics, carry)
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
            self._saving = aside(lambda: self._memo.save().to_bytes(8, "little"))

    def _saved(self, saving: Aside) -> None:
        """The child's save waited for; done here if the child failed (an interrupt stops it)."""
        said = saving.join()
        if said is None or len(said) != 8:
            self._memo.save()
        else:
            self.stats.buckets_written = int.from_bytes(said, "little")

    def end(self) -> None:
        """Stop the memo's save, if it runs (a build that failed or was interrupted before
        `finish`): the pipeline calls it however the build ends."""
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
        walk = self._walked()
        quick = self._quick(present, files) if walk is not None else None
        kept = walk if quick is not None else None
        dist = str(self.dist.resolve())
        record = Record(self.build_key, self.head_key, dist, *summary, kept.id if kept else None, quick)
        if carry is not None and kept is not None:  # an edit build starts from a walk it can trust
            save_carry(self.records.directory, self.records.signing_key, *carry(self.build_key))
        self.records.save(record, {rel: present[rel] for rel in files}, diagnostics, kept)

    def _walked(self) -> Walk | None:
        """What discover saw, as the walk to record, when it vouches for what discover read."""
        if self.seen is None or self.before is None:
            return None
        stamp, roots = self.before
        more = [where for rel in self.ignore_files if (where := self._where(rel)) is not None]
        return recorded(self.seen, self.tops, roots, stamp, more)

    def _where(self, rel: str) -> str | None:
        """Where a file discover names by its source's label is on disk (the deepest source first)."""
        for label, where in sorted(self.tops, key=lambda top: len(top[0]), reverse=True):
            if rel.startswith(label + "/"):
                return where + rel[len(label) :]
        return None

    def _keep(self, record: Record, walk: Walk | None) -> None:
        """After a replay the quick path missed: record what lets the next one hit."""
        present, files = self.records.scanned, self.records.outputs()  # replay has just walked the output
        if walk is None or present is None or files is None:
            return
        quick = self._quick(present, files)
        if quick is not None and (walk.id, quick) != (record.inputs, record.quick):
            self.records.save(replace(record, inputs=walk.id, quick=quick), None, None, walk)

    def _quick(self, present: dict[str, list[int]], files: Iterable[str]) -> Quick | None:
        """The quick path's record, unless the config side changed while the build ran (the next
        build then parses it)."""
        now = quick_head(self.records.fingerprint, self._config_path, self.options, self.watched)
        if now != self.quick_head:
            return None
        return replace(
            output_signature(self.dist, present, files),
            head=self.quick_head,
            watched=self.watched,
            output=self.config.output,
        )


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
    path (quick.py) found, so nothing is read twice."""
    if early is not None and early.records.directory == config.root / DIRNAME:
        return Session(config, early.records, head, options, prune, early)
    records = records_for(config.root / config.config_rel, new=True)
    return None if records is None else Session(config, records, head, options, prune, None)
