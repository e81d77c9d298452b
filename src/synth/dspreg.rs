//! ECP5 multiplier registers: the flops that feed a MULT18X18D's A and B inputs, and the
//! flops its product goes straight into, become the block's own input and output
//! registers (`REG_INPUTA_CLK`, `REG_INPUTB_CLK`, `REG_OUTPUT_CLK`).
//!
//! Why: Yosys 0.70 infers MULT18X18D with every register off, so a registered product is
//! a fabric flop, a net into the block, the multiplier's whole array delay and a net back
//! out (8.3 ns for the IPU's pixel map at speed 6). nextpnr times the block's registers
//! (its timing data has separate setup and clock-to-out figures for them), and vendor
//! tools pack such flops into the block; the generated Verilog stays vendor-neutral, so
//! `gpurtl synth --target ecp5` does it on Yosys's netlist before nextpnr, as
//! `outreg` does for the block RAMs.
//!
//! The move keeps the function exactly. An input port is registered only when both are
//! (the block's timing has no mode with one registered input) and when every bit of
//! both is a constant 0 or the output of a flop, all on one clock with no set or reset
//! (LSR tied low) and, per port, one clock enable: the block's input register takes what
//! those flops take (their D, under their enable), so it holds what they hold. A flop
//! left with no other reader is removed. The output register is used when every used
//! product bit drives exactly one such flop, on the inputs' clock (when those are
//! registered): the flops are removed and the block drives their outputs. Clock enables
//! go to CE0 (A), CE1 (B) and CE2 (the output); RST0 is tied low.

use std::collections::{BTreeMap, BTreeSet};

use super::netlist::{bits, drivers, sinks, top_module};

use serde_json::{Map, Value, json};

/// Named in the ECP5 Yosys script, so that a change here re-runs cached runs.
pub const REVISION: u32 = 1;

/// What [`absorb`] moved.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Absorbed {
    /// Multipliers whose A and B inputs are registered in the block.
    pub inputs: u64,
    /// Multipliers whose output register is on.
    pub outputs: u64,
    /// Fabric flops removed.
    pub flops: u64,
}

/// A fabric flop as the move needs it: its clock net, its enable (a net, or `["1"]`),
/// and its D and Q nets.
struct Flop {
    clock: Value,
    enable: Value,
    d: Value,
    q: u64,
}

/// The netlist `json` (Yosys's `write_json` of a flattened `synth_ecp5`) with the
/// registers of the multipliers in module `top` moved into them, and what moved.
pub fn absorb(json: &str, top: &str) -> Result<(String, Absorbed), String> {
    let mut netlist: Value =
        serde_json::from_str(json).map_err(|e| format!("netlist is not JSON: {e}"))?;
    let (external, cells) = top_module(&mut netlist, top)?;
    let mut done = Absorbed::default();
    let mut mults: Vec<String> = cells
        .iter()
        .filter(|(_, c)| c["type"] == "MULT18X18D")
        .map(|(n, _)| n.clone())
        .collect();
    mults.sort();
    // Flops whose readers may all have moved into a block: removed at the end when so.
    let mut maybe_unread: BTreeSet<String> = BTreeSet::new();
    for m in mults {
        if !untouched(&cells[&m]) {
            continue;
        }
        let sinks = sinks(cells);
        let drivers = drivers(cells);
        let inputs = ["A", "B"].map(|p| input_flops(cells, &cells[&m], p, &drivers));
        let mut clock: Option<Value> = None;
        if let [Some(a), Some(b)] = &inputs
            && a.len() + b.len() > 0
            && same_clock(a.iter().chain(b.iter()).map(|(_, f)| &f.clock))
        {
            let cell = &mut cells[&m];
            for (port, flops, ce) in [("A", a, "CE0"), ("B", b, "CE1")] {
                let enable = flops
                    .first()
                    .map_or(json!(["1"]), |(_, f)| f.enable.clone());
                for (pin, f) in flops {
                    set(cell, pin, f.d.clone());
                }
                set(cell, ce, enable);
                cell["parameters"][format!("REG_INPUT{port}_CLK")] = json!("CLK0");
                cell["parameters"][format!("REG_INPUT{port}_CE")] = json!(ce);
                cell["parameters"][format!("REG_INPUT{port}_RST")] = json!("RST0");
                maybe_unread.extend(flops.iter().map(|(_, f)| flop_name(&drivers, f.q)));
            }
            clock = a
                .iter()
                .chain(b.iter())
                .map(|(_, f)| f.clock.clone())
                .next();
            done.inputs += 1;
        }
        if let Some(out) = output_flops(cells, &cells[&m], &sinks, &external)
            && clock
                .as_ref()
                .is_none_or(|c| out.iter().all(|(_, _, f)| &f.clock == c))
        {
            let cell = &mut cells[&m];
            let enable = out[0].2.enable.clone();
            clock.get_or_insert_with(|| out[0].2.clock.clone());
            for (pin, _, f) in &out {
                set(cell, pin, json!([f.q]));
            }
            set(cell, "CE2", enable);
            cell["parameters"]["REG_OUTPUT_CLK"] = json!("CLK0");
            cell["parameters"]["REG_OUTPUT_CE"] = json!("CE2");
            cell["parameters"]["REG_OUTPUT_RST"] = json!("RST0");
            for (_, name, _) in &out {
                cells.remove(name);
            }
            done.outputs += 1;
            done.flops += out.len() as u64;
        }
        if let Some(clock) = clock {
            let cell = &mut cells[&m];
            set(cell, "CLK0", clock);
            set(cell, "RST0", json!(["0"]));
            for pin in ["CLK0", "CE0", "CE1", "CE2", "RST0"] {
                if cell["connections"].get(pin).is_some() {
                    cell["port_directions"][pin] = json!("input");
                }
            }
        }
    }
    // Input flops that nothing reads any more.
    let sinks = sinks(cells);
    for name in maybe_unread {
        let Some(q) = cells
            .get(&name)
            .and_then(|c| bits(&c["connections"]["Q"]).first().copied())
        else {
            continue;
        };
        if !sinks.contains_key(&q) && !external.contains(&q) {
            cells.remove(&name);
            done.flops += 1;
        }
    }
    let text = serde_json::to_string(&netlist).map_err(|e| format!("netlist: {e}"))?;
    Ok((text, done))
}

/// Connects `pin` of `cell` to `v`.
fn set(cell: &mut Value, pin: &str, v: Value) {
    cell["connections"][pin] = v;
}

/// A multiplier as Yosys infers it: no register on, its clock, enable and reset pins
/// free, its sign and source selects constant.
fn untouched(c: &Value) -> bool {
    let params = &c["parameters"];
    let conn = &c["connections"];
    let off = |k: &str| {
        params
            .get(k)
            .and_then(Value::as_str)
            .is_none_or(|v| v.trim_end() == "NONE")
    };
    ["INPUTA", "INPUTB", "INPUTC", "PIPELINE", "OUTPUT"]
        .iter()
        .all(|r| off(&format!("REG_{r}_CLK")))
        && (0..4).all(|i| {
            ["CLK", "CE", "RST"].iter().all(|p| {
                conn.get(format!("{p}{i}"))
                    .is_none_or(|v| bits(v).is_empty())
            })
        })
        && ["SIGNEDA", "SIGNEDB", "SOURCEA", "SOURCEB"]
            .iter()
            .all(|p| conn.get(*p).is_none_or(|v| bits(v).is_empty()))
}

/// The flop behind each bit of input `port` (pin name and flop), or `None` when a bit is
/// neither a constant 0 nor a plain flop, or the flops' enables differ.
fn input_flops(
    cells: &Map<String, Value>,
    c: &Value,
    port: &str,
    drivers: &BTreeMap<u64, (String, String)>,
) -> Option<Vec<(String, Flop)>> {
    let mut out = Vec::new();
    for i in 0..18 {
        let pin = format!("{port}{i}");
        let Some(v) = c["connections"].get(&pin) else {
            continue; // unconnected: 0
        };
        let Some(&bit) = bits(v).first() else {
            if v == &json!(["0"]) {
                continue;
            }
            return None; // a constant 1 or x would read 0 before the first load
        };
        let (name, out_pin) = drivers.get(&bit)?;
        if out_pin != "Q" {
            return None;
        }
        out.push((pin, plain_flop(&cells[name])?));
    }
    let first = out.first().map(|(_, f)| f.enable.clone());
    out.iter()
        .all(|(_, f)| Some(&f.enable) == first.as_ref())
        .then_some(out)
}

/// The flop each used product bit drives (pin, flop name, flop), or `None` when a used
/// bit has another reader or leaves the module, or the flops' enables or clocks differ.
fn output_flops(
    cells: &Map<String, Value>,
    c: &Value,
    sinks: &BTreeMap<u64, Vec<(String, String)>>,
    external: &BTreeSet<u64>,
) -> Option<Vec<(String, String, Flop)>> {
    let mut out = Vec::new();
    for i in 0..36 {
        let pin = format!("P{i}");
        let Some(&bit) = c["connections"]
            .get(&pin)
            .map(bits)
            .unwrap_or_default()
            .first()
        else {
            continue;
        };
        let readers = sinks.get(&bit).map_or(&[][..], Vec::as_slice);
        if external.contains(&bit) {
            return None;
        }
        match readers {
            [] => continue,
            [(ff, p)] if p == "DI" => {
                let f = plain_flop(&cells[ff])?;
                out.push((pin, ff.clone(), f));
            }
            _ => return None,
        }
    }
    let first = out.first()?;
    let (clock, enable) = (first.2.clock.clone(), first.2.enable.clone());
    out.iter()
        .all(|(_, _, f)| f.clock == clock && f.enable == enable)
        .then_some(out)
}

/// A TRELLIS_FF on the rising edge with no set or reset: its clock, enable, D and Q.
fn plain_flop(f: &Value) -> Option<Flop> {
    let (p, fc) = (&f["parameters"], &f["connections"]);
    if f["type"] != "TRELLIS_FF"
        || p["CLKMUX"] != "CLK"
        || p["LSRMUX"] != "LSR"
        || fc["LSR"] != json!(["0"])
    {
        return None;
    }
    // Yosys's JSON ends a string that reads as bits with a space ("1 ").
    let enable = match p["CEMUX"].as_str().map(str::trim_end) {
        Some("1") => json!(["1"]),
        Some("CE") => fc["CE"].clone(),
        _ => return None,
    };
    Some(Flop {
        clock: fc["CLK"].clone(),
        enable,
        d: fc["DI"].clone(),
        q: *bits(&fc["Q"]).first()?,
    })
}

fn same_clock<'a>(mut clocks: impl Iterator<Item = &'a Value>) -> bool {
    match clocks.next() {
        None => true,
        Some(first) => clocks.all(|c| c == first),
    }
}

fn flop_name(drivers: &BTreeMap<u64, (String, String)>, q: u64) -> String {
    drivers.get(&q).map(|(n, _)| n.clone()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::netlist::cells::flop;

    fn lut(a: u64, z: u64) -> Value {
        json!({
            "type": "LUT4", "parameters": {},
            "port_directions": { "A": "input", "Z": "output" },
            "connections": { "A": [a], "Z": [z] }
        })
    }

    /// A multiplier with A0 from flop `fa` (D 100, Q 10), A1 constant 0, B0 from flop
    /// `fb` (D 101, Q 11), and P0, P1 into flops `p0`, `p1` (Q 30, 31); clock 2.
    fn netlist(edit: impl FnOnce(&mut Value)) -> String {
        let mut cells = json!({
            "mul": {
                "type": "MULT18X18D",
                "parameters": {},
                "port_directions": { "A0": "input", "A1": "input", "B0": "input",
                                     "SIGNEDA": "input", "P0": "output", "P1": "output", "P2": "output" },
                "connections": { "A0": [10], "A1": ["0"], "B0": [11], "SIGNEDA": ["0"],
                                 "P0": [20], "P1": [21], "P2": [22] }
            },
            "fa": flop(2, Some(5), 100, 10),
            "fb": flop(2, None, 101, 11),
            "p0": flop(2, Some(6), 20, 30),
            "p1": flop(2, Some(6), 21, 31),
            "reader": lut(31, 40)
        });
        edit(&mut cells);
        json!({ "modules": { "top": { "ports": {}, "cells": cells } } }).to_string()
    }

    fn run(text: &str) -> (Value, Absorbed) {
        let (out, done) = absorb(text, "top").unwrap();
        (serde_json::from_str(&out).unwrap(), done)
    }

    #[test]
    fn input_and_output_flops_move_into_the_multiplier() {
        let (v, done) = run(&netlist(|_| {}));
        assert_eq!(
            done,
            Absorbed {
                inputs: 1,
                outputs: 1,
                flops: 4
            }
        );
        let cells = &v["modules"]["top"]["cells"];
        for f in ["fa", "fb", "p0", "p1"] {
            assert!(cells.get(f).is_none(), "{f} removed");
        }
        let m = &cells["mul"];
        // The inputs take what the flops took, under their enables.
        assert_eq!(m["connections"]["A0"], json!([100]));
        assert_eq!(m["connections"]["A1"], json!(["0"]));
        assert_eq!(m["connections"]["B0"], json!([101]));
        assert_eq!(m["connections"]["CE0"], json!([5]));
        assert_eq!(m["connections"]["CE1"], json!(["1"]));
        // The product drives what the output flops drove.
        assert_eq!(m["connections"]["P0"], json!([30]));
        assert_eq!(m["connections"]["P1"], json!([31]));
        assert_eq!(m["connections"]["P2"], json!([22]));
        assert_eq!(m["connections"]["CE2"], json!([6]));
        assert_eq!(m["connections"]["CLK0"], json!([2]));
        assert_eq!(m["connections"]["RST0"], json!(["0"]));
        for (k, v) in [
            ("REG_INPUTA_CLK", "CLK0"),
            ("REG_INPUTA_CE", "CE0"),
            ("REG_INPUTB_CLK", "CLK0"),
            ("REG_INPUTB_CE", "CE1"),
            ("REG_OUTPUT_CLK", "CLK0"),
            ("REG_OUTPUT_CE", "CE2"),
        ] {
            assert_eq!(m["parameters"][k], v, "{k}");
        }
        assert_eq!(m["port_directions"]["CE2"], "input");
    }

    #[test]
    fn an_input_flop_read_elsewhere_stays() {
        let (v, done) = run(&netlist(|c| c["other"] = lut(10, 41)));
        assert_eq!(
            done,
            Absorbed {
                inputs: 1,
                outputs: 1,
                flops: 3
            }
        );
        let cells = &v["modules"]["top"]["cells"];
        assert!(cells.get("fa").is_some(), "fa still feeds the LUT");
        assert_eq!(cells["mul"]["connections"]["A0"], json!([100]));
    }

    #[test]
    fn what_would_change_the_function_is_left_alone() {
        // An input bit from logic: no input register (and no output register, whose
        // clock would then be the flops' alone: still moved).
        let (v, done) = run(&netlist(|c| {
            c["g"] = lut(99, 12);
            c["mul"]["connections"]["B0"] = json!([12]);
        }));
        assert_eq!((done.inputs, done.outputs), (0, 1));
        assert_eq!(
            v["modules"]["top"]["cells"]["mul"]["parameters"].get("REG_INPUTA_CLK"),
            None
        );
        // A constant 1 on an input: it would read 0 until the register first loads.
        let (_, done) = run(&netlist(|c| c["mul"]["connections"]["A1"] = json!(["1"])));
        assert_eq!(done.inputs, 0);
        // A product bit read by logic too: no output register.
        let (v, done) = run(&netlist(|c| c["peek"] = lut(21, 42)));
        assert_eq!((done.inputs, done.outputs), (1, 0));
        assert!(v["modules"]["top"]["cells"].get("p0").is_some());
        // Output flops with different enables; an output flop with a reset.
        let (_, done) = run(&netlist(|c| c["p1"] = flop(2, Some(7), 21, 31)));
        assert_eq!(done.outputs, 0);
        let (_, done) = run(&netlist(|c| c["p1"]["connections"]["LSR"] = json!([8])));
        assert_eq!(done.outputs, 0);
        // Input flops on another clock than the output's: the output stays out.
        let (_, done) = run(&netlist(|c| {
            c["p0"] = flop(3, Some(6), 20, 30);
            c["p1"] = flop(3, Some(6), 21, 31);
        }));
        assert_eq!((done.inputs, done.outputs), (1, 0));
        // A multiplier with a register already on is not touched.
        let (_, done) = run(&netlist(|c| {
            c["mul"]["parameters"]["REG_OUTPUT_CLK"] = json!("CLK0")
        }));
        assert_eq!(done, Absorbed::default());
    }
}
