"""Held-out trees through the real CLIs: every disagreement with `skillc catalog --target`.

    python tests/harness/explore.py SEED [SEED ...] [--cli CLI ...]

For each seed, treegen.py writes a skillc project (nesting, odd names, collisions) and builds it;
each of its personas is exported for each target and run through the pinned CLI (run.py: offline,
throwaway HOME), at a budget treegen.py picks, and compared with the prediction as the export
goldens are (conform.py). Prints one line per case, `ok` or `DIFF` with what differs, and exits 1
on any difference. This is a tool for finding rules, not a test: what it finds becomes a rule in
compiler/targets/ with a golden of its own (exports.py's `odd` project, record.py's MATRIX).
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import conform  # noqa: E402 - sibling scripts, not a package
import exports  # noqa: E402
import record  # noqa: E402
import treegen  # noqa: E402


def _differences(cli: str, result: dict[str, Any], doc: dict[str, Any]) -> list[str]:
    """conform.differences, with the texts as a short diff (-: the CLI, +: skillc)."""
    found, expected = conform.cli_listed(cli, result), conform.predicted_listed(cli, doc)
    out = []
    if found != expected:
        out.append(
            f"listed by the CLI only: {sorted(found - expected)}; predicted only: {sorted(expected - found)}"
        )
    if cli in conform.EXACT_TEXT and result["text"] != doc["text"]:
        lines = difflib.unified_diff(
            (result["text"] or "").splitlines(), doc["text"].splitlines(), n=0, lineterm=""
        )
        out += [line[:240] for line in list(lines)[2:]]
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seeds", nargs="+", type=int)
    parser.add_argument("--cli", action="append", choices=sorted(conform.TARGET))
    args = parser.parse_args(argv)
    failed = 0
    with tempfile.TemporaryDirectory() as scratch:
        for seed in args.seeds:
            try:
                config, personas = exports.generated(Path(scratch), seed)
            except RuntimeError as exc:  # a tree skillc does not build (a bug of its own, not a target's)
                print(f"SKIP seed {seed}: the build fails: {str(exc).splitlines()[-1]}")
                continue
            for persona in personas:
                for cli in args.cli or sorted(conform.TARGET):
                    budget = treegen.budget(cli, seed)
                    fixture = f"gen-{seed}-{persona}"
                    try:
                        result = json.loads(record.live(cli, fixture, budget))
                    except RuntimeError as exc:
                        print(f"FAIL {cli} {fixture} {budget}: {exc}")
                        failed += 1
                        continue
                    project = Path(scratch) / "project"
                    doc = conform.prediction(config, cli, persona, budget, project)
                    found = _differences(cli, result, doc)
                    failed += bool(found)
                    print(f"{'DIFF' if found else 'ok  '} {cli} {fixture} {budget}")
                    for line in found:
                        print("     " + line)
                    sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
