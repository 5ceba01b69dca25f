"""orjson, the compiler's JSON writer (and its reader once imported), imported with Ctrl-C deferred.

A KeyboardInterrupt raised while orjson's compiled module sets itself up (it imports uuid,
dataclasses and datetime then) crashes the interpreter with SIGSEGV: orjson 3.13 on CPython 3.11,
about one Ctrl-C in four of those that land in its 20-30 ms import, where skillc promises exit 130
(docs/cli.md). Every module takes orjson from here; a Ctrl-C meanwhile is recorded by a handler of
the main thread's (whichever thread the signal reached: `build --watch` has a notifier thread) and
raised right after the import, as the KeyboardInterrupt the command line handles. Kept with orjson
(issue 43): a full build at 10,000 x 12 spends 0.56 s more CPU with `json`; the deferral, 12 us.
"""

from __future__ import annotations

from .fs import interrupt_deferred

with interrupt_deferred():
    import orjson as orjson
