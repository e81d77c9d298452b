//! Reading what the tools wrote: Yosys `stat -json`, Yosys JSON netlists, nextpnr's
//! `--report` JSON and OpenSTA's text reports. Every figure in a synthesis report comes
//! from here, straight from the tool's own output.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

/// Cell counts of one `stat -json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Stat {
    /// The whole design (the top and everything under it): cell type -> count.
    pub cells_by_type: BTreeMap<String, u64>,
    pub cells: u64,
    pub port_bits: u64,
    /// Per module: its own cells (without submodules).
    pub module_cells: BTreeMap<String, u64>,
    /// `stat -liberty`: the design's area in the liberty's units (um^2 for OSU 0.18).
    pub area: Option<f64>,
}

#[derive(Deserialize)]
struct StatJson {
    modules: BTreeMap<String, StatModule>,
    design: Option<StatModule>,
}

#[derive(Deserialize)]
struct StatModule {
    num_cells: u64,
    #[serde(default)]
    num_port_bits: u64,
    #[serde(default)]
    num_cells_by_type: BTreeMap<String, u64>,
    area: Option<f64>,
}

/// Parses Yosys's `stat -json`; `$scopeinfo` (hierarchy bookkeeping, no hardware) is
/// left out of the counts.
pub fn stat(json: &str, top: &str) -> Result<Stat, String> {
    // Yosys 0.23 prints the hierarchy's `name count` lines, unquoted, into the middle of
    // `stat -json` for a design whose submodules are parameterized several ways (the
    // texture cache's skids). Every line of the JSON itself holds a quote, brace or
    // bracket; those lines hold none.
    let cleaned: String = json
        .lines()
        .filter(|l| l.trim().is_empty() || l.contains(['"', '{', '}', '[', ']']))
        .collect::<Vec<_>>()
        .join("\n");
    let s: StatJson = serde_json::from_str(&cleaned).map_err(|e| format!("stat -json: {e}"))?;
    let name = |k: &str| k.trim_start_matches('\\').to_string();
    let module_cells: BTreeMap<String, u64> = s
        .modules
        .iter()
        .map(|(k, m)| {
            let scope = m.num_cells_by_type.get("$scopeinfo").copied().unwrap_or(0);
            (name(k), m.num_cells - scope)
        })
        .collect();
    let whole = match &s.design {
        Some(d) => d,
        None => s
            .modules
            .iter()
            .find(|(k, _)| name(k) == top)
            .map(|(_, m)| m)
            .ok_or_else(|| format!("stat -json has no module {top}"))?,
    };
    let top_ports = s
        .modules
        .iter()
        .find(|(k, _)| name(k) == top)
        .map_or(whole.num_port_bits, |(_, m)| m.num_port_bits);
    let mut cells_by_type = whole.num_cells_by_type.clone();
    let scope = cells_by_type.remove("$scopeinfo").unwrap_or(0);
    Ok(Stat {
        cells: whole.num_cells - scope,
        cells_by_type,
        port_bits: top_ports,
        module_cells,
        area: whole.area,
    })
}

impl Stat {
    /// The sum of the counts of the cell types `pred` accepts.
    pub fn sum(&self, pred: impl Fn(&str) -> bool) -> u64 {
        self.cells_by_type
            .iter()
            .filter(|(k, _)| pred(k))
            .map(|(_, v)| v)
            .sum()
    }
}

/// What nextpnr's `--report` says about one run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PnrRun {
    pub seed: u32,
    /// None when the design has no clocked path (wires only).
    pub fmax_mhz: Option<f64>,
    pub critical_path: Option<CriticalPath>,
    /// nextpnr's device utilisation: resource -> used.
    pub used: BTreeMap<String, u64>,
    /// The router that made this run when it is not the one asked for (router2 after
    /// router1 ran past its limit), with why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
}

/// The worst register-to-register path, named by the generated signals of its ends.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CriticalPath {
    /// The register the path starts at (the flop cell's name as the tool reports it, with
    /// the mapper's cell-type suffix taken off: `u_stage2.count_q`).
    pub from: String,
    pub to: String,
    /// LUTs (FPGA) or gates (ASIC) between the two flops.
    pub logic_levels: u32,
    pub delay_ns: f64,
    /// The cells as the tool names them, for looking the path up in its own report.
    pub from_cell: String,
    pub to_cell: String,
    /// Where Yosys says the two cells come from in the generated Verilog (`file.v:line.col-line.col`).
    #[serde(default)]
    pub from_src: Option<String>,
    #[serde(default)]
    pub to_src: Option<String>,
}

#[derive(Deserialize)]
struct NextpnrReport {
    #[serde(default)]
    fmax: BTreeMap<String, NextpnrClock>,
    #[serde(default)]
    critical_paths: Vec<NextpnrPath>,
    #[serde(default)]
    utilization: BTreeMap<String, NextpnrUse>,
}

#[derive(Deserialize)]
struct NextpnrClock {
    achieved: f64,
}

#[derive(Deserialize)]
struct NextpnrUse {
    used: u64,
}

#[derive(Deserialize)]
struct NextpnrPath {
    from: String,
    to: String,
    path: Vec<NextpnrSeg>,
}

#[derive(Deserialize)]
struct NextpnrSeg {
    #[serde(rename = "type")]
    kind: String,
    delay: f64,
    from: NextpnrPin,
    to: NextpnrPin,
}

#[derive(Deserialize)]
struct NextpnrPin {
    cell: String,
}

/// Parses nextpnr's `--report` JSON: the clock's achieved frequency (the lowest when
/// there are several) and the worst clock-to-clock path.
pub fn nextpnr(json: &str, seed: u32) -> Result<PnrRun, String> {
    let r: NextpnrReport =
        serde_json::from_str(json).map_err(|e| format!("nextpnr report: {e}"))?;
    let fmax_mhz = r
        .fmax
        .values()
        .map(|c| c.achieved)
        .min_by(|a, b| a.total_cmp(b));
    let worst = r
        .critical_paths
        .iter()
        .filter(|p| p.from.starts_with("posedge") && p.to.starts_with("posedge"))
        .max_by(|a, b| path_delay(a).total_cmp(&path_delay(b)));
    let critical_path = worst.and_then(|p| {
        let first = p.path.first()?;
        let last = p.path.last()?;
        Some(CriticalPath {
            from: flop_name(&first.from.cell),
            to: flop_name(&last.to.cell),
            logic_levels: p.path.iter().filter(|s| s.kind == "logic").count() as u32,
            delay_ns: path_delay(p),
            from_cell: first.from.cell.clone(),
            to_cell: last.to.cell.clone(),
            from_src: None,
            to_src: None,
        })
    });
    Ok(PnrRun {
        seed,
        fmax_mhz,
        critical_path,
        used: r
            .utilization
            .into_iter()
            .filter(|(_, u)| u.used > 0)
            .map(|(k, u)| (k, u.used))
            .collect(),
        fallback: None,
    })
}

/// The seconds router1 has spent routing so far, from the last row of the progress table
/// nextpnr logs (`IterCnt | w/ripup wo/ripup | w/r wo/r | arcs | batch(sec) total(sec)|`),
/// or None before routing starts.
pub fn router1_seconds(log: &str) -> Option<f64> {
    log.lines().rev().find_map(|line| {
        let row = line.strip_prefix("Info:")?;
        let cols: Vec<&str> = row.split('|').collect();
        // Six fields: the iteration count first, the two times fifth, nothing after the
        // last bar.
        if cols.len() != 6 || cols[0].trim().parse::<u64>().is_err() {
            return None;
        }
        cols[4].split_whitespace().last()?.parse().ok()
    })
}

fn path_delay(p: &NextpnrPath) -> f64 {
    p.path.iter().map(|s| s.delay).sum()
}

/// The register behind a mapped flop or memory cell. Yosys's `autoname` names a cell
/// after the wire it drives plus the cell type and port (`u_q.count_q_TRELLIS_FF_Q_3`,
/// `valid_q_DFFSR_Q`), and nextpnr adds its own packing suffix (`mem_q.0.3$DPRAM_COMB3`):
/// both are taken off, leaving the generated signal's name.
pub fn register_name(cell: &str) -> String {
    let name = cell.split('$').next().unwrap_or(cell);
    let parts: Vec<&str> = name.split('_').collect();
    let upper = |p: &str| {
        p.chars().any(|c| c.is_ascii_uppercase())
            && p.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
    };
    let digits = |p: &str| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit());
    // The longest tail of upper-case and number tokens (cell types, ports, uniquifiers,
    // packers' suffixes such as `_DFFLC`) with at least one upper-case token goes.
    let mut keep = parts.len();
    let mut cut = None;
    while keep > 1 && (upper(parts[keep - 1]) || digits(parts[keep - 1])) {
        keep -= 1;
        if upper(parts[keep]) {
            cut = Some(keep);
        }
    }
    match cut {
        Some(k) => parts[..k].join("_"),
        None => name.to_string(),
    }
}

/// Whether `autoname` named a cell after a chain of other cells' pins
/// (`ready_i_LUT4_C_1_Z_TRELLIS_FF_DI_Q_TRELLIS_FF_Q_1`: from the port `ready_i` through a
/// LUT into this flop) rather than after the register it holds (`count_q_TRELLIS_FF_Q_3`):
/// more than one pin name in its tail. Such a name's head is a neighbour, not the flop.
pub fn is_chain_named(cell: &str) -> bool {
    const PINS: [&str; 20] = [
        "A", "B", "C", "D", "Z", "Q", "DI", "SD", "CE", "LSR", "CIN", "COUT", "S0", "S1", "C0",
        "C1", "M0", "M1", "F0", "F1",
    ];
    let name = cell.split('$').next().unwrap_or(cell);
    name.split(['_', '.']).filter(|t| PINS.contains(t)).count() > 1
}

/// A flop's name for the report: the register's (see [`register_name`]), or the whole
/// cell name when it is named after a chain of neighbours, which the report then replaces
/// by the registers its source block assigns.
pub fn flop_name(cell: &str) -> String {
    if is_chain_named(cell) {
        cell.split('$').next().unwrap_or(cell).to_string()
    } else {
        register_name(cell)
    }
}

/// Whether a name still carries a mapped cell type after [`register_name`] (`x_LUT4_Z_1`):
/// the generated Verilog's signal names are lower case.
pub fn is_autonamed(name: &str) -> bool {
    name.split(['_', '.']).any(|p| {
        p.len() > 1
            && p.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
            && p.chars().any(|c| c.is_ascii_uppercase())
    })
}

/// A source location as Yosys writes it (`file.v:562.3-629.6`, or `file.v:12.5-12.30`):
/// the file and the first and last lines.
pub fn src_lines(src: &str) -> Option<(&str, u32, u32)> {
    let (file, span) = src.rsplit_once(':')?;
    let (a, b) = span.split_once('-').unwrap_or((span, span));
    let line = |p: &str| p.split('.').next()?.parse::<u32>().ok();
    Some((file, line(a)?, line(b)?))
}

/// The registers a block of Verilog assigns with `<=` between two lines (1-based,
/// inclusive), in order of first assignment: the candidates for a flop that synthesis
/// re-encoded and so left unnamed.
pub fn registers_assigned(verilog: &str, first: u32, last: u32) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in verilog
        .lines()
        .skip(first.saturating_sub(1) as usize)
        .take((last + 1).saturating_sub(first) as usize)
    {
        // `if (x) a_q <= ...;`, `a_q[3] <= ...;`, `else b_q <= ...;`: the identifier
        // right before the `<=` (and its index, if any).
        // The assignment's `<=` is the first outside parentheses (not `if (a <= b)`).
        let mut depth = 0i32;
        let bytes = line.as_bytes();
        let at = (0..bytes.len()).find(|&i| {
            match bytes[i] {
                b'(' => depth += 1,
                b')' => depth -= 1,
                _ => {}
            }
            depth == 0 && bytes[i] == b'<' && bytes.get(i + 1) == Some(&b'=')
        });
        let Some(at) = at else { continue };
        let lhs = line[..at].trim_end();
        let lhs = match lhs.strip_suffix(']') {
            Some(l) => l.rsplit_once('[').map_or(l, |(n, _)| n).trim_end(),
            None => lhs,
        };
        let name: String = lhs
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && !out.contains(&name)
        {
            out.push(name);
        }
    }
    out
}

/// Module `top` of a Yosys JSON netlist (Yosys may write its name with a leading `\`).
fn netlist_module<'a>(v: &'a serde_json::Value, top: &str) -> Option<&'a serde_json::Value> {
    v["modules"]
        .as_object()
        .and_then(|m| m.iter().find(|(k, _)| k.trim_start_matches('\\') == top))
        .map(|(_, m)| m)
}

/// The source location Yosys recorded for a cell of a JSON netlist (`file.v:12.3-14.9`),
/// looked up by the name a tool reports (nextpnr's packing suffix after `$` ignored).
pub fn cell_sources(netlist_json: &str, top: &str, cells: &[&str]) -> Vec<Option<String>> {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(netlist_json) else {
        return vec![None; cells.len()];
    };
    let module = netlist_module(&v, top);
    cells
        .iter()
        .map(|c| {
            let base = c.split('$').next().unwrap_or(c);
            let cell = module?
                .get("cells")?
                .get(base)
                .or_else(|| module?.get("cells")?.get(*c))?;
            let src = cell.get("attributes")?.get("src")?.as_str()?;
            // Several locations joined by `|`: the first is the register's own.
            Some(src.split('|').next().unwrap_or(src).to_string())
        })
        .collect()
}

/// The register a flop of a JSON netlist holds, by the generated signal its output (`Q`)
/// drives (`u_zoom.n_q[1]`), for each cell name a tool reports (nextpnr's packing suffix
/// after `$` ignored). Yosys keeps the RTL names of a flop's output net beside the name
/// `autoname` gave the cell, which follows a neighbour when the flop was merged or
/// re-encoded: the net's name is then the only one that says which register it is. Only
/// names that end in `_q` (the registers, STYLE.md) count; `None` when there is none (a
/// re-encoded FSM's flops have only synthesis's names).
pub fn flop_registers(netlist_json: &str, top: &str, cells: &[&str]) -> Vec<Option<String>> {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(netlist_json) else {
        return vec![None; cells.len()];
    };
    let Some(module) = netlist_module(&v, top) else {
        return vec![None; cells.len()];
    };
    // Output bit -> the registers' names on it: `name[i]`, or `name` for one bit.
    let mut names: HashMap<u64, Vec<String>> = HashMap::new();
    if let Some(nets) = module.get("netnames").and_then(|n| n.as_object()) {
        for (name, net) in nets {
            let hidden = net.get("hide_name").and_then(|h| h.as_u64()) == Some(1);
            let last = name.rsplit('.').next().unwrap_or(name);
            if hidden || name.starts_with('$') || is_autonamed(name) || !last.ends_with("_q") {
                continue;
            }
            let bits = net.get("bits").and_then(|b| b.as_array());
            let width = bits.map_or(0, |b| b.len());
            for (i, bit) in bits.into_iter().flatten().enumerate() {
                if let Some(b) = bit.as_u64() {
                    let n = if width == 1 {
                        name.clone()
                    } else {
                        format!("{name}[{i}]")
                    };
                    names.entry(b).or_default().push(n);
                }
            }
        }
    }
    cells
        .iter()
        .map(|c| {
            let base = c.split('$').next().unwrap_or(c);
            let all = module.get("cells")?;
            let cell = all.get(base).or_else(|| all.get(*c))?;
            let q = cell
                .get("connections")?
                .get("Q")?
                .as_array()?
                .first()?
                .as_u64()?;
            // Several generated names on one net (a register and a copy passed through a
            // port): the shortest, then the first in order, so that the choice is stable.
            names
                .get(&q)?
                .iter()
                .min_by(|a, b| a.len().cmp(&b.len()).then(a.cmp(b)))
                .cloned()
        })
        .collect()
}

/// The longest chain of combinational cells between sequential ones, ports or constants,
/// in a Yosys JSON netlist of one flat module: cells whose type `comb` accepts are logic
/// levels, every other cell and every port ends a chain.
pub fn logic_depth(
    netlist_json: &str,
    top: &str,
    comb: impl Fn(&str) -> bool,
) -> Result<u32, String> {
    let v: serde_json::Value =
        serde_json::from_str(netlist_json).map_err(|e| format!("netlist json: {e}"))?;
    let module = netlist_module(&v, top).ok_or_else(|| format!("netlist has no module {top}"))?;
    let cells = module["cells"].as_object().ok_or("netlist has no cells")?;
    // bit -> combinational cell index driving it; cell -> its input bits.
    let mut comb_cells: Vec<Vec<u64>> = Vec::new();
    let mut driver: HashMap<u64, usize> = HashMap::new();
    for cell in cells.values() {
        let ty = cell["type"].as_str().unwrap_or("");
        if !comb(ty) {
            continue;
        }
        let idx = comb_cells.len();
        let mut inputs = Vec::new();
        let dirs = cell["port_directions"].as_object();
        if let (Some(conns), Some(dirs)) = (cell["connections"].as_object(), dirs) {
            for (port, bits) in conns {
                let out = dirs.get(port).and_then(|d| d.as_str()) == Some("output");
                for b in bits
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|b| b.as_u64())
                {
                    if out {
                        driver.insert(b, idx);
                    } else {
                        inputs.push(b);
                    }
                }
            }
        }
        comb_cells.push(inputs);
    }
    // Longest path by memoised depth-first search; the netlist of a synthesized design
    // has no combinational loop (`check -assert` ran), so the recursion ends.
    let mut depth: Vec<Option<u32>> = vec![None; comb_cells.len()];
    fn visit(
        i: usize,
        cells: &[Vec<u64>],
        driver: &HashMap<u64, usize>,
        depth: &mut Vec<Option<u32>>,
        on_stack: &mut Vec<bool>,
    ) -> u32 {
        if let Some(d) = depth[i] {
            return d;
        }
        if on_stack[i] {
            return 0;
        }
        on_stack[i] = true;
        let mut best = 0;
        for b in &cells[i] {
            if let Some(&j) = driver.get(b) {
                best = best.max(visit(j, cells, driver, depth, on_stack));
            }
        }
        on_stack[i] = false;
        depth[i] = Some(best + 1);
        best + 1
    }
    let mut on_stack = vec![false; comb_cells.len()];
    let mut worst = 0;
    for i in 0..comb_cells.len() {
        worst = worst.max(visit(i, &comb_cells, &driver, &mut depth, &mut on_stack));
    }
    Ok(worst)
}

/// OpenSTA's answers for one design.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct StaResult {
    /// `report_worst_slack`: over every path, ports included, at the config's clock.
    pub worst_slack_ns: Option<f64>,
    /// The worst register-to-register path's slack at the config's clock.
    pub reg_slack_ns: Option<f64>,
    pub critical_path: Option<CriticalPath>,
}

/// Parses the text of the STA script [`crate::synth`] runs: `report_worst_slack`, then
/// the register-to-register `report_checks` after a line `=== reg2reg`.
pub fn sta(text: &str, flop_cells: &[&str]) -> StaResult {
    let worst_slack_ns = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("worst slack "))
        .and_then(|v| v.trim().parse().ok());
    let r2r = text.split("=== reg2reg").nth(1).unwrap_or("");
    let mut from = None;
    let mut to = None;
    let mut slack = None;
    let mut arrival = None;
    let mut levels = 0u32;
    for l in r2r.lines() {
        let t = l.trim();
        if let Some(s) = t.strip_prefix("Startpoint: ") {
            from = Some(s.split_whitespace().next().unwrap_or(s).to_string());
        } else if let Some(s) = t.strip_prefix("Endpoint: ") {
            to = Some(s.split_whitespace().next().unwrap_or(s).to_string());
        } else if t.ends_with("slack (MET)") || t.ends_with("slack (VIOLATED)") {
            slack = t.split_whitespace().next().and_then(|v| v.parse().ok());
        } else if t.ends_with("data arrival time") && arrival.is_none() {
            arrival = t.split_whitespace().next().and_then(|v| v.parse().ok());
        } else if slack.is_none() && arrival.is_none() {
            // A pin line: `0.109    0.497 ^ u_x/Y (NOR2X1)`; a gate is a level.
            if let (Some(open), true) = (t.rfind('('), t.ends_with(')')) {
                let cell = &t[open + 1..t.len() - 1];
                let pin_line = t.contains(" ^ ") || t.contains(" v ");
                if pin_line && !flop_cells.contains(&cell) {
                    levels += 1;
                }
            }
        }
    }
    let critical_path = match (from, to) {
        (Some(f), Some(t)) => Some(CriticalPath {
            from: register_name(&f),
            to: register_name(&t),
            logic_levels: levels,
            delay_ns: arrival.unwrap_or(0.0),
            from_cell: f,
            to_cell: t,
            from_src: None,
            to_src: None,
        }),
        _ => None,
    };
    StaResult {
        worst_slack_ns,
        reg_slack_ns: slack,
        critical_path,
    }
}

/// The memories of a Yosys `dump t:$mem_v2` (RTLIL text): name, size, width, ports and
/// whether every read port is clocked.
pub fn mem_cells(dump: &str) -> Vec<crate::synth::sram::MemCell> {
    let mut out: Vec<crate::synth::sram::MemCell> = Vec::new();
    for line in dump.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_prefix("cell $mem_v2 ") {
            out.push(crate::synth::sram::MemCell {
                name: name.trim().trim_start_matches('\\').to_string(),
                words: 0,
                bits: 0,
                rd_ports: 0,
                wr_ports: 0,
                sync_read: false,
            });
            continue;
        }
        let (Some(m), Some(rest)) = (out.last_mut(), t.strip_prefix("parameter \\")) else {
            continue;
        };
        let mut it = rest.splitn(2, ' ');
        let (key, value) = (it.next().unwrap_or(""), it.next().unwrap_or("").trim());
        let int = || value.parse::<u64>().ok();
        match key {
            "SIZE" => m.words = int().unwrap_or(0),
            "WIDTH" => m.bits = int().unwrap_or(0),
            "RD_PORTS" => m.rd_ports = int().unwrap_or(0) as u32,
            "WR_PORTS" => m.wr_ports = int().unwrap_or(0) as u32,
            // `4'1111`: one bit per read port; a plain number when Yosys prints it so.
            "RD_CLK_ENABLE" => {
                m.sync_read = match value.split_once('\'') {
                    Some((_, bits)) => !bits.is_empty() && bits.chars().all(|c| c == '1'),
                    None => int().is_some_and(|v| v != 0 && (v + 1).is_power_of_two()),
                }
            }
            _ => {}
        }
    }
    // A memory without read ports has no clocked read either.
    for m in &mut out {
        m.sync_read &= m.rd_ports > 0;
    }
    out
}

/// The area of one cell in a liberty file (`cell (NAND2X1) { area : 24; ...`).
pub fn liberty_cell_area(liberty: &str, cell: &str) -> Option<f64> {
    let start = liberty.find(&format!("cell ({cell})"))?;
    let rest = &liberty[start..];
    let a = rest.find("area")?;
    let after = rest[a + 4..].trim_start().strip_prefix(':')?;
    let value: String = after
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    value.parse().ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn router1_time_is_read_from_the_last_row_of_its_table() {
        use super::router1_seconds;
        // As nextpnr 0.11.1 logs it (the default TMU, seed 2, 2026-12-06).
        let log = "Info: Routing 127262 arcs.\n\
Info:            |   (re-)routed arcs  |   delta    | remaining|       time spent     |\n\
Info:    IterCnt |  w/ripup   wo/ripup |  w/r  wo/r |      arcs| batch(sec) total(sec)|\n\
Info:       1000 |      131        868 |  131   868 |    126445|       2.77       2.77|\n\
Info:     226000 |    51122     169153 |  525   473 |       305|     170.08    1069.07|\n";
        assert_eq!(router1_seconds(log), Some(1069.07));
        let placing = "Info: Running HeAP placer\nInfo:     at iteration #1, type ALL: wirelen solved = 3802\n";
        assert_eq!(router1_seconds(placing), None);
        // A later line that is not a row does not hide the last row.
        let done = format!("{log}Info: Routing complete.\nInfo: Router1 time 1069.07s\n");
        assert_eq!(router1_seconds(&done), Some(1069.07));
    }

    #[test]
    fn a_re_encoded_register_is_named_by_its_block() {
        use super::{registers_assigned, src_lines};
        assert_eq!(
            src_lines("gpu_tex_cache.v:562.3-629.6"),
            Some(("gpu_tex_cache.v", 562, 629))
        );
        assert_eq!(src_lines("a.v:12.5-12.30"), Some(("a.v", 12, 12)));
        assert_eq!(src_lines("no location"), None);
        let v = "module m;\n  always @(posedge clk_i) begin\n    if (go) state_q <= 2'd1;\n                     else begin\n      cnt_q[3] <= 1'b0;\n      state_q <= IDLE;\n    end\n                     if (a <= b) x_q <= y;\n  end\nendmodule\n";
        assert_eq!(registers_assigned(v, 2, 9), ["state_q", "cnt_q", "x_q"]);
        assert_eq!(registers_assigned(v, 5, 5), ["cnt_q"]);
        assert!(registers_assigned(v, 1, 1).is_empty());
        use super::{flop_name, is_autonamed, is_chain_named};
        let chain = "mem_req_ready_i_LUT4_C_1_Z_TRELLIS_FF_DI_Q_TRELLIS_FF_Q_1";
        assert!(is_chain_named(chain));
        assert!(
            is_autonamed(&flop_name(chain)),
            "left for the source lookup"
        );
        assert!(!is_chain_named("u_q.count_q_TRELLIS_FF_Q_3"));
        assert_eq!(flop_name("u_q.count_q_TRELLIS_FF_Q_3"), "u_q.count_q");
        assert_eq!(flop_name("valid_q_DFFSR_Q"), "valid_q");
    }

    use super::*;

    #[test]
    fn yosys_0_23s_hierarchy_lines_inside_stat_json_are_skipped() {
        let text = r#"{
   "modules": {
      "\\top": {
         "num_cells": 3,
         "num_cells_by_type": {
            "$_DFF_P_": 2,
            "$paramod\\skid\\Width=s32'00000000000000000000000001000000": 1
         }
      }
   },
       $paramod\skid\Width=s32'00000000000000000000000001000000      1
   "design": {
      "num_cells": 5,
      "num_cells_by_type": { "$_DFF_P_": 4, "$_AND_": 1 }
   }
}"#;
        let s = stat(text, "top").unwrap();
        assert_eq!(s.cells, 5);
        assert_eq!(s.module_cells.get("top"), Some(&3));
        assert!(stat("{ \"modules\": 1 ", "top").is_err());
    }

    #[test]
    fn a_flop_is_named_by_the_register_on_its_output() {
        use super::flop_registers;
        // As Yosys writes a mapped netlist: the flop's cell named by `autoname` after a
        // neighbour, its output bit 7 carrying the register's name and an alias; bit 9 (a
        // re-encoded flop's) only synthesis's names.
        let json = r#"{"modules": {"top": {
            "cells": {
              "pix_i_LUT4_Z_TRELLIS_FF_DI_Q_TRELLIS_FF_Q": {"type": "TRELLIS_FF",
                "connections": {"DI": [5], "Q": [7]}},
              "st_TRELLIS_FF_Q": {"type": "TRELLIS_FF", "connections": {"DI": [6], "Q": [9]}},
              "u_lut": {"type": "LUT4", "connections": {"A": [7], "Z": [8]}}
            },
            "netnames": {
              "u_zoom.n_q": {"hide_name": 0, "bits": [3, 7, 4]},
              "u_zoom.n_copy_q": {"hide_name": 0, "bits": [3, 7, 4]},
              "u_zoom.n_q_TRELLIS_FF_Q_1": {"hide_name": 0, "bits": [7]},
              "u_zoom.next_n": {"hide_name": 0, "bits": [5]},
              "$abc$12$n7": {"hide_name": 1, "bits": [9]},
              "st_TRELLIS_FF_Q_DI": {"hide_name": 0, "bits": [9]}
            }}}}"#;
        assert_eq!(
            flop_registers(
                json,
                "top",
                &[
                    "pix_i_LUT4_Z_TRELLIS_FF_DI_Q_TRELLIS_FF_Q$DFFLC",
                    "st_TRELLIS_FF_Q",
                    "u_lut",
                    "missing",
                ]
            ),
            vec![Some("u_zoom.n_q[1]".to_string()), None, None, None]
        );
        assert_eq!(flop_registers("not json", "top", &["x"]), vec![None]);
    }

    #[test]
    fn register_names_lose_the_mappers_suffixes() {
        assert_eq!(
            register_name("u_stage2.count_q_DFFSR_Q_1"),
            "u_stage2.count_q"
        );
        assert_eq!(
            register_name("u_stage2.mem_q[1]_DFFPOSX1_Q_10"),
            "u_stage2.mem_q[1]"
        );
        assert_eq!(register_name("valid_q_TRELLIS_FF_Q"), "valid_q");
        assert_eq!(
            register_name("u_stage2.mem_q.0.3$DPRAM_COMB3"),
            "u_stage2.mem_q.0.3"
        );
        assert_eq!(register_name("plain_name"), "plain_name");
        assert_eq!(register_name("u_s.data_q_SB_DFFE_Q_30_DFFLC"), "u_s.data_q");
        assert_eq!(register_name("mem_q_1"), "mem_q_1");
        assert!(is_autonamed("host_i_L6MUX21_SD_Z_L6MUX21_D1_Z_LUT4_Z_1"));
        assert!(!is_autonamed("u_stage2.mem_q[1]"));
        assert!(!is_autonamed("u_stage2.mem_q.0.4"));
    }

    #[test]
    fn nextpnr_report_gives_fmax_levels_and_ends() {
        let json = r#"{"fmax": {"clk_i": {"achieved": 275.5, "constraint": 200}},
          "utilization": {"TRELLIS_FF": {"available": 10, "used": 4}, "DP16KD": {"available": 3, "used": 0}},
          "critical_paths": [{"from": "posedge clk_i", "to": "posedge clk_i", "path": [
            {"type": "clk-to-q", "delay": 0.5, "from": {"cell": "a_q_TRELLIS_FF_Q"}, "to": {"cell": "a_q_TRELLIS_FF_Q"}},
            {"type": "routing", "delay": 0.9, "from": {"cell": "a_q_TRELLIS_FF_Q"}, "to": {"cell": "x_LUT4_Z"}},
            {"type": "logic", "delay": 0.25, "from": {"cell": "x_LUT4_Z"}, "to": {"cell": "x_LUT4_Z"}},
            {"type": "routing", "delay": 0.6, "from": {"cell": "x_LUT4_Z"}, "to": {"cell": "b_q_TRELLIS_FF_Q_2"}},
            {"type": "setup", "delay": 0.1, "from": {"cell": "b_q_TRELLIS_FF_Q_2"}, "to": {"cell": "b_q_TRELLIS_FF_Q_2"}}]}]}"#;
        let r = nextpnr(json, 3).expect("parses");
        assert_eq!(r.fmax_mhz, Some(275.5));
        assert_eq!(r.used.get("TRELLIS_FF"), Some(&4));
        assert!(!r.used.contains_key("DP16KD"));
        let p = r.critical_path.expect("path");
        assert_eq!(
            (p.from.as_str(), p.to.as_str(), p.logic_levels),
            ("a_q", "b_q", 1)
        );
        assert!((p.delay_ns - 2.35).abs() < 1e-9);
    }

    #[test]
    fn sta_text_gives_slacks_and_the_register_path() {
        let text = "worst slack 2.484\ntns 0.000\n=== reg2reg\n\
Startpoint: u_s.count_q_DFFSR_Q_1\n            (rising edge-triggered flip-flop clocked by clk)\n\
Endpoint: u_s.mem_q[1]_DFFPOSX1_Q_10\n\
   0.000    0.000 ^ u_s.count_q_DFFSR_Q_1/CLK (DFFSR)\n\
   0.237    0.237 v u_s.count_q_DFFSR_Q_1/Q (DFFSR)\n\
   0.151    0.387 v n1/Y (BUFX2)\n\
   0.109    0.497 ^ n2/Y (NOR2X1)\n\
   0.000    0.497 ^ u_s.mem_q[1]_DFFPOSX1_Q_10/D (DFFPOSX1)\n\
            0.497   data arrival time\n\
   5.000    5.000 ^ u_s.mem_q[1]_DFFPOSX1_Q_10/CLK (DFFPOSX1)\n\
            4.321   slack (MET)\n";
        let r = sta(text, &["DFFSR", "DFFPOSX1"]);
        assert_eq!(r.worst_slack_ns, Some(2.484));
        assert_eq!(r.reg_slack_ns, Some(4.321));
        let p = r.critical_path.expect("path");
        assert_eq!(p.from, "u_s.count_q");
        assert_eq!(p.to, "u_s.mem_q[1]");
        assert_eq!(p.logic_levels, 2);
        assert_eq!(p.delay_ns, 0.497);
    }

    #[test]
    fn logic_depth_counts_the_longest_combinational_chain() {
        // a -> L1 -> L2 -> FF, and a -> L3 -> FF: depth 2.
        let json = r#"{"modules": {"t": {"cells": {
          "l1": {"type": "LUT2", "port_directions": {"I0": "input", "O": "output"}, "connections": {"I0": [2], "O": [3]}},
          "l2": {"type": "LUT2", "port_directions": {"I0": "input", "O": "output"}, "connections": {"I0": [3], "O": [4]}},
          "l3": {"type": "LUT2", "port_directions": {"I0": "input", "O": "output"}, "connections": {"I0": [2], "O": [5]}},
          "ff": {"type": "FDRE", "port_directions": {"D": "input", "Q": "output"}, "connections": {"D": [4], "Q": [2]}}
        }}}}"#;
        assert_eq!(logic_depth(json, "t", |t| t.starts_with("LUT")), Ok(2));
    }

    #[test]
    fn mem_dump_gives_shapes_ports_and_clocked_reads() {
        let dump = "  cell $mem_v2 \\u_zoom.line_q\n    parameter \\MEMID \"\\\\u_zoom.line_q\"\n\
    parameter \\WIDTH 32\n    parameter \\SIZE 1024\n    parameter \\RD_PORTS 1\n\
    parameter \\RD_CLK_ENABLE 1'1\n    parameter \\WR_PORTS 1\n    connect \\RD_EN 1'1\n  end\n\
  cell $mem_v2 \\mshr\n    parameter \\WIDTH 6\n    parameter \\SIZE 32\n    parameter \\RD_PORTS 2\n\
    parameter \\RD_CLK_ENABLE 2'01\n    parameter \\WR_PORTS 1\n  end\n";
        let m = mem_cells(dump);
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].name, "u_zoom.line_q");
        assert_eq!(
            (
                m[0].words,
                m[0].bits,
                m[0].rd_ports,
                m[0].wr_ports,
                m[0].sync_read
            ),
            (1024, 32, 1, 1, true)
        );
        assert_eq!((m[1].words, m[1].rd_ports, m[1].sync_read), (32, 2, false));
    }

    #[test]
    fn liberty_area_of_a_cell() {
        let lib = "cell (INVX1) {\narea : 16;\n}\ncell (NAND2X1) {\narea : 24;\n";
        assert_eq!(liberty_cell_area(lib, "NAND2X1"), Some(24.0));
        assert_eq!(liberty_cell_area(lib, "NOR2X1"), None);
    }
}
