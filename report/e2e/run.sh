#!/bin/sh
# Browser check of report.html: renders node-failure into a fresh directory and opens the
# report in headless Chromium (report_e2e_test.go). Run from anywhere inside the repository.
set -eu
cd "$(dirname "$0")/../.."
if ! command -v chromium >/dev/null 2>&1; then
	apt-get update && apt-get install -y chromium
fi
tmp=$(mktemp -d)
dir=$tmp
trap 'rm -rf "$tmp"' EXIT
go build -o "$dir/sim" ./cmd/sim
# sim run writes result.json, events.jsonl, trace.txt, the plots and report.html; sim report
# re-renders them from that directory, as a user would after an upgrade.
"$dir/sim" run node-failure --out "$dir/run" --quiet
"$dir/sim" report "$dir/run"
dir="$dir/run"
go test -count=1 -tags e2e ./report/e2e -args -dir "$dir"
echo "screenshot: out/e2e/report.png"
