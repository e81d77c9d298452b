//! `gpurtl sweep`: points from TOML knobs, run here in parallel or emitted as a Slurm
//! job array, gathered into results.csv, results.json and plots.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

use super::{Failure, failure, usage};
use crate::config::{self, DEFAULT_ORIGIN, DEFAULT_TOML};
use crate::emit::{self, OutFile};
use crate::rtl::GENERATOR;
use crate::sweep::{
    self, Axis, Plan, PointResult, Settings, Spec, SynthSettings, plot, report, slurm,
};
use crate::synth::Target;
use crate::units;

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct SweepArgs {
    #[command(subcommand)]
    pub action: Option<SweepCmd>,
    /// The base config [default: the embedded configs/default.toml].
    #[arg(long, short = 'c', value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// KEY=VALUES: a dotted TOML key (tmu.cache.size_bytes, mem.requesters[0].max_burst)
    /// and TOML literals (bare words are strings) or ranges: A..B+S (arithmetic),
    /// A..B*K (geometric). Repeat for more keys: the points are their product.
    #[arg(long = "set", value_name = "KEY=VALUES", required = true)]
    pub set: Vec<String>,
    /// Pair the lists element by element instead of taking their product.
    #[arg(long)]
    pub zip: bool,
    /// The unit to measure.
    #[arg(long, short = 'u', required = true)]
    pub unit: Option<String>,
    /// A workload (tex_cache, mem_arb); repeat for several [default: the unit's default traffic].
    #[arg(long, short = 'w', value_name = "NAME")]
    pub workload: Vec<String>,
    /// Items of stimulus per run.
    #[arg(long, short = 'n', default_value_t = 1000, value_parser = super::parse_count)]
    pub count: usize,
    /// Seed of the stimulus and of the gaps and stalls.
    #[arg(long, short = 's', default_value_t = 1)]
    pub seed: u64,
    /// Input gap probability, as `gpurtl sim --gap`.
    #[arg(long, default_value_t = 0.0, value_parser = super::parse_probability)]
    pub gap: f64,
    /// Output stall probability, as `gpurtl sim --stall`.
    #[arg(long, default_value_t = 0.0, value_parser = super::parse_probability)]
    pub stall: f64,
    /// Memory latency in clocks [default: each point's `[mem] latency`, else 100].
    #[arg(long, value_name = "CLOCKS")]
    pub mem_latency: Option<u64>,
    /// The Rust model alone, no Verilator: hit rate and bytes per texel, and items per
    /// clock where the model is cycle exact.
    #[arg(long)]
    pub model_only: bool,
    /// Also take each point through `gpurtl synth` on this target (area and Fmax).
    #[arg(long, value_enum, value_name = "TARGET")]
    pub synth: Option<Target>,
    /// Placement seeds per point with --synth (ecp5, ice40).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=50))]
    pub seeds: u32,
    /// Points at once [default: the core count].
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// Output directory (replaced atomically at the end).
    #[arg(
        long,
        short = 'o',
        value_name = "DIR",
        required_unless_present = "emit_slurm"
    )]
    pub out: Option<PathBuf>,
    /// Write the plan, the point configs and an sbatch job-array script into DIR, and run
    /// nothing.
    #[arg(long, value_name = "DIR", conflicts_with = "out")]
    pub emit_slurm: Option<PathBuf>,
    /// Print results.json on stdout instead of the table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Subcommand, Debug)]
pub enum SweepCmd {
    /// Gather the finished tasks of an emitted sweep into results and plots.
    Collect {
        dir: PathBuf,
        /// Print results.json on stdout instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// Run one point of an emitted sweep (what each Slurm array task runs).
    Task {
        dir: PathBuf,
        #[arg(long)]
        index: usize,
    },
}

pub fn run(args: &SweepArgs) -> Result<u8, Failure> {
    match &args.action {
        Some(SweepCmd::Collect { dir, json }) => collect(dir, *json),
        Some(SweepCmd::Task { dir, index }) => task(dir, *index),
        None => sweep(args),
    }
}

/// Everything checked before anything is written: the base, the keys, the unit, the
/// workloads and the tools.
fn plan_of(args: &SweepArgs) -> Result<Plan, Failure> {
    let (origin, text) = match &args.config {
        None => (DEFAULT_ORIGIN.to_string(), DEFAULT_TOML.to_string()),
        Some(p) => (
            p.display().to_string(),
            std::fs::read_to_string(p)
                .map_err(|e| usage(anyhow::anyhow!("cannot read config {}: {e}", p.display())))?,
        ),
    };
    let axes = args
        .set
        .iter()
        .map(|s| Axis::parse(s))
        .collect::<Result<Vec<_>, _>>()
        .map_err(usage)?;
    let spec = Spec::new(&origin, &text, axes, args.zip).map_err(usage)?;
    let unit = args.unit.clone().unwrap_or_default();
    let Some(def) = units::find(&unit) else {
        let names: Vec<&str> = units::UNITS.iter().map(|u| u.name()).collect();
        return Err(usage(anyhow::anyhow!(
            "unknown unit `{unit}`; allowed: {}",
            names.join(", ")
        )));
    };
    let base = config::parse(&text, &origin).map_err(usage)?;
    let design = units::elaborate(&base).map_err(failure)?;
    if design.unit(&unit).is_none() {
        let names: Vec<&str> = design.units.iter().map(|u| u.name).collect();
        return Err(usage(anyhow::anyhow!(
            "no unit `{unit}` in the base config {origin}; its units: {}",
            names.join(", ")
        )));
    }
    let allowed = def.workloads();
    for w in &args.workload {
        if !allowed.contains(&w.as_str()) {
            return Err(usage(anyhow::anyhow!(
                "unknown workload `{w}` for {unit}; allowed: {}",
                if allowed.is_empty() {
                    "none (this unit has one traffic)".into()
                } else {
                    allowed.join(", ")
                }
            )));
        }
    }
    if let Some(t) = args.synth {
        crate::synth::check_tools(t).map_err(usage)?;
    }
    if !args.model_only && args.emit_slurm.is_none() {
        crate::sim::verilator_version().map_err(usage)?;
    }
    Ok(Plan {
        generator: GENERATOR.to_string(),
        spec,
        settings: Settings {
            unit,
            workloads: args.workload.clone(),
            count: args.count,
            seed: args.seed,
            gap: args.gap,
            stall: args.stall,
            mem_latency: args.mem_latency,
            model_only: args.model_only,
            synth: args.synth.map(|target| SynthSettings {
                target,
                seeds: args.seeds,
            }),
        },
    })
}

fn plan_files(plan: &Plan) -> Vec<OutFile> {
    let total = plan.spec.count();
    let mut files = vec![file(
        "sweep.json",
        serde_json::to_string_pretty(plan).unwrap_or_default() + "\n",
        "plan",
    )];
    for p in plan.spec.points() {
        files.push(file(&sweep::point_file(&p, total), p.text, "config"));
    }
    files
}

fn file(name: &str, text: impl Into<Vec<u8>>, what: &'static str) -> OutFile {
    let bytes = text.into();
    OutFile {
        name: name.to_string(),
        lines: bytes.iter().filter(|b| **b == b'\n').count(),
        bytes,
        what,
    }
}

fn sweep(args: &SweepArgs) -> Result<u8, Failure> {
    let plan = plan_of(args)?;
    if let Some(dir) = &args.emit_slurm {
        return emit_slurm(&plan, dir);
    }
    let dir = args.out.clone().unwrap_or_default();
    let work_dir = sweep::default_work_dir();
    let total = plan.spec.count();
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    if !args.json {
        eprintln!(
            "sweep {}: {total} point(s) x {} run(s) of {}, {jobs} at once{}",
            plan.spec,
            plan.settings.runs().len(),
            plan.settings.unit,
            if plan.settings.model_only {
                ", model only"
            } else {
                ""
            }
        );
    }
    let bar = (!args.json && std::io::stderr().is_terminal()).then(|| {
        let b = ProgressBar::new(total as u64);
        b.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} points  {per_sec}  eta {eta}  {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b.enable_steady_tick(std::time::Duration::from_millis(200));
        b
    });
    let note = |m: &str| {
        if let Some(b) = &bar {
            b.set_message(m.to_string());
        }
    };
    let done = || {
        if let Some(b) = &bar {
            b.inc(1);
        }
    };
    let results: Vec<Option<PointResult>> =
        sweep::run_points(&plan, &dir, &work_dir, jobs, &note, &done)
            .map_err(failure)?
            .into_iter()
            .map(Some)
            .collect();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if !args.json {
        let computed: usize = results.iter().flatten().map(|r| r.computed).sum();
        let runs: usize = results.iter().flatten().map(|r| r.runs.len()).sum();
        eprintln!(
            "runs: {computed} computed, {} from the cache ({})",
            runs - computed,
            work_dir.join("sweep-cache").display()
        );
    }
    let mut files = plan_files(&plan);
    let code = finish(&plan, &results, &dir, &mut files, args.json)?;
    emit::write_atomic(&dir, &files).map_err(failure)?;
    if !args.json {
        println!(
            "wrote {}/ (results.csv, results.json, points/, plots/)",
            dir.display()
        );
    }
    Ok(code)
}

/// Rows, tables and plots from results; adds the output files; the exit code (1 when a
/// point failed or is missing).
fn finish(
    plan: &Plan,
    results: &[Option<PointResult>],
    dir: &Path,
    files: &mut Vec<OutFile>,
    json: bool,
) -> Result<u8, Failure> {
    let got: Vec<PointResult> = results.iter().flatten().cloned().collect();
    let tools = sweep::tool_versions(&plan.settings, &got);
    let rows = report::rows(plan, results);
    let (plots, notes) = plot::plots(plan, &rows).map_err(|e| failure(anyhow::anyhow!(e)))?;
    let results_json = report::json(plan, &rows, &tools);
    files.push(file(
        "results.csv",
        report::csv(plan, &rows, &tools),
        "results",
    ));
    files.push(file("results.json", results_json.clone(), "results"));
    for p in plots {
        files.push(file(&p.name, p.bytes, "plot"));
    }
    let failed: Vec<&report::Row> = rows
        .iter()
        .filter(|r| matches!(r.status, report::Status::Failed | report::Status::Missing))
        .collect();
    if json {
        print!("{}", String::from_utf8_lossy(&results_json));
    } else {
        print!("{}", report::table(plan, &rows));
        let invalid = rows
            .iter()
            .filter(|r| r.status == report::Status::Invalid)
            .count();
        if invalid > 0 {
            println!(
                "{invalid} row(s) of points whose config does not validate (their errors are in results.csv)"
            );
        }
        for r in &failed {
            println!(
                "{} {} {}: {}",
                r.point,
                r.workload,
                r.status.name(),
                r.error.as_deref().unwrap_or("")
            );
            if let Some(line) = &r.reproduce {
                println!("  reproduce: {line}");
            }
        }
        let n_plots = files.iter().filter(|f| f.what == "plot").count();
        if n_plots > 0 {
            println!("plots: {}/plots/ ({n_plots} files)", dir.display());
        }
        for n in notes {
            println!("{n}");
        }
        println!("tools: {}", tools.join("; "));
    }
    Ok(if failed.is_empty() { 0 } else { 1 })
}

fn emit_slurm(plan: &Plan, dir: &Path) -> Result<u8, Failure> {
    let abs = std::path::absolute(dir).map_err(failure)?;
    let exe = std::env::current_exe().map_err(failure)?;
    let cwd = std::env::current_dir().map_err(failure)?;
    let mut files = plan_files(plan);
    files.push(file(
        "sweep.sbatch",
        slurm::script(plan, &abs, &exe, &cwd),
        "sbatch",
    ));
    emit::write_atomic(dir, &files).map_err(failure)?;
    let r = slurm::TaskResources::for_plan(plan);
    println!(
        "wrote {}/: sweep.json, {} point config(s) in points/, sweep.sbatch ({} array task(s), each {} CPU, {} GiB, {} min)",
        dir.display(),
        plan.spec.count(),
        plan.spec.count(),
        r.cpus,
        r.mem_gib,
        r.minutes
    );
    println!("submit: sbatch {}", abs.join("sweep.sbatch").display());
    println!("then:   gpurtl sweep collect {}", dir.display());
    Ok(0)
}

/// One array task: evaluates its point and leaves the result for `collect`.
fn task(dir: &Path, index: usize) -> Result<u8, Failure> {
    let plan = Plan::read(dir).map_err(|e| usage(anyhow::anyhow!(e)))?;
    let total = plan.spec.count();
    if index >= total {
        return Err(usage(anyhow::anyhow!(
            "--index {index}: the sweep has {total} point(s)"
        )));
    }
    let point = plan.spec.point(index);
    let r = sweep::evaluate(
        &point,
        total,
        &plan.settings,
        dir,
        &sweep::default_work_dir(),
        &|m| eprintln!("{m}"),
    );
    let path = dir.join(slurm::result_file(&plan, index));
    sweep::write_file_atomic(
        &path,
        (serde_json::to_string_pretty(&r).unwrap_or_default() + "\n").as_bytes(),
    )
    .map_err(failure)?;
    eprintln!("wrote {}", path.display());
    Ok(if r.failed() { 1 } else { 0 })
}

fn collect(dir: &Path, json: bool) -> Result<u8, Failure> {
    let plan = Plan::read(dir).map_err(|e| usage(anyhow::anyhow!(e)))?;
    let results = slurm::read_results(&plan, dir);
    let missing: Vec<String> = results
        .iter()
        .enumerate()
        .filter(|(_, r)| r.is_none())
        .map(|(i, _)| {
            format!(
                "{} (array task {i})",
                plan.spec.point(i).id(plan.spec.count())
            )
        })
        .collect();
    let mut files = Vec::new();
    let code = finish(&plan, &results, dir, &mut files, json)?;
    // Into DIR beside the plan and points: each file through a temp file and a rename,
    // and the plots as one directory replaced whole.
    let (plots, rest): (Vec<OutFile>, Vec<OutFile>) = files
        .into_iter()
        .partition(|f| f.name.starts_with("plots/"));
    for f in rest {
        sweep::write_file_atomic(&dir.join(&f.name), &f.bytes).map_err(failure)?;
    }
    let plots: Vec<OutFile> = plots
        .into_iter()
        .map(|f| OutFile {
            name: f.name.trim_start_matches("plots/").to_string(),
            ..f
        })
        .collect();
    emit::write_atomic(&dir.join("plots"), &plots).map_err(failure)?;
    if !json {
        println!(
            "collected {} of {} task(s) into {}/",
            results.len() - missing.len(),
            results.len(),
            dir.display()
        );
        if !missing.is_empty() {
            println!("missing: {}", missing.join(", "));
        }
    }
    Ok(code)
}
