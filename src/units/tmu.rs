//! The whole texture mapping unit: `[tmu]`.

use super::UnitDef;
use crate::config::Config;
use crate::model::{self, Expectation};
use crate::rtl::{self, Ctx, Module, RenderError, Unit};
use crate::vectors::VectorSet;

pub struct Tmu;

impl UnitDef for Tmu {
    fn name(&self) -> &'static str {
        "tmu"
    }

    fn elaborate(
        &self,
        ctx: &Ctx,
        cfg: &Config,
    ) -> Option<Result<(Unit, Vec<Module>), RenderError>> {
        let tmu = cfg.tmu.as_ref()?;
        Some(rtl::tmu::TmuUnit::new(ctx, tmu).elaborate())
    }

    fn vectors(
        &self,
        cfg: &Config,
        count: usize,
        seed: u64,
        _workload: Option<&str>,
    ) -> Option<VectorSet> {
        Some(model::tmu::unit::vectors(cfg.tmu.as_ref()?, count, seed))
    }

    fn expectation(
        &self,
        cfg: &Config,
        unit: &Unit,
        _v: &VectorSet,
        _gap: f64,
        _stall: f64,
    ) -> Expectation {
        if cfg.tmu.is_none() {
            return Expectation::none();
        }
        Expectation {
            cycles: None,
            peak_rate: 1.0,
            // The skids and queues of the LOD and address stages (their pipeline registers
            // hold no more than their queues' credits), the side FIFO, the cache's queues and
            // the filter's skids, and the cache's pipeline registers.
            capacity: unit.stage_capacity() + super::tex_cache::PIPELINE_PASSES,
            cache: None,
            may_starve: Vec::new(),
            quiet: 0,
            starts_after: Vec::new(),
        }
    }
}
