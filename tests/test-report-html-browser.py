#!/usr/bin/env python3
"""test-report-html-browser: the HTML report of a real campaign in a real
browser.

Runs the default campaign (the embedded default plan: arms A-D, order
ABCDDCBA after a warm-up) of the demo game on lavapipe over a 7 s route
with routes/smoke.route's shot points (the page is what is tested, not the
route's length; the last shot 2.5 s before the end, as a busy machine may
take that long to write it), makes one arm's shot differ (one C run's "pan" shot is
replaced by a white picture, its luma and checksum in the database with
it), writes `rxdeck report --format html` (linked shots) and with
`--embed-shots`, and checks:

- both files are balanced HTML (python3's html.parser: every element
  closed, in order), with no script and nothing fetched from the network;
- Debian's chromium, headless, builds a DOM (--dump-dom) with the table
  naming every arm, one plot per kind, the shot grid with exactly one cell
  per (shot point, arm), and marks on exactly the shots the void check's
  rule picks against the baseline A (the doctored shot among them);
- the answer comes first: the headline section and a chip (one per arm
  but the baseline) come before the first table in the DOM, and the
  chips' border colour (#3b1e6e, used for nothing else) is in a 1280x800
  screenshot of the page, so the headline is above the fold;
- `--embed` gives a page whose charts and plots are PNG pictures, no SVG;
- a 1280x800 screenshot (--screenshot) of the page is not blank.

Skips (77) without chromium, without the demo game, or where the demo game
cannot render on lavapipe.

    test-report-html-browser.py RXDECK FOREST
"""
import html.parser
import os
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile
import zlib

VOID_ELEMENTS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                 "source", "track", "wbr"}
ARMS = "ABCD"
POINTS = ["walk", "pan", "end"]  # routes/smoke.route's shots, in route order
# smoke.route's steps in 7 s: walk, a shot at each of its points, a pan
SHORT_ROUTE = """route smoke-short
duration 7s
window 1s 6.5s
0s      press A 100ms
0.5s    mark start
1s      stick left 0 -1 for 1.5s
1.5s    shot walk
2.5s    mark turn
2.5s    stick right 1 0 for 1s
3s      shot pan
3.5s    stick left 0.5 -1 for 1s
4.5s    shot end
"""


def skip(why):
    print("skip: " + why)
    sys.exit(77)


def fail(why):
    print("FAIL: " + why, file=sys.stderr)
    sys.exit(1)


class Balance(html.parser.HTMLParser):
    """Every element closed, in order; records what the page would fetch."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.errors = []
        self.fetches = []
        self.scripts = 0

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self.scripts += 1
        for k, v in attrs:
            if k in ("src", "href") and v and v.split(":")[0] in ("http", "https", "//"):
                self.fetches.append(v)
        if tag == "link":
            self.fetches.append(dict(attrs).get("href", "<link>"))
        if tag not in VOID_ELEMENTS:
            self.stack.append((tag, self.getpos()))

    def handle_startendtag(self, tag, attrs):
        pass  # <rect .../> in the SVGs

    def handle_endtag(self, tag):
        if tag in VOID_ELEMENTS:
            self.errors.append("end tag of void element <%s> at %s" % (tag, self.getpos()))
            return
        if not self.stack or self.stack[-1][0] != tag:
            want = self.stack[-1] if self.stack else ("nothing", None)
            self.errors.append("</%s> at %s closes <%s> opened at %s" %
                               (tag, self.getpos(), want[0], want[1]))
            return
        self.stack.pop()

    def close(self):
        super().close()
        for tag, pos in self.stack:
            self.errors.append("<%s> opened at %s is never closed" % (tag, pos))


def validate(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if not text.startswith("<!DOCTYPE html>"):
        fail("%s: no <!DOCTYPE html>" % path)
    b = Balance()
    b.feed(text)
    b.close()
    if b.errors:
        fail("%s: not balanced: %s" % (path, "; ".join(b.errors[:5])))
    if b.scripts:
        fail("%s: has a script" % path)
    if b.fetches:
        fail("%s: fetches from the network: %s" % (path, b.fetches[:3]))
    return text


class Dom(html.parser.HTMLParser):
    """What the tests read from chromium's DOM."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.report_tables = 0
        self.in_first_thead = False
        self.in_th = False
        self.arm_headers = []
        self.plots = []
        self.cells = []
        self.cell = None
        self.marked = set()
        self.shots = 0
        self.n_tags = 0
        self.first = {}  # "headline", "chip", "table": the tag number it first came at
        self.chips = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        self.n_tags += 1
        for what, hit in (("headline", tag == "section" and a.get("id") == "headline"),
                          ("chip", tag == "span" and "chip" in cls),
                          ("table", tag == "table")):
            if hit and what not in self.first:
                self.first[what] = self.n_tags
        if tag == "span" and "chip" in cls:
            self.chips.append(cls)
        if tag == "table" and "report" in cls:
            self.report_tables += 1
        if tag == "thead" and self.report_tables == 1 and not self.arm_headers:
            self.in_first_thead = True
        if tag == "th" and self.in_first_thead:
            self.in_th = True
            self.arm_headers.append("")
        if tag == "figure" and "plot" in cls:
            self.plots.append(a.get("data-kind"))
        if tag == "td" and "cell" in cls:
            self.cell = (a.get("data-point"), a.get("data-arm"))
            self.cells.append(self.cell)
        if tag == "figure" and "shot" in cls:
            self.shots += 1
            if a.get("data-differs") == "1":
                if "differs" not in cls:
                    fail("a shot with data-differs=1 lacks the class 'differs'")
                self.marked.add((self.cell[0], self.cell[1], int(a.get("data-run"))))

    def handle_endtag(self, tag):
        if tag == "thead":
            self.in_first_thead = False
        if tag == "th":
            self.in_th = False
        if tag == "td":
            self.cell = None

    def handle_data(self, data):
        if self.in_th:
            self.arm_headers[-1] += data


def chromium(browser, args, url, tmp):
    profile = tempfile.mkdtemp(prefix="chromium-", dir=tmp)
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--allow-file-access-from-files", "--user-data-dir=" + profile] + args + [url]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=180)
    if r.returncode != 0:
        fail("%s exited %d: %s" % (" ".join(cmd), r.returncode, r.stderr.decode()[-2000:]))
    return r.stdout.decode("utf-8")


def png_rows(path):
    """The pixels of an 8-bit RGB or RGBA, non-interlaced PNG, as rows of
    bytes (channels per pixel, width, height)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("%s is not a PNG" % path)
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        fail("%s: an unexpected PNG kind (depth %d, colour type %d)" % (path, depth, ctype))
    ch = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * ch
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - ch] if i >= ch else 0
            b = prev[i]
            c = prev[i - ch] if i >= ch else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return rows, ch, w, h


def write_png(path, w, h, rgb):
    raw = b"".join(b"\x00" + bytes(rgb) * w for _ in range(h))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def expected_marks(db_path, tolerance):
    """The void check's rule against A's usable runs, independently: a shot
    is marked when no A shot at its point has its checksum and its luma is
    more than the tolerance from the median of theirs."""
    con = sqlite3.connect(db_path)
    rows = con.execute(
        "SELECT run.position, arm.letter, run.status, run.is_warmup, shot.name, shot.luma, "
        "shot.checksum FROM shot JOIN run ON run.id = shot.run_id JOIN arm ON arm.id = run.arm_id"
    ).fetchall()
    con.close()
    marks = set()
    for point in POINTS:
        here = [r for r in rows if r[4] == point and not r[3]]
        base = [r for r in here if r[1] == "A" and r[2] == "done"]
        lumas = sorted(r[5] for r in base if r[5] is not None)
        sums = {r[6] for r in base if r[6]}
        if not lumas:
            continue
        m = len(lumas)
        med = lumas[m // 2] if m % 2 else (lumas[m // 2 - 1] + lumas[m // 2]) / 2
        for r in here:
            if r[1] == "A" or r[5] is None or (r[6] and r[6] in sums):
                continue
            if abs(r[5] - med) > tolerance:
                marks.add((point, r[1], r[0]))
    return marks


def main():
    if len(sys.argv) != 3:
        fail("usage: test-report-html-browser.py RXDECK FOREST")
    rxdeck, forest = sys.argv[1], sys.argv[2]
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        skip("no chromium to open the page in (Debian package 'chromium')")
    if not os.access(forest, os.X_OK):
        skip("the demo game was not built (%s)" % forest)
    env = dict(os.environ, RX_VK_DEVICE="llvmpipe")
    env.pop("RX_VK_VALIDATION", None)
    env.pop("XDG_RUNTIME_DIR", None)
    r = subprocess.run([forest, "--frames", "1", "--pad", "none", "--size", "64x64"], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if r.returncode != 0:
        skip("the demo game cannot render on lavapipe here (status %d)" % r.returncode)

    tmp = tempfile.mkdtemp(prefix="rxdeck-html-browser-")
    try:
        env.update(XDG_DATA_HOME=os.path.join(tmp, "data"), TMPDIR=tmp,
                   RXDECK_FOREST=forest)
        out = os.path.join(tmp, "run.out")
        route = os.path.join(tmp, "smoke-short.route")
        with open(route, "w") as f:
            f.write(SHORT_ROUTE)
        with open(out, "w") as f:
            r = subprocess.run([rxdeck, "run", "--route", route],
                               env=env, stdout=f, stderr=subprocess.STDOUT, timeout=1200)
        if r.returncode not in (0, 3):
            fail("rxdeck run exited %d:\n%s" % (r.returncode, open(out).read()[-4000:]))
        db = os.path.join(tmp, "data", "rxdeck", "results.db")

        # one C run's pan shot made to differ: a white picture
        con = sqlite3.connect(db)
        row = con.execute(
            "SELECT run.id, run.position, shot.path FROM shot JOIN run ON run.id = shot.run_id "
            "JOIN arm ON arm.id = run.arm_id WHERE arm.letter = 'C' AND shot.name = 'pan' "
            "AND run.is_warmup = 0 ORDER BY run.position LIMIT 1").fetchone()
        if not row:
            fail("no pan shot of arm C in the campaign")
        run_id, doctored_pos, shot_path = row
        write_png(shot_path, 160, 90, (255, 255, 255))
        con.execute("UPDATE shot SET luma = 255, checksum = 'ffffffffffffffff' "
                    "WHERE run_id = ? AND name = 'pan'", (run_id,))
        con.commit()
        con.close()
        want_marks = expected_marks(db, 16)  # the default plan's shot_luma
        if ("pan", "C", doctored_pos) not in want_marks:
            fail("the doctored shot is not one the rule marks: %s" % want_marks)

        page = os.path.join(tmp, "night.html")
        embedded = os.path.join(tmp, "night-embedded.html")
        for args in (["-o", page], ["--embed-shots", "-o", embedded]):
            r = subprocess.run([rxdeck, "report", "--format", "html"] + args, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if r.returncode != 0:
                fail("rxdeck report --format html %s exited %d: %s" %
                     (" ".join(args), r.returncode, r.stdout.decode()))
        text = validate(page)
        validate(embedded)
        if "file://" not in text or "data:image/png;base64," in text:
            fail("the default page does not link the shots")
        # every stored picture of a measured run, embedded: 3 points x 8
        # runs, less any shot a busy machine made the game miss (a run
        # without its shot at a point still has its cell, "no shot")
        con = sqlite3.connect(db)
        stored = con.execute(
            "SELECT COUNT(*) FROM shot JOIN run ON run.id = shot.run_id "
            "WHERE NOT run.is_warmup AND shot.path IS NOT NULL AND shot.path != ''").fetchone()[0]
        con.close()
        got = open(embedded).read().count("data:image/png;base64,")
        if stored < len(POINTS) * 4:
            fail("only %d shots stored of %d: too few to show every (point, arm)" %
                 (stored, len(POINTS) * 8))
        if got != stored:
            fail("the --embed-shots page embeds %d pictures, not the %d stored shots" % (got, stored))
        if stored != len(POINTS) * 8:
            print("%d of %d shots stored (a busy machine): each embedded" % (stored, len(POINTS) * 8))

        dom = Dom()
        dom.feed(chromium(browser, ["--dump-dom"], "file://" + page, tmp))
        heads = [h.strip() for h in dom.arm_headers]
        for arm in ARMS:
            if not any(h.startswith(arm + ":") or h == arm for h in heads):
                fail("the table has no column for arm %s: %s" % (arm, heads))
        for what in ("headline", "chip", "table"):
            if what not in dom.first:
                fail("the page has no %s" % what)
        if not dom.first["headline"] < dom.first["chip"] < dom.first["table"]:
            fail("the headline and its chips do not come before the first table: %s" % dom.first)
        if len(dom.chips) != len(ARMS) - 1:
            fail("%d chips, not one per arm but the baseline" % len(dom.chips))
        if sorted(dom.plots) != ["distribution", "fps", "frametime"]:
            fail("not one plot per kind: %s" % dom.plots)
        want_cells = sorted((p, a) for p in POINTS for a in ARMS)
        if sorted(dom.cells) != want_cells:
            fail("the shot grid's cells are %s, not one per (point, arm)" % sorted(dom.cells))
        if dom.shots != len(POINTS) * 8:
            fail("%d shots in the grid, not %d (8 runs at %d points)" %
                 (dom.shots, len(POINTS) * 8, len(POINTS)))
        if dom.marked != want_marks:
            fail("marks %s, expected %s" % (sorted(dom.marked), sorted(want_marks)))

        pictures = os.path.join(tmp, "night-pictures.html")
        r = subprocess.run([rxdeck, "report", "--format", "html", "--embed", "-o", pictures],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if r.returncode != 0:
            fail("rxdeck report --format html --embed exited %d: %s" %
                 (r.returncode, r.stdout.decode()))
        ptext = validate(pictures)
        if "<svg" in ptext or ptext.count('<img src="data:image/png;base64,') < 4:
            fail("the --embed page does not carry its charts and plots as PNG")

        shot = os.path.join(tmp, "shot.png")
        chromium(browser, ["--window-size=1280,800", "--screenshot=" + shot,
                           "--hide-scrollbars"], "file://" + embedded, tmp)
        rows, ch, w, h = png_rows(shot)
        if (w, h) != (1280, 800):
            fail("the screenshot is %dx%d, not 1280x800" % (w, h))
        # the chips' border colour within the first 800 px: the headline is
        # above the fold
        chip = b"\x3b\x1e\x6e"
        chip_rows = [y for y in range(h)
                     if any(rows[y][x * ch:x * ch + 3] == chip for x in range(w))]
        if not chip_rows:
            fail("no chip in the first 800 px of the page at 1280x800")
        colours, ink = set(), 0
        for y in range(0, h, 4):
            row = rows[y]
            for x in range(0, w, 4):
                px = row[x * ch:x * ch + 3]
                colours.add(px)
                if sum(px) < 600:
                    ink += 1
        share = ink / ((h // 4) * (w // 4))
        if len(colours) < 16 or share < 0.01:
            fail("the screenshot looks blank: %d colours, %.1f %% not white" %
                 (len(colours), share * 100))
        print("ok: %d cells, %d shots, marks %s, screenshot %d colours, %.1f %% ink, chips at "
              "y %d-%d px" % (len(dom.cells), dom.shots, sorted(dom.marked), len(colours),
                              share * 100, chip_rows[0], chip_rows[-1]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
