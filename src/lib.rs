//! gpurtl: TOML configs in, synthesizable Verilog and a bit-exact Rust model out.

pub mod cli;
pub mod config;
pub mod emit;
pub mod formal;
pub mod iface;
pub mod model;
pub mod rng;
pub mod rtl;
pub mod sim;
pub mod sweep;
pub mod synth;
pub mod texio;
pub mod units;
pub mod vectors;
pub mod workload;
