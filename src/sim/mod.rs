//! Co-simulation driver: renders the unit's glue, verilates (build cached by content
//! hash), writes the model's vectors, runs the harness and reads its JSON report.

pub mod glref;
pub mod mem_arb;
pub mod tmu;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use askama::Template;
use serde::{Deserialize, Serialize};

use crate::config::{Config, ResetActive};
use crate::emit::sha256_hex;
use crate::rtl::{Design, Dir, Unit};
use crate::vectors::VectorSet;
use crate::{model, units};

const HARNESS_H: &str = include_str!("../../sim/harness/harness.h");
const RNG_H: &str = include_str!("../../sim/harness/rng.h");
const MAKEFILE: &str = include_str!("../../sim/Makefile");

#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("no unit `{unit}` in this config; it has: {available}")]
    UnknownUnit { unit: String, available: String },
    #[error("`{tool}` was not found: {hint}")]
    MissingTool { tool: String, hint: String },
    #[error("verilating {unit} failed (log: {log})\n{tail}")]
    Build {
        unit: String,
        log: String,
        tail: String,
    },
    #[error("running the simulation failed: {0}")]
    Run(String),
    #[error("{context}: {source}")]
    Io {
        context: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Render(#[from] crate::rtl::RenderError),
}

fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> SimError {
    let context = context.into();
    move |source| SimError::Io { context, source }
}

/// One port of the glue template.
pub struct GluePort {
    pub name: String,
    pub width: u32,
    pub input: bool,
}

#[derive(Template)]
#[template(path = "sim/glue.cpp")]
pub struct Glue {
    pub stamp: String,
    pub unit: String,
    pub top: String,
    pub ports: Vec<GluePort>,
    pub mem_ports: Vec<crate::iface::MemPort>,
    pub rw_mem_ports: Vec<crate::rtl::mem_arb::RwMemPort>,
    pub rst_port: &'static str,
    pub rst_active_low: bool,
    pub probes: Vec<crate::rtl::Probe>,
}

/// How to run one simulation.
#[derive(Debug, Clone)]
pub struct SimOptions {
    pub count: usize,
    pub seed: u64,
    pub gap: f64,
    pub stall: f64,
    /// Where to write an FST waveform, if wanted.
    pub trace: Option<PathBuf>,
    /// Build cache and run directories live here.
    pub work_dir: PathBuf,
    /// The memory model behind the unit's memory ports.
    pub mem: MemTiming,
    /// The traffic, for units that have several workloads (tex_cache).
    pub workload: Option<String>,
    /// Told what the run is doing, for a progress display; `None` runs silently.
    pub progress: Option<Progress>,
}

/// What a run is doing, as [`Progress`] hears it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Verilating and compiling the unit (or finding it in the cache).
    Build,
    /// The model working out the vectors and the expected outputs.
    Model,
    /// The simulator running: output transactions checked of all expected, and the clock
    /// (every [`PROGRESS_CLOCKS`] clocks, and once at the end).
    Run { done: u64, total: u64, cycle: u64 },
}

/// Clocks between two [`Stage::Run`] reports from the harness.
pub const PROGRESS_CLOCKS: u64 = 1 << 16;

/// A callback told each [`Stage`] of a run (the CLI draws a bar from it).
#[derive(Clone)]
pub struct Progress(pub std::sync::Arc<dyn Fn(Stage) + Send + Sync>);

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress")
    }
}

impl SimOptions {
    /// Tells [`SimOptions::progress`], if any, what the run does now.
    pub fn tell(&self, stage: Stage) {
        if let Some(p) = &self.progress {
            (p.0)(stage);
        }
    }
}

/// How the harness's memory model answers: latency, jitter, bandwidth, backpressure.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct MemTiming {
    /// Clocks from an accepted burst request to its first beat.
    pub latency: u64,
    /// Up to this many extra clocks per burst, drawn uniformly.
    pub jitter: u64,
    /// Probability that a beat slot is lost (1 - gap of the bus's bandwidth is used).
    pub gap: f64,
    /// Probability that the request ready is held low for a clock.
    pub stall: f64,
}

impl SimOptions {
    /// `count` items from `seed`, no input gaps, no output stalls, no trace, ideal memory.
    pub fn new(count: usize, seed: u64, work_dir: PathBuf) -> Self {
        Self {
            count,
            seed,
            gap: 0.0,
            stall: 0.0,
            trace: None,
            work_dir,
            mem: MemTiming::default(),
            workload: None,
            progress: None,
        }
    }

    /// `$GPURTL_SIM_DIR`, else `sim/build` under the current directory.
    pub fn default_work_dir() -> PathBuf {
        std::env::var_os("GPURTL_SIM_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("sim/build"))
    }
}

/// The harness's per-port counts.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PortReport {
    pub name: String,
    pub dir: String,
    pub transactions: u64,
    pub expected: u64,
    pub mismatches: u64,
    pub extra: u64,
    /// Longest clocks between two of its transactions (from reset to the first).
    #[serde(default)]
    pub longest_wait: u64,
    /// The clocks of its first and last transactions (outputs; 0 before any).
    #[serde(default)]
    pub first_transfer: u64,
    #[serde(default)]
    pub last_transfer: u64,
    /// It may wait for ever by the unit's policy ([`crate::model::Expectation::may_starve`]).
    #[serde(default)]
    pub may_starve: bool,
}

#[derive(Debug, Clone, Deserialize)]
struct HarnessReport {
    cycles: u64,
    passed: bool,
    ports: Vec<PortReport>,
    #[serde(default)]
    memory: Vec<MemReport>,
    #[serde(default)]
    probes: Vec<ProbeReport>,
    errors: Vec<String>,
}

/// A state probe's coverage: the clocks spent in each named state (from reset release to
/// the last output transfer) and in values with no name.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProbeReport {
    pub name: String,
    pub states: Vec<StateClocks>,
    pub unnamed: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StateClocks {
    pub name: String,
    pub clocks: u64,
}

impl ProbeReport {
    /// The states never entered.
    pub fn missing(&self) -> Vec<&str> {
        self.states
            .iter()
            .filter(|s| s.clocks == 0)
            .map(|s| s.name.as_str())
            .collect()
    }
}

/// What a memory port did.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct MemReport {
    pub name: String,
    /// Burst requests accepted.
    pub requests: u64,
    /// Beats delivered.
    pub beats: u64,
    /// Bursts accepted and not fully delivered when the run ended.
    pub outstanding: u64,
    /// Beats per clock over the run.
    #[serde(default)]
    pub utilization: f64,
    /// Read/write memory ports (mem_arb) only, absent elsewhere: beats each way, how often
    /// a burst of one requester followed a burst of another that was already requested
    /// and due, the idle clocks between such bursts (total and worst), and the end-of-run
    /// comparison of memory contents with the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_beats: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_beats: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switches: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switch_idle_total: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switch_idle_max: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_words: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_mismatches: Option<u64>,
    /// Read/write memory ports: bursts and beats per requester id (the arbiter's
    /// `mem_req_id_o`), for the per-requester share of the port.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub by_id: Vec<IdReport>,
}

/// One requester's traffic at a read/write memory port.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct IdReport {
    pub id: u64,
    /// The requester's name in `[mem]` (filled in where the config is known).
    #[serde(default)]
    pub name: String,
    pub read_bursts: u64,
    pub read_beats: u64,
    pub write_bursts: u64,
    pub write_beats: u64,
}

/// The texture cache's figures for one run: the tag model's counts (which the RTL matched
/// request by request) and the measured clocks.
#[derive(Debug, Clone, Serialize)]
pub struct CacheReport {
    pub workload: String,
    pub requests: u64,
    pub texels: u64,
    pub hit_rate: f64,
    pub misses: u64,
    /// Memory bytes fetched per texel delivered.
    pub bytes_per_texel: f64,
    /// Texels delivered per clock.
    pub texels_per_clock: f64,
    /// Clocks the bank mapping costs beyond one per request (model).
    pub bank_conflict_clocks: u64,
    /// Clocks beyond what the banks need: lost to misses, memory and stalls.
    pub miss_clocks: u64,
}

/// What `gpurtl sim --json` prints.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SimReport {
    pub unit: String,
    pub seed: u64,
    pub count: usize,
    pub gap: f64,
    pub stall: f64,
    /// Output transactions that arrived.
    pub transactions: u64,
    /// Wrong, extra or missing output transactions.
    pub mismatches: u64,
    /// Clocks from reset release to the last output transfer.
    pub cycles: u64,
    /// Output transactions per clock.
    pub throughput: f64,
    /// The cycle model's prediction for the same seed, gaps and stalls, where it has one.
    pub model_cycles: Option<u64>,
    pub model_throughput: Option<f64>,
    /// Items per clock with no gaps and no stalls.
    pub peak_rate: f64,
    pub passed: bool,
    pub errors: Vec<String>,
    pub ports: Vec<PortReport>,
    /// State coverage of the unit's probes (the IPU's control FSM).
    pub probes: Vec<ProbeReport>,
    /// Memory ports: requests, beats and bus utilisation.
    pub memory: Vec<MemReport>,
    /// For the texture cache: hit rate and where the clocks went.
    pub cache: Option<CacheReport>,
    /// Units with memory: clocks of the same run with an ideal memory (no latency, jitter,
    /// gaps or stalls), and throughput here over throughput there.
    pub zero_latency_cycles: Option<u64>,
    pub latency_ratio: Option<f64>,
    /// For the memory arbiter: port utilisation, idle clocks between requesters, waits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mem_arb: Option<mem_arb::MemArbReport>,
    pub build_dir: String,
    pub build_cached: bool,
    pub trace: Option<String>,
    /// Kept for reproduction when the run failed.
    pub vectors_dir: Option<String>,
}

pub fn find_unit<'a>(design: &'a Design, unit: &str) -> Result<&'a Unit, SimError> {
    design.unit(unit).ok_or_else(|| SimError::UnknownUnit {
        unit: unit.to_string(),
        available: design
            .units
            .iter()
            .map(|u| u.name)
            .collect::<Vec<_>>()
            .join(", "),
    })
}

/// `verilator --version`, as the build cache keys on it.
pub fn verilator_version() -> Result<String, SimError> {
    require_tool(
        "verilator",
        "install Debian's `verilator` package (`make deps` does)",
    )
}

fn require_tool(tool: &str, hint: &str) -> Result<String, SimError> {
    let out = Command::new(tool).arg("--version").output();
    match out {
        Ok(o) if o.status.success() => Ok(String::from_utf8_lossy(&o.stdout).trim().to_string()),
        _ => Err(SimError::MissingTool {
            tool: tool.into(),
            hint: hint.into(),
        }),
    }
}

/// Builds (or finds in the cache) the simulator of `unit`; returns its directory and
/// whether it was cached. The build key hashes every input, so a changed module, glue,
/// harness or Verilator version gets a build of its own.
pub fn build(
    cfg: &Config,
    design: &Design,
    unit: &Unit,
    trace: bool,
    work_dir: &Path,
) -> Result<(PathBuf, bool), SimError> {
    let version = require_tool(
        "verilator",
        "install Debian's `verilator` package (`make deps` does)",
    )?;
    require_tool("make", "install Debian's `make` package")?;
    let glue = Glue {
        stamp: crate::rtl::stamp(cfg),
        unit: unit.name.to_string(),
        top: unit.top.clone(),
        ports: unit
            .ports
            .iter()
            .map(|p| GluePort {
                name: p.name.clone(),
                width: p.width,
                input: p.dir == Dir::In,
            })
            .collect(),
        mem_ports: unit.mem_ports.clone(),
        rw_mem_ports: crate::units::rw_mem_ports(cfg, unit.name),
        rst_port: cfg.reset.port(),
        rst_active_low: cfg.reset.active == ResetActive::Low,
        probes: unit.probes.clone(),
    };
    let glue_text = crate::rtl::render_text("glue", &glue)?;
    let modules = design.unit_modules(unit);

    let mut key = format!("{version}\n{trace}\n{HARNESS_H}{RNG_H}{MAKEFILE}{glue_text}");
    for m in &modules {
        key.push_str(&m.name);
        key.push_str(&m.text);
    }
    let hash = sha256_hex(key.as_bytes());
    let dir = work_dir.join(format!("{}-{}", unit.name, &hash[..16]));
    if dir.join("Vsim").is_file() {
        return Ok((dir, true));
    }

    fs::create_dir_all(work_dir).map_err(io(format!("creating {}", work_dir.display())))?;
    // One build per hash at a time: parallel runs (tests, make -j) wait for the first.
    let _lock = BuildLock::acquire(&dir.with_extension("lock"))?;
    if dir.join("Vsim").is_file() {
        return Ok((dir, true));
    }
    let tmp = work_dir.join(format!(
        ".{}-{}.tmp-{}-{}",
        unit.name,
        &hash[..16],
        std::process::id(),
        next_id()
    ));
    let _ = fs::remove_dir_all(&tmp);
    fs::create_dir_all(&tmp).map_err(io(format!("creating {}", tmp.display())))?;
    let write = |name: &str, text: &str| {
        fs::write(tmp.join(name), text).map_err(io(format!("writing {name}")))
    };
    write("harness.h", HARNESS_H)?;
    write("rng.h", RNG_H)?;
    write("Makefile", MAKEFILE)?;
    write("glue.cpp", &glue_text)?;
    let mut vsrcs = Vec::new();
    for m in &modules {
        write(&m.file_name(), &m.text)?;
        vsrcs.push(m.file_name());
    }
    let mut make = Command::new("make");
    make.arg("-C")
        .arg(&tmp)
        .arg(format!("TOP={}", unit.top))
        .arg(format!("VSRCS={}", vsrcs.join(" ")))
        .arg(format!("TRACE={}", u8::from(trace)));
    if let Some(rt) = runtime(work_dir, trace, &version) {
        make.arg(format!("RUNTIME={}", rt.display()));
    }
    compiler_cache(&mut make, work_dir);
    let out = make.output().map_err(io("running make"))?;
    let log = tmp.join("build.log");
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    let _ = fs::write(&log, &text);
    if !out.status.success() {
        let tail: Vec<&str> = text.lines().rev().take(20).collect();
        return Err(SimError::Build {
            unit: unit.name.to_string(),
            log: log.display().to_string(),
            tail: tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
        });
    }
    let _ = fs::remove_dir_all(&dir); // an incomplete leftover, under our lock
    fs::rename(&tmp, &dir).map_err(io(format!("renaming {} into place", tmp.display())))?;
    Ok((dir, false))
}

/// Verilator's runtime objects, compiled once per Verilator version, Makefile and trace
/// setting under `work_dir` and linked into every build after that. None when they
/// cannot be built: each build then compiles its own, as Verilator does by default.
fn runtime(work_dir: &Path, trace: bool, version: &str) -> Option<PathBuf> {
    let key = format!("{version}\n{trace}\n{MAKEFILE}");
    // Absolute: the build's make runs in its own directory (`make -C`), and the default
    // work dir is relative.
    let dir = std::path::absolute(work_dir)
        .ok()?
        .join(format!("runtime-{}", &sha256_hex(key.as_bytes())[..16]));
    let ready =
        |d: &Path| d.join("verilated.o").is_file() && d.join("verilated_threads.o").is_file();
    if ready(&dir) {
        return Some(dir);
    }
    fs::create_dir_all(work_dir).ok()?;
    let _lock = BuildLock::acquire(&dir.with_extension("lock")).ok()?;
    if ready(&dir) {
        return Some(dir);
    }
    let tmp = work_dir.join(format!(".runtime.tmp-{}-{}", std::process::id(), next_id()));
    let _ = fs::remove_dir_all(&tmp);
    fs::create_dir_all(&tmp).ok()?;
    fs::write(tmp.join("Makefile"), MAKEFILE).ok()?;
    let ok = Command::new("make")
        .arg("-C")
        .arg(&tmp)
        .arg(format!("TRACE={}", u8::from(trace)))
        .arg("runtime")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok || !ready(&tmp) {
        let _ = fs::remove_dir_all(&tmp);
        return None;
    }
    let _ = fs::remove_dir_all(tmp.join("obj"));
    let _ = fs::remove_dir_all(&dir);
    fs::rename(&tmp, &dir).ok()?;
    Some(dir)
}

/// Puts ccache, when it is installed, before the C++ compiler of a build. Verilator splits
/// a model into many files and a mutant or a sweep point changes few of them, so most
/// objects come from the cache. The cache lives beside the builds (`make clean` removes
/// it) unless the user has one of their own (`CCACHE_DIR`); paths under the work dir are
/// hashed relative to it, so builds in different directories share objects.
fn compiler_cache(make: &mut Command, work_dir: &Path) {
    let found = Command::new("ccache")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let Ok(base) = std::path::absolute(work_dir) else {
        return;
    };
    if !found {
        return;
    }
    make.arg("CCACHE=ccache").env("CCACHE_BASEDIR", &base);
    if std::env::var_os("CCACHE_DIR").is_none() {
        make.env("CCACHE_DIR", base.join("ccache"));
    }
}

/// A lock file held while one process builds; removed on drop. A lock older than the
/// slowest plausible build is taken to be left by a killed process.
struct BuildLock {
    path: PathBuf,
}

impl BuildLock {
    const STALE: std::time::Duration = std::time::Duration::from_secs(900);

    fn acquire(path: &Path) -> Result<Self, SimError> {
        loop {
            match fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)
            {
                Ok(_) => {
                    return Ok(Self {
                        path: path.to_path_buf(),
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let age = fs::metadata(path)
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|t| t.elapsed().ok());
                    if age.is_some_and(|a| a > Self::STALE) {
                        let _ = fs::remove_file(path);
                    } else {
                        std::thread::sleep(std::time::Duration::from_millis(200));
                    }
                }
                Err(e) => return Err(io(format!("locking {}", path.display()))(e)),
            }
        }
    }
}

impl Drop for BuildLock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

fn next_id() -> u64 {
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// The read/write memory's row model (mem_arb's memory): a burst whose row (address >>
/// `bits`) differs from the previous burst's waits `penalty` more clocks. `bits = 0`: no
/// rows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct MemRows {
    pub bits: u64,
    pub penalty: u64,
}

/// Generates, builds, runs and compares one unit.
pub fn run(
    cfg: &Config,
    design: &Design,
    unit_name: &str,
    opt: &SimOptions,
) -> Result<SimReport, SimError> {
    run_rows(cfg, design, unit_name, opt, MemRows::default())
}

/// [`run`], with a row penalty in the read/write memory model.
pub fn run_rows(
    cfg: &Config,
    design: &Design,
    unit_name: &str,
    opt: &SimOptions,
    rows: MemRows,
) -> Result<SimReport, SimError> {
    let unit = find_unit(design, unit_name)?;
    opt.tell(Stage::Build);
    let (build_dir, build_cached) = build(cfg, design, unit, opt.trace.is_some(), &opt.work_dir)?;
    let mut report = run_built_rows(cfg, unit, &build_dir, build_cached, opt, rows)?;
    // A unit with memory is measured against the same run with an ideal memory too: the
    // ratio says how much of the latency the unit hides.
    if !unit.mem_ports.is_empty() && opt.mem != MemTiming::default() && report.passed {
        let ideal = SimOptions {
            mem: MemTiming::default(),
            trace: None,
            ..opt.clone()
        };
        let base = run_built_rows(cfg, unit, &build_dir, true, &ideal, MemRows::default())?;
        report.zero_latency_cycles = Some(base.cycles);
        report.latency_ratio = Some(ratio(base.cycles, report.cycles));
        report.passed &= base.passed;
        report.errors.extend(base.errors);
    }
    Ok(report)
}

/// Runs an already built simulator of `unit` with fresh vectors.
pub fn run_built(
    cfg: &Config,
    unit: &Unit,
    build_dir: &Path,
    build_cached: bool,
    opt: &SimOptions,
) -> Result<SimReport, SimError> {
    run_built_rows(cfg, unit, build_dir, build_cached, opt, MemRows::default())
}

/// [`run_built`], with a row penalty in the read/write memory model.
pub fn run_built_rows(
    cfg: &Config,
    unit: &Unit,
    build_dir: &Path,
    build_cached: bool,
    opt: &SimOptions,
    rows: MemRows,
) -> Result<SimReport, SimError> {
    opt.tell(Stage::Model);
    let vectors = units::vectors(cfg, unit.name, opt.count, opt.seed, opt.workload.as_deref())
        .ok_or_else(|| SimError::Run(format!("no model for unit {}", unit.name)))?;
    let expectation = units::expectation(cfg, unit, &vectors, opt.gap, opt.stall);
    let mut r = run_vectors_rows(
        unit,
        build_dir,
        build_cached,
        opt,
        &vectors,
        &expectation,
        rows,
    )?;
    // A read/write memory port's ids are the arbiter's requesters.
    if let Some(mem) = &cfg.mem {
        for e in r.memory.iter_mut().flat_map(|m| m.by_id.iter_mut()) {
            if let Some(q) = usize::try_from(e.id)
                .ok()
                .and_then(|i| mem.requesters.get(i))
            {
                e.name = q.name.clone();
            }
        }
    }
    Ok(r)
}

/// Runs an already built simulator of `unit` on the given vectors and expectation.
pub fn run_vectors(
    unit: &Unit,
    build_dir: &Path,
    build_cached: bool,
    opt: &SimOptions,
    vectors: &VectorSet,
    expectation: &model::Expectation,
) -> Result<SimReport, SimError> {
    run_vectors_rows(
        unit,
        build_dir,
        build_cached,
        opt,
        vectors,
        expectation,
        MemRows::default(),
    )
}

/// [`run_vectors`], with a row penalty in the read/write memory model.
pub fn run_vectors_rows(
    unit: &Unit,
    build_dir: &Path,
    build_cached: bool,
    opt: &SimOptions,
    vectors: &VectorSet,
    expectation: &model::Expectation,
    rows: MemRows,
) -> Result<SimReport, SimError> {
    let run_dir = opt.work_dir.join("runs").join(format!(
        "{}-seed{}-{}-{}",
        unit.name,
        opt.seed,
        std::process::id(),
        next_id()
    ));
    vectors
        .write(&run_dir)
        .map_err(io(format!("writing vectors to {}", run_dir.display())))?;
    let report_path = run_dir.join("report.json");

    let mut cmd = vsim_command(build_dir, &run_dir, &report_path, opt, expectation.capacity);
    if expectation.quiet > 0 {
        cmd.arg("--quiet").arg(expectation.quiet.to_string());
    }
    for (input, output, items) in &expectation.starts_after {
        cmd.arg("--start-after")
            .arg(format!("{input}={output}:{items}"));
    }
    for port in &expectation.may_starve {
        cmd.arg("--may-starve").arg(port);
    }
    if rows != MemRows::default() {
        cmd.arg("--mem-row-bits")
            .arg(rows.bits.to_string())
            .arg("--mem-row-penalty")
            .arg(rows.penalty.to_string());
    }
    if let Some(t) = &opt.trace {
        if let Some(parent) = t.parent() {
            fs::create_dir_all(parent).map_err(io(format!("creating {}", parent.display())))?;
        }
        cmd.arg("--trace").arg(t);
    }
    let out = match &opt.progress {
        None => cmd.output().map_err(io("running Vsim"))?,
        Some(p) => run_reporting(cmd, p)?,
    };
    let text = fs::read_to_string(&report_path).map_err(|e| {
        SimError::Run(format!(
            "no report from {} ({e}); exit {:?}; stderr: {}",
            build_dir.join("Vsim").display(),
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        ))
    })?;
    let h: HarnessReport = serde_json::from_str(&text)
        .map_err(|e| SimError::Run(format!("bad report {}: {e}", report_path.display())))?;

    let outs: Vec<&PortReport> = h.ports.iter().filter(|p| p.dir == "out").collect();
    let transactions: u64 = outs.iter().map(|p| p.transactions).sum();
    let missing: u64 = outs
        .iter()
        .map(|p| p.expected.saturating_sub(p.transactions))
        .sum();
    let image_mismatches: u64 = h.memory.iter().filter_map(|m| m.image_mismatches).sum();
    let mismatches =
        outs.iter().map(|p| p.mismatches + p.extra).sum::<u64>() + missing + image_mismatches;
    let throughput = ratio(transactions, h.cycles);
    let mut errors = h.errors;
    if let Some(mc) = expectation.cycles
        && h.passed
        && mc != h.cycles
    {
        errors.push(format!(
            "timing differs from the cycle model: RTL took {} clocks, model {mc}",
            h.cycles
        ));
    }
    for p in h.probes.iter().filter(|p| p.unnamed > 0) {
        errors.push(format!(
            "probe {}: {} clocks in a state with no name",
            p.name, p.unnamed
        ));
    }
    let passed = h.passed && errors.is_empty() && mismatches == 0;
    let vectors_dir = if passed {
        let _ = fs::remove_dir_all(&run_dir);
        None
    } else {
        Some(run_dir.display().to_string())
    };
    Ok(SimReport {
        unit: unit.name.to_string(),
        seed: opt.seed,
        count: opt.count,
        gap: opt.gap,
        stall: opt.stall,
        transactions,
        mismatches,
        cycles: h.cycles,
        throughput,
        model_cycles: expectation.cycles,
        model_throughput: expectation
            .cycles
            // The items the model expects on the outputs, over its clocks.
            .map(|c| ratio(outs.iter().map(|p| p.expected).sum(), c)),
        peak_rate: expectation.peak_rate,
        passed,
        errors,
        ports: h.ports,
        probes: h.probes,
        cache: expectation.cache.map(|c| CacheReport {
            workload: opt.workload.clone().unwrap_or_else(|| "mixed".into()),
            requests: c.requests,
            texels: c.texels,
            hit_rate: c.hit_rate(),
            misses: c.misses,
            bytes_per_texel: c.bytes_per_texel(),
            texels_per_clock: ratio(c.texels, h.cycles),
            bank_conflict_clocks: c.bank_clocks.saturating_sub(c.requests),
            miss_clocks: h.cycles.saturating_sub(c.bank_clocks),
        }),
        zero_latency_cycles: None,
        latency_ratio: None,
        mem_arb: None,
        memory: h
            .memory
            .into_iter()
            .map(|mut m| {
                m.utilization = ratio(m.beats, h.cycles);
                m
            })
            .collect(),
        build_dir: build_dir.display().to_string(),
        build_cached,
        trace: opt.trace.as_ref().map(|t| t.display().to_string()),
        vectors_dir,
    })
}

/// Runs the harness with `--progress`, telling `p` each report line as it comes; the
/// other lines of its stderr are kept, as `output()` keeps them.
fn run_reporting(mut cmd: Command, p: &Progress) -> Result<std::process::Output, SimError> {
    use std::io::BufRead;
    use std::process::Stdio;
    cmd.arg("--progress")
        .arg(PROGRESS_CLOCKS.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(io("running Vsim"))?;
    // stdout is read on its own thread, so that neither pipe can fill while the other
    // is read.
    let mut stdout = child.stdout.take().expect("piped stdout");
    let out_thread = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stdout, &mut buf);
        buf
    });
    let mut stderr = Vec::new();
    let reader = std::io::BufReader::new(child.stderr.take().expect("piped stderr"));
    for line in reader.lines() {
        let line = line.map_err(io("reading Vsim's stderr"))?;
        match parse_progress(&line) {
            Some(stage) => (p.0)(stage),
            None => {
                stderr.extend_from_slice(line.as_bytes());
                stderr.push(b'\n');
            }
        }
    }
    let status = child.wait().map_err(io("waiting for Vsim"))?;
    let stdout = out_thread.join().unwrap_or_default();
    Ok(std::process::Output {
        status,
        stdout,
        stderr,
    })
}

/// A harness line `progress <done> <total> <clock>`.
fn parse_progress(line: &str) -> Option<Stage> {
    let mut it = line.strip_prefix("progress ")?.split(' ');
    let mut next = || it.next()?.parse::<u64>().ok();
    let (done, total, cycle) = (next()?, next()?, next()?);
    Some(Stage::Run { done, total, cycle })
}

/// The harness command line for one run: vectors in `run_dir`, the report to `report`.
/// Extra outputs are watched for the unit's capacity plus a margin after the last one.
pub fn vsim_command(
    build_dir: &Path,
    run_dir: &Path,
    report: &Path,
    opt: &SimOptions,
    capacity: u64,
) -> Command {
    let mut cmd = Command::new(build_dir.join("Vsim"));
    cmd.arg("--vectors")
        .arg(run_dir)
        .arg("--report")
        .arg(report)
        .arg("--seed")
        .arg(opt.seed.to_string())
        // `{:?}` prints the shortest text that parses back to the same double, so the
        // harness draws against exactly the probability the model replays.
        .arg("--gap")
        .arg(format!("{:?}", opt.gap))
        .arg("--stall")
        .arg(format!("{:?}", opt.stall))
        .arg("--drain")
        .arg((capacity + 64).to_string())
        .arg("--mem-latency")
        .arg(opt.mem.latency.to_string())
        .arg("--mem-jitter")
        .arg(opt.mem.jitter.to_string())
        .arg("--mem-gap")
        .arg(format!("{:?}", opt.mem.gap))
        .arg("--mem-stall")
        .arg(format!("{:?}", opt.mem.stall));
    cmd
}

fn ratio(n: u64, d: u64) -> f64 {
    if d == 0 { 0.0 } else { n as f64 / d as f64 }
}
