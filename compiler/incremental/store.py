"""Cache storage: where it lives, the per-user signing key, and HMAC-signed JSON files.

A signed file is `skillc-cache/2 <hmac>\n`, then the payload the HMAC covers: the JSON's length
and a newline, the JSON, and the file's raw sections. A top-level value of bytes (packed integers,
long text) is written as a raw section, after the JSON, instead of inside it: base64 and JSON string
escapes cost more than the rest of reading or writing such a value (walk.json's stat data: 5 ms of
an edit build's decoding). The JSON's "$raw" lists the sections, [key, length] in order, and a read
puts each back under its key as a read-only memoryview of the file's bytes, not a copy: a copy is
another buffer of megabytes for the process to fill (packed.py reads either).

Policy (what is kept, when it is trusted) is in session.py; this module only stores and checks bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import sys
from pathlib import Path
from typing import Any

from .. import fs
from ..names.paths import CACHE_DIRNAME

DIRNAME = CACHE_DIRNAME  # below the project root; never an output, never an input (paths.py)
FILE_CAP = 1 << 30  # a cache file larger than this is foreign: never read into memory
KEY_CAP = 4096
_MAGIC = b"skillc-cache/2 "
_RAW = "$raw"  # the JSON key listing the raw sections
_BYTES = (bytes, bytearray, memoryview)


def key_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG spec: a relative value is invalid and must be ignored
        base = str(Path.home() / ".cache")
    return Path(base) / "skillc" / "key"


def load_key() -> bytes | None:
    """The HMAC key, created on first use; None (cache off) when that fails.

    Read only from a regular file, at most KEY_CAP bytes: a FIFO or a device
    planted there turns the cache off instead of hanging the build.
    """
    try:
        path = key_path()
        try:
            data = fs.read_regular(path, KEY_CAP)
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | fs.O_NOFOLLOW, 0o600)
            except FileExistsError:  # another build made it first
                data = fs.read_regular(path, KEY_CAP)
            else:
                data = os.urandom(32)  # what secrets.token_bytes is; secrets costs a no-op its import
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
        return data if len(data) >= 16 else None
    except (OSError, RuntimeError):  # RuntimeError: no home directory
        return None


def _mac(key: bytes, name: str, *parts: bytes | bytearray | memoryview) -> bytes:
    # The file name is signed too, so a memo cannot pass for a build record.
    mac = hmac.new(key, name.encode() + b"\0", hashlib.sha256)
    for part in parts:
        mac.update(part)
    return mac.hexdigest().encode()


def read_signed(directory: Path, name: str, key: bytes) -> Any:
    """The JSON in a signed cache file, or None when absent, foreign or corrupt."""
    try:  # never through a symlink, never a FIFO or device, never unbounded
        raw = fs.read_regular(directory / name, FILE_CAP, follow=False)
    except OSError:
        return None
    end = raw.find(b"\n")
    head = raw[: max(end, 0)]
    payload = memoryview(raw)[end + 1 :]  # not a copy: walk.json is megabytes
    if (
        end < 0
        or not head.startswith(_MAGIC)
        or not hmac.compare_digest(head[len(_MAGIC) :], _mac(key, name, payload))
    ):
        return None
    return unframe(payload)


def unframe(payload: memoryview) -> Any:
    """The JSON and its raw sections, put back under their keys; None when they do not add up."""
    line = bytes(payload[:24]).find(b"\n")
    try:
        size = int(bytes(payload[:line]), 10) if line > 0 else -1
        if not 0 <= size <= len(payload) - line - 1:
            return None
        start = line + 1 + size
        data = _loads(payload[line + 1 : start])
        raw = data.pop(_RAW, None) if isinstance(data, dict) else None
        if raw is None:
            return data if start == len(payload) else None
        for name, length in raw:
            if (
                not isinstance(name, str)
                or type(length) is not int
                or not 0 <= length <= len(payload) - start
            ):
                return None
            data[name], start = payload[start : start + length], start + length  # a view: no copy
    except (ValueError, TypeError, RecursionError):  # ValueError: JSON's and UTF-8's errors
        return None
    return data if start == len(payload) else None


def _loads(text: memoryview) -> Any:
    """orjson's parse once the build has imported it (to write), else the standard library's: a
    no-op build reads a few files and writes none, and importing orjson (with dataclasses, inspect
    and uuid) would cost it more than orjson's faster parse saves. The two read a signed file alike."""
    fast = sys.modules.get("orjson")
    return fast.loads(text) if fast is not None else json.loads(str(text, "utf-8"))


def frame(data: Any) -> list[bytes | bytearray | memoryview]:
    """The parts the HMAC covers, in order: the JSON's length, the JSON, the raw sections (also
    how latewalk.py's helper frames its answer; `unframe` reads them back)."""
    raw = {k: v for k, v in data.items() if isinstance(v, _BYTES)} if isinstance(data, dict) else {}
    if raw:
        data = {k: v for k, v in data.items() if k not in raw}
        data[_RAW] = [[k, memoryview(v).nbytes] for k, v in raw.items()]
    # here: a no-op build writes nothing, and `skillc build` reads before it imports more
    from ..fastjson import orjson

    body = orjson.dumps(data)
    return [b"%d\n" % len(body), body, *raw.values()]


def discard_temporary(directory: Path, pid: int) -> None:
    """Remove the temporary files a process `pid` left in `directory` (`write_signed`'s names): one
    killed while it wrote (aside.py's child, stopped by an interrupt)."""
    with contextlib.suppress(OSError), os.scandir(directory) as entries:
        for entry in entries:
            if entry.name.startswith(".") and entry.name.endswith(".tmp") and f".{pid}." in entry.name:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def write_signed(directory: Path, name: str, key: bytes, data: Any) -> bool:
    """Atomically replace a cache file; whether it was. Failures are otherwise ignored (a cache is
    optional). A top-level value of bytes goes out as a raw section (the module's docstring)."""
    tmp = directory / f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    try:
        parts = frame(data)
        fs.ensure_dir(directory, ignore_all=True)
        with fs.interrupt_deferred():  # Ctrl-C never leaves a temporary file behind
            # O_EXCL|O_NOFOLLOW: a symlink planted at the name is never written through.
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | fs.O_NOFOLLOW | fs.O_CLOEXEC, 0o600)
            with os.fdopen(fd, "wb") as fh:  # the payload (megabytes) goes out as it is: never copied
                fh.write(_MAGIC + _mac(key, name, *parts) + b"\n")
                for part in parts:
                    fh.write(part)
            os.replace(tmp, directory / name)
    except (OSError, TypeError):  # TypeError: data JSON cannot hold (orjson's JSONEncodeError)
        with contextlib.suppress(OSError):
            tmp.unlink()
        return False
    return True
