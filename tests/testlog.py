#!/usr/bin/env python3
"""testlog.py: what ./bootstrap test reads from meson's test logs.

  testlog.py counts LOG.json             prints "PASSED FAILED SKIPPED"
  testlog.py slowest N LABEL=FILE...     prints the N slowest tests
  testlog.py margins LABEL=LOG.json...   prints the tests that took over a
                                         third of their timeout
  testlog.py failures N LABEL=LOG.json... prints the last N lines of each
                                         failed test's output

A LOG.json is meson's test log (one JSON object a line: name, result,
duration).  For `slowest`, a FILE ending in .json is such a log; any other
FILE holds lines "NAME SECONDS" (the fuzz targets, the night), and LABEL
says which run each came from.  A missing FILE is left out.

A test's timeout is a hang guard, sized at three times the longest the
test took in loaded runs (docs/testing.md, "Timeouts"); `margins` reads
each test's timeout from meson-info/intro-tests.json in the build folder
the log is in (LOG.json's folder's parent) and names every test that
used more than a third of it, so a guard grown too tight shows before it
kills a test on a busy machine.
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


def timeouts(build_dir):
    path = os.path.join(build_dir, "meson-info", "intro-tests.json")
    with open(path) as f:
        return {t["name"]: t["timeout"] for t in json.load(f)}


def margins(sources):
    rows = []
    for source in sources:
        label, _, path = source.partition("=")
        if not os.path.exists(path):
            continue
        limit = timeouts(os.path.dirname(os.path.dirname(os.path.abspath(path))))
        for r in read_meson(path):
            name = r["name"].split(" / ")[-1]
            t = limit.get(name)
            seconds = float(r.get("duration") or 0)
            if t and t > 0 and seconds > t / 3:
                rows.append((seconds / t, seconds, t, label, r["name"], r["result"]))
    if not rows:
        return
    rows.sort(key=lambda r: -r[0])
    print("over a third of their timeout (the guard is 3x the longest loaded run):")
    for share, seconds, t, label, name, result in rows:
        print("  %7.1f s of %4d s (%3.0f %%)  %-14s %-34s %s" % (seconds, t, 100 * share, label, name, result))


def failures(n, sources):
    """The end of each failed test's output, so that the last screen of a
    test form (all a CI page may keep) says which case failed and why."""
    for source in sources:
        label, _, path = source.partition("=")
        if not os.path.exists(path):
            continue
        for r in read_meson(path):
            if r["result"] in ("OK", "EXPECTEDFAIL", "SKIP"):
                continue
            out = (r.get("stdout") or "") + (r.get("stderr") or "")
            lines = out.rstrip("\n").split("\n") if out.strip() else []
            print("failed: %s %s (%s, %.1f s), its last %d lines:" %
                  (label, r["name"], r["result"], float(r.get("duration") or 0), min(n, len(lines))))
            for line in lines[-n:]:
                print("  | " + line[:300])


def main(argv):
    if len(argv) == 3 and argv[1] == "counts":
        counts(argv[2])
    elif len(argv) >= 3 and argv[1] == "slowest":
        slowest(int(argv[2]), argv[3:])
    elif len(argv) >= 3 and argv[1] == "margins":
        margins(argv[2:])
    elif len(argv) >= 3 and argv[1] == "failures":
        failures(int(argv[2]), argv[3:])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
