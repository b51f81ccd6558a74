#!/usr/bin/env python3
"""Checks of disksim2model.py on the drives in tests/data (run by ctest: disksim2model).

Usage: test_disksim2model.py TESTS_DATA_DIR [DRIVESCOPE]
- every model in disk-models/ that has a source in disksim/ is the converter's output (converting
  it again changes nothing);
- the controller block holds DiskSim's figures under the documented names;
- apart from "controller" and the documented cache.write_back fix, the converter keeps every key;
- with --parv (class Native) the bus, read_reconnect and prefetch objects hold the figures of
  DiskSim's own files in tests/data/disksim/native/;
- every model in disk-models-disksim/ (class Full) is the --parv output for its drive;
- with DRIVESCOPE (class SimImport), `drivescope sim import` of DiskSim's own files gives each
  committed full model key by key, so the two conversions cannot drift apart.
"""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import disksim2model  # noqa: E402

DATA = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../tests/data")
BINARY = sys.argv.pop(1) if len(sys.argv) > 1 else os.environ.get("DRIVESCOPE")


def pairs():
    src_dir, model_dir = os.path.join(DATA, "disksim"), os.path.join(DATA, "disk-models")
    for name in sorted(os.listdir(src_dir)):
        model = os.path.join(model_dir, name)
        if name.endswith(".json") and os.path.exists(model):
            yield name, os.path.join(src_dir, name), model


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


class Converter(unittest.TestCase):
    def test_there_are_drives(self):
        self.assertGreaterEqual(len(list(pairs())), 7)

    def test_committed_models_are_its_output(self):
        for name, src, model in pairs():
            with self.subTest(name):
                with open(model, encoding="utf-8") as f:
                    text = f.read()
                out = json.dumps(disksim2model.convert(load(src), json.loads(text)), indent=1, ensure_ascii=False) + "\n"
                self.assertEqual(out, text)

    def test_controller_holds_disksim_figures(self):
        for name, src, model in pairs():
            with self.subTest(name):
                s, m = load(src), load(model)
                c, ov = m["controller"], s["overheads_ms"]
                self.assertEqual(c["overheads_ms"]["read_miss_after_read"], ov["Read miss over. after read"])
                self.assertEqual(c["overheads_ms"]["write_hit_after_write"], ov["Write hit over. after write"])
                self.assertEqual(c["overheads_ms"]["read_completion"], ov["Read completion overhead"])
                self.assertEqual(c["write_behind_level"], s["cache"]["fast_write_level"])
                self.assertEqual(m["cache"]["write_back"], s["cache"]["fast_write_level"] > 0)
                bulk = ov["Bulk sector transfer time"]
                self.assertEqual(c.get("bulk_sector_ms"), bulk if bulk > 0 else None)
                settle = s["add_write_settle_ms"]
                self.assertEqual(c.get("write_settle_ms"), settle if settle < 0 else None)

    def test_other_keys_kept(self):
        base = {"format": "drivescope-disk-model/1", "rpm": 5400, "write_settle_ms": 0.0,
                "cache": {"bytes": 1, "segments": 1, "write_back": False}, "controller": {"old": 1}}
        for name, src, _ in pairs():
            with self.subTest(name):
                out = disksim2model.convert(load(src), base)
                self.assertEqual({k: v for k, v in out.items() if k not in ("cache", "controller")},
                                 {k: v for k, v in base.items() if k not in ("cache", "controller")})
                self.assertEqual({k: v for k, v in out["cache"].items() if k != "write_back"},
                                 {"bytes": 1, "segments": 1})
                self.assertNotIn("old", out["controller"])


NATIVE = {"hp_c2247a": "hp_c2247a", "hp_c2490a": "hp_c2490a", "dec_rz26": "dec_rz26",
          "seagate_st41601n": "st41601n", "quantum_qm39100td_atlas3": "atlas_III",
          "seagate_st34501n_cheetah4lp": "cheetah4LP", "seagate_st39102lw_cheetah9lp": "cheetah9LP"}


def diskspecs_value(text, name):
    """One parameter of a .diskspecs, found by plain text search (not the converter's parser)."""
    line = next(l for l in text.splitlines() if l.strip().startswith(name + " ="))
    return float(line.split("=", 1)[1].strip().rstrip(","))


class Native(unittest.TestCase):
    """--parv: the bus, reconnection and read-ahead keys from DiskSim's own files."""

    def test_keys_hold_disksim_figures(self):
        native = os.path.join(DATA, "disksim", "native")
        for model, name in NATIVE.items():
            with self.subTest(model):
                parv = os.path.join(native, name + ".parv")
                with open(os.path.join(native, name + ".diskspecs"), encoding="utf-8") as f:
                    specs = f.read()
                out = disksim2model.convert(load(os.path.join(DATA, "disksim", model + ".json")),
                                            load(os.path.join(DATA, "disk-models", model + ".json")), parv)
                c = out["controller"]
                self.assertEqual(c["read_reconnect"]["high_water"], diskspecs_value(specs, "High (read) water mark"))
                self.assertEqual(c["read_reconnect"]["first_reselect_ms"], diskspecs_value(specs, "First reselect overhead"))
                self.assertEqual(c["prefetch"]["continuous_read"], diskspecs_value(specs, "Buffer continuous read"))
                self.assertEqual(c["prefetch"]["on_idle_hit"], diskspecs_value(specs, "Read-ahead on idle hit") == 1)
                self.assertIn("overheads_ms", c)
                w = c["write_reconnect"]
                self.assertEqual(w["disconnect_ms"], diskspecs_value(specs, "Write disconnect overhead"))
                self.assertEqual(w["min_seek_ms"], diskspecs_value(specs, "Minimum seek delay"))
                self.assertEqual("extra_disconnect" in w, diskspecs_value(specs, "Extra write disconnect") == 1)
                if "extra_disconnect" in w:
                    self.assertEqual(w["extra_disconnect"]["inter_disconnect_ms"],
                                     diskspecs_value(specs, "Extradisc inter-disconnect delay"))
                    self.assertEqual(w["extra_disconnect"]["reselect_ms"], diskspecs_value(specs, "Other reselect overhead"))
        hp = disksim2model.bus_keys(os.path.join(native, "hp_c2247a.parv"))
        self.assertEqual(hp["bus"], {"read_block_ms": 0.1701, "write_block_ms": 0.18686})  # BUS1, the disk's


class Full(unittest.TestCase):
    """disk-models-disksim/: the --parv conversion of each traced drive, byte for byte."""

    def test_committed_full_models_are_its_output(self):
        full = os.path.join(DATA, "disk-models-disksim")
        self.assertEqual(sorted(n for n in os.listdir(full) if n.endswith(".json")),
                         sorted(m + ".json" for m in NATIVE))
        for model, name in NATIVE.items():
            with self.subTest(model):
                out = disksim2model.convert(load(os.path.join(DATA, "disksim", model + ".json")),
                                            load(os.path.join(DATA, "disk-models", model + ".json")),
                                            os.path.join(DATA, "disksim", "native", name + ".parv"))
                with open(os.path.join(full, model + ".json"), encoding="utf-8") as f:
                    self.assertEqual(disksim2model.dump(out), f.read())


def same(a, b, path=""):
    """The keys of B where A differs (numbers within 1e-9), as dotted paths; A may have more keys."""
    if isinstance(b, dict):
        if not isinstance(a, dict):
            return [path]
        return [d for k in b for d in (same(a[k], b[k], path + "." + k) if k in a else [path + "." + k])]
    if isinstance(b, list):
        if not isinstance(a, list) or len(a) != len(b):
            return [path]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in same(x, y, "%s[%d]" % (path, i))]
    if isinstance(b, bool) or isinstance(a, bool) or not isinstance(b, (int, float)):
        return [] if a == b else [path]
    return [] if isinstance(a, (int, float)) and abs(a - b) <= 1e-9 else [path]


@unittest.skipUnless(BINARY, "no drivescope binary given")
class SimImport(unittest.TestCase):
    """`drivescope sim import NAME.parv` against disk-models-disksim/: the importer replaces this
    converter; until the converter is gone, the two must agree."""

    def test_import_is_the_committed_full_model(self):
        for model, name in NATIVE.items():
            with self.subTest(model):
                want = load(os.path.join(DATA, "disk-models-disksim", model + ".json"))
                parv = os.path.join(DATA, "disksim", "native", name + ".parv")
                # DiskSim has no interface rate; provenance is the committed file's own record.
                p = subprocess.run([BINARY, "sim", "import", parv, "--interface-mb-s", str(want["interface_mb_s"]),
                                    "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
                got = json.loads(p.stdout)["model"]
                want.pop("provenance")
                self.assertEqual(same(got, want), [])


if __name__ == "__main__":
    unittest.main()
