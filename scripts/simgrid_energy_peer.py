#!/usr/bin/env python3
"""Replays a batch run's host activity in SimGrid 3.32 with its host energy plugin and prints each
host's joules as JSON, for tests/batch_energy.rs to compare with gridsim's `energy` accounting.

Input (a JSON file named on the command line):
  {"speed": flop/s, "end": s, "boot_w": W, "shutdown_w": W,
   "hosts": [{"name": str, "wattage_per_state": "idle:epsilon:full", "wattage_off": W}],
   "executions": [{"host": i, "start": s, "end": s}],      one job per one-core host at a time
   "power": [{"host": i, "date": s, "state": "ShuttingDown" | "Off" | "Booting" | "On"}]}

Each host gets SimGrid pstates [speed, 0 f/s at boot_w, 0 f/s at shutdown_w], as SimGrid's
examples/platforms/energy_boot.xml models boot and shutdown; an execution is an actor computing
(end - start) x speed flops on it; off periods are its state_file. The plugin logs each host's
energy when the engine is destroyed; those lines are read back from this process's stderr by a
child run of this script (`--child`)."""

import json
import os
import re
import subprocess
import sys
import tempfile


def child(spec_path, platform_path):
    from simgrid import Actor, Engine, Host, this_actor

    with open(spec_path) as f:
        spec = json.load(f)
    e = Engine([sys.argv[0], "--cfg=plugin:host_energy", "--log=root.thres:warning",
                "--log=host_energy.thres:info"])
    e.load_platform(platform_path)
    hosts = [Host.by_name(h["name"]) for h in spec["hosts"]]
    actions = []
    for x in spec["executions"]:
        if x["end"] > x["start"]:
            actions.append((x["start"], 1, "exec", x["host"], x["end"] - x["start"]))
    pstate = {"ShuttingDown": 2, "Booting": 1, "On": 0}
    for c in spec["power"]:
        if c["state"] in pstate:
            actions.append((c["date"], 0, "pstate", c["host"], pstate[c["state"]]))
    actions.sort(key=lambda a: (a[0], a[1]))
    speed = spec["speed"]

    def work(seconds):
        def run():
            this_actor.execute(seconds * speed)
        return run

    def controller():
        for (date, _, kind, h, value) in actions:
            this_actor.sleep_until(date)
            if kind == "pstate":
                hosts[h].pstate = value
            else:
                Actor.create("job", hosts[h], work(value))
        this_actor.sleep_until(spec["end"])

    Actor.create("controller", Host.by_name("controller"), controller)
    e.run()


def main():
    spec_path = sys.argv[1]
    with open(spec_path) as f:
        spec = json.load(f)
    with tempfile.TemporaryDirectory() as tmp:
        lines = ['<?xml version="1.0"?>', '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
                 '<platform version="4.1">', '<zone id="z" routing="Full">']
        for i, h in enumerate(spec["hosts"]):
            # Off from each Off to the next Booting (a zero-length off, a reboot at the end of a
            # shutdown, is no off period).
            events = []
            off_since = None
            for c in spec["power"]:
                if c["host"] != i:
                    continue
                if c["state"] == "Off":
                    off_since = c["date"]
                elif c["state"] == "Booting" and off_since is not None:
                    if c["date"] > off_since:
                        events += [(off_since, 0), (c["date"], 1)]
                    off_since = None
            if off_since is not None and spec["end"] > off_since:
                events.append((off_since, 0))
            state = ""
            if events:
                path = os.path.join(tmp, f"{i}.state")
                with open(path, "w") as f:
                    f.write("".join(f"{d!r} {v}\n" for d, v in events))
                # Relative to the platform file: SimGrid 3.32 looks a profile file up in the
                # platform file's directory (an absolute name is not found).
                state = f' state_file="{i}.state"'
            watts = f'{h["wattage_per_state"]}, {spec["boot_w"]}:{spec["boot_w"]}, {spec["shutdown_w"]}:{spec["shutdown_w"]}'
            lines.append(f'<host id="{h["name"]}" speed="{spec["speed"]}f,0f,0f" pstate="0"{state}>'
                         f'<prop id="wattage_per_state" value="{watts}"/>'
                         f'<prop id="wattage_off" value="{h["wattage_off"]}"/></host>')
        lines += ['<host id="controller" speed="1f"><prop id="wattage_per_state" value="0:0"/></host>',
                  '</zone>', '</platform>']
        platform = os.path.join(tmp, "p.xml")
        with open(platform, "w") as f:
            f.write("\n".join(lines))
        run = subprocess.run([sys.executable, __file__, "--child", spec_path, platform],
                             capture_output=True, text=True)
        if run.returncode != 0:
            sys.stderr.write(run.stderr)
            sys.exit(1)
        energy = {m.group(1): float(m.group(2))
                  for m in re.finditer(r"Energy consumption of host (\S+): ([0-9.eE+-]+) Joules", run.stderr)}
    print(json.dumps({"joules": [energy[h["name"]] for h in spec["hosts"]]}))


if __name__ == "__main__":
    if sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
    else:
        main()
