#!/usr/bin/env python3
"""Seeded random SimGrid-agreement scenarios on a SimGrid platform file (stdlib only).

Usage:
    python3 scripts/random_scenarios.py PLATFORM.xml SEED [-o OUT.json] [--max N]
            [--allow-known-defects] [--constant L] [--oracle scripts/simgrid_oracle.py] [--python /usr/bin/python3]

--constant L generates for SimGrid's Constant network model instead, every comm lasting L s
(a power of two; the scenario's "config" sets network/model and network/latency-factor), on a
platform without links: no probe, every host pair usable (see generate_constant).

--max N caps the number of activities (default 48; the profile-driven groups come before the
"single" group, so the cap drops those first).

Writes (to OUT.json, or stdout) a scenario in the format of scripts/simgrid_oracle.py (see its
header): {"description", "platform", "activities"}.  The platform path is stored relative to
the directory of OUT.json (absolute when writing to stdout).  Record SimGrid's results with
`/usr/bin/python3 scripts/simgrid_oracle.py OUT.json --write-expected` and compare gridsim with
`target/release/gridsim replay OUT.json` (or `cargo test --release --test simgrid_agreement`).

The same platform file and seed always give the same scenario: every random choice comes from
one `random.Random(SEED)`, drawn in a fixed order over sorted lists.

What the generator knows about the platform, and how:
  * hosts, cores and speeds: read from the XML (<host> with its pstate list and `pstate`,
    `core`; <cluster> hosts prefix+N+suffix for every N of `radical`);
  * profiles: the files named by speed_file / availability_file / state_file (hosts) and
    bandwidth_file / latency_file / state_file (links), and <trace> + <trace_connect>; their
    event dates are expanded with SimGrid 3.32's LOOPAFTER / PERIODICITY semantics
    (scripts/ORACLE.md finding 8);
  * routes: one probe run of the oracle (`--explain --skip-unroutable`) with one 1 MB comm per
    candidate host pair (all ordered pairs up to 12 hosts, else 80 random pairs of the seed).
    A pair the oracle reports as "no route" is never used, so the scenario contains no
    unroutable comm.  The probe also gives each route's links, latency L (latency phase
    13.01 L) and single-flow rate, used to size transfers.

The mix (each activity belongs to one group; the description lists the indices of each):
  burst      several comms between random routable pairs starting at the same date (three
             common dates), often sharing a source or a destination (contention);
  self       host-to-itself transfers (one of them 0 or 1 byte);
  zero       0-byte comms on routed pairs and 0-flop execs, at common dates;
  cores      more execs than cores, started together, on the host with the most cores;
  single     a few activities at arbitrary dates;
  tie        activities started exactly at profile event dates (speed, state, bandwidth,
             latency), on the host or over a route with the link the event changes;
  failure    where a host or link has a state profile: execs / comms running when it turns
             off (they fail), and ones started while it is off.
Sizes are drawn so that each activity alone lasts between H/60 and H/3, where the horizon H
covers the first cycle of the platform's profiles (else 20 latency phases, at least 1 s).

A platform whose <config> turns SimGrid's tracing on (config_tracing.xml) gets
"config": {"tracing": "no"} in the scenario (and in the probe): with tracing on, SimGrid 3.32's
Python bindings crash with a segmentation fault; gridsim ignores tracing/* items.

Known SimGrid 3.32 defect (b) of scripts/ORACLE.md §5 (a link bandwidth or latency event while
a comm over that link is in its latency phase) is avoided by default: such a comm is moved to
start at the event date (a tie, which SimGrid handles as documented) or dropped.  Pass
--allow-known-defects to keep them.  Defect (a) (several latency phases ending together under
the lazy update) is not avoided: compare with `--cfg network/optim:Full`.
"""

import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

LATENCY_FACTOR = 13.01          # SimGrid 3.32 LV08 defaults (ORACLE.md section 3)
PROBE_BYTES = 1000000
SPEED_PREFIX = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
                "Z": 1e21, "Y": 1e24}
SPEED_WORDS = {"": 1.0, "kilo": 1e3, "mega": 1e6, "giga": 1e9, "tera": 1e12, "peta": 1e15,
               "exa": 1e18, "zeta": 1e21, "yotta": 1e24}


def die(msg):
    sys.stderr.write("random_scenarios: error: %s\n" % msg)
    sys.exit(2)


# ------------------------------------------------------------------------------------------
# Platform reading
# ------------------------------------------------------------------------------------------
def parse_speed(text):
    """'98.095Mf' -> 98.095e6 (flop/s); a bare number is flop/s; unknown units give None."""
    text = text.strip()
    m = re.match(r"^([0-9.eE+-]+)\s*([A-Za-z]*)$", text)
    if not m:
        return None
    try:
        val = float(m.group(1))
    except ValueError:
        return None
    unit = m.group(2)
    if unit == "":
        return val
    if unit.endswith("flops") and unit[:-5] in SPEED_WORDS:
        return val * SPEED_WORDS[unit[:-5]]
    if unit.endswith("f") and unit[:-1] in SPEED_PREFIX:
        return val * SPEED_PREFIX[unit[:-1]]
    return None


TIME_UNITS = {"": 1.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12, "m": 60.0,
              "h": 3600.0, "d": 86400.0, "w": 604800.0}


def parse_time(text):
    """'10ms' -> 0.01 (s); None if the unit is unknown."""
    m = re.match(r"^([0-9.eE+-]+)\s*([A-Za-z]*)$", (text or "0").strip())
    if not m or m.group(2) not in TIME_UNITS:
        return None
    return float(m.group(1)) * TIME_UNITS[m.group(2)]


def value_at(profile, nominal, date):
    """Value of a profile at `date`, an event at `date` included (SimGrid applies profile
    events before activities that start at the same date)."""
    val = nominal
    for d, v in expand_events(profile, date):
        val = v
    return val


def host_speed(el):
    speeds = [s for s in el.get("speed", "1f").split(",")]
    idx = int(el.get("pstate", "0"))
    val = parse_speed(speeds[idx]) if idx < len(speeds) else None
    return val if val and val > 0 else 1e9


def radical_numbers(radical):
    out = []
    for part in radical.split(","):
        part = part.strip()
        if "-" in part:
            a, b = part.split("-")
            out.extend(range(int(a), int(b) + 1))
        elif part:
            out.append(int(part))
    return out


def parse_profile_text(text, periodicity=None):
    """SimGrid profile text -> (events [(date, value)], period or None)."""
    events, period = [], None
    for line in text.splitlines():
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "LOOPAFTER":
            period = ("after", float(words[1]))
        elif words[0] == "PERIODICITY":
            period = ("period", float(words[1]))
        else:
            events.append((float(words[0]), float(words[1])))
    if period is None and periodicity is not None:
        period = ("period", float(periodicity))
    if not events:
        return [], None
    if period is not None:
        period = events[-1][0] + period[1] if period[0] == "after" else period[1]
        if period <= 0:
            period = None
    return events, period


def expand_events(profile, horizon):
    """Dates and values of a profile's events up to `horizon`: event j of cycle k is at
    d_j + k * period (ORACLE.md finding 8)."""
    events, period = profile
    out = []
    k = 0
    while events:
        shift = k * period if period else 0.0
        for d, v in events:
            if d + shift > horizon:
                return out
            out.append((d + shift, v))
        if not period:
            break
        k += 1
    return out


def first_cycle_end(profile):
    events, period = profile
    if not events:
        return 0.0
    return period if period else events[-1][0]


class Platform:
    def __init__(self, path):
        self.path = os.path.abspath(path)
        base = os.path.dirname(self.path)
        try:
            root = ET.parse(self.path).getroot()
        except (OSError, ET.ParseError) as exc:
            die("cannot read platform %s: %s" % (path, exc))
        self.hosts = []           # names, document order
        self.cores = {}
        self.speed = {}
        self.host_prof = {}       # host -> {"speed"|"state": profile}
        self.link_prof = {}       # link id -> {"bandwidth"|"latency"|"state": profile}
        self.files = []           # profile files referenced (paths relative to the platform)
        self.link_latency = {}    # link id -> nominal latency (s)

        def read_file(name):
            p = name if os.path.isabs(name) else os.path.join(base, name)
            with open(p) as fh:
                text = fh.read()
            self.files.append(name)
            return text

        for el in root.iter():
            if el.tag in ("host", "peer"):
                name = el.get("id")
                self.hosts.append(name)
                self.cores[name] = int(el.get("core", "1"))
                self.speed[name] = host_speed(el)
                for attr, kind in (("speed_file", "speed"), ("availability_file", "speed"),
                                   ("state_file", "state")):
                    if el.get(attr):
                        self.host_prof.setdefault(name, {})[kind] = parse_profile_text(read_file(el.get(attr)))
            elif el.tag in ("cluster", "cabinet"):
                for n in radical_numbers(el.get("radical", "")):
                    name = "%s%d%s" % (el.get("prefix", ""), n, el.get("suffix", ""))
                    self.hosts.append(name)
                    self.cores[name] = int(el.get("core", "1"))
                    self.speed[name] = host_speed(el)
            elif el.tag == "link":
                self.link_latency[el.get("id")] = parse_time(el.get("latency", "0"))
                for attr, kind in (("bandwidth_file", "bandwidth"), ("latency_file", "latency"),
                                   ("state_file", "state")):
                    if el.get(attr):
                        self.link_prof.setdefault(el.get("id"), {})[kind] = parse_profile_text(read_file(el.get(attr)))
        self.config = {}
        for el in root.iter("config"):
            for prop in el.iter("prop"):
                self.config[prop.get("id")] = prop.get("value")
        traces = {}
        for el in root.iter("trace"):
            text = read_file(el.get("file")) if el.get("file") else (el.text or "")
            traces[el.get("id")] = parse_profile_text(text, el.get("periodicity"))
        for el in root.iter("trace_connect"):
            kind, tr, elem = el.get("kind", "HOST_AVAIL"), el.get("trace"), el.get("element")
            if tr not in traces:
                continue
            target = {"HOST_AVAIL": ("host", "state"), "SPEED": ("host", "speed"),
                      "LINK_AVAIL": ("link", "state"), "BANDWIDTH": ("link", "bandwidth"),
                      "LATENCY": ("link", "latency")}.get(kind)
            if target:
                table = self.host_prof if target[0] == "host" else self.link_prof
                table.setdefault(elem, {})[target[1]] = traces[tr]
        if not self.hosts:
            die("platform %s has no host" % path)
        # Each host's zones, root first, as (id, routing): <cluster> and <cabinet> hosts are in
        # a Cluster zone.
        self.zones = {}

        def walk(el, chain):
            if el.tag == "zone":
                chain = chain + [(el.get("id"), el.get("routing", "None"))]
            elif el.tag == "cluster":
                chain = chain + [(el.get("id"), "Cluster")]
                for n in radical_numbers(el.get("radical", "")):
                    self.zones["%s%d%s" % (el.get("prefix", ""), n, el.get("suffix", ""))] = chain
            elif el.tag == "cabinet":
                for n in radical_numbers(el.get("radical", "")):
                    self.zones["%s%d%s" % (el.get("prefix", ""), n, el.get("suffix", ""))] = chain
            elif el.tag in ("host", "peer"):
                self.zones[el.get("id")] = chain
            for child in el:
                walk(child, chain)
        walk(root, [])

    def aborts(self, src, dst):
        """Whether SimGrid 3.32 aborts the whole process on a route from src to dst, for the
        structure alone: any route inside a routing="None" zone (EmptyZone), and a route between
        two child zones of a Vivaldi zone (zones cannot be given coordinates in XML)."""
        a, b = self.zones.get(src, []), self.zones.get(dst, [])
        n = 0
        while n < min(len(a), len(b)) and a[n] == b[n]:
            n += 1
        if n == 0:
            return False
        routing = a[n - 1][1]
        if routing == "None":
            return True
        return routing == "Vivaldi" and len(a) > n and len(b) > n

    def profile_horizon(self):
        ends = [first_cycle_end(p) for t in (self.host_prof, self.link_prof)
                for profs in t.values() for p in profs.values()]
        return max(ends) if ends else 0.0


# ------------------------------------------------------------------------------------------
# Route probe (through the oracle)
# ------------------------------------------------------------------------------------------
def probe_routes(plat, pairs, oracle, python, config):
    """{(src, dst): {"links": [...], "L": latency, "rate": single-flow B/s}} for the routable
    pairs among `pairs` (one oracle run with --explain --skip-unroutable)."""
    if not pairs:
        return {}
    scen = {"platform": plat.path, "config": config,
            "activities": [{"kind": "comm", "src": s, "dst": d, "bytes": PROBE_BYTES, "start": 0.0}
                           for s, d in pairs]}
    fd, tmp = tempfile.mkstemp(suffix=".json", prefix="random_scenarios_probe_")
    try:
        with os.fdopen(fd, "w") as fh:
            json.dump(scen, fh)
        out = subprocess.run([python, oracle, tmp, "--explain", "--skip-unroutable"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    finally:
        os.unlink(tmp)
    if out.returncode != 0:
        die("route probe failed (oracle exit %d):\n%s" % (out.returncode, out.stderr))
    routes = {}
    for r, (s, d) in zip(json.loads(out.stdout)["results"], pairs):
        if "route" not in r:
            continue       # no route: SimGrid would abort
        info = r["route"]
        lat = info["latency"]
        pred = info.get("predicted_alone")
        rate = None
        if pred is not None and pred - LATENCY_FACTOR * lat > 0:
            rate = PROBE_BYTES / (pred - LATENCY_FACTOR * lat)
        routes[(s, d)] = {"links": info["links"], "L": lat, "rate": rate}
    return routes


# ------------------------------------------------------------------------------------------
# Generation
# ------------------------------------------------------------------------------------------
def round3(x):
    """x rounded to 3 significant digits (common dates that read well)."""
    return float("%.3g" % x) if x > 0 else 0.0


def generate(plat, seed, oracle, python, max_acts, allow_defects, config):
    rng = random.Random(seed)
    hosts = sorted(plat.hosts)
    # Hosts SimGrid can route to themselves (the self group), and pairs it may route.
    self_hosts = [h for h in hosts if not plat.aborts(h, h)]
    if len(hosts) <= 12:
        pairs = [(s, d) for s in hosts for d in hosts if s != d and not plat.aborts(s, d)]
    else:
        pairs = set()
        while len(pairs) < 80:
            s, d = rng.choice(hosts), rng.choice(hosts)
            if s != d and not plat.aborts(s, d):
                pairs.add((s, d))
    pairs = sorted(pairs)
    routes = probe_routes(plat, pairs, oracle, python, config)
    routable = sorted(routes)
    lats = sorted(LATENCY_FACTOR * r["L"] for r in routes.values()) or [0.0]
    median_lp = lats[len(lats) // 2]
    horizon = max(1.0, 20.0 * median_lp)
    ph = plat.profile_horizon()
    if ph > 0:
        horizon = max(ph * 1.05, 1.0)
    horizon = round3(horizon)
    events_until = 2.5 * horizon

    def link_events(link_name, kinds):
        """Event dates of the profiles of a route link (named id, or id_UP / id_DOWN when the
        link is split-duplex)."""
        out = []
        for lid, profs in plat.link_prof.items():
            if link_name in (lid, lid + "_UP", lid + "_DOWN"):
                for kind in kinds:
                    if kind in profs:
                        out.extend(d for d, _ in expand_events(profs[kind], events_until))
        return sorted(out)

    def route_latency(r, date):
        """Route latency at `date`: the probe's (t = 0) moved by the latency profiles of its links."""
        lat = r["L"]
        for link in r["links"]:
            for lid, profs in plat.link_prof.items():
                if "latency" in profs and link in (lid, lid + "_UP", lid + "_DOWN"):
                    nominal = plat.link_latency.get(lid) or 0.0
                    lat += value_at(profs["latency"], nominal, date) - value_at(profs["latency"], nominal, 0.0)
        return lat

    def lp_conflict(src, dst, start):
        """A bandwidth or latency event of a link of the route in (start, start + 13.01 L]
        (SimGrid defect (b)): returns the first such date, or None."""
        if src == dst or allow_defects:
            return None
        r = routes[(src, dst)]
        end = start + LATENCY_FACTOR * route_latency(r, start) + 1e-9
        for link in r["links"]:
            for d in link_events(link, ("bandwidth", "latency")):
                if start < d <= end:
                    return d
        return None

    acts, groups = [], {}
    moved, dropped = [0], [0]      # comms moved to / dropped for a link event (defect (b))

    def duration():
        return math.exp(rng.uniform(math.log(horizon / 60.0), math.log(horizon / 3.0)))

    def comm_bytes(src, dst, dur):
        if src == dst:
            rate = 0.97e10          # implicit loopback (ORACLE.md finding 4), or a declared one
            return max(1, int(rate * dur / 1000))   # loopback is fast: keep it short
        r = routes[(src, dst)]
        rate = r["rate"] or 1e6
        return max(1, int(rate * max(dur - LATENCY_FACTOR * r["L"], dur / 4)))

    def add(group, act):
        if act["kind"] == "comm" and act["src"] != act["dst"]:
            for _ in range(4):
                d = lp_conflict(act["src"], act["dst"], act["start"])
                if d is None:
                    break
                act["start"] = d     # start at the event itself: a documented tie
                moved[0] += 1
            else:
                dropped[0] += 1
                return
        if len(acts) >= max_acts:
            return
        groups.setdefault(group, []).append(len(acts))
        acts.append(act)

    def comm(group, src, dst, start, nbytes=None):
        if nbytes is None:
            nbytes = comm_bytes(src, dst, duration())
        add(group, {"kind": "comm", "src": src, "dst": dst, "bytes": nbytes, "start": start})

    def exe(group, host, start, flops=None):
        if flops is None:
            flops = float(int(plat.speed[host] * duration()))
        add(group, {"kind": "exec", "host": host, "flops": flops, "start": start})

    # common dates: 0 and two round dates in the first half of the horizon
    common = [0.0] + sorted({round3(rng.uniform(0.05, 0.5) * horizon) for _ in range(2)})

    # burst: contended comms at the common dates
    for date in common:
        if not routable:
            break
        k = rng.randint(3, 5)
        first = rng.choice(routable)
        chosen = [first]
        for _ in range(k - 1):
            mode = rng.random()
            if mode < 0.35:        # same source
                cand = [p for p in routable if p[0] == first[0]]
            elif mode < 0.7:       # same destination
                cand = [p for p in routable if p[1] == first[1]]
            else:
                cand = routable
            chosen.append(rng.choice(cand))
        for s, d in chosen:
            comm("burst", s, d, date)
    # self: host-to-itself transfers
    for date in (rng.choice(common), rng.choice(common)):
        if self_hosts:
            h = rng.choice(self_hosts)
            comm("self", h, h, date)
    if self_hosts:
        h = rng.choice(self_hosts)
        comm("self", h, h, rng.choice(common), rng.choice([0, 1]))
    # zero: 0-byte comms and 0-flop execs
    for _ in range(2):
        if routable:
            s, d = rng.choice(routable)
            comm("zero", s, d, rng.choice(common), 0)
        exe("zero", rng.choice(hosts), rng.choice(common), 0.0)
    # cores: more execs than cores on the host with the most cores
    most = max(plat.cores[h] for h in hosts)
    big = sorted(h for h in hosts if plat.cores[h] == most)
    h = rng.choice(big)
    date = rng.choice(common)
    for _ in range(most + rng.randint(1, 2)):
        exe("cores", h, date)
    # tie / failure: profile events
    for hname in sorted(plat.host_prof):
        if hname not in plat.cores:
            continue
        profs = plat.host_prof[hname]
        touching = [p for p in routable if hname in p]
        if "speed" in profs:
            evs = [d for d, _ in expand_events(profs["speed"], horizon)]
            for d in rng.sample(evs, min(2, len(evs))):
                exe("tie", hname, d)
        if "state" in profs:
            evs = expand_events(profs["state"], horizon)
            for d, v in rng.sample(evs, min(3, len(evs))):
                exe("tie", hname, d)            # started at an on or off event
                if touching and rng.random() < 0.5:
                    s, t = rng.choice(touching)
                    comm("tie", s, t, d)
            offs = [(j, d) for j, (d, v) in enumerate(evs) if v == 0]
            for j, d in rng.sample(offs, min(2, len(offs))):
                prev = evs[j - 1][0] if j > 0 else 0.0
                if d > prev:
                    start = rng.uniform(prev, d)
                    # interrupted by the failure: lasts (alone) until well after d
                    exe("failure", hname, start, float(int(plat.speed[hname] * (d - start) * rng.uniform(1.5, 4))))
                    if touching:
                        s, t = rng.choice(touching)
                        comm("failure", s, t, start)
                nxt = evs[j + 1][0] if j + 1 < len(evs) else d + horizon / 10
                if nxt > d:
                    exe("failure", hname, rng.uniform(d, nxt))      # started while off
    for lid in sorted(plat.link_prof):
        profs = plat.link_prof[lid]
        over = [p for p in routable
                if any(l in (lid, lid + "_UP", lid + "_DOWN") for l in routes[p]["links"])]
        if not over:
            continue
        for kind in ("bandwidth", "latency", "state"):
            if kind not in profs:
                continue
            evs = expand_events(profs[kind], horizon)
            for d, v in rng.sample(evs, min(2, len(evs))):
                s, t = rng.choice(over)
                comm("tie", s, t, d)
            if kind == "state":
                offs = [(j, d) for j, (d, v) in enumerate(evs) if v == 0]
                for j, d in rng.sample(offs, min(2, len(offs))):
                    prev = evs[j - 1][0] if j > 0 else 0.0
                    s, t = rng.choice(over)
                    if d > prev:
                        start = rng.uniform(prev, d)
                        r = routes[(s, t)]
                        dur = (d - start) * rng.uniform(1.5, 4)
                        comm("failure", s, t, start, max(1, int((r["rate"] or 1e6) * dur)))
                    nxt = evs[j + 1][0] if j + 1 < len(evs) else d + horizon / 10
                    if nxt > d:
                        comm("failure", s, t, rng.uniform(d, nxt))

    # single: activities at arbitrary dates
    for _ in range(3):
        date = rng.uniform(0.0, 0.6 * horizon)
        if routable and rng.random() < 0.6:
            s, d = rng.choice(routable)
            comm("single", s, d, date)
        else:
            exe("single", rng.choice(hosts), date)

    return acts, groups, horizon, len(routable), len(pairs), (moved[0], dropped[0])


def dyadic(rng, lo, hi, step=1.0 / 16):
    """A multiple of `step` (a power of two) in [lo, hi]."""
    return step * rng.randint(int(math.ceil(lo / step)), int(math.floor(hi / step)))


def generate_constant(plat, seed, latency, max_acts):
    """Activities for SimGrid's Constant network model (--constant L): every comm lasts L s.

    SimGrid 3.32 takes a Constant comm's remaining bytes down by bytes * delta / L at every
    step of the simulation and ends it only when they reach 0, while the comm itself asks for a
    step only until L has elapsed: when the sum of the steps' deltas, in floating point, leaves a
    positive remainder, the comm ends at whatever step comes next (scripts/ORACLE.md, "Constant
    network model").  The scenario therefore keeps that arithmetic exact, so that the dates SimGrid
    intends are the dates it computes: L a power of two, every start date a multiple of 1/16 s,
    every exec alone on its host with a duration a multiple of 1/16 s (its flops are its host's
    speed times that), bytes whole numbers below 2^31, and no 0-byte comm (it ends at the next step
    of any kind).  Returns (activities, groups, horizon)."""
    if latency <= 0 or math.frexp(latency)[0] != 0.5:
        die("--constant: the latency factor must be a positive power of two (got %r)" % latency)
    rng = random.Random(seed)
    hosts = sorted(plat.hosts)
    pairs = [(a, b) for a in hosts for b in hosts if a != b]
    acts, groups = [], {}

    def add(group, act):
        groups.setdefault(group, []).append(len(acts))
        acts.append(act)

    def comm(group, src, dst, start):
        add(group, {"kind": "comm", "src": src, "dst": dst, "bytes": rng.randint(1, 2 ** 31 - 1),
                    "start": start})

    horizon = 4 * latency
    # Failures first (the cap drops the last groups): comms to or from a host with a state
    # profile, running when it turns off (they fail then), started while it is off (they fail at
    # once) and started when it comes back; none ends exactly at an off date.
    for h in sorted(plat.host_prof):
        state = plat.host_prof[h].get("state")
        if not state:
            continue
        events = expand_events(state, first_cycle_end(state))
        for date, value in events:
            horizon = max(horizon, date + 2 * latency)
            others = [o for o in hosts if o != h]
            if not others:
                continue
            if value == 0:
                for _ in range(2):
                    start = date - latency + dyadic(rng, 1.0 / 16, latency - 1.0 / 16)
                    o = rng.choice(others)
                    comm("failure", *((h, o) if rng.random() < 0.5 else (o, h)), start=max(0.0, start))
            else:
                o = rng.choice(others)
                comm("failure", h, o, date)
                if date >= 0.5:
                    comm("failure", o, h, dyadic(rng, date - 0.5, date - 1.0 / 16))
    # Bursts: several comms at one date, sharing endpoints.
    for _ in range(2):
        date = dyadic(rng, 0, 2 * latency)
        for _ in range(rng.randint(3, 5)):
            comm("burst", *rng.choice(pairs), start=date)
    # Host-to-itself comms.
    for _ in range(2):
        h = rng.choice(hosts)
        comm("self", h, h, dyadic(rng, 0, 2 * latency))
    # Execs, one per host, whose ends are steps inside the comms' lifetimes.
    for h in rng.sample(hosts, min(3, len(hosts))):
        if h in plat.host_prof:
            continue
        duration = dyadic(rng, 1.0 / 16, 2 * latency)
        add("exec", {"kind": "exec", "host": h, "flops": plat.speed[h] * duration,
                     "start": dyadic(rng, 0, 2 * latency)})
    # Comms at scattered dates, so that most others see steps between their start and end.
    while len(acts) < max_acts:
        comm("single", *rng.choice(pairs), start=dyadic(rng, 0, 3 * latency))
    return acts[:max_acts], groups, horizon


def write_scenario(out, text):
    if out is None:
        sys.stdout.write(text)
    else:
        tmp = out + ".tmp"
        with open(tmp, "w") as fh:
            fh.write(text)
        os.replace(tmp, out)


def main(argv):
    args = argv[1:]
    if not args or args[0] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0
    here = os.path.dirname(os.path.abspath(__file__))
    oracle = os.path.join(here, "simgrid_oracle.py")
    python = "/usr/bin/python3"
    out = None
    max_acts = 48
    allow = False
    constant = None
    pos = []
    while args:
        a = args.pop(0)
        if a == "-o":
            out = args.pop(0)
        elif a == "--max":
            max_acts = int(args.pop(0))
        elif a == "--allow-known-defects":
            allow = True
        elif a == "--oracle":
            oracle = args.pop(0)
        elif a == "--python":
            python = args.pop(0)
        elif a == "--constant":
            constant = float(args.pop(0))
        elif a.startswith("-"):
            die("unknown option %r (see --help)" % a)
        else:
            pos.append(a)
    if len(pos) != 2:
        die("usage: random_scenarios.py PLATFORM.xml SEED [-o OUT.json] (see --help)")
    plat_path, seed = pos[0], int(pos[1])
    plat = Platform(plat_path)
    # SimGrid 3.32's Python bindings crash (segmentation fault) when the platform turns tracing
    # on (config_tracing.xml): the scenario turns it off (gridsim ignores tracing/* items).
    config = {}
    if plat.config.get("tracing", "no").lower() in ("yes", "1", "on", "true"):
        config["tracing"] = "no"
    if constant is not None:
        acts, groups, horizon = generate_constant(plat, seed, constant, max_acts)
        config["network/model"] = "Constant"
        config["network/latency-factor"] = repr(constant)
        nroutable = npairs = len(plat.hosts) * (len(plat.hosts) - 1)
        moved = dropped = 0
    else:
        acts, groups, horizon, nroutable, npairs, (moved, dropped) = generate(plat, seed, oracle, python, max_acts, allow, config)
    if out is None:
        plat_ref = plat.path
    else:
        plat_ref = os.path.relpath(plat.path, os.path.dirname(os.path.abspath(out)))
    name = os.path.basename(plat.path)
    cmd = "python3 scripts/random_scenarios.py %s %d%s%s%s%s" % (
        os.path.relpath(plat.path) if not os.path.isabs(plat_path) else plat_path, seed,
        " -o %s" % out if out else "", " --max %d" % max_acts if max_acts != 48 else "",
        " --allow-known-defects" if allow else "",
        " --constant %r" % constant if constant is not None else "")
    profs = []
    for h in sorted(plat.host_prof):
        profs.append("host %s: %s" % (h, "+".join(sorted(plat.host_prof[h]))))
    for l in sorted(plat.link_prof):
        profs.append("link %s: %s" % (l, "+".join(sorted(plat.link_prof[l]))))
    desc = ("Random scenario on SimGrid's example platform %s, generated by scripts/random_scenarios.py "
            "with seed %d (command: `%s`; SimGrid's results then recorded with `/usr/bin/python3 "
            "scripts/simgrid_oracle.py <this file> --write-expected`). %d activities over a horizon of %g s; "
            "%s. Groups (activity indices): %s. "
            "Profiles: %s.%s" % (
                name, seed, cmd, len(acts), horizon,
                "every pair of distinct hosts usable (no route is needed)" if constant is not None else
                "%d of %d probed host pairs routable (only those are used)" % (nroutable, npairs),
                "; ".join("%s %s" % (g, ",".join(str(i) for i in idx)) for g, idx in sorted(groups.items())),
                "; ".join(profs) if profs else "none",
                "" if allow or not (moved or dropped) else
                " %d comm start(s) were moved to a bandwidth or latency event of the route and %d comm(s) "
                "dropped, so that no such event falls in a comm's latency phase (SimGrid defect (b), "
                "ORACLE.md section 5)." % (moved, dropped)))
    if constant is not None:
        desc += (" Under SimGrid's Constant network model (\"config\"), every comm lasting %r s; every date, "
                 "duration and size keeps SimGrid's step arithmetic exact (see generate_constant in the "
                 "script)." % constant)
    elif config:
        desc += (" The platform turns SimGrid's tracing on, which makes SimGrid 3.32's Python bindings "
                 "crash (segmentation fault): \"config\" turns it off.")
    lines = ["{", " \"description\": %s," % json.dumps(desc), " \"platform\": %s," % json.dumps(plat_ref)]
    if config:
        lines.append(" \"config\": %s," % json.dumps(config))
    lines.append(" \"activities\": [")
    lines.append(",\n".join("  " + json.dumps(a) for a in acts))
    lines.append(" ]")
    lines.append("}")
    write_scenario(out, "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
