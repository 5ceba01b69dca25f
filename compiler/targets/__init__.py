"""Harness targets: each module reproduces what one real harness lists, as pure functions.

Every rule cites its evidence: a golden recorded from the real CLI (tests/harness/golden/) and,
where it was found, the harness's own source. docs/targets.md holds the full account.
The rule modules import nothing else of skillc; `view.py` reads a build through the reader
and hands the persona's skills to them (`skillc catalog --target`), and `export.py` turns the same
skills into the files of a project folder the harness loads (`skillc export --target`).
"""

# The harness targets, as `targets:` in the config and `--target` name them.
NAMES = ("claude-code", "codex", "gemini", "opencode")
