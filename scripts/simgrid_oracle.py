#!/usr/bin/python3
"""Run a gridsim test scenario in SimGrid 3.32 and print the reference results as JSON.

Usage:
    /usr/bin/python3 scripts/simgrid_oracle.py SCENARIO.json [--explain] [--model]
                     [--write-expected] [--skip-unroutable] [--cfg KEY:VALUE ...]
    /usr/bin/python3 scripts/simgrid_oracle.py --route PLATFORM.xml SRC DST

Options:
    --explain          add each comm's route and the single-flow formula prediction
    --model            also run our own Python re-implementation of SimGrid's fluid model
                       (see ORACLE.md) and report "model_finish"/"model_failed" per result
                       and a "model_check" summary (worst differences from SimGrid)
    --write-expected   store SimGrid's results in the scenario file under "expected"
                       ({"simgrid_version", "results": [{"index","finish","failed"}...]})
    --skip-unroutable  report comms between hosts without a route as failed (not simulated)
    --cfg KEY:VALUE    extra SimGrid configuration item (after the scenario's "config")
    --route P S D      print the links of the route S->D in platform P

Scenario format (JSON object):
    {
      "platform": "relative/to/the/scenario/dir.xml" (or an absolute path),
      "config": {"network/crosstraffic": "1", ...},    optional SimGrid --cfg items
      "activities": [
        {"kind": "comm", "src": "HostA", "dst": "HostB", "bytes": 1000000, "start": 0.0},
        {"kind": "exec", "host": "HostA", "flops": 1e9, "start": 5.0},
        ...
      ]
    }
"start" defaults to 0; "bytes" must be a whole number (it may be written 1e6); other
keys (e.g. "description", "expected") are ignored.  --cfg items on the command line are applied
after the scenario's "config".

Output (stdout, one JSON object, one result per line, activity order):
    {"simgrid_version": "3.32.0", "scenario": "<path as given>", "results": [
      {"index": 0, "kind": "comm", "start": 0.0, "finish": 1.2345, "failed": false},
      {"index": 1, "kind": "exec", "start": 5.0, "finish": 25.0, "failed": true,
       "error": "actor killed (host turned off)"}, ...]}
  "finish" is the simulated date (absolute, full float precision) at which the activity
  completed or failed.  It is null only if the activity never ended (blocked forever) or
  was not simulated (--skip-unroutable); then "failed" is true.  "error" (optional) says
  why an activity failed.
  --explain adds to each comm "route": {"links": [...], "reverse_links": [...], "latency": L,
  "predicted_alone": T, "rel_diff_vs_alone": (duration-T)/T}, where T is the LV08
  single-flow time T = 13.01 L + S / (0.97 min(min_l B_l/w_l, 4194304/(2L))),
  w_l = 1.05 if l is SHARED and also on the reverse route, else 1 (parameters follow the
  scenario's config).  Only an uncontended comm is expected to match T.

A comm between two different hosts with no route makes SimGrid 3.32 abort the whole
simulation, so the script refuses such a scenario (exit 2) unless --skip-unroutable is
given, in which case those comms are not simulated and are reported as failed.

Each activity is run by its own actor(s), created at "start" by a launcher actor that
lives on an extra host added to the root zone (it takes part in nothing else): a comm is
a blocking put (sender actor on src) matched with a blocking get (receiver actor on dst)
on a mailbox private to that activity, so it is exactly one src->dst transfer of "bytes"
bytes starting at "start"; an exec is a blocking execute(flops) by an actor on "host"
(one core).  If an actor is killed (its host turned off) or gets a failure exception, the
activity is reported as failed at that date; if its host is off at "start", it fails at
"start".  If SimGrid detects a deadlock (an activity that can never complete: see ORACLE.md,
known SimGrid defects), it kills every actor; the activities still running are then reported
with "finish": null, "failed": true and an "error" that says so.

Every route query (the no-route check, --explain, --model, --route) is made by the launcher
actor at time 0, before it creates any other actor and without advancing simulated time:
SimGrid 3.32 seals the platform only when the simulation starts, and route queries made
before that crash on many of its own example platforms (Floyd and Cluster zones, Full zones
without routes).  Link bandwidths and latencies are those seen then.

Must be run with the Debian interpreter (/usr/bin/python3) that can import simgrid.
SimGrid's logging is set to critical only and goes to stderr; stdout holds only the JSON.
Exit status: 0 on success, 2 on a bad scenario / usage, 3 if SimGrid itself failed
(SimGrid may also abort the process on internal errors: non-zero status, message on stderr).
"""

import json
import math
import os
import sys


def die(msg, code=2):
    sys.stderr.write("simgrid_oracle: error: %s\n" % msg)
    sys.exit(code)


def import_simgrid():
    try:
        import simgrid  # noqa: F401
    except ImportError as exc:
        die("cannot import the simgrid Python bindings (%s); run this script with "
            "/usr/bin/python3 (Debian package python3-simgrid)" % exc, 3)
    return simgrid


def as_number(act, idx, key, minimum=0.0):
    if key not in act:
        die("activity %d: missing field %r" % (idx, key))
    val = act[key]
    if isinstance(val, bool) or not isinstance(val, (int, float)):
        die("activity %d: field %r must be a number, got %r" % (idx, key, val))
    val = float(val)
    if not math.isfinite(val) or val < minimum:
        die("activity %d: field %r must be a finite number >= %g, got %r" % (idx, key, minimum, val))
    return val


def as_host(act, idx, key, hosts):
    if key not in act:
        die("activity %d: missing field %r" % (idx, key))
    name = act[key]
    if not isinstance(name, str):
        die("activity %d: field %r must be a host name string, got %r" % (idx, key, name))
    if name not in hosts:
        die("activity %d: unknown host %r in field %r" % (idx, name, key))
    return name


def load_scenario(path):
    try:
        with open(path) as fh:
            scen = json.load(fh)
    except OSError as exc:
        die("cannot read scenario %s: %s" % (path, exc))
    except ValueError as exc:
        die("scenario %s is not valid JSON: %s" % (path, exc))
    if not isinstance(scen, dict):
        die("scenario %s: top level must be a JSON object" % path)
    plat = scen.get("platform")
    if not isinstance(plat, str) or not plat:
        die("scenario %s: missing or invalid \"platform\" (a path string)" % path)
    if not os.path.isabs(plat):
        plat = os.path.join(os.path.dirname(os.path.abspath(path)), plat)
    if not os.path.isfile(plat):
        die("scenario %s: platform file not found: %s" % (path, plat))
    config = scen.get("config", {})
    if not isinstance(config, dict):
        die("scenario %s: \"config\" must be an object of SimGrid --cfg items" % path)
    acts = scen.get("activities")
    if not isinstance(acts, list):
        die("scenario %s: missing or invalid \"activities\" (a list)" % path)
    return plat, config, acts


def engine_args(config, extra_cfg):
    args = ["simgrid_oracle", "--log=root.thres:critical"]
    for key, val in config.items():
        if isinstance(val, bool):
            val = "yes" if val else "no"
        args.append("--cfg=%s:%s" % (key, val))
    for item in extra_cfg:
        args.append("--cfg=%s" % item)
    return args


MODEL_DEFAULTS = {  # SimGrid 3.32 defaults (LV08 network model)
    "network/latency-factor": 13.01,
    "network/bandwidth-factor": 0.97,
    "network/weight-S": 20537.0,
    "network/TCP-gamma": 4194304.0,
    "network/crosstraffic": True,
    "network/loopback-bw": 1e10,
    "network/loopback-lat": 0.0,
}


def model_params(config, extra_cfg):
    """Network model parameters in effect (defaults overridden by the scenario's config and
    --cfg items), for --explain and --model."""
    items = dict((k, str(v)) for k, v in config.items())
    for item in extra_cfg:
        k, _, v = item.partition(":")
        items[k] = v
    params = dict(MODEL_DEFAULTS)
    for key in params:
        if key in items:
            v = items[key].strip().lower()
            if key == "network/crosstraffic":
                params[key] = v in ("1", "yes", "true", "on")
            else:
                params[key] = float(v)
    params["supported"] = items.get("network/model", "LV08") == "LV08"
    # SimGrid's Constant network model routes nothing: every comm takes network/latency-factor
    # seconds, and route queries are not made (on a routing="None" platform, the only kind the
    # Constant model accepts, SimGrid aborts on any route query).
    params["constant"] = items.get("network/model") == "Constant"
    return params


def link_policies(plat):
    """Sharing policy per link name, read from the platform XML (best effort, for --explain
    and --model: SimGrid's Python API does not expose a link's sharing policy).

    Explicit <link> elements use their sharing_policy (SPLITDUPLEX ones become NAME_UP and
    NAME_DOWN); <cluster> elements create ID_backbone (bb_sharing_policy), ID_link_N (or
    ID_link_N_UP/_DOWN) and ID_link_N_loopback (FATPIPE).  Anything else is SHARED, except
    SimGrid's implicit __loopback__ link which is FATPIPE."""
    import re
    import xml.etree.ElementTree as ET
    pol = {"__loopback__": "FATPIPE"}
    pat = []
    try:
        root = ET.parse(plat).getroot()
    except Exception:
        return pol, pat
    for el in root.iter():
        if el.tag == "link":
            sp = el.get("sharing_policy", "SHARED")
            if sp == "SPLITDUPLEX":
                pol[el.get("id") + "_UP"] = pol[el.get("id") + "_DOWN"] = "SHARED"
            else:
                pol[el.get("id")] = sp
        elif el.tag == "cluster":
            cid = re.escape(el.get("id", ""))
            pol[el.get("id", "") + "_backbone"] = el.get("bb_sharing_policy", "SHARED")
            pat.append((re.compile(cid + r"_link_\d+_loopback$"), "FATPIPE"))
            sp = el.get("sharing_policy", "SPLITDUPLEX")
            pat.append((re.compile(cid + r"_link_\d+$"), "FATPIPE" if sp == "FATPIPE" else "SHARED"))
    return pol, pat


def policy_of(policies, name):
    pol, pat = policies
    if name in pol:
        return pol[name]
    for rx, p in pat:
        if rx.match(name):
            return p
    return "SHARED"


def comm_route(hosts, src, dst, params, policies):
    """(forward links, reverse-route links, route latency L); links are (name, bandwidth,
    policy) tuples.  A host-to-itself comm without a declared route uses SimGrid's
    implicit __loopback__ link (FATPIPE, network/loopback-bw, network/loopback-lat)."""
    links, lat = hosts[src].route_to(hosts[dst])
    back, _ = hosts[dst].route_to(hosts[src])
    fwd = [(l.name, l.bandwidth, policy_of(policies, l.name)) for l in links]
    rev = [(l.name, l.bandwidth, policy_of(policies, l.name)) for l in back]
    if not fwd and src == dst:
        fwd = rev = [("__loopback__", params["network/loopback-bw"], "FATPIPE")]
        lat = params["network/loopback-lat"]
    return fwd, rev, lat


def explain_comm(route, size, params):
    """Route of a comm and the single-flow completion time predicted by the LV08 formula
    T = lat_factor*L + S / (bw_factor * min(min_l B_l / w_l, gamma / (2 L)))."""
    fwd, rev, lat = route
    back_names = set(n for n, _, _ in rev)
    info = {"links": [n for n, _, _ in fwd], "reverse_links": [n for n, _, _ in rev], "latency": lat}
    if not params["supported"] or not fwd:
        return info
    share = math.inf
    for name, bw, pol in fwd:
        w = 1.0
        if params["network/crosstraffic"] and name in back_names and pol != "FATPIPE":
            w = 1.05
        share = min(share, bw / w)
    if lat > 0 and params["network/TCP-gamma"] > 0:     # TCP-gamma 0 disables the bound
        share = min(share, params["network/TCP-gamma"] / (2.0 * lat))
    info["predicted_alone"] = (params["network/latency-factor"] * lat
                               + size / (params["network/bandwidth-factor"] * share))
    return info


# ---------------------------------------------------------------------------------------
# --model: our own re-implementation of the fluid model (LV08 network + Cas01 CPU, host
# speed/state profiles) that we believe SimGrid 3.32 uses, written from the measurements
# documented in ORACLE.md.  It runs next to SimGrid so that every scenario also checks the
# model.  Not modelled: link profiles, cluster availability files, other network models.
# ---------------------------------------------------------------------------------------
TIMING_PRECISION = 1e-9   # SimGrid 3.32 "surf/precision"


def read_profile(path):
    """SimGrid profile file -> (events [(date, value)], period or None).
    Measured semantics (SimGrid 3.32): event j of cycle k happens at d_j + k*period, with
    period = d_last + X for "LOOPAFTER X" and period = P for the legacy "PERIODICITY P"."""
    events, period = [], None
    with open(path) as fh:
        for line in fh:
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            if words[0] == "LOOPAFTER":
                period = ("after", float(words[1]))
            elif words[0] == "PERIODICITY":
                period = ("period", float(words[1]))
            else:
                events.append((float(words[0]), float(words[1])))
    if period is not None and events:
        period = events[-1][0] + period[1] if period[0] == "after" else period[1]
        if period <= 0:
            period = None
    return events, (period if events else None)


def host_profiles(plat):
    """{host: {"speed": profile, "state": profile}} for <host speed_file=.. state_file=..>."""
    import xml.etree.ElementTree as ET
    out = {}
    base = os.path.dirname(os.path.abspath(plat))
    try:
        root = ET.parse(plat).getroot()
    except Exception:
        return out
    for el in root.iter("host"):
        for attr, kind in (("speed_file", "speed"), ("state_file", "state"),
                           ("availability_file", "speed")):
            if el.get(attr):
                path = el.get(attr)
                if not os.path.isabs(path) and not os.path.exists(path):
                    path = os.path.join(base, path)
                out.setdefault(el.get("id"), {})[kind] = read_profile(path)
    return out


def model_variables(acts, hosts, routes, params):
    """One fluid variable per activity: amount, delay (latency phase), penalty, bound,
    usage {constraint: weight}, rate factor; and the constraints {name: (capacity, policy)}."""
    cons = {}
    var = []
    for i, act in enumerate(acts):
        v = {"i": i, "start": float(act.get("start", 0.0)), "delay": 0.0}
        if act["kind"] == "exec":
            h = hosts[act["host"]]
            cname = "cpu:" + h.name
            cons[cname] = (h.speed * h.core_count, "SHARED")     # all cores (x availability)
            v.update(amount=float(act["flops"]), pen=1.0, bound=h.speed,   # one core
                     use={cname: 1.0}, factor=1.0, hosts={h.name}, cpu=h.name)
        else:
            if i not in routes:
                continue
            fwd, rev, lat = routes[i]
            use = {}
            links = list(fwd) + (list(rev) if params["network/crosstraffic"] else [])
            weights = [1.0] * len(fwd) + [0.05] * (len(links) - len(fwd))
            for (name, bw, pol), w in zip(links, weights):
                cons[name] = (bw, pol)
                if pol == "FATPIPE":
                    use[name] = max(use.get(name, 0.0), w)
                else:
                    use[name] = use.get(name, 0.0) + w
            if lat > 0:
                pen = lat + sum(params["network/weight-S"] / bw for _, bw, _ in fwd)
                gamma = params["network/TCP-gamma"]
                bound = gamma / (2.0 * lat) if gamma > 0 else math.inf   # 0: no bound
            else:
                pen, bound = 1.0, math.inf     # zero-latency route: penalty 1, no gamma bound
            v.update(amount=float(act["bytes"]), pen=pen, bound=bound, use=use,
                     hosts={act["src"], act["dst"]}, cpu=None,
                     factor=params["network/bandwidth-factor"],
                     delay=params["network/latency-factor"] * lat)
        var.append(v)
    return var, cons


def maxmin(active, cons):
    """Weighted max-min share: x_v = r_c / pen_v on the most constraining resource c, where
    r_c = remaining_c / sum_v(w_vc / pen_v) (FATPIPE: max instead of sum, capacity not
    consumed); bounds are applied when bound_v * pen_v is below the current level.
    Returns the rate of each variable (x_v times its rate factor)."""
    value = {}
    todo = list(active)
    remaining = dict((c, cap) for c, (cap, _) in cons.items())
    while todo:
        level, saturated = math.inf, []
        for c in cons:
            ws = [v["use"][c] / v["pen"] for v in todo if c in v["use"]]
            if not ws:
                continue
            usage = max(ws) if cons[c][1] == "FATPIPE" else sum(ws)
            r = remaining[c] / usage
            if r < level * (1 - 1e-12) or level == math.inf:
                level, saturated = r, [c]
            elif abs(r - level) <= 1e-12 * level:
                saturated.append(c)
        bmin = min(v["bound"] * v["pen"] for v in todo)
        if bmin < level:
            fixed = [(v, v["bound"]) for v in todo if v["bound"] * v["pen"] <= bmin * (1 + 1e-12)]
        elif level == math.inf:
            fixed = [(v, math.inf) for v in todo]
        else:
            fixed = [(v, level / v["pen"]) for v in todo if any(c in v["use"] for c in saturated)]
        for v, x in fixed:
            value[id(v)] = x
            for c, w in v["use"].items():
                if cons[c][1] != "FATPIPE":
                    remaining[c] = max(0.0, remaining[c] - w * x)
        done = set(id(v) for v, _ in fixed)
        todo = [v for v in todo if id(v) not in done]
    return dict((id(v), value[id(v)] * v["factor"]) for v in active)


def fluid_model(var, cons, hosts, profiles):
    """Event-driven run of the fluid model; returns {activity index: (finish date, failed)}.
    Speed profiles scale the host's CPU capacity and the one-core bound of its execs; a host
    turned off fails every activity using it (exec on it, comm from/to it) at that date,
    and an activity starting while its host is off fails at its start date."""
    finish = {}
    pending = sorted(var, key=lambda v: (v["start"], v["i"]))
    waiting = []   # in latency phase
    active = []
    now = 0.0
    base_cap = dict(cons)
    scale = dict((h, 1.0) for h in hosts)
    up = dict((h, True) for h in hosts)
    # profile cursors: (next date, host, kind, k)
    cursors = []
    for h, profs in sorted(profiles.items()):
        for kind, (events, _) in sorted(profs.items()):
            if events and h in hosts:
                cursors.append([events[0][0], h, kind, 0])

    def apply_cpu():
        for h in hosts:
            c = "cpu:" + h
            if c in cons:
                cons[c] = (base_cap[c][0] * scale[h], "SHARED")
        for v in var:
            if v.get("cpu"):
                v["bound"] = hosts[v["cpu"]].speed * scale[v["cpu"]]

    def fail_host(h):
        for group in (active, waiting):
            for v in list(group):
                if h in v["hosts"]:
                    finish[v["i"]] = (now, True)
                    group.remove(v)

    apply_cpu()
    while pending or waiting or active:
        rate = maxmin(active, cons) if active else {}
        dates = [v["start"] for v in pending[:1]] + [v["wake"] for v in waiting]
        dates += [now + v["rem"] / rate[id(v)] for v in active if rate[id(v)] > 0]
        if not dates:
            break            # starved forever
        dates += [c[0] for c in cursors]
        nxt = min(dates)
        for v in active:
            v["rem"] -= rate[id(v)] * (nxt - now)
        now = nxt
        # SimGrid ends every action whose date is within TIMING_PRECISION of now
        for v in list(active):
            if v["rem"] <= 0 or (rate[id(v)] > 0 and v["rem"] / rate[id(v)] <= TIMING_PRECISION):
                finish[v["i"]] = (now, False)
                active.remove(v)
        # availability changes due now
        for c in cursors:
            while c[0] is not None and c[0] <= now:
                events, period = profiles[c[1]][c[2]]
                value = events[c[3] % len(events)][1]
                if c[2] == "speed":
                    scale[c[1]] = value
                else:
                    up[c[1]] = value != 0
                    if not up[c[1]]:
                        fail_host(c[1])
                c[3] += 1
                cycle, j = divmod(c[3], len(events))
                if period is None and cycle > 0:
                    c[0] = None
                else:
                    c[0] = events[j][0] + cycle * (period or 0.0)
        cursors = [c for c in cursors if c[0] is not None]
        apply_cpu()
        while pending and pending[0]["start"] <= now:
            v = pending.pop(0)
            if not all(up[h] for h in v["hosts"]):
                finish[v["i"]] = (now, True)
                continue
            v["rem"] = v["amount"]
            v["wake"] = now + v["delay"]
            waiting.append(v)
        for v in list(waiting):
            if v["wake"] - now <= TIMING_PRECISION:
                waiting.remove(v)
                if v["rem"] <= 0:
                    finish[v["i"]] = (now, False)
                else:
                    active.append(v)
    return finish


def run_scenario(scen_path, extra_cfg, explain=False, skip_unroutable=False, model=False):
    plat, config, acts = load_scenario(scen_path)
    sg = import_simgrid()
    try:
        engine = sg.Engine(engine_args(config, extra_cfg))
    except Exception as exc:  # e.g. unknown --cfg key or bad value
        first = (str(exc).splitlines() or [""])[0]
        die("SimGrid rejected the configuration %s: %s" % (engine_args(config, extra_cfg)[2:], first), 2)
    try:
        engine.load_platform(plat)
    except Exception as exc:  # SimGrid raises on parse errors
        die("SimGrid could not load platform %s: %s" % (plat, exc), 3)
    hosts = {h.name: h for h in engine.all_hosts}

    results = [None] * len(acts)
    errors = [None] * len(acts)

    def record(i, failed, err=None):
        if results[i] is None:
            results[i] = (engine.clock, failed)
            errors[i] = err

    # The launcher ends as a daemon blocked forever: it is killed after every other actor at a
    # normal end, but first when SimGrid detects a deadlock (some activity can never complete)
    # and kills every actor; the actors killed after it are then not failures of their host.
    deadlock = []

    def on_killed(i):
        if deadlock:
            if results[i] is None:
                results[i] = (None, True)
                errors[i] = ("never completed: SimGrid detected a deadlock at %r and killed the actors"
                             % deadlock[0])
        else:
            record(i, True, "actor killed (host turned off)")

    def guarded(i, body):
        """Actor body wrapper: failure exceptions and kills mark activity i as failed."""
        def actor():
            sg.this_actor.on_exit(lambda killed: on_killed(i) if killed else None)
            try:
                body()
            except (sg.HostFailureException, sg.NetworkFailureException,
                    sg.TimeoutException, sg.CancelException) as exc:
                record(i, True, type(exc).__name__)
        return actor

    def make_exec(i, flops):
        def body():
            sg.this_actor.execute(flops)
            record(i, False)
        return guarded(i, body)

    def make_sender(i, mbox, size):
        def body():
            mbox.put(i, size)
        return guarded(i, body)

    def make_receiver(i, mbox):
        def body():
            mbox.get()
            record(i, False)
        return guarded(i, body)

    # Validate everything first, then let a launcher actor create each activity's actor(s)
    # at its start date (so an actor never sits on a host that may be turned off before the
    # activity starts).  The launcher lives on an extra host that takes part in nothing else.
    # Routes are asked for by the launcher itself, at time 0 before it creates any other
    # actor: SimGrid 3.32 seals the platform when the simulation starts, and before that
    # route_to() fails on many platforms ("No route" on Floyd zones, unordered_map::at on
    # Cluster zones, segfaults on Full zones without routes).  A fatal problem found there
    # is stored in "fatal" and reported once engine.run() returns (the launcher then creates
    # no actor, so the simulation ends at once).
    plan = []
    comms = []     # (start, index, src, dst, bytes): routed and planned by the launcher
    unroutable = set()
    routes = {}
    fatal = []     # (message, exit status) from the launcher
    params = model_params(config, extra_cfg)
    policies = link_policies(plat)
    for i, act in enumerate(acts):
        if not isinstance(act, dict):
            die("activity %d: must be an object" % i)
        kind = act.get("kind")
        start = as_number(act, i, "start") if "start" in act else 0.0
        if kind == "exec":
            host = as_host(act, i, "host", hosts)
            flops = as_number(act, i, "flops")
            plan.append((start, i, [("exec-%d" % i, host, make_exec(i, flops))]))
        elif kind == "comm":
            src = as_host(act, i, "src", hosts)
            dst = as_host(act, i, "dst", hosts)
            size = as_number(act, i, "bytes")
            if size != int(size):
                die("activity %d: \"bytes\" must be an integer, got %r" % (i, act["bytes"]))
            comms.append((start, i, src, dst, int(size)))
        else:
            die("activity %d: unknown kind %r (expected \"comm\" or \"exec\")" % (i, kind))

    def plan_comms():
        """Route every comm (in the launcher, at time 0) and add its actors to the plan.
        Returns False after storing a fatal error in "fatal"."""
        for start, i, src, dst, size in comms:
            if params["constant"]:
                mbox = sg.Mailbox.by_name("oracle-comm-%d" % i)
                plan.append((start, i,
                             [("recv-%d" % i, dst, make_receiver(i, mbox)),
                              ("send-%d" % i, src, make_sender(i, mbox, size))]))
                continue
            if src != dst:
                try:
                    links, lat = hosts[src].route_to(hosts[dst])
                except Exception:
                    # SimGrid refuses the route (e.g. "Bad gateways" between zones without a
                    # zoneRoute): it would abort the simulation as for no route at all.
                    if not skip_unroutable:
                        raise
                    links, lat = [], 0.0
                if not links and lat <= 0:
                    if not skip_unroutable:
                        fatal.append(("activity %d: no route from %s to %s; SimGrid 3.32 would abort the "
                                      "whole simulation when this comm starts (\"no connecting path between "
                                      "these two hosts\"); use --skip-unroutable to report it as failed "
                                      "instead" % (i, src, dst), 2))
                        return False
                    unroutable.add(i)
                    continue
            routes[i] = comm_route(hosts, src, dst, params, policies)
            mbox = sg.Mailbox.by_name("oracle-comm-%d" % i)
            plan.append((start, i,
                         [("recv-%d" % i, dst, make_receiver(i, mbox)),
                          ("send-%d" % i, src, make_sender(i, mbox, size))]))
        plan.sort(key=lambda p: (p[0], p[1]))
        if model and not params["supported"]:
            fatal.append(("--model only knows the LV08 network model", 2))
            return False
        return True

    def launcher():
        try:
            ready = plan_comms()     # at time 0: no simcall, simulated time does not advance
        except Exception as exc:
            fatal.append(("SimGrid failed while computing routes: %s: %s" % (type(exc).__name__, exc), 3))
            return
        if not ready:
            return
        sg.this_actor.on_exit(lambda killed: deadlock.append(engine.clock) if killed else None)
        for start, i, actors in plan:
            if start > engine.clock:
                sg.this_actor.sleep_until(start)
            # A comm needs both of its actors: if one cannot be created (its host is off at
            # the start date), the activity fails at once and its other actor is killed.
            created = []
            for name, host, body in actors:
                try:
                    created.append(sg.Actor.create(name, hosts[host], body))
                except Exception as exc:
                    record(i, True, "cannot start actor on %s (host off?): %s" % (host, exc))
                    for other in created:
                        other.kill()
                    break
        sg.Actor.self().daemonize()
        never.acquire()

    never = sg.Semaphore(0)
    start_launcher(sg, engine, launcher)
    try:
        engine.run()
    except Exception as exc:
        die("SimGrid run failed: %s: %s" % (type(exc).__name__, exc), 3)
    if fatal:
        die(*fatal[0])
    if model:
        mvar, mcons = model_variables(acts, hosts, routes, params)
        model_finish = fluid_model(mvar, mcons, hosts, host_profiles(plat))

    out = []
    for i, act in enumerate(acts):
        entry = {"index": i, "kind": act["kind"], "start": float(act.get("start", 0.0))}
        if i in unroutable:
            entry.update(finish=None, failed=True, error="no route (not simulated: SimGrid would abort)")
        elif results[i] is None:
            entry.update(finish=None, failed=True, error="never completed (blocked at end of simulation)")
        else:
            entry["finish"], entry["failed"] = results[i]
            if errors[i]:
                entry["error"] = errors[i]
        if explain and i in routes:
            entry["route"] = explain_comm(routes[i], int(act["bytes"]), params)
            if "predicted_alone" in entry["route"] and not entry["failed"]:
                dur = entry["finish"] - entry["start"]
                pred = entry["route"]["predicted_alone"]
                entry["route"]["rel_diff_vs_alone"] = (dur - pred) / pred if pred > 0 else dur - pred
        if model:
            entry["model_finish"], entry["model_failed"] = model_finish.get(i, (None, True))
        out.append(entry)
    result = {"simgrid_version": sg.simgrid_version, "scenario": scen_path}
    if model:
        diffs = [(abs(e["model_finish"] - e["finish"]), e["finish"]) for e in out
                 if e["finish"] is not None and e["model_finish"] is not None]
        result["model_check"] = {
            "compared": len(diffs),
            "failed_status_mismatches": [e["index"] for e in out if e["failed"] != e["model_failed"]],
            "worst_abs_diff": max([d for d, _ in diffs], default=0.0),
            "worst_rel_diff": max([d / f for d, f in diffs if f > 0], default=0.0),
        }
    result["results"] = out
    return result


def start_launcher(sg, engine, body):
    """Create the extra host __oracle_launcher__ in the root zone and an actor running body()
    on it (the only actor that exists when the simulation starts)."""
    try:
        lhost = engine.netzone_root.create_host("__oracle_launcher__", 1.0)
        lhost.seal()
    except Exception as exc:
        die("cannot create the launcher host: %s" % exc, 3)
    sg.Actor.create("launcher", lhost, body)


def show_route(plat, src, dst):
    """Debug helper: print the links of the route src->dst as JSON.  The route is asked for
    by an actor at time 0 (before the simulation starts SimGrid may not answer)."""
    sg = import_simgrid()
    engine = sg.Engine(["simgrid_oracle", "--log=root.thres:critical"])
    try:
        engine.load_platform(plat)
    except Exception as exc:
        die("SimGrid could not load platform %s: %s" % (plat, exc), 3)
    hosts = {h.name: h for h in engine.all_hosts}
    for h in (src, dst):
        if h not in hosts:
            die("unknown host %r" % h)
    answer = []

    def query():
        try:
            links, lat = hosts[src].route_to(hosts[dst])
            answer.append({"src": src, "dst": dst, "latency": lat,
                           "links": [{"name": l.name, "bandwidth": l.bandwidth, "latency": l.latency}
                                     for l in links]})
        except Exception as exc:
            answer.append("%s: %s" % (type(exc).__name__, exc))

    start_launcher(sg, engine, query)
    try:
        engine.run()
    except Exception as exc:
        die("SimGrid run failed: %s: %s" % (type(exc).__name__, exc), 3)
    if not answer or not isinstance(answer[0], dict):
        die("SimGrid failed while computing the route: %s" % (answer[0] if answer else "no answer"), 3)
    return answer[0]


def write_json(result):
    """The whole object as JSON, one result per line (floats keep full precision: repr)."""
    head = dict((k, v) for k, v in result.items() if k != "results")
    text = json.dumps(head)[:-1] + ', "results": [\n'
    if result["results"]:
        text += ",\n".join("  " + json.dumps(r) for r in result["results"]) + "\n"
    text += "]}\n"
    sys.stdout.write(text)


def write_expected(scen_path, result):
    """Store SimGrid's results in the scenario file under "expected" (for tests that run
    without SimGrid).  The file is rewritten with one activity / result per line."""
    with open(scen_path) as fh:
        scen = json.load(fh)
    scen["expected"] = {"simgrid_version": result["simgrid_version"],
                        "results": [dict((k, r.get(k)) for k in ("index", "finish", "failed"))
                                    for r in result["results"]]}
    lines = ["{"]
    keys = [k for k in scen if k not in ("activities", "expected")] + ["activities", "expected"]
    for n, key in enumerate(keys):
        comma = "," if n + 1 < len(keys) else ""
        if key == "activities":
            body = ",\n".join("  " + json.dumps(a) for a in scen[key])
            lines.append(' "activities": [\n%s\n ]%s' % (body, comma))
        elif key == "expected":
            exp = scen[key]
            body = ",\n".join("   " + json.dumps(r) for r in exp["results"])
            lines.append(' "expected": {"simgrid_version": %s, "results": [\n%s\n ]}%s'
                         % (json.dumps(exp["simgrid_version"]), body, comma))
        else:
            lines.append(" %s: %s%s" % (json.dumps(key), json.dumps(scen[key]), comma))
    lines.append("}")
    tmp = scen_path + ".tmp"
    with open(tmp, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    os.replace(tmp, scen_path)


def main(argv):
    if len(argv) >= 2 and argv[1] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0
    if len(argv) == 5 and argv[1] == "--route":
        result = show_route(argv[2], argv[3], argv[4])
        sys.stdout.write(json.dumps(result, indent=1) + "\n")
        sys.stdout.flush()
        return 0
    else:
        args = argv[1:]
        extra = []
        scen = None
        explain = skip = model = store = False
        while args:
            a = args.pop(0)
            if a == "--explain":
                explain = True
            elif a == "--model":
                model = True
            elif a == "--write-expected":
                store = True
            elif a == "--skip-unroutable":
                skip = True
            elif a == "--cfg":
                if not args:
                    die("--cfg needs a KEY:VALUE argument")
                extra.append(args.pop(0))
            elif a.startswith("--cfg="):
                extra.append(a[len("--cfg="):])
            elif scen is None and not a.startswith("-"):
                scen = a
            else:
                die("unexpected argument %r (see --help)" % a)
        if scen is None:
            die("usage: simgrid_oracle.py SCENARIO.json [--explain] [--model] [--write-expected] [--skip-unroutable] "
                "[--cfg KEY:VALUE ...]  (see --help)")
        result = run_scenario(scen, extra, explain, skip, model)
        if store:
            if extra or skip:
                die("--write-expected cannot be combined with --cfg or --skip-unroutable")
            write_expected(scen, result)
    write_json(result)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    code = main(sys.argv)
    sys.stderr.flush()
    # Skip interpreter teardown: SimGrid's Python bindings may misbehave when destroyed.
    os._exit(code)
