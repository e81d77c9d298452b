//! Memory arbiter figures: memory port utilisation and idle clocks between bursts of
//! different requesters, measured in Verilator co-simulation (every run checked against the
//! model, memory image included), and the `synth_ice40` cost of the default preset's
//! 4-requester round-robin arbiter, whole and its grant logic alone.
//!
//! Only runs under `cargo bench --bench mem_arb` (cargo passes `--bench`); under
//! `cargo test` it prints a note and returns. `GPURTL_BENCH_BURSTS=N` sets the bursts per
//! requester (default 5000).

use std::path::{Path, PathBuf};
use std::process::Command;

use gpurtl::config::{self, Config};
use gpurtl::sim::{self, MemRows, MemTiming, SimOptions};
use gpurtl::units;

const SEED: u64 = 1;

fn four_readers() -> Config {
    let mut t = String::from(
        "[design]\nname = \"bench_readers\"\nmodule_prefix = \"gpu_\"\n[hs_chain]\nwidth = 8\n\
         stages = [\"skid\"]\n[mem]\ndata_bits = 64\nmax_burst = 8\npolicy = \"round_robin\"\n",
    );
    for name in ["tex", "ipu", "disp", "host"] {
        t += &format!("[[mem.requesters]]\nname = \"{name}\"\naccess = \"read\"\nmax_burst = 8\n");
    }
    config::parse(&t, "four readers").expect("valid")
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("mem_arb: skipped (run it with `cargo bench --bench mem_arb`)");
        return;
    }
    let bursts: usize = std::env::var("GPURTL_BENCH_BURSTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5000);
    let work = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("bench-sim");
    let default = config::load(None).expect("default");
    let readers = four_readers();

    println!("## Co-simulation: {bursts} bursts per requester, seed {SEED}");
    println!();
    println!(
        "| config | workload | memory latency / jitter / gap / stall | rows | gap | stall | cycles | beats | bytes/clock | port utilisation | switches | idle clocks between requesters (total / max) | passed |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let lat = |l: u64| MemTiming {
        latency: l,
        ..MemTiming::default()
    };
    let seed002 = config::load(Some(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("configs/seed002_hmgpu.toml"),
    ))
    .expect("seed002_hmgpu");
    let none = MemRows::default();
    let mut runs: Vec<(&str, &Config, &str, MemTiming, MemRows, f64, f64)> = Vec::new();
    // The figures: saturating traffic, mixed and reads only, at the latency each
    // config is sized for (100) and with none; then the other workloads, rows, stalls.
    for l in [0, 20, 100] {
        for w in ["saturate", "reads"] {
            runs.push(("default (4 rr)", &default, w, lat(l), none, 0.0, 0.0));
        }
    }
    for w in ["random", "single"] {
        runs.push(("default (4 rr)", &default, w, lat(100), none, 0.0, 0.0));
    }
    let rows = MemRows {
        bits: 10,
        penalty: 4,
    };
    runs.push((
        "default (4 rr)",
        &default,
        "saturate",
        lat(100),
        rows,
        0.0,
        0.0,
    ));
    runs.push((
        "default (4 rr)",
        &default,
        "saturate",
        lat(100),
        none,
        0.3,
        0.3,
    ));
    for l in [0, 100] {
        for w in ["saturate", "reads"] {
            runs.push((
                "seed002_hmgpu (6 fixed)",
                &seed002,
                w,
                lat(l),
                none,
                0.0,
                0.0,
            ));
        }
    }
    for l in [0, 100] {
        runs.push((
            "4 readers (rr)",
            &readers,
            "saturate",
            lat(l),
            none,
            0.0,
            0.0,
        ));
    }
    let mut failed = false;
    for (name, cfg, workload, mem, rows, gap, stall) in runs {
        let design = units::elaborate(cfg).expect("renders");
        let opt = SimOptions {
            gap,
            stall,
            mem,
            workload: Some(workload.into()),
            ..SimOptions::new(bursts, SEED, work.clone())
        };
        let r = sim::run_rows(cfg, &design, "mem_arb", &opt, rows).expect("runs");
        let r = sim::mem_arb::with_figures(r, cfg, &opt, rows);
        failed |= !r.passed;
        let a = r.mem_arb.clone().expect("figures");
        println!(
            "| {name} | {workload} | {} / {} / {} / {} | {} | {gap} | {stall} | {} | {} | {:.2} | {:.1}% | {} | {} / {} | {} |",
            mem.latency,
            mem.jitter,
            mem.gap,
            mem.stall,
            if rows == MemRows::default() {
                "off".to_string()
            } else {
                format!("addr >> {}, +{} clocks", rows.bits, rows.penalty)
            },
            r.cycles,
            a.read_beats + a.write_beats,
            a.bytes_per_clock,
            100.0 * a.utilization,
            a.switches,
            a.switch_idle_total,
            a.switch_idle_max,
            if r.passed { "yes" } else { "NO" }
        );
    }
    println!();
    synth(&default, &work.join("synth"));
    if failed {
        eprintln!("mem_arb: some runs did not pass");
        std::process::exit(1);
    }
}

/// `synth_ice40` of the default's arbiter; the grant logic is the fan-in cone of the grant
/// state (gnt_q, busy_q, rr_mask_q, sent_q, wbeat_q, wdone_q) and of every request ready, back to
/// flops and ports: everything but the address, length, write-data and read-data paths.
fn synth(cfg: &Config, dir: &Path) {
    let design = units::elaborate(cfg).expect("renders");
    let unit = design.unit("mem_arb").expect("unit");
    std::fs::create_dir_all(dir).expect("dir");
    let mut files = Vec::new();
    for m in design.unit_modules(unit) {
        std::fs::write(dir.join(m.file_name()), &m.text).expect("write");
        files.push(m.file_name());
    }
    let top = &unit.top;
    let script = format!(
        "read_verilog {}; synth_ice40 -flatten -top {top}; stat; \
         select -set gq w:gnt_q w:busy_q w:rr_mask_q w:sent_q w:wbeat_q w:wdone_q; \
         select -set gflops @gq %ci1 t:SB_DFF* %i; \
         select -set cone @gflops o:*_req_ready_o %u %ci*:-SB_DFF:-SB_DFFE:-SB_DFFER:-SB_DFFR:-SB_DFFESS:-SB_DFFS:-SB_DFFSR:-SB_DFFESR; \
         select -count @gflops; select -count @cone t:SB_LUT4 %i; select -count @cone t:SB_CARRY %i",
        files.join(" ")
    );
    let out = Command::new("yosys")
        .arg("-p")
        .arg(&script)
        .current_dir(dir)
        .output()
        .expect("yosys runs");
    let log = String::from_utf8_lossy(&out.stdout);
    let stat: Vec<&str> = log
        .lines()
        .skip_while(|l| !l.contains("Printing statistics"))
        .filter(|l| l.contains("SB_") || l.contains("Number of cells"))
        .take(8)
        .collect();
    let counts: Vec<&str> = log
        .lines()
        .filter_map(|l| l.trim().strip_suffix(" objects."))
        .collect();
    println!("## synth_ice40: {top} (default preset: 4 requesters, round robin, 64-bit beats)");
    println!();
    for l in stat {
        println!("    {}", l.trim());
    }
    println!();
    println!(
        "grant logic: flops {}, SB_LUT4 {}, SB_CARRY {}",
        counts.first().unwrap_or(&"?"),
        counts.get(1).unwrap_or(&"?"),
        counts.get(2).unwrap_or(&"?")
    );
}
