//! `gpurtl synth`: units through the implementation flow, one report each.

use std::io::IsTerminal;
use std::sync::Mutex;

use clap::{ArgGroup, Args};
use indicatif::{ProgressBar, ProgressStyle};

use super::{ConfigArg, Failure, failure, load, usage};
use crate::synth::{self, Event, Options, Router, SynthError, Target, UnitReport};

#[derive(Args, Debug)]
#[command(group(ArgGroup::new("which").required(true).args(["unit", "all"])))]
pub struct SynthArgs {
    #[command(flatten)]
    pub config: ConfigArg,
    /// A unit (see `gpurtl units`); repeat for several.
    #[arg(long, short = 'u')]
    pub unit: Vec<String>,
    /// Every unit of the config.
    #[arg(long)]
    pub all: bool,
    /// The flow.
    #[arg(long, short = 't', value_enum, default_value_t = Target::Ecp5)]
    pub target: Target,
    /// Placement seeds (ecp5, ice40): nextpnr runs with seeds 1..=N, the report gives
    /// the median Fmax and the spread.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=50))]
    pub seeds: u32,
    /// Tool processes at once [default: the core count].
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// ECP5 device for nextpnr-ecp5 (25k, 45k, 85k, um5g-85k, ...).
    #[arg(long, default_value = "85k")]
    pub device: String,
    /// ECP5 speed grade (6, 7, 8).
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u8).range(6..=8))]
    pub speed: u8,
    /// ECP5 package.
    #[arg(long, default_value = "CABGA381")]
    pub package: String,
    /// nextpnr's router: auto takes router1, and router2 (congestion-negotiating) for a
    /// seed that router1 has not routed in --router1-limit seconds.
    #[arg(long, value_enum, default_value_t = Router::Auto)]
    pub router: Router,
    /// With --router auto: seconds of routing router1 gets on a seed before router2
    /// routes that seed instead.
    #[arg(long, value_name = "SECS", default_value_t = synth::ROUTER1_LIMIT_S)]
    pub router1_limit: u64,
    /// Route with router1's plain negotiation, without its timing-driven rip-up of nets on
    /// failing paths (on by default; router2 never takes it).
    #[arg(long)]
    pub no_tmg_ripup: bool,
    /// Print one JSON object per unit, one a line.
    #[arg(long)]
    pub json: bool,
    /// Exit 1 when a unit misses the config's `[clock] target_mhz`.
    #[arg(long)]
    pub require_target: bool,
}

pub fn run(args: &SynthArgs) -> Result<u8, Failure> {
    if args.require_target && !args.target.has_timing() {
        return Err(usage(anyhow::anyhow!(
            "--require-target needs a target with timing (ecp5, ice40, asic); {} gives none",
            args.target.name()
        )));
    }
    let (cfg, design) = load(&args.config)?;
    let units: Vec<String> = if args.all {
        design.units.iter().map(|u| u.name.to_string()).collect()
    } else {
        for u in &args.unit {
            if design.unit(u).is_none() {
                let names: Vec<&str> = design.units.iter().map(|u| u.name).collect();
                return Err(usage(anyhow::anyhow!(
                    "no unit `{u}` in config \"{}\"; its units: {}",
                    cfg.design.name,
                    names.join(", ")
                )));
            }
        }
        args.unit.clone()
    };
    // A missing tool is a usage error, found before anything is written.
    synth::check_tools(args.target).map_err(usage)?;
    let opt = Options {
        target: args.target,
        ecp5_device: args.device.clone(),
        ecp5_speed: args.speed,
        ecp5_package: args.package.clone(),
        router: args.router,
        tmg_ripup: !args.no_tmg_ripup,
        router1_limit_s: args.router1_limit,
        seeds: args.seeds,
        jobs: args.jobs.unwrap_or_else(|| Options::default().jobs),
        ..Options::default()
    };
    let bar: Mutex<Option<ProgressBar>> = Mutex::new(None);
    let tty = std::io::stderr().is_terminal();
    let progress = |e: Event| {
        let Ok(mut bar) = bar.lock() else { return };
        match e {
            Event::Planned(n) => {
                if tty {
                    let b = ProgressBar::new(n);
                    b.set_style(
                        ProgressStyle::with_template(
                            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} steps  eta {eta}  {msg}",
                        )
                        .unwrap_or_else(|_| ProgressStyle::default_bar()),
                    );
                    b.enable_steady_tick(std::time::Duration::from_millis(200));
                    *bar = Some(b);
                }
            }
            Event::Done {
                unit,
                step,
                seconds,
                cached,
            } => {
                let line = format!(
                    "{unit} {step}: {seconds:.1} s{}",
                    if cached { " (cached)" } else { "" }
                );
                match bar.as_ref() {
                    Some(b) => {
                        b.inc(1);
                        b.set_message(line);
                    }
                    None => eprintln!("synth {} {line}", args.target.name()),
                }
            }
        }
    };
    let result = synth::run(&cfg, &design, &units, &opt, &progress);
    if let Ok(mut b) = bar.lock()
        && let Some(b) = b.take()
    {
        b.finish_and_clear();
    }
    let reports = result.map_err(|e| match e {
        SynthError::Missing(_) | SynthError::NoUnit(_) => usage(e),
        other => failure(other),
    })?;
    if args.json {
        for r in &reports {
            println!("{}", serde_json::to_string(r).unwrap_or_default());
        }
    } else {
        print!("{}", summary(&reports, &opt));
    }
    let missed = reports.iter().any(|r| r.meets_target == Some(false));
    Ok(if args.require_target && missed { 1 } else { 0 })
}

/// The human report: a table, then each unit's critical path, notes and tools.
pub fn summary(reports: &[UnitReport], opt: &Options) -> String {
    let Some(first) = reports.first() else {
        return String::new();
    };
    let mut s = format!(
        "synth {}: {}, target {} MHz",
        opt.target.name(),
        first.device,
        first.target_mhz
    );
    if matches!(opt.target, Target::Ecp5 | Target::Ice40) {
        s += &format!(", {} placement seed(s)", opt.seeds);
    }
    s += "\n";
    let keys: Vec<&String> = first.resources.keys().collect();
    s += &format!("  {:<12}", "unit");
    for k in &keys {
        s += &format!(" {k:>8}");
    }
    if opt.target == Target::Asic {
        s += &format!(
            " {:>12} {:>12} {:>12} {:>8}",
            "std um^2", "macro um^2", "area um^2", "NAND2eq"
        );
    }
    if opt.target == Target::Xilinx7 {
        s += &format!(" {:>6}", "depth");
    }
    if opt.target.has_timing() {
        s += &format!(" {:>9} {:>19} {:>9}", "Fmax MHz", "spread", "slack ns");
    }
    s += "\n";
    for r in reports {
        s += &format!("  {:<12}", r.unit);
        for k in &keys {
            s += &format!(" {:>8}", r.resources.get(*k).copied().unwrap_or(0));
        }
        if opt.target == Target::Asic {
            s += &format!(
                " {:>12.0} {:>12.0} {:>12.0} {:>8.0}",
                r.std_cell_area_um2.unwrap_or(0.0),
                r.macro_area_um2.unwrap_or(0.0),
                r.area_um2.unwrap_or(0.0),
                r.nand2_equivalents.unwrap_or(0.0)
            );
        }
        if opt.target == Target::Xilinx7 {
            s += &format!(" {:>6}", r.logic_depth.unwrap_or(0));
        }
        if opt.target.has_timing() {
            let f = r.fmax_mhz.map_or("-".into(), |f| format!("{f:.1}"));
            let spread = match (r.fmax_min_mhz, r.fmax_max_mhz) {
                (Some(a), Some(b)) => format!("{a:.1}..{b:.1}"),
                _ => "-".into(),
            };
            let slack = r.slack_ns.map_or("-".into(), |v| format!("{v:+.3}"));
            let verdict = match r.meets_target {
                Some(true) => "meets",
                Some(false) => "MISSES",
                None => "",
            };
            s += &format!(" {f:>9} {spread:>19} {slack:>9} {verdict}");
        }
        s += "\n";
    }
    for r in reports {
        s += &format!("{} ({}):", r.unit, r.top);
        if let Some(p) = &r.critical_path {
            s += &format!(
                " critical path {} -> {}, {} logic level(s), {:.3} ns\n",
                p.from, p.to, p.logic_levels, p.delay_ns
            );
            let at =
                |src: &Option<String>| src.clone().unwrap_or_else(|| "no source location".into());
            s += &format!(
                "  from {} ({}) to {} ({})\n",
                p.from_cell,
                at(&p.from_src),
                p.to_cell,
                at(&p.to_src)
            );
        } else {
            s += "\n";
        }
        if let (Some(std), Some(mac), Some(n)) =
            (r.std_cell_nand2, r.macro_nand2, r.nand2_equivalents)
        {
            s += &format!(
                "  NAND2 equivalents: {std:.0} standard cells + {mac:.0} SRAM macros = {n:.0}\n"
            );
        }
        for m in &r.macros {
            s += &format!(
                "  macro {} x {} ({} words x {} bits, {}): {:.0} um^2 each, {:.0} um^2, access {:.3} ns (model, {})\n",
                m.count,
                m.cell,
                m.words,
                m.bits,
                m.ports,
                m.area_um2,
                m.total_area_um2,
                m.access_ns,
                m.liberty
            );
        }
        if let Some(w) = r.worst_slack_ns {
            s += &format!("  worst slack over every path, ports included (SDC): {w:+.3} ns\n");
        }
        if r.fmax_by_seed.len() > 1 {
            let seeds: Vec<String> = r
                .fmax_by_seed
                .iter()
                .map(|(seed, f)| format!("{seed}: {}", f.map_or("-".into(), |f| format!("{f:.1}"))))
                .collect();
            s += &format!("  Fmax by seed {}\n", seeds.join(", "));
        }
        for n in &r.notes {
            s += &format!("  note: {n}\n");
        }
        s += &format!(
            "  {:.1} s{} in {}\n",
            r.seconds,
            if r.cached { ", cached" } else { "" },
            r.run_dir
        );
    }
    s += &format!("tools: {}\n", first.tools.join("; "));
    s
}
