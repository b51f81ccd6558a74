#!/usr/bin/env python3
"""Judge a twin made through a real kernel (tests/vm/twin-host.sh).

The guest measured each request of the two traces on the served drive (DIR/NAME.txt: "LBA BLOCKS
SERVICE_MS" a line) and made the twin (DIR/twin.json). Here each trace becomes a DiskSim validate
trace holding the guest's times as the measured ones (and the think times of DIR/twin-NAME.think
as the pauses), and `drivescope replay` replays it on the twin (seed 2: its own noise) and on the
served preset itself: its demerit against the guest's times, as a percentage of their mean
(`demerit_pct`), is the twin's figure and the host path's share. Each is printed with whether it
meets the issue's goal (6 %). The goal is not met through a guest yet (docs/twin.md, "Through a
real kernel"), so it fails the run only with --require-goal; without it the run fails only where a
figure cannot be made (a trace not served whole, a twin that does not open, a replay that fails).

Usage: twin-judge.py --drivescope BIN --preset NAME --dir DIR [--limit PCT] [--require-goal]
"""
import argparse
import json
import os
import subprocess
import sys

TRACES = ("random4k", "database")


def validate_trace(d, name):
    path = os.path.join(d, f"{name}.validate")
    with open(os.path.join(d, f"{name}.txt"), encoding="ascii") as f:
        rows = [line.split() for line in f if line.strip()]
    with open(os.path.join(d, f"twin-{name}.think"), encoding="ascii") as f:
        think = [int(x) for x in f if x.strip()]
    if len(rows) != len(think):
        raise SystemExit(f"twin-judge: FAIL: {name}: {len(rows)} requests measured for {len(think)} in the trace")
    with open(path, "w", encoding="ascii") as out:
        for i, (lba, blocks, ms) in enumerate(rows):
            nxt = think[i + 1] if i + 1 < len(think) else 0
            out.write(f"R Read {lba} {blocks} {float(ms) * 1000:.3f} {nxt}\n")
    return path


def demerit(ds, target, trace):
    r = subprocess.run([ds, "replay", target, trace, "--seed", "2", "--json"],
                       capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise SystemExit(f"twin-judge: FAIL: replay {target} {trace}: {r.stderr.strip()}")
    c = json.loads(r.stdout)["replay"]["comparisons"][0]
    return c["demerit_pct"], c["measured"]["mean_ms"], c["simulated"]["mean_ms"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--drivescope", required=True)
    ap.add_argument("--preset", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--limit", type=float, default=6.0)
    ap.add_argument("--require-goal", action="store_true")
    a = ap.parse_args()
    twin = os.path.join(a.dir, "twin.json")
    fails = 0
    for name in TRACES:
        trace = validate_trace(a.dir, name)
        pct, guest_mean, twin_mean = demerit(a.drivescope, "sim:" + twin, trace)
        host_pct, _, preset_mean = demerit(a.drivescope, "sim:" + a.preset, trace)
        ok = pct <= a.limit
        fails += not ok
        print(f"twin-judge: {name}: twin {pct:.2f} % of the guest's mean {guest_mean:.3f} ms (twin's mean "
              f"{twin_mean:.3f}); the preset without the host path {host_pct:.2f} % (its mean {preset_mean:.3f}): "
              f"goal of {a.limit:g} % {'met' if ok else 'NOT met'}")
    if fails and not a.require_goal:
        print(f"twin-judge: the goal is not met on {fails} of {len(TRACES)} traces (not required: --require-goal)")
    return 1 if fails and a.require_goal else 0


if __name__ == "__main__":
    sys.exit(main())
