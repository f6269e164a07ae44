#!/usr/bin/env python3
"""test-night-stall: tests/soak/night.py's stall_shown(), which lets a run
without a fault be void only when the game's own frame log shows the stall
its reason names (a machine too busy to run the game).  Each reason is
checked against a frame log that shows it and one that does not; a run it
refuses gets its pressures said and its folder kept.

usage: test-night-stall.py SOURCE_ROOT"""
import os
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(sys.argv[1], "tests", "soak"))
import night  # noqa: E402

fails = 0


def expect(name, got, want):
    global fails
    ok = got[0] == want
    fails += not ok
    print("%s %s: %s (%s)" % ("ok  " if ok else "FAIL", name, got[0], got[1]))


def steady(t0, t1, dt=0.02):
    """Frame times every dt from t0 to t1 (s)."""
    n = int(round((t1 - t0) / dt))
    return [t0 + i * dt for i in range(n + 1)]


HUNG = "hung: no new frame for 2 s, at 3.3 s into the route"
# the game stopped presenting at 1.2 s: nothing in the last second before 3.3 s
expect("hung, no frame in the last second", night.stall_shown(steady(0, 1.2), HUNG, (0.5, 4.0)), True)
# frames written after the verdict (the game's stop flushes them) do not count
expect("hung, frames after the verdict", night.stall_shown(steady(0, 1.2) + steady(3.35, 3.6), HUNG,
                                                           (0.5, 4.0)), True)
# a steady game: the reason is not shown by the log
expect("hung, steady frames", night.stall_shown(steady(0, 4.0), HUNG, (0.5, 4.0)), False)
# one frame inside the last second is enough to refuse it
expect("hung, one frame at 2.8 s", night.stall_shown(steady(0, 1.2) + [2.8], HUNG, (0.5, 4.0)), False)
expect("hung, no time", night.stall_shown(steady(0, 1.2), "hung: no new frame for 2 s", (0.5, 4.0)), False)

COVERS = "log covers 0.5\u20133.3 s of 0.5\u20134.0 s (80 %, under 90 %)"
expect("covers, frames end at 3.3 s", night.stall_shown(steady(0, 3.3), COVERS, (0.5, 4.0)), True)
expect("covers, frames to the end", night.stall_shown(steady(0, 4.2), COVERS, (0.5, 4.0)), False)
expect("covers, other span", night.stall_shown(steady(0, 2.6), COVERS, (0.5, 4.0)), False)
expect("covers, no frames", night.stall_shown([], COVERS, (0.5, 4.0)), False)
# the harness's coverage starts at the window's start when a frame came
# before it, however late the first frame inside (ci-46's night, run 29:
# "log covers 0.5-2.8 s", the first frame in the window at 0.60 s)
SPARSE = "log covers 0.5\u20132.8 s of 0.5\u20134.0 s (66 %, under 90 %)"
expect("covers, a frame before the window, the next at 0.6 s",
       night.stall_shown([0.3, 0.6] + steady(1.0, 2.8, 0.1), SPARSE, (0.5, 4.0)), True)
expect("covers, the first frame at 0.6 s", night.stall_shown([0.6] + steady(1.0, 2.8, 0.1), SPARSE,
                                                             (0.5, 4.0)), False)

# any other reason is never a stall
expect("crashed", night.stall_shown([], "crashed: killed by signal 11", (0.5, 4.0)), False)
expect("disk full", night.stall_shown([], "disk full: 0 KiB left", (0.5, 4.0)), False)

# verdict_s: when a hung run was judged, so a fault that landed later is
# held to the stall rule
expect("verdict of a hang", (night.verdict_s(HUNG), HUNG), 3.3)
expect("verdict of a crash", (night.verdict_s("crashed: killed by signal 11 at 0.2 s into the route"), "crashed"), None)
expect("verdict without a time", (night.verdict_s("hung: no new frame for 2 s"), "no time"), None)
expect("verdict, no first frame", (night.verdict_s("hung: no first frame within 60 s of the start"), "no first frame"), None)

# frame_times: the renderer's frame log, a torn row left out
with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
    f.write("frame,present_ns,kind,frame_ms,draws,rb_wait_ms,memsync_ms\n")
    f.write("1,1500000000,real,16.0,200,0,0\n2,1516000000,real,16.0,200,0,0\n99999,12345")
    path = f.name
got = night.frame_times(path, 1000000000)
os.unlink(path)
ok = got == [0.5, 0.516]
fails += not ok
print("%s frame_times: %s" % ("ok  " if ok else "FAIL", got))

# a refused void run: the pressures over its route and its folder kept
with tempfile.TemporaryDirectory() as d:
    run_dir = os.path.join(d, "runs", "night", "029-A")
    os.makedirs(run_dir)
    with open(os.path.join(run_dir, "frames.csv"), "w") as f:
        f.write("frame,present_ns\n")
    n = night.Night.__new__(night.Night)
    n.build = os.path.join(d, "build")
    n.pressure = night.Pressure()
    n.io_pressure = night.Pressure("/proc/pressure/io")
    base = 10 ** 12
    n.pressure.samples = [(base - 10 ** 9, 0), (base + 5 * 10 ** 9, 3 * 10 ** 6)] if n.pressure.available else []
    n.io_pressure.available = False
    said = n.refused(run_dir, base)
    kept = os.path.join(n.build, "meson-logs", "night-refused", "029-A", "frames.csv")
    ok = os.path.exists(kept) and "its folder kept in " in said and "I/O pressure unknown" in said and \
        ("CPU pressure 50 %" in said if n.pressure.available else "CPU pressure unknown" in said)
    fails += not ok
    print("%s refused: %s" % ("ok  " if ok else "FAIL", said))

print("%d failed" % fails)
sys.exit(1 if fails else 0)
