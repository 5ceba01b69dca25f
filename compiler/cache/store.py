"""Cache storage: where it lives, the per-user signing key, and HMAC-signed JSON files.

Policy (what is kept, when it is trusted) is in session.py; this module only stores and checks bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
from pathlib import Path
from typing import Any

import orjson

from .. import fs
from ..names.paths import CACHE_DIRNAME

DIRNAME = CACHE_DIRNAME  # below the project root; never an output, never an input (paths.py)
FILE_CAP = 1 << 30  # a cache file larger than this is foreign: never read into memory
KEY_CAP = 4096
_MAGIC = b"skillc-cache/1 "


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


def _mac(key: bytes, name: str, payload: bytes | memoryview) -> bytes:
    # The file name is signed too, so a memo cannot pass for a build record.
    mac = hmac.new(key, name.encode() + b"\0", hashlib.sha256)
    mac.update(payload)
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
    try:
        return orjson.loads(payload)
    except orjson.JSONDecodeError:
        return None


def write_signed(directory: Path, name: str, key: bytes, data: Any) -> None:
    """Atomically replace a cache file; failures are ignored (a cache is optional)."""
    tmp = directory / f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    try:
        payload = orjson.dumps(data)
        fs.ensure_dir(directory, ignore_all=True)
        with fs.interrupt_deferred():  # Ctrl-C never leaves a temporary file behind
            # O_EXCL|O_NOFOLLOW: a symlink planted at the name is never written through.
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | fs.O_NOFOLLOW | fs.O_CLOEXEC, 0o600)
            with os.fdopen(fd, "wb") as fh:  # the payload (megabytes) goes out as it is: never copied
                fh.write(_MAGIC + _mac(key, name, payload) + b"\n")
                fh.write(payload)
            os.replace(tmp, directory / name)
    except (OSError, TypeError):
        with contextlib.suppress(OSError):
            tmp.unlink()
