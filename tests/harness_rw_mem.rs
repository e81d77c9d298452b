//! The harness's read/write memory model (mem_arb's memory port) against the Rust one
//! (`model::memory::RwMemory`), through a hand-written DUT that wires one requester
//! straight to the memory port: the same data, the same end image, and the same clock
//! count under latency, jitter, lost beat slots, backpressure and row penalties, with
//! write beats whose byte strobes enable every byte, some or none.

mod common;

use std::collections::BTreeMap;

use common::*;
use gpurtl::config::Config;
use gpurtl::iface::mem_arb::unit_ports;
use gpurtl::model::Expectation;
use gpurtl::model::mem_arb::{Stream, traffic, vectors, wbeat_strb};
use gpurtl::model::memory::{RwBurst, RwMemory, Timing};
use gpurtl::rtl::{Design, Module, Unit};
use gpurtl::sim::{self, MemRows, MemTiming, SimOptions};

/// One requester `q` that reads and writes, 64-bit beats, bursts of up to 4.
fn config() -> Config {
    parse(
        "[design]\nname = \"rwtest\"\n[hs_chain]\nwidth = 1\nstages = [\"skid\"]\n[mem]\n\
         data_bits = 64\nmax_burst = 4\npolicy = \"round_robin\"\n\
         [[mem.requesters]]\nname = \"q\"\naccess = \"both\"\nmax_burst = 4\n",
        "rwtest",
    )
}

/// The requester's streams wired to the memory port, nothing in between.
const WIRES: &str = "module rwtest (
  input  wire        clk_i,
  input  wire        rst_ni,
  input  wire        q_req_valid_i,
  output wire        q_req_ready_o,
  input  wire [34:0] q_req_data_i,
  input  wire        q_wdata_valid_i,
  output wire        q_wdata_ready_o,
  input  wire [71:0] q_wdata_data_i,
  output wire        q_rdata_valid_o,
  input  wire        q_rdata_ready_i,
  output wire [63:0] q_rdata_data_o,
  output wire        mem_req_valid_o,
  input  wire        mem_req_ready_i,
  output wire [31:0] mem_req_addr_o,
  output wire [1:0]  mem_req_len_o,
  output wire        mem_req_write_o,
  output wire [0:0]  mem_req_id_o,
  output wire        mem_wdata_valid_o,
  input  wire        mem_wdata_ready_i,
  output wire [71:0] mem_wdata_data_o,
  input  wire        mem_rdata_valid_i,
  output wire        mem_rdata_ready_o,
  input  wire [63:0] mem_rdata_data_i
);
  assign mem_req_valid_o   = q_req_valid_i;
  assign q_req_ready_o     = mem_req_ready_i;
  assign mem_req_addr_o    = q_req_data_i[31:0];
  assign mem_req_len_o     = q_req_data_i[33:32];
  assign mem_req_write_o   = q_req_data_i[34];
  assign mem_req_id_o      = 1'b0;
  assign mem_wdata_valid_o = q_wdata_valid_i;
  assign q_wdata_ready_o   = mem_wdata_ready_i;
  assign mem_wdata_data_o  = q_wdata_data_i;
  assign q_rdata_valid_o   = mem_rdata_valid_i;
  assign mem_rdata_ready_o = q_rdata_ready_i;
  assign q_rdata_data_o    = mem_rdata_data_i;
endmodule
";

/// The harness's drivers (no input gaps, no output stalls) around the Rust memory: the
/// clocks the co-simulation must take, and the memory image at the end.
fn predict(s: &Stream, t: MemTiming, rows: MemRows, seed: u64) -> (u64, BTreeMap<u64, u64>) {
    let timing = Timing {
        latency: t.latency,
        jitter: t.jitter,
        gap: t.gap,
        stall: t.stall,
    };
    // Ports: q_req 0, q_wdata 1, q_rdata 2, then the memory.
    let mut mem = RwMemory::new(timing, rows.bits, rows.penalty, 64, seed, 3);
    let reads: u64 = s
        .bursts
        .iter()
        .filter(|b| !b.write)
        .map(|b| u64::from(b.beats))
        .sum();
    let (mut req_on, mut req_next, mut w_on, mut w_next) = (false, 0, false, 0);
    let (mut req_pin, mut received, mut cycle) = (false, 0u64, 0u64);
    loop {
        // The harness stops once every beat arrived, every input was taken, memory is
        // idle and no request is offered (the request pin as last driven).
        if received == reads
            && req_next == s.bursts.len()
            && w_next == s.wdata.len()
            && mem.idle()
            && !req_pin
        {
            break;
        }
        req_on |= req_next < s.bursts.len();
        w_on |= w_next < s.wdata.len();
        req_pin = req_on;
        let d = mem.drive(cycle);
        let req = (req_on && d.req_ready).then(|| {
            let b = s.bursts[req_next];
            RwBurst::new(b.addr, b.beats, b.write, 0)
        });
        let w = (w_on && d.wdata_ready).then(|| s.wdata[w_next].clone());
        received += u64::from(d.rdata.is_some());
        mem.edge(cycle, req, w.as_ref(), true);
        if req.is_some() {
            req_on = false;
            req_next += 1;
        }
        if w.is_some() {
            w_on = false;
            w_next += 1;
        }
        cycle += 1;
        assert!(cycle < 1_000_000, "prediction stuck");
    }
    let image = mem.image.iter().map(|(a, d)| (*a, d.low_u64())).collect();
    (cycle, image)
}

#[test]
fn the_rust_read_write_memory_predicts_the_harness_clock_for_clock() {
    let cfg = config();
    let mem = cfg.mem.clone().expect("mem");
    let unit = Unit {
        name: "mem_arb",
        top: "rwtest".into(),
        modules: vec!["rwtest".into()],
        ports: unit_ports(&mem),
        mem_ports: Vec::new(),
        stages: Vec::new(),
        probes: Vec::new(),
    };
    let design = Design {
        name: "rwtest".into(),
        modules: vec![Module {
            name: "rwtest".into(),
            kind: "rwtest",
            parameters: BTreeMap::new(),
            instantiates: Vec::new(),
            text: WIRES.into(),
        }],
        units: vec![unit.clone()],
    };
    let work = project_dir().join("target").join("test-sim");
    let (dir, _) = sim::build(&cfg, &design, &unit, false, &work).expect("verilates");
    let t = |latency, jitter, gap, stall| MemTiming {
        latency,
        jitter,
        gap,
        stall,
    };
    let runs = [
        (t(0, 0, 0.0, 0.0), MemRows::default()),
        (t(7, 0, 0.0, 0.0), MemRows::default()),
        (t(20, 30, 0.3, 0.3), MemRows::default()),
        (
            t(5, 2, 0.1, 0.2),
            MemRows {
                bits: 6,
                penalty: 4,
            },
        ),
    ];
    for (i, (m, rows)) in runs.into_iter().enumerate() {
        let seed = 10 + i as u64;
        let streams = traffic(&mem, 120, seed, None).expect("traffic");
        // The write beats strobe every byte, some and none, so both memories merge bytes.
        let strbs: Vec<u64> = streams[0].wdata.iter().map(|w| wbeat_strb(w, 64)).collect();
        assert!(strbs.contains(&0xff) && strbs.contains(&0), "{strbs:?}");
        assert!(strbs.iter().any(|&s| s != 0 && s != 0xff), "{strbs:?}");
        let (cycles, image) = predict(&streams[0], m, rows, seed);
        // The model's own image (each requester's bursts in order) agrees with the
        // memory model's.
        let (_, model_image) = gpurtl::model::mem_arb::run(&mem, &streams);
        let model_image: BTreeMap<u64, u64> =
            model_image.iter().map(|(a, d)| (*a, d.low_u64())).collect();
        assert_eq!(image, model_image);
        let opt = SimOptions {
            mem: m,
            ..SimOptions::new(120, seed, work.clone())
        };
        let expect = Expectation {
            cycles: Some(cycles),
            peak_rate: 1.0,
            capacity: 0,
            cache: None,
            may_starve: Vec::new(),
            quiet: 0,
            starts_after: Vec::new(),
        };
        let v = vectors(&mem, 120, seed, None).expect("vectors");
        let r = sim::run_vectors_rows(&unit, &dir, false, &opt, &v, &expect, rows).expect("runs");
        assert!(r.passed, "{m:?} {rows:?}: {:?}", r.errors);
        assert_eq!(r.cycles, cycles, "{m:?} {rows:?}");
    }
}
