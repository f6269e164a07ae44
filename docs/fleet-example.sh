#!/bin/sh
# docs/fleet-example.sh: regenerates the example in docs/fleet.md, the
# cross-device reports of the fleet's end-to-end test, and the artifact
# sizes beside it.  Runs tests/test-fleet-e2e.py (two fake Decks on
# lavapipe, about three minutes on two cores) from a build folder:
#
#   docs/fleet-example.sh [BUILD]     (default: ./build)
#
# The text between the markers "fleet-example:begin" and
# "fleet-example:end" in docs/fleet.md is replaced; nothing else is.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rxdeck-fleet-doc-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
load=$(cut -d' ' -f1-3 /proc/loadavg)
python3 "$src/tests/test-fleet-e2e.py" "$build/harness/rxdeck" \
	"$build/renderer/forest/rxdeck-forest" "$build/harness/fleet-fake-deck" \
	--write-doc "$tmp/example.md" --keep "$tmp/artifacts" > "$tmp/log" 2>&1 ||
	{ tail -n 40 "$tmp/log"; echo "fleet-example.sh: the test failed; docs/fleet.md left as it was" >&2; exit 1; }
commit=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)
{
	echo "<!-- fleet-example:begin (docs/fleet-example.sh) -->"
	echo
	echo "Made by \`docs/fleet-example.sh\` at commit $commit on $(uname -m) Linux with"
	echo "$(nproc) cores, lavapipe, load average $load when it started:"
	grep -E '^night-4[12]: ' "$tmp/log" | sed 's/^/    /'
	echo
	echo "Artifacts of the slower night, each Deck's export (12 runs of a"
	echo "2.5-second route) and what gzip makes of it:"
	echo
	echo "| artifact | file | bytes | gzip -6 bytes | frames |"
	echo "|---|---|---|---|---|"
	for a in "$tmp"/artifacts/night-42/rxdeck-steamdeck-*; do
		f=$a/night-42.json
		frames=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sum(len(r.get('frames',[])) for c in d['campaigns'] for r in c['runs']))" "$f")
		echo "| $(basename "$a") | night-42.json | $(wc -c < "$f") | $(gzip -6 -c "$f" | wc -c) | $frames |"
	done
	echo
	sed 's/^<!--.*-->$//' "$tmp/example.md"
	echo "<!-- fleet-example:end -->"
} > "$tmp/block.md"
python3 - "$src/docs/fleet.md" "$tmp/block.md" <<'PY'
import re, sys
doc, block = sys.argv[1], open(sys.argv[2], encoding="utf-8").read()
text = open(doc, encoding="utf-8").read()
new, n = re.subn(r"<!-- fleet-example:begin.*?<!-- fleet-example:end -->\n?", lambda m: block, text,
                 flags=re.S)
if n != 1:
    sys.exit("fleet-example.sh: docs/fleet.md has no fleet-example markers")
open(doc, "w", encoding="utf-8").write(new)
PY
echo "docs/fleet.md: example regenerated"
