//! The GPU subsystem: `[ipu]`, `[tmu]` and `[mem]` on one memory (`config::gpu`).

use super::UnitDef;
use crate::config::Config;
use crate::iface::timing::Timing;
use crate::model::{self, Expectation};
use crate::rtl::mem_arb::RwMemPort;
use crate::rtl::{self, Ctx, Module, RenderError, Unit};
use crate::vectors::VectorSet;

pub struct Gpu;

impl UnitDef for Gpu {
    fn name(&self) -> &'static str {
        "gpu"
    }

    fn elaborate(
        &self,
        ctx: &Ctx,
        cfg: &Config,
    ) -> Option<Result<(Unit, Vec<Module>), RenderError>> {
        let (gpu, ipu, tmu, mem) = (
            cfg.gpu.as_ref()?,
            cfg.ipu.as_ref()?,
            cfg.tmu.as_ref()?,
            cfg.mem.as_ref()?,
        );
        let timing = Timing::new(&cfg.clock);
        Some(
            rtl::gpu::GpuUnit {
                ctx,
                gpu,
                ipu,
                tmu,
                mem,
                ipu_pipe: super::ipu::pipe(cfg, ipu),
                timing: &timing,
            }
            .elaborate(),
        )
    }

    fn vectors(
        &self,
        cfg: &Config,
        count: usize,
        seed: u64,
        workload: Option<&str>,
    ) -> Option<VectorSet> {
        model::gpu::vectors(cfg, count, seed, workload)
    }

    fn workloads(&self) -> Vec<&'static str> {
        model::gpu::WORKLOADS.to_vec()
    }

    fn expectation(
        &self,
        cfg: &Config,
        unit: &Unit,
        _v: &VectorSet,
        _gap: f64,
        _stall: f64,
    ) -> Expectation {
        if cfg.gpu.is_none() {
            return Expectation::none();
        }
        Expectation {
            cycles: None,
            peak_rate: 1.0,
            // The units' registers and queues, the engines' read buffers, the TMU's cache
            // pipeline and the arbiter's reads in flight.
            capacity: unit.stage_capacity() + super::tex_cache::PIPELINE_PASSES + 4096,
            cache: None,
            may_starve: Vec::new(),
            quiet: model::gpu::quiet_clocks(),
        }
    }

    fn rw_mem_ports(&self, cfg: &Config) -> Vec<RwMemPort> {
        cfg.mem.iter().map(rtl::mem_arb::rw_mem_port).collect()
    }
}
