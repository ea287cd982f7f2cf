#!/usr/bin/env bash
# The README's setup as a user meets it: `stillreel serve` started the way scripts/run.sh starts
# it, then every kind of video the README and the API offer (scripts/readme_setup.py), each
# result checked with ffprobe.
#
# How it mirrors scripts/run.sh: the server runs with no STILLREEL_* variable but the listen
# address (the default port 8080 may be taken on this machine), in a working folder laid out
# like the repository root, so its data folder is the relative default `./data`, its samples
# `./samples` and its form `./web/dist`. The folder is a fresh temp folder, so the repository's
# own ./data is never touched: `samples/` holds links to the bundled pictures plus one sound
# made here (`theme.mp3`, music by URL without an upload), and `web/dist` links to the built
# form when there is one. The key is the one the first start prints, as the README says.
#
# The binary: target/release/stillreel (what run.sh runs) when it is there and newer than every
# source file; otherwise a debug build (its render crate is optimized, see Cargo.toml), which
# `cargo test` has usually built already: a release build takes minutes on two cores.
#
# What it makes: uploaded music, music by URL, a brand kit's default music, intro + outro +
# speed ramp, every transition, every effect the default engine offers, combines with and
# without music. Prints `readme-setup: ...` and exits non-zero on the first failed check.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
started=$(date +%s)

bin=target/release/stillreel
if [ ! -x "$bin" ] || [ -n "$(find crates Cargo.toml Cargo.lock -newer "$bin" -type f -print -quit)" ]; then
  cargo build -p stillreel-server --bin stillreel --locked
  bin=target/debug/stillreel
fi
echo "readme-setup: using $bin"
bin="$repo/$bin"

work=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

root="$work/stillreel"
mkdir -p "$root/samples" "$root/web"
for f in "$repo"/samples/*; do ln -s "$f" "$root/samples/"; done
ffmpeg -nostdin -hide_banner -loglevel error -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=6" \
  "$root/samples/theme.mp3"
if [ -f "$repo/web/dist/index.html" ]; then ln -s "$repo/web/dist" "$root/web/dist"; fi

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
# `env -i`: nothing of this shell's environment (test.sh exports STILLREEL_* variables for the
# tests) reaches the server.
(cd "$root" && exec env -i PATH="$PATH" HOME="${HOME:-/root}" STILLREEL_LISTEN="127.0.0.1:$port" \
  "$bin" serve >"$work/serve.out" 2>"$work/serve.err") &
server_pid=$!
for _ in $(seq 1 200); do
  curl -sf "$base/readyz" >/dev/null 2>&1 && break
  sleep 0.1
done
if ! curl -sf "$base/readyz" >/dev/null; then
  echo "readme-setup: FAILED: the server did not start"; cat "$work/serve.err"; exit 1
fi
if [ ! -f "$root/data/stillreel.db" ]; then
  echo "readme-setup: FAILED: no ./data/stillreel.db in the server's folder"; exit 1
fi
# The key of the local account the first start creates (a JSON line after its notice).
key=$(python3 -c 'import json,sys
for line in open(sys.argv[1]):
    if line.startswith("{"): print(json.loads(line)["api_key"]); break' "$work/serve.out")
if [ -z "$key" ]; then
  echo "readme-setup: FAILED: the first start printed no key"; cat "$work/serve.out"; exit 1
fi

# The form, from the relative ./web/dist (when the form is built).
if [ -L "$root/web/dist" ] && ! curl -sf "$base/" | grep -qi '<form'; then
  echo "readme-setup: FAILED: the form is not served at / from ./web/dist"; exit 1
fi

if ! python3 scripts/readme_setup.py "$base" "$key" "$root"; then
  echo "readme-setup: server log tail:"; tail -30 "$work/serve.err"
  echo "readme-setup: FAILED"
  exit 1
fi
echo "readme-setup: ok in $(( $(date +%s) - started )) s"
