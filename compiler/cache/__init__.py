"""The build cache in `<project>/.skillc-cache/`: replay a current build, memoise per-file work.

The pipeline uses it through one door, `Session` (session.py, which also states the guarantee and
its limits). Storage (store.py) is apart from policy (session.py, records.py, memo.py).
"""

from .codec import Report
from .memo import Memo, Stats
from .session import Hit, Session, open_session
from .store import DIRNAME

__all__ = ["DIRNAME", "Hit", "Memo", "Report", "Session", "Stats", "open_session"]
