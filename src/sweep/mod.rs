//! `gpurtl sweep`: a design space from TOML knobs. The axes (`spec`) span points, each a
//! complete config; every valid point is co-simulated against the model on each workload
//! (or run through the model alone), optionally taken through `gpurtl synth`, and the
//! rows land in a table, JSON and plots (`report`, `plot`). Points are independent: they
//! run in parallel here, or as a Slurm job array (`slurm`), and each point's result is
//! cached by its config's hash and the run's settings.

pub mod plot;
pub mod report;
pub mod slurm;
pub mod spec;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::config::{self, Config};
use crate::rtl::GENERATOR;
use crate::sim::{self, SimOptions, SimReport};
use crate::synth::{self, Target};
use crate::units;

pub use spec::{Axis, Level, Point, Spec, SpecError};

/// How each point is measured: the same for every point of a sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub unit: String,
    /// Workload names; an empty list runs the unit's default traffic once.
    pub workloads: Vec<String>,
    pub count: usize,
    pub seed: u64,
    /// Input gaps and output stalls of the co-simulation, as `gpurtl sim` takes them.
    pub gap: f64,
    pub stall: f64,
    /// Memory latency in clocks; `None`: the point's `[mem] latency`, else 100.
    pub mem_latency: Option<u64>,
    /// The model alone: no Verilator; metrics the model gives (hit rate, bytes per texel,
    /// and items per clock where the model is cycle exact).
    pub model_only: bool,
    pub synth: Option<SynthSettings>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SynthSettings {
    pub target: Target,
    pub seeds: u32,
}

impl Settings {
    /// The workloads to run, `None` standing for the unit's default traffic.
    pub fn runs(&self) -> Vec<Option<String>> {
        if self.workloads.is_empty() {
            vec![None]
        } else {
            self.workloads.iter().cloned().map(Some).collect()
        }
    }
}

/// One point's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointResult {
    pub index: usize,
    /// The config's SHA-256 (canonical form); `None` when it did not validate.
    pub config_hash: Option<String>,
    /// The config error (key, line, column, what is allowed) of an invalid point.
    pub invalid: Option<String>,
    pub runs: Vec<RunResult>,
    pub synth: Option<SynthResult>,
    /// Runs made now rather than read from the cache (not part of the results).
    #[serde(skip, default)]
    pub computed: usize,
}

impl PointResult {
    pub fn failed(&self) -> bool {
        self.runs.iter().any(|r| !r.passed)
            || self.synth.as_ref().is_some_and(|s| s.error.is_some())
    }
}

/// What a run measures; a figure the unit or the mode does not give is `None`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    /// Clocks of the co-simulation (or the cycle model's, model-only).
    pub cycles: Option<u64>,
    /// Output items per clock.
    pub throughput: Option<f64>,
    /// The cycle model's items per clock, where it is cycle exact.
    pub model_throughput: Option<f64>,
    pub hit_rate: Option<f64>,
    pub bytes_per_texel: Option<f64>,
    pub texels_per_clock: Option<f64>,
    /// Throughput at the memory latency over throughput with an ideal memory.
    pub latency_ratio: Option<f64>,
}

/// One workload on one point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub workload: String,
    pub passed: bool,
    #[serde(flatten)]
    pub figures: Figures,
    pub error: Option<String>,
    /// The `gpurtl sim` line that repeats a failed run.
    pub reproduce: Option<String>,
}

impl RunResult {
    /// A run with no figures yet.
    fn new(workload: Option<&str>, passed: bool) -> Self {
        Self {
            workload: workload.unwrap_or("default").to_string(),
            passed,
            figures: Figures::default(),
            error: None,
            reproduce: None,
        }
    }
}

/// One point through `gpurtl synth`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SynthResult {
    pub target: Target,
    pub resources: BTreeMap<String, u64>,
    /// The target's area figure: LUT4 (ecp5, ice40), LUT (xilinx7), cells (generic),
    /// um^2 (asic).
    pub area: Option<f64>,
    pub area_unit: String,
    pub fmax_mhz: Option<f64>,
    pub tools: Vec<String>,
    pub error: Option<String>,
}

/// Where a point's text is written and how messages name it.
pub fn point_file(point: &Point, total: usize) -> String {
    format!("points/{}.toml", point.id(total))
}

/// Validates, runs and measures one point. `dir` is where the sweep's files are.
pub fn evaluate(
    point: &Point,
    total: usize,
    settings: &Settings,
    dir: &Path,
    work_dir: &Path,
    progress: &(dyn Fn(&str) + Sync),
) -> PointResult {
    // Messages name the point's file relative to the sweep directory, so the results do
    // not depend on where it is; the reproduce line names the file itself.
    let origin = point_file(point, total);
    let path = dir.join(&origin).display().to_string();
    let mut result = PointResult {
        index: point.index,
        config_hash: None,
        invalid: None,
        runs: Vec::new(),
        synth: None,
        computed: 0,
    };
    let cfg = match config::parse(&point.text, &origin) {
        Ok(c) => c,
        Err(e) => {
            result.invalid = Some(e.to_string());
            return result;
        }
    };
    result.config_hash = Some(cfg.hash.clone());
    let design = match units::elaborate(&cfg) {
        Ok(d) => d,
        Err(e) => {
            result.invalid = Some(format!("{origin}: elaboration failed: {e}"));
            return result;
        }
    };
    if design.unit(&settings.unit).is_none() {
        let names: Vec<&str> = design.units.iter().map(|u| u.name).collect();
        result.invalid = Some(format!(
            "{origin}: no unit `{}` in this point's config; its units: {}",
            settings.unit,
            names.join(", ")
        ));
        return result;
    }
    for w in settings.runs() {
        let (run, computed) = cached_run(&cfg, &design, settings, w.as_deref(), &path, work_dir);
        result.computed += usize::from(computed);
        progress(&format!(
            "{} {}: {}",
            point.id(total),
            w.as_deref().unwrap_or("default"),
            if run.passed { "ok" } else { "FAILED" }
        ));
        result.runs.push(run);
    }
    if let Some(s) = &settings.synth {
        result.synth = Some(synthesize(&cfg, &design, &settings.unit, s, work_dir));
        progress(&format!("{} synth {}", point.id(total), s.target.name()));
    }
    result
}

/// Evaluates every point of a plan, `jobs` at a time, in point order. `note` hears each
/// finished run, `done` each finished point.
pub fn run_points(
    plan: &Plan,
    dir: &Path,
    work_dir: &Path,
    jobs: usize,
    note: &(dyn Fn(&str) + Sync),
    done: &(dyn Fn() + Sync),
) -> Result<Vec<PointResult>, rayon::ThreadPoolBuildError> {
    use rayon::prelude::*;
    let points = plan.spec.points();
    let total = points.len();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()?;
    Ok(pool.install(|| {
        points
            .par_iter()
            .map(|p| {
                let r = evaluate(p, total, &plan.settings, dir, work_dir, note);
                done();
                r
            })
            .collect()
    }))
}

/// The key a run is cached under: what decides its figures, and the generator version
/// (a new generator may make different RTL from the same config).
fn run_key(cfg: &Config, settings: &Settings, workload: Option<&str>, latency: u64) -> String {
    let key = serde_json::json!({
        "generator": GENERATOR,
        "config": cfg.hash,
        "unit": settings.unit,
        "workload": workload,
        "count": settings.count,
        "seed": settings.seed,
        "gap": settings.gap,
        "stall": settings.stall,
        "latency": latency,
        "model_only": settings.model_only,
    });
    Sha256::digest(key.to_string().as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn latency_of(cfg: &Config, settings: &Settings) -> u64 {
    settings.mem_latency.unwrap_or_else(|| {
        u64::from(
            cfg.mem
                .as_ref()
                .map_or(config::DEFAULT_MEM_LATENCY, |m| m.latency),
        )
    })
}

/// A run from the cache (`<work_dir>/sweep-cache/`), or run now and cached (then the
/// flag is true). Runs that could not be made (a tool missing, a build that failed) are
/// not cached.
fn cached_run(
    cfg: &Config,
    design: &crate::rtl::Design,
    settings: &Settings,
    workload: Option<&str>,
    origin: &str,
    work_dir: &Path,
) -> (RunResult, bool) {
    let latency = latency_of(cfg, settings);
    let key = run_key(cfg, settings, workload, latency);
    let path = work_dir
        .join("sweep-cache")
        .join(format!("{}.json", &key[..32]));
    let reproduce = format!(
        "gpurtl sim -c {origin} -u {} {}-n {} --seed {} --gap {} --stall {} --mem-latency {latency}",
        settings.unit,
        workload.map_or(String::new(), |w| format!("-w {w} ")),
        settings.count,
        settings.seed,
        settings.gap,
        settings.stall,
    );
    if let Some(mut r) = fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str::<RunResult>(&t).ok())
    {
        // The cached run may come from another sweep directory: the line names this one.
        r.reproduce = (!r.passed && !settings.model_only).then_some(reproduce);
        return (r, false);
    }
    let (run, cacheable) = run_point(
        cfg, design, settings, workload, latency, reproduce, work_dir,
    );
    if cacheable {
        let _ = write_file_atomic(
            &path,
            serde_json::to_string_pretty(&run)
                .unwrap_or_default()
                .as_bytes(),
        );
    }
    (run, true)
}

fn run_point(
    cfg: &Config,
    design: &crate::rtl::Design,
    settings: &Settings,
    workload: Option<&str>,
    latency: u64,
    reproduce: String,
    work_dir: &Path,
) -> (RunResult, bool) {
    if settings.model_only {
        return (model_run(cfg, design, settings, workload), true);
    }
    let opt = SimOptions {
        mem: sim::MemTiming {
            latency,
            ..Default::default()
        },
        gap: settings.gap,
        stall: settings.stall,
        workload: workload.map(str::to_string),
        ..SimOptions::new(settings.count, settings.seed, work_dir.to_path_buf())
    };
    match sim::run(cfg, design, &settings.unit, &opt) {
        Ok(r) => (from_sim(workload, &r, reproduce), true),
        Err(e) => {
            let mut r = RunResult::new(workload, false);
            r.error = Some(e.to_string());
            r.reproduce = Some(reproduce);
            (r, false)
        }
    }
}

fn from_sim(workload: Option<&str>, r: &SimReport, reproduce: String) -> RunResult {
    let mut out = RunResult::new(workload, r.passed);
    out.figures = Figures {
        cycles: Some(r.cycles),
        throughput: Some(r.throughput),
        model_throughput: r.model_throughput,
        hit_rate: r.cache.as_ref().map(|c| c.hit_rate),
        bytes_per_texel: r.cache.as_ref().map(|c| c.bytes_per_texel),
        texels_per_clock: r.cache.as_ref().map(|c| c.texels_per_clock),
        latency_ratio: r.latency_ratio,
    };
    if !r.passed {
        out.error = Some(
            r.errors
                .first()
                .cloned()
                .unwrap_or_else(|| format!("{} mismatches", r.mismatches)),
        );
        out.reproduce = Some(reproduce);
    }
    out
}

/// The model alone: its vectors and what it expects of them.
fn model_run(
    cfg: &Config,
    design: &crate::rtl::Design,
    settings: &Settings,
    workload: Option<&str>,
) -> RunResult {
    let mut r = RunResult::new(workload, true);
    let (Some(unit), Some(v)) = (
        design.unit(&settings.unit),
        units::vectors(cfg, &settings.unit, settings.count, settings.seed, workload),
    ) else {
        r.passed = false;
        r.error = Some(format!("no model for unit {}", settings.unit));
        return r;
    };
    let e = units::expectation(cfg, unit, &v, settings.gap, settings.stall);
    let expected: u64 = v
        .ports
        .iter()
        .filter(|p| p.role() == crate::vectors::Role::Expected)
        .map(|p| p.items.len() as u64)
        .sum();
    let f = &mut r.figures;
    if let Some(c) = e.cycles {
        f.cycles = Some(c);
        f.model_throughput = Some(expected as f64 / c.max(1) as f64);
        f.throughput = f.model_throughput;
    }
    if let Some(c) = &e.cache {
        f.hit_rate = Some(c.hit_rate());
        f.bytes_per_texel = Some(c.bytes_per_texel());
    }
    r
}

fn synthesize(
    cfg: &Config,
    design: &crate::rtl::Design,
    unit: &str,
    s: &SynthSettings,
    work_dir: &Path,
) -> SynthResult {
    let opt = synth::Options {
        target: s.target,
        seeds: s.seeds,
        // Points already run in parallel.
        jobs: 1,
        work_dir: work_dir.to_path_buf(),
        ..synth::Options::default()
    };
    let (area_key, area_unit) = match s.target {
        Target::Ecp5 | Target::Ice40 => ("LUT4", "LUT4"),
        Target::Xilinx7 => ("LUT", "LUT"),
        Target::Generic => ("cells", "cells"),
        Target::Asic => ("", "um^2"),
    };
    let mut out = SynthResult {
        target: s.target,
        resources: BTreeMap::new(),
        area: None,
        area_unit: area_unit.into(),
        fmax_mhz: None,
        tools: Vec::new(),
        error: None,
    };
    match synth::run(cfg, design, &[unit.to_string()], &opt, &|_| {}) {
        Ok(reports) => {
            if let Some(r) = reports.into_iter().next() {
                out.area = match s.target {
                    Target::Asic => r.area_um2,
                    _ => r.resources.get(area_key).map(|v| *v as f64),
                };
                out.fmax_mhz = r.fmax_mhz;
                out.resources = r.resources;
                out.tools = r.tools;
            }
        }
        Err(e) => out.error = Some(e.to_string()),
    }
    out
}

/// Writes a file through a temp file and a rename, so a reader never sees half of it.
pub fn write_file_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    fs::write(&tmp, bytes)?;
    fs::rename(&tmp, path)
}

/// The sweep's description as `--emit-slurm` and `collect` keep it (`sweep.json`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Plan {
    pub generator: String,
    pub spec: Spec,
    pub settings: Settings,
}

impl Plan {
    pub fn read(dir: &Path) -> Result<Plan, String> {
        let path = dir.join("sweep.json");
        let text = fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// The tool versions a sweep's figures come from.
pub fn tool_versions(settings: &Settings, results: &[PointResult]) -> Vec<String> {
    let mut v = vec![GENERATOR.to_string()];
    if !settings.model_only
        && let Ok(s) = sim::verilator_version()
    {
        v.push(s);
    }
    if let Some(s) = results
        .iter()
        .filter_map(|r| r.synth.as_ref())
        .find(|s| !s.tools.is_empty())
    {
        v.extend(s.tools.iter().cloned());
    }
    v
}

/// Default work directory for builds and the run cache.
pub fn default_work_dir() -> PathBuf {
    SimOptions::default_work_dir()
}
