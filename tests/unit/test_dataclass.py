"""skillc.dataclass against the standard library's dataclasses, on the same class bodies."""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any, ClassVar

import pytest

from skillc import dataclass as ours


@ours.dataclass(frozen=True)
class Kept:
    n: int
    names: tuple[str, ...] = ()


def _both(body: Any, **options: Any) -> tuple[Any, Any]:
    """The class `body` makes, decorated once by each implementation."""
    return ours.dataclass(**options)(body()), dataclasses.dataclass(**options)(body())


def _point() -> type:
    class Point:
        """A point."""

        x: int
        y: int = 0
        tags: tuple[str, ...] = ()
        seen: list[int] = ours.field(default_factory=list, compare=False, repr=False)
        kind: ClassVar[str] = "point"

    return Point


def _point_std() -> type:
    class Point:
        """A point."""

        x: int
        y: int = 0
        tags: tuple[str, ...] = ()
        seen: list[int] = dataclasses.field(default_factory=list, compare=False, repr=False)
        kind: ClassVar[str] = "point"

    return Point


@pytest.mark.parametrize("frozen", [True, False])
def test_construction_equality_and_repr_are_the_standard_librarys(frozen: bool) -> None:
    mine = ours.dataclass(frozen=frozen)(_point())
    std = dataclasses.dataclass(frozen=frozen)(_point_std())
    for args, kwargs in [((1,), {}), ((1, 2), {}), ((1,), {"tags": ("a",)}), ((), {"x": 3, "y": 4})]:
        a, b = mine(*args, **kwargs), std(*args, **kwargs)
        assert repr(a).partition("Point")[1:] == repr(b).partition("Point")[1:]
        assert (a.x, a.y, a.tags, a.seen) == (b.x, b.y, b.tags, b.seen)
        assert a == mine(*args, **kwargs)
        assert a != mine(99)
    assert mine(1).seen is not mine(1).seen  # a factory per instance
    assert mine(1, seen=[1]) == mine(1, seen=[2])  # compare=False
    assert [f.name for f in ours.fields(mine)] == [f.name for f in dataclasses.fields(std)]
    assert mine.__match_args__ == std.__match_args__
    assert mine.kind == "point" and "kind" not in [f.name for f in ours.fields(mine)]
    with pytest.raises(TypeError):
        mine()  # x is required
    with pytest.raises(TypeError):
        mine(1, nope=2)


def test_frozen_records_hash_by_value_and_refuse_changes() -> None:
    Point = ours.dataclass(frozen=True)(_point())
    Std = dataclasses.dataclass(frozen=True)(_point_std())
    a = Point(1, 2, ("t",))
    assert hash(a) == hash(Point(1, 2, ("t",))) == hash(Std(1, 2, ("t",)))
    with pytest.raises(AttributeError, match="cannot assign to field 'x'"):
        a.x = 5  # type: ignore[misc]
    with pytest.raises(AttributeError, match="cannot delete field 'x'"):
        del a.x  # type: ignore[misc]
    kept = Kept(1, ("a",))
    assert pickle.loads(pickle.dumps(kept)) == kept  # as a forked worker sends them back


def test_mutable_records_are_unhashable_as_the_standard_librarys() -> None:
    Point = ours.dataclass(_point())
    Std = dataclasses.dataclass(_point_std())
    assert Point.__hash__ is None and Std.__hash__ is None
    p = Point(1)
    p.x = 7
    assert p == Point(7)


def test_eq_false_keeps_identity() -> None:
    Point = ours.dataclass(frozen=True, eq=False)(_point())
    assert Point(1) != Point(1)
    assert Point.__hash__ is object.__hash__  # identity, as dataclasses leaves it


def test_order_compares_the_fields_in_order() -> None:
    def body() -> type:
        class Key:
            a: int
            b: str

        return Key

    Mine, Std = _both(body, frozen=True, order=True)
    pairs = [(1, "b"), (1, "a"), (0, "z"), (2, "a")]
    assert [(k.a, k.b) for k in sorted(Mine(*p) for p in pairs)] == [
        (k.a, k.b) for k in sorted(Std(*p) for p in pairs)
    ]
    assert Mine(1, "a") <= Mine(1, "a") and Mine(2, "a") > Mine(1, "z")
    with pytest.raises(TypeError):
        _ = Mine(1, "a") < Std(1, "a")


def test_a_record_that_extends_another_has_the_bases_fields_first() -> None:
    @ours.dataclass(frozen=True)
    class Base:
        a: int
        b: str = "b"

    @ours.dataclass(frozen=True)
    class Child(Base):
        c: int = 3

    c = Child(1)
    assert (c.a, c.b, c.c) == (1, "b", 3)
    assert [f.name for f in ours.fields(Child)] == ["a", "b", "c"]
    assert (
        repr(c)
        == "test_a_record_that_extends_another_has_the_bases_fields_first.<locals>.Child(a=1, b='b', c=3)"
    )
    assert c != Base(1)  # another class: not equal, as dataclasses
    assert Base(1) == Base(1)


def test_replace_and_asdict_are_the_standard_librarys() -> None:
    Point = ours.dataclass(frozen=True)(_point())
    Std = dataclasses.dataclass(frozen=True)(_point_std())
    a = Point(1, 2, ("x",))
    b = ours.replace(a, y=5)
    assert (b.x, b.y, b.tags) == (1, 5, ("x",)) and a.y == 2
    with pytest.raises(TypeError):
        ours.replace(a, nope=1)
    assert ours.asdict(a) == dataclasses.asdict(Std(1, 2, ("x",)))

    @ours.dataclass(frozen=True)
    class Outer:
        inner: tuple[Any, ...]
        by: dict[str, Any]

    assert ours.asdict(Outer((a,), {"k": [a]})) == {
        "inner": (ours.asdict(a),),
        "by": {"k": [ours.asdict(a)]},
    }
    with pytest.raises(TypeError):
        ours.asdict(1)
    with pytest.raises(TypeError):
        ours.fields(1)


def test_post_init_runs_after_the_fields_are_set() -> None:
    @ours.dataclass
    class Counted:
        n: int
        double: int = 0

        def __post_init__(self) -> None:
            self.double = self.n * 2

    assert Counted(4).double == 8


def test_a_default_before_a_required_field_is_refused() -> None:
    class Bad:
        a: int = 1
        b: int

    with pytest.raises(TypeError, match="non-default argument 'b'"):
        ours.dataclass(Bad)


def test_no_record_of_the_compiler_is_made_by_the_standard_librarys_dataclasses() -> None:
    """The point of the module: a compiler module that imported `dataclasses`' decorator again would
    pay its cost at every start. Every module of the package is imported and its classes checked."""
    import importlib
    import pkgutil

    import skillc

    made = []
    for info in pkgutil.walk_packages(skillc.__path__, "skillc."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        made += [
            f"{info.name}.{name}"
            for name, value in vars(module).items()
            if isinstance(value, type) and value.__module__ == info.name and dataclasses.is_dataclass(value)
        ]
    assert made == []


@pytest.mark.parametrize("frozen", [True, False])
def test_the_init_is_compiled_at_the_first_construction(frozen: bool) -> None:
    """The first construction compiles __init__ (the code dataclasses writes); records and errors
    are dataclasses' own."""
    calls = [
        ((1,), {}),
        ((1, 2), {}),
        ((1,), {"tags": ("a",)}),
        ((), {"x": 3, "y": 4, "seen": [5]}),
        ((), {}),
        ((1,), {"nope": 2}),
        ((1,), {"x": 2}),
        ((1, 2, (), [], 5), {}),
        ((), {"y": 1}),
    ]

    def outcomes(cls: type) -> list[object]:
        found: list[object] = []
        for args, kwargs in calls:
            try:
                made = cls(*args, **kwargs)
            except TypeError as exc:
                found.append(str(exc).replace("_std", ""))
            else:
                found.append((made.x, made.y, made.tags, made.seen))
        return found

    made = ours.dataclass(frozen=frozen)(_point())
    assert made.__init__.__code__.co_filename != "<string>"  # nothing compiled before it is used
    assert outcomes(made) == outcomes(dataclasses.dataclass(frozen=frozen)(_point_std()))
    assert made.__init__.__code__.co_filename == "<string>"


def test_post_init_runs() -> None:
    @ours.dataclass(frozen=True)
    class Sized:
        items: tuple[int, ...]

        def __post_init__(self) -> None:
            object.__setattr__(self, "n", len(self.items))

    assert Sized((1, 2)).n == 2  # type: ignore[attr-defined]
    assert Sized((1,)).n == 1  # type: ignore[attr-defined]
