//! The memory manager: `[mem.map]`.

use super::UnitDef;
use crate::config::{Config, MemMap};
use crate::iface::mem_mgr::Schedule;
use crate::iface::timing::Timing;
use crate::model::{self, Expectation};
use crate::rtl::{self, Ctx, Module, RenderError, Unit};
use crate::vectors::VectorSet;

pub struct MemMgr;

fn map(cfg: &Config) -> Option<&MemMap> {
    cfg.mem.as_ref()?.map.as_ref()
}

impl UnitDef for MemMgr {
    fn name(&self) -> &'static str {
        "mem_mgr"
    }

    fn elaborate(
        &self,
        ctx: &Ctx,
        cfg: &Config,
    ) -> Option<Result<(Unit, Vec<Module>), RenderError>> {
        let timing = Timing::new(&cfg.clock);
        Some(rtl::mem_mgr::MemMgr::new(ctx, map(cfg)?, &timing).elaborate())
    }

    fn vectors(
        &self,
        cfg: &Config,
        count: usize,
        seed: u64,
        _workload: Option<&str>,
    ) -> Option<VectorSet> {
        Some(model::mem_mgr::vectors(map(cfg)?, count, seed))
    }

    fn expectation(
        &self,
        cfg: &Config,
        unit: &Unit,
        _v: &VectorSet,
        _gap: f64,
        _stall: f64,
    ) -> Expectation {
        Expectation {
            cycles: None,
            // A command takes the schedule's clocks at best (the next is taken as the
            // response leaves), walks aside.
            peak_rate: map(cfg).map_or(1.0, |m| {
                1.0 / Schedule::for_map(&Timing::new(&cfg.clock), m).command_clocks() as f64
            }),
            // One command in execution and its response register: no handshake registers.
            capacity: unit.stage_capacity() + 2,
            cache: None,
            may_starve: Vec::new(),
            quiet: 0,
            starts_after: Vec::new(),
        }
    }

    fn notes(&self, cfg: &Config) -> Vec<String> {
        let mut notes: Vec<String> = map(cfg).map(rtl::mem_mgr::describe).into_iter().collect();
        if let Some(m) = map(cfg) {
            notes.push(Schedule::for_map(&Timing::new(&cfg.clock), m).describe());
        }
        notes
    }
}
