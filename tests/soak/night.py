#!/usr/bin/env python3
"""night.py: an accelerated night of faults for the harness.

One campaign of RUNS short runs of the demo game on lavapipe (a 4 s route,
two arms), played by `rxdeck run`, with faults injected on a schedule by
run position:

  crash         the game gets SIGSEGV            -> void "crashed: ..."
  hang          the game gets SIGSTOP            -> void "hung: ..."
  torn          a half row is written into the frame log mid-run -> done
  shot          the shots folder is replaced by a file -> done, shot missing
  pad           the game's end of the pad socket is shut down mid-run (the
                pad receiver disappearing) -> done; the game says the pad is
                gone, every button released, and connects again
  disk          the data file system is filled mid-run -> void "disk full: ..."
                (then a resume fails as harness trouble; the filler is
                removed and the campaign resumed)
  kill          the harness gets SIGKILL; `rxdeck resume` goes on (5 times)
  second        while a harness plays, a second `rxdeck resume` of the same
                campaign must be refused, naming the holder
  forge         the forge stand-in refuses the end-of-campaign post (401:
                it stays in the outbox as failed, naming the fix); `rxdeck
                post` of the campaign then meets a 500 and a hang before it
                is accepted; `rxdeck post --retry` runs until nothing is
                queued

Afterwards it checks and prints: every run finished exactly once (no run
left planned or running) and every finished run's real fps re-measured from
its own frames.csv (`rxdeck frames`) equal to the database's; every void
run's reason is the one its fault asks for, and a run without a fault (or
with one that leaves it done) is void only for a stall of the game that
its own frame log shows (hung: no frame in the last second before the
verdict; log covers: the log's frames span what the reason says) while
the machine was busy (the kernel's CPU pressure: some task waited for a
CPU at least half the route) -- a fault that landed after the harness
had judged its run hung is held to that rule too; the summary reached the forge exactly once; no button left held: a
receiver of the night's own, connected to every run's pad socket beside the
game, ends each pad with every button up and every axis centred; no game,
harness or pad socket is left; PRAGMA integrity_check is ok.  Exit 0 when every check
holds.  The disk fault needs a tmpfs (root, or a user namespace); without
it that fault is skipped and said so.

usage: tests/soak/night.py BUILD_DIR [--runs N] [--keep DIR]
"""
import argparse
import ctypes
import http.server
import json
import os
import shutil
import signal
import socket
import struct
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

ROUTE_S = 4.0      # the route's duration
WATCHDOG_S = 2.0   # the plan's watchdog
ROUTE = """route soak
duration 4s
window 0.5s 4s
0s press A 100ms
1s stick left 0 -1 for 1s
2.5s shot mid
"""

PLAN = """[campaign]
name = night
route = {route}
order = AB
rounds = {rounds}
warmup = no
watchdog = 2s
start_timeout = 60s
stop_timeout = 5s
pad = socket

[build forest]
command = {forest} --size 160x96 --draws 200 --job-ms 0.5 --log-every 0
pad_option = --pad

[arm A]
label = off

[arm B]
label = early
env = RX_VK_READBACK_EARLY=1
"""

TOKEN = "night-token-S3cr3t"


class Forge(http.server.BaseHTTPRequestHandler):
    """The forge stand-in: 401, 500, a hang, then comments are made."""
    script = ["401", "500", "hang"]
    lock = threading.Lock()
    created = []      # comment ids made
    assets = []       # attachment uploads (POST .../comments/{id}/assets)
    answers = []      # what each request got

    def log_message(self, *a):
        pass

    def _answer(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _handle(self):
        n = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(n)
        with Forge.lock:
            act = Forge.script.pop(0) if Forge.script else "ok"
            Forge.answers.append((self.command, self.path, act,
                                  self.headers.get("Authorization") == "token " + TOKEN))
        if act == "hang":
            time.sleep(40)
            return
        if act == "500":
            return self._answer(500, {"message": "scripted 500"})
        if act == "401":
            return self._answer(401, {"message": "scripted 401"})
        if self.command == "POST" and self.path.split("?")[0].endswith("/assets"):
            # a plot attached to a comment (Forgejo's comment-assets API):
            # an attachment, not another comment
            with Forge.lock:
                Forge.assets.append(self.path)
                aid = len(Forge.assets)
            return self._answer(201, {"id": aid, "name": "plot-%d.svg" % aid,
                                      "browser_download_url":
                                      "http://127.0.0.1/attachments/%d" % aid})
        if self.command == "POST":
            with Forge.lock:
                cid = 1000 + len(Forge.created)
                Forge.created.append(cid)
            return self._answer(201, {"id": cid, "html_url": "http://127.0.0.1/c/%d" % cid})
        return self._answer(200, {"id": int(self.path.rsplit("/", 1)[-1])})

    do_POST = _handle
    do_PATCH = _handle

    def do_GET(self):
        self._answer(200, [])


EV_SYN, EV_KEY, EV_ABS = 0, 1, 3
SYN_REPORT, SYN_DROPPED = 0, 3
RECORD = struct.Struct("qqHHi")   # struct input_event on a 64-bit host


class Receiver:
    """A pad receiver beside the game: it connects to every pad socket the
    harness makes (rxdeck-pad-* in TMPDIR), applies the frames as a game
    does (a state at each SYN_REPORT) and keeps the last state the pad sent
    before it went away."""

    def __init__(self, folder, position):
        self.folder = folder
        self.position = position     # () -> the running run's position or None
        self.seen = set()
        self.ends = []               # (position, buttons held, axes off centre, frames)
        self.lock = threading.Lock()
        self.stopping = False
        self.reading = 0
        self.thread = threading.Thread(target=self.watch, daemon=True)
        self.thread.start()

    def watch(self):
        while not self.stopping:
            try:
                names = os.listdir(self.folder)
            except OSError:
                names = []
            for name in names:
                path = os.path.join(self.folder, name)
                if not name.startswith("rxdeck-pad-"):
                    continue
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                # a new pad can reuse the last one's name and inode
                key = (path, st.st_ino, st.st_mtime_ns)
                if key in self.seen:
                    continue
                self.seen.add(key)
                s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                try:
                    s.connect(path)
                except OSError:
                    s.close()
                    continue
                with self.lock:
                    self.reading += 1
                threading.Thread(target=self.read, args=(s, self.position()),
                                 daemon=True).start()
            time.sleep(0.05)

    def read(self, s, pos):
        keys, axes, pend_keys, pend_axes = {}, {}, {}, {}
        frames = 0
        while True:
            try:
                m = s.recv(65536)
            except OSError:
                m = b""
            if not m:
                break
            for i in range(0, len(m) - len(m) % RECORD.size, RECORD.size):
                _, _, typ, code, value = RECORD.unpack_from(m, i)
                if typ == EV_KEY:
                    pend_keys[code] = value
                elif typ == EV_ABS:
                    pend_axes[code] = value
                elif typ == EV_SYN and code == SYN_DROPPED:
                    pend_keys, pend_axes = {}, {}
                elif typ == EV_SYN and code == SYN_REPORT:
                    keys, axes = dict(pend_keys), dict(pend_axes)
                    frames += 1
        s.close()
        held = sorted(c for c, v in keys.items() if v)
        off = {c: v for c, v in axes.items() if v}
        with self.lock:
            self.ends.append((pos, held, off, frames))
            self.reading -= 1

    def stop(self):
        """Stops watching; waits up to 10 s for the pads still open to go."""
        self.stopping = True
        self.thread.join()
        for _ in range(100):
            with self.lock:
                if self.reading == 0:
                    return
            time.sleep(0.1)


def unix_seqpacket_inodes():
    """inodes of the AF_UNIX SOCK_SEQPACKET sockets on the host."""
    out = set()
    with open("/proc/net/unix") as f:
        next(f)
        for line in f:
            w = line.split()
            if len(w) >= 7 and w[4] == "0005":
                out.add(w[6])
    return out


def shut_pad_socket(pid):
    """Shuts down the game's end of its pad socket from outside (a copy of
    the descriptor through pidfd_getfd): the pad receiver disappears as if
    the game had closed it.  Returns how many sockets were shut."""
    libc = ctypes.CDLL(None, use_errno=True)
    seq = unix_seqpacket_inodes()
    n = 0
    try:
        fds = os.listdir("/proc/%d/fd" % pid)
        pidfd = os.pidfd_open(pid)
    except OSError:
        return 0
    try:
        for fd in fds:
            try:
                link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
            except OSError:
                continue
            if not link.startswith("socket:[") or link[8:-1] not in seq:
                continue
            mine = libc.syscall(438, pidfd, int(fd), 0)   # pidfd_getfd
            if mine < 0:
                continue
            s = socket.socket(fileno=mine)
            try:
                s.shutdown(socket.SHUT_RDWR)
                n += 1
            except OSError:
                pass
            s.close()
    finally:
        os.close(pidfd)
    return n


def log(msg):
    print(time.strftime("%H:%M:%S"), msg, flush=True)


FLUSH_S = 1.0      # a frame a second or more after the frame log's last
                   # write is written at once (renderer/src/present.h,
                   # ROWLOG_FLUSH_NS)


def frame_times(path, t0_ns):
    """The frames' present times in s after t0, from a renderer frame log
    (frame,present_ns,kind,...); rows that do not parse (a torn row) are
    left out."""
    out = []
    try:
        with open(path, errors="replace") as f:
            for line in f:
                x = line.split(",")
                if len(x) < 3 or not x[1].isdigit():
                    continue
                out.append((int(x[1]) - t0_ns) / 1e9)
    except OSError:
        pass
    return sorted(out)


def stall_shown(times, why, window):
    """Whether a void run's reason is one a machine too busy to run the
    game gives, and the game's own frame log shows it.  Returns (True,
    evidence) or (False, what is missing).

    "hung: no new frame for W s, at X s into the route": the harness saw
    the log grow last more than W s before X; a frame the game presented
    later than FLUSH_S after that would have been written at once (the
    renderer writes a frame FLUSH_S after its last write at once), so the
    log holds no frame in the last FLUSH_S before X.  X is printed to 0.1 s: the span
    checked is (X - FLUSH_S + 0.05, X - 0.05).
    "log covers A-B s of W0-W1 s (P %, under 90 %)": the log's first and
    last frames, each held to the window (as the harness's coverage does,
    stats-run.c: a frame before the window's start covers from it), are A
    and B (to 0.05 s), and they cover under 90 % of it."""
    if why.startswith("hung: no new frame for "):
        x = verdict_s(why)
        if x is None:
            return False, "no time in the reason"
        lo, hi = x - FLUSH_S + 0.05, x - 0.05
        inside = [t for t in times if lo < t < hi]
        if inside:
            return False, "%d frames in %.2f-%.2f s (the last second before the verdict)" % (
                len(inside), lo, hi)
        before = [t for t in times if t <= lo]
        return True, "no frame from %s to %.2f s" % (
            "%.2f" % before[-1] if before else "the start", hi)
    if why.startswith("log covers "):
        w0, w1 = window
        inw = [t for t in times if w0 <= t <= w1]
        try:
            a, b = (float(v) for v in why.split(" ")[2].split("\u2013"))
        except (IndexError, ValueError):
            return False, "no span in the reason"
        if not inw:
            return False, "no frame in the window"
        first, last = max(times[0], w0), min(times[-1], w1)
        cov = (last - first) / (w1 - w0)
        if abs(first - a) > 0.05 or abs(last - b) > 0.05 or cov >= 0.9:
            return False, "the log's frames span %.2f-%.2f s (%.0f %%)" % (first, last, cov * 100)
        gaps = [y - x for x, y in zip([w0] + inw, inw + [w1])]
        return True, "frames %.2f-%.2f s, the longest gap %.2f s" % (first, last, max(gaps))
    return False, "not a reason a busy machine gives"


def verdict_s(why):
    """When the harness judged a run, in s into the route, from a void
    reason that says so ("hung: no new frame for W s, at X s into the
    route"); None for one that does not."""
    if not why.startswith("hung: no new frame for ") or ", at " not in why:
        return None
    try:
        return float(why.split(", at ")[1].split(" s into")[0])
    except ValueError:
        return None


class Pressure(threading.Thread):
    """The kernel's CPU pressure (/proc/pressure/cpu, "some": the share of
    time some runnable task waited for a CPU), sampled four times a second
    so a run's share can be read afterwards; with path=/proc/pressure/io,
    the share some task waited for I/O.  Absent without PSI."""
    PATH = "/proc/pressure/cpu"

    def __init__(self, path=None):
        super().__init__(daemon=True)
        if path:
            self.PATH = path
        self.samples = []          # (CLOCK_MONOTONIC ns, some total µs)
        self.halt = threading.Event()
        self.available = self.read() is not None

    def read(self):
        try:
            with open(self.PATH) as f:
                for line in f:
                    if line.startswith("some "):
                        return int(line.split("total=")[1])
        except (OSError, IndexError, ValueError):
            pass
        return None

    def run(self):
        while not self.halt.is_set():
            v = self.read()
            if v is not None:
                self.samples.append((time.monotonic_ns(), v))
            self.halt.wait(0.25)

    def share(self, t0_ns, t1_ns):
        """The share of [t0, t1] some task waited for a CPU, from the
        samples around it; None when they do not span it."""
        a = [x for x in self.samples if x[0] <= t0_ns]
        b = [x for x in self.samples if x[0] >= t1_ns]
        if not a or not b:
            return None
        (ta, va), (tb, vb) = a[-1], b[0]
        return (vb - va) * 1e3 / (tb - ta)


BUSY = 0.5         # a stall is accepted only while some task waited for a
                   # CPU at least this share of the route (when PSI tells)


def comm_of(pid):
    """"PID name" of a process, or "PID" once it is gone."""
    try:
        with open("/proc/%d/comm" % pid) as f:
            return "%d %s" % (pid, f.read().strip())
    except OSError:
        return str(pid)


def games_in(folder):
    """pids of processes whose working folder is under folder."""
    out = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            cwd = os.readlink("/proc/%s/cwd" % p)
        except OSError:
            continue
        if cwd.startswith(folder):
            out.append(int(p))
    return out


class Night:
    def __init__(self, a):
        self.build = os.path.abspath(a.build)
        self.rxdeck = os.path.join(self.build, "harness", "rxdeck")
        self.runs = a.runs
        self.t = a.keep or tempfile.mkdtemp(prefix="rxdeck-night-")
        os.makedirs(self.t, exist_ok=True)
        self.data = os.path.join(self.t, "data")
        os.makedirs(self.data, exist_ok=True)
        self.tmpfs = False
        if os.geteuid() == 0:
            r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=768m,mode=0700", "tmpfs",
                                self.data], capture_output=True)
            self.tmpfs = r.returncode == 0
        self.db = os.path.join(self.t, "results.db")
        with open(os.path.join(self.t, "soak.route"), "w") as f:
            f.write(ROUTE)
        with open(os.path.join(self.t, "night.ini"), "w") as f:
            f.write(PLAN.format(route=os.path.join(self.t, "soak.route"), rounds=(self.runs + 1) // 2,
                                forest=os.path.join(self.build, "renderer", "forest", "rxdeck-forest")))
        self.env = dict(os.environ, XDG_DATA_HOME=self.data, TMPDIR=self.t,
                        RXDECK_FORGE_TOKEN=TOKEN, RX_VK_DEVICE="llvmpipe")
        self.env.pop("XDG_RUNTIME_DIR", None)
        # fault schedule by run position
        n = self.runs
        self.faults = {}
        for p in range(1, n + 1):
            k = p % 10
            f = {1: "pad", 3: "crash", 5: "hang", 7: "torn", 9: "shot"}.get(k)
            if f:
                self.faults[p] = f
        self.kill_at = sorted({max(2, n * i // 6) for i in range(1, 6)})
        for p in self.kill_at:
            self.faults.pop(p, None)
        self.disk_at = n // 2 + 2 if self.tmpfs else None
        if self.disk_at:
            self.faults[self.disk_at] = "disk"
            if self.disk_at in self.kill_at:
                self.kill_at.remove(self.disk_at)
        self.done_faults = set()
        self.events = []
        self.second_refusals = 0
        self.second_tries = 0
        self.kills = 0
        self.pad_shut = {}
        self.landed = {}      # position -> when its fault landed (CLOCK_MONOTONIC ns)
        self.receiver = None
        self.forge = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Forge)
        threading.Thread(target=self.forge.serve_forever, daemon=True).start()
        self.url = "http://127.0.0.1:%d" % self.forge.server_address[1]

    def sql(self, q, *args):
        c = sqlite3.connect("file:%s?mode=ro" % self.db, uri=True, timeout=10)
        try:
            return c.execute(q, args).fetchall()
        finally:
            c.close()

    def running(self):
        try:
            r = self.sql("SELECT position, run_dir FROM run WHERE status = 'running'")
        except sqlite3.Error:
            return None
        return r[0] if r else None

    def holder(self):
        """The pid in the campaign's lock file, 0 when none."""
        try:
            with open(os.path.join(self.data, "rxdeck", "runs", "night", "lock")) as f:
                for line in f:
                    if line.startswith("pid "):
                        return int(line[4:])
        except (OSError, ValueError):
            pass
        return 0

    def post_args(self):
        return ["--post", "--forge", self.url, "--repo", "team/game", "--pr", "7"]

    def harness(self, args):
        return subprocess.Popen([self.rxdeck] + args + ["--db", self.db, "-q"],
                                env=self.env, cwd=self.t, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)

    def second(self):
        self.second_tries += 1
        r = subprocess.run([self.rxdeck, "resume", "night", "--db", self.db, "-q"],
                           env=self.env, cwd=self.t, capture_output=True, text=True, timeout=60)
        if r.returncode != 0 and "is held by the harness with pid" in r.stderr:
            self.second_refusals += 1
        else:
            self.events.append("FAIL: a second harness was not refused: exit %d: %s" % (r.returncode,
                                                                            r.stderr.strip()))

    def inject(self, pos, run_dir, h):
        fault = self.faults.get(pos)
        key = (pos, fault)
        if pos in self.kill_at and (pos, "kill") not in self.done_faults:
            self.done_faults.add((pos, "kill"))
            h.send_signal(signal.SIGKILL)
            self.kills += 1
            self.events.append("run %d: harness killed" % pos)
            return "killed"
        if not fault or key in self.done_faults:
            return None
        frames = os.path.join(run_dir, "frames.csv")
        try:
            with open(frames, "rb") as f:
                if f.read(4096).count(b"\n") < 3:
                    return None   # no two frames flushed yet: the route has barely begun
        except OSError:
            return None
        games = games_in(run_dir)
        self.done_faults.add(key)
        self.landed[pos] = time.monotonic_ns()   # CLOCK_MONOTONIC, as route_t0_ns
        self.events.append("run %d: %s%s" % (pos, fault, "" if fault in ("torn", "shot") else
                                              " (to %s)" % ", ".join(comm_of(g) for g in games)))
        if fault == "crash":
            for g in games:
                os.kill(g, signal.SIGSEGV)
        elif fault == "hang":
            for g in games:
                os.kill(g, signal.SIGSTOP)
        elif fault == "pad":
            self.pad_shut[pos] = sum(shut_pad_socket(g) for g in games)
        elif fault == "torn":
            with open(frames, "a") as f:
                f.write("99999,12345")
        elif fault == "shot":
            shots = os.path.join(run_dir, "shots")
            subprocess.run(["rm", "-rf", shots])
            with open(shots, "w") as f:
                f.write("not a folder")
        elif fault == "disk":
            # allocated at once (a tmpfs takes fallocate), then topped up
            fd = os.open(os.path.join(self.data, "filler"), os.O_WRONLY | os.O_CREAT, 0o600)
            off = 0
            for chunk in (1 << 30, 1 << 24, 1 << 20, 1 << 16, 1 << 12):
                while True:
                    try:
                        os.posix_fallocate(fd, off, chunk)
                        off += chunk
                    except OSError:
                        break
            os.close(fd)
            self.landed[pos] = time.monotonic_ns()
        return fault

    def play(self, args):
        """One harness until it ends; faults injected meanwhile."""
        h = self.harness(args)
        tried_second = False
        while h.poll() is None:
            r = self.running()
            if r:
                pos, run_dir = r
                if not tried_second and self.holder() == h.pid:
                    tried_second = True
                    self.second()
                if run_dir and self.inject(pos, run_dir, h) == "killed":
                    h.wait()
                    break
            time.sleep(0.2)
        out = h.communicate()[0]
        self.events.append("harness %s ended with %d: %s" % (args[0], h.returncode,
                                                               " | ".join(out.strip().splitlines()[-3:])))
        return h.returncode, out

    def night(self):
        t0 = time.time()
        self.receiver = Receiver(self.t, lambda: (self.running() or (None,))[0])
        self.pressure = Pressure()
        self.pressure.start()
        self.io_pressure = Pressure("/proc/pressure/io")
        self.io_pressure.start()
        log("night: %d runs in %s, faults %s, harness kills at %s, disk full at %s" %
            (self.runs, self.t, json.dumps(self.faults), self.kill_at, self.disk_at))
        rc, out = self.play(["run", "night.ini", "--name", "night"] + self.post_args())
        if not os.path.exists(self.db):
            raise SystemExit("night: the harness made no database: %s" % out.strip())
        resumes = 0
        while True:
            left = self.sql("SELECT count(*) FROM run WHERE status IN ('planned', 'running')")[0][0]
            if left == 0 and rc not in (-9,):
                break
            if "disk full" in out:
                # a resume on a full disk plays nothing and says why
                r = self.harness(["resume", "night"] + self.post_args())
                o2 = r.communicate()[0]
                if r.returncode == 0 or "disk full" not in o2:
                    self.events.append("FAIL: a resume on a full disk did not stop: %s" % o2.strip())
                os.unlink(os.path.join(self.data, "filler"))
                self.events.append("disk freed")
            resumes += 1
            if resumes > 20:
                self.events.append("FAIL: more than 20 resumes: giving up")
                break
            rc, out = self.play(["resume", "night"] + self.post_args())
        # the campaign's post was refused (401): posted again, through a
        # 500 and a hang, then retried until nothing is queued
        subprocess.run([self.rxdeck, "post", "night", "--timeout", "5", "--db", self.db] +
                       self.post_args()[1:], env=self.env, cwd=self.t, capture_output=True,
                       timeout=300)
        for _ in range(10):
            if self.sql("SELECT count(*) FROM post WHERE state = 'queued'")[0][0] == 0:
                break
            time.sleep(2)
            subprocess.run([self.rxdeck, "post", "--retry", "--timeout", "5", "--db", self.db],
                           env=self.env, cwd=self.t, capture_output=True, timeout=300)
        self.receiver.stop()
        self.pressure.halt.set()
        self.pressure.join()
        self.io_pressure.halt.set()
        self.io_pressure.join()
        self.elapsed = time.time() - t0

    @staticmethod
    def route_share(p, t0):
        """A Pressure's share over the route that started at t0 (ns), or
        None where the kernel has no PSI (or it was not sampled then)."""
        return p.share(t0, t0 + int(ROUTE_S * 1e9)) if p.available else None

    def refused(self, run_dir, t0):
        """For a void run the rule refuses: the pressures over its route and
        its folder kept (the night's own is removed at its end), so the
        case can be read afterwards."""
        said = []
        for name, p in (("CPU", self.pressure), ("I/O", self.io_pressure)):
            share = self.route_share(p, t0)
            said.append("%s pressure %s" % (name, "unknown" if share is None else "%.0f %%" % (100 * share)))
        kept = os.path.join(self.build, "meson-logs", "night-refused", os.path.basename(run_dir))
        try:
            shutil.rmtree(kept, ignore_errors=True)
            shutil.copytree(run_dir, kept)
            said.append("its folder kept in " + kept)
        except OSError as e:
            said.append("its folder could not be kept: %s" % e)
        return "; " + ", ".join(said)

    def route_t0(self, rid):
        """A run's route_t0_ns (CLOCK_MONOTONIC), or None where it has none."""
        return dict(self.sql("SELECT name, value FROM metric WHERE run_id = ?", rid)).get("route_t0_ns")

    def stall(self, rid, run_dir, window, why):
        """stall_shown() for a run of the campaign, from its frames.csv."""
        t0 = self.route_t0(rid)
        if not t0:
            return False, "no route_t0_ns"
        shown, what = stall_shown(frame_times(os.path.join(run_dir, "frames.csv"), int(t0)), why or "",
                                  window)
        if not shown:
            return shown, what + self.refused(run_dir, int(t0))
        # and the machine was too busy: on an idle one a stall is the
        # game's defect, never accepted
        busy = self.route_share(self.pressure, int(t0))
        if busy is None:
            return True, what + "; CPU pressure unknown (%s)" % (
                "no PSI" if not self.pressure.available else "not sampled over the route")
        if busy < BUSY:
            return False, what + ", but some task waited for a CPU only %.0f %% of the route " \
                "(under %.0f %%: the machine was not busy)" % (busy * 100, BUSY * 100) + \
                self.refused(run_dir, int(t0))
        return True, what + "; some task waited for a CPU %.0f %% of the route" % (busy * 100)

    def check(self):
        ok = True
        self.stalled = {}

        def say(good, what):
            nonlocal ok
            ok = ok and good
            print("%s %s" % ("ok  " if good else "FAIL", what), flush=True)

        runs = self.sql("SELECT r.id, r.position, r.status, r.void_reason, r.run_dir, "
                        "c.window_start_s, c.window_end_s FROM run r JOIN campaign c "
                        "ON c.id = r.campaign_id ORDER BY r.position")
        positions = [r[1] for r in runs]
        say(len(runs) == self.runs and len(set(positions)) == len(positions),
            "%d runs planned, each position once (%d rows)" % (self.runs, len(runs)))
        unfinished = [r[1] for r in runs if r[2] not in ("done", "void")]
        say(not unfinished, "every run finished (left: %s)" % unfinished)
        done = [r for r in runs if r[2] == "done"]
        void = [r for r in runs if r[2] == "void"]
        # re-measured from disk
        bad = []
        for rid, pos, st, why, d, w0, w1 in done:
            m = dict(self.sql("SELECT name, value FROM metric WHERE run_id = ?", rid))
            t0 = m.get("route_t0_ns")
            r = subprocess.run([self.rxdeck, "frames", os.path.join(d, "frames.csv"), "--window",
                                "%gs" % w0, "%gs" % w1, "--t0", "%d" % t0, "--json"],
                               capture_output=True, text=True)
            try:
                fps = json.loads(r.stdout)[0]["real_fps"]
            except (ValueError, KeyError, IndexError):
                fps = None
            # `rxdeck frames --json` prints 10 significant digits
            want = m.get("real_fps", -1)
            if fps is None or abs(fps - want) > 1e-8 * max(1.0, abs(want)):
                bad.append((pos, fps, m.get("real_fps")))
        say(not bad, "%d finished runs re-measured from their frames.csv match the database%s" %
            (len(done), (": " + str(bad)) if bad else ""))
        want = {"crash": "crashed: ", "hang": "hung: ", "disk": "disk full: "}
        # A fault gives its reason only when it lands in the route with room
        # for it: a crash before the route's end, a hang a watchdog (and the
        # once-a-second flush of the frame log) before it.  On a loaded
        # machine the game can be so slow that the fault lands later; the
        # route has then (nearly) ended, and the run is done, or void for
        # what its log shows (cut short by the fault) -- never anything else.
        room_s = {"crash": ROUTE_S, "hang": ROUTE_S - WATCHDOG_S - 0.5, "disk": float("inf")}
        wrong, late, after = [], [], []
        for rid, pos, st, why, run_dir, w0, w1 in runs:
            f = self.faults.get(pos)
            why = why or ""
            # no fault, or one that must leave the run done (a torn row, a
            # shot that cannot be written, the pad gone): only a stall of
            # the game on a machine too busy to run it, shown by its own
            # frame log (stall_shown), may void it
            as_stall = st == "void"
            if f in want and (pos, f) in self.done_faults:
                t0 = self.route_t0(rid)
                at = (self.landed[pos] - t0) / 1e9 if t0 and pos in self.landed else None
                judged = verdict_s(why)
                if at is not None and judged is not None and at > judged:
                    # the harness had judged the run (hung at X s) before
                    # the fault landed: what the fault asks for cannot
                    # show, and the run is judged as one without a fault
                    after.append((pos, f, round(at, 2), why[:60]))
                elif at is not None and at >= room_s[f]:
                    as_stall = False
                    late.append((pos, f, round(at, 2), st, why[:40]))
                    if st == "void" and not (why.startswith(want[f]) or
                                             why.startswith("log covers ")):
                        wrong.append((pos, f, st, why))
                else:
                    as_stall = False
                    if st != "void" or not why.startswith(want[f]):
                        wrong.append((pos, f, st, why, at,
                                      self.refused(run_dir, int(t0)) if t0 else ""))
            if as_stall:
                shown, what = self.stall(rid, run_dir, (w0, w1), why)
                if shown:
                    self.stalled[pos] = (f, why, what)
                else:
                    wrong.append((pos, f, st, why, what))
        say(not wrong, "%d void runs, each with its fault's reason or a stall its frame log shows, "
            "none otherwise%s" % (len(void), (": " + str(wrong)) if wrong else ""))
        print("     %d runs void for a stall of the game its own frame log shows (position: fault, "
              "reason, evidence): %s" % (len(self.stalled), self.stalled), flush=True)
        # what the BUSY threshold is against: the CPU pressure over every
        # run's route, whatever its outcome (the night's own game included)
        shares = []
        for rid, *_ in runs:
            t0 = self.route_t0(rid)
            share = self.route_share(self.pressure, int(t0)) if t0 else None
            if share is not None:
                shares.append(share)
        if shares:
            shares.sort()
            print("     CPU pressure over the routes (some task waiting for a CPU), %d runs: min %.0f %%, "
                  "median %.0f %%, max %.0f %%; %d at or over the %.0f %% a stall needs" %
                  (len(shares), 100 * shares[0], 100 * shares[len(shares) // 2], 100 * shares[-1],
                   sum(1 for x in shares if x >= BUSY), 100 * BUSY), flush=True)
        else:
            print("     CPU pressure over the routes: unknown (%s)" %
                  ("no PSI" if not self.pressure.available else "no route sampled"), flush=True)
        print("     %d crashes or hangs landed too late in the route to give their reason "
              "(position, fault, s into the route, outcome): %s" % (len(late), late), flush=True)
        print("     %d faults landed after the harness had judged their run (position, fault, "
              "s into the route, verdict): %s" % (len(after), after), flush=True)
        # the pad receiver disappearing: the run goes on, the game says the
        # pad is gone (every button released) and connects again
        bad = []
        pads = sorted(p for p, f in self.done_faults if f == "pad")
        for pos in pads:
            r = [x for x in runs if x[1] == pos][0]
            try:
                with open(os.path.join(r[4], "stderr.log"), errors="replace") as f:
                    err = f.read()
            except OSError:
                err = ""
            gone = err.find("disconnected (")
            back = err.find("pad connected", gone) if gone >= 0 else -1
            if self.pad_shut.get(pos, 0) < 1 or (r[2] != "done" and pos not in self.stalled) or \
                    gone < 0 or back < 0 or \
                    "every button released" not in err:
                bad.append((pos, self.pad_shut.get(pos, 0), r[2], gone, back))
        say(pads and not bad, "pad receiver disappeared in %d runs: each done (or void for a stall "
            "shown above), the game released "
            "every button and connected again%s" % (len(pads), (": " + str(bad)) if bad else ""))
        ends = self.receiver.ends
        held = [e for e in ends if e[1] or e[2]]
        say(len(ends) >= len(done) and not held,
            "no button left held: %d pads watched to their end by a receiver beside the game, "
            "%d ended with a button held or an axis off centre%s" %
            (len(ends), len(held), (": " + str(held[:10])) if held else ""))
        made = len(Forge.created)
        pending = self.sql("SELECT count(*) FROM post WHERE state = 'queued'")[0][0]
        leaked = [a for a in Forge.answers if not a[3]]
        say(made == 1 and pending == 0 and not leaked,
            "the summary reached the forge exactly once (%d comments made, %d posts pending, "
            "answers %s)" % (made, pending, ["%s %s %s" % (a[0], a[1], a[2]) for a in Forge.answers]))
        say(self.kills == len(self.kill_at), "harness killed %d times and resumed" % self.kills)
        say(self.second_refusals == self.second_tries and self.second_tries > 0,
            "a second harness refused %d of %d times" % (self.second_refusals, self.second_tries))
        left = [p for p in games_in(self.t)]
        say(not left, "no process left in the night's folders (%s)" % left)
        socks = [f for f in os.listdir(self.t) if f.startswith("rxdeck-pad-")]
        say(not socks, "no pad socket left (%s)" % socks)
        c = sqlite3.connect(self.db)
        integ = c.execute("PRAGMA integrity_check").fetchone()[0]
        c.close()
        say(integ == "ok", "PRAGMA integrity_check: %s" % integ)
        for e in self.events:
            if e.startswith("FAIL: "):
                say(False, e[6:])
            else:
                print("     " + e)
        print("night: %d runs, %d done, %d void, %d faults injected (%s), %d harness kills, "
              "%d second harnesses refused, disk full %s, %.0f s" %
              (len(runs), len(done), len(void), len(self.done_faults),
               ", ".join(sorted({f for _, f in self.done_faults})), self.kills,
               self.second_refusals, "injected" if self.disk_at else "skipped (no tmpfs)",
               self.elapsed), flush=True)
        return ok

    def finish(self, keep):
        self.forge.shutdown()
        if self.tmpfs and not keep:
            subprocess.run(["umount", "-l", self.data])
        if not keep:
            subprocess.run(["rm", "-rf", self.t])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--keep", help="a folder to work in, kept afterwards")
    a = ap.parse_args()
    if a.runs < 12:
        ap.error("--runs must be at least 12")
    n = Night(a)
    try:
        n.night()
        ok = n.check()
    finally:
        n.finish(bool(a.keep))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
