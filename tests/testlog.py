#!/usr/bin/env python3
"""testlog.py: what ./bootstrap test reads from meson's test logs.

  testlog.py counts LOG.json             prints "PASSED FAILED SKIPPED"
  testlog.py slowest N LABEL=FILE...     prints the N slowest tests

A LOG.json is meson's test log (one JSON object a line: name, result,
duration).  For `slowest`, a FILE ending in .json is such a log; any other
FILE holds lines "NAME SECONDS" (the fuzz targets, the night), and LABEL
says which run each came from.  A missing FILE is left out.
"""
import json
import os
import sys


def read_meson(path):
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                yield json.loads(line)


def counts(path):
    ok = fail = skip = 0
    for r in read_meson(path):
        result = r["result"]
        if result in ("OK", "EXPECTEDFAIL"):
            ok += 1
        elif result == "SKIP":
            skip += 1
        else:
            fail += 1
    print(ok, fail, skip)


def slowest(n, sources):
    rows = []
    for source in sources:
        label, _, path = source.partition("=")
        if not os.path.exists(path):
            continue
        if path.endswith(".json"):
            for r in read_meson(path):
                rows.append((float(r.get("duration") or 0), label, r["name"], r["result"]))
        else:
            with open(path) as f:
                for line in f:
                    parts = line.split()
                    if len(parts) >= 2:
                        rows.append((float(parts[1]), label, parts[0], parts[2] if len(parts) > 2 else ""))
    rows.sort(key=lambda r: -r[0])
    print("slowest %d tests:" % min(n, len(rows)))
    for seconds, label, name, result in rows[:n]:
        print("  %7.1f s  %-28s %-34s %s" % (seconds, label, name, result))


def main(argv):
    if len(argv) == 3 and argv[1] == "counts":
        counts(argv[2])
    elif len(argv) >= 3 and argv[1] == "slowest":
        slowest(int(argv[2]), argv[3:])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
