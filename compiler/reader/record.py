"""Frozen records for the reader's results, without importing `dataclasses`.

`dataclasses` costs about 15 ms to import (it pulls in `inspect`) and a millisecond per class
to generate code: more than the whole rest of a reader cold start. The reader's result types
declare their fields as annotations under `@dataclass(frozen=True)` imported from here, which gives them what the
API promises: keyword or positional construction with defaults, immutability, equality and
hashing by value, a readable repr, pickling. Type checkers see `dataclasses.dataclass(frozen=True)`.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    _T = TypeVar("_T")


class FrozenRecordError(AttributeError):
    """An attempt to change a field of a reader result (like dataclasses.FrozenInstanceError)."""


_MISSING = object()


def _frozen(cls: type[_T]) -> type[_T]:
    """The decorator at run time: fields are the class's own annotations, in order."""
    # The class's own annotations, read directly: inspect.get_annotations would import inspect.
    names = tuple(cls.__dict__.get("__annotations__", {}))  # noqa: RUF063
    defaults = tuple(cls.__dict__.get(n, _MISSING) for n in names)
    set_field = object.__setattr__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(names):
            raise TypeError(f"{cls.__name__}() takes {len(names)} arguments, got {len(args)}")
        for name, value in zip(names, args, strict=False):
            set_field(self, name, value)
        for name, default in zip(names[len(args) :], defaults[len(args) :], strict=True):
            value = kwargs.pop(name, default)
            if value is _MISSING:
                raise TypeError(f"{cls.__name__}() missing argument {name!r}")
            set_field(self, name, value)
        if kwargs:
            raise TypeError(f"{cls.__name__}() got unexpected arguments {sorted(kwargs)}")

    def values(self: Any) -> tuple[Any, ...]:
        return tuple(getattr(self, n) for n in names)

    def __eq__(self: Any, other: object) -> bool:
        return values(self) == values(other) if other.__class__ is self.__class__ else NotImplemented

    def __hash__(self: Any) -> int:
        return hash(values(self))

    def __repr__(self: Any) -> str:
        return f"{cls.__qualname__}(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in names) + ")"

    def __setattr__(self: Any, name: str, value: Any) -> None:
        raise FrozenRecordError(f"cannot assign to field {name!r}: {cls.__name__} is frozen")

    def __delattr__(self: Any, name: str) -> None:
        raise FrozenRecordError(f"cannot delete field {name!r}: {cls.__name__} is frozen")

    def __reduce__(self: Any) -> tuple[Any, ...]:
        return (cls, values(self))

    for method in (__init__, __eq__, __hash__, __repr__, __setattr__, __delattr__, __reduce__):
        method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
        setattr(cls, method.__name__, method)
    setattr(cls, "__match_args__", names)  # noqa: B010 (a class attribute mypy would refuse)
    return cls


if TYPE_CHECKING:
    from dataclasses import dataclass as dataclass  # re-exported: mypy checks the records as dataclasses
else:

    def dataclass(*, frozen: bool = True) -> Any:
        """`@dataclass(frozen=True)` at run time: only frozen records are made here."""
        if not frozen:
            raise TypeError("the reader's records are frozen")
        return _frozen
