#!/usr/bin/env bash
# Installs what gridsim's tests and benchmarks need, then runs the tests. CI runs this same script
# (.ci/run).
#
# The SimGrid agreement tests call Debian's python3-simgrid through /usr/bin/python3; they fail
# (never skip) when it is missing, so this script installs it first. The SimGrid comparison
# benchmark (bench/compare.py) also needs SimGrid's C++ headers and library (libsimgrid-dev) and
# GNU time (time) for peak memory; they are installed here too, so both work after this one
# command on a fresh machine. The energy agreement test builds its C++ oracle against
# libsimgrid-dev with g++, also installed here.
#
# The peer-tool tests (tests/batch_peers.rs) run AccaSim and evalys from PyPI in a virtual
# environment of their own, target/peers-venv (or $GRIDSIM_PEERS_VENV), made here with Debian's
# python3 and the pinned scripts/peers-requirements.txt; it is rebuilt only when that file
# changes. Those tests fail (never skip) without it.
#
# The Python package (python/, docs/python.md) is tested in a virtual environment of its own,
# target/py-venv (or $GRIDSIM_PY_VENV), with maturin, pandas, matplotlib and pytest pinned in
# python/requirements-test.txt (rebuilt only when that file changes): `pip install ./python`
# builds the extension (one release build, on the crates cargo test compiled) and installs it,
# then python/tests compares it with the CLI binary cargo test built.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
/usr/bin/python3 -c 'import simgrid' >/dev/null 2>&1 || missing+=(python3-simgrid)
[ -f /usr/include/simgrid/s4u.hpp ] || missing+=(libsimgrid-dev)
# tests/simgrid_energy.rs compiles its SimGrid oracle (scripts/simgrid_energy_oracle.cpp).
command -v g++ >/dev/null 2>&1 || missing+=(g++)
[ -x /usr/bin/time ] || missing+=(time)
/usr/bin/python3 -c 'import ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
if [ ${#missing[@]} -gt 0 ]; then
    echo "test.sh: installing ${missing[*]} (SimGrid 3.32 for the agreement tests and benchmarks, venv for the peer tools)" >&2
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y "${missing[@]}"
fi

export GRIDSIM_PEERS_VENV="${GRIDSIM_PEERS_VENV:-$PWD/target/peers-venv}"
if ! cmp -s scripts/peers-requirements.txt "$GRIDSIM_PEERS_VENV/requirements.txt"; then
    echo "test.sh: installing AccaSim and evalys in $GRIDSIM_PEERS_VENV (tests/batch_peers.rs)" >&2
    /usr/bin/python3 -m venv --clear "$GRIDSIM_PEERS_VENV"
    "$GRIDSIM_PEERS_VENV/bin/pip" install --quiet --disable-pip-version-check --no-input \
        -r scripts/peers-requirements.txt
    cp scripts/peers-requirements.txt "$GRIDSIM_PEERS_VENV/requirements.txt"
fi

cargo test --workspace --release --locked

export GRIDSIM_PY_VENV="${GRIDSIM_PY_VENV:-$PWD/target/py-venv}"
if ! cmp -s python/requirements-test.txt "$GRIDSIM_PY_VENV/requirements.txt"; then
    echo "test.sh: installing maturin, pandas, matplotlib and pytest in $GRIDSIM_PY_VENV (python/tests)" >&2
    /usr/bin/python3 -m venv --clear "$GRIDSIM_PY_VENV"
    "$GRIDSIM_PY_VENV/bin/pip" install --quiet --disable-pip-version-check --no-input \
        -r python/requirements-test.txt
    cp python/requirements-test.txt "$GRIDSIM_PY_VENV/requirements.txt"
fi
# --no-build-isolation: the pinned maturin of the venv builds it (found on PATH), with nothing
# downloaded.
PATH="$GRIDSIM_PY_VENV/bin:$PATH" "$GRIDSIM_PY_VENV/bin/pip" install --quiet --disable-pip-version-check --no-input \
    --no-build-isolation --no-deps --force-reinstall ./python
GRIDSIM_BIN="${CARGO_TARGET_DIR:-$PWD/target}/release/gridsim" \
    "$GRIDSIM_PY_VENV/bin/python" -m pytest -q -p no:cacheprovider python/tests
