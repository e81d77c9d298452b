//! The texture cache on its own: `[tmu.cache]`.

use super::UnitDef;
use crate::config::Config;
use crate::model::{self, Expectation};
use crate::rtl::{self, Ctx, Module, RenderError, Unit};
use crate::vectors::VectorSet;
use crate::workload::Workload;

pub struct TexCache;

/// Requests held outside the handshake registers: in the tag unit's L1, L2 and RUN
/// registers, and in the data stages `s1`, `s2` and `s3`.
pub const PIPELINE_PASSES: u64 = 6;

impl UnitDef for TexCache {
    fn name(&self) -> &'static str {
        "tex_cache"
    }

    fn elaborate(
        &self,
        ctx: &Ctx,
        cfg: &Config,
    ) -> Option<Result<(Unit, Vec<Module>), RenderError>> {
        let tmu = cfg.tmu.as_ref()?;
        Some(rtl::tex_cache::TexCacheTop::new(ctx, &tmu.cache).elaborate())
    }

    fn vectors(
        &self,
        cfg: &Config,
        count: usize,
        seed: u64,
        workload: Option<&str>,
    ) -> Option<VectorSet> {
        let cache = &cfg.tmu.as_ref()?.cache;
        let ops = model::tex_cache::sim_traffic(cache, count, seed, workload)?;
        Some(model::tex_cache::encode(cache, &ops, seed))
    }

    fn expectation(
        &self,
        cfg: &Config,
        unit: &Unit,
        v: &VectorSet,
        _gap: f64,
        _stall: f64,
    ) -> Expectation {
        let Some(tmu) = cfg.tmu.as_ref() else {
            return Expectation::none();
        };
        let reqs = v.port("req").map(|p| p.items.as_slice()).unwrap_or(&[]);
        let ops = model::tex_cache::decode_requests(&tmu.cache, reqs);
        Expectation {
            cycles: None,
            peak_rate: 1.0,
            capacity: unit.stage_capacity() + PIPELINE_PASSES,
            cache: Some(model::tex_cache::run_ops(&tmu.cache, &ops)),
            may_starve: Vec::new(),
            quiet: 0,
            starts_after: Vec::new(),
        }
    }

    fn workloads(&self) -> Vec<&'static str> {
        Workload::ALL.iter().map(|w| w.name()).collect()
    }
}
