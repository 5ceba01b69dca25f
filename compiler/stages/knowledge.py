"""Knowledge stage: the titles of the knowledge folder's docs, which a reader gives beside each
skill's `knowledge:` entries (sven: `.sven/knowledge/sven-p2p.md  (P2P Networking)`).

sven's knowledge docs name their subsystem in their frontmatter (`subsystem:`); other folders use
`title:`, or only a first heading. A doc without any of these has no title, and is listed by its
path alone. Nothing here is a diagnostic: a knowledge doc is the project's text, not a skill.
"""

from __future__ import annotations

from typing import Any

from ..model import Config, InputFile
from .parse import parse_document


def knowledge(config: Config, docs: tuple[tuple[str, InputFile], ...]) -> dict[str, Any] | None:
    """The index's `knowledge`: the folder and each doc's title, by its name; None without a folder."""
    if not config.knowledge:
        return None
    titles = {name: title for name, file in docs if (title := title_of(file)) is not None}
    return {"folder": config.knowledge, "titles": dict(sorted(titles.items()))}


def title_of(file: InputFile) -> str | None:
    """A doc's title: its frontmatter's `subsystem`, else `title` (non-empty strings), else its first
    `# ` heading; None when it has none."""
    doc = parse_document(file, frontmatter="optional")
    data = doc.data if isinstance(doc.data, dict) else {}
    for key in ("subsystem", "title"):
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return " ".join(value.split())
    for line in doc.body.splitlines():
        if line.startswith("# ") and line[2:].strip():
            return " ".join(line[2:].split())
    return None
