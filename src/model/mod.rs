//! The behavioural reference: the same blocks as `rtl/`, as plain Rust on plain types.

pub mod gpu;
pub mod handshake;
pub mod hs_chain;
pub mod ipu;
pub mod ipu_timing;
pub mod mem_arb;
pub mod mem_mgr;
pub mod memory;
pub mod tex_cache;
pub mod tex_filter;
pub mod tmu;

/// What the model expects of a run's timing.
#[derive(Debug, Clone)]
pub struct Expectation {
    /// Exact clocks for these vectors, seed, gaps and stalls, where the model is cycle exact.
    pub cycles: Option<u64>,
    /// Items per clock with no gaps and no stalls.
    pub peak_rate: f64,
    /// Items the unit can hold (bounds how long extra outputs are watched for).
    pub capacity: u64,
    /// For the texture cache: what the tag model says the traffic does.
    pub cache: Option<tex_cache::TrafficStats>,
    /// Output ports whose items may wait for ever by the unit's policy (a fixed-priority
    /// arbiter's lower requesters): the run calls them stuck only when no port of the
    /// unit moves, and reports their longest wait.
    pub may_starve: Vec<String>,
    /// Clocks the read/write memory must stay idle, with every input taken and its image
    /// as the model's, before the run ends: the longest a unit may work without memory
    /// traffic and then make more.
    pub quiet: u64,
    /// Input ports held back until an output port has delivered so many items: `(input,
    /// output, items)`. Orders two ports' streams where the unit does not (the GPU's
    /// samples after the command stream's descriptor writes).
    pub starts_after: Vec<(String, String, u64)>,
}

impl Expectation {
    /// No prediction: for a unit the config does not have.
    pub fn none() -> Self {
        Self {
            cycles: None,
            peak_rate: 1.0,
            capacity: 0,
            cache: None,
            may_starve: Vec::new(),
            quiet: 0,
            starts_after: Vec::new(),
        }
    }
}
