"""pipeline: what a build does around its stages (the collector paused, as it was again after)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from support.project import skill_md, src_project

from skillc.options import Options
from skillc.pipeline import build, compile_project


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_paused_during_a_build_and_restored_after(tmp_path: Path, enabled: bool) -> None:
    cfg = src_project(tmp_path, {"src/a/SKILL.md": skill_md("a")})
    seen: list[bool] = []
    (gc.enable if enabled else gc.disable)()
    try:
        compile_project(cfg, Options(progress=lambda stage: seen.append(gc.isenabled())))
        assert gc.isenabled() is enabled
        build(cfg, Options(progress=lambda stage: seen.append(gc.isenabled())), cache=False)
        assert gc.isenabled() is enabled
    finally:
        gc.enable()
    assert seen and not any(seen)


def test_a_build_that_fails_restores_the_collector(tmp_path: Path) -> None:
    def boom(stage: str) -> None:
        raise KeyboardInterrupt

    cfg = src_project(tmp_path, {"src/a/SKILL.md": skill_md("a")})
    with pytest.raises(KeyboardInterrupt):
        compile_project(cfg, Options(progress=boom))
    assert gc.isenabled()
