#!/usr/bin/env python3
"""How long goroutines waited to run, window by window, against the collector's mark phases.

Reads the text `go tool trace -d=parsed TRACE` prints (a trace from the server's
/debug/pprof/trace, which `pome serve --pprof` serves) and splits the trace into 10 ms
windows. A wait is the time from a goroutine becoming runnable to its running. For the
windows a GC mark phase overlaps and for the others it prints how many windows held a
wait over 5 ms, and the count and p99 of the waits.

    curl -s -H "Authorization: Bearer $POME_API_KEY" \\
        "http://127.0.0.1:7611/debug/pprof/trace?seconds=4" -o server.trace
    go tool trace -d=parsed server.trace | python3 scripts/trace-waits.py

With --slices it prints instead the longest times a goroutine ran without stopping, grouped
by where each ended (the top of its stack then) and by whether the goroutine helped the
collector mark during it (a mark assist): one that ends in gcBgMarkWorker is the collector's
own marking, one that ends in a write system call a request's work up to its answer.

    go tool trace -d=parsed server.trace | python3 scripts/trace-waits.py --slices

With --share it prints how the processors were shared during the mark phases and outside them:
how many goroutines were running on average that were the collector's mark workers and how many
were not, how many were runnable but waiting, and why goroutines stopped running.

    go tool trace -d=parsed server.trace | python3 scripts/trace-waits.py --share

The text format is the Go toolchain's debug output (Go 1.26 here), not a stable interface.
"""
import collections
import re
import sys

WINDOW_NS = 10_000_000
SLOW_NS = 5_000_000

transition = re.compile(r'^M=\S+ P=\S+ G=\S+ StateTransition Time=(\d+) GoID=(\d+) (\w+)->(\w+)')
assist = re.compile(r'^M=\S+ P=\S+ G=\S+ RangeBegin Time=\d+ Name="GC mark assist" Scope=Goroutine\((\d+)\)')
mark = re.compile(r'^M=\S+ P=\S+ G=\S+ Range(Begin|End) Time=(\d+) Name="GC concurrent mark phase"')


def slices(top=60, depth=4):
    """The top longest running slices, grouped by the frames where each ended (its TransitionStack)."""
    running = {}
    assisted = set()  # goroutines that began a mark assist in their running slice
    found = []  # (ns, frames, assisted)
    frames = None
    for line in sys.stdin:
        if line.startswith('M='):
            frames = None
            m = assist.match(line)
            if m:
                assisted.add(m.group(1))
                continue
            m = transition.match(line)
            if not m:
                continue
            t, g, frm, to = int(m.group(1)), m.group(2), m.group(3), m.group(4)
            if to == 'Running':
                running[g] = t
                assisted.discard(g)
            elif frm == 'Running' and g in running:
                frames = []
                found.append((t - running.pop(g), frames, g in assisted))
        elif frames is not None and line.startswith('Stack='):
            frames = None  # the goroutine's stack again, after its TransitionStack
        elif frames is not None and line.startswith('\t') and not line.startswith('\t\t'):
            if len(frames) < depth:
                frames.append(line.strip().split(' @ ')[0].rsplit('/', 1)[-1])
    if not found:
        sys.exit('no goroutine transitions in the input: give it `go tool trace -d=parsed TRACE`')
    found.sort(key=lambda f: -f[0])
    ns = sorted(d for d, _, _ in found)
    print(f'{len(ns)} running slices, p99 {ns[int(0.99 * len(ns))] / 1e6:.3f} ms, '
          f'{sum(1 for d in ns if d > 2_000_000)} over 2 ms; the {min(top, len(found))} longest '
          f'({found[min(top, len(found)) - 1][0] / 1e6:.2f} ms and over), by where they ended:')
    groups = collections.Counter((' < '.join(f) or '(no stack)') + (' [mark assist]' if a else '')
                                 for _, f, a in found[:top])
    for where, n in groups.most_common():
        print(f'{n:4d}  {where}')


def share():
    """How the processors were shared during the mark phases and outside them: the average
    number of goroutines running that were the collector's mark workers (a goroutine that ever
    stops in gcBgMarkWorker), of the others, and of goroutines runnable but not running; and
    why goroutines stopped running (the trace's blocking reasons), counted."""
    reason = re.compile(r'Running->Waiting Reason="([^"]*)"')
    events = []  # (time, goroutine, from, to)
    workers = set()
    reasons = collections.Counter()
    phases, begun = [], None
    last = None  # the goroutine of the last transition, while its TransitionStack is read
    for line in sys.stdin:
        if line.startswith('M='):
            last = None
            m = transition.match(line)
            if m:
                t, g, frm, to = int(m.group(1)), m.group(2), m.group(3), m.group(4)
                events.append((t, g, frm, to))
                last = g
                r = reason.search(line)
                if r:
                    reasons[r.group(1)] += 1
                continue
            m = mark.match(line)
            if m:
                if m.group(1) == 'Begin':
                    begun = int(m.group(2))
                elif begun is not None:
                    phases.append((begun, int(m.group(2))))
                    begun = None
        elif line.startswith('Stack='):
            last = None  # the goroutine's stack again, after its TransitionStack
        elif last is not None and 'runtime.gcBgMarkWorker' in line:
            workers.add(last)
    if not events:
        sys.exit('no goroutine transitions in the input: give it `go tool trace -d=parsed TRACE`')
    events.sort(key=lambda e: e[0])

    def marking(t):
        return any(b <= t < e for b, e in phases)

    time = collections.Counter()
    held = collections.Counter()
    running, runnable = set(), set()
    prev = events[0][0]
    for t, g, frm, to in events:
        if t > prev:
            k = marking(prev)
            w = sum(1 for x in running if x in workers)
            time[k] += t - prev
            held[(k, 'workers')] += w * (t - prev)
            held[(k, 'others')] += (len(running) - w) * (t - prev)
            held[(k, 'runnable')] += len(runnable) * (t - prev)
            prev = t
        if to == 'Running':
            running.add(g)
        elif frm == 'Running':
            running.discard(g)
        if to == 'Runnable':
            runnable.add(g)
        elif frm == 'Runnable':
            runnable.discard(g)
    print(f'{len(phases)} mark phases; {len(workers)} mark workers')
    for k, name in ((True, 'during marking'), (False, 'outside marking')):
        if time[k]:
            print(f'{name}: {time[k] / 1e6:.0f} ms; running: mark workers {held[(k, "workers")] / time[k]:.2f}, '
                  f'others {held[(k, "others")] / time[k]:.2f}; runnable {held[(k, "runnable")] / time[k]:.1f} on average')
    print('stopped running, by reason:')
    for r, n in reasons.most_common():
        print(f'{n:8d}  {r}')


def main():
    args = sys.argv[1:]
    if args == ['--slices']:
        slices()
        return
    if args == ['--share']:
        share()
        return
    if args:
        sys.exit('usage: go tool trace -d=parsed TRACE | trace-waits.py [--slices | --share]')
    runnable = {}
    waits = {}  # window -> waits (ns)
    phases = []
    begun = None
    t0 = None
    for line in sys.stdin:
        if not line.startswith('M='):
            continue
        m = transition.match(line)
        if m:
            t, g, to = int(m.group(1)), m.group(2), m.group(4)
            if t0 is None:
                t0 = t
            if to == 'Runnable':
                runnable[g] = t
            elif to == 'Running' and g in runnable:
                waits.setdefault((t - t0) // WINDOW_NS, []).append(t - runnable.pop(g))
            continue
        m = mark.match(line)
        if m:
            t = int(m.group(2))
            if t0 is None:
                t0 = t
            if m.group(1) == 'Begin':
                begun = t - t0
            elif begun is not None:
                phases.append((begun, t - t0))
                begun = None
    if not waits:
        sys.exit('no goroutine transitions in the input: give it `go tool trace -d=parsed TRACE`')

    def marking(k):
        lo, hi = k * WINDOW_NS, (k + 1) * WINDOW_NS
        return any(b < hi and e > lo for b, e in phases)

    print(f'{len(waits)} windows of {WINDOW_NS // 1_000_000} ms; {len(phases)} mark phases, ms: '
          + ', '.join(f'{(e - b) / 1e6:.1f}' for b, e in phases))
    for name, during in (('during marking', True), ('outside marking', False)):
        ks = [k for k in waits if marking(k) == during]
        slow = sum(1 for k in ks if max(waits[k]) > SLOW_NS)
        ws = sorted(w for k in ks for w in waits[k])
        if not ws:
            print(f'{name}: no windows')
            continue
        p99 = ws[min(len(ws) - 1, int(0.99 * len(ws)))] / 1e6
        over = sum(1 for w in ws if w > SLOW_NS)
        print(f'{name}: {len(ks)} windows, {slow} with a wait over {SLOW_NS // 1_000_000} ms; '
              f'{len(ws)} waits, {over} over {SLOW_NS // 1_000_000} ms, p99 {p99:.2f} ms')


if __name__ == '__main__':
    main()
