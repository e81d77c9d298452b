//! The memory arbiter: `[mem]`.

use super::UnitDef;
use crate::config::Config;
use crate::iface::Dir;
use crate::iface::mem_arb::{Pipe, describe, wbeat_fields};
use crate::iface::timing::Timing;
use crate::model::{self, Expectation};
use crate::rtl::mem_arb::RwMemPort;
use crate::rtl::{self, Ctx, Module, RenderError, Unit};
use crate::vectors::VectorSet;

pub struct MemArb;

impl UnitDef for MemArb {
    fn name(&self) -> &'static str {
        "mem_arb"
    }

    fn elaborate(
        &self,
        ctx: &Ctx,
        cfg: &Config,
    ) -> Option<Result<(Unit, Vec<Module>), RenderError>> {
        let mem = cfg.mem.as_ref()?;
        let timing = Timing::new(&cfg.clock);
        Some(rtl::mem_arb::MemArb::new(ctx, mem, &timing).elaborate())
    }

    fn vectors(
        &self,
        cfg: &Config,
        count: usize,
        seed: u64,
        workload: Option<&str>,
    ) -> Option<VectorSet> {
        model::mem_arb::vectors(cfg.mem.as_ref()?, count, seed, workload)
    }

    fn expectation(
        &self,
        cfg: &Config,
        unit: &Unit,
        _v: &VectorSet,
        _gap: f64,
        _stall: f64,
    ) -> Expectation {
        let Some(mem) = cfg.mem.as_ref() else {
            return Expectation::none();
        };
        let pipe = Pipe::new(mem, &Timing::new(&cfg.clock));
        // A requester that can starve by policy: its read responses may wait for ever.
        let starving: Vec<String> = rtl::mem_arb::worst_case_waits(mem, &pipe)
            .into_iter()
            .filter(|w| w.bursts.is_none())
            .map(|w| format!("{}_rdata", w.name))
            .filter(|port| {
                unit.ports
                    .iter()
                    .any(|p| p.dir == Dir::Out && &p.name == port)
            })
            .collect();
        Expectation {
            cycles: None,
            // One beat per clock at most on the memory port.
            peak_rate: 1.0,
            // Beats in the skids and the beat register, and the beats of the read bursts in
            // flight (the tag FIFO counts one item per burst).
            capacity: unit.stage_capacity()
                + pipe.beats_held()
                + u64::from(mem.outstanding_reads) * u64::from(mem.max_burst),
            cache: None,
            may_starve: starving,
            quiet: 0,
            starts_after: Vec::new(),
        }
    }

    fn workloads(&self) -> Vec<&'static str> {
        model::mem_arb::WORKLOADS.to_vec()
    }

    fn rw_mem_ports(&self, cfg: &Config) -> Vec<RwMemPort> {
        cfg.mem.iter().map(rtl::mem_arb::rw_mem_port).collect()
    }

    fn notes(&self, cfg: &Config) -> Vec<String> {
        let Some(mem) = cfg.mem.as_ref() else {
            return Vec::new();
        };
        let pipe = Pipe::new(mem, &Timing::new(&cfg.clock));
        let mut notes: Vec<String> = rtl::mem_arb::worst_case_waits(mem, &pipe)
            .iter()
            .map(|w| format!("worst-case wait {}", w.describe()))
            .collect();
        notes.push(pipe.describe());
        notes.push(format!(
            "write beats <name>_wdata and mem_wdata = {}: strobe bit i enables data byte i",
            describe(&wbeat_fields(mem))
        ));
        notes
    }
}
