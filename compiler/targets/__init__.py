"""Harness targets: each module reproduces what one real harness lists, as pure functions.

Every rule cites its evidence: a golden recorded from the real CLI (tests/harness/golden/) and,
where it was found, the harness's own source. docs/targets.md holds the full account.
Nothing here imports the rest of skillc; the compiler wires these in.
"""

# The harness targets, as `targets:` in the config and `--target` name them.
NAMES = ("claude-code", "codex", "gemini", "opencode")
