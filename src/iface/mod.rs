//! The contract between the hardware and its model: what a unit's ports carry and how
//! (stream ports, field layouts, encodings, widths, the texture cache's bank mapping).
//!
//! Data flows one way: `config` -> `iface` -> `rtl` and `model`. Both `rtl/` (which
//! renders the Verilog) and `model/` (the behavioural reference) read these definitions;
//! neither imports the other, and `tests/architecture.rs` fails if one does.

pub mod field;
pub mod fifo;
pub mod gpu;
pub mod ipu;
pub mod mem_arb;
pub mod mem_mgr;
pub mod tex_cache;
pub mod tex_filter;
pub mod timing;
pub mod tmu;

pub use field::Field;
use serde::Serialize;

/// Direction of a unit's port as the harness sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dir {
    In,
    Out,
}

/// A valid/ready stream port of a unit: `<name>_valid_i`, `<name>_ready_o`, `<name>_data_i`
/// for inputs, `_o`/`_i`/`_o` for outputs.
#[derive(Debug, Clone, Serialize)]
pub struct StreamPort {
    pub name: String,
    pub dir: Dir,
    pub width: u32,
}

impl StreamPort {
    /// The request-in, response-out pair of a unit that answers requests in order.
    pub fn req_rsp(req_width: u32, rsp_width: u32) -> Vec<StreamPort> {
        vec![
            StreamPort {
                name: "req".into(),
                dir: Dir::In,
                width: req_width,
            },
            StreamPort {
                name: "rsp".into(),
                dir: Dir::Out,
                width: rsp_width,
            },
        ]
    }
}

/// A read port to memory, served by the harness's memory model: the unit asks for a burst
/// at a byte address (`<name>_req_valid_o`, `_req_ready_i`, `_req_addr_o`) and memory
/// returns `beats` words of `data_width` bits (`<name>_rsp_valid_i`, `_rsp_ready_o`,
/// `_rsp_data_i`), bursts in request order. The word at each address is
/// [`crate::rng::memory_word`].
#[derive(Debug, Clone, Serialize)]
pub struct MemPort {
    pub name: String,
    pub addr_width: u32,
    pub data_width: u32,
    pub beats: u32,
}

/// A state register under a unit's top module (an FSM's `state_q`, marked public for
/// Verilator's reads), read every clock of a co-simulation: the report counts the clocks
/// spent in each named state, and a value with no name is an error.
#[derive(Debug, Clone, Serialize)]
pub struct Probe {
    pub name: &'static str,
    /// The register's path from the top module, instances separated by dots
    /// (`u_ctrl.state_q`).
    pub signal: &'static str,
    /// Its states: code and name, every one the config generates.
    pub states: Vec<(u32, &'static str)>,
}

impl Probe {
    /// The register's name in Verilator's flattened model, below the top's
    /// (`u_ctrl__DOT__state_q`).
    pub fn verilated(&self) -> String {
        self.signal.replace('.', "__DOT__")
    }
}
