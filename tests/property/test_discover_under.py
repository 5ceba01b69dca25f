"""Property: discover's answer for one folder of a source (discover_under), walked alone with the
context a whole walk has there, is what the whole walk finds in that folder's tree, for every
folder `closed_folder` names for a change: the same skills (files, bytes, problems, in order), the
same ignore files read, the diagnostics no skill owns among the whole walk's. The edit build asks
discover so (incremental/edit.py), so that it knows no discovery rule of its own."""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from support.files import write_tree
from support.trees import configs, trees

from skillc.project import config as config_mod
from skillc.stages import discover as discover_mod
from skillc.stages.seen import Seen

SETTINGS = settings(
    max_examples=int(os.environ.get("SKILLC_DISCOVER_EXAMPLES", "60")),
    suppress_health_check=[HealthCheck.too_slow],
)


def entries(src: Path) -> list[tuple[str, bool]]:
    """Every file and folder below `src`, relative to it, with whether it is a folder."""
    return sorted((p.relative_to(src).as_posix(), p.is_dir()) for p in src.rglob("*"))


@SETTINGS
@given(files=trees(), config=configs())
def test_a_folder_walked_alone_is_that_folder_of_the_whole_walk(files: dict[str, str], config: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_tree(root, {"skillc.yaml": config, **files})
        (root / "personas").mkdir(exist_ok=True)
        cfg, _ = config_mod.load(root / "skillc.yaml")
        assert cfg is not None
        whole = discover_mod.discover(cfg)
        dirs = set(whole.folders[0][0])
        across = discover_mod.Across([discover_mod.command_at(cfg, 0, d) for d in dirs])
        said = Counter(whole.diagnostics)
        for entry, folder in entries(root / "src"):
            unit = discover_mod.closed_folder(entry, folder, dirs)
            seen = Seen()
            part = discover_mod.discover_under(cfg, 0, unit, (seen.listdir, seen.lstat))
            if part is None:
                continue
            below = f"src/{unit}/" if unit else "src/"
            there = {s.dir_rel: s for s in whole.skills if not unit or f"{s.dir_rel}/".startswith(below)}
            alone = {s.dir_rel: s for s in part.skills}
            assert there.keys() <= alone.keys()
            # What discover says of a skill with others (a shared id) is not its folder's to say; a
            # skill one of a source's rules leaves out for another (`duplicates`) is said left out.
            assert {r: s for r, s in alone.items() if r in there and not across.touches(s.command)} == {
                r: s for r, s in there.items() if not across.touches(s.command)
            }
            assert all(s.skill_md.rel in whole.dropped for r, s in alone.items() if r not in there)
            assert sorted(f"src/{rel}" for rel in part.read) == [  # walk order; the discovery sorts
                f for f in whole.ignore_files if f.startswith(below)
            ]
            assert not Counter(part.loose) - said
