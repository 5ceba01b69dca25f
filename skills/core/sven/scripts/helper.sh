#!/usr/bin/env bash
# Repository state for the phases of the sven methodology.
# Usage: helper.sh [status|tests|diffstat]
set -euo pipefail

base="${SVEN_BASE:-main}"

case "${1:-status}" in
  status)
    echo "branch: $(git rev-parse --abbrev-ref HEAD)"
    echo "last commit: $(git log -1 --oneline)"
    git status --short
    ;;
  tests)
    if [ -f pyproject.toml ]; then
      python -m pytest -q
    else
      echo "helper.sh: no pyproject.toml, cannot find the test suite" >&2
      exit 1
    fi
    ;;
  diffstat)
    echo "committed since ${base}:"
    git diff --stat "${base}...HEAD"
    echo "uncommitted:"
    git diff --stat
    ;;
  *)
    echo "usage: helper.sh [status|tests|diffstat]" >&2
    exit 2
    ;;
esac
