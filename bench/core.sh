#!/usr/bin/env bash
# Validation + normalization of a 20-image create_video body (target: ≤ 10 µs median,
# docs/BENCHMARKS.md), beside parsing the same body into serde_json::Value (the baseline, same run).
# Usage: bench/core.sh   (prints medians from criterion's estimates)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench -p stillreel-core --bench validate -- --noplot >/dev/null
median() {
  python3 -c "import json,sys; e=json.load(open(sys.argv[1])); print(f\"{e['median']['point_estimate']/1000:.2f}\")" \
    "target/criterion/$1/new/estimates.json"
}
ours=$(median validate_create_video_20_images)
base=$(median serde_json_parse_only_20_images)
echo "validate_create_video (20 images): median ${ours} µs"
echo "serde_json::Value parse only:      median ${base} µs"
python3 -c "print(f'ratio ours / parse-only: {float(\"$ours\")/float(\"$base\"):.2f}')"
