//! ECP5 block-RAM output registers: a register that the RTL puts straight after a block
//! RAM's read port is moved into the DP16KD's own output register (`REGMODE_x = "OUTREG"`).
//!
//! Why: without it the RAM's clock-to-out is 5.6 ns at speed 6 (Project Trellis's data),
//! and the route to the fabric flop makes it 7.8 ns, so a RAM read caps the clock at
//! 128 MHz however the logic is pipelined. With it, the clock-to-out is under 1 ns. Yosys
//! 0.70 does not infer it (only primitive instantiation sets it; YosysHQ/yosys#5814), and
//! the generated Verilog stays vendor-neutral, so `gpurtl synth --target ecp5` does it on
//! Yosys's netlist before nextpnr, as vendor tools absorb registers into their RAMs.
//!
//! The move keeps the function exactly: a port is taken only when every used output bit
//! drives one flop and nothing else, and every such flop has the RAM port's clock, no
//! set or reset (LSR tied low) and one shared clock enable, which becomes the port's
//! output clock enable (OCE). The port's own reset must be tied low and its OCE high, as
//! Yosys leaves them for an inferred RAM. A 36-bit pseudo-dual-port RAM (Yosys's PDPW16KD
//! mapping: written through port A, read through port B's clock, enable and reset, its
//! 36 bits on both ports' outputs) is one read port: both REGMODEs are set, as nextpnr
//! reads them for that mode.

use std::collections::{BTreeMap, BTreeSet};

use super::netlist::{bits, sinks, top_module};

use serde_json::{Value, json};

/// Named in the ECP5 Yosys script, so that a change here re-runs cached runs.
pub const REVISION: u32 = 2;

/// What [`absorb`] moved.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Absorbed {
    /// RAM ports whose output register is now on.
    pub ports: u64,
    /// Fabric flops removed (one per used output bit of those ports).
    pub flops: u64,
}

/// The netlist `json` (Yosys's `write_json` of a flattened `synth_ecp5`) with the output
/// registers of the RAMs in module `top` absorbed, and what moved.
pub fn absorb(json: &str, top: &str) -> Result<(String, Absorbed), String> {
    let mut netlist: Value =
        serde_json::from_str(json).map_err(|e| format!("netlist is not JSON: {e}"))?;
    let (external, cells) = top_module(&mut netlist, top)?;
    let sinks = sinks(cells);
    let mut done = Absorbed::default();
    let mut rams: Vec<String> = cells
        .iter()
        .filter(|(_, c)| c["type"] == "DP16KD")
        .map(|(n, _)| n.clone())
        .collect();
    rams.sort();
    for ram in rams {
        // (read port, its output pins' ports)
        let reads: &[(&str, &[&str])] =
            if width(&cells[&ram]["parameters"]["DATA_WIDTH_A"]) == Some(36) {
                &[("B", &["A", "B"])]
            } else {
                &[("A", &["A"]), ("B", &["B"])]
            };
        for &(port, outs) in reads {
            let Some(plan) = plan(cells, &ram, port, outs, &sinks, &external) else {
                continue;
            };
            let c = &mut cells[&ram];
            for o in outs {
                c["parameters"][format!("REGMODE_{o}")] = json!("OUTREG");
            }
            c["connections"][format!("OCE{port}")] = plan.enable.clone();
            for (pin, q) in &plan.moves {
                c["connections"][pin] = json!([q]);
            }
            for ff in &plan.flops {
                cells.remove(ff);
            }
            done.ports += 1;
            done.flops += plan.flops.len() as u64;
        }
    }
    let text = serde_json::to_string(&netlist).map_err(|e| format!("netlist: {e}"))?;
    Ok((text, done))
}

/// A port's move: its output pins to the flops' outputs, the flops to remove and the
/// output clock enable.
struct Plan {
    moves: Vec<(String, u64)>,
    flops: Vec<String>,
    enable: Value,
}

/// The move of read port `port` (its clock, enable, reset) whose data leaves on the
/// outputs of `outs`, or `None` when it would change the function.
fn plan(
    cells: &serde_json::Map<String, Value>,
    ram: &str,
    port: &str,
    outs: &[&str],
    sinks: &BTreeMap<u64, Vec<(String, String)>>,
    external: &BTreeSet<u64>,
) -> Option<Plan> {
    let c = &cells[ram];
    let (conn, params) = (&c["connections"], &c["parameters"]);
    let tied = |pin: &str, v: &str| conn[pin] == json!([v]);
    let param = |k: String| params[k].as_str().map(str::trim_end).map(String::from);
    if outs
        .iter()
        .any(|o| param(format!("REGMODE_{o}")).as_deref() != Some("NOREG"))
        || !tied(&format!("RST{port}"), "0")
        || !tied(&format!("OCE{port}"), "1")
        // An inverted clock (CLKxMUX "INV") would clock the output register on the
        // other edge from a fabric flop's: left alone.
        || param(format!("CLK{port}MUX")).is_some_and(|m| m != format!("CLK{port}"))
    {
        return None;
    }
    let clock = &conn[format!("CLK{port}")];
    let (mut moves, mut flops, mut enable) = (Vec::new(), Vec::new(), None::<Value>);
    let pins = outs
        .iter()
        .flat_map(|o| (0..18).map(move |i| format!("DO{o}{i}")));
    for pin in pins {
        let Some(&bit) = bits(&conn[&pin]).first() else {
            continue;
        };
        let readers = sinks.get(&bit).map_or(&[][..], Vec::as_slice);
        if readers.is_empty() && !external.contains(&bit) {
            continue; // an unused bit
        }
        let [(ff, pin_in)] = readers else {
            return None;
        };
        let f = &cells[ff];
        let p = &f["parameters"];
        let fc = &f["connections"];
        if f["type"] != "TRELLIS_FF"
            || pin_in != "DI"
            || external.contains(&bit)
            || &fc["CLK"] != clock
            || p["CLKMUX"] != "CLK"
            || p["LSRMUX"] != "LSR"
            || fc["LSR"] != json!(["0"])
        {
            return None;
        }
        // Yosys's JSON ends a string that reads as bits with a space ("1 ").
        let ce = match p["CEMUX"].as_str().map(str::trim_end) {
            Some("1") => json!(["1"]),
            Some("CE") => fc["CE"].clone(),
            _ => return None,
        };
        if enable.get_or_insert_with(|| ce.clone()) != &ce {
            return None;
        }
        let q = *bits(&fc["Q"]).first()?;
        moves.push((pin, q));
        flops.push(ff.clone());
    }
    Some(Plan {
        moves,
        flops,
        enable: enable?,
    })
}

/// A parameter as Yosys writes it: a binary string, or a number.
fn width(v: &Value) -> Option<u64> {
    v.as_u64()
        .or_else(|| v.as_str().and_then(|s| u64::from_str_radix(s, 2).ok()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::netlist::cells::flop;

    /// One RAM port (DOB0, DOB1) and its two flops.
    fn netlist(ff1_clock: u64, ce: [Option<u64>; 2], extra_reader: bool) -> String {
        let mut cells = json!({
            "ram": {
                "type": "DP16KD",
                "parameters": { "DATA_WIDTH_A": "00000000000000000000000000000010",
                                "REGMODE_A": "NOREG", "REGMODE_B": "NOREG" },
                "port_directions": { "CLKB": "input", "RSTB": "input", "OCEB": "input",
                                     "DOB0": "output", "DOB1": "output", "DOA0": "output" },
                "connections": { "CLKB": [2], "RSTB": ["0"], "OCEB": ["1"],
                                 "DOB0": [10], "DOB1": [11], "DOA0": [12] }
            },
            "ff0": flop(2, ce[0], 10, 20),
            "ff1": flop(ff1_clock, ce[1], 11, 21)
        });
        if extra_reader {
            cells["lut"] = json!({
                "type": "LUT4",
                "parameters": {},
                "port_directions": { "A": "input", "Z": "output" },
                "connections": { "A": [11], "Z": [30] }
            });
        }
        json!({ "modules": { "top": { "ports": {}, "cells": cells } } }).to_string()
    }

    #[test]
    fn a_register_after_the_read_port_moves_into_the_ram() {
        let (text, done) = absorb(&netlist(2, [Some(5), Some(5)], false), "top").unwrap();
        assert_eq!(done, Absorbed { ports: 1, flops: 2 });
        let v: Value = serde_json::from_str(&text).unwrap();
        let cells = &v["modules"]["top"]["cells"];
        assert!(cells.get("ff0").is_none() && cells.get("ff1").is_none());
        let ram = &cells["ram"];
        assert_eq!(ram["parameters"]["REGMODE_B"], "OUTREG");
        assert_eq!(ram["parameters"]["REGMODE_A"], "NOREG");
        // The flops' enable is the output register's; the flops' outputs are the RAM's.
        assert_eq!(ram["connections"]["OCEB"], json!([5]));
        assert_eq!(ram["connections"]["DOB0"], json!([20]));
        assert_eq!(ram["connections"]["DOB1"], json!([21]));
        assert_eq!(ram["connections"]["DOA0"], json!([12]));
        // Flops with no enable leave the output register always enabled.
        let (text, done) = absorb(&netlist(2, [None, None], false), "top").unwrap();
        assert_eq!(done, Absorbed { ports: 1, flops: 2 });
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            v["modules"]["top"]["cells"]["ram"]["connections"]["OCEB"],
            json!(["1"])
        );
    }

    #[test]
    fn a_pseudo_dual_port_ram_reads_through_port_b_on_both_outputs() {
        let mut v: Value = serde_json::from_str(&netlist(2, [None, None], false)).unwrap();
        let ram = &mut v["modules"]["top"]["cells"]["ram"];
        ram["parameters"]["DATA_WIDTH_A"] = json!("00000000000000000000000000100100");
        ram["connections"]["OCEA"] = json!(["0"]);
        // The second flop reads DOA0 instead of DOB1.
        ram["connections"]["DOB1"] = json!([13]);
        v["modules"]["top"]["cells"]["ff1"]["connections"]["DI"] = json!([12]);
        let (text, done) = absorb(&v.to_string(), "top").unwrap();
        assert_eq!(done, Absorbed { ports: 1, flops: 2 });
        let v: Value = serde_json::from_str(&text).unwrap();
        let ram = &v["modules"]["top"]["cells"]["ram"];
        assert_eq!(ram["parameters"]["REGMODE_A"], "OUTREG");
        assert_eq!(ram["parameters"]["REGMODE_B"], "OUTREG");
        assert_eq!(ram["connections"]["DOA0"], json!([21]));
        assert_eq!(ram["connections"]["OCEA"], json!(["0"]));
    }

    #[test]
    fn a_port_that_would_change_function_is_left_alone() {
        for (clock, ce, extra, what) in [
            (3, [Some(5), Some(5)], false, "a flop on another clock"),
            (2, [Some(5), Some(6)], false, "flops with different enables"),
            (
                2,
                [None, Some(5)],
                false,
                "one flop enabled always, one not",
            ),
            (
                2,
                [Some(5), Some(5)],
                true,
                "an output bit read by logic too",
            ),
        ] {
            let text = netlist(clock, ce, extra);
            let (out, done) = absorb(&text, "top").unwrap();
            assert_eq!(done, Absorbed::default(), "{what}");
            let v: Value = serde_json::from_str(&out).unwrap();
            assert_eq!(
                v["modules"]["top"]["cells"]["ram"]["parameters"]["REGMODE_B"], "NOREG",
                "{what}"
            );
        }
    }
}
