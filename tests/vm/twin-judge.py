#!/usr/bin/env python3
"""Judge a twin made through a real kernel (tests/vm/twin-host.sh).

The guest measured each request of the two traces on the served drive, twice (DIR/NAME.txt and
DIR/NAME.again.txt: "LBA BLOCKS SERVICE_MS" a line) and made the twin (DIR/twin.json). Here each
pass becomes a DiskSim validate trace holding the guest's times as the measured ones (and the
think times of DIR/twin-NAME.think as the pauses), and `drivescope replay` replays it on the twin
(seed 2: its own noise) and on the served preset itself: its demerit against the guest's times,
as a percentage of their mean (`demerit_pct`), is the twin's figure and the host path's share.
The first pass is the figure judged; the twin against the second pass, and the second pass
against the first (the guest against itself: how far the host path moves between two replays of
one trace, the floor under any twin's figure) are printed beside it. Each figure is printed with
whether it meets the issue's goal (6 %). The goal is not met through a guest every run yet
(docs/twin.md, "Through a real kernel"), so it fails the run only with --require-goal; without it
the run fails only where a figure cannot be made (a trace not served whole, a twin that does not
open, a replay that fails, a demerit here that disagrees with drivescope's).

Usage: twin-judge.py --drivescope BIN --preset NAME --dir DIR [--limit PCT] [--require-goal]
"""
import argparse
import bisect
import json
import math
import os
import subprocess
import sys

TRACES = ("random4k", "database")


def rows_of(d, name, suffix):
    path = os.path.join(d, f"{name}{suffix}.txt")
    if not os.path.exists(path):
        return None
    with open(path, encoding="ascii") as f:
        return [line.split() for line in f if line.strip()]


def validate_trace(d, name, suffix=""):
    rows = rows_of(d, name, suffix)
    if rows is None:
        return None
    path = os.path.join(d, f"{name}{suffix}.validate")
    with open(os.path.join(d, f"twin-{name}.think"), encoding="ascii") as f:
        think = [int(x) for x in f if x.strip()]
    if len(rows) != len(think):
        raise SystemExit(f"twin-judge: FAIL: {name}{suffix}: {len(rows)} requests measured for {len(think)} in the trace")
    with open(path, "w", encoding="ascii") as out:
        for i, (lba, blocks, ms) in enumerate(rows):
            nxt = think[i + 1] if i + 1 < len(think) else 0
            out.write(f"R Read {lba} {blocks} {float(ms) * 1000:.3f} {nxt}\n")
    return path


def replay(ds, target, trace):
    r = subprocess.run([ds, "replay", target, trace, "--seed", "2", "--json"],
                       capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise SystemExit(f"twin-judge: FAIL: replay {target} {trace}: {r.stderr.strip()}")
    return json.loads(r.stdout)["replay"]


# DiskSim's demerit (src/tests/demerit.cpp, where its definition is told): the times' distribution
# in DiskSim's buckets (1 µs wide below 0.1 ms, ~1 % above; 1750 of them, the last taking the
# rest), its CDF as DiskSim prints it (6 decimals), the two CDFs read backwards at p = 0.0001 ...
# 1 and the root mean square of the differences. Only for the guest against itself, which no
# replay gives; checked against drivescope's own figure on every twin replay (main()).
def _edges():
    e, v = [], 0
    for _ in range(1750):
        e.append(v)
        v += 1 + abs(v) // 100
    return e


EDGES = _edges()


def _cdf(times_ms):
    counts = [0] * len(EDGES)
    for t in times_ms:
        us = t * 1000
        v = int(min(max(us, -1.0), 1e15)) if math.isfinite(us) else int(1e15)
        if v < 0:
            k = 0
        elif v >= EDGES[-2]:
            k = len(EDGES) - 1
        else:
            k = bisect.bisect_right(EDGES, v)
        counts[k] += 1
    out, cum, n = [], 0.0, len(times_ms)
    for i, edge in enumerate(EDGES):
        cum += counts[i] / n
        printed = math.floor(cum * 1e6 + 0.5) / 1e6  # C's round() for a positive value
        out.append((edge / 1000, printed))
        if printed >= 1.0:
            break
    return out


def _time_at(c, p, i):
    while i < len(c) and c[i][1] < p:
        i += 1
    if i == 0:
        return c[0][0], i
    if i >= len(c):
        return c[-1][0], i
    (x0, p0), (x1, p1) = c[i - 1], c[i]
    return x0 + (p - p0) / (p1 - p0) * (x1 - x0), i


def demerit_ms(simulated, measured):
    a, b = _cdf(simulated), _cdf(measured)
    if not a or not b or a[-1][1] < 1 or b[-1][1] < 1:
        return math.nan
    ia = ib = 0
    s = 0.0
    for k in range(1, 10001):
        p = k / 10000
        ta, ia = _time_at(a, p, ia)
        tb, ib = _time_at(b, p, ib)
        s += (ta - tb) ** 2
    return math.sqrt(s / 10000)


def figure(ds, target, trace):
    """The demerit % of target against the trace's measured times, and the replay's means; the
    demerit recomputed here must be drivescope's (else this file's copy of it has drifted)."""
    rep = replay(ds, target, trace)
    c = rep["comparisons"][0]
    reqs = rep["requests"]
    mine = demerit_ms([q["service_ms"] for q in reqs], [q["measured_ms"] for q in reqs])
    if not math.isclose(mine, c["demerit_ms"], rel_tol=1e-6, abs_tol=1e-9):
        raise SystemExit(f"twin-judge: FAIL: the demerit here ({mine:.6f} ms) is not drivescope's "
                         f"({c['demerit_ms']:.6f} ms) on {target} {trace}")
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
        pct, guest_mean, twin_mean = figure(a.drivescope, "sim:" + twin, trace)
        host_pct, _, preset_mean = figure(a.drivescope, "sim:" + a.preset, trace)
        ok = pct <= a.limit
        fails += not ok
        print(f"twin-judge: {name}: twin {pct:.2f} % of the guest's mean {guest_mean:.3f} ms (twin's mean "
              f"{twin_mean:.3f}); the preset without the host path {host_pct:.2f} % (its mean {preset_mean:.3f}): "
              f"goal of {a.limit:g} % {'met' if ok else 'NOT met'}")
        again = validate_trace(a.dir, name, ".again")
        if again is None:
            print(f"twin-judge: {name}: no second pass (the guest's floor is not told)")
            continue
        pct2, mean2, _ = figure(a.drivescope, "sim:" + twin, again)
        first = [float(r[2]) for r in rows_of(a.dir, name, "")]
        second = [float(r[2]) for r in rows_of(a.dir, name, ".again")]
        floor = 100 * demerit_ms(second, first) / (sum(first) / len(first))
        print(f"twin-judge: {name}: twin {pct2:.2f} % of the guest's second pass (its mean {mean2:.3f} ms); "
              f"the guest against itself (second pass against the first) {floor:.2f} %")
    if fails and not a.require_goal:
        print(f"twin-judge: the goal is not met on {fails} of {len(TRACES)} traces (not required: --require-goal)")
    return 1 if fails and a.require_goal else 0


if __name__ == "__main__":
    sys.exit(main())
