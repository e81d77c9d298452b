# gpurtl top-level Makefile (GNU make).
#
#   make              build the release binary and generate the default design
#                     into rtl_out/gpurtl_default/ (needs only cargo)
#   make test         install missing tools, then fmt check, clippy, all tests
#                     (cargo-nextest from .venv, then the doctests)
#   make lint         verilator --lint-only -Wall on every module of every preset
#   make synth        gpurtl synth --all through ecp5 and asic (CONFIG= picks a config)
#   make bench        cargo bench
#   make deps         install missing tools (scripts/install-deps.sh)
#   make clean        remove build output, generated RTL and the sim build cache
#
# Variables: CARGO (cargo), VERILATOR (verilator), CONFIG (a TOML file for `make
# generate`; the embedded default when empty).

CARGO     ?= cargo
VERILATOR ?= verilator
CONFIG    ?=

GPURTL := ./target/release/gpurtl
# The project-local Python environment scripts/install-deps.sh makes (GPURTL_VENV moves it).
VENV   := $(abspath $(or $(GPURTL_VENV),.venv))

.DEFAULT_GOAL := all

.PHONY: all generate build test deps lint synth bench clean help

all: generate

# Only cargo is needed here; install-deps runs (and explains) only when it is missing.
build:
	@command -v $(CARGO) >/dev/null 2>&1 || CARGO=$(CARGO) bash scripts/install-deps.sh --cargo-only
	$(CARGO) build --release

generate: build
	$(GPURTL) generate$(if $(CONFIG), --config $(CONFIG))

deps:
	@CARGO=$(CARGO) bash scripts/install-deps.sh

# Tests drive verilator, yosys and iverilog; they fail (not skip) when one is missing.
# cargo-nextest (from the project's .venv, which `deps` fills) runs the tests of every
# binary in one pool, slowest first (.config/nextest.toml): `cargo test` runs the
# binaries one after another and idles a core at the end of each. It runs no doctests,
# so `cargo test --doc` follows.
test: deps
	$(CARGO) fmt --check
	$(CARGO) clippy --all-targets -- -D warnings
	PATH="$(VENV)/bin:$$PATH" $(CARGO) nextest run --release
	$(CARGO) test --release --doc

# Every preset is generated into a temporary directory and every module in it is linted
# as the top module, with its default parameters, against the whole file list.
lint: deps build
	@set -e; \
	tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	for cfg in configs/*.toml; do \
	  out="$$tmp/$$(basename "$$cfg" .toml)"; \
	  $(GPURTL) generate --config "$$cfg" --out "$$out" >/dev/null; \
	  files=$$(grep -v '^//' "$$out/files.f"); \
	  for f in $$files; do \
	    (cd "$$out" && $(VERILATOR) --lint-only -Wall --top-module "$${f%.v}" $$files); \
	  done; \
	  echo "lint ok  $$cfg: $$(echo $$files | sed 's/\.v//g')"; \
	done

# Place-and-route of every unit: minutes per big unit; runs are cached in sim/build/synth.
synth: build
	@bash scripts/install-deps.sh --synth
	$(GPURTL) synth --all --target ecp5$(if $(CONFIG), --config $(CONFIG))
	$(GPURTL) synth --all --target asic$(if $(CONFIG), --config $(CONFIG))

bench:
	$(CARGO) bench

clean:
	-$(CARGO) clean
	rm -rf sim/build
	if [ -d rtl_out ]; then find rtl_out -mindepth 1 -maxdepth 1 ! -name README.md -exec rm -rf {} +; fi

help:
	@sed -n '3,15p' Makefile | sed 's/^# \{0,1\}//'
