#!/usr/bin/env python3
"""Runs every drivescope command with --json on simulated drives, a regular file and the IDENTIFY
dumps of tests/data, and validates each REAL document against its command's schema
(docs/schema/COMMAND.schema.json). Also checks that documents missing a required key, or with a
key of the wrong type, FAIL validation (so the schemas can catch something), that every schema
file is a valid JSON Schema, that every command schema was exercised, and that no document has a
key its schema does not name (tests/schema/unnamed.py), nor a bench document an LBA outside what it
measured or ranges that overlap (tests/schema/bounds.py).

Usage: validate.py DRIVESCOPE SOURCE_DIR WORK_DIR [EXTRA_DOC.json:SCHEMA ...]
Exit 0 all valid, 1 a failure. Needs python3-jsonschema (Debian 12: 4.10; newer ones work too).
"""
import copy
import glob
import json
import os
import subprocess
import sys
import time

import jsonschema

import bounds
import unnamed


def no_duplicate_keys(path):
    """An object_pairs_hook: a key twice in one object is an error (JSON readers keep the last, so
    the first would silently say nothing: a second "required" list once hid the first)."""
    def hook(pairs):
        keys = [k for k, _ in pairs]
        dup = sorted({k for k in keys if keys.count(k) > 1})
        if dup:
            raise ValueError("%s: the key %s twice in one object" % (path, ", ".join(dup)))
        return dict(pairs)
    return hook


def load_schemas(schema_dir):
    store = {}
    for path in sorted(glob.glob(os.path.join(schema_dir, "*.schema.json"))):
        with open(path) as f:
            s = json.load(f, object_pairs_hook=no_duplicate_keys(path))
        jsonschema.Draft202012Validator.check_schema(s)
        store[s["$id"]] = s
    return store


def make_validator(store, name):
    """A Draft 2020-12 validator of NAME.schema.json whose $refs to sibling files resolve from
    the store: `referencing` on jsonschema >= 4.18, RefResolver before (Debian 12 has 4.10)."""
    schema = store[name + ".schema.json"]
    try:
        from referencing import Registry, Resource
        from referencing.jsonschema import DRAFT202012
        registry = Registry().with_resources(
            (uri, Resource.from_contents(s, default_specification=DRAFT202012)) for uri, s in store.items())
        return jsonschema.Draft202012Validator(schema, registry=registry)
    except ImportError:
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
        return jsonschema.Draft202012Validator(schema, resolver=resolver)


class Checker:
    def __init__(self, binary, store, work):
        self.binary, self.store, self.work = binary, store, work
        self.validators = {}
        self.failures = []
        self.count = {}
        self.guest = {}  # documents from the QEMU guest, per schema
        self.guest_required = False
        self.walker = unnamed.Walker(store)

    def unnamed_keys(self, label, schema, doc):
        for path in self.walker.unnamed(doc, schema + ".schema.json"):
            self.fail("%s: %s: %s: a key the schema does not name" % (label, schema, path))
        if schema == "bench":
            for what in bounds.violations(doc):
                self.fail("%s: %s" % (label, what))
            if "tests" in doc and bounds.span_blocks(doc) is None:
                self.fail("%s: a bench document without target.capacity_bytes and logical_block_bytes" % label)

    def validator(self, name):
        if name not in self.validators:
            self.validators[name] = make_validator(self.store, name)
        return self.validators[name]

    def errors(self, name, doc):
        return sorted(self.validator(name).iter_errors(doc), key=lambda e: list(e.absolute_path))

    def fail(self, what):
        self.failures.append(what)
        print("FAIL " + what, file=sys.stderr)

    def run(self, schema, args, ok_codes=(0,), save=None):
        """Runs `drivescope ARGS`, validates its document(s); returns the first document."""
        cmd = [self.binary] + args
        t0 = time.monotonic()
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        label = " ".join(args)
        if time.monotonic() - t0 > 2:
            print("slow: %.1f s: %s" % (time.monotonic() - t0, label))
        if p.returncode not in ok_codes:
            self.fail("%s: exit %d (expected %s): %s" % (label, p.returncode, ok_codes, p.stderr.decode()[-400:]))
        text = p.stdout.decode("utf-8")
        compact = any(a.startswith("--json=c") for a in args)
        try:
            docs = [json.loads(l) for l in text.splitlines() if l.strip()] if compact else [json.loads(text)]
        except ValueError as e:
            self.fail("%s: stdout is not JSON (%s): %r" % (label, e, text[:200]))
            return None
        if compact and text.count("\n") != len(docs):
            self.fail("%s: --json=c wrote %d lines for %d documents" % (label, text.count("\n"), len(docs)))
        for doc in docs:
            for e in self.errors(schema, doc):
                self.fail("%s: %s: /%s: %s" % (label, schema, "/".join(map(str, e.absolute_path)), e.message[:300]))
            self.unnamed_keys(label, schema, doc)
            ds = doc.get("drivescope", {})
            if schema == "scan":
                pass  # one document per drive, each with its own status: checked below
            elif ds.get("exit_status") != p.returncode:
                self.fail("%s: drivescope.exit_status %r but the process exited %d" % (label, ds.get("exit_status"), p.returncode))
            if ds.get("argv") != cmd:
                self.fail("%s: drivescope.argv %r is not the command line" % (label, ds.get("argv")))
        if schema == "scan" and docs:
            # The process exits with the worst drive's status.
            worst = max(d.get("drivescope", {}).get("exit_status", -1) for d in docs)
            if worst != p.returncode:
                self.fail("%s: the worst drive's exit_status is %r but the process exited %d" % (label, worst, p.returncode))
        self.count[schema] = self.count.get(schema, 0) + len(docs)
        if save and docs:
            with open(save, "w") as f:
                json.dump(docs[0], f)
        return docs[0] if docs else None

    def progress(self, args):
        """Runs `drivescope ARGS --progress=json` and validates each stderr line as a progress line."""
        p = subprocess.run([self.binary] + args + ["--progress=json"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=120)
        label = " ".join(args)
        if p.returncode != 0:
            self.fail("%s --progress=json: exit %d" % (label, p.returncode))
        lines = [l for l in p.stderr.decode("utf-8").splitlines() if l.startswith("{")]
        if not lines:
            self.fail("%s --progress=json: no progress line" % label)
        for l in lines:
            for e in self.errors("progress", json.loads(l)):
                self.fail("%s: progress: /%s: %s" % (label, "/".join(map(str, e.absolute_path)), e.message[:300]))
        self.count["progress"] = self.count.get("progress", 0) + len(lines)
        return json.loads(lines[0]) if lines else None

    def must_fail(self, schema, doc, what):
        if doc is None:
            self.fail("negative check %s: no document to break" % what)
        elif not self.errors(schema, doc):
            self.fail("negative check: %s validated against %s, but it should not" % (what, schema))


def run_all(c, source, work):
    data = os.path.join(source, "tests", "data")
    fast = ["--budget", "2", "--span", "1%"]
    state = os.path.join(work, "state")
    os.makedirs(state, exist_ok=True)
    c.run("version", ["--version", "--json"])
    c.run("version", ["--version", "--json=c"])
    presets = [p["name"] for p in c.run("sim-list", ["sim", "list", "--json"])["presets"]]
    c.run("sim-list", ["sim", "list", "--json=c"])
    c.run("sim-show", ["sim", "show", presets[0], "--json"])
    c.run("sim-show", ["sim", "show", "no-such-preset", "--json=c"], ok_codes=(1, 2))
    native = os.path.join(data, "disksim", "native")
    c.run("sim-import", ["sim", "import", os.path.join(native, "hp_c2247a.parv"), "--json"])
    c.run("sim-import", ["sim", "import", os.path.join(native, "cheetah9LP.parv"), "-o",
                         os.path.join(work, "cheetah9LP.json"), "--interface-mb-s", "80", "--json=c"])
    c.run("sim-import", ["sim", "import", os.path.join(native, "no-such.parv"), "--json=c"], ok_codes=(1,))
    c.run("model", ["model", "sim:raptor", "-o", os.path.join(work, "raptor.twin.json"), "--json"])
    c.run("model", ["model", "sim:" + os.path.join(work, "raptor.twin.json"), "-o",
                    os.path.join(work, "raptor.twin2.json"), "--budget", "30", "--json=c"])
    c.run("model", ["model", "file:" + os.path.join(work, "no-such-file"), "-o",
                    os.path.join(work, "x.json"), "--json=c"], ok_codes=(1,))

    docs = {}
    for p in presets:
        docs[p] = c.run("identify", ["identify", "sim:" + p, "--json=c"])
    for d in sorted(glob.glob(os.path.join(data, "identify", "*", "identify.bin"))):
        c.run("identify", ["identify", "--from-file", d, "--json=c"])
        c.run("identify", ["identify", "--from-file", os.path.join(os.path.dirname(d), "blob.bin"), "--json=c"])
    c.run("identify", ["identify", "sim:no-such-preset", "--json"], ok_codes=(1,))

    c.run("list", ["list", "--json"])
    c.run("list", ["list", "--all", "--json=c"])

    b1, b2 = os.path.join(work, "b1.json"), os.path.join(work, "b2.json")
    c.run("bench", ["bench", "sim:7200.7", "--json"] + fast, save=b1)
    c.run("bench", ["bench", "sim:maxline3", "--json=c"] + fast, save=b2)
    c.run("bench", ["bench", "sim:raptor", "--tests", "access,transfer", "--offset", "50%", "--json=c"] + fast)
    # Zones to hold against each other (a 1 % span has one); 0.3 s of CPU.
    docs["bench-zones"] = c.run("bench", ["bench", "sim:raptor", "--tests", "access,transfer", "--budget", "2",
                                          "--span", "30%", "--json=c"])
    c.run("bench", ["bench", "sim:atlas15k", "--tests", "queue,patterns", "--json=c"] + fast)
    c.run("bench", ["bench", "sim:exos2x14", "--tests", "actuators", "--json=c"] + fast)
    c.run("bench", ["bench", "sim:modern8tb", "--tests", "rmw", "--write", "--json=c"] + fast)
    # Without --write: what IDENTIFY word 106 (ATA) or READ CAPACITY(16) (SCSI) claims; no writes.
    docs["rmw-claims"] = c.run("bench", ["bench", "sim:modern8tb", "--tests", "rmw", "--json=c"] + fast)
    c.run("bench", ["bench", "sim:atlas15k", "--tests", "rmw", "--json=c"] + fast)
    c.run("bench", ["bench", "sim:raptor", "--tests", "access,nope", "--json=c"] + fast, ok_codes=(2,))
    img = os.path.join(work, "file.img")
    with open(img, "wb") as f:
        f.truncate(64 << 20)
    c.run("bench", ["bench", "file:" + img, "--tests", "access,transfer", "--budget", "1", "--json=c"])

    scan = c.run("scan", ["scan", "sim:raptor", "sim:7k400", "sim:atlas15k", "--json=c"])
    docs["scan"] = scan
    docs["scan-bench"] = c.run("scan", ["scan", "sim:maxline3", "sim:atlas15k", "--bench", "1", "--json=c"])
    c.run("scan", ["scan", "sim:7200.7", "sim:no-such-preset", "--json=c"], ok_codes=(1,))
    # This machine's own drives (none, or some without passthrough: 3; unreadable: 1).
    c.run("scan", ["scan", "--json=c"], ok_codes=(0, 1, 3))

    c.run("ab", ["ab", "sim:maxline3", "--feature", "aam=quiet,fast", "--rounds", "2", "--budget", "0.5",
                 "--span", "1%", "--state-dir", state, "--quiet", "--json=c"])
    c.run("ncq", ["ncq", "sim:7k400", "--budget", "1", "--max-depth", "4", "--json=c"])
    line = c.progress(["bench", "sim:raptor", "--tests", "access,transfer", "--budget", "1", "--json=c"])
    c.progress(["scan", "sim:raptor", "--bench", "1", "--json=c"])
    c.progress(["smr", "sim:raptor", "--write", "--budget", "3", "--json=c"])
    c.progress(["ab", "sim:maxline3", "--feature", "aam=quiet,fast", "--rounds", "2", "--budget", "0.3",
                "--state-dir", state, "--json=c"])
    if line is not None:
        c.must_fail("progress", dict(line, fraction=1.5), "a progress line with fraction 1.5")
        c.must_fail("progress", {k: v for k, v in line.items() if k != "eta_s"}, "a progress line without eta_s")
    c.run("ncq", ["ncq", "sim:atlas15k", "--no-measure", "--json"])
    docs["smr"] = c.run("smr", ["smr", "sim:archive8tb-smr", "--json=c"])
    docs["smr-cmr"] = c.run("smr", ["smr", "sim:raptor", "--write", "--budget", "3", "--quiet", "--json=c"])
    c.run("smr", ["smr", "sim:archive8tb-smr", "--write", "--budget", "3", "--idle", "0", "--quiet", "--json=c"])
    c.run("smr", ["smr", "sim:no-such-preset", "--json=c"], ok_codes=(1,))

    # decode: captured pages from files (tests/data), every kind it reads, and a file it cannot.
    pages, scsi = os.path.join(data, "pages"), os.path.join(data, "scsi")
    ident_bin = sorted(glob.glob(os.path.join(data, "identify", "*", "identify.bin")))[0]
    docs["decode"] = c.run("decode", ["decode", "--identify", ident_bin, "--json=c"])
    for args in (["--ata-log", "0x47", os.path.join(pages, "ata_log47_dual.hex")],
                 ["--vpd", os.path.join(pages, "vpd_b9_dual.hex")],
                 ["--vpd", os.path.join(pages, "vpd_b1_hostaware.hex")],
                 ["--vpd", os.path.join(scsi, "vpd_atai.hex")],
                 ["--zones", "zbc", os.path.join(pages, "report_zones_zbc.hex")],
                 ["--zones", "zac", os.path.join(pages, "report_zones_zac.hex")],
                 ["--inquiry", os.path.join(scsi, "inq_standard.hex")],
                 ["--sense", os.path.join(scsi, "descriptor_sense.hex")]):
        c.run("decode", ["decode"] + args + ["--json"])
    docs["decode-sense"] = c.run("decode", ["decode", "--sense", os.path.join(scsi, "fixed_sense.hex"), "--json=c"])
    c.run("decode", ["decode", "--inquiry", os.path.join(scsi, "fixed_sense.hex"), "--json=c"], ok_codes=(1,))

    c.run("compare", ["compare", b1, b2, "--json=c", "--color", "never"])
    c.run("report", ["report", b1, b2, "--svg", os.path.join(work, "charts"), "--json=c"])
    docs["replay"] = c.run("replay", ["replay", "sim:atlas15k", os.path.join(data, "disksim-traces", "atlas_III.trace"),
                                      "--write", "--json=c"])
    c.run("restore", ["restore", "--state-dir", state, "--json=c"])

    # No preset has APM: `apm` reports it unsupported (3) and refuses a change (1), both as JSON.
    for feature, change, codes in [("aam", ["set", "128"], (0,)), ("apm", ["off"], (1, 3)),
                                   ("write-cache", ["off"], (0,)), ("read-ahead", ["on"], (0,))]:
        c.run(feature, [feature, "sim:maxline3", "--json=c"], ok_codes=codes)
        c.run(feature, [feature, "sim:maxline3"] + change + ["--json=c"], ok_codes=codes)
        c.run(feature, [feature, "sim:atlas15k", "--json=c"], ok_codes=(0, 1, 3))
    return docs


def scan_negative_checks(c, scan, bench):
    if scan is None or bench is None:
        c.fail("negative checks: no scan document")
        return
    for key in ["scan", "target", "identify"]:
        broken = copy.deepcopy(scan)
        del broken[key]
        c.must_fail("scan", broken, "a scan document of an awake drive without %s" % key)
    broken = copy.deepcopy(scan)
    broken["scan"]["status"] = "asleep"
    c.must_fail("scan", broken, "a scan status that is not ok/skipped/failed")
    skipped = {k: scan[k] for k in ["json_format_version", "drivescope", "target"]}
    skipped["scan"] = {"status": "skipped", "power_mode": "standby", "bench": None}
    c.must_fail("scan", skipped, "a skipped drive without the reason")
    skipped["scan"]["reason"] = "in standby"
    if c.errors("scan", skipped):
        c.fail("a standby drive's document (target and scan only) does not validate as scan")
    broken = copy.deepcopy(bench)
    del broken["tests"]
    c.must_fail("scan", broken, "a scan whose bench is done without tests")
    c.must_fail("identify", skipped, "a skipped scan document checked as identify")


def smr_negative_checks(c, docs):
    for name in ["smr", "smr-cmr"]:
        doc = docs.get(name)
        if doc is None:
            c.fail("negative checks: no %s document" % name)
            return
        broken = copy.deepcopy(doc)
        broken["smr"]["verdict"] = "shingled"
        c.must_fail("smr", broken, "an smr verdict outside the five")
        broken = copy.deepcopy(doc)
        del broken["smr"]["media_cache_bytes_estimate"]
        c.must_fail("smr", broken, "an smr document without media_cache_bytes_estimate")
    broken = copy.deepcopy(docs["smr-cmr"])
    broken["smr"]["probe"]["writes"] = "many"
    c.must_fail("smr", broken, "probe.writes as a string")


def bench_negative_checks(c, bench):
    """bounds.py finds an LBA past the span, zones that overlap and a range that runs backwards."""
    zones = (bench or {}).get("tests", {}).get("transfer", {}).get("zones") or []
    if len(zones) < 2 or bounds.violations(bench):
        c.fail("negative checks: no bench document with two zones and nothing out of bounds")
        return
    limit = bounds.span_blocks(bench)
    cases = [
        (["access", "reads", "lba", 0], limit, "a read at the span's end"),
        (["transfer", "zones", 1, "first_lba"], zones[0]["last_lba"], "zones that overlap"),
        (["transfer", "zones", 0, "last_lba"], zones[0]["first_lba"] - 1, "a zone that ends before it starts"),
    ]
    for path, value, what in cases:
        broken = copy.deepcopy(bench)
        node = broken["tests"]
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
        if not bounds.violations(broken):
            c.fail("negative check: %s was not found out of bounds" % what)


def negative_checks(c, docs):
    ident = docs.get("7200.7")
    if ident is None:
        c.fail("negative checks: no identify document")
        return
    for key in ["identify", "target", "json_format_version", "drivescope"]:
        broken = copy.deepcopy(ident)
        del broken[key]
        c.must_fail("identify", broken, "an identify document without %s" % key)
    broken = copy.deepcopy(ident)
    del broken["drivescope"]["exit_status"]
    c.must_fail("identify", broken, "a drivescope block without exit_status")
    broken = copy.deepcopy(ident)
    broken["user_capacity"]["bytes"] = str(broken["user_capacity"]["bytes"])
    c.must_fail("identify", broken, "user_capacity.bytes as a string")
    broken = copy.deepcopy(ident)
    broken["drivescope"]["messages"] = [{"string": "x", "severity": "fatal"}]
    c.must_fail("identify", broken, "a message of unknown severity")
    # A key no schema names (a typo, a rename in one place) is found, at any depth.
    for where in (["identify"], ["identify", "smart"], ["identify", "security"], []):
        broken = copy.deepcopy(ident)
        node = broken
        for k in where:
            node = node[k]
        node["bogus_ms"] = 1
        want = "/" + "/".join(where + ["bogus_ms"])
        if want not in c.walker.unnamed(broken, "identify.schema.json"):
            c.fail("negative check: the unnamed key %s was not found" % want)
    # The same document is no `list` or `bench` document: the schemas differ per command.
    c.must_fail("list", ident, "an identify document checked as list")
    c.must_fail("bench", ident, "an identify document checked as bench")
    scan_negative_checks(c, docs.get("scan"), docs.get("scan-bench"))
    smr_negative_checks(c, docs)
    feat = {"json_format_version": [1, 0], "drivescope": ident["drivescope"],
            "target": ident["target"], "feature": {"name": "apm", "action": "get"}}
    c.must_fail("aam", feat, "an apm document checked as aam")
    bench_negative_checks(c, docs.get("bench-zones"))
    rep = docs.get("replay")
    if rep is None or "replay" not in rep:
        c.fail("negative checks: no replay document")
    else:
        for key in ("complete", "error", "requests"):
            broken = copy.deepcopy(rep)
            del broken["replay"][key]
            c.must_fail("replay", broken, "a replay document without replay.%s" % key)
    rmw = docs.get("rmw-claims")
    if rmw is None or "rmw" not in rmw.get("tests", {}):
        c.fail("negative checks: no read-only rmw document")
    else:
        broken = copy.deepcopy(rmw)
        del broken["tests"]["rmw"]["measured"]
        c.must_fail("bench", broken, "an rmw result without measured")
        broken = copy.deepcopy(rmw)
        broken["tests"]["rmw"]["penalty_ms"] = 0.5
        c.must_fail("bench", broken, "a read-only rmw result with a penalty")
    dec = docs.get("decode")
    if dec is None or docs.get("decode-sense") is None:
        c.fail("negative checks: no decode document")
        return
    broken = copy.deepcopy(dec)
    del broken["identify"]
    c.must_fail("decode", broken, "a decode document with neither identify nor sense")
    broken = copy.deepcopy(dec)
    broken["target"]["decoded_as"] = "tea leaves"
    c.must_fail("decode", broken, "a decode document decoded as something decode does not read")
    broken = copy.deepcopy(docs["decode-sense"])
    broken["sense"]["sense_key"] = "Illegal Request"
    c.must_fail("decode", broken, "a sense key as a string")


def load_docs(path):
    """One JSON document, or JSON lines (scan --json=c, progress lines)."""
    with open(path) as f:
        text = f.read()
    try:
        return [json.loads(text)]
    except ValueError:
        return [json.loads(l) for l in text.splitlines() if l.strip()]


def check_file(c, path, schema):
    try:
        docs = load_docs(path)
    except ValueError as e:
        c.fail("%s: not JSON (%s)" % (path, e))
        return
    if not docs:
        c.fail("%s: no document" % path)
    for doc in docs:
        for e in c.errors(schema, doc):
            c.fail("%s: %s: /%s: %s" % (path, schema, "/".join(map(str, e.absolute_path)), e.message[:300]))
        c.unnamed_keys(path, schema, doc)
    c.count[schema] = c.count.get(schema, 0) + len(docs)
    c.guest[schema] = c.guest.get(schema, 0) + len(docs)
    print("checked %s against %s (%d document%s)" % (path, schema, len(docs), "" if len(docs) == 1 else "s"))


def guest_manifest(c, manifest):
    """guest-json.sh's documents, json-SCHEMA--TAG.json beside the manifest; afterwards every
    command schema must have had a guest document."""
    c.guest_required = True
    folder = os.path.dirname(manifest)
    with open(manifest) as f:
        names = [l.strip() for l in f if l.strip()]
    for name in names:
        if not (name.startswith("json-") and "--" in name and name.endswith(".json")):
            c.fail("%s: %r is not json-SCHEMA--TAG.json" % (manifest, name))
            continue
        schema = name[len("json-"):].split("--", 1)[0]
        path = os.path.join(folder, name)
        if schema + ".schema.json" not in c.store:
            c.fail("%s: %s names no schema in docs/schema" % (manifest, name))
        elif not os.path.exists(path):
            c.fail("%s: the guest listed %s but it was not exported" % (manifest, name))
        else:
            check_file(c, path, schema)


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    binary, source, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    store = load_schemas(os.path.join(source, "docs", "schema"))
    c = Checker(binary, store, work)
    start = time.monotonic()
    docs = run_all(c, source, work)
    negative_checks(c, docs)
    # Documents made elsewhere (the QEMU guest's, exported to the host): PATH:SCHEMA, or a
    # guest-json.sh manifest (PATH:manifest) whose every command schema must be covered.
    for extra in sys.argv[4:]:
        path, schema = extra.rsplit(":", 1)
        if schema == "manifest":
            guest_manifest(c, path)
        else:
            check_file(c, path, schema)
    unexercised = sorted(n[: -len(".schema.json")] for n in store
                         if n != "drivescope-output.schema.json" and not c.count.get(n[: -len(".schema.json")]))
    if unexercised:
        c.fail("schemas no command output was checked against: %s" % ", ".join(unexercised))
    if c.guest_required:
        # sim import reads DiskSim's files and no device: a guest would run it exactly as the host
        # does (checked above), and its input files are not in the guest. model runs through the
        # bench's modules (whose guest documents are checked) and writes what the host run checks.
        host_only = {"sim-import", "model"}
        missing = sorted(n[: -len(".schema.json")] for n in store
                         if n != "drivescope-output.schema.json" and n[: -len(".schema.json")] not in host_only
                         and not c.guest.get(n[: -len(".schema.json")]))
        if missing:
            c.fail("schemas no document from the QEMU guest was checked against: %s" % ", ".join(missing))
        print("guest documents: %d against %d schemas" % (sum(c.guest.values()), len(c.guest)))
    total = sum(c.count.values())
    try:
        from importlib.metadata import version
        js_version = version("jsonschema")
    except Exception:  # not installed as a distribution: the version does not matter here
        js_version = "?"
    print("validated %d documents against %d schemas in %.1f s (jsonschema %s); %d failures"
          % (total, len(c.count), time.monotonic() - start, js_version, len(c.failures)))
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
