#!/usr/bin/env python3
"""Checks of disksim2model.py on the drives in tests/data (run by ctest: disksim2model).

Usage: test_disksim2model.py TESTS_DATA_DIR
- every model in disk-models/ that has a source in disksim/ is the converter's output (converting
  it again changes nothing);
- the controller block holds DiskSim's figures under the documented names;
- apart from "controller" and the documented cache.write_back fix, the converter keeps every key.
"""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import disksim2model  # noqa: E402

DATA = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../tests/data")


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


if __name__ == "__main__":
    unittest.main()
