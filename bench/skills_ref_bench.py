"""Time skills-ref's `to-prompt` over a generated tree, as a cold process start.

skills-ref (PyPI `skills-ref`, the Agent Skills reference library) installs a console
script named `agentskills` (not `skills-ref`); `python -m skills_ref.cli` is the same
thing. `to-prompt DIR...` parses each SKILL.md's frontmatter with strictyaml and prints
an <available_skills> block. It takes explicit skill directories only (no discovery of
nested skills), does no precedence, personas, overlays or budgets, and does not run the
name/field validation of `agentskills validate` (that one would reject every harness
field such as has_persona_overlay). So we hand it every directory holding a SKILL.md.

    python bench/skills_ref_bench.py TREE_DIR      # a tree written by bench/gen.py
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

# Python API in a fresh process, paths on stdin: for argument lists too long for exec.
_API_CHILD = (
    "import sys\n"
    "from pathlib import Path\n"
    "from skills_ref import to_prompt\n"
    "dirs = [Path(p) for p in sys.stdin.read().split('\\n') if p]\n"
    "sys.stdout.write(to_prompt(dirs) + '\\n')\n"
)


def _arg_max() -> int:
    try:
        return os.sysconf("SC_ARG_MAX")
    except (ValueError, OSError):
        return 131072


def _cli() -> list[str]:
    exe = shutil.which("agentskills")
    return [exe] if exe else [sys.executable, "-m", "skills_ref.cli"]


def invocation(skill_dirs: list[Path]) -> tuple[list[str], bytes | None, str]:
    """(argv, stdin bytes, label) of one to-prompt run over `skill_dirs`."""
    paths = [str(p) for p in skill_dirs]
    cli = _cli()
    # exec needs argv + envp (+ a pointer each) below ARG_MAX; keep a wide margin
    argv_bytes = sum(len(p) + 1 + 8 for p in paths) + sum(len(k) + len(v) + 10 for k, v in os.environ.items())
    if argv_bytes < _arg_max() // 2:
        label = f"{' '.join(Path(c).name if i == 0 else c for i, c in enumerate(cli))} to-prompt DIR x{len(paths)}"
        return [*cli, "to-prompt", *paths], None, label
    stdin = ("\n".join(paths) + "\n").encode()
    return (
        [sys.executable, "-c", _API_CHILD],
        stdin,
        f"python -c 'skills_ref.to_prompt(dirs)' ({len(paths)} dirs on stdin)",
    )


def time_skills_ref(skill_dirs: list[Path], repeat: int = 3, verbose: bool = True) -> float | None:
    """Median wall time in seconds of a new process running to-prompt over all dirs.

    Returns None (and prints a note) when skills-ref is not installed or the run fails.
    """
    if importlib.util.find_spec("skills_ref") is None:
        print("note: skills-ref is not installed (pip install skills-ref); skipping", file=sys.stderr)
        return None
    if not skill_dirs:
        return None
    argv, stdin, label = invocation(skill_dirs)
    times = []
    out_len = 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        try:
            p = subprocess.run(argv, input=stdin, capture_output=True)
        except OSError as e:  # E2BIG despite the estimate: retry through the API
            if stdin is not None:
                raise
            argv = [sys.executable, "-c", _API_CHILD]
            stdin = ("\n".join(map(str, skill_dirs)) + "\n").encode()
            label = f"python -c 'skills_ref.to_prompt(dirs)' (after {e.strerror})"
            t0 = time.perf_counter()
            p = subprocess.run(argv, input=stdin, capture_output=True)
        times.append(time.perf_counter() - t0)
        if p.returncode != 0:
            print(
                f"note: skills-ref failed ({label}): {p.stderr.decode(errors='replace')[-2000:]}",
                file=sys.stderr,
            )
            return None
        out_len = len(p.stdout)
    med = statistics.median(times)
    if verbose:
        print(
            f"skills-ref: {label}: median {med:.3f}s of {repeat} "
            f"({', '.join(f'{t:.3f}' for t in times)}), {out_len} bytes out",
            file=sys.stderr,
        )
    return med


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python bench/skills_ref_bench.py TREE_DIR", file=sys.stderr)
        return 2
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench.gen import skill_dirs

    dirs = skill_dirs(Path(args[0]).resolve())
    t = time_skills_ref(dirs)
    print("skipped" if t is None else f"{len(dirs)} skill dirs: {t:.3f}s")
    return 0 if t is not None else 1


if __name__ == "__main__":
    sys.exit(main())
