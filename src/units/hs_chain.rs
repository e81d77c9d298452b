//! The handshake chain: `[hs_chain]`.

use super::UnitDef;
use crate::config::Config;
use crate::model::{self, Expectation};
use crate::rtl::{self, Ctx, Module, RenderError, Unit};
use crate::vectors::VectorSet;

pub struct HsChain;

impl UnitDef for HsChain {
    fn name(&self) -> &'static str {
        "hs_chain"
    }

    fn elaborate(
        &self,
        ctx: &Ctx,
        cfg: &Config,
    ) -> Option<Result<(Unit, Vec<Module>), RenderError>> {
        let chain = cfg.hs_chain.as_ref()?;
        Some(rtl::hs_chain::HsChainTop::new(ctx, chain).elaborate())
    }

    fn vectors(
        &self,
        cfg: &Config,
        count: usize,
        seed: u64,
        _workload: Option<&str>,
    ) -> Option<VectorSet> {
        let chain = cfg.hs_chain.as_ref()?;
        Some(model::hs_chain::vectors(chain, count, seed))
    }

    fn expectation(
        &self,
        cfg: &Config,
        unit: &Unit,
        v: &VectorSet,
        gap: f64,
        stall: f64,
    ) -> Expectation {
        let Some(chain) = cfg.hs_chain.as_ref() else {
            return Expectation::none();
        };
        let inputs = v.port("in").map(|p| p.items.as_slice()).unwrap_or(&[]);
        let run = model::hs_chain::run_cycles(chain, inputs, v.seed, gap, stall);
        Expectation {
            cycles: Some(run.cycles),
            peak_rate: chain.peak_rate(),
            capacity: unit.stage_capacity(),
            cache: None,
            may_starve: Vec::new(),
            quiet: 0,
            starts_after: Vec::new(),
        }
    }
}
