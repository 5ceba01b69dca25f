"""Load and validate the config (skillc.yaml, or [tool.skillc] in pyproject.toml) into a Config."""

from __future__ import annotations

import json
import os
import posixpath
from pathlib import Path
from typing import Any

from .. import diagnostics as dg
from .. import fs
from ..dataclass import replace
from ..diagnostics import Diagnostic, policy
from ..diagnostics.codes import Code
from ..errors import UsageError
from ..model import (
    DEFAULT_BUDGET,
    DEFAULT_SOURCE_RULES,
    Config,
    DescriptionFallback,
    Document,
    Duplicates,
    FrontmatterRules,
    InputFile,
    Names,
    SourceRules,
    Strategy,
    TargetSetting,
)
from ..names.paths import unsafe_reason
from ..options import DEFAULTS, Options
from ..stages import schema
from ..stages.parse import parse_document
from . import ignorefiles, pyproject

DEFAULT_TEMPLATE = "templates/catalog.xml.j2"
CONFIG_CAP = 1024 * 1024
# The templates shipped with skillc, used when a project has no templates/ of its own.
BUILTIN_TEMPLATES = Path(__file__).resolve().parent.parent / "templates"


def load(path: Path, options: Options = DEFAULTS) -> tuple[Config | None, tuple[Diagnostic, ...]]:
    """The config, with the command line's overrides (`options`) applied; None when it is unusable."""
    strict, skip_invalid, ignore = options.strict, options.skip_invalid, options.ignore
    _check_ignore(ignore)
    path = Path(path)
    try:
        raw = fs.read_regular(path, CONFIG_CAP)
    except FileNotFoundError:
        raise UsageError(f"config file not found: {path}") from None
    except OSError as exc:  # a FIFO or a device is refused before it can block or never end
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    root = path.resolve().parent
    rel = path.name
    doc, raw = _document(rel, raw)
    if doc.data is None:
        return None, doc.diagnostics or (dg.error(rel, Code.CONFIG_SYNTAX, "config is not valid YAML"),)
    if not isinstance(doc.data, dict):
        return None, (*doc.diagnostics, dg.error(rel, Code.CONFIG_SYNTAX, "config must be a mapping"))
    problems = (
        schema.check(doc, doc.data, "config", Code.CONFIG_SCHEMA)
        + _obsolete(doc)
        + _severity_settings(doc)
        + _extensions(doc)
    )
    if problems:
        return None, doc.diagnostics + problems
    config, diags = _build(root, rel, raw, doc, strict)
    diags += _shadowed(path)
    if config is not None:
        skip = config.skip_invalid if skip_invalid is None else skip_invalid
        settings = policy.from_config(config_severities(doc), ignore)
        outer, unreadable = _ignore_outer(config)
        config = replace(
            config,
            skip_invalid=skip,
            verbose=options.verbose,
            severities=settings.codes,
            path_severities=settings.paths,
            ignore_outer=outer,
        )
        diags += unreadable
    return config, diags


def for_folders(source: Path, output: Path, options: Options = DEFAULTS) -> Config:
    """The config of `skillc build SOURCE -o OUTPUT`: no config file, every setting its default,
    one source. The project root is the source's parent and the source's name its label, so its
    skills' paths read `<name>/<command>/SKILL.md` wherever the folder is (a stack's tier names
    that parent as its root, docs/format.md §16). The build hash reads the label alone."""
    _check_ignore(options.ignore)
    here = source.resolve()
    if not here.is_dir():
        raise UsageError(f"{source}: not a folder of skills")
    if not here.name or here.parent == here:
        raise UsageError(f"{source}: a folder of skills needs a name and a parent")
    label = here.name
    template = BUILTIN_TEMPLATES / "catalog.xml.j2"
    settings = policy.from_config({}, options.ignore)
    config = Config(
        root=here.parent,
        config_rel=label,
        sources=(label,),
        personas=None,
        output=str(output.resolve()),
        template=template,
        template_rel=DEFAULT_TEMPLATE,
        strict=bool(options.strict),
        catalog_chars=DEFAULT_BUDGET,
        persona_budgets=(),
        max_resource_bytes=1024 * 1024,
        config_bytes=f"sources: [{label}]\n".encode("utf-8", "surrogateescape"),
        source_dirs=(here,),
        skip_invalid=bool(options.skip_invalid),
        verbose=options.verbose,
        severities=settings.codes,
        path_severities=settings.paths,
    )
    outer, _unreadable = _ignore_outer(config)
    return replace(config, ignore_outer=outer)


def _ignore_outer(config: Config) -> tuple[tuple[ignorefiles.OuterFile, ...], tuple[Diagnostic, ...]]:
    """The ignore files above the sources and personas: read here, so the cache's head key has them."""
    roots = tuple(config.source_dir(i) for i in range(len(config.sources)))
    roots += (config.root / config.personas,) if config.personas else ()
    roots += (config.root / config.knowledge,) if config.knowledge else ()
    outer, problems = ignorefiles.outer_files(config.root, roots)
    return outer, tuple(dg.warning(where, Code.UNREADABLE, why) for where, why in problems)


def _document(rel: str, raw: bytes) -> tuple[Document, bytes]:
    """The config as a located Document, and the bytes the build hashes for it."""
    if rel == pyproject.NAME:
        doc = pyproject.document(rel, raw)
        return doc, pyproject.canonical(dict(doc.data)) if doc.data is not None else raw
    return parse_document(InputFile(rel, raw), frontmatter="whole"), raw


def _shadowed(path: Path) -> tuple[Diagnostic, ...]:
    """skillc.yaml wins over [tool.skillc] in the same folder; the loser is said, at its table."""
    other = path.parent / pyproject.NAME
    if path.name == pyproject.NAME or not other.is_file():
        return ()
    try:
        text = fs.read_regular(other, CONFIG_CAP).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return ()
    if pyproject.table(text) is None:
        return ()
    line, col = pyproject.positions(text).get(("v",), (1, 1))
    return (
        dg.warning(
            pyproject.NAME,
            Code.CONFIG_SHADOWED,
            f"[tool.skillc] is ignored: {path.name} in the same folder is the config; keep one of the two",
            line,
            col,
        ),
    )


def config_severities(doc: Document) -> dict[str, Any]:
    data = doc.data if isinstance(doc.data, dict) else {}
    return dict(data.get("diagnostics") or {})


def _severity_settings(doc: Document) -> tuple[Diagnostic, ...]:
    """Every `diagnostics:` setting must take effect: a typo'd code or an integrity code set to
    warning or ignore is an error where it is written, never a setting that silently does nothing."""
    data = doc.data if isinstance(doc.data, dict) else {}
    table = data.get("diagnostics")
    if not isinstance(table, dict):
        return ()
    found: list[tuple[tuple[Any, ...], Any]] = [
        (("diagnostics", code), level) for code, level in table.items() if code != "per_path"
    ]
    per_path = table.get("per_path")
    for pattern, levels in (per_path if isinstance(per_path, dict) else {}).items():
        if isinstance(levels, dict):
            found += [(("diagnostics", "per_path", pattern, code), level) for code, level in levels.items()]
    problems = []
    for keys, level in found:
        code = keys[-1]
        why = policy.refusal(code, level) if isinstance(code, str) and isinstance(level, str) else None
        if why:
            where = ".".join(map(str, keys[:-1]))
            kind = Code.CONFIG_SCHEMA if code not in dg.CODES else Code.SEVERITY_REFUSED
            problems.append(dg.error(doc.rel, kind, f"{where}: {why}", *doc.key_pos(*keys)))
    return tuple(problems)


def _check_ignore(ignore: tuple[str, ...]) -> None:
    """--ignore follows the rules of `diagnostics:`: a known code, and one that may be lowered."""
    for code in ignore:
        why = policy.refusal(code, "ignore")
        if why:
            raise UsageError(f"--ignore: {why.replace('unknown code', 'unknown diagnostic code')}")


def _build(
    root: Path, rel: str, raw: bytes, doc: Document, strict: bool | None
) -> tuple[Config | None, tuple[Diagnostic, ...]]:
    data: dict[str, Any] = dict(doc.data or {})  # load() made sure it is a mapping
    problems: list[Diagnostic] = list(doc.diagnostics)
    # A source is a path, or a mapping with its path and its discovery rules: the paths from here on.
    entries = data["sources"]
    rules = [_source_rules(s) for s in entries]
    written: list[tuple[str, ...]] = [() if isinstance(s, str) else ("path",) for s in entries]
    data["sources"] = [s if isinstance(s, str) else s["path"] for s in entries]
    for key, value in _paths(data, written):
        # The config is trusted: a source may live outside the project (`~/.claude/skills`).
        reason = (
            _outside_source_reason(value) if key[0] == "sources" and _outside(value) else unsafe_reason(value)
        )
        if reason:
            line, col = doc.pos(*key)
            problems.append(
                dg.error(
                    rel, Code.CONFIG_PATH, f"{'.'.join(map(str, key))}: path {value!r} {reason}", line, col
                )
            )
    # One spelling per path: "src/", "./src" and "src" must give the same index bytes.
    data = {
        **data,
        **{
            k: posixpath.normpath(data[k])
            for k in ("personas", "knowledge", "output", "template")
            if data.get(k)
        },
    }
    labels = [_label(s) for s in data["sources"]]
    kept_at = _kept_positions(doc, labels, written)
    last = {s: i for i, s in enumerate(labels)}
    kept_rules = [r for i, (s, r) in enumerate(zip(labels, rules, strict=True)) if last[s] == i]
    data["sources"], repeated = _unique_sources(rel, doc, labels)
    problems.extend(repeated)
    if data.get("output", "dist") == ".":
        line, col = doc.pos("output")
        problems.append(
            dg.error(
                rel,
                Code.CONFIG_PATH,
                "output must be a directory below the project, not the project itself",
                line,
                col,
            )
        )
    template_rel = data.get("template", DEFAULT_TEMPLATE)
    template = root / template_rel
    if not template.exists() and "template" not in data:
        template = BUILTIN_TEMPLATES / "catalog.xml.j2"
    if not template.is_file():
        line, col = doc.pos("template")
        what = "is not a regular file" if template.exists() else "not found"
        problems.append(dg.error(rel, Code.CONFIG_PATH, f"template {template_rel!r} {what}", line, col))
    if dg.has_errors(problems):
        return None, tuple(problems)
    budgets = data.get("budgets", {})
    res = data.get("resources", {})
    config = Config(
        root=root,
        config_rel=rel,
        sources=tuple(data["sources"]),
        personas=data.get("personas"),
        output=data.get("output", "dist"),
        template=template,
        template_rel=template_rel,
        strict=bool(data.get("strict", False)) if strict is None else strict,
        catalog_chars=budgets.get("catalog_chars", DEFAULT_BUDGET),
        persona_budgets=tuple(sorted(budgets.get("personas", {}).items())),
        max_resource_bytes=res.get("max_bytes", 1024 * 1024),
        config_bytes=raw,
        source_dirs=tuple(_source_dir(root, s) for s in data["sources"]),
        exclude=tuple(res.get("exclude", ())),
        skip_invalid=bool(data.get("skip_invalid", False)),
        symlinks_outside=data.get("follow_symlinks") == "outside",
        budget_strategy=Strategy(budgets.get("strategy", Strategy.DROP)),
        budget_priority=tuple(budgets.get("priority", ())),
        anchors=_anchors(doc, kept_at),
        targets=_targets(data.get("targets")),
        knowledge=data.get("knowledge"),
        frontmatter=_frontmatter(data.get("frontmatter") or {}),
        # every source with the defaults: none kept (a config as it was before the rules existed)
        source_rules=tuple(kept_rules) if any(r != DEFAULT_SOURCE_RULES for r in kept_rules) else (),
    )
    return config, tuple(problems)


def _source_rules(entry: str | dict[str, Any]) -> SourceRules:
    """A `sources:` entry's discovery rules (the schema checked its shape): a plain path has the defaults."""
    if isinstance(entry, str):
        return DEFAULT_SOURCE_RULES
    return SourceRules(
        optional=entry.get("optional", False),
        depth=entry.get("depth"),
        root_skill=entry.get("root_skill", False),
        skip_folders=tuple(entry.get("skip_folders", DEFAULT_SOURCE_RULES.skip_folders)),
        duplicates=Duplicates(entry.get("duplicates", Duplicates.ERROR)),
        git_ignored=entry.get("git_ignored", False),
    )


def _frontmatter(value: dict[str, Any]) -> FrontmatterRules:
    """`frontmatter:` (the schema and `_extensions` checked it)."""
    extensions = value.get("extensions") or {}
    return FrontmatterRules(
        names=Names(value.get("names", Names.LABELS)),
        description_fallback=DescriptionFallback(value.get("description_fallback", DescriptionFallback.NONE)),
        extensions=tuple(
            (field, "" if given is None else json.dumps(given, sort_keys=True, ensure_ascii=False))
            for field, given in sorted(extensions.items())
        ),
    )


def _extensions(doc: Document) -> tuple[Diagnostic, ...]:
    """Each declared extension field: not a field skillc knows already, and a JSON Schema that is
    one (an error where it is written, never a schema that silently passes everything)."""
    data = doc.data if isinstance(doc.data, dict) else {}
    section = data.get("frontmatter")
    declared = section.get("extensions") if isinstance(section, dict) else None
    if not isinstance(declared, dict):
        return ()
    problems = []
    known = schema.properties("frontmatter")
    for field, given in declared.items():
        at = ("frontmatter", "extensions", field)
        if field in known:
            problems.append(
                dg.error(
                    doc.rel,
                    Code.CONFIG_SCHEMA,
                    f"frontmatter.extensions.{field}: {field!r} is a field skillc reads already; "
                    "declare only fields of your own",
                    *doc.key_pos(*at),
                )
            )
            continue
        why = schema.schema_problem(given) if isinstance(given, (dict, bool)) else None
        if why:
            problems.append(
                dg.error(
                    doc.rel,
                    Code.CONFIG_SCHEMA,
                    f"frontmatter.extensions.{field}: not a JSON Schema: {why}",
                    *doc.pos(*at),
                )
            )
    return tuple(problems)


def _targets(value: Any) -> tuple[TargetSetting, ...]:
    """`targets:` as a list of names or a map of name to settings (the schema checked its shape)."""
    if isinstance(value, list):
        return tuple(TargetSetting(name) for name in value)
    return tuple(
        TargetSetting(name, (given or {}).get("window"), (given or {}).get("chars"))
        for name, given in (value or {}).items()
    )


def _kept_positions(
    doc: Document, sources: list[str], written: list[tuple[str, ...]]
) -> list[tuple[int, int]]:
    """Where each source `_unique_sources` keeps is written (a repeated one counts at its last
    place): its path, in a mapping its `path:` value."""
    last = {s: i for i, s in enumerate(sources)}
    return [doc.pos("sources", i, *written[i]) for i, s in enumerate(sources) if last[s] == i]


def _anchors(
    doc: Document, sources: list[tuple[int, int]]
) -> tuple[tuple[tuple[str | int, ...], tuple[int, int]], ...]:
    """The config's positions later stages report at: every key, and each kept source by its index."""
    found: dict[tuple[str | int, ...], tuple[int, int]] = {
        tuple(key[1:]): at for key, at in doc.positions.items() if key[0] == "k" and key[1] != "sources"
    }
    found.update({("sources", i): at for i, at in enumerate(sources)})
    # Every severity setting has a place, even one a pyproject.toml writes in an inline table (its
    # nearest located key): the places tell the config's settings from --ignore (policy.unused).
    table = config_severities(doc)
    keys: list[tuple[str | int, ...]] = [("diagnostics", code) for code in table if code != "per_path"]
    for pattern in table.get("per_path") or {}:
        keys.append(("diagnostics", "per_path", pattern))
    found.update({key: doc.key_pos(*key) for key in keys if key not in found})
    return tuple(sorted(found.items(), key=lambda kv: tuple(map(str, kv[0]))))


def _unique_sources(rel: str, doc: Document, sources: list[str]) -> tuple[list[str], tuple[Diagnostic, ...]]:
    """A source listed twice is one source, at its last (highest-precedence) place; said once, here,
    rather than as every one of its skills overriding itself."""
    last = {s: i for i, s in enumerate(sources)}
    repeated = tuple(
        dg.warning(
            rel,
            Code.SOURCE_REPEATED,
            f"sources: {s!r} is listed more than once; only its last place counts",
            *doc.pos("sources", i),
        )
        for i, s in enumerate(sources)
        if last[s] != i
    )
    return [s for i, s in enumerate(sources) if last[s] == i], repeated


def _paths(data: dict[str, Any], written: list[tuple[str, ...]]) -> list[tuple[tuple[str | int, ...], str]]:
    found: list[tuple[tuple[str | int, ...], str]] = [
        (("sources", i, *written[i]), s) for i, s in enumerate(data["sources"])
    ]
    found += [((k,), data[k]) for k in ("personas", "knowledge", "output", "template") if data.get(k)]
    return found


def _outside(source: str) -> bool:
    return source.startswith(("/", "~"))


def _outside_source_reason(source: str) -> str | None:
    if "\x00" in source:
        return "contains a NUL byte"
    if source.startswith("~") and not (source == "~" or source.startswith("~/")):
        return "names another user's home ('~user'); write '~/...' or an absolute path"
    return None


def _label(source: str) -> str:
    """How the index and diagnostics name a source: as written, normalised, never expanded."""
    if source.startswith("~"):
        rest = source[1:].lstrip("/")
        return "~/" + posixpath.normpath(rest) if rest else "~"
    return posixpath.normpath(source)


def _source_dir(root: Path, label: str) -> Path:
    if label.startswith("~"):
        return Path(os.path.expanduser(label))
    return root / label  # an absolute label stays absolute


def _obsolete(doc: Document) -> tuple[Diagnostic, ...]:
    """Settings that no longer exist: say what replaced them instead of 'unexpected key'."""
    res = doc.data.get("resources") if isinstance(doc.data, dict) else None
    if isinstance(res, dict) and "allowed_extensions" in res:
        line, col = doc.key_pos("resources", "allowed_extensions")
        return (
            dg.error(
                doc.rel,
                Code.CONFIG_SCHEMA,
                "resources.allowed_extensions was removed: every file of a skill is a resource now; "
                "list what to leave out in resources.exclude (gitignore patterns, e.g. ['*.log', 'tmp/'])",
                line,
                col,
            ),
        )
    return ()


def side_files(config: Config, template_source: bytes) -> list[str]:
    """Every file the config side of a build reads or looks for, besides the inputs: the config,
    `pyproject.toml` beside it, the default template's place and the template with each template
    it includes, imports or extends (`Template.source`'s "name\0digest" lines), the `.git` that
    marks the repository's top, and the ignore files above the walked roots. The build cache checks
    them by their bytes, and `build --watch` watches them."""
    root = config.root
    paths = [root / config.config_rel, root / pyproject.NAME, root / DEFAULT_TEMPLATE, config.template]
    paths += [config.template.parent / line.split("\0")[0] for line in template_source.decode().splitlines()]
    here = root.resolve()
    for folder in (here, *here.parents):  # ignorefiles.repository_top looks for .git upwards
        paths.append(folder / ".git")
        if (folder / ".git").exists():
            break
    roots = tuple(config.source_dir(i) for i in range(len(config.sources)))
    roots += (root / config.personas,) if config.personas else ()
    roots += (root / config.knowledge,) if config.knowledge else ()
    for folder in ignorefiles.outer_folders(root, roots):
        paths += [folder / name for name in ignorefiles.IGNORE_FILES]
    return list(dict.fromkeys(str(p) for p in paths))
