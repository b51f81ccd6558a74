#!/usr/bin/env python3
"""Judge drivescope's figures measured through a real kernel (tests/vm/serve-bench-host.sh).

One run (--dir DIR): DIR holds what the guest exported (serve-bench.json: `bench --tests
access,transfer --json`; serve-ab-none.json, serve-ab-bfq.json: `ab --feature scheduler=...`) and
the served drive's request log (plugin.log: every request's real arrival and answer on the host's
CLOCK_MONOTONIC, and the simulated drive's own submission and completion). The truth is tools/truth's
(--truth FILE), which shares nothing with the simulator. Checks, each printed with its figures:
  - rpm within 1 %;
  - every zone-middle rate within 3 % (for each of the model's zones, the measured zone holding
    its middle LBA, as docs/accuracy.md judges the simulated runs);
  - average seek within 10 % in the drive's terms: the access test takes a cache hit's latency as
    the command overhead, and the host adds more to a random read (8 ms of waiting) than to a hit;
    that excess is measured here, read by read, as the guest's latency less the drive's own time
    for the same request, and taken off. The raw figure and the host's share are printed too.
  - each scheduler A/B ran all its rounds and reports the spread between runs next to the
    difference (seed 001's experiment; there is no truth for a scheduler's effect to judge).
Writes DIR/figures.json. Exit 1 when a check fails.

Summary (--report DIR...): the figures.json of several runs as the markdown section "Through a
real kernel" of docs/accuracy.md, on stdout.
"""
import argparse
import json
import os
import statistics as st
import sys


def load_log(path):
    """plugin.log: offset (bytes) -> list of (arrived, answered, drive_submit, drive_complete) in ns."""
    by_offset = {}
    with open(path) as f:
        for line in f:
            if line.startswith('#'):
                continue
            a, ans, ds, dc, off, length, _op = line.split()
            by_offset.setdefault((int(off), int(length)), []).append((int(a), int(ans), int(ds), int(dc)))
    return by_offset


def rel(x, t):
    return x / t - 1


def zone_middles(transfer, truth):
    worst, errs = 0.0, []
    for z in truth['zones']:
        mid = z['first_lba'] + z['sectors'] // 2
        m = [q for q in transfer.get('zones', []) if q['first_lba'] <= mid <= q['last_lba']]
        e = rel(m[0]['mb_s'], z['sequential_mb_s']) if m else 1.0
        errs.append(e)
        if abs(e) >= abs(worst):
            worst = e
    return worst, errs


def drive_rate(starts, lba, block):
    """The served drive's own rate over the stream that began at `lba`: the requests that followed on
    from it, one after the other, by the drive's completion stamps (its first request left out, as
    its seek and rotation are in it). `starts`: the log by offset, offset -> (length, entries).
    None where the log has no such stream."""
    off, n, first, last, bytes_ = lba * block, 0, None, None, 0
    while off in starts and n < 100000:
        length, entries = starts[off]
        dc = entries[-1][3]
        if first is None:
            first = dc
        else:
            bytes_ += length
        last, off, n = dc, off + length, n + 1
    return bytes_ / ((last - first) * 1e-9) / 1e6 if n > 2 and last > first else None


def explain_zones(transfer, truth, log, block):
    """Printed when the zone check fails, for the next reader of a CI log: every rate sample against
    the model's zone it lies in and against the served drive's own rate over the same stream (so
    that a sample the host made fast is told from a zone boundary put in the wrong place), then the
    measured zones."""
    tz = truth['zones']
    starts = {off: (length, entries) for (off, length), entries in log.items()}
    print('     samples (lba: measured / drive\'s own / the model\'s zone, MB/s):')
    for p in transfer.get('points', []):
        z = next((z for z in tz if z['first_lba'] <= p['lba'] < z['first_lba'] + z['sectors']), None)
        d = drive_rate(starts, p['lba'], block)
        print('       %d: %s / %s / %s%s' % (p['lba'], p.get('mb_s'), '%.3f' % d if d else '-',
                                           z['sequential_mb_s'] if z else '-', ' (anomalous)' if p.get('anomalous') else ''))
    print('     zones measured (first-last lba: MB/s):')
    for q in transfer.get('zones', []):
        print('       %d-%d: %s' % (q['first_lba'], q['last_lba'], q['mb_s']))


def host_share(access, log, block):
    """What the host added per command: on the random reads (guest latency less the drive's own time
    for that request: positioning, transfer, queueing) and on the cache hits of the overhead probe."""
    per_read, late = [], []
    for lba, ms in zip(access['reads']['lba'], access['reads']['ms']):
        entries = log.get((lba * block, block), [])
        if len(entries) != 1 or ms > access['slow_threshold_ms']:
            continue  # an LBA read twice cannot be told apart; slow reads are left out by the test too
        a, ans, ds, dc = entries[0]
        drive_ms = (dc - ds) / 1e6
        per_read.append(ms - drive_ms)
        late.append((ans - a) / 1e6 - drive_ms)
    # The overhead probe reads one block nine times at three places, back to back: its hits are the
    # requests of one block that follow a request of the same block (the first, a media read, left
    # out). Not every offset read many times: the access test re-reads its anchor blocks among the
    # random reads, from the media, to lock onto the revolution.
    timeline = sorted((a, off, length, ds, dc) for (off, length), entries in log.items()
                      for a, _ans, ds, dc in entries)
    hits = [(dc - ds) / 1e6 for (_a0, off0, len0, _ds0, _dc0), (_a, off, length, ds, dc)
            in zip(timeline, timeline[1:]) if length == block and (off, length) == (off0, len0)]
    if not per_read or not hits:
        return None
    drive_hit = st.median(hits)
    return {
        'random_reads': len(per_read),
        'host_random_mean_ms': st.mean(per_read),
        'host_random_median_ms': st.median(per_read),
        'host_random_p90_ms': sorted(per_read)[int(0.9 * len(per_read))],
        'server_late_mean_ms': st.mean(late),
        'drive_hit_ms': drive_hit,
        'host_hit_ms': access['command_overhead_ms'] - drive_hit,
    }


def judge_run(d, truth):
    fails = []
    fig = {'dir': os.path.basename(d)}
    try:
        with open(os.path.join(d, 'loadavg')) as f:
            fig['load'] = float(f.read().split()[0])  # the host's load average as the run began
    except (OSError, ValueError, IndexError):
        pass

    def check(name, ok, text):
        print(('ok   ' if ok else 'FAIL ') + name + ': ' + text)
        if not ok:
            fails.append(name)

    with open(os.path.join(d, 'serve-bench.json')) as f:
        bench = json.load(f)
    tests = bench.get('tests', {})
    errors = tests.get('errors')
    check('bench ran both tests', 'access' in tests and 'transfer' in tests and not errors,
          'errors: %s' % (errors or 'none'))
    if fails:
        return fig, fails
    access, transfer = tests['access'], tests['transfer']
    block = access.get('block_bytes', 512)
    log = load_log(os.path.join(d, 'plugin.log'))

    # A figure the bench could not measure is null: a failed check that says why (the test's notes).
    why = '; '.join(n for n in access.get('notes', []) if n.startswith('rotation')) or 'no note'
    rpm, t_rpm = access['rpm_estimate'], truth['rpm_actual']
    if rpm is None:
        check('rpm within 1 %', False, 'not measured (%s)' % why)
    else:
        fig.update(rpm=rpm, rpm_truth=t_rpm, rpm_err=rel(rpm, t_rpm))
        check('rpm within 1 %', abs(rel(rpm, t_rpm)) <= 0.01,
              '%.0f ± %.0f against %.0f (%+.2f %%)' % (rpm, access['rpm_uncertainty'], t_rpm, 100 * rel(rpm, t_rpm)))

    worst, errs = zone_middles(transfer, truth)
    fig.update(zone_worst_err=worst, zone_errs=errs, zones_found=len(transfer.get('zones', [])),
               points=len(transfer.get('points', [])), outer=transfer.get('outer_mb_s'),
               inner=transfer.get('inner_mb_s'), outer_truth=truth['zones'][0]['sequential_mb_s'],
               inner_truth=truth['zones'][-1]['sequential_mb_s'], read_bytes=transfer.get('read_size_bytes'))
    check('zone-middle rates within 3 %', abs(worst) <= 0.03,
          'worst %+.2f %% over %d zones (%d found from %d points; outer %.2f MB/s against %.2f, inner %.2f against %.2f)'
          % (100 * worst, len(errs), fig['zones_found'], fig['points'], fig['outer'] or 0, fig['outer_truth'],
             fig['inner'] or 0, fig['inner_truth']))
    if abs(worst) > 0.03:
        explain_zones(transfer, truth, log, block)

    hs = host_share(access, log, block)
    check('the host\'s share per command measured', hs is not None, 'random reads and hits matched in the request log')
    if hs and access['avg_seek_ms'] is None:
        check('average seek within 10 %', False, 'not measured (%s)' % why)
    elif hs:
        seek, t_seek = access['avg_seek_ms'], truth['avg_seek_random_lba_ms']
        excess = hs['host_random_mean_ms'] - hs['host_hit_ms']
        net = seek - excess
        fig.update(hs, avg_seek=seek, avg_seek_net=net, avg_seek_truth=t_seek, host_excess_ms=excess,
                   overhead=access['command_overhead_ms'], avg_seek_err=rel(net, t_seek), avg_seek_raw_err=rel(seek, t_seek))
        print('     the host per command: %.3f ms on a random read (median %.3f, 90th percentile %.3f; of it the '
              'server\'s own lateness %.3f), %.3f ms on a cache hit (%.3f measured against the drive\'s %.3f)'
              % (hs['host_random_mean_ms'], hs['host_random_median_ms'], hs['host_random_p90_ms'],
                 hs['server_late_mean_ms'], hs['host_hit_ms'], access['command_overhead_ms'], hs['drive_hit_ms']))
        check('average seek within 10 %', abs(rel(net, t_seek)) <= 0.10,
              '%.3f ms less the host\'s excess %.3f = %.3f against %.3f (%+.1f %%; raw %+.1f %%)'
              % (seek, excess, net, t_seek, 100 * rel(net, t_seek), 100 * rel(seek, t_seek)))

    fig['ab'] = {}
    for b in ('none', 'bfq'):
        p = os.path.join(d, 'serve-ab-%s.json' % b)
        if not os.path.exists(p):
            print('skip scheduler A/B mq-deadline vs %s: not run (the guest kernel does not offer it)' % b)
            continue
        with open(p) as f:
            ab = json.load(f).get('ab', {})
        res = [r for r in ab.get('results', []) if r.get('test') == 'transfer']
        done = ab.get('rounds_done', 0) == ab.get('rounds_requested', -1)
        rows = {r['figure']: r for r in res}
        fig['ab'][b] = {k: {x: rows[k][x] for x in ('a', 'b', 'diff_pct', 'ci_low_pct', 'ci_high_pct', 'spread_a_pct',
                                                      'spread_b_pct', 'significant', 'spread_warning')}
                        for k in rows}
        fig['ab'][b]['rounds'] = ab.get('rounds_done', 0)
        o = rows.get('outer_mb_s')
        check('scheduler A/B mq-deadline vs %s: every round, spread next to the difference' % b,
              done and o is not None and 'spread_a_pct' in o,
              ('outer zone %.2f → %.2f MB/s, %+.2f %% [%+.2f, %+.2f], spread between runs %.1f %% / %.1f %%%s'
               % (o['a'], o['b'], o['diff_pct'], o['ci_low_pct'], o['ci_high_pct'], o['spread_a_pct'],
                  o['spread_b_pct'], ' (spread warning)' if o['spread_warning'] else '')) if o else 'no outer_mb_s')
    with open(os.path.join(d, 'figures.json'), 'w') as f:
        json.dump(fig, f, indent=1)
    return fig, fails


def loads(figs):
    v = [f['load'] for f in figs if 'load' in f]
    return ' at a load average of %s' % span(v, '%.1f') if v else ''


def span(vals, fmt):
    return (fmt % min(vals)) + ('' if min(vals) == max(vals) else ' to ' + (fmt % max(vals)))


def report(dirs, truth):
    figs = []
    for d in dirs:
        p = os.path.join(d, 'figures.json')
        if os.path.exists(p):
            with open(p) as f:
                figs.append(json.load(f))
    n = len(figs)
    pct = lambda x: 100 * x
    # Each run's settings as the host script wrote them (budget, seed).
    conf = []
    for d in dirs:
        c = {}
        p = os.path.join(d, 'serve-bench.conf')
        if os.path.exists(p):
            with open(p) as f:
                c = dict(line.strip().split('=', 1) for line in f if '=' in line)
        conf.append(c)
    budgets = sorted({c.get('BENCH_BUDGET', '?') for c in conf})
    seeds = ', '.join(c.get('SEED', '?') for c in conf)
    out = ['## Through a real kernel', '',
           '<!-- Written by tests/vm/serve-bench-host.sh -L (scripts/serve-accuracy.sh); scripts/accuracy.sh keeps it. -->',
           '',
           'sim:raptor served in real time (`drivescope serve --realtime`) as an AHCI disk of a QEMU guest (TCG,',
           'Debian 12 kernel 6.1, libata NCQ, mq-deadline), QEMU and the server under SCHED_FIFO on a shared',
           '2-core host; in the guest `drivescope bench --tests access,transfer --budget %s` and the' % '/'.join(budgets),
           'scheduler A/B. %d runs (seeds %s)%s, judged against tools/truth as above. The figures and' % (
               n, seeds, loads(figs)),
           'what the host adds per command are explained in [serve.md](serve.md).', '',
           '| criterion | limit | runs within | measured (all runs) | truth |',
           '| --- | --- | --- | --- | --- |']
    if not n:
        return '\n'.join(out + ['', 'No run completed.', ''])
    ok = lambda key, lim: sum(1 for f in figs if key in f and abs(f[key]) <= lim)
    rpmf = [f for f in figs if 'rpm' in f]  # a run whose bench measured no rpm counts as not within
    out.append('| rpm | 1 %% | %d/%d | %s (%s %%)%s | %s |' % (
        ok('rpm_err', 0.01), n, span([f['rpm'] for f in rpmf], '%.0f') if rpmf else '–',
        span([pct(f['rpm_err']) for f in rpmf], '%+.2f') if rpmf else '–',
        '; not measured in %d' % (n - len(rpmf)) if len(rpmf) < n else '',
        '%.0f' % rpmf[0]['rpm_truth'] if rpmf else '–'))
    out.append('| zone-middle rates (worst of %d zones) | 3 %% | %d/%d | %s %% | outer %.2f, inner %.2f MB/s |' % (
        len(figs[0]['zone_errs']), ok('zone_worst_err', 0.03), n, span([pct(f['zone_worst_err']) for f in figs], '%+.2f'),
        figs[0]['outer_truth'], figs[0]['inner_truth']))
    seekf = [f for f in figs if 'avg_seek' in f]
    if seekf:
        out.append('| average seek, less the host\'s excess | 10 %% | %d/%d | %s ms (%s %%) | %.3f ms |' % (
            ok('avg_seek_err', 0.10), n, span([f['avg_seek_net'] for f in seekf], '%.3f'),
            span([pct(f['avg_seek_err']) for f in seekf], '%+.1f'), seekf[0]['avg_seek_truth']))
        out.append('| average seek as measured | — | %d/%d | %s ms (%s %%) | |' % (
            ok('avg_seek_raw_err', 0.10), n, span([f['avg_seek'] for f in seekf], '%.3f'),
            span([pct(f['avg_seek_raw_err']) for f in seekf], '%+.1f')))
        out += ['', 'What the host (QEMU, the guest kernel, the NBD round trip, the server\'s wake-up) added per command:',
                '', '| | per run |', '| --- | --- |',
                '| random read, mean | %s ms |' % span([f['host_random_mean_ms'] for f in seekf], '%.3f'),
                '| random read, median / 90th percentile | %s / %s ms |' % (
                    span([f['host_random_median_ms'] for f in seekf], '%.3f'),
                    span([f['host_random_p90_ms'] for f in seekf], '%.3f')),
                '| of it the server\'s lateness after the simulated completion | %s ms |' % span(
                    [f['server_late_mean_ms'] for f in seekf], '%.3f'),
                '| cache hit (the access test\'s "command overhead" less the drive\'s %.2f ms) | %s ms |' % (
                    seekf[0]['drive_hit_ms'], span([f['host_hit_ms'] for f in seekf], '%.3f'))]
    for b in ('none', 'bfq'):
        rows = [f['ab'][b] for f in figs if b in f.get('ab', {}) and 'outer_mb_s' in f['ab'][b]]
        if not rows:
            continue
        if b == 'none':
            out += ['', 'Seed 001\'s experiment: `ab --feature scheduler=mq-deadline,B --tests transfer` (%d rounds of '
                    'A then B per run), the outer zone\'s sequential rate:' % rows[0]['rounds'], '',
                    '| B | run | difference B vs mq-deadline [95 % interval] | spread between runs, mq-deadline / B | significant |',
                    '| --- | --- | --- | --- | --- |']
        for i, r in enumerate(rows):
            o = r['outer_mb_s']
            out.append('| %s | %d | %+.2f %% [%+.2f, %+.2f] | %.1f %% / %.1f %%%s | %s |' % (
                b, i + 1, o['diff_pct'], o['ci_low_pct'], o['ci_high_pct'], o['spread_a_pct'], o['spread_b_pct'],
                ' (larger than the difference)' if o['spread_warning'] else '', 'yes' if o['significant'] else 'no'))
    return '\n'.join(out) + '\n'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--truth', required=True)
    ap.add_argument('--dir')
    ap.add_argument('--report', nargs='*')
    a = ap.parse_args()
    with open(a.truth) as f:
        truth = json.load(f)
    if a.report is not None:
        sys.stdout.write(report(a.report, truth))
        return 0
    _fig, fails = judge_run(a.dir, truth)
    print('serve-bench-judge: %s' % ('all checks passed' if not fails else 'FAILED: ' + ', '.join(fails)))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
