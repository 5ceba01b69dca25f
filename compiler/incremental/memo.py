"""The memo: each SKILL.md's check (parse, schema, name rules) as an earlier build made it, by
`SkillSource.origin` (its bytes, path, command and source), kept in one of 256 bucket files
(`skill-XX.json`) chosen by a digest of the file's path, so a build rewrites only the buckets of the
files it checked again, added or removed.

The memo computes its keys itself: the stages hand it what a result is made of, never a key.
Entries not used by a build are dropped, so the memo follows the tree. Nothing after the checks is
memoised: keying an outcome costs what computing it does, and keying the catalogs' entries cost a
first build at 100,000 skills 1-2 s more than rendering them (bench/RESULTS.md); a build the edit
build cannot make is rare enough to render them again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..dataclass import dataclass, field
from ..diagnostics import Diagnostic
from ..model import Skill, SkillSource
from .codec import Derived, decode_diags, decode_skill, encode_diags, encode_skill, json_exact
from .outcome import Stats
from .store import read_signed, write_signed

SKILLS_PREFIX = "skill-"
SkillResult = tuple[Skill | None, tuple[Diagnostic, ...]]
Bucket = dict[str, list[Any]]  # SKILL.md path -> [skill key, {"skill", "diags"}]


def bucket_of(path: str) -> str:
    """The bucket file a SKILL.md's result lives in, by its path: an edit rewrites only that one."""
    name = hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest()[:2]
    return f"{SKILLS_PREFIX}{name}.json"


@dataclass
class Memo:
    """Each file read on first use, written once when the build ends, when what it holds changed.
    `output_files`: the stat data of the last recorded build's output files (output/write.py)."""

    directory: Path
    signing_key: bytes
    fingerprint: str
    format: int
    stats: Stats
    output_files: Mapping[str, list[int]] | None = None
    buckets: dict[str, Bucket] = field(default_factory=dict)  # as read, by file name
    used_buckets: dict[str, Bucket] = field(default_factory=dict)  # what this build used or made
    _checked_skills: bool = False  # check_skills ran: the buckets follow the tree
    # Each skill this build checked, with its result, encoded when the memo is saved (`_entries`):
    # until then the skill is the program's, and no JSON of it is held through the back end
    made_skills: list[tuple[Derived, Skill | None, tuple[Diagnostic, ...]]] = field(default_factory=list)

    def _read(self, name: str) -> dict[str, Any] | None:
        data = read_signed(self.directory, name, self.signing_key)
        if (
            not isinstance(data, dict)
            or data.get("format") != self.format
            or data.get("fingerprint") != self.fingerprint
        ):
            return None
        return data

    def _write(self, name: str, data: dict[str, Any]) -> None:
        write_signed(
            self.directory,
            name,
            self.signing_key,
            {"format": self.format, "fingerprint": self.fingerprint, **data},
        )

    def save(self) -> int:
        """Keep only what this build used, rewriting only the buckets whose content changed; the
        buckets written or removed (`Stats.buckets_written`). Buckets are read as they are asked for."""
        if self._checked_skills:
            self._save_buckets()
        return self.stats.buckets_written

    def _save_buckets(self) -> None:
        made = self._made_by_bucket()
        try:
            on_disk = {n for n in os.listdir(self.directory) if n.startswith(SKILLS_PREFIX)}
        except OSError:
            on_disk = set()
        for name in sorted(on_disk | self.used_buckets.keys() | made.keys()):
            # One bucket's entries made at a time, and let go once written: at 100,000 skills, all
            # of them at once were 100 MB more at the build's end
            used = {**self.used_buckets.pop(name, {}), **self._entries(made.pop(name, ()))}
            if name in on_disk and _keys(used) == _keys(self.buckets.get(name)):
                continue  # the same files with the same keys: the same bytes
            self.stats.buckets_written += 1
            if used:
                self._write(name, {"skills": dict(sorted(used.items()))})
            else:  # every file it held is gone
                with contextlib.suppress(OSError):
                    os.unlink(self.directory / name)

    def _made_by_bucket(self) -> dict[str, list[tuple[Derived, Skill | None, tuple[Diagnostic, ...]]]]:
        made: dict[str, list[tuple[Derived, Skill | None, tuple[Diagnostic, ...]]]] = {}
        for one in self.made_skills:
            made.setdefault(bucket_of(one[0].path), []).append(one)
        self.made_skills.clear()
        return made

    def _bucket(self, name: str) -> Bucket:
        found = self.buckets.get(name)
        if found is None:
            data = self._read(name)
            skills = data.get("skills") if data is not None else None
            found = self.buckets[name] = skills if isinstance(skills, dict) else {}
        return found

    # -- checked skills, by skill key --------------------------------------------------

    def check_skills(
        self, checks: Callable[[Sequence[SkillSource]], list[SkillResult]]
    ) -> Callable[[Sequence[SkillSource]], list[SkillResult]]:
        """`checks` memoised per file by its skill key; the misses go to `checks` in one batch
        (which may spread them over the cores)."""

        def cached(sources: Sequence[SkillSource]) -> list[SkillResult]:
            self._checked_skills = True
            results: list[SkillResult | None] = [self._hit(s) for s in sources]
            misses = [i for i, r in enumerate(results) if r is None]
            for i, (skill, diags) in zip(misses, checks([sources[i] for i in misses]), strict=True):
                results[i] = (skill, diags)
                self._remember_skill(sources[i], skill, diags)
            self.stats.checked += len(misses)
            self.stats.reused += len(sources) - len(misses)
            return [r for r in results if r is not None]

        return cached

    def _hit(self, src: SkillSource) -> SkillResult | None:
        path = src.skill_md.rel
        name = bucket_of(path)
        hit = self._bucket(name).get(path)
        if type(hit) is not list or len(hit) != 2 or hit[0] != src.origin:
            return None
        try:
            result = decode_skill(hit[1]["skill"], Derived.of(src)), decode_diags(hit[1]["diags"])
        except (KeyError, TypeError, ValueError, IndexError):
            return None
        self.used_buckets.setdefault(name, {})[path] = hit
        return result

    def _remember_skill(self, src: SkillSource, skill: Skill | None, diags: tuple[Diagnostic, ...]) -> None:
        self.made_skills.append((Derived.of(src), skill, diags))

    @staticmethod
    def _entries(made: Iterable[tuple[Derived, Skill | None, tuple[Diagnostic, ...]]]) -> Bucket:
        """The skills this build checked, as a bucket's entries: only what JSON keeps as it is and
        decodes to the very same result."""
        entries: Bucket = {}
        for derived, skill, diags in made:
            entry: dict[str, Any] = {"skill": encode_skill(skill), "diags": encode_diags(diags)}
            if (
                json_exact(entry)
                and decode_skill(entry["skill"], derived) == skill
                and decode_diags(entry["diags"]) == diags
            ):
                entries[derived.path] = [derived.origin, entry]
        return entries


def _keys(bucket: Bucket | None) -> dict[str, Any]:
    return {
        path: entry[0] if type(entry) is list and entry else None for path, entry in (bucket or {}).items()
    }
