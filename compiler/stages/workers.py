"""The process pool's workers: they never outlive the build that started them.

Ctrl-C in a terminal sends SIGINT to the whole process group. Workers ignore it, so none prints a
KeyboardInterrupt traceback; the parent alone handles it, stops the pool and kills its workers
(`stop`), and exits 130. A parent killed outright (`kill -9`) cannot stop anything, so every worker
watches its parent: on Linux the kernel signals it (PR_SET_PDEATHSIG), elsewhere a thread polls the
parent's pid; either way the worker exits and releases the stdout and stderr it inherited.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_POLL_SECONDS = 0.5


def start(parent: int) -> None:
    """A worker's initializer. parent: the pid of the process that created the pool."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if not _die_with_parent():
        threading.Thread(target=_watch, args=(parent,), daemon=True, name="skillc-parent-watch").start()
    if os.getppid() != parent:  # the parent died before the watch began
        os._exit(1)


def _die_with_parent() -> bool:
    """Ask the Linux kernel to SIGKILL this process when its parent dies; False where it cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_POLL_SECONDS)
    os._exit(1)


def stop(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now: queued work cancelled, running workers killed, without waiting for them.

    shutdown(wait=True), what `with` does, would wait for every chunk in flight to finish."""
    processes = list(getattr(pool, "_processes", None) or {})  # pids; private, hence the fallback
    pool.shutdown(wait=False, cancel_futures=True)
    for pid in processes:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
