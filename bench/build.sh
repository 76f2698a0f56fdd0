#!/usr/bin/env bash
# Builds bench/simgrid_bot (the C++ SimGrid 3.32 master/worker, see simgrid_bot.cpp) and
# bench/simgrid_fat_tree (the shift exchange of `gridsim bench fat-tree`) against the system's
# libsimgrid-dev. The binaries go to target/ (ignored by git), or OUT and OUT_FAT_TREE when set.
#
#   bench/build.sh && target/simgrid_bot --platform platforms/data/grid90.xml --master Jacquelin \
#       --nodes 90 --tasks 1000 --flops 1e9 --bytes 1000 --policy wq
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-$here/../target/simgrid_bot}"
out_fat_tree="${OUT_FAT_TREE:-$(dirname "$out")/simgrid_fat_tree}"
mkdir -p "$(dirname "$out")"
if [ ! -f /usr/include/simgrid/s4u.hpp ]; then
    echo "build.sh: SimGrid's C++ headers are missing; install libsimgrid-dev (SimGrid 3.32)" >&2
    exit 1
fi
g++ -std=c++17 -O2 -Wall -Wextra -o "$out" "$here/simgrid_bot.cpp" -lsimgrid
g++ -std=c++17 -O2 -Wall -Wextra -o "$out_fat_tree" "$here/simgrid_fat_tree.cpp" -lsimgrid
echo "built $out and $out_fat_tree" >&2
