"""The memo: per-file and per-catalog results of earlier builds, each by a key of its own.

- skill key: one SKILL.md's check (parse, schema, name rules), by `SkillSource.origin` (its bytes,
  path, command and source), kept in one of 256 bucket files (`skill-XX.json`) chosen by a digest
  of the file's path, so a build rewrites only the buckets of the files it checked again, added or
  removed;
- cost key: a catalog entry's rendered length, by the template and a digest of the entry itself
  (`costs.json`);
- catalog key: one persona's catalog text and packing, by everything `CatalogInputs` holds
  (`catalogs.json`).

The memo computes its keys itself: the stages hand it what a result is made of, never a key.
Entries not used by a build are dropped, so the memo follows the tree. Resolution is not memoised:
keying an outcome costs what computing it does (bench/RESULTS.md).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..dataclass import dataclass, field
from ..diagnostics import Diagnostic
from ..digests import digest
from ..fastjson import orjson
from ..model import Skill, SkillSource, Strategy
from .codec import Derived, decode_diags, decode_skill, encode_diags, encode_skill, json_exact
from .outcome import Stats
from .store import read_signed, write_signed

if TYPE_CHECKING:  # the stages' types: a replayed build loads no stage
    from ..stages.budget import Candidate, Packing
    from ..stages.catalog import CatalogInputs
    from ..stages.template import Template

SKILLS_PREFIX, COSTS_FILE, CATALOGS_FILE = "skill-", "costs.json", "catalogs.json"
SkillResult = tuple[Skill | None, tuple[Diagnostic, ...]]
Bucket = dict[str, list[Any]]  # SKILL.md path -> [skill key, {"skill", "diags"}]


def bucket_of(path: str) -> str:
    """The bucket file a SKILL.md's result lives in, by its path: an edit rewrites only that one."""
    name = hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest()[:2]
    return f"{SKILLS_PREFIX}{name}.json"


@dataclass
class Memo:
    """Each file read on first use when a build that is not replayed runs, written once when it ends,
    and only when what it holds changed.

    `output_files`: the stat data of the files the last recorded build left in the output, so the
    write stage need not read them again to compare (see output/write.py `compare`).
    """

    directory: Path
    signing_key: bytes
    fingerprint: str
    format: int
    stats: Stats
    output_files: Mapping[str, list[int]] | None = None
    buckets: dict[str, Bucket] = field(default_factory=dict)  # as read, by file name
    used_buckets: dict[str, Bucket] = field(default_factory=dict)  # what this build used or made
    costs: dict[str, int] = field(default_factory=dict)  # cost key -> characters
    costs_template: str = ""  # the template those costs were measured with
    catalogs: dict[str, Any] = field(default_factory=dict)  # catalog key -> text and packing
    used_costs: dict[str, int] = field(default_factory=dict)
    used_catalogs: dict[str, Any] = field(default_factory=dict)
    _checked_skills: bool = False  # check_skills ran: the buckets follow the tree
    # Each skill this build checked, with its result, encoded when the memo is saved (`_entries`):
    # until then the skill is the program's, and no JSON of it is held through the back end
    made_skills: list[tuple[Derived, Skill | None, tuple[Diagnostic, ...]]] = field(default_factory=list)
    _entry_digests: dict[str, bytes | None] = field(default_factory=dict)  # this build's, by command
    # The catalog key `recall` made, for the `remember` of the same inputs that follows a miss
    _keyed: tuple[CatalogInputs, str | None] | None = field(default=None)

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

    def load(self) -> None:
        """The costs and the catalogs (small); skill buckets are read as their files are asked for."""
        costs = self._read(COSTS_FILE)
        if costs is not None and isinstance(costs.get("costs"), dict):
            self.costs, self.costs_template = costs["costs"], str(costs.get("template", ""))
        catalogs = self._read(CATALOGS_FILE)
        if catalogs is not None and isinstance(catalogs.get("catalogs"), dict):
            self.catalogs = catalogs["catalogs"]

    def save(self) -> int:
        """Keep only what this build used, rewriting only the files whose content changed; the skill
        buckets written or removed (`Stats.buckets_written`)."""
        if self.used_costs != self.costs:
            self._write(COSTS_FILE, {"template": self.costs_template, "costs": self.used_costs})
        if self.used_catalogs.keys() != self.catalogs.keys():
            self._write(CATALOGS_FILE, {"catalogs": self.used_catalogs})
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

    # -- catalog entry costs, by cost key ----------------------------------------------

    def entry_cost(
        self, measure: Callable[[dict[str, Any], Template], int]
    ) -> Callable[[dict[str, Any], Template], int]:
        """`measure(entry, template)` memoised by the template and the catalog entry itself
        (whatever catalog.catalog_skill hands the template, so the two cannot drift apart)."""

        templates: dict[int, str] = {}

        def cached(entry: dict[str, Any], template: Template) -> int:
            tkey = templates.get(id(template))
            if tkey is None:
                tkey = templates[id(template)] = digest(
                    template.source, str(template.markup), template.suffix
                )
            if tkey != self.costs_template:  # another template: nothing measured so far applies
                self.costs, self.used_costs, self.costs_template = {}, {}, tkey
            try:  # sorted keys: one entry, one key
                key = hashlib.sha256(orjson.dumps(entry, option=orjson.OPT_SORT_KEYS)).hexdigest()
            except TypeError:  # not representable (lone surrogates): measured, never memoised
                return measure(entry, template)
            hit = self.costs.get(key)
            if type(hit) is not int:
                hit = measure(entry, template)
                self.stats.measured += 1
            self.used_costs[key] = hit
            return hit

        return cached

    # -- catalogs, by catalog key (stages.catalog.CatalogMemo) ---------------------------

    def recall(self, inputs: CatalogInputs) -> tuple[str, Packing] | None:
        key = self._catalog_key(inputs)
        self._keyed = (inputs, key)
        hit = self.catalogs.get(key) if key else None
        found = _restored(hit, inputs.candidates, inputs.config.budget_priority)
        if found is not None and key:
            self.used_catalogs[key] = hit
        return found

    def remember(self, inputs: CatalogInputs, text: str, packing: Packing) -> None:
        self.stats.rendered += 1
        keyed, self._keyed = self._keyed, None
        key = keyed[1] if keyed is not None and keyed[0] is inputs else self._catalog_key(inputs)
        if key is None:
            return
        p = packing
        kept = {
            "persona": p.persona,
            "budget": p.budget,
            "included": list(p.included),
            "diags": encode_diags(p.diagnostics),
            "strategy": p.strategy.value,
            "descriptions": dict(p.descriptions),
        }
        entry: dict[str, Any] = {"text": text, "packing": kept}
        # Kept only when JSON gives it back exactly and it restores to the very same Packing.
        if json_exact(entry) and _restored(entry, p.candidates, p.priority) == (text, p):
            self.used_catalogs[key] = entry

    def _catalog_key(self, inputs: CatalogInputs) -> str | None:
        """Template, budget settings, persona, and each listed entry (None: an entry is not JSON)."""
        config, persona, template = inputs.config, inputs.persona, inputs.template
        head = repr(
            (
                persona.id,
                persona.name,
                persona.faction,
                config.budget_for(persona.id),
                config.budget_strategy,
                config.budget_priority,
                config.verbose,
                config.config_rel,
                template.suffix,
                template.markup,
            )
        ).encode("utf-8", "surrogatepass")
        # The head and the template are length-prefixed; each entry is a 32-byte digest.
        parts = [
            len(head).to_bytes(8, "little"),
            head,
            len(template.source).to_bytes(8, "little"),
            template.source,
        ]
        known, entries = self._entry_digests, inputs.entries
        for candidate in inputs.candidates:  # each persona's catalog: most entries digested already
            command = candidate.command
            entry = known[command] if command in known else self._entry_digest(entries[command], candidate)
            if entry is None:  # not JSON: never memoised
                return None
            parts.append(entry)
        return hashlib.sha256(b"".join(parts)).hexdigest()

    def _entry_digest(self, entry: dict[str, Any], candidate: Candidate) -> bytes | None:
        """A digest of one catalog entry and its budget candidate, once per build for every persona."""
        command = candidate.command
        if command not in self._entry_digests:
            try:
                data: bytes | None = orjson.dumps(entry, option=orjson.OPT_SORT_KEYS)
            except TypeError:  # a lone surrogate: measured and rendered, never memoised
                data = None
            self._entry_digests[command] = (
                None
                if data is None
                else hashlib.sha256(data + b"\0" + repr(candidate).encode("utf-8", "surrogatepass")).digest()
            )
        return self._entry_digests[command]


def _keys(bucket: Bucket | None) -> dict[str, Any]:
    return {
        path: entry[0] if type(entry) is list and entry else None for path, entry in (bucket or {}).items()
    }


def _restored(
    entry: Any, candidates: tuple[Candidate, ...], priority: tuple[str, ...]
) -> tuple[str, Packing] | None:
    """A Packing from what the memo keeps of it: every candidate not included was left out."""
    from ..stages.budget import Packing

    try:
        text, p = entry["text"], entry["packing"]
        included = tuple(p["included"])
        kept = set(included)
        left_out = tuple(sorted(c.command for c in candidates if c.command not in kept))
        packing = Packing(
            p["persona"],
            p["budget"],
            included,
            left_out,
            decode_diags(p["diags"]),
            Strategy(p["strategy"]),
            p["descriptions"],
            candidates,
            priority,
        )
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    return (text, packing) if type(text) is str else None
