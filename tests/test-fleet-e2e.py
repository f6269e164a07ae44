#!/usr/bin/env python3
"""test-fleet-e2e: a fleet's night played without a forge.

Two fake Decks (an LCD and an OLED system root made by fleet-fake-deck from
the deck tests' trees: other model, SteamOS, Mesa and host name), each a
host runner with its own results database, run the night job of
deck/forgejo/rxdeck-night.yml through fleet_workflow, i.e. the exact
steps of the file: deck check, run, db export, tested and the artifact
upload; then the fleet job on one of them folds the artifacts into one
database with `rxdeck db import`, writes `rxdeck report --across` and
posts it with `rxdeck post --across` to a forge stand-in on 127.0.0.1
(the token from the play's secrets, checked by the stand-in).

The plan: the demo game on lavapipe, a light scene (160x90, 64 draws)
through a wrapper that adds 30 ms of CPU work a frame (forest --job-ms:
fixed work, the same every frame) when the arm's FLEET_ARM equals the
runner's FLEET_SLOW_ARM; arms A and B (B only sets FLEET_ARM=B), a
2.5-second route, rounds of ABBA up to 3, minimum effects of 40 % (real
fps) and 50 % (p99): the test asks whether a gross difference between
devices is found and named, not for power.
  - control: no runner slows an arm: no primary metric is called
    different across devices (real fps "same", or "undecided" when the
    machine's load widens the intervals; printed);
  - one Deck slower: the OLED runner sets FLEET_SLOW_ARM=B: a primary
    metric "differs" and the device named is the OLED's, never the LCD.
The statistical outcome is asserted when the machine's load spread one
arm's runs by at most MAX_SPREAD (sd/mean of real fps); beyond that it is
printed with the spread, not asserted, and the pipeline's checks still are.
Both nights' merged databases are checked for exact merging (an import
again adds nothing; the two Decks' campaigns of one name stay apart).
With --write-doc FILE the control's and the slower night's Markdown
reports are written there (docs/fleet.md's example is made so).

Usage: test-fleet-e2e.py RXDECK FOREST FLEET_FAKE_DECK [--write-doc FILE] [--keep DIR]
(--keep DIR: each night's artifacts are copied into DIR/night-N/.)
Skips (77) where no Vulkan device works."""

import datetime
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fleet_workflow  # noqa: E402

SRC = os.environ.get("RXDECK_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKFLOW = os.path.join(SRC, "deck", "forgejo", "rxdeck-night.yml")
TOKEN = "fleet-e2e-token"
# The largest run-to-run spread (sd/mean of one arm's real fps on one
# Deck) at which the statistical outcome is asserted: with 6 runs an arm
# and minimum effects of 40 %, a spread of 15 % leaves the across-devices
# interval within reach of "same" and far from a false "differs".
MAX_SPREAD = 0.15


class Forge(http.server.BaseHTTPRequestHandler):
    """Forgejo's comment API as rxdeck post uses it: POST
    /api/v1/repos/{owner}/{repo}/issues/{index}/comments (Forgejo's API
    operation issueCreateComment) answers 201 with the new Comment object,
    its "id" first of all; GET of the same path lists the issue's comments
    (none here).  The token must be the play's secret."""
    posts = []

    def log_message(self, *a):
        pass

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"[]")

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        ok = self.headers.get("Authorization") == f"token {TOKEN}"
        Forge.posts.append((self.path, ok, json.loads(body or b"{}")))
        self.send_response(201 if ok else 401)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(json.dumps({"id": len(Forge.posts), "body": "x"}).encode())


def write(path, text, mode=0o644):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, mode)


def make_repo(root, forest):
    """The repository the workflow checks out: a plan, its route and game
    wrapper (absolute paths, as a Deck's plan would name its builds)."""
    repo = os.path.join(root, "repo")
    os.makedirs(os.path.join(repo, "fleet"))
    game = os.path.join(root, "fleet-game.sh")
    write(game, "#!/bin/sh\n"
                "# the demo game, a light scene; 30 ms of CPU work a frame more for\n"
                "# the runner's slowed arm\n"
                "job_ms=1\n"
                "if [ -n \"${FLEET_SLOW_ARM:-}\" ] && [ \"${FLEET_ARM:-}\" = \"$FLEET_SLOW_ARM\" ]; then\n"
                "\tjob_ms=31\n"
                "fi\n"
                f"exec '{forest}' --size 160x90 --draws 64 --alu 0 --cull-alu 0 --jobs 1 \\\n"
                "\t--job-ms \"$job_ms\" \"$@\"\n", 0o755)
    route = os.path.join(root, "fleet.route")
    write(route, "route fleet\nduration 2500ms\nwindow 300ms 2300ms\n0s press A 100ms\n"
                 "1s stick left 0 -1 for 1s\n")
    write(os.path.join(repo, "fleet", "night.ini"),
          "[campaign]\n"
          "name = fleet\n"
          f"route = {route}\n"
          "profile = lavapipe\n"
          "order = ABBA\n"
          "max_rounds = 3\n"
          "warmup = no\n"
          "watchdog = 10s\n"
          "[verdict]\n"
          "real_fps = 40 %\n"
          "p99_ms = 50 %\n"
          "[build game]\n"
          f"command = {game}\n"
          "pad_option = --pad\n"
          "[arm A]\n"
          "label = as it is\n"
          "[arm B]\n"
          "label = marked B\n"
          "env = FLEET_ARM=B\n")
    return repo


def runners(root, fake_deck, rxdeck, slow_oled):
    out = []
    for kind, label in (("lcd", "steamdeck-lcd"), ("oled", "steamdeck-oled")):
        home = os.path.join(root, kind)
        sysroot = os.path.join(home, "sysroot")
        subprocess.run([fake_deck, kind, sysroot], check=True)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("RXDECK_", "XDG_", "FLEET_"))}
        env.update({"HOME": home, "XDG_DATA_HOME": os.path.join(home, "data"),
                    "XDG_CONFIG_HOME": os.path.join(home, "config"),
                    "TMPDIR": home, "RXDECK_DECK_ROOT": sysroot,
                    "PATH": os.path.dirname(os.path.abspath(rxdeck)) + ":" + os.environ["PATH"]})
        env.pop("WAYLAND_DISPLAY", None)
        if slow_oled and kind == "oled":
            env["FLEET_SLOW_ARM"] = "B"
        out.append(fleet_workflow.Runner(f"deck-{kind}", [label, "rxdeck"], env, home))
    return out


def night(root, args, run_number, slow_oled, log):
    rxdeck, forest, fake_deck = args
    base = os.path.join(root, f"night-{run_number}")
    os.makedirs(base)
    repo = make_repo(base, forest)
    Forge.posts = []
    server = http.server.HTTPServer(("127.0.0.1", 0), Forge)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    until = (datetime.datetime.now() + datetime.timedelta(minutes=40)).strftime("%H:%M")
    play = fleet_workflow.Play(
        WORKFLOW, repo, os.path.join(base, "artifacts"),
        github={"run_number": run_number, "server_url": f"http://127.0.0.1:{server.server_port}",
                "repository": "fleet/rxdeck"},
        inputs={"plan": "fleet/night.ini", "until": until, "builds": ""},
        secrets={"RXDECK_FORGE_TOKEN": TOKEN},
        env_overrides={"RXDECK_ISSUE": "7"}, log=log)
    rs = runners(base, fake_deck, rxdeck, slow_oled)
    done = play.run(rs)
    server.shutdown()
    return play, rs, done, base


def fleet_dir(play, runner):
    """The fleet job's workspace on its runner."""
    work = os.path.join(runner.root, "work")
    return os.path.join(work, next(d for d in sorted(os.listdir(work)) if d.startswith("fleet-")))


def main():
    argv = sys.argv[1:]
    doc = None
    if "--write-doc" in argv:
        i = argv.index("--write-doc")
        doc = argv[i + 1]
        del argv[i:i + 2]
    keep = None
    if "--keep" in argv:
        i = argv.index("--keep")
        keep = argv[i + 1]
        del argv[i:i + 2]
    args = [os.path.abspath(a) for a in argv[:3]]
    rxdeck = args[0]
    if not os.access(args[1], os.X_OK):
        print(f"skip: the demo game was not built ({args[1]})")
        return 77
    env = dict(os.environ, RX_VK_DEVICE="llvmpipe")
    env.pop("RX_VK_VALIDATION", None)
    env.pop("XDG_RUNTIME_DIR", None)
    r = subprocess.run([args[1], "--frames", "1", "--pad", "none", "--size", "64x64"], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if r.returncode != 0:
        print(f"skip: the demo game cannot render on lavapipe here (status {r.returncode})")
        return 77
    logs = []
    root = tempfile.mkdtemp(prefix="rxdeck-fleet-")
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)
            print(f"FAIL: {what}")

    reports = {}
    try:
        for run_number, slow in ((41, False), (42, True)):
            play, rs, done, base = night(root, args, run_number, slow, logs.append)
            name = f"night-{run_number}"
            check(done == {"night": True, "fleet": True}, f"{name}: jobs {done}")
            for job, leg, step, outcome in play.steps_run:
                if outcome != "success" and step != "rxdeck deck check":
                    check(False, f"{name}: {job} {leg} step '{step}': {outcome}")
            arts = sorted(os.listdir(play.artifacts))
            check(arts == ["rxdeck-fleet", "rxdeck-steamdeck-lcd", "rxdeck-steamdeck-oled"],
                  f"{name}: artifacts {arts}")
            for a in ("rxdeck-steamdeck-lcd", "rxdeck-steamdeck-oled"):
                files = os.listdir(os.path.join(play.artifacts, a))
                check(f"{name}.json" in files, f"{name}: {a} has no export ({files})")
                check(any(f.endswith(f"-{name}.md") for f in files), f"{name}: {a} has no run file ({files})")
            fdir = fleet_dir(play, rs[0])
            with open(os.path.join(fdir, "fleet", "fleet.json"), encoding="utf-8") as f:
                rep = json.load(f)
            with open(os.path.join(fdir, "fleet", "fleet.md"), encoding="utf-8") as f:
                reports[run_number] = f.read()
            devs = {d["label"]: d for d in rep["devices"]}
            check(set(devs) == {"deck-lcd", "deck-oled"}, f"{name}: devices {sorted(devs)}")
            check(devs.get("deck-lcd", {}).get("device_model") == "Steam Deck LCD" and
                  devs.get("deck-oled", {}).get("device_model") == "Steam Deck OLED",
                  f"{name}: device models {[d.get('device_model') for d in rep['devices']]}")
            check(devs.get("deck-lcd", {}).get("mesa") != devs.get("deck-oled", {}).get("mesa"),
                  f"{name}: both Decks report one Mesa")
            check(all(not d["partial"] for d in rep["devices"]), f"{name}: a night reads partial")
            camps = sorted(d["campaign"] for d in rep["devices"])
            check(camps == sorted([name, f"{name}@deck-oled"]) or camps == sorted([name, f"{name}@deck-lcd"]),
                  f"{name}: campaigns {camps} are not the night and its host-qualified copy")
            # how much the machine's load spreads one arm's runs: the
            # statistics below are asserted only when the design can
            # resolve them (the pipeline above always is)
            spread = 0.0
            for a in ("rxdeck-steamdeck-lcd", "rxdeck-steamdeck-oled"):
                with open(os.path.join(play.artifacts, a, f"{name}.json"), encoding="utf-8") as f:
                    exp = json.load(f)
                for arm in ("A", "B"):
                    v = [r["metrics"].get("real_fps") for r in exp["campaigns"][0]["runs"]
                         if r["arm"] == arm and r["status"] == "done"]
                    v = [x for x in v if x]
                    if len(v) >= 2 and not (slow and arm == "B" and a.endswith("oled")):
                        mean = sum(v) / len(v)
                        sd = (sum((x - mean) ** 2 for x in v) / (len(v) - 1)) ** 0.5
                        spread = max(spread, sd / mean)
            quiet = spread <= MAX_SPREAD
            print(f"{name}: real fps runs of one arm spread {100 * spread:.0f} % (sd/mean) at most; "
                  f"statistics {'asserted' if quiet else 'printed, not asserted (machine too loaded)'}")
            stat_check = check if quiet else (lambda ok, what: ok or print(f"not asserted: {what}"))
            b = next(a for a in rep["arms"] if a["letter"] == "B")
            across = {k: m["across"] for k, m in b["metrics"].items() if m.get("across")}
            check(set(across) == {"real_fps", "p99_ms"}, f"{name}: primaries compared {sorted(across)}")
            for key, a in across.items():
                print(f"{name}: {key} across devices: {a['state']}, effects "
                      f"{[d.get('delta_pct') for d in b['metrics'][key]['devices']]}")
            differing = {k: a["odd_device"] for k, a in across.items() if a["state"] == "differs"}
            if not slow:
                # the same build on both: never called different (a false
                # "differs" needs 40 points and p < alpha); "same" needs the
                # interval within +-40 points, which a loaded machine's
                # noise can deny, so undecided is accepted and printed
                stat_check(not differing, f"{name} (control): {differing} called different")
                stat_check(across.get("real_fps", {}).get("state") in ("same", "undecided"),
                      f"{name} (control): real fps across devices is {across.get('real_fps')}")
            else:
                # 30 ms of CPU a frame more on the OLED's B: found, and the
                # OLED named, on a primary metric
                stat_check(differing and set(differing.values()) == {"deck-oled"},
                      f"{name}: differs on {differing} (want deck-oled named)")
                oled = next(d for d in b["metrics"]["real_fps"]["devices"] if d["device"] == "deck-oled")
                stat_check(oled["delta_pct"] < -40, f"{name}: B on the OLED is {oled['delta_pct']} %")
                stat_check("**differs by device: deck-oled**" in reports[run_number],
                      f"{name}: the Markdown headline does not name deck-oled")
            posted = [p for p in Forge.posts if p[0].endswith("/repos/fleet/rxdeck/issues/7/comments")]
            check(len(posted) == 1 and posted[0][1], f"{name}: posts {[(p[0], p[1]) for p in Forge.posts]}")
            if posted:
                check("Across devices" in posted[0][2].get("body", ""), f"{name}: the post is not the fleet's")
            # merging is exact: the night's exports again add nothing
            db = os.path.join(fdir, "fleet", "results.db")
            for a in ("rxdeck-steamdeck-lcd", "rxdeck-steamdeck-oled"):
                p = subprocess.run([rxdeck, "db", "import", "--db", db,
                                    os.path.join(play.artifacts, a, f"{name}.json")],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                check(p.returncode == 0 and "imported 0 campaigns" in p.stdout and "nothing added" in p.stdout,
                      f"{name}: importing {a} again: {p.stdout}")
    finally:
        if failures:
            print("\n".join(logs)[-20000:])
        if keep:
            for night_dir in sorted(os.listdir(root)):
                arts = os.path.join(root, night_dir, "artifacts")
                if os.path.isdir(arts):
                    shutil.copytree(arts, os.path.join(keep, night_dir), dirs_exist_ok=True)
        shutil.rmtree(root, ignore_errors=True)
    if doc and not failures:
        with open(doc, "w", encoding="utf-8") as f:
            f.write("<!-- made by tests/test-fleet-e2e.py --write-doc (scripts: docs/fleet-example.sh) -->\n\n")
            def deeper(md):
                # the report's headings under the page's section 8
                return re.sub(r"^(#+) ", lambda m: "###" + m.group(1) + " ", md, flags=re.M)
            f.write("#### Control: the same build on both Decks\n\n")
            f.write(deeper(reports[41]))
            f.write("\n#### One Deck slower: arm B does 30 ms more CPU work a frame on the OLED\n\n")
            f.write(deeper(reports[42]))
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("fleet e2e: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
