//! Items per second (issue 20's report): each preset's IPU and TMU at their measured Fmax
//! times the items a clock they move, both measured here, next to the seeds' figures
//! (seed 000: 200 Mpixel/s at 200 MHz in 0.13 um; seed 001: 16 texels a clock at 270 MHz
//! on a Virtex-6).
//!
//! Items a clock come from Verilator co-simulation of the unit (every output checked
//! against the model), as the marginal rate of a long run: the same workload at two
//! lengths, (items(2n) - items(n)) / (clocks(2n) - clocks(n)), so that neither the
//! pipeline's latency nor the cache's first fills count. The IPU draws rgba8888 rows
//! (pixels); the TMU samples an 8x8 texture magnified, bilinear, every texel a cache hit
//! once its lines are in (texels: four a lane a request). Fmax is `gpurtl synth`'s, from
//! the library: the ECP5 median of three placement seeds and the OSU 0.18 um estimate.
//!
//! `cargo bench --bench rate`; `GPURTL_BENCH_PRESETS=default,seed000_ipu` picks presets,
//! `GPURTL_BENCH_TARGETS=ecp5` the targets (ecp5, asic), `GPURTL_BENCH_JOBS=1` the tool
//! processes at once. Synthesis runs are cached in sim/build/synth (a TMU's three ECP5
//! placements take 20-30 minutes; seed001_tmu's TMU does not route on the ECP5 in useful
//! time, so run that preset with `GPURTL_BENCH_TARGETS=asic`). Only does work when cargo
//! passes `--bench`.

use std::path::{Path, PathBuf};

use gpurtl::config::{self, Config};
use gpurtl::model::ipu as m;
use gpurtl::rng::Rng;
use gpurtl::sim::{self, SimOptions};
use gpurtl::synth::{self, Options, Target};
use gpurtl::units;

mod shared;
#[allow(dead_code)] // the timer; this bench only asks whether it is benching
mod timing;

/// Items a clock past the common start of a shorter and a longer run, each (items, clocks).
fn marginal(short: (u64, u64), long: (u64, u64)) -> f64 {
    (long.0 - short.0) as f64 / (long.1 - short.1).max(1) as f64
}

/// DrawPixels of `draws` rgba8888 regions of 256 x 32 pixels, no input gaps or output
/// stalls; pixels out and clocks.
fn ipu_run(cfg: &Config, draws: u32, work: &Path) -> (u64, u64) {
    let ipu = cfg.ipu.clone().expect("ipu");
    let design = units::elaborate(cfg).expect("elaborates");
    let unit = design.unit("ipu").expect("ipu unit").clone();
    let (dir, _) = sim::build(cfg, &design, &unit, false, work).expect("verilates");
    let (w, h) = (256u32, 32u32);
    let mut rng = Rng::stream(21, 0);
    let mut s = m::Stream::default();
    for i in 0..draws {
        s.draw(&mut rng, 0, w, h, 0, (i * h) % 1024);
    }
    let (v, _) = m::encode(&ipu, &s, 1);
    let e = units::expectation(cfg, &unit, &v, 0.0, 0.0);
    let opt = SimOptions {
        gap: 0.0,
        stall: 0.0,
        ..SimOptions::new(s.cmds.len(), 1, work.to_path_buf())
    };
    let r = sim::run_vectors(&unit, &dir, true, &opt, &v, &e).expect("runs");
    assert!(r.passed, "{} ipu: {:?}", cfg.design.name, r.errors);
    (u64::from(draws * w * h), r.cycles)
}

/// `n` requests of the unit's lanes on hits (`sim::tmu::magnified_hits`): texels read
/// and clocks.
fn tmu_run(cfg: &Config, n: usize, work: &Path) -> (u64, u64) {
    let (texels, report) = sim::tmu::magnified_hits(cfg, n, work).expect("simulates");
    assert!(
        report.passed,
        "{} tmu: {:?}",
        cfg.design.name, report.errors
    );
    (texels, report.cycles)
}

fn main() {
    if !timing::benching("rate") {
        return;
    }
    let work = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("bench-sim");
    let presets: Vec<String> = std::env::var("GPURTL_BENCH_PRESETS")
        .map(|v| v.split(',').map(String::from).collect())
        .unwrap_or_else(|_| {
            ["default", "fpga_small", "seed000_ipu", "seed001_tmu"]
                .map(String::from)
                .to_vec()
        });
    let targets: Vec<Target> = std::env::var("GPURTL_BENCH_TARGETS")
        .unwrap_or_else(|_| "ecp5,asic".into())
        .split(',')
        .map(|t| match t {
            "ecp5" => Target::Ecp5,
            "asic" => Target::Asic,
            other => panic!("unknown target {other} (ecp5, asic)"),
        })
        .collect();
    let mut opt = Options {
        seeds: 3,
        ..Options::default()
    };
    if let Some(j) = std::env::var("GPURTL_BENCH_JOBS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        opt.jobs = j;
    }
    let mut rows = Vec::new();
    for preset in &presets {
        let file = Path::new("configs").join(format!("{preset}.toml"));
        let cfg = config::load(Some(&file)).unwrap_or_else(|e| panic!("{preset}: {e}"));
        let design = units::elaborate(&cfg).expect("renders");
        let mut measured: Vec<(&str, &str, f64)> = Vec::new();
        if cfg.ipu.is_some() {
            let rate = marginal(ipu_run(&cfg, 4, &work), ipu_run(&cfg, 8, &work));
            measured.push(("ipu", "pixels", rate));
        }
        if cfg.tmu.is_some() {
            let rate = marginal(tmu_run(&cfg, 1024, &work), tmu_run(&cfg, 2048, &work));
            measured.push(("tmu", "texels", rate));
        }
        for (unit, items, per_clock) in measured {
            eprintln!("{preset} {unit}: {per_clock:.3} {items} a clock");
            let mut fmax = Vec::new();
            for &target in &targets {
                opt.target = target;
                // A flow that fails leaves the row without a figure, and says why here.
                let f = match synth::run(
                    &cfg,
                    &design,
                    &[unit.to_string()],
                    &opt,
                    &shared::synth_progress,
                ) {
                    Ok(r) => r.first().and_then(|r| r.fmax_mhz),
                    Err(e) => {
                        eprintln!("{preset} {unit} {}: FAILED: {e}", target.name());
                        None
                    }
                };
                fmax.push((target, f));
            }
            rows.push((
                preset.clone(),
                unit,
                items,
                cfg.clock.target_mhz,
                per_clock,
                fmax,
            ));
        }
    }
    println!(
        "| preset | unit | items | target MHz | items/clock (marginal) | {} |",
        targets
            .iter()
            .map(|t| format!("{} Fmax MHz | {} items/s (M)", t.name(), t.name()))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("|---|---|---|---|---|{}", "---|---|".repeat(targets.len()));
    for (preset, unit, items, target_mhz, per_clock, fmax) in rows {
        let cols: Vec<String> = fmax
            .iter()
            .map(|(_, f)| match f {
                Some(f) => format!("{f:.1} | {:.0}", f * per_clock),
                None => "- | -".into(),
            })
            .collect();
        println!(
            "| {preset} | {unit} | {items} | {target_mhz} | {per_clock:.3} | {} |",
            cols.join(" | ")
        );
    }
}
