"""Where the output may go: never over an input, the config, the template, a .git directory, the
build cache, or through a symlink. Every file of the output is skillc's to replace, so these are
checked before anything is read or written."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .. import diagnostics as dg
from ..diagnostics import Diagnostic
from ..diagnostics.codes import Code
from ..names.paths import CACHE_DIRNAME

if TYPE_CHECKING:  # the pipeline imports this module on a no-op build, which loads no model
    from ..model import Config


def placement_problems(config: Config) -> tuple[Diagnostic, ...]:
    """Every reason the configured output, sources or personas are placed where they must not be."""
    return _overlaps(config) + _outside_root(config)


def places(config: Config) -> tuple[tuple[str, Path], ...]:
    """What a build reads or writes, each with the words that name it: the sources, the personas
    folder, the output, the build cache, the config file and the template (`skillc export` writes
    into none of them)."""
    found = [(f"the source {s!r}", config.source_dir(i)) for i, s in enumerate(config.sources)]
    found += (
        [(f"the personas folder {config.personas!r}", config.root / config.personas)]
        if config.personas
        else []
    )
    found += [
        (f"the output {config.output!r}", config.root / config.output),
        (f"the build cache {CACHE_DIRNAME}/", config.root / CACHE_DIRNAME),
        ("the config file", config.root / config.config_rel),
        ("the template", config.template),
    ]
    return tuple(found)


def _overlaps(config: Config) -> tuple[Diagnostic, ...]:
    """Every file of the output directory is skillc's to replace (or, for a first build, the whole
    directory), so it must not hold any input."""
    out = (config.root / config.output).resolve()
    dirs = [*((s, config.source_dir(i)) for i, s in enumerate(config.sources))]
    dirs += [(config.personas, config.root / config.personas)] if config.personas else []
    dirs += [(config.knowledge, config.root / config.knowledge)] if config.knowledge else []
    problems = [
        dg.error(
            config.config_rel,
            Code.CONFIG_PATH,
            f"output {config.output!r} overlaps input {src!r}",
            *config.at("output"),
        )
        for src, where in dirs
        if _inside(where.resolve(), out) or _inside(out, where.resolve())
    ]
    problems += [
        dg.error(
            config.config_rel,
            Code.CONFIG_PATH,
            f"output {config.output!r} would replace the {what} {path.name!r}",
            *config.at("output"),
        )
        for what, path in (("config file", config.root / config.config_rel), ("template", config.template))
        if _inside(path.resolve(), out)
    ]
    if out.exists() and not out.is_dir():
        problems.append(
            dg.error(
                config.config_rel,
                Code.CONFIG_PATH,
                f"output {config.output!r} exists and is not a directory",
                *config.at("output"),
            )
        )
    return tuple(problems) + _reserved_output(config)


def _reserved_output(config: Config) -> tuple[Diagnostic, ...]:
    """Places the output must never be: a repository's .git, the build cache, or a path through a symlink."""
    parts = Path(config.output).parts
    folded = [p.casefold() for p in parts]  # .GIT is .git on a case-insensitive file system
    real = [p.casefold() for p in (config.root / config.output).resolve().parts]
    why = None
    if ".git" in folded or ".git" in real:
        why = "is inside a .git directory; skillc replaces its output wholesale"
    elif folded and folded[0] == CACHE_DIRNAME:
        why = f"is the build cache directory {CACHE_DIRNAME}/"
    else:
        link = next(
            (
                config.root.joinpath(*parts[:i])
                for i in range(1, len(parts) + 1)
                if config.root.joinpath(*parts[:i]).is_symlink()
            ),
            None,
        )
        if link is not None:
            # Refused rather than resolved: swapping a symlink for a directory would leave the link's
            # target behind as debris, and writing through it would put the output somewhere else.
            why = f"goes through the symlink {link.relative_to(config.root).as_posix()!r}; use the real path"
    if why is None:
        return ()
    return (
        dg.error(
            config.config_rel, Code.CONFIG_PATH, f"output {config.output!r} {why}", *config.at("output")
        ),
    )


def _outside_root(config: Config) -> tuple[Diagnostic, ...]:
    """A configured directory that is a symlink out of the project is refused like any escaping symlink."""
    root = config.root.resolve()
    # Sources written as absolute or `~` paths are meant to be outside: the config is trusted.
    named: list[tuple[str, tuple[str | int, ...], str]] = [
        ("sources", ("sources", i), s) for i, s in enumerate(config.sources) if not s.startswith(("/", "~"))
    ]
    named += [("personas", ("personas",), config.personas)] if config.personas else []
    named += [("knowledge", ("knowledge",), config.knowledge)] if config.knowledge else []
    # written to: through a symlink it would land elsewhere (an absolute one is the command line's,
    # `skillc build SOURCE -o OUTPUT`: meant where it is, as an absolute source is)
    if not config.output.startswith("/"):
        named.append(("output", ("output",), config.output))
    return tuple(
        dg.error(
            config.config_rel,
            Code.CONFIG_PATH,
            f"{key} {path!r} resolves outside the project ({(root / path).resolve()})",
            *config.at(*keys),
        )
        for key, keys, path in named
        if (key == "output" or (root / path).exists()) and not _inside((root / path).resolve(), root)
    )


def _inside(path: Path, parent: Path) -> bool:
    return path == parent or parent in path.parents
