"""The catalog template: loaded once per build through Jinja2, reading regular files only; a
built-in's bytes are rendered by its Python twin instead (builtins.py), without importing Jinja2.

Everything the template includes, imports or extends feeds the build hash (`Template.source`).
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import diagnostics as dg
from .. import fs
from ..dataclass import dataclass
from ..diagnostics import Diagnostic
from ..diagnostics.codes import Code
from ..digests import sha256_hex as sha256
from ..errors import TemplateFailure
from ..format.escape import escape_text
from ..model import Config
from .builtins import Entry, Render, builtin

if TYPE_CHECKING:  # Jinja2 is imported by load_template: an edit build that renders nothing never loads it
    import jinja2


def _guard(fn: Callable[..., Any]) -> Callable[..., str]:
    def call(*args: Any, **kwargs: Any) -> str:
        try:
            return str(fn(*args, **kwargs))
        except Exception as exc:  # a template is the project's code: whatever it raises is its author's error
            raise TemplateFailure(f"{type(exc).__name__}: {exc}") from None

    return call


@dataclass(frozen=True)
class Template:
    render: Callable[..., str]
    entry: Callable[[dict[str, Any]], str]
    suffix: str
    source: bytes
    markup: bool  # .xml/.html: values arrive escaped for text content


def load_template(config: Config) -> tuple[Template | None, tuple[Diagnostic, ...]]:
    path = config.template
    markup = path.name.removesuffix(".j2").endswith(MARKUP_SUFFIXES)
    suffix = Path(path.name.removesuffix(".j2")).suffix or ".txt"
    known = _builtin(path)
    if known is not None:  # a built-in's bytes: rendered by its Python twin, Jinja2 never imported
        source, (render, entry) = known
        return Template(
            _guard(render), _guard(entry), suffix, f"{path.name}\0{sha256(source)}\n".encode(), markup
        ), ()
    import jinja2

    env = jinja2.Environment(
        loader=_regular_file_loader()(str(path.parent)),
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    try:
        sources, problem = _sources(env, path.name)
        if problem:
            return None, (dg.error(config.template_rel, Code.TEMPLATE, problem),)
        template = env.get_template(path.name)
        # The macro lives in the template module; building it renders the
        # body once, so give it an empty but complete context.
        module = template.make_module(
            {"skills": [], "omitted": 0, "budget": 0, "persona": {"id": "", "name": "", "faction": None}}
        )
        entry = module.entry  # type: ignore[attr-defined]
    except jinja2.TemplateSyntaxError as exc:
        return None, (
            dg.error(
                config.template_rel,
                Code.TEMPLATE,
                f"template syntax error: {exc.message}",
                exc.lineno or 1,
                1,
            ),
        )
    except AttributeError as exc:
        return None, (
            dg.error(config.template_rel, Code.TEMPLATE, f"template must define a macro entry(skill): {exc}"),
        )
    except Exception as exc:  # the template body ran with an empty context and raised
        return None, (
            dg.error(config.template_rel, Code.TEMPLATE, f"template failed: {type(exc).__name__}: {exc}"),
        )
    return Template(_guard(template.render), _guard(entry), suffix, sources, markup), ()


TEMPLATE_CAP = 1024 * 1024


def _builtin(path: Path) -> tuple[bytes, tuple[Render, Entry]] | None:
    """The template's bytes and its twin's functions when they are a built-in's (builtins.py)."""
    try:  # as the loader below reads it; a template it cannot read is reported through Jinja2
        source = fs.read_regular(str(path), TEMPLATE_CAP)
    except OSError:
        return None
    made = builtin(source)
    return None if made is None else (source, made)


MARKUP_SUFFIXES = (".xml", ".html", ".htm", ".xhtml")  # values escaped for XML text content


@cache
def _regular_file_loader() -> type[jinja2.FileSystemLoader]:
    import jinja2
    from jinja2.loaders import split_template_path

    class RegularFileLoader(jinja2.FileSystemLoader):
        """FileSystemLoader that reads regular files only, bounded: an included FIFO must not hang a build."""

        def get_source(
            self, environment: jinja2.Environment, template: str
        ) -> tuple[str, str, Callable[[], bool]]:
            filename = posixpath.join(self.searchpath[0], *split_template_path(template))
            try:
                text = fs.read_regular(filename, TEMPLATE_CAP).decode("utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                why = getattr(exc, "strerror", None) or exc
                raise jinja2.TemplateNotFound(f"{template} ({why})") from None
            return text, os.path.normpath(filename), lambda: False

    return RegularFileLoader


def _sources(env: jinja2.Environment, name: str) -> tuple[bytes, str | None]:
    """The template and everything it includes, imports or extends: all of it feeds the build hash."""
    import jinja2
    import jinja2.meta

    seen: dict[str, str] = {}
    todo = [name]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        try:
            seen[current] = env.loader.get_source(env, current)[0]  # type: ignore[union-attr]
            refs = list(jinja2.meta.find_referenced_templates(env.parse(seen[current])))
        except jinja2.TemplateNotFound as exc:
            return b"", f"template {current!r}: not found: {exc}"
        if None in refs:
            return (
                b"",
                f"template {current!r} includes a template by a computed name; skillc must know every file a build depends on",
            )
        todo.extend(r for r in refs if r is not None)
    return "".join(f"{n}\0{sha256(s.encode())}\n" for n, s in sorted(seen.items())).encode(), None


def escape_value(value: Any) -> Any:
    """A template value escaped for XML text content (strings only)."""
    return escape_text(value) if isinstance(value, str) else value
