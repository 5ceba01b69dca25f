"""The import graph of `compiler/`: no cycle, deferred imports included (docs/architecture.md).

Every import statement of every module is read, at any depth: at the top, in a function (deferred
for start-up cost), under `if TYPE_CHECKING:`, relative or absolute. An import deferred into a
function breaks a cycle for the interpreter, not for the reader of the code, so it is an edge like
any other. `from . import x` is an edge to the module `x` when `x` is one, else to the package.

A package's `__init__.py` is a module like any other: importing `a.b` runs `a/__init__.py` first,
but that is no edge of the importer's (a package whose `__init__` imports its own submodules would
otherwise be a cycle with each of them). Imports spelled as strings (`importlib.import_module`) are
not seen; the lazy names of a package's `__init__` are listed under `TYPE_CHECKING` for mypy, and
so are read here.
"""

from __future__ import annotations

import ast
import functools
import itertools
from collections.abc import Iterator, Mapping
from pathlib import Path

COMPILER = Path(__file__).resolve().parents[2] / "compiler"
PACKAGE = "skillc"

# module -> {imported module -> the line of the first import of it}
Graph = Mapping[str, Mapping[str, int]]


def modules(root: Path, package: str = PACKAGE) -> dict[str, tuple[Path, bool]]:
    """Every module below `root` by its dotted name, with its file and whether it is a package."""
    found: dict[str, tuple[Path, bool]] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        name = ".".join([package, *(parts[:-1] if is_package else parts)])
        found[name] = (path, is_package)
    return found


def _target(importer: str, is_package: bool, level: int, module: str | None) -> str:
    """The module a `from` import names: relative to the importer's package when `level` > 0."""
    if not level:
        return module or ""
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, *([module] if module else [])])


def _imported(node: ast.AST, importer: str, is_package: bool, known: Mapping[str, object]) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom):
        target = _target(importer, is_package, node.level, node.module)
        for alias in node.names:
            sub = f"{target}.{alias.name}"
            yield sub if sub in known else target


def graph(root: Path = COMPILER, package: str = PACKAGE) -> dict[str, dict[str, int]]:
    """Each module -> the modules of the package it imports, anywhere in its file."""
    known = modules(root, package)
    edges: dict[str, dict[str, int]] = {}
    for name, (path, is_package) in known.items():
        out = edges.setdefault(name, {})
        for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
            for target in _imported(node, name, is_package, known):
                if target != name and target in known:
                    out.setdefault(target, getattr(node, "lineno", 0))
    return edges


def components(edges: Graph) -> list[list[str]]:
    """The strongly connected components of more than one module, each sorted (Tarjan's algorithm,
    iterative): the modules that import each other, some of them through others."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(edges.get(succ, ())))))
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return sorted(found)


def cycles(edges: Graph) -> list[list[str]]:
    """A shortest cycle through each component, as the modules in import order, the first repeated
    at the end."""
    return [_cycle_in(edges, set(c)) for c in components(edges)]


def _cycle_in(edges: Graph, component: set[str]) -> list[str]:
    """A shortest cycle through the component's first module, by a breadth-first search."""
    first = min(component)
    came: dict[str, str] = {}
    frontier = [first]
    while frontier:
        nxt = []
        for node in frontier:
            for succ in sorted(edges[node]):
                if succ == first:
                    path = [node]
                    while path[-1] != first:
                        path.append(came[path[-1]])
                    return [*reversed(path), first]
                if succ in component and succ not in came:
                    came[succ] = node
                    nxt.append(succ)
        frontier = nxt
    raise AssertionError(f"no cycle in {sorted(component)}")  # a component of two or more has one


def described(edges: Graph, root: Path, component: list[str]) -> str:
    """The component's modules, then a cycle through them with the line of each import."""
    known = modules(root)
    cycle = _cycle_in(edges, set(component))
    steps = [
        f"    {a} -> {b}  ({known[a][0].relative_to(root.parent)}:{edges[a][b]})"
        for a, b in itertools.pairwise(cycle)
    ]
    return "\n".join([f"  {', '.join(component)}:", *steps])


@functools.cache
def _compiler() -> Graph:
    return graph()


def test_compiler_has_no_import_cycle() -> None:
    edges = _compiler()
    found = components(edges)
    assert not found, "import cycles in compiler/:\n" + "\n".join(
        described(edges, COMPILER, c) for c in found
    )


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


INCREMENTAL = "skillc.incremental"
ABOVE_IT = ("skillc.pipeline", "skillc.cli")  # what asks the incremental package to build


def test_the_incremental_package_never_calls_up() -> None:
    """The cache, the edit build and the delta build sit beneath the pipeline: it asks them, they
    never import it or the command line (what they need of a build comes down to them as values)."""
    edges = _compiler()
    up = sorted(
        f"{a} -> {b}"
        for a, out in edges.items()
        if _in(a, INCREMENTAL)
        for b in out
        if any(_in(b, above) for above in ABOVE_IT)
    )
    assert up == []


def test_only_the_pipeline_and_the_command_line_ask_the_incremental_package() -> None:
    edges = _compiler()
    askers = {
        a for a, out in edges.items() if not _in(a, INCREMENTAL) and any(_in(b, INCREMENTAL) for b in out)
    }
    assert askers and all(any(_in(a, above) for above in ABOVE_IT) for a in askers), sorted(askers)


# --- the reading itself, on packages made here ---------------------------------------------------


def _package(tmp_path: Path, files: Mapping[str, str]) -> Path:
    root = tmp_path / "pkg"
    for rel, text in {"__init__.py": "", **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_a_cycle_held_apart_by_a_deferred_import_is_found(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "a.py": "from .b import thing\n",
            "b.py": "def thing():\n    from . import a  # deferred: the interpreter runs it\n",
            "c.py": "from .a import thing\n",
        },
    )
    assert cycles(graph(root)) == [["skillc.a", "skillc.b", "skillc.a"]]


def test_type_checking_and_absolute_imports_are_edges(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "low/__init__.py": "",
            "low/x.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from skillc.high import H\n",
            "high.py": "from .low.x import X\n",
        },
    )
    edges = graph(root)
    assert edges["skillc.low.x"] == {"skillc.high": 3}
    assert cycles(edges) == [["skillc.high", "skillc.low.x", "skillc.high"]]


def test_from_a_package_import_a_module_is_an_edge_to_that_module(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "sub/__init__.py": "NAME = 1\n",
            "sub/one.py": "from .. import top\n",
            "sub/two.py": "from . import NAME, one\n",
            "top.py": "from .sub import two\n",
        },
    )
    edges = graph(root)
    assert set(edges["skillc.sub.two"]) == {"skillc.sub", "skillc.sub.one"}
    assert cycles(edges) == [["skillc.sub.one", "skillc.top", "skillc.sub.two", "skillc.sub.one"]]


def test_a_package_init_importing_its_own_modules_is_no_cycle(tmp_path: Path) -> None:
    root = _package(tmp_path, {"sub/__init__.py": "from .one import f\n", "sub/one.py": "def f(): ...\n"})
    assert cycles(graph(root)) == []
