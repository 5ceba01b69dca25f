"""The build cache in `<project>/.skillc-cache/`: replay a current build, memoise per-file work.

The pipeline uses it through one door, `Session` (session.py, which also states the guarantee and
its limits), and its front step, `quick_replay` (quick.py: a no-op proven before the config is
parsed). Storage (store.py) is apart from policy (session.py, quick.py, records.py, memo.py).
"""

from .codec import Report
from .memo import Memo, Stats
from .quick import Early, quick_replay
from .session import Hit, Session, open_session, quick_hit
from .store import DIRNAME

__all__ = [
    "DIRNAME",
    "Early",
    "Hit",
    "Memo",
    "Report",
    "Session",
    "Stats",
    "open_session",
    "quick_hit",
    "quick_replay",
]
