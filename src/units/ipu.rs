//! The image processing unit: `[ipu]`.

use super::UnitDef;
use crate::config::Config;
use crate::iface::ipu::Pipe;
use crate::iface::timing::Timing;
use crate::model::{self, Expectation};
use crate::rtl::{self, Ctx, Module, RenderError, Unit};
use crate::vectors::VectorSet;

pub struct Ipu;

/// The depths `cfg`'s clock asks for: the RTL and the cycle model read the same.
pub fn pipe(cfg: &Config, ipu: &crate::config::Ipu) -> Pipe {
    Pipe::new(ipu, &Timing::new(&cfg.clock))
}

impl UnitDef for Ipu {
    fn name(&self) -> &'static str {
        "ipu"
    }

    fn elaborate(
        &self,
        ctx: &Ctx,
        cfg: &Config,
    ) -> Option<Result<(Unit, Vec<Module>), RenderError>> {
        let ipu = cfg.ipu.as_ref()?;
        Some(rtl::ipu::IpuUnit::new(ctx, ipu, pipe(cfg, ipu)).elaborate())
    }

    fn vectors(
        &self,
        cfg: &Config,
        count: usize,
        seed: u64,
        _workload: Option<&str>,
    ) -> Option<VectorSet> {
        Some(model::ipu::vectors(cfg.ipu.as_ref()?, count, seed))
    }

    fn expectation(
        &self,
        cfg: &Config,
        unit: &Unit,
        v: &VectorSet,
        gap: f64,
        stall: f64,
    ) -> Expectation {
        let Some(i) = cfg.ipu.as_ref() else {
            return Expectation::none();
        };
        // A beat a clock (up to `lanes` pixels on pix), halved by a one-deep FIFO.
        let p = pipe(cfg, i);
        let behind = [
            (i.pixel_map.is_some(), p.map_register),
            (i.zoom.is_some(), p.zoom_register),
        ];
        let peak_rate = i
            .registers
            .iter()
            .copied()
            .chain(behind.iter().filter(|(on, _)| *on).map(|(_, k)| *k))
            .map(|k| k.peak_rate())
            .fold(1.0, f64::min);
        Expectation {
            // The cycle model assumes every input offers at once and every output is
            // always ready; with gaps or stalls there is no prediction.
            cycles: if gap == 0.0 && stall == 0.0 {
                model::ipu_timing::clocks(i, &p, v)
            } else {
                None
            },
            peak_rate,
            // Pixels in the stage registers, plus the output registers.
            capacity: unit.stage_capacity() + 8,
            cache: None,
            may_starve: Vec::new(),
            quiet: 0,
            starts_after: Vec::new(),
        }
    }
}
