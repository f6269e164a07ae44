#!/usr/bin/env python3
"""test-fleet-workflow: deck/forgejo/rxdeck-night.yml read and checked
against what rxdeck accepts.

  - the triggers: a schedule, and workflow_dispatch with the inputs plan,
    until and builds;
  - the jobs: `night` over a matrix of runner labels (steamdeck-lcd and
    steamdeck-oled) with runs-on the label, its steps in order (checkout,
    deck check, run, db export, tested, upload) and the later ones run even
    when the night failed (if: always());
  - the artifacts: each night uploads rxdeck-LABEL with upload-artifact v3;
    the fleet job needs the nights, runs always, downloads every artifact
    with download-artifact v3 (the same major version) into the folder its
    import loop reads, under the names the nights gave;
  - the forge token: secrets.RXDECK_FORGE_TOKEN in the post step's env,
    never a token file;
  - every `rxdeck ...` line: its command exists (`rxdeck CMD --help` exits
    0) and every --option it uses is in that help; `rxdeck run`'s options
    are parsed for real with --print-plan.
Usage: test-fleet-workflow.py RXDECK"""

import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fleet_workflow  # noqa: E402

SRC = os.environ.get("RXDECK_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKFLOW = os.path.join(SRC, "deck", "forgejo", "rxdeck-night.yml")
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print(f"FAIL: {what}")


def steps_by_kind(job):
    out = []
    for s in job["steps"]:
        if "uses" in s:
            out.append(s["uses"].partition("@")[0])
        else:
            lines = fleet_workflow.rxdeck_lines(s["run"])
            out.append("rxdeck " + " ".join(subcommand(shlex.split(lines[0]))) if lines else "run")
    return out


def subcommand(words):
    """The command words of an rxdeck line: 'run', 'db export', 'deck check'."""
    cmd = [words[1]]
    if words[1] in ("db", "deck") and len(words) > 2:
        cmd.append(words[2])
    return cmd


def main():
    rxdeck = sys.argv[1]
    wf = fleet_workflow.load(WORKFLOW)
    on = wf["on"]
    check("schedule" in on and on["schedule"] and "cron" in on["schedule"][0], "no schedule trigger")
    inputs = (on.get("workflow_dispatch") or {}).get("inputs") or {}
    check(set(inputs) == {"plan", "until", "builds"},
          f"workflow_dispatch inputs are {sorted(inputs)}, not plan, until, builds")

    jobs = wf["jobs"]
    check(set(jobs) == {"night", "fleet"}, f"jobs are {sorted(jobs)}")
    night, fleet = jobs["night"], jobs["fleet"]
    labels = night["strategy"]["matrix"]["label"]
    check("steamdeck-lcd" in labels and "steamdeck-oled" in labels, f"matrix labels {labels}")
    check(night["strategy"].get("fail-fast") is False, "one Deck's failure would cancel the others")
    check(night["runs-on"] == "${{ matrix.label }}", f"night runs-on {night['runs-on']!r}")
    kinds = steps_by_kind(night)
    want = ["actions/checkout", "rxdeck deck check", "rxdeck run", "rxdeck db export",
            "rxdeck tested", "actions/upload-artifact"]
    check(kinds == want, f"night steps are {kinds}, not {want}")
    for s in night["steps"][3:]:
        check(s.get("if") == "always()", f"step {s.get('name') or s.get('uses')} is skipped after a failed night")
    check(night["steps"][1].get("continue-on-error") is True,
          "a failing deck check would stop the night before its findings are uploaded")

    up = night["steps"][-1]
    check(up["uses"] == "actions/upload-artifact@v3", f"upload is {up['uses']}")
    check(up["with"]["name"] == "rxdeck-${{ matrix.label }}", f"artifact name {up['with']['name']}")
    out_dir = night["env"]["OUT"]
    check(up["with"]["path"].rstrip("/") == out_dir, f"upload path {up['with']['path']} is not $OUT ({out_dir})")

    check(fleet.get("needs") == "night", "fleet does not need night")
    check(fleet.get("if") == "always()", "fleet is skipped when one Deck failed")
    check(fleet["runs-on"] == "rxdeck", "fleet does not run on the rxdeck label every Deck carries")
    down = fleet["steps"][0]
    check(down["uses"] == "actions/download-artifact@v3", f"download is {down['uses']}")
    check("name" not in (down.get("with") or {}), "download names one artifact, not every Deck's")
    folder = down["with"]["path"]
    imp = fleet["steps"][1]["run"]
    prefix = up["with"]["name"].split("$")[0]
    check(f"{folder}/{prefix}*/" in imp, f"import loop does not read {folder}/{prefix}*/")
    check("rxdeck db import" in imp, "no db import")
    post = [s for s in fleet["steps"] if "run" in s and "rxdeck post" in s["run"]]
    check(len(post) == 1, "no post step")
    if post:
        check(post[0].get("env", {}).get("RXDECK_FORGE_TOKEN") == "${{ secrets.RXDECK_FORGE_TOKEN }}",
              "the post step's token is not the forge secret")
        check("--across" in post[0]["run"], "the post is not the cross-device summary")
    text = open(WORKFLOW, encoding="utf-8").read()
    check("forge-token" not in text, "the workflow names a token file")

    # every rxdeck line against rxdeck itself
    seen = set()
    for job in jobs.values():
        for s in job["steps"]:
            for line in fleet_workflow.rxdeck_lines(s.get("run", "")):
                words = shlex.split(line)
                cmd = subcommand(words)
                key = " ".join(cmd)
                seen.add(key)
                p = subprocess.run([rxdeck] + cmd + ["--help"], stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
                if p.returncode != 0 and key == "deck check":
                    # the Deck issue's command; not in every rxdeck of this round
                    print(f"note: this rxdeck has no 'deck check' yet: {p.stdout.strip()[:200]}")
                    continue
                check(p.returncode == 0, f"'rxdeck {key} --help' exits {p.returncode}")
                helptext = p.stdout
                if key == "report":
                    helptext += subprocess.run([rxdeck, "report", "--across", "--help"],
                                               stdout=subprocess.PIPE, text=True).stdout
                for w in words[1 + len(cmd):]:
                    opt = w.split("=", 1)[0]
                    if opt.startswith("--"):
                        check(re.search(rf"(^|[\s,\[]){re.escape(opt)}\b", helptext) is not None,
                              f"'rxdeck {key}' does not take {opt} (line: {line})")
    for need in ("deck check", "run", "db export", "tested", "db import", "report", "post"):
        check(need in seen, f"the workflow never runs 'rxdeck {need}'")
    # run's options, as the step sets them (`set -- ...`), parsed for real:
    # --print-plan runs nothing
    run_step = next(s for s in night["steps"] if "run" in s and "rxdeck run" in s["run"])
    sets = [shlex.split(l.strip())[2:] for l in run_step["run"].splitlines()
            if l.strip().startswith("set -- --")]
    check(len(sets) == 1, "the run step does not set its options with one 'set -- ...' line")
    values = {"$UNTIL": "06:30", "$NIGHT": "night-1"}
    args = [values.get(w, w) for w in (sets[0] if sets else [])]
    for w in args:
        if w.startswith("--"):
            check(re.search(rf"(^|[\s,\[]){re.escape(w)}\b", subprocess.run(
                [rxdeck, "run", "--help"], stdout=subprocess.PIPE, text=True).stdout) is not None,
                f"'rxdeck run' does not take {w}")
    p = subprocess.run([rxdeck, "run"] + args + ["--print-plan"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    check(p.returncode == 0 and "[campaign]" in p.stdout,
          f"rxdeck run refuses the workflow's options {args}: {p.stdout[-300:]}")
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("rxdeck-night.yml: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
