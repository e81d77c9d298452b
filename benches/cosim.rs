//! Co-simulation speed and throughput against the cycle model.
//!
//! Builds the Verilator simulator through the library (`gpurtl::sim::build`), then runs
//! it with `gpurtl::sim::run_built`. Only runs under `cargo bench --bench cosim` (the
//! `--bench` flag cargo passes); under `cargo test` it prints a note and returns.
//!
//! Timings per run:
//! - `run_built`: the whole library call: model vectors, vector files, the cycle model's
//!   prediction, the Vsim process, reading its report (best of `RUN_REPEATS`).
//! - its parts, repeated here one by one: `units::vectors`, writing the files,
//!   `units::expectation`, and the Vsim process alone, started with the arguments
//!   `run_built` gives it (best of `REPEATS`);
//! - `Vsim load`: the same process with `--max-errors 0`, which loads the vector files and
//!   writes its report but clocks nothing; `Vsim - load` is the clocked loop alone.
//!
//! Environment: `GPURTL_BENCH_ITEMS` overrides the item count (default 1,000,000).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use gpurtl::config::{self, Config};
use gpurtl::rtl::{Design, Unit};
use gpurtl::sim::{self, SimOptions, SimReport};
use gpurtl::units;

const SEED: u64 = 1;
/// `run_built` is timed best of `RUN_REPEATS`, the bare Vsim process best of `REPEATS`.
const RUN_REPEATS: usize = 3;
const REPEATS: usize = 5;
const UNIT: &str = "hs_chain";

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("cosim: skipped (run it with `cargo bench --bench cosim`)");
        return;
    }
    let count: usize = std::env::var("GPURTL_BENCH_ITEMS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let work_dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("bench-sim");
    let mut failed = false;
    println!("load average at start: {}", loadavg());

    // Default chain: speed and throughput.
    let cfg = config::parse(config::DEFAULT_TOML, config::DEFAULT_ORIGIN).expect("default preset");
    let design = units::elaborate(&cfg).expect("elaborate");
    let (build_dir, cached, build_time) = build(&cfg, &design, &work_dir);
    let stages: Vec<String> = cfg
        .hs_chain
        .as_ref()
        .map(|c| c.stages.iter().map(|s| s.label()).collect())
        .unwrap_or_default();
    println!(
        "Default chain [{}], width 32, {count} items, seed {SEED}",
        stages.join(", ")
    );
    println!(
        "build: {} ({})",
        secs(build_time),
        if cached { "cached" } else { "verilated" }
    );
    let mut speed = Vec::new();
    println!();
    println!(
        "| gap | stall | cycles | model cycles | items/clk | model items/clk | peak | passed |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (gap, stall) in [(0.0, 0.0), (0.3, 0.3), (0.9, 0.0), (0.0, 0.9)] {
        let opt = options(count, gap, stall, &work_dir);
        let mut t_run = Duration::MAX;
        let mut r = None;
        for _ in 0..RUN_REPEATS {
            let t = Instant::now();
            let report = run(&cfg, &design, &build_dir, cached, &opt);
            t_run = t_run.min(t.elapsed());
            r = Some(report);
        }
        let r = r.expect("at least one run");
        failed |= !r.passed;
        println!(
            "| {gap} | {stall} | {} | {} | {:.4} | {} | {} | {} |",
            r.cycles,
            opt_u64(r.model_cycles),
            r.throughput,
            opt_f64(r.model_throughput),
            r.peak_rate,
            verdict(&r),
        );
        let unit = design.unit(UNIT).expect("unit");
        let parts = time_parts(&cfg, unit, &build_dir, &opt, r.cycles);
        speed.push((gap, stall, r.cycles, t_run, parts));
    }

    println!();
    println!(
        "Wall time: run_built best of {RUN_REPEATS}; its parts timed separately (Vsim and \
         load best of {REPEATS}). Mcycles/s = simulated clocks / wall time."
    );
    println!();
    println!(
        "| gap | stall | cycles | run_built s | vectors s | write s | cycle model s | Vsim s | Vsim load s | Mcycles/s run_built | Mcycles/s Vsim | Mcycles/s Vsim - load |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (gap, stall, cycles, t_run, p) in &speed {
        let mc = |d: Duration| *cycles as f64 / d.as_secs_f64() / 1e6;
        println!(
            "| {gap} | {stall} | {cycles} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
            t_run.as_secs_f64(),
            p.vectors.as_secs_f64(),
            p.write.as_secs_f64(),
            p.model.as_secs_f64(),
            p.vsim.as_secs_f64(),
            p.load.as_secs_f64(),
            mc(*t_run),
            mc(p.vsim),
            mc(p.vsim.saturating_sub(p.load)),
        );
    }

    // One stage of each kind.
    println!();
    println!("One-stage chains, width 32, {count} items, seed {SEED}");
    println!();
    println!(
        "| kind | build s | gap | stall | cycles | model cycles | items/clk | model items/clk | peak | passed |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for kind in ["bypass", "bubble", "skid", "fifo:1", "fifo:2", "fifo:4"] {
        let toml = format!(
            "[design]\nname = \"bench_{}\"\nmodule_prefix = \"b_\"\n[hs_chain]\nwidth = 32\nstages = [\"{kind}\"]\n",
            kind.replace(':', "")
        );
        let cfg = config::parse(&toml, kind).expect("one-stage config");
        let design = units::elaborate(&cfg).expect("elaborate");
        let (build_dir, cached, build_time) = build(&cfg, &design, &work_dir);
        for (gap, stall) in [(0.0, 0.0), (0.3, 0.3)] {
            let opt = options(count, gap, stall, &work_dir);
            let r = run(&cfg, &design, &build_dir, cached, &opt);
            failed |= !r.passed;
            println!(
                "| {kind} | {} | {gap} | {stall} | {} | {} | {:.4} | {} | {} | {} |",
                if cached {
                    "cached".to_string()
                } else {
                    format!("{:.1}", build_time.as_secs_f64())
                },
                r.cycles,
                opt_u64(r.model_cycles),
                r.throughput,
                opt_f64(r.model_throughput),
                r.peak_rate,
                verdict(&r),
            );
        }
    }
    println!();
    println!("load average at end: {}", loadavg());
    if failed {
        eprintln!("cosim: some runs did not pass");
        std::process::exit(1);
    }
}

fn build(cfg: &Config, design: &Design, work_dir: &Path) -> (PathBuf, bool, Duration) {
    let unit = sim::find_unit(design, UNIT).expect("unit");
    let t = Instant::now();
    let (dir, cached) =
        sim::build(cfg, design, unit, false, work_dir).unwrap_or_else(|e| panic!("build: {e}"));
    (dir, cached, t.elapsed())
}

fn options(count: usize, gap: f64, stall: f64, work_dir: &Path) -> SimOptions {
    SimOptions {
        gap,
        stall,
        ..SimOptions::new(count, SEED, work_dir.to_path_buf())
    }
}

fn run(
    cfg: &Config,
    design: &Design,
    build_dir: &Path,
    cached: bool,
    opt: &SimOptions,
) -> SimReport {
    let unit = sim::find_unit(design, UNIT).expect("unit");
    sim::run_built(cfg, unit, build_dir, cached, opt).unwrap_or_else(|e| panic!("run: {e}"))
}

/// The parts of one `run_built`, timed one by one.
struct Parts {
    /// `units::vectors`: stimulus and expected output.
    vectors: Duration,
    /// Writing the vector files.
    write: Duration,
    /// `units::expectation`: the cycle model's prediction.
    model: Duration,
    /// The Vsim process, best of `REPEATS`.
    vsim: Duration,
    /// The Vsim process with `--max-errors 0`: loads the vectors, clocks nothing.
    load: Duration,
}

/// Repeats what `run_built` does step by step, timing each step; Vsim is started with the
/// arguments `run_built` gives it, and must report the same clocks.
fn time_parts(cfg: &Config, unit: &Unit, build_dir: &Path, opt: &SimOptions, cycles: u64) -> Parts {
    let t = Instant::now();
    let vectors = units::vectors(cfg, UNIT, opt.count, opt.seed, None).expect("vectors");
    let t_vectors = t.elapsed();
    let dir = opt.work_dir.join("runs").join(format!(
        "bench-{}-{}-{}",
        std::process::id(),
        opt.gap,
        opt.stall
    ));
    let t = Instant::now();
    vectors.write(&dir).expect("writing vectors");
    let t_write = t.elapsed();
    let t = Instant::now();
    let expectation = units::expectation(cfg, unit, &vectors, opt.gap, opt.stall);
    let t_model = t.elapsed();
    assert_eq!(
        expectation.cycles,
        Some(cycles),
        "the cycle model disagrees with run_built"
    );

    let report = dir.join("bench-report.json");
    let vsim = |extra: &[&str]| {
        let mut best = Duration::MAX;
        let mut reported = 0;
        for _ in 0..REPEATS {
            let t = Instant::now();
            let out = sim::vsim_command(build_dir, &dir, &report, opt, expectation.capacity)
                .args(extra)
                .output()
                .expect("running Vsim");
            best = best.min(t.elapsed());
            assert!(out.status.success(), "Vsim failed: {out:?}");
            let text = std::fs::read_to_string(&report).expect("Vsim report");
            let json: serde_json::Value = serde_json::from_str(&text).expect("report json");
            reported = json["cycles"].as_u64().unwrap_or(u64::MAX);
        }
        (best, reported)
    };
    let (full, full_cycles) = vsim(&[]);
    assert_eq!(
        full_cycles, cycles,
        "direct Vsim run took other clocks than run_built's"
    );
    let (load, load_cycles) = vsim(&["--max-errors", "0"]);
    assert_eq!(load_cycles, 0, "--max-errors 0 still clocked");
    let _ = std::fs::remove_dir_all(&dir);
    Parts {
        vectors: t_vectors,
        write: t_write,
        model: t_model,
        vsim: full,
        load,
    }
}

/// `/proc/loadavg`'s 1, 5 and 15 minute figures: other work on the machine skews timings.
fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn verdict(r: &SimReport) -> &'static str {
    match (r.passed, r.model_cycles == Some(r.cycles)) {
        (true, true) => "yes (cycle-exact)",
        (true, false) => "yes",
        (false, _) => "NO",
    }
}

fn secs(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

fn opt_u64(v: Option<u64>) -> String {
    v.map_or("-".into(), |v| v.to_string())
}

fn opt_f64(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{v:.4}"))
}
