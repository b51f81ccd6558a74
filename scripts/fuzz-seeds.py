#!/usr/bin/env python3
"""Regenerates the fuzzers' seed corpora (fuzz/corpus/<target>/) from tests/data.

Seeds are small real inputs: IDENTIFY blocks, hdparm hex dumps and libatasmart blobs of real
drives, the SCSI responses and sense data of sg3_utils' examples, the ATA PASS-THROUGH CDBs
sg3_utils builds, the DiskSim-derived disk models, and the heads of DiskSim's validation traces
(with small fio iolog and blkparse samples) for the trace readers. Usage: scripts/fuzz-seeds.py
"""
import json
import pathlib
import re

root = pathlib.Path(__file__).resolve().parent.parent
data = root / "tests" / "data"
out = root / "fuzz" / "corpus"


def inhex_bytes(text):
    """Bytes of an sg3_utils inhex file: hex pairs, '#' comments."""
    b = bytearray()
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        for tok in re.split(r"[\s,]+", line.strip()):
            if re.fullmatch(r"[0-9a-fA-F]{1,2}", tok):
                b.append(int(tok, 16))
    return bytes(b)


def put(target, name, content):
    d = out / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(content if isinstance(content, bytes) else content.encode())


drives = sorted(p for p in (data / "identify").iterdir() if p.is_dir())
for i, d in enumerate(drives):
    put("identify", d.name + ".bin", (d / "identify.bin").read_bytes())
    if i % 3 == 0:  # a few of each format are enough for the reader
        put("dump_reader", d.name + ".hex", (d / "identify.hex").read_bytes())
        put("dump_reader", d.name + ".blob", (d / "blob.bin").read_bytes())
        put("dump_reader", d.name + ".bin", (d / "identify.bin").read_bytes())

for h in sorted((data / "scsi").glob("*.hex")):
    b = inhex_bytes(h.read_text())
    target = "sense" if "sense" in h.name else "scsi_decode"
    put(target, h.stem + ".bin", b)
    put("dump_reader", h.name, h.read_bytes())

# Pages built by hand from the standards (tests/data/pages): the log to the ATA target, the VPD
# pages and REPORT ZONES replies to the SCSI one.
for h in sorted((data / "pages").glob("*.hex")):
    target = "identify" if h.name.startswith("ata_log") else "scsi_decode"
    put(target, h.stem + ".bin", inhex_bytes(h.read_text()))

for c in sorted((data / "sg3-cdbs").glob("*.txt")):
    if c.name == "provenance.txt":
        continue
    found = re.search(r"cdb: \[([0-9a-fA-F ]+)\]", c.read_text())
    if found:
        b = bytes(int(t, 16) for t in found.group(1).split())
        put("sense", "cdb-" + c.stem + ".bin", b)

models = sorted(p for p in (data / "disk-models").glob("*.json") if not p.name.endswith(".truth.json"))
for m in models:
    put("disk_model", m.name, m.read_bytes())
# One with every kind of fault, so the fuzzer starts inside the "faults" parser.
m = json.loads(models[0].read_text())
m["faults"] = {"medium_errors": [{"first_lba": 1000, "sectors": 8}], "stop_answering_after_ios": 100,
               "stop_answering_at_ms": 2500, "vanish_after_ios": 200, "vanish_at_ms": 3000.5}
put("disk_model", "with-faults.json", json.dumps(m, indent=1))

# `sim import` (fuzz_disksim_import): DiskSim's own files of two drives as one input, each file
# after a "=== NAME" line, comments and the long slip lists cut to keep them small (past the
# fuzzers' 4 KiB they are cut, which exercises the truncated-file errors): the HP C2247A (HP's
# seek equation) and the DEC RZ26 (a .seek curve).
def disksim_files(parv_head, files):
    def compact(text):
        text = re.sub(r"#[^\n]*", "", text)
        text = re.sub(r"slips = \[[^\]]*\]", "slips = []", text)
        return "\n".join(l.strip() for l in text.splitlines() if l.strip()) + "\n"
    native = data / "disksim" / "native"
    return parv_head + "".join("=== %s\n%s" % (f, compact((native / f).read_text())) for f in files)


for name, spec, bus_ms, files in (
        ("hp_c2247a", "HP_C2247A_validate", (0.1701, 0.18686), ["hp_c2247a.diskspecs", "hp_c2247a_validate.model"]),
        ("dec_rz26", "DEC_RZ26_validate", (0.07069, 0.07069),
         ["dec_rz26.diskspecs", "dec_rz26_validate.model", "dec_rz26_validate.seek"])):
    head = ("disksim_bus BUS1 {\nRead block transfer time = %g,\nWrite block transfer time = %g\n}\n"
            "source %s\ninstantiate [ bus1 ] as BUS1\ninstantiate [ disk0 ] as %s\n"
            "topology disksim_bus bus1 [ disksim_disk disk0 [] ]\n" % (bus_ms[0], bus_ms[1], files[0], spec))
    put("disksim_import", name + ".txt", disksim_files(head, files))

# The drive database parser: a small table in drivedb.h's shape, written here (the installed
# table is replayed by scripts/fuzz.sh from /usr/share/smartmontools; it is never copied in).
put("drivedb", "small-table.h",
    "/*\n * drive table\n */\n"
    "  { \"VERSION: 1.0 seed\", \"-\", \"-\", \"Version information\", \"\" },\n"
    "  { \"Acme Spinner (SMR)\", // tested with ACME S200/AB01\n"
    "    \"ACME S(1|2)00\", \"AB0[1-3]\",\n"
    "    \"Firmware AB01 may lose data,\\n\"\n    \"update it\",\n"
    "    \"-v 9,minutes -v 240,raw48,Head_Flying_Hours -F xerrorlba\"\n  },\n"
    "  { \"$Disabled\", \"ACME \\\"Q\\\" .*\", \"\", \"\", \"-F nologdir\", },\n")

# Trace readers: the first 40 lines of each DiskSim validation trace (the fuzzers cut inputs at
# 4 KiB), and one small sample of each other format.
for t in sorted((data / "disksim-traces").glob("*.trace")):
    put("trace", t.stem + ".head", "".join(t.read_text().splitlines(True)[:40]))
put("trace", "fio-v2.iolog", "fio version 2 iolog\n/dev/sdb add\n/dev/sdb open\n/dev/sdb read 0 4096\n"
    "/dev/sdb wait 1500 0\n/dev/sdb write 8192 512\n/dev/sdb sync 0 0\n/dev/sdb close\n")
put("trace", "fio-v3.iolog", "fio version 3 iolog\n100 /dev/sdb add\n110 /dev/sdb open\n"
    "150 /dev/sdb read 4096 4096\n2150 /dev/sdb write 0 8192\n9000 /dev/sdb close\n")
put("trace", "blkparse.txt",
    "  8,16   1        1     0.000000000  4242  Q   R 2048 + 8 [fio]\n"
    "  8,16   1        2     0.000002500  4242  M   R 2056 + 8 [fio]\n"
    "  8,16   1        3     0.000010000  4242  D   R 2048 + 16 [fio]\n"
    "  8,16   1        4     0.004010000     0  C   R 2048 + 16 [0]\n"
    "  8,16   0        5     0.005003000  4243  D FWS 0 + 0 [kworker]\n"
    "CPU0 (8,16):\n Reads Queued:           2,       16KiB\n")

