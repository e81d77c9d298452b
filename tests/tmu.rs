//! Co-simulation of the `tmu` unit (descriptors, LOD, texel addresses, texture cache,
//! filter lanes) in Verilator against `model::tmu::unit`: random descriptors (every
//! format, filter and wrap code, disabled and unknown ones included), rotated and scaled
//! quads, explicit LODs, NaN, infinite, huge and negative coordinates, masked lanes,
//! descriptor rewrites between samples; random input gaps, output stalls and memory
//! latency over several seeds; and a broken variant that must fail.

mod common;

use common::*;
use gpurtl::config::Config;
use gpurtl::sim::{self, MemTiming};

fn preset(name: &str) -> Config {
    let text =
        std::fs::read_to_string(project_dir().join("configs").join(name)).expect("preset readable");
    parse(&text, name)
}

/// Builds the unit (with `from` replaced by `to`) and runs (seed, gap, stall, latency).
fn run(
    cfg: &Config,
    mutation: Option<(&str, &str)>,
    count: usize,
    runs: &[(u64, f64, f64, u64)],
) -> bool {
    let mut design = elaborate(cfg);
    if let Some((from, to)) = mutation {
        let m = design
            .modules
            .iter_mut()
            .find(|m| m.kind == "tmu_addr")
            .expect("tmu_addr module");
        m.text = mutate(&m.text, from, to);
    }
    let unit = design.unit("tmu").expect("tmu unit").clone();
    let (dir, _) = sim::build(cfg, &design, &unit, false, &work_dir()).expect("verilates");
    runs.iter().all(|&(seed, gap, stall, latency)| {
        let mut opt = sim_options(count, seed, gap, stall);
        opt.mem = MemTiming {
            latency,
            ..Default::default()
        };
        let r = sim::run_built(cfg, &unit, &dir, false, &opt).expect("runs");
        if mutation.is_none() {
            assert!(
                r.passed,
                "{} seed {seed} gap {gap} stall {stall} latency {latency}: {:?} (vectors in {:?})",
                cfg.design.name, r.errors, r.vectors_dir
            );
            assert_eq!(r.transactions, count as u64, "every sample answers");
        }
        r.passed
    })
}

#[test]
fn seed_organisation_four_lanes_matches_the_model() {
    // Quads with LOD from their differences, rgba8888 / rgb565 / dxt1, 4x4 tiles.
    let cfg = preset("seed001_tmu.toml");
    run(
        &cfg,
        None,
        1500,
        &[(1, 0.0, 0.0, 20), (2, 0.3, 0.4, 100), (3, 0.1, 0.0, 1)],
    );
}

#[test]
fn one_lane_linear_layout_matches_the_model_and_a_broken_shift_fails() {
    // One lane: explicit LOD or 0; linear texel layout; 8-bit weights.
    let cfg = preset("fpga_small.toml");
    let runs = [(4, 0.0, 0.0, 20), (5, 0.4, 0.3, 60)];
    run(&cfg, None, 2000, &runs);
    // A logical shift where GL's floor needs an arithmetic one: clamp to edge then reads
    // the far edge for coordinates left of the texture.
    assert!(
        !run(
            &cfg,
            Some(("$signed(vt) >>> WBits", "$signed(vt) >> WBits")),
            2000,
            &runs
        ),
        "a logical shift of v must fail"
    );
}
