#!/usr/bin/env bash
# Renders a tournament report in headless Chromium and checks that it loaded cleanly: the DOM must
# hold the leaderboard and crosstable tables and the SVG charts, and the browser log must show no
# console error, uncaught exception or failed resource load. Leaves a PNG to look at.
#
# Usage: scripts/report_screenshot.sh [REPORT.html] [OUT.png]
#   Without REPORT.html, builds one with `pitboss run` into target/report-screenshot/run.
#   OUT.png defaults to target/report-screenshot/report.png.
# Installs Debian's chromium when it is missing (needs root and apt).
set -euo pipefail
cd "$(dirname "$0")/.."

work=target/report-screenshot
mkdir -p "$work"
html=${1:-}
png=${2:-$work/report.png}

if [[ -z "$html" ]]; then
    bin=target/release/pitboss
    [[ -x $bin ]] || cargo build --release -p pitboss-cli
    rm -rf "$work/run"
    "$bin" run --out "$work/run" >"$work/run.log"
    html=$work/run/report.html
fi
[[ -f "$html" ]] || { echo "no report at $html" >&2; exit 1; }

if ! command -v chromium >/dev/null 2>&1; then
    echo "installing chromium (apt-get)" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

url="file://$(realpath "$html")"
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
       --disable-background-networking --disable-component-update --disable-sync
       --enable-logging=stderr --v=0)

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
chromium "${flags[@]}" --user-data-dir="$profile" --dump-dom "$url" >"$work/dom.html" 2>"$work/dom.log"
chromium "${flags[@]}" --user-data-dir="$profile" --window-size=1200,1600 \
    --screenshot="$(realpath -m "$png")" "$url" >/dev/null 2>"$work/shot.log"

fail=0
check() { # pattern, what
    if ! grep -q "$1" "$work/dom.html"; then
        echo "FAIL: $2 not in the rendered page" >&2
        fail=1
    fi
}
check '<table class="leaderboard"' "the leaderboard table"
check '<table class="crosstable"' "the crosstable"
[[ $(grep -o '<svg' "$work/dom.html" | wc -l) -ge 2 ]] || { echo "FAIL: fewer than 2 SVG charts" >&2; fail=1; }
check '<polyline\|<path\|<polygon' "chart drawing elements"
# Report polish (issue 12): each interval header says what it belongs to, the ranking column is
# marked and explained, no x tick label is long enough to be clipped at the chart's edge, the
# cumulative band is drawn, and a pairing whose interval is exactly [0, 0] is called a mirror.
check 'mbb/hand 95% interval' "the header of the field mean's interval"
check 'rating 95% interval' "the header of the rating's interval"
check '<caption>Ranked by <b>rating</b>' "the caption saying which column ranks"
check 'class="rankby"' "the highlighted ranking column"
check 'fill-opacity\|opacity="0.25"' "the cumulative band"
if grep -Pzo '>\s*[0-9]{6,}\s*</text>' "$work/dom.html" >/dev/null; then
    echo "FAIL: a 6-digit axis label (clipped at the chart's edge)" >&2
    fail=1
fi
if grep -q '<small>\[0\.0, 0\.0\]</small>' "$work/dom.html"; then
    echo "FAIL: a mirror pairing ([0.0, 0.0]) not called one" >&2
    fail=1
fi
if grep -E 'CONSOLE|Uncaught|Failed to load resource|ERR_FILE_NOT_FOUND' "$work/dom.log" "$work/shot.log"; then
    echo "FAIL: console errors while loading the page" >&2
    fail=1
fi
if grep -q 'class="error"' "$work/dom.html"; then
    echo "FAIL: a chart could not be drawn" >&2
    fail=1
fi
[[ -s "$png" ]] || { echo "FAIL: no screenshot written" >&2; fail=1; }
[[ $fail -eq 0 ]] || exit 1
echo "report renders: $html -> $png ($(stat -c %s "$png") bytes)"
