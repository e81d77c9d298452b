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

/// A throughput run on hits: `n` requests of every lane over an 8x8 rgba8888 texture
/// magnified 16 times (bilinear, repeat wrap, every lane active, the level of detail
/// given), ideal memory: after the texture's few lines are in, every texel hits. The
/// lanes walk a 128-pixel-wide picture of the texture in raster order, a lane a pixel.
/// Returns the texels read and the run's report (its clocks, and whether every response
/// was the model's); two lengths give the marginal rate (`cargo bench --bench rate`, and
/// tests/tmu.rs's check that it is the unit's full rate).
pub fn magnified_hits(
    cfg: &Config,
    n: usize,
    work: &std::path::Path,
) -> Result<(u64, SimReport), SimError> {
    use crate::config::{Filter, TexFormat};
    use crate::model::tmu::sampler::{MipImage, Sampler};
    use crate::model::tmu::unit::{Lane, load_texture};
    let tmu = cfg.tmu.as_ref().expect("a throughput run needs [tmu]");
    let log2 = 3;
    let img = MipImage {
        format: TexFormat::Rgba8888,
        layout: tmu.cache.layout,
        log2_width: log2,
        log2_height: log2,
        levels: (0..=log2)
            .map(|l| {
                let words = MipImage::level_words(TexFormat::Rgba8888, log2 - l, log2 - l);
                // Texel words that differ (a multiplicative hash of the word's index
                // and level): the rate on hits does not depend on them.
                (0..words as u32)
                    .map(|i| (i ^ (l << 24)).wrapping_mul(0x9e37_79b9))
                    .collect()
            })
            .collect(),
    };
    let sampler = Sampler::repeat(Filter::Linear, Filter::Linear, tmu.weight_bits);
    let (mut cmds, memory) = load_texture(0, &img, &sampler);
    let lanes = tmu.lanes as usize;
    let side = 128.0f32;
    for r in 0..n {
        let lanes = (0..lanes)
            .map(|k| {
                let p = (r * lanes + k) as f32;
                Lane {
                    s: ((p % side) + 0.5) / side,
                    t: (((p / side).floor() % side) + 0.5) / side,
                    active: true,
                }
            })
            .collect();
        cmds.push(TmuCmd::Sample {
            tex: 0,
            lod: Some(-4.0),
            lanes,
        });
    }
    let opt = SimOptions::new(n, 1, work.to_path_buf());
    let run = run(cfg, &cmds, memory, &opt)?;
    Ok(((n * lanes * 4) as u64, run.report))
}
