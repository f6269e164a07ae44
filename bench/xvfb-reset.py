#!/usr/bin/env python3
"""xvfb-reset.py: how often a fresh Xvfb closes a client that connects
right after the one before it left (the server's reset when its last
client leaves), with and without -noreset, as the tests' Xvfb
(tests/test-xvfb.h) is started.

  bench/xvfb-reset.py [--tries N] [--display N]

Each try opens the display's Unix socket, sends the X11 connection setup
(little-endian, protocol 11.0, no authorisation) and reads the 8-byte
reply head: byte 0 is 1 for a connection set up; a closed socket or any
other byte counts as closed.  Prints one line a mode.  The figures in
docs/testing.md ("An X server that never resets") came from this, with
300 tries, idle and at load average 15-20."""
import argparse
import os
import socket
import struct
import subprocess
import sys
import time


def setup_ok(display):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect("/tmp/.X11-unix/X%d" % display)
        s.sendall(struct.pack("<cxHHHHxx", b"l", 11, 0, 0, 0))
        head = b""
        while len(head) < 8:
            r = s.recv(8 - len(head))
            if not r:
                break
            head += r
        return len(head) == 8 and head[0] == 1
    except OSError:
        return False
    finally:
        s.close()


def run(display, tries, extra):
    x = subprocess.Popen(["Xvfb", ":%d" % display, "-screen", "0", "640x480x24", "-nolisten", "tcp"] + extra,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            if os.path.exists("/tmp/.X11-unix/X%d" % display):
                break
            time.sleep(0.05)
        else:
            sys.exit("xvfb-reset: Xvfb did not start on :%d" % display)
        time.sleep(1)
        ok = sum(setup_ok(display) for _ in range(tries))
    finally:
        x.terminate()
        x.wait()
    print("Xvfb %s: %d of %d connections set up, %d closed" %
          (" ".join(extra) or "(default)", ok, tries, tries - ok), flush=True)


def main():
    a = argparse.ArgumentParser(description="Xvfb's reset against a client connecting at once")
    a.add_argument("--tries", type=int, default=300)
    a.add_argument("--display", type=int, default=870)
    o = a.parse_args()
    run(o.display, o.tries, [])
    run(o.display + 1, o.tries, ["-noreset"])


if __name__ == "__main__":
    main()
