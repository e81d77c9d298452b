//! Helpers shared by the integration tests: generating designs through the library and
//! running the real tools. A missing tool fails the test: CI must install it.

#![allow(dead_code)]

pub mod configs;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU64, Ordering};

use gpurtl::config::{self, Config};
use gpurtl::emit;
use gpurtl::rtl::Design;
use gpurtl::sim::SimOptions;
use gpurtl::synth::tools;
use gpurtl::units;

pub fn project_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every preset in configs/, as (file name, text).
pub fn presets() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = fs::read_dir(project_dir().join("configs"))
        .expect("configs/ exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, fs::read_to_string(&p).expect("readable preset"))
        })
        .collect();
    out.sort();
    assert!(
        out.len() >= 5,
        "expected the presets in configs/, found {}",
        out.len()
    );
    out
}

pub fn parse(text: &str, origin: &str) -> Config {
    config::parse(text, origin).unwrap_or_else(|e| panic!("{origin} should validate:\n{e}"))
}

pub fn elaborate(cfg: &Config) -> Design {
    units::elaborate(cfg).expect("renders")
}

/// A fresh directory under the target dir, unique per call.
pub fn scratch(tag: &str) -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = project_dir()
        .join("target")
        .join("test-scratch")
        .join(format!(
            "{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Whether another unit of `design` holds `unit` whole: one of its modules instantiates
/// `unit`'s top with no parameter override, so a tool that elaborates the outer unit sees
/// this unit's own logic (the gpu holds the tmu, ipu, mem_mgr and mem_arb; the tmu its
/// cache and filter). Slow whole-unit checks run on the outermost unit only.
pub fn enclosed_whole(design: &Design, unit: &gpurtl::rtl::Unit) -> bool {
    let outer = design
        .units
        .iter()
        .any(|u| u.top != unit.top && u.modules.contains(&unit.top));
    let overridden = design
        .modules
        .iter()
        .filter(|m| m.instantiates.contains(&unit.top))
        .any(|m| m.text.contains(&format!("{} #(", unit.top)));
    outer && !overridden
}

/// Generates `cfg` into a fresh directory and returns it.
pub fn generate(cfg: &Config, tag: &str) -> (PathBuf, Design) {
    let design = elaborate(cfg);
    let dir = scratch(tag).join(&cfg.design.name);
    emit::write_atomic(&dir, &emit::files(&design, cfg)).expect("writes");
    (dir, design)
}

/// Runs a tool; panics (fails the test) when it is not installed.
pub fn tool(program: &str, args: &[&str], cwd: &Path) -> Output {
    Command::new(program)
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap_or_else(|e| {
            panic!("`{program}` could not run ({e}): install it (`make test` runs scripts/install-deps.sh)")
        })
}

/// One of the current open tools from the project venv (`gpurtl::synth::tools`); panics
/// (fails the test) with the install hint when it is missing.
pub fn current_tool(found: Result<tools::Tool, tools::MissingTool>) -> tools::Tool {
    found.unwrap_or_else(|e| panic!("{e}"))
}

/// Runs a current tool in `cwd` (YoWASP tools see only the tree under it, so their file
/// arguments are relative names in `cwd`).
pub fn run_current(t: &tools::Tool, args: &[&str], cwd: &Path) -> Output {
    t.command()
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap_or_else(|e| panic!("`{}` could not run ({e})", t.program.display()))
}

pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Replaces the one occurrence of `from` in `text`; a mutation that finds nothing to
/// change would make its test pass vacuously, so that is a failure. Runs of spaces in
/// `from` match any run of whitespace, so targets do not depend on declaration alignment.
pub fn mutate(text: &str, from: &str, to: &str) -> String {
    let spans = matches_spaced(text, from);
    assert_eq!(
        spans.len(),
        1,
        "mutation target not found exactly once: {from}"
    );
    let (a, b) = spans[0];
    format!("{}{to}{}", &text[..a], &text[b..])
}

/// `cfg`'s design with `from` replaced by `to` in the module of `kind`, its unit `unit`
/// verilated and run once with `opts`: the report of a deliberately broken design.
pub fn run_mutated(
    cfg: &Config,
    unit: &str,
    kind: &str,
    (from, to): (&str, &str),
    opts: &SimOptions,
) -> gpurtl::sim::SimReport {
    let mut design = elaborate(cfg);
    let m = design
        .modules
        .iter_mut()
        .find(|m| m.kind == kind)
        .unwrap_or_else(|| panic!("a {kind} module"));
    m.text = mutate(&m.text, from, to);
    let unit = design.unit(unit).expect("unit").clone();
    let (dir, _) = gpurtl::sim::build(cfg, &design, &unit, false, &work_dir()).expect("verilates");
    gpurtl::sim::run_built(cfg, &unit, &dir, false, opts).expect("runs")
}

/// Byte spans of `text` that read `pattern` with each whitespace run widened to one or more
/// whitespace characters.
fn matches_spaced(text: &str, pattern: &str) -> Vec<(usize, usize)> {
    let words: Vec<&str> = pattern.split_whitespace().collect();
    let Some(first) = words.first() else {
        return Vec::new();
    };
    let lead = pattern.len() - pattern.trim_start().len();
    let mut spans = Vec::new();
    for (start, _) in text.match_indices(first) {
        let mut at = start + first.len();
        let mut ok = true;
        for w in &words[1..] {
            let gap = text[at..].len() - text[at..].trim_start().len();
            if gap == 0 || !text[at + gap..].starts_with(w) {
                ok = false;
                break;
            }
            at += gap + w.len();
        }
        // Leading and trailing whitespace in the pattern (an indented statement, a line
        // end) must be there as written.
        let tail = &pattern[pattern.trim_end().len()..];
        if ok && text[..start].ends_with(&pattern[..lead]) && text[at..].starts_with(tail) {
            spans.push((start - lead, at + tail.len()));
        }
    }
    spans
}

/// Builds `unit` of the config, with `from` replaced by `to` in the module of kind
/// `kind` when a mutation is given; returns the unit and its simulator's directory.
pub fn build_unit(
    cfg: &Config,
    unit: &str,
    mutation: Option<(&str, &str, &str)>,
) -> (gpurtl::rtl::Unit, PathBuf) {
    let mut design = elaborate(cfg);
    if let Some((kind, from, to)) = mutation {
        let m = design
            .modules
            .iter_mut()
            .find(|m| m.kind == kind)
            .unwrap_or_else(|| panic!("a {kind} module"));
        m.text = mutate(&m.text, from, to);
    }
    let unit = design.unit(unit).expect("the unit").clone();
    let (dir, _) = gpurtl::sim::build(cfg, &design, &unit, false, &work_dir()).expect("verilates");
    (unit, dir)
}

pub fn gpurtl() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gpurtl"))
}

/// Where co-simulation tests keep their simulator builds (cached by content across tests).
pub fn work_dir() -> PathBuf {
    project_dir().join("target").join("test-sim")
}

/// A run of `count` items with these input gaps and output stalls, an ideal memory, no
/// trace and the unit's default workload.
pub fn sim_options(count: usize, seed: u64, gap: f64, stall: f64) -> SimOptions {
    SimOptions {
        gap,
        stall,
        ..SimOptions::new(count, seed, work_dir())
    }
}

/// A `tmu` of 8 lanes (two 2x2 quads a request, each with its own LOD) kept small for
/// build time: two formats, 8-bit weights, rgba8 out, a 2 KiB cache of 32 ports.
pub const EIGHT_LANES_TOML: &str = r#"[design]
name = "tmu8"
module_prefix = "t8_"

[tmu]
lanes = 8
formats = ["rgba8888", "rgb565"]
weight_bits = 8
output = "rgba8"

[tmu.cache]
size_bytes = 2048
line_bytes = 256
ways = 8
banks = 16
ports = 32
mshr_entries = 8
replacement = "lru"
bus_bits = 64
layout = "tiled4x4"
queue_depth = 16
"#;
