#!/usr/bin/env python3
"""tests/testlog.py's margins, counts and failures, on a build folder made here: a
meson-info/intro-tests.json as meson writes it (the keys the script reads:
name, timeout) and a test log of one JSON object a line."""
import json
import os
import subprocess
import sys
import tempfile

source_root = sys.argv[1]
script = os.path.join(source_root, "tests", "testlog.py")
failed = 0


def check(what, ok, text):
    global failed
    if not ok:
        failed += 1
        print("FAIL %s:\n%s" % (what, text))


def run(*args):
    p = subprocess.run([sys.executable, script] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


with tempfile.TemporaryDirectory() as d:
    build = os.path.join(d, "build")
    os.makedirs(os.path.join(build, "meson-info"))
    os.makedirs(os.path.join(build, "meson-logs"))
    with open(os.path.join(build, "meson-info", "intro-tests.json"), "w") as f:
        json.dump([{"name": "slow", "timeout": 90}, {"name": "quick", "timeout": 30},
                   {"name": "edge", "timeout": 60}, {"name": "none", "timeout": 0}], f)
    log = os.path.join(build, "meson-logs", "testlog.json")
    with open(log, "w") as f:
        for name, seconds, result in [("slow", 61.0, "OK"), ("quick", 30.2, "TIMEOUT"),
                                      ("edge", 20.0, "OK"), ("none", 500.0, "OK"),
                                      ("unknown", 999.0, "FAIL")]:
            f.write(json.dumps({"name": "rxdeck:unit / " + name, "result": result,
                                "duration": seconds}) + "\n")
    rc, out = run("margins", "gcc=" + log, "gone=" + os.path.join(d, "missing.json"))
    check("margins exits 0", rc == 0, out)
    lines = [l for l in out.splitlines() if l.startswith("  ")]
    check("margins names the two over a third, the fuller first",
          len(lines) == 2 and "quick" in lines[0] and "101 %" in lines[0]
          and "slow" in lines[1] and "68 %" in lines[1], out)
    check("exactly a third is not over it", "edge" not in out, out)
    check("no timeout (0) and a test the build does not know are left out",
          "none" not in out and "unknown" not in out, out)
    with open(log, "w") as f:
        f.write(json.dumps({"name": "rxdeck:unit / edge", "result": "OK", "duration": 1.0}) + "\n")
    rc, out = run("margins", "gcc=" + log)
    check("nothing near its timeout prints nothing", rc == 0 and out == "", out)
    rc, out = run("counts", log)
    check("counts", rc == 0 and out.strip() == "1 0 0", out)

    # failures: the end of each failed test's output, the passed and skipped left out
    with open(log, "w") as f:
        out_lines = "".join("line %d\n" % i for i in range(1, 61))
        for name, result, stdout in [("fine", "OK", "nothing\n"), ("gone", "SKIP", "why\n"),
                                     ("broke", "FAIL", out_lines + "[  FAILED  ] test_x\n"),
                                     ("hung", "TIMEOUT", ""), ("xfail", "EXPECTEDFAIL", "x\n")]:
            f.write(json.dumps({"name": "rxdeck:unit / " + name, "result": result, "duration": 2.5,
                                "stdout": stdout}) + "\n")
    rc, out = run("failures", "5", "clang-asan=" + log, "gone=" + os.path.join(d, "missing.json"))
    lines = out.splitlines()
    check("failures names each failed test with its result", rc == 0 and len(lines) == 7
          and lines[0] == "failed: clang-asan rxdeck:unit / broke (FAIL, 2.5 s), its last 5 lines:"
          and lines[6] == "failed: clang-asan rxdeck:unit / hung (TIMEOUT, 2.5 s), its last 0 lines:", out)
    check("failures prints the last N lines, the failing one last",
          lines[1:6] == ["  | line 57", "  | line 58", "  | line 59", "  | line 60", "  | [  FAILED  ] test_x"], out)
    check("passed, skipped and expected failures are left out",
          "fine" not in out and "gone" not in out and "xfail" not in out, out)

print("%s" % ("ok" if not failed else "%d checks failed" % failed))
sys.exit(1 if failed else 0)
