"""The build directory while it is served: rebuilds picked up atomically, recent builds kept.

`skillc build` commits a build by renaming `_index.json` over the old one, and never rewrites an
object; so a handle pinned to either index keeps serving its build (`reader.dist.pinned`: an open
`reader.Dist` would follow the folder to the newest build at its next call). `Builds.latest()`
looks at the index's stat data at most every `LOOK_EVERY` seconds and opens a new one when they
moved (a build whose index does not open is skipped, and the last good one kept). The last `KEPT`
views stay by build hash: a cursor names the build of its first page, and a connection reads from
the build of its last `skills/list` or `skills/get` (`Pin`).
"""

from __future__ import annotations

import os
import sys
import time
from collections import OrderedDict
from collections.abc import Callable

from .. import reader
from ..format.layout import INDEX
from ..reader.dist import pinned
from .view import View

LOOK_EVERY = 0.25  # seconds: a rebuild shows within this, far inside the 2 s the docs promise
KEPT = 8


def _warn(text: str) -> None:
    print(f"skillc: serve: {text}", file=sys.stderr, flush=True)


class Builds:
    def __init__(self, path: str, persona: str, say: Callable[[str], None] = _warn):
        self.path = os.path.abspath(path)
        self.persona = persona
        self._say = say
        self._said: set[str] = set()
        self._views: OrderedDict[str, View] = OrderedDict()
        self._stat: tuple[int, int, int] | None = None
        self._looked = 0.0
        self._current = self._open()

    def _index_stat(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(os.path.join(self.path, INDEX))
        except OSError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def _open(self) -> View:
        """Open the build now in the directory (raises the reader's FormatError when there is none)."""
        self._stat = self._index_stat()
        dist = pinned(self.path)  # a connection's or a cursor's build stays that build
        view = self._views.get(dist.build_hash)
        if view is None:
            view = View(dist, self.persona, self._say_once)
            self._keep(view)
        return view

    def _say_once(self, note: str) -> None:
        """A view's note, unless an earlier build's said it already (a rebuild repeats most)."""
        if note not in self._said:
            self._said.add(note)
            self._say(note)

    def _keep(self, view: View) -> None:
        self._views[view.build_hash] = view
        while len(self._views) > KEPT:
            self._views.popitem(last=False)

    def latest(self) -> View:
        """The newest build committed, looked for at most every LOOK_EVERY seconds."""
        now = time.monotonic()
        if now - self._looked >= LOOK_EVERY:
            self._looked = now
            if self._index_stat() != self._stat:
                try:
                    self._current = self._open()
                except reader.ReaderError as exc:
                    self._say(
                        f"a new build could not be opened, still serving {self._current.build_hash[:12]}: {exc}"
                    )
        return self._current

    def get(self, build_hash: str) -> View | None:
        """A kept build by hash (the latest's included)."""
        return self._views.get(build_hash)


class Pin:
    """What one connection reads from: the build of its last `skills/list` or `skills/get`, else the
    latest. A stateless transport (HTTP here) has no connection to pin, so it always reads the
    latest (`sticky=False`)."""

    def __init__(self, builds: Builds, sticky: bool):
        self.builds = builds
        self.sticky = sticky
        self._view: View | None = None

    def refresh(self, view: View | None = None) -> View:
        """Pin to `view` (a cursor's build) or the latest: a `skills/list` or `skills/get`."""
        view = view or self.builds.latest()
        if self.sticky:
            self._view = view
        return view

    def view(self) -> View:
        """The build the connection reads from."""
        return self._view if self._view is not None else self.builds.latest()
