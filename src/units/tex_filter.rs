//! The texture filter on its own: `[tmu]`'s filter lanes.

use super::UnitDef;
use crate::config::Config;
use crate::model::{self, Expectation};
use crate::rtl::{self, Ctx, Module, RenderError, Unit};
use crate::vectors::VectorSet;

pub struct TexFilter;

impl UnitDef for TexFilter {
    fn name(&self) -> &'static str {
        "tex_filter"
    }

    fn elaborate(
        &self,
        ctx: &Ctx,
        cfg: &Config,
    ) -> Option<Result<(Unit, Vec<Module>), RenderError>> {
        let tmu = cfg.tmu.as_ref()?;
        Some(rtl::tex_filter::TexFilter::new(ctx, tmu).elaborate())
    }

    fn vectors(
        &self,
        cfg: &Config,
        count: usize,
        seed: u64,
        _workload: Option<&str>,
    ) -> Option<VectorSet> {
        Some(model::tex_filter::vectors(cfg.tmu.as_ref()?, count, seed))
    }

    fn expectation(
        &self,
        _cfg: &Config,
        unit: &Unit,
        _v: &VectorSet,
        _gap: f64,
        _stall: f64,
    ) -> Expectation {
        Expectation {
            cycles: None,
            peak_rate: 1.0,
            capacity: unit.stage_capacity(),
            cache: None,
            may_starve: Vec::new(),
            quiet: 0,
            starts_after: Vec::new(),
        }
    }
}
