"""The compiler's `dataclass`, `field`, `fields`, `replace` and `asdict`, made without `dataclasses`.

Kept for what it saves (issue 43): on CPython 3.11 `dataclasses.dataclass` compiles a class's
methods with six calls of `exec`, 1.1 ms a class against 35 us here; an edit build imports 66
classes, and took 40-70 ms more CPU with `dataclasses` (10,000 x 12: 0.10x of a full build became
about 0.13x). Re-measure on each newer Python. Here a class costs tens of microseconds: equality,
hashing, ordering, repr and the frozen guard are shared functions over the class's field names, and
`__init__`, the one method whose speed a build feels (a full build makes 10,000 Skills), is
compiled at a class's first construction, as the same code `dataclasses` writes.

Type checkers see `dataclasses`' own names (the TYPE_CHECKING branch), so mypy checks every record
as a dataclass. tests/unit/test_dataclass.py holds each behaviour to `dataclasses` on the same
class bodies. Supported is what the compiler uses: `@dataclass` and `@dataclass(frozen=, eq=,
order=)`; `field(default=, default_factory=, compare=, repr=)`; `ClassVar` annotations (not
fields); a record that extends another; `__post_init__`. The reader keeps its own smaller one
(reader/record.py): it is vendored into applications without the compiler.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import FrozenInstanceError as FrozenInstanceError
    from dataclasses import asdict as asdict
    from dataclasses import dataclass as dataclass
    from dataclasses import field as field
    from dataclasses import fields as fields
    from dataclasses import replace as replace

_MISSING: Any = type("_Missing", (), {"__repr__": lambda self: "MISSING"})()
_FIELDS = "__skillc_fields__"  # a record class's Field tuple, bases' fields first


class Field:
    """One field of a record: its name and what `field()` said of it."""

    __slots__ = ("compare", "default", "default_factory", "name", "repr")

    def __init__(self, default: Any, default_factory: Any, compare: bool, repr: bool) -> None:
        self.name = ""
        self.default, self.default_factory, self.compare, self.repr = default, default_factory, compare, repr

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r}, compare={self.compare})"


class _FrozenInstanceError(AttributeError):
    """An attempt to set or delete a field of a frozen record (as dataclasses.FrozenInstanceError)."""


def _field(
    *, default: Any = _MISSING, default_factory: Any = _MISSING, compare: bool = True, repr: bool = True
) -> Any:
    if default is not _MISSING and default_factory is not _MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory, compare, repr)


def _dataclass(cls: Any = None, /, *, frozen: bool = False, eq: bool = True, order: bool = False) -> Any:
    def wrap(cls: Any) -> Any:
        return _process(cls, frozen, eq, order)

    return wrap if cls is None else wrap(cls)


def _process(cls: Any, frozen: bool, eq: bool, order: bool) -> Any:
    if order and not eq:
        raise ValueError("eq must be true if order is true")
    found = _collect(cls)
    setattr(cls, _FIELDS, found)
    names = tuple(f.name for f in found)
    setattr(cls, "__match_args__", names)  # noqa: B010 (an attribute mypy would refuse)
    cls.__init__ = _first_init(cls, frozen)
    key = _getter(tuple(f.name for f in found if f.compare))
    own = cls.__dict__
    if "__repr__" not in own:
        cls.__repr__ = _repr(cls, tuple(f.name for f in found if f.repr))
    if eq:
        if "__eq__" not in own:
            cls.__eq__ = _compare(cls, key, "__eq__")
        if "__hash__" not in own or own["__hash__"] is None:  # a class body with __eq__ sets it to None
            cls.__hash__ = _hash(cls, key) if frozen else None
    if order:
        for name in ("__lt__", "__le__", "__gt__", "__ge__"):
            if name in own:
                raise TypeError(f"cannot overwrite attribute {name} in class {cls.__name__}")
            setattr(cls, name, _compare(cls, key, name))
    if frozen:
        _freeze(cls, frozenset(names))
    return cls


def _collect(cls: Any) -> tuple[Field, ...]:
    """Bases' fields first, then the class's own annotations in order (an own one replaces a base's)."""
    found: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for f in base.__dict__.get(_FIELDS, ()):
            found[f.name] = f
    # The class's own annotations, read directly: inspect.get_annotations would import inspect.
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():  # noqa: RUF063
        if _is_classvar(annotation):
            continue
        value = cls.__dict__.get(name, _MISSING)
        if isinstance(value, Field):
            made = value
            if made.default is _MISSING:
                delattr(cls, name)  # as dataclasses: no class attribute stands in for a missing value
            else:
                setattr(cls, name, made.default)
        else:
            made = Field(value, _MISSING, True, True)
        made.name = name
        found[name] = made
    defaulted = False
    for f in found.values():
        if f.default is not _MISSING or f.default_factory is not _MISSING:
            defaulted = True
        elif defaulted:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
    return tuple(found.values())


def _is_classvar(annotation: Any) -> bool:
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar", "t.ClassVar"))


def _getter(names: tuple[str, ...]) -> Any:
    """The tuple of these fields' values, as dataclasses' generated methods compare them."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _first_init(cls: Any, frozen: bool) -> Any:
    """__init__ until the first construction: compiles the real one (0.1-0.2 ms) and puts it in its
    place. A class never constructed in a process (most, in an edit build) compiles nothing."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        real = _compile_init(cls, frozen)
        cls.__init__ = real
        real(self, *args, **kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _compile_init(cls: Any, frozen: bool) -> Any:
    """The __init__ dataclasses would write: each field set in order, defaults and factories."""
    env: dict[str, Any] = {"_MISSING": _MISSING, "_set": object.__setattr__}
    params, lines = [], []
    for f in getattr(cls, _FIELDS):
        name = f.name
        value = name
        if f.default_factory is not _MISSING:
            env[f"_factory_{name}"] = f.default_factory
            params.append(f"{name}=_MISSING")
            value = f"_factory_{name}() if {name} is _MISSING else {name}"
        elif f.default is not _MISSING:
            env[f"_default_{name}"] = f.default
            params.append(f"{name}=_default_{name}")
        else:
            params.append(name)
        lines.append(f"_set(_self_, {name!r}, {value})" if frozen else f"_self_.{name} = {value}")
    if hasattr(cls, "__post_init__"):
        lines.append("_self_.__post_init__()")
    body = "\n".join(f"    {line}" for line in lines or ["pass"])
    exec(f"def __init__(_self_, {', '.join(params)}):\n{body}\n", env)
    made = env["__init__"]
    made.__qualname__ = f"{cls.__qualname__}.__init__"
    return made


def _repr(cls: Any, shown: tuple[str, ...]) -> Any:
    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({inner})"

    __repr__.__qualname__ = f"{cls.__qualname__}.__repr__"
    return __repr__


_OPERATORS: dict[str, Any] = {
    "__eq__": lambda a, b: a == b,
    "__lt__": lambda a, b: a < b,
    "__le__": lambda a, b: a <= b,
    "__gt__": lambda a, b: a > b,
    "__ge__": lambda a, b: a >= b,
}


def _compare(cls: Any, key: Any, name: str) -> Any:
    op = _OPERATORS[name]

    def method(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return op(key(self), key(other))
        return NotImplemented

    method.__name__, method.__qualname__ = name, f"{cls.__qualname__}.{name}"
    return method


def _hash(cls: Any, key: Any) -> Any:
    def __hash__(self: Any) -> int:
        return hash(key(self))

    __hash__.__qualname__ = f"{cls.__qualname__}.__hash__"
    return __hash__


def _freeze(cls: Any, names: frozenset[str]) -> None:
    if "__setattr__" in cls.__dict__ or "__delattr__" in cls.__dict__:
        raise TypeError(f"cannot overwrite __setattr__ or __delattr__ in frozen class {cls.__name__}")

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise _FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise _FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    cls.__setattr__, cls.__delattr__ = __setattr__, __delattr__


def _fields(record: Any) -> tuple[Field, ...]:
    try:
        found: tuple[Field, ...] = getattr(record, _FIELDS)
    except AttributeError:
        raise TypeError("must be called with a dataclass type or instance") from None
    return found


def _replace(record: Any, /, **changes: Any) -> Any:
    """A copy of `record` with `changes`, through its __init__ (as dataclasses.replace)."""
    for f in _fields(record):
        if f.name not in changes:
            changes[f.name] = getattr(record, f.name)
    return record.__class__(**changes)


def _asdict(record: Any) -> Any:
    """The record as nested dicts, lists and tuples, the leaves deep-copied (as dataclasses.asdict)."""
    if not hasattr(type(record), _FIELDS):
        raise TypeError("asdict() should be called on dataclass instances")
    return _inner(record)


def _inner(value: Any) -> Any:
    if hasattr(type(value), _FIELDS):
        return {f.name: _inner(getattr(value, f.name)) for f in getattr(value, _FIELDS)}
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a named tuple keeps its type
        return type(value)(*[_inner(v) for v in value])
    if isinstance(value, (list, tuple)):
        return type(value)(_inner(v) for v in value)
    if isinstance(value, dict):
        return type(value)((_inner(k), _inner(v)) for k, v in value.items())
    import copy  # only for asdict, which only review uses

    return copy.deepcopy(value)


if not TYPE_CHECKING:
    dataclass, field, fields, replace, asdict = _dataclass, _field, _fields, _replace, _asdict
    FrozenInstanceError = _FrozenInstanceError
