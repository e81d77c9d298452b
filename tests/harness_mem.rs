//! The harness's memory model, driven through a hand-written test DUT that passes burst
//! requests to its memory port and memory beats to its output: latency, bandwidth,
//! backpressure and the memory contents shared with the Rust side (`memory_word`).

mod common;

use std::collections::BTreeMap;

use common::*;
use gpurtl::model::Expectation;
use gpurtl::rng::memory_word;
use gpurtl::rtl::{Design, Dir, MemPort, Module, StreamPort, Unit};
use gpurtl::sim::{self, MemTiming, SimOptions, SimReport};
use gpurtl::vectors::{Bits, PortVectors, VectorSet};

const BEATS: u32 = 4;
const BUS: u32 = 64;

/// How the test DUT may break the memory request protocol.
#[derive(Clone, Copy, PartialEq)]
enum Bug {
    None,
    /// The memory request's valid waits for its ready.
    ValidFromReady,
    /// The input is always taken, so a stalled memory request changes under the stall.
    IgnoresStall,
}

/// Passes `req` to the memory port and memory beats to `rsp`, all combinational.
fn reader(bug: Bug) -> String {
    let mem_valid = if bug == Bug::ValidFromReady {
        "req_valid_i & mem_req_ready_i"
    } else {
        "req_valid_i"
    };
    let req_ready = if bug == Bug::IgnoresStall {
        "1'b1"
    } else {
        "mem_req_ready_i"
    };
    format!(
        "module memtest_reader (
  input  wire        clk_i,
  input  wire        rst_ni,
  input  wire        req_valid_i,
  output wire        req_ready_o,
  input  wire [31:0] req_data_i,
  output wire        rsp_valid_o,
  input  wire        rsp_ready_i,
  output wire [63:0] rsp_data_o,
  output wire        mem_req_valid_o,
  input  wire        mem_req_ready_i,
  output wire [31:0] mem_req_addr_o,
  input  wire        mem_rsp_valid_i,
  output wire        mem_rsp_ready_o,
  input  wire [63:0] mem_rsp_data_i
);
  assign mem_req_valid_o = {mem_valid};
  assign req_ready_o     = {req_ready};
  assign mem_req_addr_o  = req_data_i;
  assign rsp_valid_o     = mem_rsp_valid_i;
  assign mem_rsp_ready_o = rsp_ready_i;
  assign rsp_data_o      = mem_rsp_data_i;
endmodule
"
    )
}

fn design(text: String) -> (Design, Unit) {
    let unit = Unit {
        name: "memtest",
        top: "memtest_reader".into(),
        modules: vec!["memtest_reader".into()],
        ports: vec![
            StreamPort {
                name: "req".into(),
                dir: Dir::In,
                width: 32,
            },
            StreamPort {
                name: "rsp".into(),
                dir: Dir::Out,
                width: BUS,
            },
        ],
        mem_ports: vec![MemPort {
            name: "mem".into(),
            addr_width: 32,
            data_width: BUS,
            beats: BEATS,
        }],
        stages: Vec::new(),
        probes: Vec::new(),
    };
    let module = Module {
        name: "memtest_reader".into(),
        kind: "memtest_reader",
        parameters: BTreeMap::new(),
        instantiates: Vec::new(),
        text,
    };
    let d = Design {
        name: "memtest".into(),
        modules: vec![module],
        units: vec![unit.clone()],
    };
    (d, unit)
}

/// Burst addresses and the beats memory must return for them.
fn vectors(n: usize, seed: u64) -> VectorSet {
    let burst_bytes = u64::from(BEATS * BUS / 8);
    let addrs: Vec<u64> = (0..n as u64)
        .map(|i| (i * 7 + seed * 1000) * burst_bytes)
        .collect();
    let mut beats = Vec::new();
    for a in &addrs {
        for b in 0..u64::from(BEATS) {
            let at = a + b * u64::from(BUS / 8);
            let word = u64::from(memory_word(at)) | (u64::from(memory_word(at + 4)) << 32);
            beats.push(Bits::from_u64(BUS, word));
        }
    }
    VectorSet {
        unit: "memtest".into(),
        seed,
        ports: vec![
            PortVectors {
                port: StreamPort {
                    name: "req".into(),
                    dir: Dir::In,
                    width: 32,
                },
                items: addrs.iter().map(|a| Bits::from_u64(32, *a)).collect(),
            },
            PortVectors {
                port: StreamPort {
                    name: "rsp".into(),
                    dir: Dir::Out,
                    width: BUS,
                },
                items: beats,
            },
        ],
    }
}

fn run(text: String, n: usize, mem: MemTiming, stall: f64, exact_cycles: Option<u64>) -> SimReport {
    let cfg = parse(
        "[design]\nname = \"memtest\"\n[hs_chain]\nwidth = 1\nstages = [\"skid\"]\n",
        "memtest",
    );
    let (design, unit) = design(text);
    let work = project_dir().join("target").join("test-sim");
    let (dir, _) = sim::build(&cfg, &design, &unit, false, &work).expect("verilates");
    let opt = SimOptions {
        stall,
        mem,
        ..SimOptions::new(n, 3, work)
    };
    let expect = Expectation {
        cycles: exact_cycles,
        peak_rate: 1.0,
        capacity: 0,
        cache: None,
        may_starve: Vec::new(),
        quiet: 0,
        starts_after: Vec::new(),
    };
    sim::run_vectors(&unit, &dir, false, &opt, &vectors(n, 3), &expect).expect("runs")
}

#[test]
fn memory_returns_the_shared_words_after_the_latency() {
    for latency in [0u64, 1, 100] {
        let n = 50;
        let mem = MemTiming {
            latency,
            ..MemTiming::default()
        };
        // First beat one clock after the request plus the latency, then one beat a clock.
        let expect = latency + 1 + n as u64 * u64::from(BEATS);
        let r = run(reader(Bug::None), n, mem, 0.0, Some(expect));
        assert!(r.passed, "latency {latency}: {:?}", r.errors);
        assert_eq!(r.cycles, expect);
        let m = &r.memory[0];
        assert_eq!(
            (m.requests, m.beats, m.outstanding),
            (n as u64, n as u64 * u64::from(BEATS), 0)
        );
        assert!((m.utilization - m.beats as f64 / r.cycles as f64).abs() < 1e-12);
    }
}

#[test]
fn memory_under_jitter_gaps_and_backpressure_still_delivers_in_order() {
    let mem = MemTiming {
        latency: 20,
        jitter: 30,
        gap: 0.5,
        stall: 0.5,
    };
    let r = run(reader(Bug::None), 200, mem, 0.3, None);
    assert!(r.passed, "{:?}", r.errors);
    let m = &r.memory[0];
    // Half the beat slots are lost: the bus runs at most about half full.
    assert!(m.utilization < 0.6, "utilisation {}", m.utilization);
}

#[test]
fn a_memory_request_that_waits_for_ready_is_caught() {
    let mem = MemTiming {
        latency: 5,
        stall: 0.5,
        ..MemTiming::default()
    };
    let r = run(reader(Bug::ValidFromReady), 50, mem, 0.0, None);
    assert!(!r.passed);
    assert!(
        r.errors
            .iter()
            .any(|e| e.contains("request ready combinationally")),
        "{:?}",
        r.errors
    );
}

#[test]
fn a_memory_request_that_changes_while_stalled_is_caught() {
    let mem = MemTiming {
        latency: 5,
        stall: 0.5,
        ..MemTiming::default()
    };
    let r = run(reader(Bug::IgnoresStall), 50, mem, 0.0, None);
    assert!(!r.passed);
    assert!(
        r.errors
            .iter()
            .any(|e| e.contains("request dropped or changed while stalled")),
        "{:?}",
        r.errors
    );
}

/// The pass-through DUT and the harness's drivers in Rust, around the Rust memory model:
/// the clocks the co-simulation must take, drawn from the same random streams.
fn predicted_cycles(n: u64, seed: u64, stall: f64, t: MemTiming) -> u64 {
    use gpurtl::model::memory::{Memory, Timing};
    use gpurtl::rng::{Rng, STREAM_PORT_BASE};
    let timing = Timing {
        latency: t.latency,
        jitter: t.jitter,
        gap: t.gap,
        stall: t.stall,
    };
    let mut in_rng = Rng::stream(seed, STREAM_PORT_BASE);
    let mut out_rng = Rng::stream(seed, STREAM_PORT_BASE + 1);
    let mut mem = Memory::new(timing, BEATS, seed, 2);
    let (mut presenting, mut next, mut received, mut cycle) = (false, 0u64, 0u64, 0u64);
    while received < n * u64::from(BEATS) {
        // The harness's input has no gaps here (gap 0 still draws).
        if !presenting && next < n && !in_rng.chance(0.0) {
            presenting = true;
        }
        let out_ready = !out_rng.chance(stall);
        let d = mem.drive(cycle);
        if d.rsp.is_some() && out_ready {
            received += 1;
        }
        let taken = presenting && d.req_ready;
        mem.edge(cycle, taken.then_some(next), out_ready);
        if taken {
            presenting = false;
            next += 1;
        }
        cycle += 1;
    }
    cycle
}

#[test]
fn the_rust_memory_model_predicts_the_harness_clock_for_clock() {
    let timings = [
        (
            0.0,
            MemTiming {
                latency: 7,
                jitter: 0,
                gap: 0.0,
                stall: 0.0,
            },
        ),
        (
            0.3,
            MemTiming {
                latency: 20,
                jitter: 30,
                gap: 0.3,
                stall: 0.3,
            },
        ),
        (
            0.9,
            MemTiming {
                latency: 100,
                jitter: 5,
                gap: 0.5,
                stall: 0.1,
            },
        ),
    ];
    for (stall, mem) in timings {
        let expect = predicted_cycles(60, 3, stall, mem);
        let r = run(reader(Bug::None), 60, mem, stall, Some(expect));
        assert!(r.passed, "{stall} {mem:?}: {:?}", r.errors);
        assert_eq!(r.cycles, expect);
    }
}
