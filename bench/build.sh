#!/usr/bin/env bash
# Builds bench/simgrid_bot (the C++ SimGrid 3.32 master/worker, see simgrid_bot.cpp) against the
# system's libsimgrid-dev. The binary goes to target/simgrid_bot (ignored by git) unless OUT is set.
#
#   bench/build.sh && target/simgrid_bot --platform platforms/data/grid90.xml --master Jacquelin \
#       --nodes 90 --tasks 1000 --flops 1e9 --bytes 1000 --policy wq
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-$here/../target/simgrid_bot}"
mkdir -p "$(dirname "$out")"
if [ ! -f /usr/include/simgrid/s4u.hpp ]; then
    echo "build.sh: SimGrid's C++ headers are missing; install libsimgrid-dev (SimGrid 3.32)" >&2
    exit 1
fi
g++ -std=c++17 -O2 -Wall -Wextra -o "$out" "$here/simgrid_bot.cpp" -lsimgrid
echo "built $out" >&2
