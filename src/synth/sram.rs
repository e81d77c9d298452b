//! SRAM macros for the asic target: which memories become macros, one documented area
//! and timing model of a 0.18 um two-port SRAM, and the files the flow hands the tools
//! (a `memory_libmap` library, a techmap file, black-box modules for Yosys and one
//! Liberty file per macro shape for OpenSTA).
//!
//! A real ASIC flow keeps block RAMs as macros from a foundry's memory compiler. The
//! OSU 0.18 um kit has none, so the macros here are black boxes whose area and timing
//! come from the model below, not from a compiler: the reports say so.
//!
//! Which memories: Yosys's `memory -nomap` view of the flattened design. A memory with
//! one write port and one synchronous read port (registered address or registered data,
//! the inferable form the generated RTL writes) becomes one `1R1W` macro of its exact
//! words x bits. Everything else stays logic: memories read asynchronously (the
//! handshake FIFOs, LUT-RAM-style tables), constant tables (ROMs: gates), and memories
//! with more than one read or write port (an SRAM compiler offers at most two ports;
//! more is a register file, flops here).
//!
//! The model (all figures in um, um^2 and ns; F = 0.18 um):
//! - Bit cell. A 6T cell is about 600 lambda^2 with lambda = F/2 (D. J. Greaves's
//!   System-on-Chip course, University of Cambridge, rule of thumb for SRAM cells,
//!   after HP's CACTI), so 600 x 0.09^2 = 4.86 um^2. For scale: GlobalFoundries' open
//!   GF180MCU SRAM macros (gf180mcu_fd_ip_sram, 180 nm with 5 V devices) use a
//!   13.5 um^2 cell; the 1.8 V cell is the smaller one. The macros here have a read
//!   port and a write port (1R1W), which takes a second pair of access transistors and
//!   a second word line per cell (an 8T cell); it is taken as 1.5 times the 6T cell.
//! - Array. Column multiplexing m in {1, 2, 4, 8, 16} folds the words into
//!   rows = ceil(words / m) by cols = bits x m, m chosen for the squarest array (ties to
//!   the smaller m), cells as squares.
//! - Periphery. Per port a row strip (predecoder, decoder, word-line drivers) 30 um wide
//!   beside the array, and a column strip (precharge, column mux, sense amplifiers or
//!   write drivers, data latches) 40 um high below it; the corner holds the control and
//!   address latches. Small macros are thus mostly periphery, as OpenRAM's published
//!   area curves (Guthaus et al., "OpenRAM: An Open-Source Memory Compiler", ICCAD 2016)
//!   show for small word counts.
//! - Access (clock to data out): a fixed 0.35 ns (address latch, sense, output driver),
//!   0.06 ns per address bit decoded (log2 rows), and word-line and bit-line RC growing
//!   linearly with the columns and rows (1.5 ps per cell each), plus 0.03 ns per column
//!   mux level. OpenRAM reports access time growing with bit-line and word-line length
//!   in the same way; an 8 Kb SRAM hand-designed in 180 nm reads in 0.85 ns (Sreerama
//!   Reddy G. M. and P. Chandrasekhara Reddy, "Design and Implementation of 8K-bits Low
//!   Power SRAM in 180nm Technology"); the model gives 1.09 ns for 256 x 32, a compiled
//!   macro being slower than a tuned custom one.
//! - Setup 0.30 ns and hold 0.10 ns on every address, data and enable pin against the
//!   clock; output transition 0.20 ns; 0.01 pF per input pin, 0.05 pF on the clock.

use std::fmt::Write;

use serde::{Deserialize, Serialize};

/// Goes into the run directory's hash: a change to the model re-runs the flow.
pub const MODEL_ID: &str = "gpurtl 1R1W SRAM model v1 (0.18 um, 8T 7.29 um^2)";

const F_UM: f64 = 0.18;
/// 600 lambda^2, lambda = F / 2.
const CELL_6T_UM2: f64 = 600.0 * (F_UM / 2.0) * (F_UM / 2.0);
const TWO_PORT_FACTOR: f64 = 1.5;
const PORTS: f64 = 2.0;
const ROW_STRIP_UM: f64 = 30.0;
const COL_STRIP_UM: f64 = 40.0;
const T_FIXED_NS: f64 = 0.35;
const T_DECODE_NS: f64 = 0.06;
const T_CELL_NS: f64 = 0.0015;
const T_MUX_NS: f64 = 0.03;
pub const SETUP_NS: f64 = 0.30;
pub const HOLD_NS: f64 = 0.10;
const OUT_TRANSITION_NS: f64 = 0.20;
const PIN_CAP_PF: f64 = 0.01;
const CLK_CAP_PF: f64 = 0.05;

/// A memory as Yosys's `memory -nomap` leaves it (a `$mem_v2` cell).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemCell {
    pub name: String,
    pub words: u64,
    pub bits: u64,
    pub rd_ports: u32,
    pub wr_ports: u32,
    /// Every read port is clocked (its address or data register merged into the RAM).
    pub sync_read: bool,
}

/// A macro shape: words x bits with one write and one synchronous read port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Shape {
    pub words: u64,
    pub bits: u64,
}

impl Shape {
    /// The macro's cell name, as in the netlist and the Liberty file.
    pub fn cell(self) -> String {
        format!("GPU_SRAM_{}X{}_1R1W", self.words, self.bits)
    }

    /// The Liberty file written for it in the run directory.
    pub fn liberty_file(self) -> String {
        format!("sram_{}x{}_1r1w.lib", self.words, self.bits)
    }

    /// The `ram_style` that sends a memory to this shape in `memory_libmap`.
    fn style(self) -> String {
        format!("gpu_sram_{}x{}", self.words, self.bits)
    }

    fn libmap_cell(self) -> String {
        format!("$__GPU_SRAM_{}X{}_", self.words, self.bits)
    }

    pub fn abits(self) -> u32 {
        (64 - (self.words - 1).leading_zeros()).max(1)
    }

    pub fn model(self) -> Model {
        model(self)
    }
}

/// The model's figures for one shape.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Model {
    pub rows: u64,
    pub cols: u64,
    pub mux: u64,
    pub area_um2: f64,
    pub access_ns: f64,
}

fn model(s: Shape) -> Model {
    let (rows, cols, mux) = [1u64, 2, 4, 8, 16]
        .iter()
        .map(|&m| (s.words.div_ceil(m), s.bits * m, m))
        .min_by_key(|&(r, c, m)| (r.abs_diff(c), m))
        .unwrap_or((s.words, s.bits, 1));
    let side = (CELL_6T_UM2 * TWO_PORT_FACTOR).sqrt();
    let height = rows as f64 * side + PORTS * COL_STRIP_UM;
    let width = cols as f64 * side + PORTS * ROW_STRIP_UM;
    let access_ns = T_FIXED_NS
        + T_DECODE_NS * (rows as f64).log2()
        + T_CELL_NS * (rows + cols) as f64
        + T_MUX_NS * (mux as f64).log2();
    Model {
        rows,
        cols,
        mux,
        area_um2: height * width,
        access_ns,
    }
}

/// Where a memory goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Placement {
    Macro(Shape),
    /// Stays logic, with the reason.
    Logic(String),
}

/// Decides each memory's placement. Yosys selects the memories of a shape by their
/// parameters (size, width, ports), so a shape that a memory staying logic shares is
/// left to logic as a whole.
pub fn classify(mems: &[MemCell]) -> Vec<(MemCell, Placement)> {
    let first: Vec<Placement> = mems
        .iter()
        .map(|m| {
            if m.wr_ports == 0 {
                Placement::Logic("a constant table (ROM): gates".into())
            } else if !m.sync_read {
                Placement::Logic("read asynchronously: flops".into())
            } else if m.rd_ports != 1 || m.wr_ports != 1 {
                Placement::Logic(format!(
                    "{} read and {} write ports: flops (an SRAM macro has at most two ports)",
                    m.rd_ports, m.wr_ports
                ))
            } else if m.words < 2 {
                Placement::Logic("a single word: flops".into())
            } else {
                Placement::Macro(Shape {
                    words: m.words,
                    bits: m.bits,
                })
            }
        })
        .collect();
    let clash: Vec<bool> = mems
        .iter()
        .map(|m| {
            mems.iter().zip(&first).any(|(o, p)| {
                matches!(p, Placement::Logic(_))
                    && (o.words, o.bits, o.rd_ports, o.wr_ports)
                        == (m.words, m.bits, m.rd_ports, m.wr_ports)
            })
        })
        .collect();
    mems.iter()
        .zip(first)
        .zip(clash)
        .map(|((m, p), clash)| {
            let p = match p {
                Placement::Macro(_) if clash => Placement::Logic(
                    "its shape is shared with a memory read asynchronously: flops".into(),
                ),
                p => p,
            };
            (m.clone(), p)
        })
        .collect()
}

/// The distinct macro shapes, sorted.
pub fn shapes(placed: &[(MemCell, Placement)]) -> Vec<Shape> {
    let mut v: Vec<Shape> = placed
        .iter()
        .filter_map(|(_, p)| match p {
            Placement::Macro(s) => Some(*s),
            Placement::Logic(_) => None,
        })
        .collect();
    v.sort();
    v.dedup();
    v
}

/// Yosys commands that steer each memory: every memory to logic, then the macro shapes'
/// memories to their `memory_libmap` definitions.
pub fn yosys_styles(shapes: &[Shape]) -> String {
    let mut s = String::from("setattr -set ram_style \"logic\" t:$mem_v2\n");
    for sh in shapes {
        let _ = writeln!(
            s,
            "setattr -set ram_style \"{}\" t:$mem_v2 r:SIZE={} %i r:WIDTH={} %i r:RD_PORTS=1 %i r:WR_PORTS=1 %i",
            sh.style(),
            sh.words,
            sh.bits
        );
    }
    s
}

/// The `memory_libmap -lib` library: one block RAM per shape, its exact size, one write
/// and one read port on one clock, a read enable, no initial contents.
pub fn memlib(shapes: &[Shape]) -> String {
    let mut s = String::from("# gpurtl: one 1R1W SRAM macro per memory shape (generated)\n");
    for sh in shapes {
        let _ = write!(
            s,
            "ram block {} {{\n\tabits {};\n\twidth {};\n\tcost 1;\n\tinit none;\n\tstyle \"{}\";\n\
             \tport sw \"W\" {{\n\t\tclock posedge \"C\";\n\t}}\n\
             \tport sr \"R\" {{\n\t\tclock posedge \"C\";\n\t\trden;\n\t}}\n}}\n",
            sh.libmap_cell(),
            sh.abits(),
            sh.bits,
            sh.style()
        );
    }
    s
}

/// The techmap file: each `memory_libmap` cell becomes an instance of its macro.
pub fn techmap(shapes: &[Shape]) -> String {
    let mut s = String::new();
    for sh in shapes {
        let (a, d) = (sh.abits(), sh.bits);
        let _ = write!(
            s,
            "module {} (...);\n\
             input PORT_W_CLK;\ninput [{am}:0] PORT_W_ADDR;\ninput [{dm}:0] PORT_W_WR_DATA;\ninput PORT_W_WR_EN;\n\
             input PORT_R_CLK;\ninput [{am}:0] PORT_R_ADDR;\ninput PORT_R_RD_EN;\noutput [{dm}:0] PORT_R_RD_DATA;\n\
             input CLK_C;\n\
             {} _TECHMAP_REPLACE_ (.CLK(CLK_C), .WE(PORT_W_WR_EN), .WA(PORT_W_ADDR), .WD(PORT_W_WR_DATA), \
             .RE(PORT_R_RD_EN), .RA(PORT_R_ADDR), .Q(PORT_R_RD_DATA));\nendmodule\n",
            sh.libmap_cell(),
            sh.cell(),
            am = a - 1,
            dm = d - 1
        );
    }
    s
}

/// Black-box modules, so that Yosys and abc keep the macros as they are.
pub fn blackboxes(shapes: &[Shape]) -> String {
    let mut s = String::new();
    for sh in shapes {
        let _ = write!(
            s,
            "(* blackbox *)\nmodule {} (CLK, WE, WA, WD, RE, RA, Q);\n\
             input CLK;\ninput WE;\ninput [{am}:0] WA;\ninput [{dm}:0] WD;\n\
             input RE;\ninput [{am}:0] RA;\noutput [{dm}:0] Q;\nendmodule\n",
            sh.cell(),
            am = sh.abits() - 1,
            dm = sh.bits - 1
        );
    }
    s
}

fn constraint(kind: &str, ns: f64) -> String {
    format!(
        "      timing () {{\n        related_pin : \"CLK\";\n        timing_type : {kind};\n\
         \x20       rise_constraint (scalar) {{ values (\"{ns:.3}\"); }}\n\
         \x20       fall_constraint (scalar) {{ values (\"{ns:.3}\"); }}\n      }}\n"
    )
}

/// One shape's Liberty file: the OSU library's units, the model's area, setup and hold
/// on every input against CLK, and a clock-to-data arc on Q.
pub fn liberty(sh: Shape) -> String {
    let m = sh.model();
    let (a, d) = (sh.abits(), sh.bits);
    let checks = format!(
        "{}{}",
        constraint("setup_rising", SETUP_NS),
        constraint("hold_rising", HOLD_NS)
    );
    let input = |pin: &str, bus: Option<&str>| {
        let (group, ty) = match bus {
            Some(t) => ("bus", format!("      bus_type : {t};\n")),
            None => ("pin", String::new()),
        };
        format!(
            "    {group} ({pin}) {{\n{ty}      direction : input;\n      capacitance : {PIN_CAP_PF};\n{checks}    }}\n"
        )
    };
    let mut s = format!(
        "/* {cell}: {w} words x {d} bits, one write and one synchronous read port.\n\
         \x20  gpurtl's SRAM model ({MODEL_ID}), not a foundry memory compiler:\n\
         \x20  {rows} rows x {cols} columns (column mux {mux}), area {area:.1} um^2, access {acc:.3} ns.\n\
         \x20  See src/synth/sram.rs for the model and its sources. */\n\
         library (gpu_sram_{w}x{d}_1r1w) {{\n\
         \x20 delay_model : table_lookup;\n\
         \x20 time_unit : \"1ns\";\n  voltage_unit : \"1V\";\n  current_unit : \"1uA\";\n\
         \x20 pulling_resistance_unit : \"1kohm\";\n  leakage_power_unit : \"1nW\";\n\
         \x20 capacitive_load_unit (1,pf);\n\
         \x20 slew_upper_threshold_pct_rise : 80;\n  slew_lower_threshold_pct_rise : 20;\n\
         \x20 slew_upper_threshold_pct_fall : 80;\n  slew_lower_threshold_pct_fall : 20;\n\
         \x20 input_threshold_pct_rise : 50;\n  input_threshold_pct_fall : 50;\n\
         \x20 output_threshold_pct_rise : 50;\n  output_threshold_pct_fall : 50;\n\
         \x20 nom_process : 1;\n  nom_voltage : 1.8;\n  nom_temperature : 25;\n\
         \x20 operating_conditions (typical) {{\n    process : 1;\n    voltage : 1.8;\n    temperature : 25;\n  }}\n\
         \x20 default_operating_conditions : typical;\n\
         \x20 type (addr_{a}) {{\n    base_type : array;\n    data_type : bit;\n    bit_width : {a};\n    bit_from : {am};\n    bit_to : 0;\n    downto : true;\n  }}\n",
        cell = sh.cell(),
        w = sh.words,
        rows = m.rows,
        cols = m.cols,
        mux = m.mux,
        area = m.area_um2,
        acc = m.access_ns,
        am = a - 1,
    );
    if u64::from(a) != d {
        let _ = write!(
            s,
            "  type (data_{d}) {{\n    base_type : array;\n    data_type : bit;\n    bit_width : {d};\n    bit_from : {dm};\n    bit_to : 0;\n    downto : true;\n  }}\n",
            dm = d - 1
        );
    }
    let data_ty = if u64::from(a) == d {
        format!("addr_{a}")
    } else {
        format!("data_{d}")
    };
    let _ = write!(
        s,
        "  cell ({cell}) {{\n    area : {area:.3};\n    dont_touch : true;\n    dont_use : true;\n\
         \x20   interface_timing : true;\n\
         \x20   pin (CLK) {{\n      direction : input;\n      capacitance : {CLK_CAP_PF};\n      clock : true;\n    }}\n",
        cell = sh.cell(),
        area = m.area_um2
    );
    s += &input("WE", None);
    s += &input("WA", Some(&format!("addr_{a}")));
    s += &input("WD", Some(&data_ty));
    s += &input("RE", None);
    s += &input("RA", Some(&format!("addr_{a}")));
    let _ = write!(
        s,
        "    bus (Q) {{\n      bus_type : {data_ty};\n      direction : output;\n      max_capacitance : 0.5;\n\
         \x20     timing () {{\n        related_pin : \"CLK\";\n        timing_type : rising_edge;\n        timing_sense : non_unate;\n\
         \x20       cell_rise (scalar) {{ values (\"{acc:.3}\"); }}\n\
         \x20       cell_fall (scalar) {{ values (\"{acc:.3}\"); }}\n\
         \x20       rise_transition (scalar) {{ values (\"{OUT_TRANSITION_NS:.3}\"); }}\n\
         \x20       fall_transition (scalar) {{ values (\"{OUT_TRANSITION_NS:.3}\"); }}\n\
         \x20     }}\n    }}\n  }}\n}}\n",
        acc = m.access_ns
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mem(words: u64, bits: u64, rd: u32, wr: u32, sync: bool) -> MemCell {
        MemCell {
            name: format!("m{words}x{bits}"),
            words,
            bits,
            rd_ports: rd,
            wr_ports: wr,
            sync_read: sync,
        }
    }

    #[test]
    fn only_one_write_one_synchronous_read_memories_become_macros() {
        let placed = classify(&[
            mem(256, 8, 1, 1, true),
            mem(4, 32, 1, 1, false),
            mem(32, 8, 1, 0, true),
            mem(16, 22, 4, 1, true),
            mem(64, 16, 1, 1, true),
            mem(64, 16, 1, 1, false),
        ]);
        let macros: Vec<bool> = placed
            .iter()
            .map(|(_, p)| matches!(p, Placement::Macro(_)))
            .collect();
        assert_eq!(macros, [true, false, false, false, false, false]);
        assert_eq!(
            shapes(&placed),
            [Shape {
                words: 256,
                bits: 8
            }]
        );
    }

    #[test]
    fn the_model_grows_with_size_and_is_mostly_periphery_when_small() {
        let small = Shape {
            words: 256,
            bits: 8,
        }
        .model();
        let big = Shape {
            words: 8192,
            bits: 13,
        }
        .model();
        assert!(big.area_um2 > 10.0 * small.area_um2);
        assert!(big.access_ns > small.access_ns);
        let cells = 256.0 * 8.0 * CELL_6T_UM2 * TWO_PORT_FACTOR;
        assert!(cells < 0.5 * small.area_um2, "{small:?}");
        let m = Shape {
            words: 256,
            bits: 32,
        }
        .model();
        assert_eq!((m.rows, m.cols, m.mux), (128, 64, 2));
        assert!((m.access_ns - 1.092).abs() < 0.01, "{m:?}");
        assert_eq!(
            Shape {
                words: 264,
                bits: 91
            }
            .abits(),
            9
        );
        assert_eq!(
            Shape {
                words: 256,
                bits: 8
            }
            .abits(),
            8
        );
    }

    #[test]
    fn liberty_names_the_cell_its_area_and_arcs() {
        let sh = Shape {
            words: 256,
            bits: 8,
        };
        let lib = liberty(sh);
        assert!(lib.contains("cell (GPU_SRAM_256X8_1R1W)"));
        assert_eq!(
            crate::synth::parse::liberty_cell_area(&lib, &sh.cell()),
            Some((sh.model().area_um2 * 1000.0).round() / 1000.0)
        );
        assert!(lib.contains("timing_type : rising_edge;"));
        assert_eq!(lib.matches("setup_rising").count(), 5);
        assert_eq!(lib.matches('{').count(), lib.matches('}').count());
    }
}
