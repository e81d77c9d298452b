//! Memory manager figures, measured in Verilator co-simulation of the seed 002 preset's
//! `mem_mgr` (every response checked against the model): translation latency per page
//! hop (next to the schedule's, which the model's clock count uses), allocations per clock (single pages and longer chains, with the frees that
//! return them), the command rate of the random mix, the Rust model's speed, and Yosys's
//! cell count of the generic synthesis that tests/tools.rs runs.
//!
//! Only runs under `cargo bench --bench mem_mgr` (cargo passes `--bench`); under
//! `cargo test` it prints a note and returns. `GPURTL_BENCH_CMDS=N` sets the commands per
//! run (default 4000).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use gpurtl::config::{self, Config, MemMap};
use gpurtl::iface::mem_mgr::Schedule;
use gpurtl::iface::timing::Timing;
use gpurtl::model::mem_mgr;
use gpurtl::model::mem_mgr::Cmd;
use gpurtl::rtl::mem_mgr::op;
use gpurtl::rtl::{Design, Unit};
use gpurtl::sim::{self, SimOptions};
use gpurtl::units;

const SEED: u64 = 1;

fn cmd(op: u32, id: u32, arg: u32) -> Cmd {
    Cmd {
        op,
        kind: 1,
        id,
        level: 0,
        arg,
    }
}

/// Runs `cmds` on the built unit; returns clocks after the next-page table's
/// initialisation. Panics if the RTL and the model disagree.
fn clocks(cfg: &Config, map: &MemMap, unit: &Unit, dir: &Path, work: &Path, cmds: &[Cmd]) -> u64 {
    let v = mem_mgr::encode(map, cmds, SEED);
    let e = units::expectation(cfg, unit, &v, 0.0, 0.0);
    let opt = SimOptions::new(cmds.len(), SEED, work.to_path_buf());
    let r = sim::run_vectors(unit, dir, true, &opt, &v, &e).expect("runs");
    assert!(r.passed, "{:?}", r.errors);
    r.cycles - gpurtl::rtl::mem_mgr::init_clocks(map)
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("mem_mgr: skipped (run it with `cargo bench --bench mem_mgr`)");
        return;
    }
    let n: usize = std::env::var("GPURTL_BENCH_CMDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4000);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let work = root.join("target").join("bench-sim");
    let text = std::fs::read_to_string(root.join("configs/seed002_hmgpu.toml")).expect("preset");
    let cfg = config::parse(&text, "seed002_hmgpu.toml").expect("valid");
    let map = cfg.mem.as_ref().and_then(|m| m.map.clone()).expect("map");
    let design: Design = units::elaborate(&cfg).expect("renders");
    let unit = design.unit("mem_mgr").expect("unit").clone();
    let (dir, _) = sim::build(&cfg, &design, &unit, false, &work).expect("verilates");
    let pb = map.page_bytes as u32;

    let sched = Schedule::for_map(&Timing::new(&cfg.clock), &map);
    println!(
        "## mem_mgr, seed002_hmgpu map ({} pages of {pb} bytes), {n} commands a run",
        map.pages
    );
    println!();
    // The model's prediction: the same schedule the RTL was rendered with.
    println!(
        "Schedule: {} (the model predicts {} clock(s) per page hop).",
        sched.describe(),
        sched.hop_clocks()
    );
    println!();
    // Translation: one 64-page display list, then n translates at a fixed hop count.
    println!("| translate at hop | clocks | clocks per translate |");
    println!("|---|---|---|");
    let mut per = Vec::new();
    for hops in [0u32, 1, 8, 63] {
        let mut cmds = vec![cmd(op::ALLOC, 0, 64 * pb)];
        cmds.extend((0..n).map(|i| cmd(op::TRANSLATE, 0, hops * pb + (i as u32 % pb))));
        let c = clocks(&cfg, &map, &unit, &dir, &work, &cmds);
        let each = c as f64 / n as f64;
        per.push((hops, each));
        println!("| {hops} | {c} | {each:.3} |");
    }
    let (h0, c0) = per[0];
    let (h1, c1) = per[per.len() - 1];
    println!();
    println!(
        "Translation latency per page hop: {:.3} clocks (slope from hop {h0} to hop {h1}).",
        (c1 - c0) / f64::from(h1 - h0)
    );
    println!();

    // Allocation: ALLOC then FREE of the same id, pages per object 1, 4, 16.
    println!(
        "| pages per ALLOC | ALLOCs | clocks (ALLOC + FREE pairs) | ALLOCs per clock | pages allocated per clock |"
    );
    println!("|---|---|---|---|---|");
    for pages in [1u32, 4, 16] {
        let pairs = n / 2;
        let cmds: Vec<Cmd> = (0..pairs)
            .flat_map(|i| {
                let id = (i % 200) as u32;
                [cmd(op::ALLOC, id, pages * pb), cmd(op::FREE, id, 0)]
            })
            .collect();
        let c = clocks(&cfg, &map, &unit, &dir, &work, &cmds);
        println!(
            "| {pages} | {pairs} | {c} | {:.4} | {:.4} |",
            pairs as f64 / c as f64,
            (pairs as f64 * f64::from(pages)) / c as f64
        );
    }
    // Back-to-back allocations only (no frees): 1-page objects into every display list.
    let cmds: Vec<Cmd> = (0..256).map(|id| cmd(op::ALLOC, id, pb)).collect();
    let c = clocks(&cfg, &map, &unit, &dir, &work, &cmds);
    println!();
    println!(
        "256 back-to-back 1-page ALLOCs: {c} clocks, {:.4} ALLOCs per clock.",
        256.0 / c as f64
    );

    // The random mix of the co-simulation vectors.
    let mix = mem_mgr::commands(&map, n, SEED);
    let c = clocks(&cfg, &map, &unit, &dir, &work, &mix);
    println!(
        "Random mix (`gpurtl sim -u mem_mgr` vectors, seed {SEED}): {c} clocks for {n} commands, {:.4} commands per clock.",
        n as f64 / c as f64
    );

    // The model's speed.
    let big = mem_mgr::commands(&map, 1_000_000, SEED);
    let t = Instant::now();
    let rsps = mem_mgr::run(&map, &big);
    let dt = t.elapsed().as_secs_f64();
    println!(
        "Model: {} commands in {:.3} s, {:.1} M commands/s.",
        rsps.len(),
        dt,
        rsps.len() as f64 / dt / 1e6
    );
    println!();

    // Yosys: the generic flow tests/tools.rs runs, RAMs kept as memory cells.
    for (name, path) in [
        ("default", None),
        (
            "seed002_hmgpu",
            Some(root.join("configs/seed002_hmgpu.toml")),
        ),
    ] {
        let cfg = config::load(path.as_deref()).expect("preset");
        let design = units::elaborate(&cfg).expect("renders");
        let m = design
            .modules
            .iter()
            .find(|m| m.kind == "mem_mgr")
            .expect("mem_mgr");
        let out = work.join(format!("synth-{name}"));
        std::fs::create_dir_all(&out).expect("dir");
        std::fs::write(out.join(m.file_name()), &m.text).expect("write");
        let t = Instant::now();
        let o = Command::new("yosys")
            .arg("-q")
            .arg("-p")
            .arg(format!(
                "read_verilog {f}; synth -top {top} -run begin:fine; opt -fast -full; techmap; opt -fast; abc -fast; opt -fast; tee -o stat.txt stat",
                f = m.file_name(),
                top = m.name
            ))
            .current_dir(&out)
            .output()
            .expect("yosys runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let stat = std::fs::read_to_string(out.join("stat.txt")).unwrap_or_default();
        let cells = stat
            .lines()
            .find(|l| l.contains("Number of cells"))
            .and_then(|l| l.split_whitespace().last())
            .unwrap_or("?")
            .to_string();
        let mems: Vec<String> = stat
            .lines()
            .filter(|l| l.contains("$mem_v2"))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" x "))
            .collect();
        println!(
            "Yosys ({name}): {cells} cells after the generic flow, RAMs kept as memories ({}), {:.1} s.",
            mems.join(", "),
            t.elapsed().as_secs_f64()
        );
    }
}
