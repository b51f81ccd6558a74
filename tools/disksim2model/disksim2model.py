#!/usr/bin/env python3
"""Add DiskSim's controller parameters to a drivescope disk model.

Usage: disksim2model.py SOURCE.json BASE_MODEL.json [-o OUT.json] [--truth TRUTH.json]
                        [--parv NAME.parv]

SOURCE.json is a drive in the DiskSim source form ("schema": "disk-model/v1": DiskSim's
.diskspecs/.model values as JSON, tests/data/disksim/). BASE_MODEL.json is the same drive already
converted to drivescope-disk-model/1 (zones, seek curve, cache size...: the rules in
tests/data/disk-models/README.md). The output is BASE_MODEL with its keys and values unchanged,
except the documented fixes below, plus a "controller" object (docs/disk-model.md, "Controller
keys") built from SOURCE by these rules:

- overheads_ms: DiskSim's eight controller overheads ("Read hit over. after read", ... "Write
  miss over. after write") and the read/write completion overheads, as they are.
- write_behind_level: DiskSim's "Fast write level" (0, 1 or 2).
- bulk_sector_ms: DiskSim's "Bulk sector transfer time" when it is positive.
- write_settle_ms: DiskSim's "Add. write settling delay" when it is negative (the top-level
  write_settle_ms of format /1 cannot be; it stays at 0 there).

--parv NAME.parv: DiskSim's own system file for the drive (with the .diskspecs it sources beside
it; tests/data/disksim/native/). The source form leaves out the bus, the reconnection and the
read-ahead rules; from these files the controller object also gets, by DiskSim's parameter names:
- bus: the "Read / Write block transfer time" of the bus the disk hangs on in the topology;
- read_reconnect: "High (read) water mark", "Set watermark by reqsize", "First reselect
  overhead", "Data preparation overhead", "Read disconnect afterread / afterwrite";
- write_reconnect: "Write disconnect overhead", "First reselect overhead" (as reselect_ms),
  "Data preparation overhead", "Minimum seek delay"; where "Extra write disconnect" is 1, also
  extra_disconnect from the five "Extradisc ..." figures and "Other reselect overhead";
- prefetch: "Buffer continuous read", "Read-ahead over requested", "Read-ahead on idle hit".
With --parv the model also keeps DiskSim's spare sectors where format /2 can say them: sparing
scheme 3 (the last "Number of spares" sectors of every track hold no LBA and pass under the head;
DiskSim 4.0 layout_g1.c, g1_ltop_sectpertrackspare) with the same count in every zone becomes
"spares": {"per_track": N} and the format drivescope-disk-model/2 (as `drivescope sim import`).
It also keeps, from the drive's own .model (the layout's zones as DiskSim has them, the rules of
`drivescope sim import`), with the format drivescope-disk-model/2:
- sparing scheme 1 (track sparing; DiskSim 4.0 layout_g1.c, g1_ltop_trackspare): each zone's
  "track_sparing": its "Empty space at zone front" as front_sectors, its "Number of spares" as
  spare_tracks and, as slipped_tracks, the tracks DiskSim's rule leaves without LBAs (each of
  the zone's "slips" at or below a track moves it one track on, in the list's order) before the
  last track that holds one;
- sparing scheme 2 (spare sectors at the end of every cylinder; g1_ltop_sectpercylspare) with
  the same "Number of spares" in every zone and no empty zone front: "spares": {"per_cylinder": N};
- for schemes 1 and 2 only, each zone's "Offset of first block" (whole sectors, as DiskSim's zone
  loader truncates it; g1_map_pbn_skew starts the zone there) as first_sector_offset, where it is
  below the zone's sectors per track. The other schemes' offsets are not kept: with their LBAs
  not where DiskSim has them, the angles alone move the model away from DiskSim.

Fixes to the base conversion (each a documented conversion error):
- cache.write_back is true for every write-behind level above 0 (the first conversion set it
  for level 2 only; level 1 is write-behind too, of one write at a time).

--truth TRUTH.json rewrites the drive's ground truth in place for the new model: its
mean_random_read_access_ms counts the controller time of a random read as DiskSim's read-miss
overhead after a read plus the read completion overhead (docs/disk-model.md, ground truth) in
place of command_overhead_ms. Nothing else in the truth depends on the controller keys.

The output is written as the models are stored: JSON indented by one space, keys in order.
"""
import argparse
import json
import os
import re
import sys

OVERHEAD_NAMES = {
    "read_hit": "Read hit over.",
    "read_miss": "Read miss over.",
    "write_hit": "Write hit over.",
    "write_miss": "Write miss over.",
}


def controller_block(src):
    """The "controller" object for a DiskSim source-form drive."""
    ov = src["overheads_ms"]
    overheads = {}
    for key, name in OVERHEAD_NAMES.items():
        overheads[key + "_after_read"] = ov[name + " after read"]
        overheads[key + "_after_write"] = ov[name + " after write"]
    overheads["read_completion"] = ov["Read completion overhead"]
    overheads["write_completion"] = ov["Write completion overhead"]
    block = {"overheads_ms": overheads, "write_behind_level": src["cache"]["fast_write_level"]}
    bulk = ov.get("Bulk sector transfer time", 0.0)
    if bulk > 0:
        block["bulk_sector_ms"] = bulk
    settle = src.get("add_write_settle_ms", 0.0)
    if settle < 0:
        block["write_settle_ms"] = settle
    return block


def param_blocks(text):
    """DiskSim parameter text: {block name: {parameter: number}} for every `disksim_TYPE NAME {`
    block (the parameters of blocks nested in it counted as its own)."""
    blocks, name, depth = {}, None, 0
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        head = re.match(r"\s*disksim_\w+\s+(\S+)\s*\{", line)
        if depth == 0 and head:
            name = head.group(1)
            blocks[name] = {}
        elif name:
            kv = re.match(r"\s*([^=]+?)\s*=\s*(-?[0-9.]+)\s*,?\s*$", line)
            if kv:
                blocks[name][kv.group(1)] = float(kv.group(2))
        depth += line.count("{") - line.count("}")
        if depth == 0:
            name = None
    return blocks


def native_params(parv_path):
    """(the disk's bus block, the disk's block) of DiskSim's .parv and the files it sources."""
    with open(parv_path, encoding="utf-8") as f:
        text = f.read()
    blocks = param_blocks(text)
    for sourced in re.findall(r"^source\s+(\S+)", text, re.M):
        with open(os.path.join(os.path.dirname(parv_path), sourced), encoding="utf-8") as f:
            blocks.update(param_blocks(f.read()))
    spec_of = dict(re.findall(r"instantiate\s*\[\s*(\w+)\s*\]\s*as\s+(\S+)", text))
    bus = re.search(r"disksim_bus\s+(\w+)\s*\[\s*disksim_disk\s+(\w+)", text)
    if not bus:
        raise ValueError(f"{parv_path}: no bus holding the disk in the topology")
    return blocks[spec_of[bus.group(1)]], blocks[spec_of[bus.group(2)]]


EXTRA_DISCONNECT_NAMES = {
    "command_ms": "Extradisc command overhead",
    "seek_delta_ms": "Extradisc seek delta",
    "disconnect_ms": "Extradisc disconnect overhead",
    "inter_disconnect_ms": "Extradisc inter-disconnect delay",
    "second_disconnect_ms": "Extradisc 2nd disconnect overhead",
    "reselect_ms": "Other reselect overhead",
}


def write_reconnect(disk):
    """The write side's bus phases (controller.write_reconnect) from a disk spec."""
    w = {
        "disconnect_ms": disk["Write disconnect overhead"],
        "reselect_ms": disk["First reselect overhead"],
        "data_prep_ms": disk["Data preparation overhead"],
        "min_seek_ms": disk["Minimum seek delay"],
    }
    if disk["Extra write disconnect"] == 1:
        w["extra_disconnect"] = {key: disk[name] for key, name in EXTRA_DISCONNECT_NAMES.items()}
    return w


def bus_keys(parv_path):
    """The controller's bus, read_reconnect and prefetch objects from DiskSim's own files."""
    bus, disk = native_params(parv_path)
    return {
        "bus": {"read_block_ms": bus["Read block transfer time"], "write_block_ms": bus["Write block transfer time"]},
        "read_reconnect": {
            "high_water": disk["High (read) water mark"],
            "by_request_size": disk["Set watermark by reqsize"] == 1,
            "first_reselect_ms": disk["First reselect overhead"],
            "data_prep_ms": disk["Data preparation overhead"],
            "disconnect_after_read_ms": disk["Read disconnect afterread"],
            "disconnect_after_write_ms": disk["Read disconnect afterwrite"],
        },
        "write_reconnect": write_reconnect(disk),
        "prefetch": {
            "continuous_read": int(disk["Buffer continuous read"]),
            "over_requested": int(disk["Read-ahead over requested"]),
            "on_idle_hit": disk["Read-ahead on idle hit"] == 1,
        },
    }


def convert(src, base, parv=None):
    """BASE with the controller block (replacing any earlier one) and the documented fixes."""
    out = dict(base)
    level = src["cache"]["fast_write_level"]
    if "cache" in out:
        cache = dict(out["cache"])
        cache["write_back"] = level > 0
        out["cache"] = cache
    out["controller"] = controller_block(src)
    if parv:
        out["controller"].update(bus_keys(parv))
        spares = per_track_spares(src)
        if spares:
            out["format"] = "drivescope-disk-model/2"
            out["spares"] = {"per_track": spares, "per_cylinder": 0}
        add_layout_keys(out, native_layout(parv))
    return out


def model_path(parv_path):
    """The .model file that the disk spec of DiskSim's .parv sources (`Model = source X.model`)."""
    here = os.path.dirname(parv_path)
    with open(parv_path, encoding="utf-8") as f:
        text = f.read()
    for sourced in re.findall(r"^source\s+(\S+)", text, re.M):
        with open(os.path.join(here, sourced), encoding="utf-8") as f:
            m = re.search(r"Model\s*=\s*source\s+([^\s,]+)", f.read())
        if m:
            return os.path.join(here, m.group(1))
    raise ValueError(f"{parv_path}: no disk model sourced by its disk specs")


def native_layout(parv_path):
    """DiskSim's layout from the drive's .model: {"surfaces", "scheme", "mapping", "zones"}, each
    zone a dict of its number parameters and its "slips" and "defects" lists, by first cylinder."""
    with open(model_path(parv_path), encoding="utf-8") as f:
        text = re.sub(r"#.*", "", f.read())

    def num(name, where):
        m = re.search(re.escape(name) + r"\s*=\s*(-?[0-9.]+)", where)
        return float(m.group(1)) if m else None

    zones = []
    for body in re.findall(r"dm_layout_g1_zone\s*\{(.*?)\}", text, re.S):
        z = {k: num(k, body) for k in ("First cylinder number", "Last cylinder number", "Blocks per track",
                                         "Offset of first block", "Empty space at zone front", "Number of spares")}
        for key in ("slips", "defects"):
            m = re.search(key + r"\s*=\s*\[(.*?)\]", body, re.S)
            z[key] = [int(x) for x in re.findall(r"-?\d+", m.group(1))] if m else []
        zones.append(z)
    zones.sort(key=lambda z: z["First cylinder number"])
    return {"surfaces": num("Number of data surfaces", text), "scheme": num("Sparing scheme used", text),
            "mapping": num("LBN-to-PBN mapping scheme", text) or 0, "zones": zones}


def whole(x):
    return x is not None and x >= 0 and x == int(x)


def track_sparing(z, surfaces):
    """A zone's "track_sparing" by DiskSim's scheme 1 (g1_ltop_trackspare), or None where the
    model cannot say it (as `drivescope sim import`)."""
    front, spares, spt = z["Empty space at zone front"] or 0, z["Number of spares"] or 0, z["Blocks per track"]
    tracks = int((z["Last cylinder number"] - z["First cylinder number"] + 1) * surfaces)
    if not (whole(front) and whole(spares)) or spares > tracks or front + spares * spt >= tracks * spt:
        return None
    if any(s < 0 for s in z["slips"]):
        return None
    hit, last = [False] * tracks, -1
    for t in range(tracks - int(spares)):
        p = t
        for s in z["slips"]:
            if s <= p:
                p += 1
        if p >= tracks:
            return None
        hit[p], last = True, max(last, p)
    slipped = [p for p in range(last) if not hit[p]]
    if any(p < front // spt for p in slipped) or len(slipped) > spares:
        return None
    return {"front_sectors": int(front), "spare_tracks": int(spares), "slipped_tracks": slipped}


def per_cylinder_spares(layout):
    """DiskSim's scheme 2 spare sectors at the end of every cylinder, when every zone has the same
    count below a cylinder's sectors and no empty front; else 0."""
    counts = {z["Number of spares"] for z in layout["zones"]}
    n = counts.pop() if len(counts) == 1 else None
    if not whole(n) or n <= 0 or any((z["Empty space at zone front"] or 0) != 0 or
                                     n >= z["Blocks per track"] * layout["surfaces"] for z in layout["zones"]):
        return 0
    return int(n)


def add_layout_keys(out, layout):
    """OUT (its zones DiskSim's, outermost first) with track_sparing, spares.per_cylinder and
    first_sector_offset where DiskSim's sparing scheme is 1 or 2 (the rules above)."""
    scheme, zones = layout["scheme"], layout["zones"]
    if scheme not in (1, 2) or layout["mapping"] != 0:
        return
    if len(zones) != len(out["zones"]) or any(
            int(z["Last cylinder number"] - z["First cylinder number"] + 1) != o["cylinders"] or
            z["Blocks per track"] != o["sectors_per_track"] for z, o in zip(zones, out["zones"])):
        raise ValueError("the base model's zones are not DiskSim's")
    new_zones = [dict(o) for o in out["zones"]]
    changed = False
    if scheme == 2:
        n = per_cylinder_spares(layout)
        if n:
            out["spares"] = {"per_track": 0, "per_cylinder": n}
            changed = True
    for z, o in zip(zones, new_zones):
        if scheme == 1:
            ts = track_sparing(z, layout["surfaces"])
            if ts:
                o["track_sparing"] = ts
                changed = True
        off = z["Offset of first block"]
        if off is not None and off >= 0 and int(off) < z["Blocks per track"]:
            o["first_sector_offset"] = int(off)
            changed = True
    if changed:
        out["format"] = "drivescope-disk-model/2"
        out["zones"] = new_zones


def per_track_spares(src):
    """DiskSim's spare sectors at the end of every track (sparing scheme 3), when every zone has
    the same count below its sectors per track; else 0 (the other schemes are not kept)."""
    if src.get("layout", {}).get("sparing_scheme") != 3:
        return 0
    counts = {z["spares"] for z in src["layout_zones"]}
    n = counts.pop() if len(counts) == 1 else 0
    if n <= 0 or any(n >= z["sectors_per_track"] for z in src["layout_zones"]):
        return 0
    return int(n)


def read_overhead_ms(model):
    """The controller time of a random read miss after a read, by the ground-truth rule."""
    c = model.get("controller", {}).get("overheads_ms")
    if c:
        return c["read_miss_after_read"] + c.get("read_completion", 0.0)
    return model["command_overhead_ms"]


def update_truth(truth, base, new):
    """TRUTH (computed for BASE) with the mean random read access moved to NEW's overhead."""
    out = dict(truth)
    delta = read_overhead_ms(new) - read_overhead_ms(base)
    out["mean_random_read_access_ms"] = round(truth["mean_random_read_access_ms"] + delta, 3)
    return out


def dump(obj):
    return json.dumps(obj, indent=1, ensure_ascii=False) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source", help="DiskSim source-form JSON (disk-model/v1)")
    ap.add_argument("base", help="the drive's drivescope-disk-model/1 file")
    ap.add_argument("-o", "--output", help="where to write (default: stdout)")
    ap.add_argument("--truth", help="the drive's .truth.json, updated in place")
    ap.add_argument("--parv", help="DiskSim's own .parv for the drive (bus, reconnection, read-ahead rules)")
    args = ap.parse_args(argv)
    with open(args.source, encoding="utf-8") as f:
        src = json.load(f)
    with open(args.base, encoding="utf-8") as f:
        base = json.load(f)
    if src.get("schema") != "disk-model/v1":
        print(f"{args.source}: not a DiskSim source-form file (schema disk-model/v1)", file=sys.stderr)
        return 2
    new = convert(src, base, args.parv)
    if args.truth:
        with open(args.truth, encoding="utf-8") as f:
            truth = json.load(f)
        with open(args.truth, "w", encoding="utf-8") as f:
            f.write(dump(update_truth(truth, base, new)))
    text = dump(new)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
