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
        v: &VectorSet,
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
            // The samples follow the command stream's descriptor writes: they wait for the
            // memory manager's answer to the command after them.
            starts_after: if v.port("sample").is_some_and(|p| !p.items.is_empty()) {
                vec![("sample".into(), "mm_rsp".into(), 1)]
            } else {
                Vec::new()
            },
        }
    }

    fn notes(&self, cfg: &Config) -> Vec<String> {
        let (Some(gpu), Some(ipu), Some(mem)) = (&cfg.gpu, &cfg.ipu, &cfg.mem) else {
            return Vec::new();
        };
        let Some(map) = mem.map.as_ref() else {
            return Vec::new();
        };
        let m = crate::iface::gpu::GpuMap::new(gpu, ipu, map);
        let serves: Vec<String> = mem
            .requesters
            .iter()
            .map(|r| match r.serves {
                Some(s) => format!("{} serves {}", r.name, s.key()),
                None => format!("{} is the host's", r.name),
            })
            .collect();
        vec![
            format!(
                "map: DMA ring {:#x}+{:#x}, framebuffer {} x {} at {:#x}, READ_PIXELS ring {:#x}+{:#x}, textures from {:#x}",
                m.dma.base,
                m.dma.bytes,
                m.fb_width,
                m.fb_height,
                m.fb_base,
                m.read.base,
                m.read.bytes,
                m.tex_base
            ),
            format!("requesters: {}", serves.join(", ")),
        ]
    }

    fn rw_mem_ports(&self, cfg: &Config) -> Vec<RwMemPort> {
        cfg.mem.iter().map(rtl::mem_arb::rw_mem_port).collect()
    }
}
