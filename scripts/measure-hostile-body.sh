#!/usr/bin/env bash
# Answer size and server peak RSS for the hostile bodies of docs/SECURITY.md, against the
# release binary with default settings on a fresh SQLite data directory.
# Usage: scripts/measure-hostile-body.sh [path/to/stillreel]   (default target/release/stillreel)
set -euo pipefail
bin=${1:-target/release/stillreel}
dir=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
export STILLREEL_DATA_DIR=$dir STILLREEL_LISTEN=127.0.0.1:$port STILLREEL_WORKERS=0
key=$("$bin" accounts create measure | python3 -c 'import json,sys; print(json.load(sys.stdin)["api_key"])')
"$bin" serve >"$dir/log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.2; done
python3 - "$dir" <<'PY'
import sys
d = sys.argv[1]
body = '{"image_inputs":[1' + ',1' * 520000 + ']}'
open(f"{d}/numbers.json", "w").write(body)
keys = '{"image_inputs":[{"image_url":"https://e.com/a.jpg"}]' + ''.join(f',"k{i}":1' for i in range(90000)) + '}'
open(f"{d}/keys.json", "w").write(keys)
PY
echo "idle RSS: $(grep VmRSS /proc/$pid/status)"
for body in numbers keys; do
  size=$(stat -c %s "$dir/$body.json")
  answer=$(curl -s -o "$dir/$body.out" -w '%{http_code} %{size_download}' \
    -H "Authorization: $key" -H 'Content-Type: application/json' \
    --data-binary @"$dir/$body.json" "http://127.0.0.1:$port/api/v1/create_video")
  echo "$body: body $size bytes -> status/answer bytes: $answer; $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["error"]["message"])' "$dir/$body.out")"
done
echo "peak RSS: $(grep VmHWM /proc/$pid/status)"
