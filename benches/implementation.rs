//! Every unit of every preset through the implementation flow (`gpurtl synth`'s library
//! entry point): ECP5-85F speed 6 out of context over three placement seeds, and the OSU
//! 0.18 um ASIC estimate; prints the BENCHMARKS.md table rows.
//!
//! `cargo bench --bench implementation`; `GPURTL_BENCH_PRESETS=default,wide` picks presets
//! (`default` is the embedded one; `random` is every config beyond the presets that the
//! tool checks cover, tests/common/configs.rs), `GPURTL_BENCH_TARGETS=ecp5` the targets,
//! `GPURTL_BENCH_SEEDS=0` synthesis only (with `check -assert` and no latch, as every run),
//! `GPURTL_BENCH_UNITS=tmu` (or `-tmu`, all but) the units, `GPURTL_BENCH_CONFIGS=mem` (or
//! `-mem`) the configs by name prefix, `GPURTL_BENCH_JOBS=1` the
//! tool processes at once, `GPURTL_BENCH_JSON=FILE` keeps the
//! whole reports. Runs are
//! cached in sim/build/synth, so an interrupted run resumes. Only does work when cargo
//! passes `--bench`.

use std::path::Path;

use gpurtl::config::{self, Config};
use gpurtl::synth::{self, Options, Target, UnitReport};
use gpurtl::units;

#[path = "../tests/common/configs.rs"]
mod configs;
mod shared;

/// A preset's configs as (name, config): the file's, or every `random` one.
fn preset_configs(preset: &str) -> Vec<(String, Config)> {
    if preset == "random" {
        return configs::all()
            .into_iter()
            .map(|(name, toml)| {
                let cfg = config::parse(&toml, &name).unwrap_or_else(|e| panic!("{name}: {e}"));
                (name, cfg)
            })
            .collect();
    }
    let file = Path::new("configs").join(format!("{preset}.toml"));
    let cfg = config::load(Some(&file)).unwrap_or_else(|e| panic!("{preset}: {e}"));
    vec![(preset.to_string(), cfg)]
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("implementation: skipped (run it with `cargo bench --bench implementation`)");
        return;
    }
    let presets: Vec<String> = std::env::var("GPURTL_BENCH_PRESETS")
        .map(|v| v.split(',').map(String::from).collect())
        .unwrap_or_else(|_| {
            let mut v: Vec<String> = std::fs::read_dir("configs")
                .expect("configs/")
                .filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
                .collect();
            v.sort();
            v
        });
    let targets: Vec<Target> = std::env::var("GPURTL_BENCH_TARGETS")
        .map(|v| {
            v.split(',')
                .map(|t| match t {
                    "ecp5" => Target::Ecp5,
                    "asic" => Target::Asic,
                    "xilinx7" => Target::Xilinx7,
                    "ice40" => Target::Ice40,
                    "generic" => Target::Generic,
                    other => panic!("unknown target {other}"),
                })
                .collect()
        })
        .unwrap_or_else(|_| vec![Target::Ecp5, Target::Asic]);
    let progress = shared::synth_progress;
    let seeds: u32 = std::env::var("GPURTL_BENCH_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let mut rows = Vec::new();
    let mut failed = Vec::new();
    // GPURTL_BENCH_CONFIGS=cache-rand,mem (or `-cache-rand`: all but) picks configs by
    // name prefix: a long `random` run can be split or resumed.
    let only = std::env::var("GPURTL_BENCH_CONFIGS").unwrap_or_default();
    let keep_config = |name: &str| match only.strip_prefix('-') {
        Some(skip) => !skip.split(',').any(|s| name.starts_with(s)),
        None => only.is_empty() || only.split(',').any(|s| name.starts_with(s)),
    };
    for (preset, cfg) in presets
        .iter()
        .flat_map(|p| preset_configs(p))
        .filter(|(name, _)| keep_config(name))
    {
        let preset = &preset;
        let design = units::elaborate(&cfg).expect("renders");
        // GPURTL_BENCH_UNITS=tmu (or `-tmu`: all but the TMU) picks units.
        let pick = std::env::var("GPURTL_BENCH_UNITS").unwrap_or_default();
        let keep = |u: &str| match pick.strip_prefix('-') {
            Some(skip) => !skip.split(',').any(|s| s == u),
            None => pick.is_empty() || pick.split(',').any(|s| s == u),
        };
        let units: Vec<String> = design
            .units
            .iter()
            .map(|u| u.name.to_string())
            .filter(|u| keep(u))
            .collect();
        for &target in &targets {
            eprintln!("{preset}: {} on {} units", target.name(), units.len());
            let mut opt = Options {
                target,
                seeds,
                ..Options::default()
            };
            // GPURTL_BENCH_JOBS=1 leaves a core for other work (Fmax does not depend on it).
            if let Some(j) = std::env::var("GPURTL_BENCH_JOBS")
                .ok()
                .and_then(|v| v.parse().ok())
            {
                opt.jobs = j;
            }
            // One unit at a time, so that a unit whose tools fail is reported and the
            // others still run.
            for u in &units {
                match synth::run(&cfg, &design, std::slice::from_ref(u), &opt, &progress) {
                    Ok(r) => {
                        // One line per unit as it finishes, so a long run shows its figures
                        // before the tables at the end.
                        for r in &r {
                            eprintln!(
                                "{preset} {} {}: Fmax {} MHz, {}",
                                r.unit,
                                target.name(),
                                fmt(r.fmax_mhz),
                                path(r)
                            );
                        }
                        rows.extend(r.into_iter().map(|r| (preset.clone(), r)))
                    }
                    Err(e) => {
                        eprintln!("{preset} {u} {}: FAILED: {e}", target.name());
                        failed.push(format!("{preset} {u} {}", target.name()));
                    }
                }
            }
        }
    }
    print_rows(&rows);
    print_other_rows(&rows);
    // GPURTL_BENCH_JSON=FILE keeps every report whole (resources, seeds, run time).
    if let Ok(file) = std::env::var("GPURTL_BENCH_JSON") {
        let all: Vec<serde_json::Value> = rows
            .iter()
            .map(|(p, r)| serde_json::json!({ "preset": p, "report": r }))
            .collect();
        std::fs::write(&file, serde_json::to_string_pretty(&all).expect("json"))
            .unwrap_or_else(|e| panic!("{file}: {e}"));
    }
    if !failed.is_empty() {
        eprintln!("FAILED: {}", failed.join(", "));
        std::process::exit(1);
    }
}

fn print_rows(rows: &[(String, UnitReport)]) {
    println!(
        "| preset | unit | target MHz | LUT4 | FF | EBR | DSP | Fmax median (min..max) | slack ns | critical path (levels) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (p, r) in rows.iter().filter(|(_, r)| r.target == Target::Ecp5) {
        let get = |k: &str| r.resources.get(k).copied().unwrap_or(0);
        println!(
            "| {p} | {} | {} | {} | {} | {} | {} | {} ({}..{}) | {} | {} |",
            r.unit,
            r.target_mhz,
            get("LUT4"),
            get("FF"),
            get("EBR"),
            get("DSP"),
            fmt(r.fmax_mhz),
            fmt(r.fmax_min_mhz),
            fmt(r.fmax_max_mhz),
            r.slack_ns.map_or("-".into(), |s| format!("{s:+.2}")),
            path(r)
        );
    }
    println!();
    println!(
        "| preset | unit | cells | FF | area um^2 | NAND2 eq | Fmax MHz | worst slack ns (SDC) | critical path (levels) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for (p, r) in rows.iter().filter(|(_, r)| r.target == Target::Asic) {
        let get = |k: &str| r.resources.get(k).copied().unwrap_or(0);
        println!(
            "| {p} | {} | {} | {} | {:.0} | {:.0} | {} | {} | {} |",
            r.unit,
            get("cells"),
            get("FF"),
            r.area_um2.unwrap_or(0.0),
            r.nand2_equivalents.unwrap_or(0.0),
            fmt(r.fmax_mhz),
            r.worst_slack_ns.map_or("-".into(), |s| format!("{s:+.2}")),
            path(r)
        );
    }
}

/// The iCE40 and 7-series rows: every resource the report counts (each run passed
/// `check -assert` with no latch, or it would be in the failures).
fn print_other_rows(rows: &[(String, UnitReport)]) {
    println!();
    println!("| config | unit | target | resources | Fmax MHz |");
    println!("|---|---|---|---|---|");
    for (p, r) in rows
        .iter()
        .filter(|(_, r)| matches!(r.target, Target::Ice40 | Target::Xilinx7))
    {
        let res: Vec<String> = r
            .resources
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        println!(
            "| {p} | {} | {} | {} | {} |",
            r.unit,
            r.target.name(),
            res.join(", "),
            fmt(r.fmax_mhz)
        );
    }
}

fn fmt(v: Option<f64>) -> String {
    v.map_or("-".into(), |f| format!("{f:.1}"))
}

fn path(r: &UnitReport) -> String {
    r.critical_path.as_ref().map_or("-".into(), |p| {
        format!("`{}` -> `{}` ({})", p.from, p.to, p.logic_levels)
    })
}
