#!/usr/bin/env python3
"""Checks one `drivescope bench --json` document from a target without mechanics (a regular
file, zram, a loop device): every asked-for test produced a result and no error, and the figures
that any working target must have are finite and positive. No accuracy is claimed for such
targets, so nothing is compared with a truth; only sanity.

usage: check_bench.py JSON_FILE --tests access,transfer,... [--block-bytes N] [--write]
                      [--summary LABEL]
Prints one line per failed check and exits 1 if any failed; with --summary also prints a one-line
digest of the key figures (for the report table in docs/methods.md).
"""
import argparse
import json
import math
import sys

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def positive(obj, key, where):
    v = obj.get(key) if isinstance(obj, dict) else None
    return check(num(v) and v > 0, f"{where}.{key} = {v!r}: expected a finite number > 0")


def no_negative_numbers(obj, where):
    """No figure of a target may be negative or non-finite (NaN/inf never reach JSON as numbers,
    but a negative seek or rate from a model misfit would)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if not k.endswith("_exponent"):  # slopes of log-log fits may fall
                no_negative_numbers(v, f"{where}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            no_negative_numbers(v, f"{where}[{i}]")
    elif num(obj):
        check(obj >= 0, f"{where} = {obj}: negative")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json_file")
    ap.add_argument("--tests", required=True)
    ap.add_argument("--block-bytes", type=int, default=0)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--summary", default="")
    a = ap.parse_args()

    try:
        with open(a.json_file) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"FAIL: stdout is not one JSON document: {e}")
        return 1
    tests = doc.get("tests", {})
    check(isinstance(tests, dict), "no tests object")
    check("errors" not in tests, f"tests.errors present: {tests.get('errors')}")
    wanted = [t for t in a.tests.split(",") if t]
    for t in wanted:
        check(isinstance(tests.get(t), dict), f"tests.{t} missing")
    no_negative_numbers(tests, "tests")
    positive(tests, "drive_time_s", "tests")
    lb = a.block_bytes

    if isinstance(tests.get("access"), dict):
        x = tests["access"]
        w = "tests.access"
        for k in ("mean_ms", "p50_ms", "p99_ms"):
            positive(x.get("read", {}), k, w + ".read")
        check(x.get("read", {}).get("samples", 0) >= 10, f"{w}.read.samples too few")
        positive(x, "command_overhead_ms", w)
        positive(x, "block_bytes", w)
        if lb:
            check(x.get("block_bytes") == lb, f"{w}.block_bytes = {x.get('block_bytes')}, expected {lb}")
        check(len(x.get("map", [])) > 0, f"{w}.map empty")
        if a.write:
            check(isinstance(x.get("write"), dict), f"{w}.write missing with --write")
            if isinstance(x.get("write"), dict):
                positive(x["write"], "mean_ms", w + ".write")
        positive(x, "drive_time_s", w)

    if isinstance(tests.get("transfer"), dict):
        x = tests["transfer"]
        w = "tests.transfer"
        pts = x.get("points", [])
        check(len(pts) >= 2, f"{w}.points: {len(pts)} points")
        for i, p in enumerate(pts):
            positive(p, "mb_s", f"{w}.points[{i}]")
        # No mechanics, so no zones: the positioning verdict withholds them (docs/methods.md).
        check(x.get("zones") == [], f"{w}.zones = {x.get('zones')!r} on a target without mechanics")
        for k in ("outer_mb_s", "inner_mb_s", "outer_inner_ratio"):  # zone rates: no zones, no figure
            check(x.get(k) is None, f"{w}.{k} = {x.get(k)!r} on a target without mechanics")
        positive(x, "read_size_bytes", w)
        positive(x, "drive_time_s", w)

    if any(t in tests for t in ("transfer", "access", "queue")):
        x = tests.get("positioning")
        w = "tests.positioning"
        check(isinstance(x, dict), f"{w} missing")
        if isinstance(x, dict):
            check(x.get("mechanical") is False, f"{w}.mechanical = {x.get('mechanical')!r}: {x.get('evidence')}")

    if isinstance(tests.get("cache"), dict):
        x = tests["cache"]
        # true/false where a probe told, null (with a note) where none could: no hit line to judge
        # by (a target without a cache told apart), or the budget spent before the probe
        ra = x.get("read_ahead", "missing")
        check(ra is None or isinstance(ra, bool), f"tests.cache.read_ahead = {ra!r}, not a boolean or null")
        check(ra is not None or bool(x.get("notes")), "tests.cache.read_ahead null without a note")
        # (its drive time may round to 0.000 s on a RAM disk: a few dozen reads of microseconds)
        check(num(x.get("drive_time_s")), "tests.cache.drive_time_s missing")

    if isinstance(tests.get("blocksize"), dict):
        x = tests["blocksize"]
        w = "tests.blocksize"
        rows = x.get("rows", [])
        check(len(rows) >= 1, f"{w}.rows empty")
        if lb and rows:
            check(rows[0].get("block_bytes") == lb, f"{w}.rows[0].block_bytes = {rows[0].get('block_bytes')}, expected {lb}")
        for i, r in enumerate(rows):
            positive(r, "read_mb_s", f"{w}.rows[{i}]")
            positive(r, "read_iops", f"{w}.rows[{i}]")
            if a.write:
                positive(r, "write_mb_s", f"{w}.rows[{i}]")
            else:
                check("write_mb_s" not in r, f"{w}.rows[{i}].write_mb_s without --write")

    if isinstance(tests.get("queue"), dict):
        x = tests["queue"]
        w = "tests.queue"
        positive(x, "block_bytes", w)
        if lb:
            check(x.get("block_bytes") == lb, f"{w}.block_bytes = {x.get('block_bytes')}, expected {lb}")
        ds = x.get("depths", [])
        check(len(ds) >= 2, f"{w}.depths: {len(ds)}")
        for i, d in enumerate(ds):
            positive(d, "iops", f"{w}.depths[{i}]")
            positive(d, "mean_ms", f"{w}.depths[{i}]")
        # Nothing here has a positioning cost a reordering could save: no verdict either way.
        check(x.get("reorders") is None, f"{w}.reorders = {x.get('reorders')!r} on a target without mechanics")
        check(x.get("no_positioning_cost") is True, f"{w}.no_positioning_cost = {x.get('no_positioning_cost')!r}")

    if isinstance(tests.get("patterns"), dict):
        x = tests["patterns"]
        w = "tests.patterns"
        cells = x.get("cells", [])
        ran = [c for c in cells if not c.get("skipped")]
        check(len(ran) >= 1, f"{w}: no cell ran")
        for c in ran:
            positive(c, "iops", f"{w}.cells[{c.get('pattern')} QD{c.get('depth')} w{c.get('write_pct')}]")
        writers = [c for c in cells if c.get("write_pct", 0) > 0]
        if a.write:
            check(all(not c.get("skipped") for c in writers), f"{w}: write cells skipped with --write")
            check(any(c.get("writes", 0) > 0 for c in ran), f"{w}: no write done with --write")
        else:
            check(all(c.get("skipped") for c in writers), f"{w}: a write cell ran without --write")

    for f in failures:
        print("FAIL:", f)
    if a.summary:
        print(summary(a.summary, tests))
    return 1 if failures else 0


def summary(label, t):
    """One line of key figures: the row of the report table."""
    def g(obj, *path):
        for p in path:
            if isinstance(obj, dict):
                obj = obj.get(p)
            elif isinstance(obj, list) and isinstance(p, int) and -len(obj) <= p < len(obj):
                obj = obj[p]
            else:
                return None
        return obj

    def f(v, fmt="{:.3g}"):
        return "-" if v is None else (fmt.format(v) if num(v) else str(v))

    parts = [label]
    if "access" in t:
        parts.append(f"access {f(g(t, 'access', 'block_bytes'))} B: mean {f(g(t, 'access', 'read', 'mean_ms'))} ms, "
                     f"overhead {f(g(t, 'access', 'command_overhead_ms'))} ms, rpm {f(g(t, 'access', 'rpm_estimate'))}, "
                     f"seek {f(g(t, 'access', 'avg_seek_ms'))} ms")
    if "transfer" in t:
        pts = g(t, "transfer", "points") or []
        rates = sorted(p["mb_s"] for p in pts) or [None]
        parts.append(f"transfer {f(rates[0])}..{f(rates[-1])} MB/s by position, "
                     f"{len(g(t, 'transfer', 'zones') or [])} zone(s), surfaces {f(g(t, 'transfer', 'surfaces_estimate'))}")
    if "cache" in t:
        parts.append(f"cache burst {f(g(t, 'cache', 'burst_mb_s'))} MB/s, read-ahead {f(g(t, 'cache', 'read_ahead'))}")
    if "blocksize" in t:
        rows = g(t, "blocksize", "rows") or []
        if rows:
            parts.append(f"blocksize {rows[0]['block_bytes']} B {f(rows[0].get('read_mb_s'))} MB/s .. "
                         f"{rows[-1]['block_bytes']} B {f(rows[-1].get('read_mb_s'))} MB/s"
                         + (f" (write {f(rows[0].get('write_mb_s'))} .. {f(rows[-1].get('write_mb_s'))})"
                            if 'write_mb_s' in rows[-1] else ""))
    if "queue" in t:
        ds = g(t, "queue", "depths") or []
        if ds:
            parts.append(f"queue {f(g(t, 'queue', 'block_bytes'))} B: IOPS {f(ds[0].get('iops'), '{:.0f}')} at QD1, "
                         f"{f(ds[-1].get('iops'), '{:.0f}')} at QD{ds[-1].get('depth')}, reorders {f(g(t, 'queue', 'reorders'))}")
    if "patterns" in t:
        cells = [c for c in (g(t, "patterns", "cells") or []) if not c.get("skipped")]
        db = [c for c in cells if c["pattern"] == "database"]
        parts.append(f"patterns: {len(cells)} cells, database QD1 {f(db[0]['iops'], '{:.0f}') if db else '-'} IOPS, "
                     f"webserver avg {f(g(t, 'patterns', 'webserver_average_iops'), '{:.0f}')}")
    return " | ".join(parts)


if __name__ == "__main__":
    sys.exit(main())
