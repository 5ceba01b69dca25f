"""skillc's failures, one tree. Raised where things fail; the CLI (cli/boundary.py) alone turns
them into a message and an exit code. Problems in the user's files are not exceptions: they are
Diagnostics (diagnostics/), all of them reported in one run.

The reader's errors (skillc.reader.ReaderError and its subclasses) are a tree of their own, in the
stdlib-only skillc.format.errors, so an application can use the reader without the compiler.
"""

from __future__ import annotations


class SkillcError(Exception):
    """A failure the user is told about in one line; `exit_code` is the process's status."""

    exit_code = 1


class UsageError(SkillcError):
    """The command line named something that is not there, or asked for what cannot be (exit 2)."""

    exit_code = 2


class OutputRefused(SkillcError):
    """The output path is not a directory skillc may replace; nothing was touched."""


class TemplateFailure(SkillcError):
    """The template raised while rendering; reported as SKC104, never a traceback."""


class InitError(SkillcError):
    """init cannot go on (a config is already there): nothing was written."""


class RefError(UsageError):
    """A git ref that cannot be built here (missing, or history cut off by a shallow clone)."""


class NoBuild(SkillcError):
    """A side of `diff` is not a build: a missing directory, one that is not a build, or a project
    that does not compile (exit 3, distinct from 1, "the builds differ", for CI gates)."""

    exit_code = 3


class BuildFailed(NoBuild):
    """The project does not compile at a git ref that `diff --git` was asked to compare."""


class NotOurs(SkillcError):
    """A file is in the way that skillc did not write; skillc never overwrites or deletes it."""
