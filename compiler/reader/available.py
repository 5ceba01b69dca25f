"""Run-time availability: what a machine has of a skill's requirements (sven's `requires_bins`
and `requires_env`), for an environment a host names, the process's, or EVERYWHERE.

docs/format.md §11 is the rule: a program is found in the PATH of the environment given (never the
current directory), a variable is there when it is set and not empty.
"""

from __future__ import annotations

import os

from ..format.errors import ArgumentType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence


class _Everywhere:
    """The environment that has every requirement: the catalog and listings as the build made them."""

    def __repr__(self) -> str:
        return "EVERYWHERE"

    def __reduce__(self) -> str:
        return "EVERYWHERE"


EVERYWHERE = _Everywhere()


class Machine:
    """One call's environment: its variables and its program search, each program looked up once."""

    def __init__(self, env: object, which: Callable[[str], str | None] | None) -> None:
        if env is not None and env is not EVERYWHERE and not hasattr(env, "get"):
            raise ArgumentType(f"env must be a mapping of str to str, not {type(env).__name__}")
        self.everything = env is EVERYWHERE
        self.env: Mapping[str, str] = os.environ if env is None or env is EVERYWHERE else env  # type: ignore[assignment]
        self._which = which
        self._found: dict[str, bool] = {}

    def found(self, name: str) -> bool:
        known = self._found.get(name)
        if known is None:
            where = self._which(name) if self._which else which(name, self.env.get("PATH", ""))
            known = self._found[name] = where is not None
        return known

    def missing(self, bins: Sequence[str], env: Sequence[str]) -> list[str]:
        """What this machine lacks of these requirements: `bin:` and `env:` entries, in order."""
        if self.everything:
            return []
        lacks = [f"bin:{b}" for b in bins if not self.found(b)]
        return lacks + [f"env:{e}" for e in env if not self.env.get(e)]


def which(name: str, path: str) -> str | None:
    """The program `name` in a directory of `path` (":"-separated; empty and relative entries
    skipped): a regular file, symlinks followed, that this process may execute. A name holding
    "/" or NUL, or "." or "..", is never found. Unlike shutil.which, the PATH searched is the
    one given, never the process's, and never the current directory."""
    if not name or "/" in name or "\x00" in name or name in (".", ".."):
        return None
    import stat  # here: a cold catalog() does not need it

    for folder in path.split(":"):
        if not folder.startswith("/"):
            continue
        where = f"{folder.rstrip('/')}/{name}"
        try:
            regular = stat.S_ISREG(os.stat(where).st_mode)
        except (OSError, ValueError):
            continue
        if regular and os.access(where, os.X_OK):
            return where
    return None
