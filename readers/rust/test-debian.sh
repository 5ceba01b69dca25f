#!/bin/sh
# cargo test, offline, with the crates Debian packages (cargo cannot reach crates.io on the CI
# machines). Installs what is missing through apt: the two crates, and cargo itself when there
# is none. SKILLC_PYTHON (an interpreter where `from skillc import reader` works) makes the
# differential tests against the Python reader compulsory. Extra arguments go to cargo test;
# `test-debian.sh run ARGS` runs `cargo run ARGS` instead, with the same setup (an example, such as
# the sven host tests/e2e/test_seed_sven_host.py runs).
set -eu
cd "$(dirname "$0")"

missing=""
dpkg -s librust-serde-json-dev >/dev/null 2>&1 || missing="$missing librust-serde-json-dev"
dpkg -s librust-sha2-dev >/dev/null 2>&1 || missing="$missing librust-sha2-dev"
command -v cargo >/dev/null 2>&1 || missing="$missing cargo rustc"
if [ -n "$missing" ]; then
  apt-get update -qq
  # shellcheck disable=SC2086 # one word per package
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

command=test
if [ "${1:-}" = run ]; then
  command=run
  shift
fi

exec cargo "$command" --offline \
  --config 'source.crates-io.replace-with="debian"' \
  --config 'source.debian.directory="/usr/share/cargo/registry"' "$@"
