#!/usr/bin/env bash
# Installs what gridsim's tests and benchmarks need, then runs the tests. CI runs this same script
# (.ci/run).
#
# The SimGrid agreement tests call Debian's python3-simgrid through /usr/bin/python3; they fail
# (never skip) when it is missing, so this script installs it first. The SimGrid comparison
# benchmark (bench/compare.py) also needs SimGrid's C++ headers and library (libsimgrid-dev) and
# GNU time (time) for peak memory; they are installed here too, so both work after this one
# command on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
/usr/bin/python3 -c 'import simgrid' >/dev/null 2>&1 || missing+=(python3-simgrid)
[ -f /usr/include/simgrid/s4u.hpp ] || missing+=(libsimgrid-dev)
[ -x /usr/bin/time ] || missing+=(time)
if [ ${#missing[@]} -gt 0 ]; then
    echo "test.sh: installing ${missing[*]} (SimGrid 3.32 for the agreement tests and benchmarks)" >&2
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y "${missing[@]}"
fi

cargo test --workspace --release --locked
