#!/bin/sh
# make-report-examples.sh: regenerates the examples docs/reports.md shows
# from a real campaign of the demo game on lavapipe, so none is typed.
#
#   docs/make-report-examples.sh BUILD_DIR [DB]
#
# Without DB it runs the campaign first: the default plan's four arms over
# routes/smoke.route, two rounds, the lavapipe profile, into a throwaway
# database (about 5 minutes on a laptop CPU).  With DB it reads that
# campaign (the newest in it).  It writes docs/examples/ (the terminal
# report at 80 and 132 columns, the wide and long CSV, the JSON's headline
# and one verdict, the top of the HTML page as a 1280x800 screenshot) and
# puts the text ones into docs/reports.md between its
# "<!-- example:NAME begin/end -->" markers.  The screenshot needs chromium.
set -eu
build=${1:?usage: make-report-examples.sh BUILD_DIR [DB]}
root=$(cd "$(dirname "$0")/.." && pwd)
rxdeck=$build/harness/rxdeck
out=$root/docs/examples
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
if [ $# -ge 2 ]; then
	db=$2
else
	db=$tmp/results.db
	XDG_DATA_HOME=$tmp/data RXDECK_FOREST=$build/renderer/forest/rxdeck-forest \
		"$rxdeck" run --route "$root/routes/smoke.route" --profile lavapipe --rounds 2 \
		--name demo --db "$db" >"$tmp/run.out" 2>&1 || [ $? -eq 3 ]
fi

# the terminal report as a terminal of 80 and of 132 columns shows it
COLUMNS=80 NO_COLOR=1 "$rxdeck" report --db "$db" >"$out/report-80.txt"
COLUMNS=132 NO_COLOR=1 "$rxdeck" report --db "$db" >"$out/report-132.txt"
"$rxdeck" report --db "$db" --format csv --wide >"$out/report-wide.csv"
"$rxdeck" report --db "$db" --format csv | head -n 8 >"$out/report-long.csv"
"$rxdeck" report --db "$db" --format json >"$tmp/report.json"
python3 - "$tmp/report.json" "$out/report-headline.json" "$out/report-verdict.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
top = {"schema_version": doc["schema_version"], "headline": doc["headline"]}
json.dump(top, open(sys.argv[2], "w"), indent=2, ensure_ascii=False)
arm = doc["arms"][1]
v = {"arms[1].arm": arm["arm"], "arms[1].verdict.real_fps": arm["verdict"]["real_fps"],
     "arms[1].mann_whitney_p.real_fps": arm["mann_whitney_p"].get("real_fps")}
json.dump(v, open(sys.argv[3], "w"), indent=2, ensure_ascii=False)
PY
"$rxdeck" plot --db "$db" --png -o "$tmp/plots" >/dev/null
cp "$tmp"/plots/*-fps.png "$out/report-fps.png"
"$rxdeck" report --db "$db" --format html -o "$tmp/page.html"
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$browser" ]; then
	"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$tmp/chromium" --window-size=1280,800 \
		--screenshot="$out/report-page-top.png" "file://$tmp/page.html" >/dev/null 2>&1
else
	echo "make-report-examples.sh: no chromium: the screenshot is not remade" >&2
fi

# the text examples into docs/reports.md, between their markers
python3 - "$root/docs/reports.md" "$out" <<'PY'
import re, sys
path, out = sys.argv[1], sys.argv[2]
text = open(path, encoding="utf-8").read()
blocks = {
    "term-80": ("text", "report-80.txt"),
    "term-132": ("text", "report-132.txt"),
    "csv-wide": ("csv", "report-wide.csv"),
    "csv-long": ("csv", "report-long.csv"),
    "json-headline": ("json", "report-headline.json"),
    "json-verdict": ("json", "report-verdict.json"),
}
for name, (lang, f) in blocks.items():
    body = open(out + "/" + f, encoding="utf-8").read().rstrip("\n")
    begin, end = "<!-- example:%s begin -->" % name, "<!-- example:%s end -->" % name
    new = "%s\n```%s\n%s\n```\n%s" % (begin, lang, body, end)
    pat = re.escape(begin) + ".*?" + re.escape(end)
    if not re.search(pat, text, flags=re.S):
        sys.exit("docs/reports.md has no markers for %s" % name)
    text = re.sub(pat, lambda m: new, text, flags=re.S)
open(path, "w", encoding="utf-8").write(text)
PY
echo "examples in $out, docs/reports.md updated"
