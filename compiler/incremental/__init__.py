"""Every build made from the last one, beneath the pipeline: the build cache in
`<project>/.skillc-cache/` (replay a current build, memoise per-file work) and the edit build
(edit.py), which `skillc build` makes from the cache and `build --watch` from the last build it
keeps (`Kept`, `rebuild`). It never imports the pipeline or the command line.

The pipeline uses the cache through one door, `Session` (session.py, which also states the
guarantee and its limits), and its front step, `quick_replay` (quick.py: a no-op proven before the
config is parsed); between the two, `edit_build`. Storage (store.py) is apart from policy
(session.py, quick.py, records.py, memo.py).

The front step loads alone: the door, the memo, the edit build and what they need (the model, the
stages) are imported on first use (`__getattr__`), so a no-op build never loads them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .carry import Found as Found
    from .edit import (
        Edited as Edited,
    )
    from .edit import (
        Kept as Kept,
    )
    from .edit import (
        Rebuilt as Rebuilt,
    )
    from .edit import (
        ahead as ahead,
    )
    from .edit import (
        edit_build as edit_build,
    )
    from .edit import (
        kept as kept,
    )
    from .edit import (
        rebuild as rebuild,
    )
    from .memo import Memo as Memo
    from .outcome import Hit as Hit
    from .outcome import Stats as Stats
    from .outcome import Summary as Summary
    from .quick import Early as Early
    from .quick import quick_hit as quick_hit
    from .quick import quick_replay as quick_replay
    from .report import Report as Report
    from .session import Session as Session
    from .session import open_session as open_session
    from .store import DIRNAME as DIRNAME

# Each name by its module, imported on first use.
_LATER = {
    name: module
    for module, names in (
        ("carry", "Found"),
        ("edit", "Edited Kept Rebuilt ahead edit_build kept rebuild"),
        ("memo", "Memo"),
        ("outcome", "Hit Stats Summary"),
        ("quick", "Early quick_hit quick_replay"),
        ("report", "Report"),
        ("session", "Session open_session"),
        ("store", "DIRNAME"),
    )
    for name in names.split()
}


def __getattr__(name: str) -> Any:
    module = _LATER.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
