#!/usr/bin/env bash
# Installs what gpurtl needs and is missing. Quiet, and runs nothing, when all is present.
#
#   scripts/install-deps.sh              Debian tools + Rust check (what `make test` needs)
#   scripts/install-deps.sh --cargo-only Rust check only (what `make` needs)
#
# Debian packages: verilator yosys iverilog make g++, and libosmesa6-dev (Mesa's off-screen
# OpenGL, the tests' second reference for the texture unit) (apt-get, as root or sudo).
# Rust: cargo (1.88 or newer), with rustfmt and clippy for `make test`. Every crate comes
# from crates.io through cargo; this script never installs Rust itself.
set -euo pipefail

MIN_RUST=1.88
cargo_only=0
case "${1:-}" in
  "") ;;
  --cargo-only) cargo_only=1 ;;
  -h | --help)
    sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  *)
    echo "install-deps: unknown argument '$1' (try --help)" >&2
    exit 2
    ;;
esac

CARGO=${CARGO:-cargo}

# --- Rust -----------------------------------------------------------------------------
if ! command -v "$CARGO" >/dev/null 2>&1; then
  cat >&2 <<EOF
install-deps: '$CARGO' was not found.
  gpurtl needs Rust $MIN_RUST or newer. Install the stable toolchain with rustup (see the
  Rust project's install page), then run: . "\$HOME/.cargo/env"
  (Debian 12's own 'cargo' package is too old for edition 2024.)
EOF
  exit 1
fi

# rustc's version, e.g. "rustc 1.95.0 (...)" -> 1.95
rust_version=$("$CARGO" --version 2>/dev/null | awk '{print $2}' | cut -d. -f1,2)
if [ -n "$rust_version" ] &&
  [ "$(printf '%s\n%s\n' "$MIN_RUST" "$rust_version" | sort -V | head -n1)" != "$MIN_RUST" ]; then
  echo "install-deps: cargo $rust_version is older than $MIN_RUST; run 'rustup update stable'." >&2
  exit 1
fi

if [ "$cargo_only" -eq 1 ]; then
  exit 0
fi

# rustfmt and clippy: `make test` runs `cargo fmt --check` and `cargo clippy`.
missing_components=()
"$CARGO" fmt --version >/dev/null 2>&1 || missing_components+=(rustfmt)
"$CARGO" clippy --version >/dev/null 2>&1 || missing_components+=(clippy)
if [ "${#missing_components[@]}" -gt 0 ]; then
  if command -v rustup >/dev/null 2>&1; then
    echo "install-deps: rustup component add ${missing_components[*]}"
    rustup component add "${missing_components[@]}"
  else
    echo "install-deps: cargo lacks ${missing_components[*]} and rustup was not found;" \
      "install them with your Rust toolchain." >&2
    exit 1
  fi
fi

# --- Debian tools ---------------------------------------------------------------------
# command name -> Debian package
tools=(verilator yosys iverilog make g++)
declare -A package=([verilator]=verilator [yosys]=yosys [iverilog]=iverilog [make]=make [g++]=g++)

# Libraries, by a file each package installs.
declare -A library=([/usr/include/GL/osmesa.h]=libosmesa6-dev)

missing=()
for t in "${tools[@]}"; do
  command -v "$t" >/dev/null 2>&1 || missing+=("${package[$t]}")
done
for f in "${!library[@]}"; do
  [ -e "$f" ] || missing+=("${library[$f]}")
done
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: missing ${missing[*]} and apt-get was not found;" \
    "install them with your system's package manager." >&2
  exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "install-deps: missing ${missing[*]}; run as root or install sudo." >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq </dev/null ||
  echo "install-deps: apt-get update failed; trying the cached package lists" >&2
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null

still=()
for t in "${tools[@]}"; do
  command -v "$t" >/dev/null 2>&1 || still+=("$t")
done
for f in "${!library[@]}"; do
  [ -e "$f" ] || still+=("${library[$f]}")
done
if [ "${#still[@]}" -gt 0 ]; then
  echo "install-deps: still missing after apt-get: ${still[*]}" >&2
  exit 1
fi
