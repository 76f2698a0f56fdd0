#!/usr/bin/env bash
# Installs what gridsim's tests need, then runs them. CI runs this same script (.ci/run).
#
# The SimGrid agreement tests call Debian's python3-simgrid through /usr/bin/python3; they fail
# (never skip) when it is missing, so this script installs it first.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! /usr/bin/python3 -c 'import simgrid' >/dev/null 2>&1; then
    echo "test.sh: installing python3-simgrid (SimGrid 3.32) for the agreement tests" >&2
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y python3-simgrid
fi

cargo test --workspace --release --locked
