//! The GPU top: the IPU, the router and memory manager behind it, the TMU and the host
//! on one memory, co-simulated against the subsystem's model under random gaps, stalls
//! and memory timing; every output transaction and the whole memory image checked;
//! broken engines caught.

mod common;

use common::*;
use gpurtl::config::Config;
use gpurtl::sim::{self, MemTiming, SimOptions, SimReport};

fn default() -> Config {
    gpurtl::config::load(None).expect("the embedded default has the GPU top")
}

fn options(count: usize, seed: u64, gap: f64, stall: f64, mem: MemTiming) -> SimOptions {
    SimOptions {
        mem,
        ..sim_options(count, seed, gap, stall)
    }
}

fn timing(latency: u64, jitter: u64, gap: f64, stall: f64) -> MemTiming {
    MemTiming {
        latency,
        jitter,
        gap,
        stall,
    }
}

/// Every run passed, with every kind of traffic there: pixels and words written and
/// checked in the image, reads, colours, passed words.
fn assert_whole(r: &SimReport, what: &str) {
    assert!(r.passed, "{what}: {:#?}", r.errors);
    let m = r.memory.iter().find(|m| m.name == "mem").expect("memory");
    assert!(m.image_words.unwrap_or(0) > 100, "{what}: {m:?}");
    assert!(
        m.read_beats.unwrap_or(0) > 100 && m.write_beats.unwrap_or(0) > 100,
        "{what}: {m:?}"
    );
    assert_eq!(m.outstanding, 0, "{what}");
    for port in ["pass", "color", "mm_rsp", "host_rdata"] {
        let p = r.ports.iter().find(|p| p.name == port).expect(port);
        assert!(p.transactions > 0, "{what}: no {port} transactions");
    }
}

#[test]
fn default_preset_under_gaps_stalls_and_memory_timing() {
    let cfg = default();
    let design = elaborate(&cfg);
    let unit = design.unit("gpu").expect("gpu unit");
    let (dir, _) = sim::build(&cfg, &design, unit, false, &work_dir()).expect("verilates");
    for (seed, gap, stall, m) in [
        (1, 0.0, 0.0, timing(100, 0, 0.0, 0.0)),
        (2, 0.3, 0.3, timing(100, 8, 0.1, 0.2)),
        (3, 0.5, 0.5, timing(20, 3, 0.0, 0.5)),
    ] {
        let r = sim::run_built(&cfg, unit, &dir, false, &options(120, seed, gap, stall, m))
            .expect("runs");
        assert_whole(&r, &format!("seed {seed}, gap {gap}, stall {stall}, {m:?}"));
    }
}

fn four_lanes() -> Config {
    let cfg = parse(&configs::gpu_four_lanes(), "four lanes");
    assert_eq!(
        (
            cfg.ipu.as_ref().map(|i| i.lanes),
            cfg.tmu.as_ref().map(|t| t.lanes)
        ),
        (Some(4), Some(4))
    );
    cfg
}

#[test]
fn four_lanes_under_gaps_and_stalls() {
    let cfg = four_lanes();
    let design = elaborate(&cfg);
    let unit = design.unit("gpu").expect("gpu unit");
    let (dir, _) = sim::build(&cfg, &design, unit, false, &work_dir()).expect("verilates");
    for (seed, gap, stall, m) in [
        (4, 0.0, 0.0, timing(100, 0, 0.0, 0.0)),
        (5, 0.3, 0.3, timing(60, 6, 0.1, 0.2)),
    ] {
        let r = sim::run_built(&cfg, unit, &dir, false, &options(120, seed, gap, stall, m))
            .expect("runs");
        assert_whole(&r, &format!("4 lanes, seed {seed}"));
    }
}

/// Every branch of the engines' templates: a short run each, under gaps and stalls.
#[test]
fn config_variants_under_gaps_and_stalls() {
    for (name, toml) in configs::gpu_variants() {
        let cfg = parse(&toml, name);
        let design = elaborate(&cfg);
        let unit = design.unit("gpu").expect("gpu unit");
        let (dir, _) = sim::build(&cfg, &design, unit, false, &work_dir()).expect("verilates");
        let r = sim::run_built(
            &cfg,
            unit,
            &dir,
            false,
            &options(60, 7, 0.2, 0.3, timing(40, 5, 0.0, 0.2)),
        )
        .expect("runs");
        assert!(r.passed, "{name}: {:#?}", r.errors);
        let m = r.memory.iter().find(|m| m.name == "mem").expect("memory");
        assert!(m.image_words.unwrap_or(0) > 0, "{name}: writes checked");
    }
}

/// A broken variant of an engine on seed 2 (of the default, or with COPY_TEX_IMAGE's words
/// on their own requester): the run fails.
fn broken_in(cfg: &Config, kind: &str, from: &str, to: &str) -> SimReport {
    let opts = options(120, 2, 0.2, 0.2, timing(100, 4, 0.0, 0.0));
    run_mutated(cfg, "gpu", kind, (from, to), &opts)
}

fn broken(kind: &str, from: &str, to: &str) -> SimReport {
    broken_in(&default(), kind, from, to)
}

#[test]
fn cosim_catches_broken_engines() {
    // A pixel's write enables every byte of its beat: its neighbour is overwritten.
    let r = broken(
        "gpu_fb",
        "wire [StrbW-1:0] pstrb = { {(StrbW - 4){1'b0}}, 4'hf} << (4 * pidx[PpbW-1:0]);",
        "wire [StrbW-1:0] pstrb = {StrbW{1'b1}};",
    );
    assert!(!r.passed, "pixel strobes");
    assert!(
        r.errors.iter().any(|e| e.contains("at the end, the beat")),
        "{:?}",
        r.errors
    );
    // A region read from its row's first beat, not its first pixel: READ_PIXELS' words
    // (in memory) and copies' pixels shift.
    let r = broken(
        "gpu_fb",
        "skip_q     <= qpix[PpbW-1:0];",
        "skip_q     <= {PpbW{1'b0}};",
    );
    assert!(!r.passed, "region skip");
    // The row's last pixel taken a pixel early: a row's last word closes too soon.
    let r = broken(
        "gpu_fb",
        "pleft_one_q <= (pleft_q == 16'd2);",
        "pleft_one_q <= (pleft_q == 16'd3);",
    );
    assert!(!r.passed, "row's pixel count");
    // The DMA ring's requests not starting a beat apart: draws read the wrong words.
    let r = broken(
        "gpu_dma",
        "rptr_q <= rptr_q + ",
        "rptr_q <= rptr_q + 1'b1 + ",
    );
    assert!(!r.passed, "DMA ring");
    // The burst's size without the flag for a whole burst left: a long draw's bursts take
    // the count's low bits.
    let r = broken("gpu_dma", "wire few = ~beats_big_q & (", "wire few = (");
    assert!(!r.passed, "DMA burst size");
    // The region read's issue reading its flags the clock after its counts changed: the
    // region's last burst is followed by one more, for a row that is not there.
    let r = broken(
        "gpu_fb",
        "wire rd_go = fresh_q & rv_q &",
        "wire rd_go = rv_q &",
    );
    assert!(!r.passed, "region issue's flags");
    // COPY_TEX_IMAGE's words changed, where they share the framebuffer's requester and
    // where they have their own.
    let r = broken(
        "gpu_fb",
        "wire [WordW-1:0] tword = tin_data[WordW-1:0];",
        "wire [WordW-1:0] tword = tin_data[WordW-1:0] ^ 1;",
    );
    assert!(!r.passed, "shared texture words");
    let own = parse(&configs::gpu_own_texture_writer(), "own texture writer");
    let r = broken_in(
        &own,
        "gpu_texw",
        "wire [WordW-1:0] word = tex_data_i[WordW-1:0];",
        "wire [WordW-1:0] word = tex_data_i[WordW-1:0] ^ 1;",
    );
    assert!(!r.passed, "texture words");
    assert!(r.vectors_dir.is_some(), "a failed run keeps its vectors");
    // The router passing a memory manager command's argument on as a word of its own.
    let r = broken(
        "gpu_route",
        "assign pass_valid_o = w_valid & ~hdr_valid_q & ~is_cmd;",
        "assign pass_valid_o = w_valid & ~is_cmd;",
    );
    assert!(!r.passed && r.mismatches > 0, "router: {:?}", r.errors);
    // The router's descriptor writes with their data inverted: the TMU samples other
    // levels, sizes and modes.
    let r = broken(
        "gpu_route",
        "hdr_q[RegW-1:0], w_data};",
        "hdr_q[RegW-1:0], ~w_data};",
    );
    assert!(
        !r.passed && r.mismatches > 0,
        "descriptor writes: {:?}",
        r.errors
    );
}
