//! The behavioural reference: the same blocks as `rtl/`, as plain Rust on plain types.

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

use crate::config::Config;
use crate::vectors::VectorSet;

/// The model's stimulus and expected output for `count` items of `unit`.
/// `workload` selects the traffic of units that have several (tex_cache).
pub fn vectors(
    cfg: &Config,
    unit: &str,
    count: usize,
    seed: u64,
    workload: Option<&str>,
) -> Option<VectorSet> {
    match unit {
        "hs_chain" => cfg
            .hs_chain
            .as_ref()
            .map(|c| hs_chain::vectors(c, count, seed)),
        "tex_cache" => cfg.tmu.as_ref().and_then(|t| {
            let ops = tex_cache::sim_traffic(&t.cache, count, seed, workload)?;
            Some(tex_cache::encode(&t.cache, &ops, seed))
        }),
        "tex_filter" => cfg
            .tmu
            .as_ref()
            .map(|t| tex_filter::vectors(t, count, seed)),
        "tmu" => cfg.tmu.as_ref().map(|t| tmu::unit::vectors(t, count, seed)),
        "mem_arb" => cfg
            .mem
            .as_ref()
            .and_then(|m| mem_arb::vectors(m, count, seed, workload)),
        "mem_mgr" => cfg
            .mem
            .as_ref()
            .and_then(|m| m.map.as_ref())
            .map(|map| mem_mgr::vectors(map, count, seed)),
        "ipu" => cfg.ipu.as_ref().map(|i| ipu::vectors(i, count, seed)),
        _ => None,
    }
}

/// What the model expects of a run's timing.
#[derive(Debug, Clone, Copy)]
pub struct Expectation {
    /// Exact clocks for these vectors, seed, gaps and stalls, where the model is cycle exact.
    pub cycles: Option<u64>,
    /// Items per clock with no gaps and no stalls.
    pub peak_rate: f64,
    /// Items the unit can hold (bounds how long extra outputs are watched for).
    pub capacity: u64,
    /// For the texture cache: what the tag model says the traffic does.
    pub cache: Option<tex_cache::TrafficStats>,
}

pub fn expectation(cfg: &Config, unit: &str, v: &VectorSet, gap: f64, stall: f64) -> Expectation {
    match (unit, &cfg.hs_chain) {
        ("hs_chain", Some(chain)) => {
            let inputs = v.port("in").map(|p| p.items.as_slice()).unwrap_or(&[]);
            let run = hs_chain::run_cycles(chain, inputs, v.seed, gap, stall);
            Expectation {
                cycles: Some(run.cycles),
                peak_rate: chain.peak_rate(),
                capacity: u64::from(chain.capacity()),
                cache: None,
            }
        }
        ("tex_cache", _) => {
            let cache = cfg.tmu.as_ref().map(|t| {
                let reqs = v.port("req").map(|p| p.items.as_slice()).unwrap_or(&[]);
                tex_cache::run_ops(&t.cache, &tex_cache::decode_requests(&t.cache, reqs))
            });
            Expectation {
                cycles: None,
                peak_rate: 1.0,
                // Passes queued, in the stages and in the output queue.
                capacity: cfg
                    .tmu
                    .as_ref()
                    .map_or(0, |t| u64::from(t.cache.queue_depth) + 8),
                cache,
            }
        }
        ("tex_filter", _) => Expectation {
            cycles: None,
            peak_rate: 1.0,
            // Five two-entry skid registers.
            capacity: 10,
            cache: None,
        },
        ("tmu", _) => Expectation {
            cycles: None,
            peak_rate: 1.0,
            // Samples in the LOD and address stages, the cache's queue and the filter.
            capacity: cfg
                .tmu
                .as_ref()
                .map_or(0, |t| u64::from(t.cache.queue_depth) + 48),
            cache: None,
        },
        ("mem_arb", _) => Expectation {
            cycles: None,
            // One beat per clock at most on the memory port.
            peak_rate: 1.0,
            // Beats held in the two skids and read bursts in flight.
            capacity: cfg.mem.as_ref().map_or(0, |m| {
                u64::from(m.outstanding_reads) * u64::from(m.max_burst) + 4
            }),
            cache: None,
        },
        ("mem_mgr", _) => Expectation {
            cycles: None,
            // A command takes two clocks at best (take, decide; the next is taken as the
            // response leaves), walks aside.
            peak_rate: 0.5,
            // One command in execution and its response.
            capacity: 2,
            cache: None,
        },
        ("ipu", _) => Expectation {
            // The cycle model assumes every input offers at once and every output is
            // always ready; with gaps or stalls there is no prediction.
            cycles: cfg
                .ipu
                .as_ref()
                .filter(|_| gap == 0.0 && stall == 0.0)
                .and_then(|i| ipu_timing::clocks(i, v)),
            // A beat a clock (up to `lanes` pixels on pix), halved by a one-deep FIFO.
            peak_rate: cfg.ipu.as_ref().map_or(1.0, |i| {
                let behind = [
                    (i.pixel_map.is_some(), i.map_register),
                    (i.zoom.is_some(), i.zoom_register),
                ];
                i.registers
                    .iter()
                    .copied()
                    .chain(behind.iter().filter(|(on, _)| *on).map(|(_, k)| *k))
                    .map(|k| k.peak_rate())
                    .fold(1.0, f64::min)
            }),
            // Pixels in the stage registers, plus the output registers.
            capacity: cfg.ipu.as_ref().map_or(0, |i| u64::from(i.capacity()) + 8),
            cache: None,
        },
        _ => Expectation {
            cycles: None,
            peak_rate: 1.0,
            capacity: 0,
            cache: None,
        },
    }
}
