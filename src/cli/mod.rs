//! The `gpurtl` command line: argument parsing (clap) and the commands, which call the
//! library and print. Exit codes: 0 success, 1 simulation mismatch or failure, 2 usage or
//! config error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};

use crate::config::{self, Config, LoadError, StageKind};
use crate::rtl::{Design, GENERATOR};
use crate::sim::{self, SimOptions, SimReport};
use crate::{emit, iface, units};

mod draw;
mod render;
mod sample;
mod sweep;
mod synth;
mod tmu_rtl;

#[derive(Parser, Debug)]
#[command(
    name = "gpurtl",
    version,
    about = "TOML configs in, synthesizable Verilog and a bit-exact Rust model out"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Cmd,
}

#[derive(Args, Debug, Clone)]
pub struct ConfigArg {
    /// TOML config; the embedded default (configs/default.toml) when omitted.
    #[arg(long, short = 'c', value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// What `vectors` and `sim` share: which unit, which config, how many items, which seed.
#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// The unit (see `gpurtl units`).
    #[arg(long, short = 'u')]
    pub unit: String,
    #[command(flatten)]
    pub config: ConfigArg,
    /// Items of stimulus.
    #[arg(long, short = 'n', default_value_t = 1000, value_parser = parse_count)]
    pub count: usize,
    /// Seed of the stimulus and of the random gaps and stalls.
    #[arg(long, short = 's', default_value_t = 1)]
    pub seed: u64,
    /// tex_cache traffic: one workload (mag2x_256, one2one_256, min2x_256, rot30_256, the
    /// same with _1024, thrash, all_miss, same_line, random) [default: a mix of them];
    /// mem_arb traffic: saturate, single, random, reads (full read bursts, writers idle) [default: segments of the first three in turn].
    #[arg(long, short = 'w', value_name = "NAME")]
    pub workload: Option<String>,
}

impl RunArgs {
    /// The config and design, once the unit and workload are known to exist.
    fn load(&self) -> Result<(Config, Design), Failure> {
        self.check_workload()?;
        let (cfg, design) = load(&self.config)?;
        sim::find_unit(&design, &self.unit).map_err(usage)?;
        Ok((cfg, design))
    }

    /// Checks that `--workload` names a workload of a unit that has them.
    fn check_workload(&self) -> Result<(), Failure> {
        let Some(w) = &self.workload else {
            return Ok(());
        };
        // An unknown unit is reported by `load`, with the config's list of units.
        let Some(def) = units::find(&self.unit) else {
            return Ok(());
        };
        let names = def.workloads();
        if names.is_empty() {
            let with: Vec<&str> = units::UNITS
                .iter()
                .filter(|u| !u.workloads().is_empty())
                .map(|u| u.name())
                .collect();
            return Err(usage(anyhow::anyhow!(
                "--workload applies to {} only",
                with.join(" and ")
            )));
        }
        if !names.contains(&w.as_str()) {
            return Err(usage(anyhow::anyhow!(
                "unknown workload `{w}`; allowed: {}",
                names.join(", ")
            )));
        }
        Ok(())
    }
}

#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Generate Verilog, files.f, timing constraints (.sdc), a FuseSoC core and manifest.json.
    Generate {
        #[command(flatten)]
        config: ConfigArg,
        /// Output directory [default: rtl_out/<design name>].
        #[arg(long, short = 'o', value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Validate a config and print its derived parameters.
    Check {
        #[command(flatten)]
        config: ConfigArg,
    },
    /// List the co-simulatable units of a config.
    Units {
        #[command(flatten)]
        config: ConfigArg,
    },
    /// Write the model's stimulus and expected-output vector files.
    Vectors {
        #[command(flatten)]
        run: RunArgs,
        /// Output directory [default: rtl_out/<design>.vectors/<unit>-seed<S>].
        #[arg(long, short = 'o', value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Co-simulate a unit in Verilator against the model.
    Sim {
        #[command(flatten)]
        run: RunArgs,
        /// Probability that an idle input holds valid low for a clock, in [0, 1).
        #[arg(long, default_value_t = 0.0, value_parser = parse_probability)]
        gap: f64,
        /// Probability that an output holds ready low for a clock, in [0, 1).
        #[arg(long, default_value_t = 0.0, value_parser = parse_probability)]
        stall: f64,
        /// Memory model: clocks from a burst request to its first beat [default: the config's
        /// `[mem] latency`, else 100].
        #[arg(long, value_name = "CLOCKS")]
        mem_latency: Option<u64>,
        /// Memory model: up to this many extra clocks per burst, drawn uniformly.
        #[arg(long, default_value_t = 0, value_name = "CLOCKS")]
        mem_jitter: u64,
        /// Memory model: probability a beat slot is lost (bandwidth), in [0, 1).
        #[arg(long, default_value_t = 0.0, value_parser = parse_probability, value_name = "P")]
        mem_gap: f64,
        /// Memory model: probability the request ready is held low, in [0, 1).
        #[arg(long, default_value_t = 0.0, value_parser = parse_probability, value_name = "P")]
        mem_stall: f64,
        /// Read/write memory (mem_arb): a burst's row is its address >> BITS (0: no rows).
        #[arg(long, default_value_t = 0, value_name = "BITS")]
        mem_row_bits: u64,
        /// Read/write memory (mem_arb): clocks added when a burst's row differs from the
        /// previous burst's.
        #[arg(long, default_value_t = 0, value_name = "CLOCKS")]
        mem_row_penalty: u64,
        /// Write an FST waveform [default file: sim/build/traces/<unit>-seed<S>.fst].
        #[arg(long, value_name = "FILE", num_args = 0..=1)]
        trace: Option<Option<PathBuf>>,
        /// Print one JSON object instead of the summary.
        #[arg(long)]
        json: bool,
    },
    /// Sample a texture (PNG or DDS) at coordinates from a CSV file through the TMU model.
    Sample(sample::SampleArgs),
    /// Rasterise one textured quad in 2x2 quads through the TMU model into a PNG.
    Draw(draw::DrawArgs),
    /// Draw a PNG through the image processing unit (DrawPixels) into a PNG.
    Render(render::RenderArgs),
    /// Synthesize, place and route, and time units (ecp5, ice40, xilinx7, asic, generic).
    Synth(synth::SynthArgs),
    /// Sweep TOML knobs: co-simulate (and synthesize) every point; tables and plots.
    Sweep(sweep::SweepArgs),
}

fn parse_probability(s: &str) -> Result<f64, String> {
    let p: f64 = s.parse().map_err(|_| format!("{s:?} is not a number"))?;
    if (0.0..1.0).contains(&p) {
        Ok(p)
    } else {
        Err(format!("{p} is outside [0, 1)"))
    }
}

fn parse_count(s: &str) -> Result<usize, String> {
    let n: usize = s.parse().map_err(|_| format!("{s:?} is not a count"))?;
    if (1..=100_000_000).contains(&n) {
        Ok(n)
    } else {
        Err(format!("{n} is outside 1..=100000000"))
    }
}

/// A failure with the exit code it maps to.
struct Failure {
    code: u8,
    error: anyhow::Error,
}

fn usage(error: impl Into<anyhow::Error>) -> Failure {
    Failure {
        code: 2,
        error: error.into(),
    }
}

fn failure(error: impl Into<anyhow::Error>) -> Failure {
    Failure {
        code: 1,
        error: error.into(),
    }
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(f) => {
            eprintln!("{:#}", f.error);
            ExitCode::from(f.code)
        }
    }
}

fn load(arg: &ConfigArg) -> Result<(Config, Design), Failure> {
    let cfg = config::load(arg.config.as_deref()).map_err(|e| match e {
        LoadError::Invalid(errs) => usage(anyhow::Error::new(errs)),
        other => usage(other),
    })?;
    let design = units::elaborate(&cfg).map_err(failure)?;
    Ok((cfg, design))
}

fn run(cli: Cli) -> Result<u8, Failure> {
    match cli.command {
        Cmd::Generate { config, out } => {
            let (cfg, design) = load(&config)?;
            let dir = out.unwrap_or_else(|| Path::new("rtl_out").join(&cfg.design.name));
            generate(&cfg, &design, &dir).map_err(failure)?;
            Ok(0)
        }
        Cmd::Check { config } => {
            let (cfg, design) = load(&config)?;
            print!("{}", describe(&cfg, &design));
            Ok(0)
        }
        Cmd::Units { config } => {
            let (cfg, design) = load(&config)?;
            for u in &design.units {
                let ports: Vec<String> = u
                    .ports
                    .iter()
                    .map(|p| format!("{} ({:?}, {} bits)", p.name, p.dir, p.width).to_lowercase())
                    .collect();
                println!(
                    "{:<12} top {:<20} ports: {}",
                    u.name,
                    u.top,
                    ports.join(", ")
                );
                println!(
                    "             {} handshake register(s), {} item(s) when full",
                    u.stages.len(),
                    u.stage_capacity()
                );
                for note in units::find(u.name)
                    .map(|d| d.notes(&cfg))
                    .unwrap_or_default()
                {
                    println!("             {note}");
                }
            }
            Ok(0)
        }
        Cmd::Vectors { run, out } => {
            let (cfg, _) = run.load()?;
            let RunArgs {
                unit,
                count,
                seed,
                workload,
                ..
            } = run;
            let set = units::vectors(&cfg, &unit, count, seed, workload.as_deref())
                .with_context(|| format!("no model for unit {unit}"))
                .map_err(failure)?;
            let dir = out.unwrap_or_else(|| {
                Path::new("rtl_out")
                    .join(format!("{}.vectors", cfg.design.name))
                    .join(format!("{unit}-seed{seed}"))
            });
            let files: Vec<emit::OutFile> = set
                .ports
                .iter()
                .map(|p| {
                    let text = p.render(&unit, seed);
                    emit::OutFile {
                        name: p.file_name(),
                        lines: p.items.len(),
                        bytes: text.into_bytes(),
                        what: "vectors",
                    }
                })
                .collect();
            emit::write_atomic(&dir, &files).map_err(failure)?;
            for (f, p) in files.iter().zip(&set.ports) {
                let role = match p.role() {
                    crate::vectors::Role::Stimulus => "stimulus",
                    crate::vectors::Role::Expected => "expected",
                };
                println!(
                    "{:<40} {role:<9} {} x {} bits",
                    dir.join(&f.name).display(),
                    f.lines,
                    p.port.width
                );
            }
            Ok(0)
        }
        Cmd::Sim {
            run,
            gap,
            stall,
            mem_latency,
            mem_jitter,
            mem_gap,
            mem_stall,
            mem_row_bits,
            mem_row_penalty,
            trace,
            json,
        } => {
            let (cfg, design) = run.load()?;
            let config_path = run.config.config.clone();
            let RunArgs {
                unit,
                count,
                seed,
                workload,
                ..
            } = run;
            let work_dir = SimOptions::default_work_dir();
            let trace = trace.map(|t| {
                t.unwrap_or_else(|| {
                    work_dir
                        .join("traces")
                        .join(format!("{unit}-seed{seed}.fst"))
                })
            });
            let opt = SimOptions {
                mem: sim::MemTiming {
                    latency: mem_latency.unwrap_or_else(|| {
                        u64::from(
                            cfg.mem
                                .as_ref()
                                .map_or(crate::config::DEFAULT_MEM_LATENCY, |m| m.latency),
                        )
                    }),
                    jitter: mem_jitter,
                    gap: mem_gap,
                    stall: mem_stall,
                },
                count,
                seed,
                gap,
                stall,
                trace,
                work_dir,
                workload,
                progress: None,
            };
            if !json {
                eprintln!("sim {unit}: seed {seed}, {count} items, gap {gap}, stall {stall}");
            }
            let bar = (!json).then(sim_bar).flatten();
            let opt = SimOptions {
                progress: bar.as_ref().map(|b| b.progress()),
                ..opt
            };
            let rows = sim::MemRows {
                bits: mem_row_bits,
                penalty: mem_row_penalty,
            };
            let report = sim::run_rows(&cfg, &design, &unit, &opt, rows);
            if let Some(b) = bar {
                b.finish();
            }
            let report = report.map_err(failure)?;
            let report = if unit == "mem_arb" {
                sim::mem_arb::with_figures(report, &cfg, &opt, rows)
            } else {
                report
            };
            if json {
                println!("{}", serde_json::to_string(&report).unwrap_or_default());
            } else {
                print!("{}", summary(&report));
                if !report.passed {
                    println!(
                        "  reproduce: {}",
                        reproduce(config_path.as_deref(), &report, &opt, rows)
                    );
                }
            }
            Ok(if report.passed { 0 } else { 1 })
        }
        Cmd::Sample(args) => sample::run(&args),
        Cmd::Draw(args) => draw::run(&args),
        Cmd::Render(args) => render::run(&args),
        Cmd::Synth(args) => synth::run(&args),
        Cmd::Sweep(args) => sweep::run(&args),
    }
}

fn generate(cfg: &Config, design: &Design, dir: &Path) -> Result<()> {
    let files = emit::files(design, cfg);
    emit::write_atomic(dir, &files)?;
    println!(
        "{GENERATOR}: config \"{}\" (sha256 {}) from {}",
        cfg.design.name,
        cfg.short_hash(),
        cfg.origin
    );
    println!("wrote {}/", dir.display());
    println!(
        "  {:<28} {:<9} {:>6} {:>8}",
        "file", "what", "lines", "bytes"
    );
    for f in &files {
        println!(
            "  {:<28} {:<9} {:>6} {:>8}",
            f.name,
            f.what,
            f.lines,
            f.bytes.len()
        );
    }
    for u in &design.units {
        println!(
            "unit {}: top {} ({} modules)",
            u.name,
            u.top,
            u.modules.len()
        );
    }
    if files.is_empty() {
        bail!("nothing generated");
    }
    Ok(())
}

/// `gpurtl check`: the validated config and what it derives.
pub fn describe(cfg: &Config, design: &Design) -> String {
    let mut s = String::new();
    s += &format!("config {}: ok (sha256 {})\n", cfg.origin, cfg.hash);
    s += &format!(
        "design     name {}, module prefix {:?}\n",
        cfg.design.name, cfg.design.module_prefix
    );
    s += &format!(
        "clock      {} MHz (period {:.3} ns)\n",
        cfg.clock.target_mhz,
        1000.0 / cfg.clock.target_mhz
    );
    let timing = iface::timing::Timing::new(&cfg.clock);
    s += &format!(
        "schedule   {} delays: {:.2} ns of logic a stage ({:.2} ns register overhead)\n",
        cfg.clock.family.label(),
        timing.budget(),
        timing.delays.register
    );
    for line in depths(cfg, &timing) {
        s += &format!("           {line}\n");
    }
    s += &format!(
        "reset      {:?}, active {:?}, port {}\n",
        cfg.reset.kind,
        cfg.reset.active,
        cfg.reset.port()
    )
    .to_lowercase();
    if let Some(c) = &cfg.hs_chain {
        let kinds: Vec<String> = c.stages.iter().map(StageKind::label).collect();
        let registers = c.stages.iter().filter(|k| **k != StageKind::Bypass).count();
        s += &format!(
            "hs_chain   width {}, {} stages: {}\n",
            c.width,
            c.stages.len(),
            kinds.join(", ")
        );
        s += &format!(
            "           latency {registers} clock(s), capacity {} item(s), peak {:.1} item(s)/clock\n",
            c.capacity(),
            c.peak_rate()
        );
        let n = crate::rtl::hs_chain::chain_slices(&timing, c);
        if n > 1 {
            s += &format!(
                "           datapath in {n} slices of {} bits, each with its own control (an enable to all {} bits does not fit {})\n",
                c.width / n,
                c.width,
                crate::rtl::hs_chain::slice_clock(&timing)
            );
        }
    }
    if let Some(t) = &cfg.tmu {
        let c = &t.cache;
        s += &format!(
            "tmu.cache  {} bytes, {}-byte lines: {} sets x {} ways ({} lines), {:?} replacement\n",
            c.size_bytes, c.line_bytes, c.sets, c.ways, c.lines, c.replacement
        )
        .replace("Plru", "plru")
        .replace("Lru", "lru")
        .replace("Fifo", "fifo");
        s += &format!(
            "           {} banks x {} words per line, {} texels per request, {} MSHRs, {}-bit bus ({} beats per line), {} layout\n",
            c.banks,
            c.words_per_bank_line,
            c.ports,
            c.mshr_entries,
            c.bus_bits,
            c.beats_per_line,
            match c.layout {
                crate::config::TexLayout::Linear => "linear",
                crate::config::TexLayout::Tiled4x4 => "tiled4x4",
            }
        );
        let b = crate::model::tex_cache::bank_check(c);
        s += &format!(
            "           bank check: worst 2x2 footprint {} clock(s) over {} footprints, a request at most {}\n",
            b.footprint_clocks, b.footprints, b.request_bound
        );
        if let Some(cl) = c.bank_classes() {
            s += &format!(
                "           bank classes: 4 parity classes of {} banks (bank bits {:?}: class, {:?}: index), a port per lane and class\n",
                1 << cl.index_bits.len(),
                cl.class_bits,
                cl.index_bits
            );
        }
    }
    if let Some(m) = &cfg.mem {
        s += &format!(
            "mem        {}-bit beats, bursts of up to {}, {} requesters, policy {}, {} read bursts in flight (for a latency of {} clocks)\n",
            m.data_bits,
            m.max_burst,
            m.requesters.len(),
            match m.policy {
                crate::config::Policy::Fixed => "fixed",
                crate::config::Policy::RoundRobin => "round_robin",
                crate::config::Policy::Classes => "classes",
            },
            m.outstanding_reads,
            m.latency
        );
        let pipe =
            crate::iface::mem_arb::Pipe::new(m, &crate::iface::timing::Timing::new(&cfg.clock));
        for w in crate::rtl::mem_arb::worst_case_waits(m, &pipe) {
            s += &format!("           worst-case wait {}\n", w.describe());
        }
        if let Some(map) = &m.map {
            s += &format!(
                "mem.map    shader {:#x}+{:#x}, 2D images {:#x}+{:#x}, textures {:#x}+{:#x} ({} x {} levels, {:#x} each), user {:#x}+{:#x} ({} pages of {} bytes), {} buffer objects, {} display lists\n",
                map.shader_base,
                map.shader_bytes,
                map.image_base,
                map.image_bytes,
                map.texture_base,
                map.texture_bytes,
                map.textures,
                map.mip_levels,
                map.bytes_per_texture,
                map.user_base,
                map.user_bytes,
                map.pages,
                map.page_bytes,
                map.buffer_objects,
                map.display_lists
            );
        }
    }
    if let Some(i) = &cfg.ipu {
        let fmts: Vec<&str> = (0..crate::config::ipu::FORMATS.len())
            .filter(|c| i.formats[*c])
            .map(|c| crate::config::ipu::FORMATS[c])
            .collect();
        let regs: Vec<String> = i.registers.iter().map(StageKind::label).collect();
        s += &format!(
            "ipu        {} lane(s), {}-bit DMA words, formats {}\n",
            i.lanes,
            i.dma_word_bits,
            fmts.join(", ")
        );
        s += &format!(
            "           scale S{}.{}, bias S{}.{}, stack {} deep, registers {}\n",
            i.scale.int,
            i.scale.frac,
            i.bias.int,
            i.bias.frac,
            i.stack_depth,
            regs.join(", ")
        );
    }
    for m in &design.modules {
        let params: Vec<String> = m
            .parameters
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        s += &format!("module     {:<20} {}\n", m.name, params.join(" "));
    }
    s
}

/// The pipeline depths each unit's schedule chose at this clock.
fn depths(cfg: &Config, timing: &iface::timing::Timing) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(t) = &cfg.tmu {
        let pipe = iface::tex_cache::CachePipe::new(&t.cache, timing);
        out.push(format!("tex_cache: {}", pipe.describe()));
        if t.cache.merges() {
            let merge = iface::tex_cache::MergePipe::new(&t.cache, timing);
            out.push(format!(
                "tex_cache: {} texels folded onto their lines, {} lines a clock to the tags, in {} clock(s): {}",
                t.cache.ports,
                t.cache.tag_ports,
                merge.latency(),
                merge.describe()
            ));
        }
        // FilterPipe::describe names its unit.
        out.push(iface::tex_filter::FilterPipe::new(t, timing).describe());
        out.push(iface::tmu::describe_front(timing, t));
    }
    if let Some(m) = &cfg.mem {
        out.push(format!(
            "mem_arb: {}",
            iface::mem_arb::Pipe::new(m, timing).describe()
        ));
        if let Some(map) = &m.map {
            out.push(format!(
                "mem_mgr: {}",
                iface::mem_mgr::Schedule::for_map(timing, map).describe()
            ));
        }
    }
    if let Some(i) = &cfg.ipu {
        out.push(iface::ipu::Pipe::new(i, timing).describe(i));
    }
    out
}

fn summary(r: &SimReport) -> String {
    let mut s = String::new();
    let verdict = if r.passed { "PASS" } else { "FAIL" };
    // Units may answer fewer items than they take (tex_filter's first trilinear passes).
    let expected: u64 = r
        .ports
        .iter()
        .filter(|p| p.dir == "out")
        .map(|p| p.expected)
        .sum();
    s += &format!(
        "{verdict} {}: seed {}, {} of {} transactions, {} mismatches\n",
        r.unit, r.seed, r.transactions, expected, r.mismatches
    );
    s += &format!(
        "  cycles {}  throughput {:.3} items/clock (peak {:.2})",
        r.cycles, r.throughput, r.peak_rate
    );
    if let (Some(mc), Some(mt)) = (r.model_cycles, r.model_throughput) {
        s += &format!("  model: {mc} cycles, {mt:.3} items/clock");
    }
    s += "\n";
    for p in &r.probes {
        let missing = p.missing();
        s += &format!(
            "  {} states: {} of {} visited",
            p.name,
            p.states.len() - missing.len(),
            p.states.len()
        );
        if !missing.is_empty() {
            s += &format!(" (never: {})", missing.join(", "));
        }
        s += "\n";
    }
    if let Some(c) = &r.cache {
        s += &format!(
            "  cache ({}): hit rate {:.4}, {} misses, {:.3} memory bytes/texel, {:.3} texels/clock\n",
            c.workload, c.hit_rate, c.misses, c.bytes_per_texel, c.texels_per_clock
        );
        s += &format!(
            "  clocks: {} lost to bank conflicts, {} to misses and stalls\n",
            c.bank_conflict_clocks, c.miss_clocks
        );
    }
    if let (Some(z), Some(q)) = (r.zero_latency_cycles, r.latency_ratio) {
        s += &format!(
            "  with an ideal memory: {z} cycles; throughput here is {:.1}% of that\n",
            100.0 * q
        );
    }
    for m in &r.memory {
        s += &format!(
            "  memory {}: {} bursts, {} beats, bus {:.1}% busy\n",
            m.name,
            m.requests,
            m.beats,
            100.0 * m.utilization
        );
        for e in &m.by_id {
            s += &format!(
                "    requester {}: {} read bursts ({} beats), {} write bursts ({} beats): {:.1}% of the clocks\n",
                if e.name.is_empty() {
                    e.id.to_string()
                } else {
                    e.name.clone()
                },
                e.read_bursts,
                e.read_beats,
                e.write_bursts,
                e.write_beats,
                100.0 * (e.read_beats + e.write_beats) as f64 / r.cycles.max(1) as f64
            );
        }
    }
    if let Some(a) = &r.mem_arb {
        s += &a.summary();
    }
    s += &format!(
        "  build {} ({})\n",
        r.build_dir,
        if r.build_cached { "cached" } else { "built" }
    );
    if let Some(t) = &r.trace {
        s += &format!("  waveform {t}\n");
    }
    for e in r.errors.iter().take(10) {
        s += &format!("  error: {e}\n");
    }
    if let Some(v) = &r.vectors_dir {
        s += &format!("  vectors kept in {v}\n");
    }
    s
}

/// The command that runs a failed co-simulation again: the same config, unit, seed,
/// count, gaps and stalls, workload and memory model.
fn reproduce(
    config: Option<&std::path::Path>,
    r: &SimReport,
    opt: &SimOptions,
    rows: sim::MemRows,
) -> String {
    let mut s = String::from("gpurtl sim");
    if let Some(c) = config {
        s += &format!(" --config {}", c.display());
    }
    s += &format!(
        " --unit {} --seed {} --count {} --gap {} --stall {}",
        r.unit, r.seed, r.count, r.gap, r.stall
    );
    if let Some(a) = &r.mem_arb {
        s += &a.reproduce_flags();
        return s;
    }
    if let Some(w) = &opt.workload {
        s += &format!(" --workload {w}");
    }
    if !r.memory.is_empty() {
        s += &format!(
            " --mem-latency {} --mem-jitter {} --mem-gap {} --mem-stall {}",
            opt.mem.latency, opt.mem.jitter, opt.mem.gap, opt.mem.stall
        );
        if rows != sim::MemRows::default() {
            s += &format!(
                " --mem-row-bits {} --mem-row-penalty {}",
                rows.bits, rows.penalty
            );
        }
    }
    s
}

/// A co-simulation's progress on stderr, when stderr is a terminal: a spinner while the
/// unit builds and the model works, then a bar over the output transactions checked,
/// with the rate and the time left.
pub(crate) struct SimBar(indicatif::ProgressBar);

/// [`SimBar`] for this process, or `None` when stderr is not a terminal.
pub(crate) fn sim_bar() -> Option<SimBar> {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let b = indicatif::ProgressBar::new_spinner();
    b.enable_steady_tick(std::time::Duration::from_millis(200));
    Some(SimBar(b))
}

impl SimBar {
    /// The callback for [`SimOptions::progress`].
    pub(crate) fn progress(&self) -> sim::Progress {
        let b = self.0.clone();
        // indicatif's own rate and ETA follow its steps, which the harness's reports are
        // not (the first one jumps from nothing): both are worked out here from when the
        // run began.
        let began = std::sync::Mutex::new(std::time::Instant::now());
        sim::Progress(std::sync::Arc::new(move |stage| match stage {
            sim::Stage::Build => b.set_message("building the simulator"),
            sim::Stage::Model => b.set_message("the model: vectors and expected outputs"),
            sim::Stage::Run { done, total, cycle } => {
                let Ok(mut began) = began.lock() else { return };
                if b.length() != Some(total) || done < b.position() {
                    *began = std::time::Instant::now();
                    b.set_length(total);
                    b.set_style(
                        indicatif::ProgressStyle::with_template(
                            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} transactions  {msg}",
                        )
                        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
                    );
                }
                b.set_position(done);
                let secs = began.elapsed().as_secs_f64().max(1e-3);
                let rate = done as f64 / secs;
                let eta = if rate > 0.0 {
                    format!("{:.0} s", total.saturating_sub(done) as f64 / rate)
                } else {
                    "-".into()
                };
                b.set_message(format!("{rate:.0}/s  eta {eta}  clock {cycle}"));
            }
        }))
    }

    pub(crate) fn finish(self) {
        self.0.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The options `gpurtl sim` parses from `line` (a reproduce line, no quoting).
    fn parse_sim(line: &str) -> (RunArgs, f64, f64, Option<u64>, u64, f64, f64, u64, u64) {
        let cli = Cli::try_parse_from(line.split_whitespace()).expect("the line parses");
        let Cmd::Sim {
            run,
            gap,
            stall,
            mem_latency,
            mem_jitter,
            mem_gap,
            mem_stall,
            mem_row_bits,
            mem_row_penalty,
            ..
        } = cli.command
        else {
            panic!("not a sim command: {line}");
        };
        (
            run,
            gap,
            stall,
            mem_latency,
            mem_jitter,
            mem_gap,
            mem_stall,
            mem_row_bits,
            mem_row_penalty,
        )
    }

    fn options(workload: Option<&str>, mem: sim::MemTiming) -> SimOptions {
        SimOptions {
            count: 345,
            seed: 9,
            gap: 0.25,
            stall: 0.5,
            trace: None,
            work_dir: PathBuf::from("unused"),
            mem,
            workload: workload.map(str::to_string),
            progress: None,
        }
    }

    fn report(unit: &str, opt: &SimOptions) -> SimReport {
        SimReport {
            unit: unit.to_string(),
            seed: opt.seed,
            count: opt.count,
            gap: opt.gap,
            stall: opt.stall,
            ..SimReport::default()
        }
    }

    #[test]
    fn a_failed_cache_runs_reproduce_line_parses_back_to_the_same_run() {
        let mem = sim::MemTiming {
            latency: 37,
            jitter: 5,
            gap: 0.125,
            stall: 0.375,
        };
        let rows = sim::MemRows {
            bits: 11,
            penalty: 6,
        };
        let opt = options(Some("rot30_256"), mem);
        let mut r = report("tex_cache", &opt);
        r.memory.push(sim::MemReport::default());
        let config = Path::new("configs/seed001_tmu.toml");
        let line = reproduce(Some(config), &r, &opt, rows);
        let (run, gap, stall, lat, jit, mgap, mstall, bits, pen) = parse_sim(&line);
        assert_eq!(run.unit, "tex_cache");
        assert_eq!(run.config.config.as_deref(), Some(config));
        assert_eq!((run.seed, run.count), (9, 345));
        assert_eq!(run.workload.as_deref(), Some("rot30_256"));
        assert_eq!((gap, stall), (0.25, 0.5));
        assert_eq!((lat, jit, mgap, mstall), (Some(37), 5, 0.125, 0.375));
        assert_eq!((bits, pen), (11, 6));
    }

    #[test]
    fn a_failed_runs_reproduce_line_has_no_memory_flags_without_memory() {
        let opt = options(None, sim::MemTiming::default());
        let line = reproduce(
            None,
            &report("hs_chain", &opt),
            &opt,
            sim::MemRows::default(),
        );
        assert_eq!(
            line,
            "gpurtl sim --unit hs_chain --seed 9 --count 345 --gap 0.25 --stall 0.5"
        );
        let (run, ..) = parse_sim(&line);
        assert!(run.config.config.is_none(), "the embedded default config");
    }

    #[test]
    fn a_failed_arbiter_runs_reproduce_line_carries_its_memory_and_workload() {
        let opt = options(None, sim::MemTiming::default());
        let mut r = report("mem_arb", &opt);
        r.mem_arb = Some(sim::mem_arb::MemArbReport {
            workload: "saturate".to_string(),
            mem: sim::MemTiming {
                latency: 20,
                jitter: 3,
                gap: 0.0,
                stall: 0.5,
            },
            rows: sim::MemRows {
                bits: 10,
                penalty: 4,
            },
            ..sim::mem_arb::MemArbReport::default()
        });
        let line = reproduce(None, &r, &opt, sim::MemRows::default());
        let (run, _, _, lat, jit, mgap, mstall, bits, pen) = parse_sim(&line);
        assert_eq!(run.workload.as_deref(), Some("saturate"));
        assert_eq!((lat, jit, mgap, mstall), (Some(20), 3, 0.0, 0.5));
        assert_eq!((bits, pen), (10, 4));
    }
}
