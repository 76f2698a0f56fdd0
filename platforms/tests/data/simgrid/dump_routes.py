"""Dump every host-to-host route of a SimGrid platform, as SimGrid 3.32 computes it.

Run with the system python that has python3-simgrid 3.32:
    /usr/bin/python3 dump_routes.py platform.xml > platform.routes
    /usr/bin/python3 dump_routes.py --digest platform.xml
    /usr/bin/python3 dump_routes.py --links platform.xml


One line per ordered pair of hosts (sorted by name): `src dst latency : link link ...`.
SimGrid's implicit `__loopback__` (used when a host talks to itself without a declared
route) is written as an empty route, and a missing route (no link and no latency) as `NOROUTE`. Routes are queried
from inside a running actor: before the engine runs, Floyd and Dijkstra zones are not sealed
and answer wrongly.

With --links, first prints every link but SimGrid's own `__loopback__`, sorted by name, one
line each: `LINK name bandwidth latency` (Python reprs: they read back bit for bit).

With --digest, prints instead the FNV-1a 64-bit hash of the lines
`src dst <latency as 16 hex digits of its IEEE-754 bits> : link link ...` (or
`src dst : NOROUTE`), each followed by a newline: a compact fingerprint for big platforms.
"""
import struct
import sys

import simgrid

digest = "--digest" in sys.argv[1:]
with_links = "--links" in sys.argv[1:]
path = [a for a in sys.argv[1:] if not a.startswith("--")][0]
engine = simgrid.Engine(["dump_routes", "--log=root.thres:critical"])
engine.load_platform(path)
hosts = sorted(engine.all_hosts, key=lambda h: h.name)


def main():
    out = []
    if with_links:
        for link in sorted(engine.all_links, key=lambda link: link.name):
            if link.name != "__loopback__":
                out.append("LINK %s %r %r" % (link.name, link.bandwidth, link.latency))
    for a in hosts:
        for b in hosts:
            try:
                links, latency = a.route_to(b)
                names = [link.name for link in links]
            except Exception:  # SimGrid raises for missing routes in Floyd/Dijkstra zones
                names, latency = None, 0.0
            if names == ["__loopback__"]:
                names, latency = [], 0.0
            # A route of no link but a positive latency (between Vivaldi members that are not
            # peers) is a route: SimGrid 3.32 only refuses one with neither.
            if names is None or (not names and latency <= 0 and a.name != b.name):
                out.append("%s %s : NOROUTE" % (a.name, b.name) if digest else "%s %s 0 : NOROUTE" % (a.name, b.name))
            elif digest:
                bits = struct.pack(">d", latency).hex()
                out.append("%s %s %s : %s" % (a.name, b.name, bits, " ".join(names)))
            else:
                out.append("%s %s %r : %s" % (a.name, b.name, latency, " ".join(names)))
    text = "\n".join(out) + "\n"
    if digest:
        h = 0xCBF29CE484222325
        for byte in text.encode():
            h = ((h ^ byte) * 0x100000001B3) % (1 << 64)
        sys.stdout.write("%016x\n" % h)
    else:
        sys.stdout.write(text)
    sys.stdout.flush()


simgrid.Actor.create("dump", hosts[0], main)
engine.run()
