//! `--rtl` of `gpurtl sample` and `gpurtl draw`: the config's `tmu` unit, checked to
//! support the texture and sampler, run in Verilator on the same requests as the model.

use anyhow::anyhow;

use super::{ConfigArg, Failure, failure, load, usage};
use crate::config::{Config, Tmu};
use crate::model::tmu::format::Rgba8;
use crate::model::tmu::sampler::{MipImage, Sampler};
use crate::model::tmu::unit::{Lane, TmuCmd, load_texture};
use crate::sim::tmu::TmuRun;
use crate::sim::{self, SimOptions};
use crate::texio::TextureFile;

/// The config's `[tmu]`, checked to implement what the texture and sampler need.
pub fn tmu_for(arg: &ConfigArg, img: &MipImage, s: &Sampler) -> Result<(Config, Tmu), Failure> {
    let (cfg, _) = load(arg)?;
    let tmu = cfg.tmu.clone().ok_or_else(|| {
        usage(anyhow!(
            "error: --rtl needs a config with a [tmu] section (configs/seed001_tmu.toml has one)"
        ))
    })?;
    let lacks = |what: String| usage(anyhow!("error: --rtl: the config's tmu {what}"));
    if !tmu.has_format(img.format) {
        return Err(lacks(format!(
            "has no {} format (tmu.formats)",
            img.format.name()
        )));
    }
    for f in [s.min_filter, s.mag_filter] {
        if !tmu.filters.contains(&f) {
            return Err(lacks(format!("has no {} filter (tmu.filters)", f.name())));
        }
    }
    for w in [s.wrap_s, s.wrap_t] {
        if !tmu.wraps.contains(&w) {
            return Err(lacks(format!("has no {} wrap (tmu.wraps)", w.name())));
        }
    }
    if s.weight_bits != tmu.weight_bits {
        return Err(lacks(format!(
            "has {}-bit weights, not {} (tmu.weight_bits)",
            tmu.weight_bits, s.weight_bits
        )));
    }
    let levels = img.levels.len() as u32;
    if levels > tmu.mip_levels || img.log2_width.max(img.log2_height) >= tmu.mip_levels {
        return Err(lacks(format!(
            "holds {} mip levels (tmu.mip_levels): the texture needs {}",
            tmu.mip_levels,
            levels.max(img.log2_width.max(img.log2_height) + 1)
        )));
    }
    Ok((cfg, tmu))
}

/// The weight bits of the config's `[tmu]` (10, the default, without one).
pub fn weight_bits(arg: &ConfigArg) -> Result<u32, Failure> {
    let (cfg, _) = load(arg)?;
    Ok(cfg.tmu.map_or(10, |t| t.weight_bits))
}

/// A request of the unit's lanes: the given (s, t) active, padded with inactive copies
/// of the last one (whose coordinates still count in the quad's differences).
pub fn request(tmu: &Tmu, st: &[(f32, f32)], lod: Option<f32>) -> TmuCmd {
    let last = st[st.len() - 1];
    TmuCmd::Sample {
        tex: 0,
        lod,
        lanes: (0..tmu.lanes as usize)
            .map(|i| {
                let (s, t) = st.get(i).copied().unwrap_or(last);
                Lane {
                    s,
                    t,
                    active: i < st.len(),
                }
            })
            .collect(),
    }
}

/// Runs the requests through the RTL with the texture in memory (laid out as the unit's
/// cache expects); fails (exit 1) when the RTL's responses differ from the model's.
pub fn run(
    cfg: &Config,
    tex: &TextureFile,
    img: &MipImage,
    s: &Sampler,
    requests: Vec<TmuCmd>,
) -> Result<(Vec<Vec<Rgba8>>, TmuRun), Failure> {
    let layout = cfg.tmu.as_ref().map_or(img.layout, |t| t.cache.layout);
    let laid;
    let img = if img.layout == layout {
        img
    } else {
        laid = tex.to_mip_image(img.format, layout);
        &laid
    };
    let (mut cmds, memory) = load_texture(0, img, s);
    cmds.extend(requests);
    let bar = super::sim_bar();
    let opt = SimOptions {
        mem: sim::MemTiming {
            latency: 20,
            ..Default::default()
        },
        progress: bar.as_ref().map(|b| b.progress()),
        ..SimOptions::new(cmds.len(), 1, SimOptions::default_work_dir())
    };
    let run = sim::tmu::run(cfg, &cmds, memory, &opt);
    if let Some(b) = bar {
        b.finish();
    }
    let run = run.map_err(failure)?;
    if !run.report.passed {
        let errors = run
            .report
            .errors
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>();
        return Err(failure(anyhow!(
            "error: the tmu RTL differs from the model ({} mismatches, {} of {} responses):\n  {}\nvectors kept in {}",
            run.report.mismatches,
            run.report.transactions,
            run.colours.len(),
            errors.join("\n  "),
            run.report.vectors_dir.clone().unwrap_or_default()
        )));
    }
    Ok((run.colours.clone(), run))
}

/// The figures of a run, one line.
pub fn summary(run: &TmuRun) -> String {
    format!(
        "rtl: {} requests in {} clocks ({:.3} per clock), cache hit rate {:.4} ({} lookups, {} line fills), memory latency 20",
        run.colours.len(),
        run.report.cycles,
        run.requests_per_clock(),
        run.hit_rate(),
        run.lookups,
        run.fills
    )
}
