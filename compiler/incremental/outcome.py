"""What the cache tells the pipeline about one build: what it did (`Stats`), a build it proved
current (`Hit`), and a build's counts (`Summary`, as every build reports them). Apart from the door
and the memo, so a no-op build loads neither."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..dataclass import dataclass

if TYPE_CHECKING:
    from .records import Record
    from .report import Report


@dataclass
class Stats:
    """What the cache did in one build (tests and the benchmark read it)."""

    checked: int = 0  # SKILL.md files parsed and validated (memo misses)
    reused: int = 0  # SKILL.md results taken from the memo
    measured: int = 0  # catalog entries rendered to measure their cost
    rendered: int = 0  # persona catalogs packed and rendered (memo misses)
    replayed: bool = False  # the whole build was skipped
    unread: bool = False  # ... and the inputs were proven unchanged by their stat data, none was read
    quick: bool = False  # ... and so were the config and the template, neither was parsed
    buckets_written: int = 0  # skill bucket files written or removed
    edited: bool = False  # an edit build made it from the last one (edit.py): only the edited skills ran
    declined: str = ""  # why the edit build, tried first, left this build to the stages


@dataclass(frozen=True)
class Summary:
    """A build's counts, as its summary line says them."""

    skills: int
    personas: int
    objects: int
    left_out: int = 0  # SKILL.md files found and not built (Program.left_out)


@dataclass(frozen=True)
class Hit:
    """A build the cache proved current: its counts and the diagnostics it reported."""

    skills: int
    personas: int
    objects: int
    report: Report
    left_out: int = 0


def hit(found: tuple[Record, Report]) -> Hit:
    record, report = found
    return Hit(record.skills, record.personas, record.objects, report, record.left_out)
