#!/usr/bin/env python3
"""The twin's judging traces through a real kernel (tests/vm/twin-host.sh), as docs/twin.md defines
them: `random4k` (4 KiB reads at uniformly random aligned offsets, back to back) and `database`
(8 KiB reads, a third continuing the one before, the rest random, an exponential think time of
mean 1 ms before each). Written as fio iologs (version 2) for the guest's `drivescope replay`, and
the think times beside them (NAME.think, microseconds a line) for the judge's validate traces.

Usage: twin-traces.py CAPACITY_BYTES N SEED DIR
"""
import os
import random
import sys


def write(dirname, name, reqs):
    with open(os.path.join(dirname, f"twin-{name}.iolog"), "w", encoding="ascii") as f, \
            open(os.path.join(dirname, f"twin-{name}.think"), "w", encoding="ascii") as g:
        f.write("fio version 2 iolog\n/dev/x add\n/dev/x open\n")
        for off, size, think_us in reqs:
            if think_us > 0:
                f.write(f"/dev/x wait {think_us} 0\n")
            f.write(f"/dev/x read {off} {size}\n")
            g.write(f"{think_us}\n")
        f.write("/dev/x close\n")


def main(argv):
    capacity, n, seed, out = int(argv[0]), int(argv[1]), int(argv[2]), argv[3]
    rng = random.Random(seed)
    write(out, "random4k", [(rng.randrange(capacity // 4096) * 4096, 4096, 0) for _ in range(n)])
    reqs, nxt = [], rng.randrange(capacity // 8192 - 1) * 8192
    for _ in range(n):
        off = nxt if rng.random() < 1 / 3 and nxt + 8192 <= capacity else rng.randrange(capacity // 8192 - 1) * 8192
        reqs.append((off, 8192, int(rng.expovariate(1.0) * 1000)))
        nxt = off + 8192
    write(out, "database", reqs)


if __name__ == "__main__":
    main(sys.argv[1:])
