"""A skillc project for the serve tests, written by code: every case `skillc serve` must serve.

`alpha` sorts first and has resources in subfolders (the conformance suite reads the first
listed skill's folders), a binary asset and an executable script; `group` holds a nested skill
that holds another; `secret` is exclusive to `lead` (the others get its stub); `overlaid` has an
overlay for `ops`; `manual`, `model-only` and `nobody` take each invoker flag; `folder-x` is named
`label-y`; `under_score` is a folder the Agent Skills rule refuses as a name. Personas: `lead`
(every skill, the exclusive one granted), `ops` (an overlay, the stub) and `guest` (an allowlist).

Everything here is made up for these tests.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PERSONAS = ("guest", "lead", "ops")
CONFIG = """\
format: 1
sources: [src]
personas: personas
output: dist
diagnostics:
  SKC206: warning
  SKC218: ignore
"""
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000") + bytes(range(256))


def _skill(root: Path, folder: str, front: str, body: str = "Body of the skill.\n") -> None:
    path = root / "src" / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{front.strip()}\n---\n{body}", encoding="utf-8")


def _file(root: Path, path: str, data: str | bytes, executable: bool = False) -> None:
    where = root / "src" / path
    where.parent.mkdir(parents=True, exist_ok=True)
    where.write_bytes(data.encode() if isinstance(data, str) else data)
    if executable:
        where.chmod(0o755)


def write(root: Path) -> Path:
    """The project in `root`; returns its config."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "skillc.yaml").write_text(CONFIG, encoding="utf-8")
    _skill(
        root,
        "alpha",
        "name: alpha\ndescription: The first skill, with files in folders.\nlicense: MIT\n"
        "metadata:\n  version: '1.2'\n  owner: team",
        "Read references/guide.md, then run scripts/run.sh $ARGUMENTS.\n",
    )
    _file(root, "alpha/references/guide.md", "# Guide\n\nStep one.\n")
    _file(root, "alpha/references/deep/note.md", "A note two folders down.\n")
    _file(root, "alpha/assets/logo.png", PNG)
    _file(root, "alpha/scripts/run.sh", "#!/bin/sh\necho run\n", executable=True)
    _file(root, "alpha/data file (1).txt", "A file name with spaces and brackets.\n")
    _skill(root, "group", "name: group\ndescription: A skill folder that holds a nested skill.")
    _file(root, "group/references/map.md", "The group's map.\n")
    _skill(root, "group/inner", "name: inner\ndescription: Nested one folder below another skill.")
    _file(root, "group/inner/notes.md", "Inner notes.\n")
    _skill(root, "group/inner/leaf", "name: leaf\ndescription: Nested two folders down.")
    _skill(root, "secret", "name: secret\ndescription: Only the lead has it.\npersona_exclusive: lead")
    _file(root, "secret/references/plan.md", "The lead's plan, which no other persona may read.\n")
    _skill(
        root,
        "overlaid",
        "name: overlaid\ndescription: Adjusted per persona.\nhas_persona_overlay: true\n"
        "when_to_use: When a persona needs its own steps.",
    )
    _skill(root, "manual", "name: manual\ndescription: The user runs it.\ndisable-model-invocation: true")
    _skill(root, "model-only", "name: model-only\ndescription: The model runs it.\nuser-invocable: false")
    _skill(
        root,
        "nobody",
        "name: nobody\ndescription: Nobody runs it.\ndisable-model-invocation: true\nuser-invocable: false",
    )
    _skill(root, "folder-x", "name: label-y\ndescription: Its name differs from its folder.")
    _skill(root, "under_score", "name: under-score\ndescription: A folder the name rule refuses.")
    personas = root / "personas"
    for persona, manifest in (
        ("lead", "name: Lead\n"),
        ("ops", "name: Ops\n"),
        ("guest", "name: Guest\nskills: [alpha, secret, manual]\n"),
    ):
        (personas / persona).mkdir(parents=True)
        (personas / persona / "manifest.yaml").write_text(manifest, encoding="utf-8")
    (personas / "lead-exclusive").mkdir()
    (personas / "lead-exclusive" / "secret.md").write_text("The lead's own instructions.\n", encoding="utf-8")
    (personas / "ops" / "skill-overlays").mkdir()
    (personas / "ops" / "skill-overlays" / "overlaid.md").write_text(
        "Ops: page the on-call.\n", encoding="utf-8"
    )
    return root / "skillc.yaml"


def skillc(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """This checkout's skillc, as a subprocess; raises with its output when it fails."""
    done = subprocess.run([sys.executable, "-m", "skillc", *map(str, args)], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"skillc {' '.join(map(str, args))} failed:\n{done.stdout}{done.stderr}")
    return done


def built(root: Path) -> Path:
    """The project written and built in `root`; returns its build directory."""
    skillc("build", "--no-cache", "--config", write(root))
    return root / "dist"
