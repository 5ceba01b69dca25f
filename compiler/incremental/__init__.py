"""Every build made from the last one, beneath the pipeline: the build cache in
`<project>/.skillc-cache/` (replay a current build, memoise per-file work), `skillc build`'s edit
builds (edit.py) and `build --watch`'s delta builds (delta.py). It never imports the pipeline or
the command line.

The pipeline uses the cache through one door, `Session` (session.py, which also states the
guarantee and its limits), and its front step, `quick_replay` (quick.py: a no-op proven before the
config is parsed); between the two, `edit.edit_build`. Storage (store.py) is apart from policy
(session.py, quick.py, records.py, memo.py).

The front step loads alone: the door, the memo and what they need (the model, the stages' types)
are imported on first use (`__getattr__`), so a no-op build never loads them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .memo import Memo
    from .outcome import Hit, Stats, Summary
    from .quick import Early, leave_only, quick_hit, quick_replay
    from .report import Report
    from .session import Session, open_session
    from .store import DIRNAME

# Each name by its module, imported on first use: `skillc build` starts its lstats (quick.start)
# before the rest of the cache is imported.
_LATER = {
    "DIRNAME": "store",
    "Early": "quick",
    "Hit": "outcome",
    "Memo": "memo",
    "Report": "report",
    "Session": "session",
    "Stats": "outcome",
    "Summary": "outcome",
    "leave_only": "quick",
    "open_session": "session",
    "quick_hit": "quick",
    "quick_replay": "quick",
}

__all__ = [
    "DIRNAME",
    "Early",
    "Hit",
    "Memo",
    "Report",
    "Session",
    "Stats",
    "Summary",
    "leave_only",
    "open_session",
    "quick_hit",
    "quick_replay",
]


def __getattr__(name: str) -> Any:
    module = _LATER.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
