//! Running the `tmu` unit's RTL on a user's texture and coordinates (`gpurtl sample
//! --rtl`, `gpurtl draw --rtl`): the texture goes into the harness's memory model, the
//! descriptor writes and sample requests into the unit, and the harness compares every
//! response with the model's.

use super::{SimError, SimOptions, SimReport};
use crate::config::Config;
use crate::model::tmu::format::Rgba8;
use crate::model::tmu::unit::{Memory, TmuCmd, TmuModel, vectors_for};
use crate::units;

/// A run of the RTL on given commands.
#[derive(Debug)]
pub struct TmuRun {
    pub report: SimReport,
    /// The colours of each sample request (the model's; the run passed only if the RTL's
    /// equal them).
    pub colours: Vec<Vec<Rgba8>>,
    /// Texel word lookups in the cache, and line fills from memory.
    pub lookups: u64,
    pub fills: u64,
}

impl TmuRun {
    pub fn hit_rate(&self) -> f64 {
        1.0 - self.fills as f64 / self.lookups.max(1) as f64
    }

    /// Sample requests per clock.
    pub fn requests_per_clock(&self) -> f64 {
        self.colours.len() as f64 / self.report.cycles.max(1) as f64
    }
}

/// Verilates the config's `tmu` (cached) and runs `cmds` with `memory` placed.
pub fn run(
    cfg: &Config,
    cmds: &[TmuCmd],
    memory: Memory,
    opt: &SimOptions,
) -> Result<TmuRun, SimError> {
    let design = units::elaborate(cfg)?;
    let unit = super::find_unit(&design, "tmu")?.clone();
    let tmu = cfg
        .tmu
        .as_ref()
        .expect("a tmu unit is elaborated only with [tmu]");
    opt.tell(super::Stage::Build);
    let (dir, cached) = super::build(cfg, &design, &unit, opt.trace.is_some(), &opt.work_dir)?;
    let lookups = {
        let mut m = TmuModel::new(tmu, memory.clone());
        cmds.iter().for_each(|c| {
            m.step(c);
        });
        m.reads.get()
    };
    opt.tell(super::Stage::Model);
    let (v, colours) = vectors_for(tmu, cmds, memory, opt.seed);
    let e = units::expectation(cfg, &unit, &v, opt.gap, opt.stall);
    let report = super::run_vectors(&unit, &dir, cached, opt, &v, &e)?;
    let fills = report.memory.iter().map(|m| m.requests).sum();
    Ok(TmuRun {
        report,
        colours,
        lookups,
        fills,
    })
}
