"""orjson, the compiler's JSON writer (and its reader once imported), imported with Ctrl-C held back.

A KeyboardInterrupt raised while orjson's compiled module sets itself up (it imports uuid,
dataclasses and datetime then) crashes the interpreter with SIGSEGV: orjson 3.13 on CPython 3.11,
about one Ctrl-C in four of those that land in its 20-30 ms import, where skillc promises exit 130
(docs/cli.md). Every module takes orjson from here; a Ctrl-C pressed meanwhile waits in the signal
mask and arrives right after the import, as the KeyboardInterrupt the command line handles.
"""

from __future__ import annotations

import signal

_held = (
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if hasattr(signal, "pthread_sigmask") else None
)
try:
    import orjson as orjson
finally:
    if _held is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, _held)
