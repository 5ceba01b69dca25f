#!/usr/bin/env bash
# Installs the four pinned harness CLIs from the npm registry into a cache folder outside the
# repository, one `npm install --prefix` per CLI so their dependency trees never mix. Idempotent: a
# CLI whose installed package.json already has the pinned version is left alone.
#   SKILLC_HARNESS_CACHE  where to install (default ~/.cache/skillc-harness)
# Prints the cache folder on its last line; tests/harness/run.py finds the binaries there.
set -euo pipefail

cache="${SKILLC_HARNESS_CACHE:-$HOME/.cache/skillc-harness}"

# Node.js 20 or later (Gemini CLI's floor; claude-code's wrapper asks 22 but only copies a native binary).
command -v npm >/dev/null && command -v node >/dev/null || { echo "install.sh: node and npm are needed" >&2; exit 1; }
node -e 'process.exit(parseInt(process.versions.node, 10) < 20 ? 1 : 0)' || { echo "install.sh: Node.js >= 20 is needed" >&2; exit 1; }

# folder name | npm package | exact version. When a CLI moves, its goldens move with it
# (tests/harness/golden/<cli>@<version>/, re-recorded by tests/harness/record.py).
pins=(
  "codex|@openai/codex|0.169.0"
  "claude|@anthropic-ai/claude-code|2.1.330"
  "gemini|@google/gemini-cli|0.61.0"
  "opencode|opencode-ai|1.18.33"
)

installed_version() {  # prints the version in $1/node_modules/$2/package.json, or nothing
  local manifest="$1/node_modules/$2/package.json"
  [ -f "$manifest" ] && node -e 'process.stdout.write(require(process.argv[1]).version)' "$manifest" || true
}

for pin in "${pins[@]}"; do
  IFS='|' read -r dir package version <<<"$pin"
  prefix="$cache/$dir@$version"
  if [ "$(installed_version "$prefix" "$package")" = "$version" ]; then
    echo "== $package@$version already in $prefix"
    continue
  fi
  echo "== installing $package@$version into $prefix"
  mkdir -p "$prefix"
  # Install scripts stay on: claude-code's install.cjs and opencode-ai's postinstall.mjs only copy
  # the native binary out of the platform package npm already fetched (read them: they download
  # nothing), and gemini-cli's keytar/node-pty scripts copy prebuilt addons. No audit, no fund.
  npm install --prefix "$prefix" --no-audit --no-fund --save-exact --loglevel=error "$package@$version"
done
echo "$cache"
