//! Synthesis cost of each handshake register kind and of the default chain, with Yosys:
//! `synth_ice40` (LUT4, flops, carries) and the generic `synth` (gate-level cells).
//!
//! The Verilog comes from the library: a config is parsed from TOML text, elaborated, and
//! the module texts written to a temp dir. Only runs under `cargo bench --bench synth`
//! (the `--bench` flag cargo passes); under `cargo test` it prints a note and returns.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use gpurtl::config;
use gpurtl::rtl;
use gpurtl::units;

/// Cell counts from one `stat`.
#[derive(Default)]
struct Cells {
    total: u64,
    by_type: BTreeMap<String, u64>,
}

impl Cells {
    fn sum(&self, pred: impl Fn(&str) -> bool) -> u64 {
        self.by_type
            .iter()
            .filter(|(k, _)| pred(k))
            .map(|(_, v)| v)
            .sum()
    }
}

struct Row {
    name: String,
    lut4: u64,
    dff: u64,
    carry: u64,
    ice40_types: String,
    generic_total: u64,
    generic_dff: u64,
    generic_logic: String,
    secs: f64,
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("synth: skipped (run it with `cargo bench --bench synth`)");
        return;
    }
    let tmp = std::env::temp_dir().join(format!("gpurtl-bench-synth-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let version = Command::new("yosys")
        .arg("-V")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|e| panic!("yosys not found: {e}"));

    let mut rows = Vec::new();
    for kind in ["bubble", "skid", "fifo:1", "fifo:2", "fifo:4", "fifo:8"] {
        let toml = chain_toml(&format!("[\"{kind}\"]"));
        let (files, _) = generate(&toml, &tmp.join(kind.replace(':', "")), false);
        let (top, files) = files;
        rows.push(synth(kind, &top, &files));
    }
    let default = config::DEFAULT_TOML;
    let ((top, files), stages) = generate(default, &tmp.join("default_chain"), true);
    rows.push(synth(&format!("default chain [{stages}]"), &top, &files));

    println!("{version}; Width 32, async active-low reset (the default preset's)");
    println!();
    println!(
        "| design | iCE40 SB_LUT4 | iCE40 SB_DFF* | iCE40 SB_CARRY | iCE40 cells | generic cells | generic flops | generic logic cells | yosys s |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {:.1} |",
            r.name,
            r.lut4,
            r.dff,
            r.carry,
            r.ice40_types,
            r.generic_total,
            r.generic_dff,
            r.generic_logic,
            r.secs
        );
    }
    if let Some(skid) = rows.iter().find(|r| r.name == "skid") {
        println!();
        println!(
            "skid vs. target (about 40 LUTs, 67 flops, registered outputs): {} LUTs, {} flops \
             (2 x 32 data + 2 valid = 66 by design)",
            skid.lut4, skid.dff
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

fn chain_toml(stages: &str) -> String {
    format!(
        "[design]\nname = \"synth\"\nmodule_prefix = \"s_\"\n[reset]\nkind = \"async\"\n\
         active = \"low\"\n[hs_chain]\nwidth = 32\nstages = {stages}\n"
    )
}

/// Writes the modules to synthesize into `dir`; returns the top and files, and the stages.
/// For a one-stage config the top is the stage's own module; for the chain, the chain top.
fn generate(toml: &str, dir: &Path, whole_unit: bool) -> ((String, Vec<PathBuf>), String) {
    let cfg = config::parse(toml, "synth bench").unwrap_or_else(|e| panic!("{e}"));
    let design = units::elaborate(&cfg).expect("elaborate");
    let unit = design.unit("hs_chain").expect("hs_chain unit");
    let modules = design.unit_modules(unit);
    let chosen: Vec<&rtl::Module> = if whole_unit {
        modules
    } else {
        modules
            .into_iter()
            .filter(|m| m.kind != "hs_chain")
            .collect()
    };
    assert!(!chosen.is_empty(), "nothing to synthesize");
    std::fs::create_dir_all(dir).expect("dir");
    let files = chosen
        .iter()
        .map(|m| {
            let p = dir.join(m.file_name());
            std::fs::write(&p, &m.text).expect("write module");
            p
        })
        .collect();
    let top = chosen.last().map(|m| m.name.clone()).unwrap_or_default();
    let stages = cfg
        .hs_chain
        .as_ref()
        .map(|c| {
            c.stages
                .iter()
                .map(|s| s.label())
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default();
    ((top, files), stages)
}

fn synth(name: &str, top: &str, files: &[PathBuf]) -> Row {
    let read: String = files
        .iter()
        .map(|f| format!("read_verilog {}; ", f.display()))
        .collect();
    let t = Instant::now();
    let dir = files[0].parent().unwrap_or(Path::new("."));
    let ice40 = yosys(
        &format!("{read}synth_ice40 -top {top}"),
        &dir.join("ice40.stat"),
    );
    // synth_ice40 flattens by default; -flatten makes the generic counts comparable.
    let generic = yosys(
        &format!("{read}synth -flatten -top {top}"),
        &dir.join("generic.stat"),
    );
    let secs = t.elapsed().as_secs_f64();

    let ice40_types = ice40
        .by_type
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect::<Vec<_>>()
        .join(", ");
    let is_flop = |k: &str| {
        k.starts_with("$_DFF")
            || k.starts_with("$_SDFF")
            || k.starts_with("$_ALDFF")
            || k.starts_with("$_DLATCH")
    };
    let generic_logic = generic
        .by_type
        .iter()
        .filter(|(k, _)| !is_flop(k))
        .map(|(k, v)| format!("{} {v}", k.trim_start_matches("$_").trim_end_matches('_')))
        .collect::<Vec<_>>()
        .join(", ");
    Row {
        name: name.to_string(),
        lut4: ice40.sum(|k| k == "SB_LUT4"),
        dff: ice40.sum(|k| k.starts_with("SB_DFF")),
        carry: ice40.sum(|k| k == "SB_CARRY"),
        ice40_types,
        generic_total: generic.total,
        generic_dff: generic.sum(is_flop),
        generic_logic,
        secs,
    }
}

/// Runs one Yosys script quietly, then `stat` (`-q` silences it, so `tee` writes it to
/// `stat_file`), and parses the last `stat` block.
fn yosys(script: &str, stat_file: &Path) -> Cells {
    let script = format!("{script}; tee -q -o {} stat", stat_file.display());
    let out = Command::new("yosys")
        .arg("-q")
        .arg("-p")
        .arg(&script)
        .output()
        .unwrap_or_else(|e| panic!("running yosys: {e}"));
    assert!(
        out.status.success(),
        "yosys failed on `{script}`:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(stat_file).expect("stat output");
    let mut cells = Cells::default();
    let mut in_cells = false;
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["Number", "of", "cells:", n] => {
                // A later block (another module, or the hierarchy total) replaces earlier ones.
                cells = Cells {
                    total: n.parse().unwrap_or(0),
                    by_type: BTreeMap::new(),
                };
                in_cells = true;
            }
            [ty, n] if in_cells => match n.parse::<u64>() {
                Ok(n) => {
                    cells.by_type.insert((*ty).to_string(), n);
                }
                Err(_) => in_cells = false,
            },
            _ => in_cells = false,
        }
    }
    assert!(
        cells.total > 0,
        "no cell counts in yosys output of `{script}`:\n{text}"
    );
    cells
}
