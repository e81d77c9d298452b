//! The implementation flow: a unit's Verilog through synthesis, place-and-route and
//! static timing, with a report per unit (`gpurtl synth`).

pub mod tools;
