//! gpurtl: TOML configs in, synthesizable Verilog and a bit-exact Rust model out.

pub mod config;
pub mod emit;
pub mod rtl;
