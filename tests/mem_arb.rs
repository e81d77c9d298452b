//! Co-simulation of the memory arbiter `mem_arb` in Verilator against the model: 2, 4 and
//! 8 requesters, every policy, random input gaps, output stalls and memory timing
//! (latency, jitter, lost beat slots, backpressure, row penalties), several seeds; every
//! read beat is checked at its requester and the memory contents at the end, with write
//! beats under random byte strobes. Broken arbiters (strobes ignored among them) must be
//! caught, and a failing seed must reproduce.

mod common;

use common::*;
use gpurtl::config::Config;
use gpurtl::iface::mem_arb::Pipe;
use gpurtl::iface::timing::Timing;
use gpurtl::rtl::Design;
use gpurtl::sim::{self, MemRows, MemTiming, SimOptions, SimReport};

/// `n` requesters under `policy`: accesses cycle through read, both, write, bursts of up
/// to 1, 2, 4 or 8 beats, priorities from `prio`.
fn mem_config(
    name: &str,
    n: usize,
    policy: &str,
    data_bits: u32,
    reset: (&str, &str),
    prio: fn(usize) -> u32,
) -> Config {
    let mut t = format!(
        "[design]\nname = \"{name}\"\nmodule_prefix = \"m_\"\n[reset]\nkind = \"{}\"\nactive = \"{}\"\n\
         [hs_chain]\nwidth = 8\nstages = [\"skid\"]\n[mem]\ndata_bits = {data_bits}\nmax_burst = 8\n\
         policy = \"{policy}\"\nlatency = 0\noutstanding_reads = 3\n",
        reset.0, reset.1
    );
    for i in 0..n {
        t += &format!(
            "[[mem.requesters]]\nname = \"q{i}\"\naccess = \"{}\"\npriority = {}\nmax_burst = {}\n",
            ["read", "both", "write"][i % 3],
            prio(i),
            [8, 4, 2, 1][i % 4]
        );
    }
    parse(&t, name)
}

fn options(count: usize, seed: u64, gap: f64, stall: f64, mem: MemTiming) -> SimOptions {
    SimOptions {
        mem,
        ..sim_options(count, seed, gap, stall)
    }
}

fn mem(latency: u64, jitter: u64, gap: f64, stall: f64) -> MemTiming {
    MemTiming {
        latency,
        jitter,
        gap,
        stall,
    }
}

/// Runs patterns of gaps, stalls and memory timing over two seeds; every run must pass.
fn cosim(cfg: &Config, design: &Design, count: usize) {
    let unit = design.unit("mem_arb").expect("mem_arb unit");
    let (dir, _) = sim::build(cfg, design, unit, false, &work_dir()).expect("verilates");
    let runs = [
        (0.0, 0.0, mem(0, 0, 0.0, 0.0), MemRows::default()),
        (0.3, 0.3, mem(6, 4, 0.2, 0.2), MemRows::default()),
        (
            0.7,
            0.5,
            mem(20, 0, 0.0, 0.5),
            MemRows {
                bits: 8,
                penalty: 5,
            },
        ),
    ];
    for seed in [3, 11] {
        for (gap, stall, m, rows) in runs {
            let opt = options(count, seed, gap, stall, m);
            let r = sim::run_built_rows(cfg, unit, &dir, true, &opt, rows).expect("runs");
            assert!(
                r.passed,
                "{}: seed {seed}, gap {gap}, stall {stall}, {m:?}, {rows:?}: {:#?}",
                cfg.design.name, r.errors
            );
            let memory = r.memory.iter().find(|m| m.name == "mem").expect("memory");
            assert!(memory.image_words.unwrap_or(0) > 0, "writes were checked");
            assert!(memory.read_beats.unwrap_or(0) > 0 && memory.write_beats.unwrap_or(0) > 0);
            assert_eq!(memory.outstanding, 0);
        }
    }
}

// One build per configuration costs ~15 s, so each requester count meets one policy and
// each policy one count: 2 fixed, 4 round robin (the default preset), 8 classes.
#[test]
fn two_requesters_fixed_priority() {
    let cfg = mem_config("two_fixed", 2, "fixed", 32, ("sync", "high"), |i| i as u32);
    cosim(&cfg, &elaborate(&cfg), 150);
}

#[test]
fn four_requesters_round_robin_default_preset() {
    let cfg = gpurtl::config::load(None).expect("default");
    cosim(&cfg, &elaborate(&cfg), 150);
}

// The presets above build for 200 MHz (the beat register and the head-tag register);
// at 50 MHz neither is there, and the arbiter must behave the same.
#[test]
fn slow_target_round_robin_without_the_extra_registers() {
    let mut cfg = gpurtl::config::load(None).expect("default");
    cfg.clock.target_mhz = 50.0;
    let mem = cfg.mem.as_ref().expect("mem");
    let fast = Pipe::new(
        mem,
        &Timing::new(&gpurtl::config::load(None).expect("default").clock),
    );
    let slow = Pipe::new(mem, &Timing::new(&cfg.clock));
    assert!(fast.wdata_stage && fast.rtag_stage);
    assert!(!slow.wdata_stage && !slow.rtag_stage);
    cosim(&cfg, &elaborate(&cfg), 150);
}

#[test]
fn eight_requesters_priority_classes() {
    let cfg = mem_config("eight_classes", 8, "classes", 64, ("async", "high"), |i| {
        (i % 3) as u32
    });
    cosim(&cfg, &elaborate(&cfg), 100);
}

#[test]
fn saturating_round_robin_keeps_the_port_busy_with_no_idle_clock_between_requesters() {
    // Not a benchmark: the exact figures are in BENCHMARKS.md. With an ideal memory and
    // every requester streaming, the arbiter must leave no clock idle between bursts.
    let cfg = gpurtl::config::load(None).expect("default");
    let design = elaborate(&cfg);
    let opt = SimOptions {
        workload: Some("saturate".into()),
        ..options(300, 1, 0.0, 0.0, mem(0, 0, 0.0, 0.0))
    };
    let r = sim::run(&cfg, &design, "mem_arb", &opt).expect("runs");
    let r = sim::mem_arb::with_figures(r, &cfg, &opt, MemRows::default());
    assert!(r.passed, "{:?}", r.errors);
    let a = r.mem_arb.expect("figures");
    assert!(a.switches > 1000, "{a:?}");
    assert_eq!(a.switch_idle_max, 0, "{a:?}");
    assert!(a.utilization > 0.95, "{a:?}");
}

/// The default preset at the latency its tag FIFO is sized for, so that the FIFO fills
/// when beats are stalled.
#[test]
fn reads_in_flight_sized_from_the_latency_keep_the_port_busy_and_one_fewer_does_not() {
    // Not a benchmark (BENCHMARKS.md has the figures): the Little's-law depth must carry
    // reads-only traffic at the port's rate at the latency the config states, mixed
    // traffic must not queue writes behind reads, and a depth sized for 3 clocks less
    // must fall short, or the rule would be loose.
    let run = |cfg: &Config, workload: &str| {
        let opt = SimOptions {
            workload: Some(workload.into()),
            ..options(300, 1, 0.0, 0.0, mem(100, 0, 0.0, 0.0))
        };
        let r = sim::run(cfg, &elaborate(cfg), "mem_arb", &opt).expect("runs");
        let r = sim::mem_arb::with_figures(r, cfg, &opt, MemRows::default());
        assert!(r.passed, "{:?}", r.errors);
        r.mem_arb.expect("figures").utilization
    };
    let cfg = gpurtl::config::load(None).expect("default");
    assert_eq!(cfg.mem.as_ref().expect("mem").outstanding_reads, 26);
    let reads = run(&cfg, "reads");
    assert!(reads > 0.95, "reads only: {reads}");
    let mixed = run(&cfg, "saturate");
    assert!(mixed > 0.90, "reads and writes: {mixed}");
    // Every reader at the shortest reader's bursts, the case the rule sizes for.
    let mut fours = cfg.clone();
    for r in &mut fours.mem.as_mut().expect("mem").requesters {
        r.max_burst = 4;
    }
    let full = run(&fours, "reads");
    assert!(full > 0.95, "bursts of 4: {full}");
    let mut short = fours.clone();
    short.mem.as_mut().expect("mem").outstanding_reads = gpurtl::config::reads_in_flight(97, 4);
    assert_eq!(short.mem.as_ref().expect("mem").outstanding_reads, 25);
    let fewer = run(&short, "reads");
    assert!(fewer < full - 0.01, "{fewer} vs {full}");
}

fn run_broken(from: &str, to: &str, seed: u64) -> SimReport {
    let cfg = gpurtl::config::load(None).expect("default");
    let opts = options(150, seed, 0.2, 0.2, mem(100, 2, 0.1, 0.1));
    run_mutated(&cfg, "mem_arb", "mem_arb", (from, to), &opts)
}

#[test]
fn cosim_catches_broken_arbiters_and_a_seed_reproduces_the_failure() {
    // Reads issued without room for their tag: beats go to the wrong requester.
    let from = "wire send_room = write_q ? wtag_room_q : tag_room_q;";
    let to = "wire send_room = write_q ? wtag_room_q : 1'b1;";
    let a = run_broken(from, to, 5);
    assert!(!a.passed && a.mismatches > 0, "{:?}", a.errors);
    assert!(a.errors.iter().any(|e| e.contains("model expects")));
    assert!(a.vectors_dir.is_some(), "a failed run keeps its vectors");
    let b = run_broken(from, to, 5);
    assert_eq!(a.errors, b.errors, "the same seed reproduces the failure");
    assert_eq!(a.cycles, b.cycles);

    // Write beats of a burst counted one short: the next burst's first beat lands in the
    // wrong place, which only the end-of-run memory image shows.
    let r = run_broken(
        "wtag_left_q <= wtag_len;",
        "wtag_left_q <= wtag_len - 1'b1;",
        7,
    );
    assert!(!r.passed, "{:?}", r.errors);
}

#[test]
fn cosim_catches_an_arbiter_that_ignores_or_moves_the_write_strobes() {
    // The default preset's write beats reach the skid from the beat register; these
    // arbiters pass the data and replace the strobes on the way.
    let from = ".in_data_i (wstage_data_q),";
    // Every byte enabled, whatever the writer asked: bytes the model keeps are written.
    let ignored = run_broken(
        from,
        ".in_data_i ({ {(WBeatW - DataW){1'b1}}, wstage_data_q[DataW-1:0]}),",
        5,
    );
    assert!(!ignored.passed, "{:?}", ignored.errors);
    assert!(
        ignored.errors.iter().any(|e| e.contains("model expects")),
        "{:?}",
        ignored.errors
    );
    // Each strobe one byte up (the top one wraps to byte 0): only the partial masks
    // change, and they must be enough to fail the run.
    let moved = run_broken(
        from,
        ".in_data_i ({wstage_data_q[WBeatW-2:DataW], wstage_data_q[WBeatW-1], \
         wstage_data_q[DataW-1:0]}),",
        5,
    );
    assert!(
        !moved.passed && moved.errors.iter().any(|e| e.contains("model expects")),
        "{:?}",
        moved.errors
    );
}

#[test]
fn starvation_by_fixed_priority_is_told_from_loss() {
    // Seed 002's fixed priority under saturation: the lower requesters wait while the
    // higher ones stream, far past the stuck limit. That is the policy, reported with the
    // longest wait, not a loss; a response that is really lost still fails the run.
    let cfg = gpurtl::config::load(Some(std::path::Path::new("configs/seed002_hmgpu.toml")))
        .expect("seed002");
    let design = elaborate(&cfg);
    let opt = SimOptions {
        workload: Some("saturate".into()),
        ..options(2000, 1, 0.0, 0.0, mem(100, 0, 0.0, 0.0))
    };
    let r = sim::run(&cfg, &design, "mem_arb", &opt).expect("runs");
    let r = sim::mem_arb::with_figures(r, &cfg, &opt, MemRows::default());
    assert!(r.passed, "{:?}", r.errors);
    let a = r.mem_arb.expect("figures");
    let names: Vec<&str> = a.policy_waits.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        names,
        [
            "raster_rdata",
            "texture_rdata",
            "engine2d_rdata",
            "shader_rdata",
            "host_rdata"
        ],
        "every requester below the first can starve"
    );
    let host = a.policy_waits.last().expect("host").1;
    // Past the harness's stuck limit (100,000 clocks): only the policy rule lets it pass.
    assert!(
        host > 100_000,
        "the lowest waits while the others stream: {host}"
    );

    // The lowest requester's beats dropped: once the others are done nothing moves, and
    // the run calls it lost, once (not also extra).
    let broken = run_mutated(
        &cfg,
        "mem_arb",
        "mem_arb",
        (
            "assign host_rdata_valid_o = rd_valid & head_host;",
            "assign host_rdata_valid_o = 1'b0 & rd_valid & head_host;",
        ),
        &opt,
    );
    assert!(!broken.passed);
    assert!(
        broken.errors.iter().any(|e| e.contains("host_rdata")
            && e.contains("with no port of the unit moving")
            && e.contains("never came")),
        "{:?}",
        broken.errors
    );
    assert!(
        !broken.errors.iter().any(|e| e.contains("extra")),
        "{:?}",
        broken.errors
    );
}
