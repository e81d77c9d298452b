//! Reading Yosys's JSON netlist for the ECP5 register passes (`outreg`, `dspreg`): the
//! top module's cells, the bits that leave it, and which cell pins drive and read a net.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

/// Module `top` of `netlist`: the net bits of its ports (a bit that leaves the module is
/// never moved into a block) and its cells, to edit.
pub fn top_module<'a>(
    netlist: &'a mut Value,
    top: &str,
) -> Result<(BTreeSet<u64>, &'a mut Map<String, Value>), String> {
    let module = netlist
        .get_mut("modules")
        .and_then(|m| m.get_mut(top))
        .ok_or_else(|| format!("netlist has no module {top}"))?;
    let mut external = BTreeSet::new();
    if let Some(ports) = module.get("ports").and_then(Value::as_object) {
        for p in ports.values() {
            external.extend(bits(&p["bits"]));
        }
    }
    let cells = module
        .get_mut("cells")
        .and_then(Value::as_object_mut)
        .ok_or_else(|| format!("module {top} has no cells"))?;
    Ok((external, cells))
}

/// Net bit -> the (cell, input pin) pairs that read it.
pub fn sinks(cells: &Map<String, Value>) -> BTreeMap<u64, Vec<(String, String)>> {
    pins(cells, false)
}

/// Net bit -> the (cell, output pin) that drives it.
pub fn drivers(cells: &Map<String, Value>) -> BTreeMap<u64, (String, String)> {
    pins(cells, true)
        .into_iter()
        .filter_map(|(b, v)| v.into_iter().next().map(|d| (b, d)))
        .collect()
}

fn pins(cells: &Map<String, Value>, outputs: bool) -> BTreeMap<u64, Vec<(String, String)>> {
    let mut s: BTreeMap<u64, Vec<(String, String)>> = BTreeMap::new();
    for (name, c) in cells {
        let (Some(conns), Some(dirs)) = (
            c["connections"].as_object(),
            c["port_directions"].as_object(),
        ) else {
            continue;
        };
        for (pin, b) in conns {
            let is_out = dirs.get(pin).and_then(Value::as_str) == Some("output");
            if is_out == outputs {
                for bit in bits(b) {
                    s.entry(bit).or_default().push((name.clone(), pin.clone()));
                }
            }
        }
    }
    s
}

/// The net bits of a connection (constants "0", "1", "x" are not nets).
pub fn bits(v: &Value) -> Vec<u64> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default()
}

/// Cells as Yosys writes them, for the passes' tests.
#[cfg(test)]
pub mod cells {
    use serde_json::{Value, json};

    /// A flop as Yosys writes it: with an enable net, or always enabled (`CEMUX` "1",
    /// which its JSON writes with a space, and no CE pin).
    pub fn flop(clock: u64, ce: Option<u64>, d: u64, q: u64) -> Value {
        let mut f = json!({
            "type": "TRELLIS_FF",
            "parameters": { "CEMUX": "1 ", "CLKMUX": "CLK", "LSRMUX": "LSR", "GSR": "DISABLED", "REGSET": "RESET" },
            "port_directions": { "CLK": "input", "LSR": "input", "CE": "input", "DI": "input", "Q": "output" },
            "connections": { "CLK": [clock], "LSR": ["0"], "DI": [d], "Q": [q] }
        });
        if let Some(ce) = ce {
            f["parameters"]["CEMUX"] = json!("CE");
            f["connections"]["CE"] = json!([ce]);
        }
        f
    }
}
