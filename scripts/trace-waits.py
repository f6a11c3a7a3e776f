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

The text format is the Go toolchain's debug output (Go 1.26 here), not a stable interface.
"""
import re
import sys

WINDOW_NS = 10_000_000
SLOW_NS = 5_000_000

transition = re.compile(r'^M=\S+ P=\S+ G=\S+ StateTransition Time=(\d+) GoID=(\d+) (\w+)->(\w+)')
mark = re.compile(r'^M=\S+ P=\S+ G=\S+ Range(Begin|End) Time=(\d+) Name="GC concurrent mark phase"')


def main():
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
