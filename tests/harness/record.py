"""Re-records the goldens: every (CLI, fixture, budget) of MATRIX, run live through run.py.

    python tests/harness/record.py [--cli CLI ...] [--check]

Writes tests/harness/golden/<cli>@<version>/<fixture>[-<budget>].json. With --check it writes
nothing and exits 1 when a live result differs from its golden (what test_harness_live.py runs).
Needs the CLIs from install.sh. Each case runs in its own process (run.py isolates the network).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden"
sys.path.insert(0, str(HERE))

from run import VERSIONS  # noqa: E402 - a sibling script, not a package

_ALL = (
    "discovery",
    "duplicates",
    "fields",
    "roots",
    "shadowing",
    "many",
    "policy",
    "names",
    "folders",
    "injection",
)
_RACY = ("duplicates", "shadowing")
# Budgets: Codex's model_context_window in tokens, Claude Code's SLASH_COMMAND_TOOL_CHAR_BUDGET in
# characters; None is the CLI's default. Chosen so that `many` crosses every regime of each rule.
MATRIX: dict[str, list[tuple[str, int | None]]] = {
    "codex": [(f, None) for f in _ALL]
    + [("many", w) for w in (2_000, 8_000, 20_000, 40_000, 100_000, 400_000)]
    + [("fields", 20_000), ("huge", None), ("spaces", None)],
    "claude": [(f, None) for f in (*_ALL, "args", "huge")]
    + [("many", b) for b in (300, 1_000, 2_000, 4_000, 8_000, 16_000)]
    + [("fields", 2_000)]
    + [("wide", b) for b in (150, 250, 350, 450)]
    + [("spaces", None)],
    # Gemini's pick between two folders of one root follows the filesystem's directory order.
    "gemini": [(f, None) for f in _ALL if f != "duplicates"],
    # opencode picks among same-name skills differently from run to run (see docs/targets.md).
    "opencode": [(f, None) for f in _ALL if f not in _RACY],
}
# skillc's own exports (exports.py), per persona; the lead's at the budgets that cross each regime.
EXPORTS = tuple(f"export-{persona}" for persona in ("lead", "ops", "guest"))
MATRIX["codex"] += [(f, None) for f in EXPORTS] + [
    ("export-lead", w) for w in (2_000, 8_000, 20_000, 100_000)
]
MATRIX["claude"] += [(f, None) for f in EXPORTS] + [("export-lead", b) for b in (300, 2_000, 8_000)]
# budgets.priority, which only Claude Code's settings express, at two budgets that bite.
MATRIX["claude"] += [(f"export-ranked{b}", b) for b in (2_000, 8_000)]
MATRIX["gemini"] += [(f, None) for f in EXPORTS]
MATRIX["opencode"] += [(f, None) for f in EXPORTS]
# The odd project (exports.odd): the rules explore.py found, each through the CLI that has it.
ODD = ("export-odd-a", "export-odd-b")
MATRIX["codex"] += [(f, None) for f in ODD] + [("export-odd-a", 8_000)]
MATRIX["claude"] += [(f, None) for f in ODD] + [("export-odd-a", 2_000)]
MATRIX["gemini"] += [(f, None) for f in ODD]
MATRIX["opencode"] += [(f, None) for f in ODD]


def golden_path(cli: str, fixture: str, budget: int | None) -> Path:
    suffix = "" if budget is None else f"-{budget}"
    return GOLDEN / f"{cli}@{VERSIONS[cli]}" / f"{fixture}{suffix}.json"


def live(cli: str, fixture: str, budget: int | None) -> str:
    """run.py's JSON for one case, as the text a golden file holds."""
    argv = [sys.executable, str(HERE / "run.py"), cli, fixture]
    if budget is not None:
        argv += ["--budget", str(budget)]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[1:])} failed:\n{done.stderr}")
    return json.dumps(json.loads(done.stdout), indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", action="append", choices=sorted(MATRIX))
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--only", help="record only the fixtures whose name starts with this")
    args = parser.parse_args(argv)
    differences = 0
    for cli in args.cli or sorted(MATRIX):
        for fixture, budget in MATRIX[cli]:
            if args.only and not fixture.startswith(args.only):
                continue
            path = golden_path(cli, fixture, budget)
            text = live(cli, fixture, budget)
            if args.check:
                same = path.exists() and path.read_text(encoding="utf-8") == text
                differences += not same
                print(f"{'ok  ' if same else 'DIFF'} {path.relative_to(HERE)}")
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
                print(f"wrote {path.relative_to(HERE)}")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
