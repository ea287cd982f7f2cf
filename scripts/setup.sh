#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks for stillreel. Two modes:
#
#   setup.sh run    what scripts/run.sh needs to build and serve: ffmpeg, prlimit, libheif's
#                   examples, the two fonts, npm, the wasm32 target, wasm-bindgen-cli and
#                   wasm-pack (run.sh builds the form's wasm modules).
#   setup.sh        (or `setup.sh test`, scripts/test.sh) all of the above, then what only the
#                   tests and benchmarks use: Chromium and its driver, PostgreSQL, wrk, python3-venv,
#                   the real photographs, the aarch64 target, clippy and rustfmt, Garage, moto,
#                   Cog and cargo-fuzz (when a nightly toolchain is present).
#
# Idempotent: every step checks first and skips what is already there.
set -euo pipefail
case "${1:-test}" in
  run) FOR_TESTS=false ;;
  test) FOR_TESTS=true ;;
  *) echo "usage: setup.sh [run|test]" >&2; exit 2 ;;
esac
REPO="$(cd "$(dirname "$0")/.." && pwd)"

WASM_BINDGEN_VERSION=0.2.130
WASM_PACK_VERSION=0.15.1
CARGO_FUZZ_VERSION=0.13.2
need_apt=()

have() { command -v "$1" >/dev/null 2>&1; }
rust_target() { rustup target list --installed | grep -q "^$1\$" || rustup target add "$1"; }

# --- To run (scripts/run.sh) ---------------------------------------------------------------
have ffmpeg        || need_apt+=(ffmpeg)
have npm           || need_apt+=(npm)
# prlimit runs ffmpeg under its memory limit (STILLREEL_FFMPEG_MAX_MEMORY).
have prlimit       || need_apt+=(util-linux)
# HEIC photos: heif-convert decodes them at run time (ffmpeg 5.1 cannot), heif-enc makes the
# tests' HEIC files. Both are libheif's examples; Debian 12's libheif1 has its HEVC decoder
# (libde265) and encoder (x265) built in, so no plugin package is needed.
{ have heif-convert && have heif-enc; } || need_apt+=(libheif-examples)
# The two fonts of drawn text (docs/EFFECTS.md "Fonts"): the body font, DejaVu Sans Bold, and
# the display font of titles, names and word-drop, League Spartan Bold (SIL OFL 1.1). Without
# the display font the renderer draws everything in the body font.
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf ] || need_apt+=(fonts-dejavu-core)
[ -f /usr/share/fonts/opentype/league-spartan/LeagueSpartan-Bold.otf ] || need_apt+=(fonts-league-spartan)

# --- Only for the tests and benchmarks -------------------------------------------------------
if $FOR_TESTS; then
  have chromium      || need_apt+=(chromium)
  have chromedriver  || need_apt+=(chromium-driver)
  have wrk           || need_apt+=(wrk)
  have pg_ctlcluster || need_apt+=(postgresql)
  # moto's S3 server (bench/scale.sh) and Cog (the cog suite) run in virtual environments
  # (below), which need venv and ensurepip.
  python3 -c 'import ensurepip, venv' 2>/dev/null || need_apt+=(python3-venv)
  # Real photographs for the tests (docs/EFFECTS.md "Real photographs"): an interior, a porch,
  # an overcast mountainside, a sunset, among others (CC BY 4.0 or CC BY-SA 4.0; the package's
  # copyright file names each author). Only the tests read them; docs/EFFECTS.md credits the
  # frames of them it shows.
  [ -f /usr/share/backgrounds/aitzgorri_by_Aitzol_Berasategi.jpg ] || need_apt+=(lomiri-wallpapers-16.04)
fi

if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: apt-get install ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need_apt[@]}"
fi

# The form's two wasm modules (web/, built by scripts/run.sh when missing or stale).
rust_target wasm32-unknown-unknown
if ! wasm-bindgen --version 2>/dev/null | grep -q " ${WASM_BINDGEN_VERSION}\$"; then
  # --locked fails on a yanked transitive crate (see shared TOOLCHAIN notes).
  cargo install wasm-bindgen-cli --version "${WASM_BINDGEN_VERSION}"
fi
if ! wasm-pack --version 2>/dev/null | grep -q "${WASM_PACK_VERSION}"; then
  cargo install wasm-pack --version "${WASM_PACK_VERSION}"
fi

if ! $FOR_TESTS; then
  echo "setup: done (what running needs; scripts/test.sh installs the tests' tools)"
  exit 0
fi

# The camera crate is built for ARM too (scripts/test.sh): an rlib, so no cross linker is needed.
rust_target aarch64-unknown-linux-gnu
rustup component list --installed | grep -q '^clippy' || rustup component add clippy
rustup component list --installed | grep -q '^rustfmt' || rustup component add rustfmt

# Garage, the S3-compatible store the S3 tests and the scale-out suite run against (they start
# it themselves: tests/common/garage.rs). Built from crates.io, once: 9 to 16 minutes on a
# fresh 2-core machine (CPU-bound; 15.5 measured while two other builds shared the cores).
# `cargo install` puts it in ~/.cargo/bin, beside the other tools.
GARAGE_VERSION=2.5.0
# `garage --version` prints e.g. `garage cargo:2.5.0 [features: ...]`.
if ! garage --version 2>/dev/null | grep -qE "[^0-9.]${GARAGE_VERSION//./\\.}([^0-9.]|\$)"; then
  echo "setup: cargo install garage ${GARAGE_VERSION} (9 to 16 minutes of compiling)"
  cargo install garage --version "${GARAGE_VERSION}" --locked
fi
# moto's S3 server, from PyPI, in a virtual environment under target/ (ignored by git): only
# bench/scale.sh uses it, for the count of S3 requests its log gives.
MOTO_VENV="$REPO/target/moto/venv"
if ! "$MOTO_VENV/bin/moto_server" --help >/dev/null 2>&1; then
  echo "setup: installing moto[server] into $MOTO_VENV"
  rm -rf "$MOTO_VENV"
  python3 -m venv "$MOTO_VENV"
  "$MOTO_VENV/bin/pip" install --quiet --disable-pip-version-check "moto[server]"
fi
# Replicate's Cog (PyPI `cog`, which brings coglet, its HTTP server) for the cog suite
# (scripts/suites/35-cog.sh): the tests start it without Docker, one server per test model of
# tests/cog/. In a virtual environment under target/, like moto.
COG_VERSION=0.23.1
COG_VENV="$REPO/target/cog/venv"
if ! "$COG_VENV/bin/python" -c "import coglet, cog, sys; sys.exit(cog.__version__ != '$COG_VERSION')" 2>/dev/null; then
  echo "setup: installing cog $COG_VERSION into $COG_VENV"
  rm -rf "$COG_VENV"
  python3 -m venv "$COG_VENV"
  "$COG_VENV/bin/pip" install --quiet --disable-pip-version-check "cog==$COG_VERSION"
fi
# Fuzzing (scripts/suites/40-fuzz.sh) needs nightly, which cannot be downloaded here: install
# cargo-fuzz when a nightly toolchain is present, and say so when it is not.
if rustup toolchain list | grep -q '^nightly'; then
  if ! cargo fuzz --version 2>/dev/null | grep -q "${CARGO_FUZZ_VERSION}"; then
    cargo install cargo-fuzz --version "${CARGO_FUZZ_VERSION}"
  fi
else
  echo "setup: no nightly toolchain: the fuzz suite will skip (stable cargo test still replays its corpus)"
fi
echo "setup: done"
