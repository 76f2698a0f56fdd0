#!/usr/bin/python3
"""Bag-of-tasks master/worker in SimGrid 3.32: the SimGrid side of gridsim's BoT agreement test.

Usage (run with /usr/bin/python3, which has Debian's python3-simgrid):

  simgrid_bot.py --platform FILE --master HOST --nodes N --tasks N --flops F --bytes B
                 [--control-bytes 100] --policy wq|gss|fac2 [--chunk k] [--min-chunk k]
                 [--cfg KEY:VALUE ...]

The protocol is gridsim's (schedulers/src/bot/app.rs):

- The master runs on HOST; one worker runs on each of the first nodes-1 other hosts, in the
  order the hosts appear in the platform file (SimGrid's Engine.all_hosts is sorted by name,
  so the order is read from the XML: <host> elements and expanded <cluster> radicals, in
  document order).
- At t=0 every worker sends a request of control-bytes to the master. The master has a
  receive posted for every worker at all times, so a request is transferred as soon as it
  is sent. The master serves requests in arrival order, in zero time, and never blocks on a
  send: the reply, one message of k*B bytes (k = 0: a control-bytes stop message), is sent
  asynchronously.
- A worker that receives k > 0 tasks computes k*F flops, then sends its next request.
- Requests that end at the same date: the master is woken by the one SimGrid completes first,
  then Comm.wait_any returns the others in worker order. gridsim serves them in its own
  completion order, so on platforms with exact ties (identical workers, e.g. a homogeneous
  cluster) the two may hand the same chunks to different workers; the makespan is the same
  there by symmetry. grid90 has no such ties.

Policies (R = tasks not yet handed out, P = number of workers):
  wq   min(k, R)                  (--chunk k, default 1)
  gss  min(R, max(k, ceil(R/P)))  (--min-chunk k, default 1)
  fac2 batches of P answers; each chunk is ceil(R_batch / (2P)) (at least 1) where R_batch
       is R when the batch began, clipped to R.

Output (stdout, JSON): {"makespan": date the last exec finished,
  "chunks": [[worker, size, sent, start, end], ...] in completion order,
  "activities": comms + execs simulated, "workers": [host names]}.
SimGrid's log is set to critical; stderr gets the "contexts/factory" line from the import.
Exit codes: 0 ok, 2 bad usage or parameters, 3 SimGrid failure.
"""

import json
import math
import os
import sys
import xml.etree.ElementTree as ET


def die(msg, code=2):
    sys.stderr.write("simgrid_bot.py: %s\n" % msg)
    sys.stderr.flush()
    os._exit(code)


def parse_radicals(text):
    """SimGrid radical list: '0-99', '1,3-5', '7' (inclusive ranges, in the given order)."""
    out = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            raise ValueError("empty item in radical %r" % text)
        if "-" in part[1:]:
            cut = part.index("-", 1)
            lo, hi = int(part[:cut]), int(part[cut + 1:])
            if hi < lo:
                raise ValueError("decreasing range in radical %r" % text)
            out.extend(range(lo, hi + 1))
        else:
            out.append(int(part))
    return out


def hosts_in_file_order(path):
    """Host names in the order they appear in the platform file (gridsim's HostId order)."""
    names = []
    base = os.path.dirname(os.path.abspath(path))

    def walk(elem):
        for child in elem:
            tag = child.tag
            if tag == "host":
                names.append(child.get("id"))
            elif tag == "cluster":
                prefix, suffix = child.get("prefix", ""), child.get("suffix", "")
                for r in parse_radicals(child.get("radical", "")):
                    names.append("%s%d%s" % (prefix, r, suffix))
            elif tag == "include":
                walk(ET.parse(os.path.join(base, child.get("file"))).getroot())
            else:
                walk(child)

    walk(ET.parse(path).getroot())
    return names


class Policy:
    """The chunk size for one request, exactly as gridsim's policies compute it."""

    def __init__(self, name, workers, chunk, min_chunk):
        self.name = name
        self.p = workers
        self.chunk = max(1, chunk)
        self.min_chunk = max(1, min_chunk)
        self.batch_chunk = 0
        self.left_in_batch = 0

    def assign(self, remaining):
        if self.name == "wq":
            size = min(self.chunk, remaining)
        elif self.name == "gss":
            size = min(remaining, max(self.min_chunk, -(-remaining // self.p)))
        else:  # fac2: batches of P answers
            if self.left_in_batch == 0:
                self.batch_chunk = max(1, -(-remaining // (2 * self.p)))
                self.left_in_batch = self.p
            self.left_in_batch -= 1
            size = min(self.batch_chunk, remaining)
        return min(max(size, 1), remaining)


def parse_args(argv):
    opts = {"control-bytes": "100", "chunk": "1", "min-chunk": "1"}
    cfg = []
    known = {"platform", "master", "nodes", "tasks", "flops", "bytes", "control-bytes", "policy",
             "chunk", "min-chunk"}
    args = list(argv)
    while args:
        a = args.pop(0)
        if a in ("-h", "--help"):
            sys.stdout.write(__doc__)
            sys.stdout.flush()
            os._exit(0)
        if not a.startswith("--"):
            die("unexpected argument %r (see --help)" % a)
        key, eq, val = a[2:].partition("=")
        if not eq:
            if not args:
                die("--%s needs a value" % key)
            val = args.pop(0)
        if key == "cfg":
            cfg.append(val)
        elif key in known:
            opts[key] = val
        else:
            die("unknown option --%s (see --help)" % key)
    for key in ("platform", "master", "nodes", "tasks", "flops", "bytes", "policy"):
        if key not in opts:
            die("--%s is required (see --help)" % key)
    try:
        out = {
            "platform": opts["platform"],
            "master": opts["master"],
            "nodes": int(opts["nodes"]),
            "tasks": int(opts["tasks"]),
            "flops": float(opts["flops"]),
            "bytes": float(opts["bytes"]),
            "control": float(opts["control-bytes"]),
            "policy": opts["policy"],
            "chunk": int(opts["chunk"]),
            "min_chunk": int(opts["min-chunk"]),
            "cfg": cfg,
        }
    except ValueError as exc:
        die("bad number: %s" % exc)
    if out["policy"] not in ("wq", "gss", "fac2"):
        die("--policy must be wq, gss or fac2, got %r" % out["policy"])
    if out["tasks"] <= 0 or out["flops"] < 0 or out["bytes"] < 0 or out["control"] < 0:
        die("--tasks must be positive; --flops, --bytes and --control-bytes non-negative")
    return out


def whole_bytes(x, what):
    if x != math.floor(x):
        die("%s must be a whole number of bytes, got %r" % (what, x))
    return int(x)


def run(o):
    try:
        order = hosts_in_file_order(o["platform"])
    except (OSError, ET.ParseError, ValueError) as exc:
        die("cannot read the hosts of %s: %s" % (o["platform"], exc), 3)
    if o["master"] not in order:
        die("no host %r in %s" % (o["master"], o["platform"]))
    if not 2 <= o["nodes"] <= len(order):
        die("--nodes must be from 2 to %d (the platform's hosts), got %d" % (len(order), o["nodes"]))
    worker_names = [h for h in order if h != o["master"]][:o["nodes"] - 1]
    control = whole_bytes(o["control"], "--control-bytes")
    whole_bytes(o["bytes"], "--bytes")

    import simgrid as sg
    args = ["simgrid_bot", "--log=root.thres:critical"] + ["--cfg=%s" % c for c in o["cfg"]]
    engine = sg.Engine(args)
    try:
        engine.load_platform(o["platform"])
    except Exception as exc:
        die("SimGrid could not load %s: %s" % (o["platform"], exc), 3)
    hosts = {h.name: h for h in engine.all_hosts}
    for name in worker_names + [o["master"]]:
        if name not in hosts:
            die("host %r of the file is unknown to SimGrid" % name, 3)

    p = len(worker_names)
    policy = Policy(o["policy"], p, o["chunk"], o["min_chunk"])
    flops, task_bytes, tasks = o["flops"], o["bytes"], o["tasks"]
    req_boxes = [sg.Mailbox.by_name("request-%d" % w) for w in range(p)]
    reply_boxes = [sg.Mailbox.by_name("reply-%d" % w) for w in range(p)]
    chunks = []          # [worker, size, sent, start, end], in completion order
    counter = {"comms": 0, "execs": 0}

    def master():
        remaining = tasks
        # One receive posted per worker at all times: a request moves as soon as it is sent.
        # (The PyGetAsync holders must stay alive until their comm is over: SimGrid writes the
        # payload into them.)
        pending, holders = [], []
        for box in req_boxes:
            comm, data = box.get_async()
            pending.append(comm)
            holders.append(data)
        owner = list(range(p))
        # The last reply sent to each worker. The master waits on it (it is over: the worker got
        # it) before sending the next one; otherwise SimGrid keeps every reply in the master's
        # list of pending activities and scans that list at each comm completion (N^2 time).
        replies = [None] * p
        while pending:
            i = sg.Comm.wait_any(pending)
            w = owner[i]
            counter["comms"] += 1
            if replies[w] is not None:
                replies[w].wait()  # returns at once
            if remaining == 0:
                replies[w] = reply_boxes[w].put_async((0, 0.0), control)
                del pending[i]
                del holders[i]
                del owner[i]
                continue
            size = policy.assign(remaining)
            remaining -= size
            replies[w] = reply_boxes[w].put_async((size, engine.clock), int(size * task_bytes))
            pending[i], holders[i] = req_boxes[w].get_async()
        for reply in replies:
            if reply is not None:
                reply.wait()

    def worker(w):
        def body():
            while True:
                reply, data = reply_boxes[w].get_async()
                request = req_boxes[w].put_async(w, control)
                reply.wait()
                request.wait()  # already over: the reply follows the request
                size, sent = data.get()
                counter["comms"] += 1
                if size == 0:
                    return
                start = engine.clock
                sg.this_actor.execute(size * flops)
                counter["execs"] += 1
                chunks.append([w, size, sent, start, engine.clock])
        return body

    sg.Actor.create("master", hosts[o["master"]], master)
    for w, name in enumerate(worker_names):
        sg.Actor.create("worker-%d" % w, hosts[name], worker(w))
    try:
        engine.run()
    except Exception as exc:
        die("SimGrid run failed: %s: %s" % (type(exc).__name__, exc), 3)
    done = sum(c[1] for c in chunks)
    if done != tasks:
        die("only %d of %d tasks were computed" % (done, tasks), 3)
    return {
        "simgrid_version": sg.simgrid_version,
        "makespan": max(c[4] for c in chunks),
        "activities": counter["comms"] + counter["execs"],
        "workers": worker_names,
        "chunks": chunks,
    }


def main():
    o = parse_args(sys.argv[1:])
    result = run(o)
    head = dict((k, v) for k, v in result.items() if k != "chunks")
    text = json.dumps(head)[:-1] + ', "chunks": [\n'
    text += ",\n".join(" " + json.dumps(c) for c in result["chunks"])
    text += "\n]}\n"
    sys.stdout.write(text)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
    sys.stderr.flush()
    # Skip interpreter teardown: SimGrid's Python bindings may misbehave when destroyed.
    os._exit(0)
