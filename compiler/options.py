"""What the command line adds to a project's config, as one value every entry point takes."""

from __future__ import annotations

from collections.abc import Callable

from .dataclass import dataclass, field


def silent(_: str) -> None:
    """The default progress: library callers see nothing."""


# Told each stage as it starts ("validating 10000 SKILL.md files"): the CLI shows it on a terminal.
Progress = Callable[[str], None]


@dataclass(frozen=True)
class Options:
    strict: bool | None = None  # warnings are errors; None: the config's `strict`
    skip_invalid: bool | None = None  # leave out skills with errors; None: the config's `skip_invalid`
    verbose: bool = False  # name every skill a budget left out or shortened
    ignore: tuple[str, ...] = ()  # codes --ignore silences, on top of the config's `diagnostics:`
    progress: Progress = field(default=silent, compare=False)


DEFAULTS = Options()  # what a library caller gets: the config's own settings, nothing printed
