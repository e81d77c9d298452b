//! Co-simulation of the `tex_filter` unit (format converters and filter lanes) against
//! the model: every enabled format, bilinear and trilinear passes, 1 to 8 lanes, both
//! outputs, under random gaps and stalls; and proof that broken arithmetic is caught.

mod common;

use common::*;
use gpurtl::config::Config;
use gpurtl::sim;

fn filter_config(name: &str, lanes: u32, formats: &str, bits: u32, output: &str) -> Config {
    filter_config_at(name, 200.0, lanes, formats, bits, output, "logic")
}

/// `products`: `[tmu] filter_products`.
fn filter_config_at(
    name: &str,
    mhz: f64,
    lanes: u32,
    formats: &str,
    bits: u32,
    output: &str,
    products: &str,
) -> Config {
    parse(
        &format!(
            "[design]\nname = \"{name}\"\nmodule_prefix = \"f_\"\n[clock]\ntarget_mhz = {mhz}\n\
             [tmu]\nlanes = {lanes}\nformats = [{formats}]\nweight_bits = {bits}\noutput = \"{output}\"\n\
             filter_products = \"{products}\"\n\
             [tmu.cache]\nsize_bytes = 1024\nline_bytes = 64\nways = 2\nbanks = 4\nports = {}\n\
             mshr_entries = 2\nreplacement = \"lru\"\nbus_bits = 32\nlayout = \"tiled4x4\"\nqueue_depth = 4\n",
            lanes * 4
        ),
        name,
    )
}

/// Builds the unit (with `from` replaced by `to` when given) and runs it on each of
/// `runs` = (seed, gap, stall); returns whether every run passed.
fn run(
    cfg: &Config,
    mutation: Option<(&str, &str)>,
    count: usize,
    runs: &[(u64, f64, f64)],
) -> bool {
    let (unit, dir) = build_unit(
        cfg,
        "tex_filter",
        mutation.map(|(f, t)| ("tex_filter", f, t)),
    );
    runs.iter().all(|&(seed, gap, stall)| {
        let r = sim::run_built(
            cfg,
            &unit,
            &dir,
            false,
            &sim_options(count, seed, gap, stall),
        )
        .expect("runs");
        if mutation.is_none() {
            assert!(
                r.passed,
                "{} seed {seed} gap {gap} stall {stall}: {:?} (vectors in {:?})",
                cfg.design.name, r.errors, r.vectors_dir
            );
            assert!(r.transactions > count as u64 / 2, "most requests answer");
        }
        r.passed
    })
}

const ALL: &str = r#""rgba8888", "rgb565", "rgba4444", "rgba5551", "l8", "la88", "a8", "dxt1""#;

#[test]
fn every_format_one_lane_rgba8() {
    let cfg = filter_config("flt1", 1, ALL, 10, "rgba8");
    assert!(run(
        &cfg,
        None,
        3000,
        &[(1, 0.0, 0.0), (2, 0.3, 0.3), (3, 0.9, 0.1), (4, 0.1, 0.9)]
    ));
}

#[test]
fn four_lanes_fp32_and_two_lanes_narrow_weights() {
    let cfg = filter_config("flt4", 4, r#""rgba8888", "rgb565", "dxt1""#, 12, "fp32");
    assert!(run(&cfg, None, 1500, &[(5, 0.2, 0.2), (6, 0.0, 0.5)]));
    let cfg = filter_config(
        "flt2",
        2,
        r#""l8", "la88", "a8", "rgba4444", "rgba5551""#,
        4,
        "rgba8",
    );
    assert!(run(&cfg, None, 1500, &[(7, 0.3, 0.3), (8, 0.0, 0.0)]));
}

#[test]
fn slow_and_fast_targets_have_their_own_depths_and_stay_exact() {
    // 50 MHz packs the datapath into a few stages, 300 MHz registers every tree level.
    let mut depths = Vec::new();
    for (name, mhz) in [("fltslow", 50.0), ("fltfast", 300.0)] {
        let cfg = filter_config_at(name, mhz, 4, ALL, 10, "rgba8", "logic");
        let timing = gpurtl::iface::timing::Timing::new(&cfg.clock);
        let tmu = cfg.tmu.as_ref().expect("tmu");
        depths.push(gpurtl::iface::tex_filter::FilterPipe::new(tmu, &timing).stages);
        assert!(run(&cfg, None, 1500, &[(21, 0.0, 0.0), (22, 0.3, 0.4)]));
    }
    assert!(depths[0] < depths[1], "depths {depths:?}");
}

/// Multiplier blocks for the h and v blends: exact at one, two and four lanes, at a slow
/// target (the blocks' stages and few others) and a fast one, with the weight widths at
/// the ends of what a block takes; and three broken blocks are caught.
#[test]
fn multiplier_blocks_are_exact_at_every_depth() {
    for (name, mhz, lanes, formats, bits, output) in [
        ("fltdsp1", 200.0, 1, ALL, 10, "rgba8"),
        ("fltdsp2", 50.0, 2, r#""l8", "rgb565", "dxt1""#, 4, "rgba8"),
        (
            "fltdsp4",
            300.0,
            4,
            r#""rgba8888", "rgba4444", "dxt1""#,
            10,
            "fp32",
        ),
    ] {
        let cfg = filter_config_at(name, mhz, lanes, formats, bits, output, "dsp");
        assert!(run(&cfg, None, 1500, &[(31, 0.0, 0.0), (32, 0.3, 0.4)]));
    }
    // Four weight bits, so that dh[0] b (below 2^4) moves the rounding (at 2^8) often.
    let cfg = filter_config_at("fltdspbad", 200.0, 1, ALL, 4, "rgba8", "dsp");
    for (from, to) in [
        // The weight taken as signed: a weight with its top bit set blends backwards.
        ("a_in_q     <= {1'b0, a};", "a_in_q     <= {a[WBits-1], a};"),
        // dh's low bit, taken out of the block's input, not added back.
        ("dh[0] ? b : {WBits{1'b0}}", "{WBits{1'b0}}"),
        // The block's product of dh >> 1 not doubled.
        ("vpass + {v_o, 1'b0}", "vpass + {1'b0, v_o}"),
        // The level blend's difference taken as unsigned: a second level darker than the
        // first blends the wrong way.
        (
            "$signed(td_in_q) * $signed(f_in_q)",
            "$signed({1'b0, td_in_q[VW-1:0]}) * $signed(f_in_q)",
        ),
    ] {
        assert!(
            !run(&cfg, Some((from, to)), 1500, &[(33, 0.2, 0.2)]),
            "the broken filter ({from} -> {to}) passed"
        );
    }
    // Ten weight bits: the level blend's difference is two products.
    let cfg = filter_config_at("fltdspbad2", 200.0, 1, ALL, 10, "rgba8", "dsp");
    for (from, to) in [
        // Its upper half taken as unsigned.
        (
            "$signed(thi_in_q) * $signed(f_in_q)",
            "$signed({1'b0, thi_in_q}) * $signed(f_in_q)",
        ),
        // The halves joined one bit apart.
        ("{thi_o, 17'd0}", "{thi_o[TW-19:0], 18'd0}"),
    ] {
        assert!(
            !run(&cfg, Some((from, to)), 1500, &[(34, 0.2, 0.2)]),
            "the broken filter ({from} -> {to}) passed"
        );
    }
}

#[test]
fn broken_converters_and_filters_are_caught() {
    let cfg = filter_config("fltbad", 1, ALL, 10, "rgba8");
    let runs = [(11, 0.2, 0.2)];
    for (from, to) in [
        // 5-bit widening by bit replication: off by one for some values.
        ("5'd3: w5 = 8'd25;", "5'd3: w5 = 8'd24;"),
        // DXT1's mode test inverted at equality.
        ("word[15:0] > word[31:16];", "word[15:0] >= word[31:16];"),
        // DXT1's endpoint swap (its own flop beside the index) not inverted.
        (
            "select_d[SelSwapNLsb]         = ~idx[0];",
            "select_d[SelSwapNLsb]         = idx[0];",
        ),
        // The trilinear blend rounded before blending is lost: weight of the first level.
        ("tdiff_second ? acc_q : v_sum}", "v_sum}"),
        // Half-texel weights: the vertical blend ignores b's low bit.
        (
            "v_rows[(gk+1)*VW +: VW] = b[gk] ?",
            "v_rows[(gk+1)*VW +: VW] = (b[gk] && gk > 0) ?",
        ),
    ] {
        assert!(
            !run(&cfg, Some((from, to)), 1500, &runs),
            "the broken filter ({from} -> {to}) passed"
        );
    }
    // With two lanes DXT1's index row is picked as the request loads: always the block's
    // first row instead.
    let cfg = filter_config("fltbad3", 2, r#""rgba8888", "dxt1""#, 10, "rgba8");
    let (from, to) = (
        "row_q <= in_iw[{in_row, 3'b000} +: 8];",
        "row_q <= in_iw[{2'b00, 3'b000} +: 8];",
    );
    assert!(
        !run(&cfg, Some((from, to)), 1500, &runs),
        "the broken filter ({from} -> {to}) passed"
    );
    // With two lanes each channel has its own copy of the accumulator's enable and of the
    // second-pass select.
    let cfg = filter_config("fltbad2", 2, r#""rgba8888", "rgb565""#, 10, "rgba8");
    for (from, to) in [
        // The copy loads on the wrong passes.
        (
            "acc_en_q <= valid_pre_tdiff & (pass_pre_tdiff == PassFirst);",
            "acc_en_q <= valid_pre_tdiff & (pass_pre_tdiff != PassFirst);",
        ),
        // A second pass is not blended with the first.
        (
            "second_q <= pass_pre_tdiff == PassSecond;",
            "second_q <= 1'b0;",
        ),
        // A channel's copy of its lane's vertical weight is wrong.
        ("b_q <= ctl_pre_v[", "b_q <= ~ctl_pre_v["),
        // Likewise the weight between two levels.
        ("f_q <= ctl_pre_t[", "f_q <= ~ctl_pre_t["),
    ] {
        assert!(
            !run(&cfg, Some((from, to)), 1500, &runs),
            "the broken filter ({from} -> {to}) passed"
        );
    }
}
