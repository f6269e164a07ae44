#!/usr/bin/env python3
"""fuzz-run: runs every libFuzzer target of a -Dfuzz=true build.

  tests/fuzz-run.sh BUILD SECONDS [TARGET...]

The targets (fuzz-NAME or test-fuzz-NAME programs) share SECONDS x their
number of seconds, starting from their checked-in corpora tests/corpus/NAME.
The time is split by what fuzzing still finds: a first pass gives each
target a quarter of its share (at least 2 s); the rest goes to the targets
in proportion to the new inputs (coverage growth) each found in that pass,
plus one, and never less than a quarter share to any.  FUZZ_JOBS (default
1) targets run at a time, longest first, each on its own core.

New inputs go to a scratch folder, so the checked-in corpus only changes by
hand.  A crash, leak, sanitizer report or timeout fails the target;
libFuzzer keeps the input as BUILD/fuzz-crashes/NAME/crash-* (or leak-*,
timeout-*): copy it into tests/corpus/NAME/ as regress-<what>, fix the bug,
and the plain corpus test (meson test fuzz-NAME) keeps it fixed.  Prints
one line per target and "fuzz: N passed, N failed" last.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time


def find_targets(build):
    found = {}
    for root, _dirs, files in os.walk(build):
        for f in files:
            path = os.path.join(root, f)
            if not os.access(path, os.X_OK) or not os.path.isfile(path):
                continue
            name = f[len("test-"):] if f.startswith("test-fuzz-") else f
            if name.startswith("fuzz-") and "." not in name:
                found.setdefault(name[len("fuzz-"):], path)
    return found


class Target:
    def __init__(self, name, exe, corpus, scratch, crashes):
        self.name, self.exe, self.corpus = name, exe, corpus
        self.scratch, self.crashes = scratch, crashes
        self.seconds = 0.0
        self.runs = 0
        self.new_units = 0
        self.first_new = 0
        self.failed = None

    def fuzz(self, seconds, log):
        """One libFuzzer session of `seconds` (whole seconds, at least 1)."""
        secs = max(1, int(round(seconds)))
        # -rss_limit_mb: parsers read whole files; 10 MB lines are legal input
        cmd = [self.exe, "-max_total_time=%d" % secs, "-timeout=10", "-rss_limit_mb=2048",
               "-max_len=1048576", "-print_final_stats=1",
               "-artifact_prefix=%s/" % self.crashes, self.scratch, self.corpus]
        t0 = time.monotonic()
        with open(log, "w") as out:
            rc = subprocess.call(cmd, stdout=out, stderr=subprocess.STDOUT)
        self.seconds += time.monotonic() - t0
        text = open(log, errors="replace").read()
        m = re.search(r"stat::number_of_executed_units:\s*(\d+)", text)
        self.runs += int(m.group(1)) if m else 0
        m = re.search(r"stat::new_units_added:\s*(\d+)", text)
        added = int(m.group(1)) if m else 0
        self.new_units += added
        if rc != 0 and self.failed is None:
            self.failed = log
        return added


def run_lanes(jobs, work):
    """work: [(seconds, fn)]; runs them `jobs` at a time, longest first."""
    work = sorted(work, key=lambda w: -w[0])
    lock = threading.Lock()

    def lane():
        while True:
            with lock:
                if not work:
                    return
                _secs, fn = work.pop(0)
            fn()

    threads = [threading.Thread(target=lane) for _ in range(max(1, jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def main(argv):
    if len(argv) < 3:
        sys.stderr.write("usage: tests/fuzz-run.sh BUILD SECONDS [TARGET...]\n")
        return 2
    build, seconds = argv[1], float(argv[2])
    src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    programs = find_targets(build)
    names = [a[len("fuzz-"):] if a.startswith("fuzz-") else a for a in argv[3:]] or sorted(programs)
    if not names:
        sys.stderr.write("fuzz-run: no fuzz-* program in '%s'\n" % build)
        return 2
    jobs = int(os.environ.get("FUZZ_JOBS", "1") or 1)
    scratch = tempfile.mkdtemp()
    targets, fail = [], 0
    try:
        for name in names:
            corpus = os.path.join(src, "tests", "corpus", name)
            if name not in programs or not os.path.isdir(corpus):
                print("fuzz-%s: FAIL (no program in '%s' or no corpus '%s')" % (name, build, corpus))
                fail += 1
                continue
            crashes = os.path.join(build, "fuzz-crashes", name)
            os.makedirs(crashes, exist_ok=True)
            os.makedirs(os.path.join(scratch, name), exist_ok=True)
            targets.append(Target(name, programs[name], corpus, os.path.join(scratch, name),
                                  crashes))
        budget = seconds * len(targets)
        first = max(2.0, seconds / 4)
        run_lanes(jobs, [(first, (lambda t=t: t.fuzz(first, os.path.join(t.crashes, "log-1"))))
                         for t in targets])
        for t in targets:
            t.first_new = t.new_units
        left = max(0.0, budget - first * len(targets))
        alive = [t for t in targets if t.failed is None]
        if alive and left > 0:
            floor = seconds / 4
            spare = max(0.0, left - floor * len(alive))
            weight = sum(t.first_new + 1 for t in alive)
            plan = [(floor + spare * (t.first_new + 1) / weight, t) for t in alive]
            run_lanes(jobs, [(s, (lambda t=t, s=s: t.fuzz(s, os.path.join(t.crashes, "log"))))
                             for s, t in plan])
        for t in targets:
            if t.failed:
                print("fuzz-%s: FAIL, see %s" % (t.name, t.failed))
                for f in sorted(os.listdir(t.crashes)):
                    if not f.startswith("log"):
                        print("  input: %s" % os.path.join(t.crashes, f))
                for line in open(t.failed, errors="replace").read().splitlines()[-30:]:
                    print("  " + line)
                fail += 1
            else:
                print("fuzz-%s: ok, %d inputs in %.1f s (%d new in the first pass)"
                      % (t.name, t.runs, t.seconds, t.first_new))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    passed = len(targets) - sum(1 for t in targets if t.failed)
    print("fuzz: %d passed, %d failed" % (passed, fail))
    return 0 if fail == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
