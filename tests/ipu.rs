//! Co-simulation of the `ipu` unit (seed 000's image processing unit) in Verilator against
//! its model, on every output port: random command mixes (with other units' opcodes,
//! stack overflow and underflow, disabled formats and a truncated command at the end),
//! every format at every byte alignment, the seed's example, at 1, 2 and 4 lanes, under
//! random input gaps and output stalls over several seeds; DrawPixels throughput; and
//! broken DUT variants that must fail.

mod common;

use std::path::PathBuf;

use common::*;
use gpurtl::config::Config;
use gpurtl::model::ipu as m;
use gpurtl::rng::Rng;
use gpurtl::rtl::{Design, Unit};
use gpurtl::sim::{self, SimReport};
use gpurtl::units;

fn ipu_config(name: &str, reset: (&str, &str), body: &str) -> Config {
    parse(
        &format!(
            "[design]\nname = \"{name}\"\nmodule_prefix = \"i_\"\n[reset]\nkind = \"{}\"\nactive = \"{}\"\n[ipu]\n{body}",
            reset.0, reset.1
        ),
        name,
    )
}

/// The seed's organisation: one lane, bubble registers, zoom, maps (colour and
/// colour-index), bitmap; every format.
fn one_lane() -> Config {
    one_lane_with("")
}

const CONV3: &str = "[ipu.convolution]\nenabled = true\nkernel_size = 3\nmax_line_width = 16\n";

/// `one_lane` with an `[ipu.convolution]` (a filter costs Verilator build time, so only the
/// FSM coverage's build, which needs FILTER, has one).
fn one_lane_with(conv: &str) -> Config {
    ipu_config(
        if conv.is_empty() { "ipu_l1" } else { "ipu_l1c" },
        ("async", "low"),
        &format!(
            "lanes = 1\nstack_depth = 3\nbitmap = true\nframebuffer = true\n\
             formats = [\"rgba8888\", \"bgra8888\", \"rgb565\", \"rgba4444\", \"rgba5551\", \"l8\", \"la88\", \"ci8\"]\n\
             [ipu.zoom]\nenabled = true\n[ipu.pixel_map]\nenabled = true\n\
             maps = [\"r_to_r\", \"g_to_g\", \"b_to_b\", \"a_to_a\", \"i_to_r\", \"i_to_g\", \"i_to_b\", \"i_to_a\"]\n{conv}"
        ),
    )
}

/// One lane, no zoom: pixel maps (two of them) straight after bias, then a 5x5
/// convolution filter with the widest weights.
fn one_lane_plain() -> Config {
    ipu_config(
        "ipu_l1p",
        ("sync", "low"),
        "lanes = 1\nstack_depth = 3\nframebuffer = true\n[ipu.pixel_map]\nenabled = true\ntable_size = 4\n\
         maps = [\"b_to_b\", \"r_to_r\"]\n[ipu.convolution]\nenabled = true\nkernel_size = 5\n\
         max_line_width = 64\nweight_int_bits = 8\n",
    )
}

/// Four lanes, a 128-bit DMA word (32 bits without the filter), some formats (ci8 with two
/// index maps when the filter is on), mixed
/// registers (a FIFO behind the maps, a skid behind zoom), the smallest stack, a 1x1 filter with the
/// narrowest weights (the filter's line buffers are co-simulated at one lane: builds cost).
fn four_lanes() -> Config {
    four_lanes_with("[ipu.convolution]\nenabled = true\nkernel_size = 1\nweight_int_bits = 1\n")
}

fn four_lanes_with(conv: &str) -> Config {
    ipu_config(
        if conv.is_empty() { "ipu_l4n" } else { "ipu_l4" },
        ("sync", "high"),
        &format!(
            "lanes = 4\n{}bitmap = true\nframebuffer = true\nformats = [\"l8\", \"rgba8888\", \"rgb565\", \"la88\"{}]\nscale_frac_bits = 16\n\
             bias_frac_bits = 10\nscale_int_bits = 8\nbias_int_bits = 1\nstack_depth = 1\n\
             registers = [\"skid\", \"fifo:3\", \"bypass\", \"fifo:2\", \"skid\"]\n\
             [ipu.zoom]\nenabled = true\nmax_line_width = 64\n\
             [ipu.pixel_map]\nenabled = true\ntable_size = 16\nmaps = [\"a_to_a\", \"r_to_r\", \"g_to_g\", \"b_to_b\"{}]\n{conv}",
            if conv.is_empty() {
                ""
            } else {
                "dma_word_bits = 128\n"
            },
            if conv.is_empty() { "" } else { ", \"ci8\"" },
            if conv.is_empty() {
                ""
            } else {
                ", \"i_to_g\", \"i_to_a\""
            },
        ),
    )
}

/// Two lanes, a 64-bit DMA word, registers that pass ready straight through (and a skid
/// behind the maps), ci8 with two of the four index maps.
fn two_lanes() -> Config {
    ipu_config(
        "ipu_l2",
        ("async", "high"),
        "lanes = 2\ndma_word_bits = 64\nbitmap = true\nframebuffer = true\nformats = [\"bgra8888\", \"rgba4444\", \"ci8\", \"rgba5551\", \"l8\"]\nscale_frac_bits = 16\n\
         bias_frac_bits = 16\nstack_depth = 2\n\
         registers = [\"bypass\", \"bubble\", \"fifo:1\", \"skid\", \"bubble\"]\n\
         [ipu.zoom]\nenabled = true\nmax_line_width = 10\n\
         [ipu.pixel_map]\nenabled = true\ntable_size = 32\nmaps = [\"g_to_g\", \"i_to_b\", \"a_to_a\", \"i_to_r\"]\n",
    )
}

struct Built {
    cfg: Config,
    unit: Unit,
    dir: PathBuf,
}

fn build(cfg: Config, design: &Design) -> Built {
    let unit = design.unit("ipu").expect("ipu unit").clone();
    let (dir, _) = sim::build(&cfg, design, &unit, false, &work_dir()).expect("verilates");
    Built { cfg, unit, dir }
}

fn build_cfg(cfg: Config) -> Built {
    let design = elaborate(&cfg);
    build(cfg, &design)
}

/// Runs one stream; returns the report and the model's outputs.
fn run(b: &Built, stream: &m::Stream, seed: u64, gap: f64, stall: f64) -> (SimReport, m::Outputs) {
    let ipu = b.cfg.ipu.as_ref().expect("ipu");
    let (v, out) = m::encode(ipu, stream, seed);
    let e = units::expectation(&b.cfg, &b.unit, &v, gap, stall);
    let opt = sim_options(stream.cmds.len(), seed, gap, stall);
    let r = sim::run_vectors(&b.unit, &b.dir, true, &opt, &v, &e).expect("runs");
    (r, out)
}

fn check(
    b: &Built,
    stream: &m::Stream,
    seed: u64,
    gap: f64,
    stall: f64,
) -> (SimReport, m::Outputs) {
    let (r, out) = run(b, stream, seed, gap, stall);
    assert!(
        r.passed,
        "{}: seed {seed} gap {gap} stall {stall}: {:?} (vectors in {:?})",
        b.cfg.design.name, r.errors, r.vectors_dir
    );
    let expected = out.pass.len()
        + out.dma_req.len()
        + out.pix.len()
        + out.status.len()
        + out.fb_req.len()
        + out.dma_out_words(b.cfg.ipu.as_ref().expect("ipu")).len()
        + out.tex.len();
    assert_eq!(r.transactions, expected as u64);
    (r, out)
}

const PATTERNS: [(f64, f64); 5] = [(0.0, 0.0), (0.3, 0.3), (0.9, 0.0), (0.0, 0.9), (0.5, 0.7)];

/// Random mixes over seeds and gap/stall patterns; returns totals of what was exercised:
/// pass, pix and status transactions, and the framebuffer paths' (requests, DMA out words
/// and texture writes).
fn random_mixes(b: &Built, count: usize) -> (usize, usize, usize, usize) {
    let ipu = b.cfg.ipu.as_ref().expect("ipu").clone();
    let mut totals = (0, 0, 0, 0);
    for seed in [1u64, 2, 0xC0FFEE] {
        for (j, (gap, stall)) in PATTERNS.iter().enumerate() {
            let s = seed + 1000 * j as u64;
            let stream = m::random_stream(&ipu, count, s);
            let (_, out) = check(b, &stream, s, *gap, *stall);
            totals.0 += out.pass.len();
            totals.1 += out.pix.len();
            totals.2 += out.status.len();
            totals.3 += out.fb_req.len() + out.dma_out_words(&ipu).len() + out.tex.len();
        }
    }
    totals
}

#[test]
fn random_command_mixes_match_the_model_at_1_2_and_4_lanes() {
    for cfg in [one_lane(), four_lanes(), two_lanes(), one_lane_plain()] {
        let b = build_cfg(cfg);
        let (pass, pix, status, fb) = random_mixes(&b, 250);
        // The mixes reach every output port.
        assert!(
            pass > 100 && pix > 100 && status > 10 && fb > 100,
            "{pass} {pix} {status} {fb}"
        );
    }
}

#[test]
fn the_same_seed_reproduces_the_run() {
    let b = build_cfg(one_lane());
    let ipu = b.cfg.ipu.clone().expect("ipu");
    let s = m::random_stream(&ipu, 200, 42);
    let (a, _) = check(&b, &s, 42, 0.4, 0.4);
    let (c, _) = check(&b, &s, 42, 0.4, 0.4);
    let (d, _) = check(&b, &s, 43, 0.4, 0.4);
    assert_eq!(a.cycles, c.cycles);
    assert_ne!(
        a.cycles, d.cycles,
        "another seed draws other gaps and stalls"
    );
}

/// Every enabled format, widths 1..=9 so groups start at every byte of a DMA word, rows
/// that share words, with changing scale and bias.
fn formats_stream(b: &Built, seed: u64) -> m::Stream {
    let ipu = b.cfg.ipu.as_ref().expect("ipu");
    let mut rng = Rng::stream(seed, 9);
    let mut s = m::Stream::default();
    for fmt in 0..8u32 {
        if !ipu.formats[fmt as usize] {
            continue;
        }
        for w in 1..=9u32 {
            let ch = w % 4;
            s.cmds
                .extend(m::cmd_transfer(false, ch, m::q16(0.5 + f64::from(w) / 7.0)));
            s.cmds
                .extend(m::cmd_transfer(true, ch, m::q16(f64::from(w) / 20.0 - 0.2)));
            s.draw(&mut rng, fmt, w, 1 + w % 3, 0xfff0 + w, 7 * w);
        }
    }
    s
}

#[test]
fn every_format_at_every_alignment_matches_the_model() {
    for cfg in [one_lane(), four_lanes(), two_lanes()] {
        let b = build_cfg(cfg);
        for (seed, gap, stall) in [(5u64, 0.0, 0.0), (6, 0.3, 0.5)] {
            let s = formats_stream(&b, seed);
            let (_, out) = check(&b, &s, seed, gap, stall);
            assert!(out.pixels > 100);
        }
    }
}

#[test]
fn stack_overflow_underflow_and_truncated_commands() {
    let b = build_cfg(one_lane()); // stack depth 3
    let mut rng = Rng::stream(3, 0);
    let mut s = m::Stream::default();
    s.cmds.push(m::cmd_pop()); // underflow
    for i in 0..5 {
        s.cmds
            .extend(m::cmd_transfer(false, 0, m::q16(0.1 * f64::from(i + 1))));
        s.cmds.push(m::cmd_push()); // the last two overflow
    }
    s.cmds.extend(m::cmd_transfer(false, 0, m::q16(3.0)));
    for _ in 0..5 {
        s.draw(&mut rng, 0, 3, 2, 1, 1);
        s.cmds.push(m::cmd_pop()); // the last two underflow
    }
    // Every format code is enabled here; ReadPixels of colour indices is the format error.
    s.cmds.extend(m::cmd_read(m::FORMAT_CI8, 2, 2, 0, 0));
    s.cmds.push(0x5100_0001); // not the IPU's: passed through
    s.cmds.extend(&m::cmd_draw(0, 2, 2, 0, 0)[..2]); // truncated
    for (seed, gap, stall) in [(1u64, 0.0, 0.0), (2, 0.5, 0.5), (3, 0.0, 0.9)] {
        let (_, out) = check(&b, &s, seed, gap, stall);
        let events: Vec<u32> = out.status.iter().map(|w| w & 0xf).collect();
        assert_eq!(
            events,
            [
                m::EV_UNDERFLOW,
                m::EV_OVERFLOW,
                m::EV_OVERFLOW,
                m::EV_UNDERFLOW,
                m::EV_UNDERFLOW,
                m::EV_FORMAT
            ]
        );
        assert_eq!(out.pass, [0x5100_0001]);
        assert_eq!(out.dma_req.len(), 5, "the truncated draw never starts");
    }
}

/// The seed's example (bias 2 of 255, scale 0.25, rows and columns shrunk 2x): the RTL's
/// pixels equal the model's; output pixel (k, l) is image pixel (2k + 1, 2l + 1), within
/// 1 LSB of GL's float math.
#[test]
fn seed_example_bias_2_scale_quarter_shrink_2x() {
    let b = build_cfg(one_lane());
    let mut rng = Rng::stream(8, 0);
    let mut s = m::Stream::default();
    for ch in 0..4 {
        s.cmds.extend(m::cmd_transfer(false, ch, m::q16(0.25)));
        s.cmds
            .extend(m::cmd_transfer(true, ch, m::q16(2.0 / 255.0)));
    }
    s.cmds.extend(m::cmd_zoom(m::q16(0.5), m::q16(0.5)));
    s.draw(&mut rng, 0, 16, 8, 0, 0);
    let (_, out) = check(&b, &s, 8, 0.2, 0.2);
    assert_eq!(out.pixels, 8 * 4);
    for beat in &out.pix {
        let (x, y) = (beat.field(32, 16) as usize, beat.field(48, 16) as usize);
        let word = s.dma[(2 * y + 1) * 16 + 2 * x + 1];
        for ch in 0..4 {
            let c = f64::from((word >> (8 * ch)) & 0xff);
            let gl = ((c / 255.0 * 0.25 + 2.0 / 255.0).clamp(0.0, 1.0) * 255.0).round();
            let got = beat.field(8 * ch, 8) as f64;
            assert!((got - gl).abs() <= 1.0, "{c}: {got} vs GL {gl}");
        }
    }
}

/// DrawPixels with no gaps and no stalls: pixels per clock, measured.
fn draw_rate(b: &Built, fmt: u32, w: u32, h: u32, draws: u32) -> f64 {
    let (pixels, clocks) = draw_run(b, fmt, w, h, draws);
    pixels as f64 / clocks as f64
}

/// DrawPixels with no gaps and no stalls: (pixels, clocks), measured.
fn draw_run(b: &Built, fmt: u32, w: u32, h: u32, draws: u32) -> (u64, u64) {
    let mut rng = Rng::stream(11, 0);
    let mut s = m::Stream::default();
    for i in 0..draws {
        s.draw(&mut rng, fmt, w, h, 0, i * h);
    }
    let (r, out) = check(b, &s, 11, 0.0, 0.0);
    let rate = out.pixels as f64 / r.cycles as f64;
    println!(
        "{}: DrawPixels {} {w}x{h} x{draws}: {} pixels in {} clocks, {rate:.3} pixels/clock",
        b.cfg.design.name,
        gpurtl::config::ipu::FORMATS[fmt as usize],
        out.pixels,
        r.cycles
    );
    (out.pixels, r.cycles)
}

#[test]
fn draw_pixels_rate_with_no_stalls() {
    // One lane: a pixel per clock for every format (colour indices too). Each draw pays
    // the pipeline's latency once (deeper at the tests' 200 MHz clock), the rest is a
    // pixel a clock: rows added to every draw cost exactly their pixels, and what a draw
    // costs beyond its pixels stays within the 200 MHz pipeline's depth.
    let b = build_cfg(one_lane());
    for fmt in [0, 2, 5, m::FORMAT_CI8] {
        let (p16, c16) = draw_run(&b, fmt, 64, 16, 4);
        let (p32, c32) = draw_run(&b, fmt, 64, 32, 4);
        assert_eq!(c32 - c16, p32 - p16, "format {fmt}: a pixel a clock");
        let latency = (c16 - p16) as f64 / 4.0;
        assert!(latency <= 20.0, "format {fmt}: {latency} clocks a draw");
    }
    // Four lanes and a 128-bit DMA word: 4 pixels a clock in every format (a word holds
    // 16 l8, 8 rgb565 or 4 rgba8888 pixels).
    let b = build_cfg(four_lanes());
    // With zoom in the config a draw waits for the one before to leave the unit (here
    // through a FIFO behind the maps and a skid behind zoom): a few clocks a draw.
    for (fmt, name) in [
        (5, "l8"),
        (2, "rgb565"),
        (0, "rgba8888"),
        (m::FORMAT_CI8, "ci8"),
    ] {
        assert!(
            draw_rate(&b, fmt, 64, 16, 4) > 3.75,
            "{name}: 4 pixels a clock"
        );
    }
    // Rows of 3 l8 pixels: a group never spans rows or words, so a row is one beat, or
    // two where a 16-byte word ends inside it (64 rows, 12 words: 76 beats a draw). The
    // rate is the rows' own, measured from draws twice as tall (the draws' latency,
    // deeper at 200 MHz, drops out), and the latency is bounded apart.
    let (p64, c64) = draw_run(&b, 5, 3, 64, 4);
    let (p128, c128) = draw_run(&b, 5, 3, 128, 4);
    let rate = (p128 - p64) as f64 / (c128 - c64) as f64;
    assert!(rate > 2.2, "rows of 3: {rate} pixels a clock");
    let latency = (c64 as f64 - p64 as f64 / rate) / 4.0;
    assert!(latency <= 20.0, "rows of 3: {latency} clocks a draw");
}

/// Builds `cfg` with module `kind`'s text mutated, runs `stream`, and returns the failed
/// report.
fn run_broken(
    cfg: Config,
    kind: &str,
    from: &str,
    to: &str,
    stream: &m::Stream,
    gap: f64,
    stall: f64,
) -> SimReport {
    let mut design = elaborate(&cfg);
    let module = design
        .modules
        .iter_mut()
        .find(|x| x.kind == kind)
        .expect("module kind");
    module.text = mutate(&module.text, from, to);
    let b = build(cfg, &design);
    let (r, _) = run(&b, stream, 4, gap, stall);
    assert!(!r.passed, "the broken {kind} ({from} -> {to}) passed");
    r
}

#[test]
fn broken_duts_are_caught() {
    // These variants break the DrawPixels path: the mix without framebuffer commands.
    let mut ipu = one_lane().ipu.expect("ipu");
    ipu.framebuffer = false;
    let mix = m::random_stream(&ipu, 300, 4);
    let expects = |r: &SimReport| r.errors.iter().any(|e| e.contains("model expects"));
    // Bias stage that truncates instead of rounding.
    let r = run_broken(
        one_lane(),
        "ipu_bias",
        "1'b1, {(Frac-1){1'b0}}};",
        "1'b0, {(Frac-1){1'b0}}};",
        &mix,
        0.0,
        0.0,
    );
    assert!(expects(&r), "{:?}", r.errors);
    // A push on a full stack that is not flagged.
    let r = run_broken(
        one_lane(),
        "ipu_ctrl",
        "(sp_q == StackFull);",
        "1'b0;",
        &mix,
        0.3,
        0.3,
    );
    assert!(!r.errors.is_empty());
    // Parameters that change while pixels that need the old ones are still in flight.
    let r = run_broken(
        one_lane(),
        "ipu_ctrl",
        "end else if (drained_i) begin",
        "end else if (1'b1) begin",
        &mix,
        0.0,
        0.8,
    );
    assert!(expects(&r), "{:?}", r.errors);
    // Four lanes whose last group of a row claims a lane too many.
    let l4 = four_lanes_with("");
    let s = formats_stream_of(&l4);
    let r = run_broken(
        l4,
        "ipu",
        "assign mask[1] = (group > 3'd1);",
        "assign mask[1] = (group > 3'd0);",
        &s,
        0.0,
        0.0,
    );
    assert!(expects(&r), "{:?}", r.errors);
}

fn formats_stream_of(cfg: &Config) -> m::Stream {
    let design = elaborate(cfg);
    let b = Built {
        cfg: cfg.clone(),
        unit: design.unit("ipu").expect("ipu").clone(),
        dir: PathBuf::new(),
    };
    formats_stream(&b, 12)
}

#[test]
fn cli_sim_runs_the_ipu_of_the_default_preset() {
    // As a user runs it: the default, relative work dir (sim/build under the current one).
    let cwd = work_dir().join("cli-default");
    std::fs::create_dir_all(&cwd).expect("creates the directory");
    let out = gpurtl()
        .current_dir(&cwd)
        .env_remove("GPURTL_SIM_DIR")
        .args([
            "sim", "--unit", "ipu", "--count", "300", "--seed", "9", "--gap", "0.2", "--stall",
            "0.2",
        ])
        .output()
        .expect("runs gpurtl");
    let log = text(&out);
    assert!(out.status.success(), "{log}");
    assert!(log.contains("PASS ipu: seed 9"), "{log}");
    // The control FSM's coverage (the default preset has the seed's maps and bitmap and no
    // filter).
    assert!(log.contains("  fsm states: 9 of 9 visited\n"), "{log}");
}

/// Zoom: enlarge, shrink, mirror, zero and uneven factors (with pushes and pops of the
/// factors), widths from 1 to the line buffer's (rows replay from its every address) and
/// one past it (flagged, dropped), every enabled format.
fn zoom_stream(cfg: &Config, seed: u64) -> m::Stream {
    let ipu = cfg.ipu.as_ref().expect("ipu");
    let line = ipu.zoom.expect("zoom").min(12);
    let fmts: Vec<u32> = (0..7u32).filter(|f| ipu.formats[*f as usize]).collect();
    let mut rng = Rng::stream(seed, 10);
    let mut s = m::Stream::default();
    let zooms = [
        (2.0, 2.0),
        (0.5, 0.5),
        (-1.0, 1.0),
        (1.0, -3.0),
        (3.0, 0.34),
        (0.7, 2.5),
        (-2.25, -0.5),
        (0.0, 1.0),
        (1.0, 1.0),
        (1.5, 1.5),
        // The largest magnitude: columns (rows) of 128, the one-lane RTL's counts
        // kept modulo 256.
        (-128.0, 0.25),
        (0.25, -128.0),
    ];
    for (k, (zx, zy)) in zooms.iter().enumerate() {
        s.cmds.extend(m::cmd_zoom(m::q16(*zx), m::q16(*zy)));
        if k % 3 == 0 {
            s.cmds.push(m::cmd_push());
            s.cmds.extend(m::cmd_zoom(m::q16(1.0), m::q16(2.0)));
            s.draw(&mut rng, fmts[0], 3, 2, 40, 40);
            s.cmds.push(m::cmd_pop());
        }
        for (n, w) in [1, 2, 3, line / 2 + 1, line].into_iter().enumerate() {
            let fmt = fmts[(k + n) % fmts.len()];
            s.draw(
                &mut rng,
                fmt,
                w,
                1 + (w + k as u32) % 3,
                100 + w,
                200 + k as u32,
            );
        }
    }
    s.cmds
        .extend(m::cmd_draw(fmts[0], ipu.zoom.expect("zoom") + 1, 1, 0, 0));
    s
}

#[test]
fn zoom_matches_the_model_at_1_2_and_4_lanes() {
    for cfg in [one_lane(), four_lanes(), two_lanes()] {
        let b = build_cfg(cfg);
        for (seed, gap, stall) in [(21u64, 0.0, 0.0), (22, 0.4, 0.6)] {
            let s = zoom_stream(&b.cfg, seed);
            let (_, out) = check(&b, &s, seed, gap, stall);
            assert!(out.pixels > 300, "{}", out.pixels);
            assert_eq!(out.status.last().map(|w| w & 0xf), Some(m::EV_WIDTH));
        }
    }
}

/// Zoomed DrawPixels with no stalls: output pixels per clock, and image pixels per clock.
fn zoom_rate(b: &Built, fmt: u32, z: f64) -> (f64, f64) {
    let mut rng = Rng::stream(12, 0);
    let mut s = m::Stream::default();
    s.cmds.extend(m::cmd_zoom(m::q16(z), m::q16(z)));
    let (w, h) = (
        b.cfg
            .ipu
            .as_ref()
            .and_then(|i| i.zoom)
            .unwrap_or(64)
            .min(64),
        // Tall enough that the draws' latency (deeper at 200 MHz) is a small share.
        32,
    );
    for i in 0..4 {
        s.draw(&mut rng, fmt, w, h, 0, i * 64);
    }
    let (r, out) = check(b, &s, 12, 0.0, 0.0);
    let (rate, image) = (
        out.pixels as f64 / r.cycles as f64,
        f64::from(4 * w * h) / r.cycles as f64,
    );
    println!(
        "{}: DrawPixels {} {w}x{h} x4 zoom {z}: {} output pixels in {} clocks, {rate:.3} output pixels/clock, {image:.3} image pixels/clock",
        b.cfg.design.name,
        gpurtl::config::ipu::FORMATS[fmt as usize],
        out.pixels,
        r.cycles
    );
    (rate, image)
}

#[test]
fn zoom_rate_with_no_stalls() {
    for cfg in [one_lane(), four_lanes()] {
        let lanes = cfg.ipu.as_ref().expect("ipu").lanes;
        let b = build_cfg(cfg);
        let lanes = f64::from(lanes);
        // A group of `lanes` image pixels covers 2 * lanes columns: two full beats.
        let (out2, _) = zoom_rate(&b, 5, 2.0);
        assert!(out2 > 0.95 * lanes, "2x: {lanes} output pixels a clock");
        // A group a clock, its columns in one beat, and the rows that cover no centre.
        let (_, in_half) = zoom_rate(&b, 5, 0.5);
        assert!(in_half > 0.94 * lanes, "0.5x: {lanes} image pixels a clock");
        // 3x fills every beat too; 1.5x gives a group 6 columns per 4 pixels: at 4 lanes
        // beats of 4 and 2, 3 output pixels a clock.
        let (out3, _) = zoom_rate(&b, 5, 3.0);
        assert!(out3 > 0.95 * lanes, "3x: {lanes} output pixels a clock");
        let (out15, _) = zoom_rate(&b, 5, 1.5);
        let beats = if lanes > 1.0 { 0.75 } else { 1.0 };
        assert!(
            out15 > 0.94 * beats * lanes,
            "1.5x: {beats} of a beat's lanes"
        );
    }
}

/// One broken variant: module kind, text to replace, its replacement, output stall, and
/// whether the failure must be a value the model did not expect (not just a hang).
type Variant = (&'static str, &'static str, &'static str, f64, bool);

/// Every variant must fail on `stream`.
fn broken_variants_fail(cfg: &Config, stream: &m::Stream, variants: &[Variant]) {
    for (kind, from, to, stall, value) in variants {
        let r = run_broken(cfg.clone(), kind, from, to, stream, 0.0, *stall);
        let expects = r.errors.iter().any(|e| e.contains("model expects"));
        assert!(!value || expects, "{kind} {from}: {:?}", r.errors);
    }
}

#[test]
fn broken_zoom_is_caught() {
    let cfg = two_lanes();
    broken_variants_fail(
        &cfg,
        &zoom_stream(&cfg, 31),
        &[
            // Columns start at floor(i * z) instead of GL's ceil(i * z - 0.5).
            ("ipu_zoom", "15'h7fff}", "15'h0000}", 0.0, false),
            // A replay that reads the line buffer in the clock its last pixel is written.
            (
                "ipu_zoom",
                "st_d = streaming ? Z_REWIND : Z_REPLAY;",
                "st_d = Z_REPLAY;",
                0.0,
                true,
            ),
            // Mirrored copies placed from the first copy's column, not the leftmost.
            ("ipu_zoom", "~ox_last", "~ox_q[15:0]", 0.0, true),
            // A column on a pixel's end shows that pixel, not the next.
            ("ipu_zoom", "(e_1 <= off_0)", "(e_1 < off_0)", 0.0, true),
            // Mirrored, the lanes keep the columns' ascending offsets (not reversed).
            (
                "ipu_zoom",
                "pos_0 = xneg ? cnt_m1 : 1'd0",
                "pos_0 = 1'd0",
                0.0,
                true,
            ),
            // A group starting on an odd column writes its second pixel at the first's
            // bank address (rows replayed after unaligned DMA beats read it).
            (
                "ipu_zoom",
                " + {{AddrW-1{1'b0}}, (i_q[LaneW-1:0] > 1'd0)}",
                "",
                0.0,
                true,
            ),
        ],
    );
}

#[test]
fn broken_one_lane_zoom_is_caught() {
    let cfg = one_lane();
    broken_variants_fail(
        &cfg,
        &zoom_stream(&cfg, 32),
        &[
            // A read-ahead queue too short for its reads' two clocks: a column a clock
            // (shrinking, rows replayed) reaches an entry before its word.
            (
                "ipu_zoom",
                "localparam integer QDepth = 4;",
                "localparam integer QDepth = 3;",
                0.0,
                true,
            ),
            // Replaying again, the reads go on past the row's last column.
            (
                "ipu_zoom",
                "ra_last_q ? w3_q : (ra_q == wpen_q)",
                "(ra_q == wpen_q)",
                0.0,
                true,
            ),
            // Counts taken modulo 128: a column of 128 output pixels (factor -128)
            // looks empty.
            (
                "ipu_zoom",
                "n_nz_d    = (cnx1_q != {OffW{1'b0}});",
                "n_nz_d    = (cnx1_q[OffW-2:0] != {(OffW-1){1'b0}});",
                0.0,
                true,
            ),
            // ... and a row of 128 output rows.
            (
                "ipu_zoom",
                "m_nz_d    = (cny1_q != {OffW{1'b0}});",
                "m_nz_d    = (cny1_q[OffW-2:0] != {(OffW-1){1'b0}});",
                0.0,
                true,
            ),
            // The next column's count not worked out ahead: the second column's again.
            (
                "ipu_zoom",
                "cnx1_d    = axn_sum[AccW-1:16] - axn_q[AccW-1:16];",
                "cnx1_d    = cnx1_q;",
                0.0,
                true,
            ),
        ],
    );
}

/// Pixel maps: tables of every size up to the config's on every channel (generated or
/// not), MAP_COLOR on and off, sizes out of range, with transfers and zoom in between.
fn map_stream(cfg: &Config, seed: u64) -> m::Stream {
    let ipu = cfg.ipu.as_ref().expect("ipu");
    let size = ipu.pixel_map.expect("maps").size;
    let mut rng = Rng::stream(seed, 11);
    let mut s = m::Stream::default();
    s.draw(&mut rng, 0, 5, 2, 1, 1); // maps off
    s.cmds.push(m::cmd_mapcolor(true));
    s.draw(&mut rng, 0, 5, 2, 1, 1); // on, tables never loaded: 0
    for (k, n) in [1, 2, 3, size / 2 + 1, size].into_iter().enumerate() {
        for ch in 0..4 {
            let values: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
            s.cmds.extend(m::cmd_pixelmap(ch, &values));
        }
        s.cmds
            .extend(m::cmd_transfer(false, k as u32 % 4, m::q16(0.3 * k as f64)));
        if ipu.zoom.is_some() {
            s.cmds
                .extend(m::cmd_zoom(m::q16(1.0 + 0.5 * k as f64), m::q16(1.0)));
        }
        s.draw(&mut rng, 0, 6, 2, 10, 10);
        s.draw(&mut rng, 5, 7, 1, 10, 10);
    }
    s.cmds.push((m::OP_PIXELMAP << 24) | ((size + 1) << 8)); // too big: status 5
    s.cmds.push(m::cmd_mapcolor(false));
    s.draw(&mut rng, 0, 3, 1, 0, 0);
    s.cmds.push(m::cmd_mapcolor(true));
    s.draw(&mut rng, 0, 3, 1, 0, 0);
    s.cmds.extend(&m::cmd_pixelmap(2, &[9; 8])[..2]); // truncated
    s
}

#[test]
fn pixel_maps_match_the_model_at_1_2_and_4_lanes() {
    for cfg in [one_lane(), four_lanes(), two_lanes(), one_lane_plain()] {
        let b = build_cfg(cfg);
        for (seed, gap, stall) in [(41u64, 0.0, 0.0), (42, 0.5, 0.5)] {
            let s = map_stream(&b.cfg, seed);
            let (_, out) = check(&b, &s, seed, gap, stall);
            assert!(out.status.iter().any(|w| w & 0xf == m::EV_MAPSIZE));
        }
    }
}

/// With identity scale and bias, a mapped channel is its table's entry at GL's index
/// round(c / 255 * (size - 1)), computed in f64.
#[test]
fn pixel_maps_follow_gl() {
    let b = build_cfg(one_lane());
    let mut rng = Rng::stream(44, 0);
    let mut s = m::Stream::default();
    let tables: Vec<Vec<u8>> = [256usize, 5, 17, 1]
        .iter()
        .map(|n| (0..*n).map(|_| rng.next_u64() as u8).collect())
        .collect();
    for (ch, t) in tables.iter().enumerate() {
        s.cmds.extend(m::cmd_pixelmap(ch as u32, t));
    }
    s.cmds.push(m::cmd_mapcolor(true));
    s.draw(&mut rng, 0, 64, 4, 0, 0);
    let (_, out) = check(&b, &s, 44, 0.2, 0.2);
    for (beat, word) in out.pix.iter().zip(&s.dma) {
        for (ch, t) in tables.iter().enumerate() {
            let c = f64::from((word >> (8 * ch)) & 0xff);
            let index = (c / 255.0 * (t.len() - 1) as f64).round() as usize;
            assert_eq!(beat.field(8 * ch as u32, 8), u64::from(t[index]));
        }
    }
}

#[test]
fn broken_maps_are_caught() {
    let cfg = two_lanes();
    broken_variants_fail(
        &cfg,
        &map_stream(&cfg, 45),
        &[
            // An index that truncates instead of rounding.
            ("ipu_map", "+ Half;", "+ (Half >> 1);", 0.0, true),
        ],
    );
}

/// Colour-index draws: I_TO_* maps of every power-of-two size on every channel (generated
/// or not), INDEX_SHIFT both ways (past every index bit too) and INDEX_OFFSET of either
/// sign, a scale, a bias and colour maps that must not touch indices but must apply to
/// the RGBA draws between them, zoomed indices, a size that is not a power of two, ci8
/// reads and texture copies (rejected) and a truncated INDEX_TRANSFER.
fn index_stream(cfg: &Config, seed: u64) -> m::Stream {
    let ipu = cfg.ipu.as_ref().expect("ipu");
    let size = ipu.pixel_map.expect("maps").size;
    let rgba = (0..7u32)
        .find(|f| ipu.formats[*f as usize])
        .expect("an RGBA format");
    let ci = m::FORMAT_CI8;
    let mut rng = Rng::stream(seed, 12);
    let mut s = m::Stream::default();
    let table =
        |rng: &mut Rng, n: u32| -> Vec<u8> { (0..n).map(|_| rng.next_u64() as u8).collect() };
    s.draw(&mut rng, ci, 5, 2, 1, 1); // maps never loaded: GL's initial 0
    s.cmds.extend(m::cmd_transfer(false, 0, m::q16(0.5)));
    s.cmds.extend(m::cmd_transfer(true, 1, m::q16(0.25)));
    s.cmds.push(m::cmd_mapcolor(true));
    for ch in 0..4 {
        let t = table(&mut rng, size.min(16));
        s.cmds.extend(m::cmd_pixelmap(ch, &t));
    }
    let shifts = [0, 2, -1, -3, 5, -9, 13, -20, 40, i32::MIN];
    let offsets = [0, 3, -5, 1000, -1, i32::MAX];
    for (k, n) in [1u32, 2, size / 2, size].into_iter().enumerate() {
        for ch in 0..4 {
            let t = table(&mut rng, n);
            s.cmds.extend(m::cmd_pixelmap(4 + ch, &t));
        }
        s.cmds.extend(m::cmd_index(false, shifts[2 * k]));
        s.cmds.extend(m::cmd_index(true, offsets[k]));
        s.draw(&mut rng, ci, 7, 2, 20, 20);
        // Scale, bias and the colour maps are back for the next RGBA draw.
        s.draw(&mut rng, rgba, 6, 1, 3, 3);
        s.cmds.extend(m::cmd_index(false, shifts[2 * k + 1]));
        if ipu.zoom.is_some() {
            s.cmds.extend(m::cmd_zoom(m::q16(1.5), m::q16(-2.0)));
        }
        s.draw(&mut rng, ci, 9, 3, 40, 40);
        if ipu.zoom.is_some() {
            s.cmds.extend(m::cmd_zoom(m::q16(1.0), m::q16(1.0)));
        }
    }
    // Three entries for an I_TO_* map: status 5, the entry word passes through.
    s.cmds.extend(m::cmd_pixelmap(5, &[1, 2, 3]));
    if ipu.framebuffer {
        s.fb_cmd(&mut rng, ipu, m::FbOp::Read(ci), (3, 2), (0, 0));
        s.fb_cmd(&mut rng, ipu, m::FbOp::CopyTex(ci, 64), (3, 2), (0, 0));
    }
    s.draw(&mut rng, ci, 4, 4, 0, 0);
    s.cmds.extend(&m::cmd_index(true, 9)[..1]); // truncated
    s
}

#[test]
fn colour_index_draws_match_the_model_at_1_2_and_4_lanes() {
    for cfg in [one_lane(), two_lanes(), four_lanes()] {
        let b = build_cfg(cfg);
        for (seed, gap, stall) in [(61u64, 0.0, 0.0), (62, 0.5, 0.6)] {
            let s = index_stream(&b.cfg, seed);
            let (_, out) = check(&b, &s, seed, gap, stall);
            assert!(out.status.iter().any(|w| w & 0xf == m::EV_MAPSIZE));
            assert!(out.status.iter().any(|w| w & 0xf == m::EV_FORMAT));
        }
    }
}

/// GL 2.0's colour index lookup (section 3.6.5) in plain integers: the index shifted
/// left by INDEX_SHIFT bits (right when negative: bits below the point are lost, indices
/// having no fraction bits here), INDEX_OFFSET added, ANDed with the map's size - 1.
fn gl_index(i: u32, shift: i32, offset: i32, n: usize) -> usize {
    let v = if shift >= 0 {
        i64::from(i) << shift
    } else {
        i64::from(i) >> -shift
    };
    ((v + i64::from(offset)) & (n as i64 - 1)) as usize
}

/// Every index 0..=255 through I_TO_* maps of 256, 64, 2 and 16 entries under shifts and
/// offsets both ways: each channel is its map's entry at GL's index, from the RTL.
#[test]
fn colour_index_follows_gl() {
    let b = build_cfg(one_lane());
    let mut rng = Rng::stream(63, 0);
    let mut s = m::Stream::default();
    let tables: Vec<Vec<u8>> = [256usize, 64, 2, 16]
        .iter()
        .map(|n| (0..*n).map(|_| rng.next_u64() as u8).collect())
        .collect();
    for (ch, t) in tables.iter().enumerate() {
        s.cmds.extend(m::cmd_pixelmap(4 + ch as u32, t));
    }
    // A colour map and a scale, which indices must not see.
    s.cmds.extend(m::cmd_pixelmap(0, &[255; 4]));
    s.cmds.push(m::cmd_mapcolor(true));
    s.cmds.extend(m::cmd_transfer(false, 0, m::q16(0.25)));
    let settings = [(0, 0), (2, -3), (-2, 7), (-9, 1), (3, 200)];
    let words: Vec<u32> = (0..64u32)
        .map(|k| (0..4).map(|b| (4 * k + b) << (8 * b)).sum())
        .collect();
    for (shift, offset) in settings {
        s.cmds.extend(m::cmd_index(false, shift));
        s.cmds.extend(m::cmd_index(true, offset));
        s.cmds.extend(m::cmd_draw(m::FORMAT_CI8, 16, 16, 0, 0));
        s.dma.extend(&words);
    }
    let (_, out) = check(&b, &s, 63, 0.2, 0.2);
    assert_eq!(out.pix.len(), 256 * settings.len());
    for (k, beat) in out.pix.iter().enumerate() {
        let (shift, offset) = settings[k / 256];
        for (ch, t) in tables.iter().enumerate() {
            let want = t[gl_index(k as u32 % 256, shift, offset, t.len())];
            assert_eq!(
                beat.field(8 * ch as u32, 8),
                u64::from(want),
                "index {k}, channel {ch}"
            );
        }
    }
}

#[test]
fn broken_colour_index_is_caught() {
    let cfg = two_lanes();
    broken_variants_fail(
        &cfg,
        &index_stream(&cfg, 64),
        &[
            // Indices scaled and biased like colours.
            (
                "ipu_ctrl",
                "scale_use_q <= ci_q ?",
                "scale_use_q <= 1'b0 ?",
                0.0,
                true,
            ),
            // INDEX_SHIFT's sign ignored: right shifts become left shifts.
            (
                "ipu_map",
                "ishift_i[4] ? ci_shr : ci_shl",
                "ci_shl",
                0.0,
                true,
            ),
            // The index not masked to the loaded map's size.
            (
                "ipu_map",
                "ci_index & imask_i[AddrW*ch +: AddrW]",
                "ci_index",
                0.0,
                true,
            ),
        ],
    );
}

fn png(path: &std::path::Path) -> gpurtl::texio::Image {
    let bytes = std::fs::read(path).expect("reads the PNG");
    gpurtl::texio::png::decode(&bytes, "test").expect("decodes")
}

/// `gpurtl render`, model path: a mirrored and stretched draw holds exactly the pixels
/// GL writes, row 0 the lowest; bad arguments are usage errors.
#[test]
fn render_writes_the_pixels_the_draw_wrote() {
    let dir = scratch("render");
    let input = project_dir().join("docs/ipu/seed_example_in.png");
    let out = dir.join("mirror.png");
    let o = gpurtl()
        .args(["render", "--image"])
        .arg(&input)
        .args(["--zoom", "-1,2", "--bias", "0,0,0,0", "--out"])
        .arg(&out)
        .output()
        .expect("runs gpurtl");
    assert!(o.status.success(), "{}", text(&o));
    let (a, b) = (png(&input), png(&out));
    // 64 columns mirrored; 64 rows doubled: ceil(64 * 2 - 0.5) = 128 (the PNG reader
    // takes power-of-two sizes only, as for textures).
    assert_eq!((b.width, b.height), (64, 128));
    for y in 0..128u32 {
        // Output row k is covered by image row j when ceil(2 j - 0.5) <= k.
        let j = (0..64u32)
            .rev()
            .find(|j| (2.0 * f64::from(*j) - 0.5).ceil() as u32 <= y)
            .expect("a row");
        for x in 0..64u32 {
            assert_eq!(b.get(x, y), a.get(63 - x, j), "({x}, {y})");
        }
    }
    let o = gpurtl()
        .args(["render", "--image"])
        .arg(&input)
        .args(["--zoom", "2", "--out"])
        .arg(&out)
        .output()
        .expect("runs gpurtl");
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    // A 3x2 filter that picks its top-right tap: GL_REDUCE drops 2 columns and 1 row, and
    // output (x, y) is input (x + 2, y + 1); alpha comes from the centre tap (1, 1).
    let o = gpurtl()
        .args(["render", "--image"])
        .arg(&input)
        .args(["--convolve", "3x2:0,0,0,0,0,1", "--out"])
        .arg(&out)
        .output()
        .expect("runs gpurtl");
    assert!(o.status.success(), "{}", text(&o));
    // 62 x 63: not a power of two, which the texture loader wants; the PNG crate reads it.
    let file = std::fs::File::open(&out).expect("opens the PNG");
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut buf).expect("decodes");
    assert_eq!((info.width, info.height), (62, 63));
    assert_eq!(info.color_type, png::ColorType::Rgba);
    for (x, y) in [(0u32, 0u32), (17, 40), (61, 62)] {
        let at = 4 * (y * 62 + x) as usize;
        let got = &buf[at..at + 4];
        let (want, centre) = (a.get(x + 2, y + 1), a.get(x + 1, y + 1));
        assert_eq!((&got[..3], got[3]), (&want[..3], centre[3]), "({x}, {y})");
    }
    for bad in [
        "1,2,3",
        "6x1:1,1,1,1,1,1",
        "2x2:1,2,3",
        "3x3:1,2,3,4,5,6,7,8,nan",
    ] {
        let o = gpurtl()
            .args(["render", "--image"])
            .arg(&input)
            .args(["--convolve", bad, "--out"])
            .arg(&out)
            .output()
            .expect("runs gpurtl");
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", text(&o));
    }
}

/// `gpurtl render` of pictures of any size (glDrawPixels takes any): 37 x 23 zoomed by
/// (1.5, 0.7) through the Verilated unit equals the model's picture, whose rows end
/// mid-word; a 1 x 1 picture draws its pixel; a picture wider than the zoom's line
/// buffer is a usage error that names the config key.
#[test]
fn render_takes_pictures_of_any_size() {
    let dir = scratch("render-odd");
    let write = |name: &str, w: u32, h: u32| {
        let mut img = gpurtl::texio::Image::new(w, h);
        for (i, p) in img.pixels.iter_mut().enumerate() {
            *p = [(i * 7) as u8, (i * 13) as u8, (i * 29) as u8, 255];
        }
        let path = dir.join(name);
        std::fs::write(&path, gpurtl::texio::png::encode(&img).expect("encodes")).expect("writes");
        path
    };
    let render = |input: &std::path::Path, extra: &[&str], out: &std::path::Path| {
        gpurtl()
            .env("GPURTL_SIM_DIR", work_dir())
            .args(["render", "--image"])
            .arg(input)
            .args(extra)
            .arg("--out")
            .arg(out)
            .output()
            .expect("runs gpurtl")
    };
    let odd = write("odd.png", 37, 23);
    let out = dir.join("odd_out.png");
    let o = render(&odd, &["--zoom", "1.5,0.7", "--rtl"], &out);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("equal the model's"), "{}", text(&o));
    // Columns: ceil(37 * 1.5 - 0.5) = 55; rows: 23 * 0.7 = 16.1, 16 centres covered.
    let b = gpurtl::texio::png::decode_picture(&std::fs::read(&out).expect("reads"), "out")
        .expect("decodes");
    assert_eq!((b.width, b.height), (55, 16));
    let one = write("one.png", 1, 1);
    let o = render(&one, &[], &out);
    assert!(o.status.success(), "{}", text(&o));
    let b = gpurtl::texio::png::decode_picture(&std::fs::read(&out).expect("reads"), "out")
        .expect("decodes");
    assert_eq!((b.width, b.height, b.get(0, 0)), (1, 1, [0, 0, 0, 255]));
    let wide = write("wide.png", 8193, 1);
    let o = render(&wide, &[], &out);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("allowed: 1..=8192 ([ipu.zoom] max_line_width"),
        "{}",
        text(&o)
    );
}

/// `gpurtl render --rtl`: the seed's example through the Verilated unit equals the model's
/// picture (docs/ipu/seed_example_out.png, shown in README.md).
#[test]
fn render_rtl_reproduces_the_seed_example() {
    let dir = scratch("render-rtl");
    let input = project_dir().join("docs/ipu/seed_example_in.png");
    let out = dir.join("seed.png");
    let o = gpurtl()
        .env("GPURTL_SIM_DIR", work_dir())
        .args(["render", "--image"])
        .arg(&input)
        .args([
            "--scale",
            "0.25,0.25,0.25,1",
            "--bias",
            "0.00784313725,0.00784313725,0.00784313725,0",
            "--zoom",
            "0.5,0.5",
            "--rtl",
            "--out",
        ])
        .arg(&out)
        .output()
        .expect("runs gpurtl");
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("equal the model's"), "{}", text(&o));
    let (a, b) = (png(&input), png(&out));
    let golden = png(&project_dir().join("docs/ipu/seed_example_out.png"));
    assert_eq!(b.pixels, golden.pixels);
    assert_eq!((b.width, b.height), (32, 32));
    // Output (k, l) is input (2k + 1, 2l + 1), each colour channel c * 0.25 + 2.
    for (k, l) in [(0u32, 0u32), (5, 9), (31, 31)] {
        let (i, o) = (a.get(2 * k + 1, 2 * l + 1), b.get(k, l));
        for ch in 0..3 {
            let gl = (f64::from(i[ch]) * 0.25 + 2.0).round();
            assert!((f64::from(o[ch]) - gl).abs() <= 1.0);
        }
        assert_eq!(o[3], i[3]);
    }
}

/// FSM state coverage: a copy of the unit instrumented (in this test only) to log every
/// state it enters runs the random mix, the map and zoom streams and the stack stream
/// under DMA gaps; every state of the control FSM must be visited, and the run must pass.
#[test]
fn co_simulation_visits_every_fsm_state() {
    // The report's probe of the control FSM (state_q, read after every clock): the
    // seed's nine states and FILTER (the convolution filter's load), with the maps,
    // bitmap and filter this config has.
    let cfg = one_lane_with(CONV3);
    let b = build_cfg(cfg.clone());
    let ipu = cfg.ipu.as_ref().expect("ipu");
    let names: Vec<&str> = gpurtl::rtl::ipu::fsm_states(ipu)
        .iter()
        .map(|s| s.1)
        .collect();
    assert_eq!(names.len(), 10, "{names:?}");
    let mut s = m::random_stream(ipu, 300, 51);
    for extra in [
        map_stream(&cfg, 52),
        zoom_stream(&cfg, 53),
        conv_stream(&cfg, 54),
        fb_stream(&cfg, 55),
    ] {
        s.cmds.extend(extra.cmds);
        s.dma.extend(extra.dma);
        s.fb.extend(extra.fb);
    }
    s.cmds.insert(0, m::cmd_pop()); // an underflow first
    let (r, out) = check(&b, &s, 51, 0.5, 0.3);
    assert!(out.pixels > 0);
    let fsm = r
        .probes
        .iter()
        .find(|p| p.name == "fsm")
        .expect("the fsm probe");
    let reported: Vec<&str> = fsm.states.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(reported, names);
    assert_eq!(fsm.unnamed, 0);
    // Every clock of the run is in one state.
    let clocks: u64 = fsm.states.iter().map(|s| s.clocks).sum();
    assert_eq!(clocks, r.cycles);
    println!("FSM states visited: {:?}", fsm.states);
    assert!(
        fsm.missing().is_empty(),
        "states never visited: {:?}",
        fsm.missing()
    );
    // Without input gaps the DMA never runs dry: WAIT_FIFO is not visited, and the
    // report says so.
    let (r, _) = check(&b, &m::random_stream(ipu, 100, 56), 56, 0.0, 0.0);
    let fsm = r
        .probes
        .iter()
        .find(|p| p.name == "fsm")
        .expect("the fsm probe");
    assert_eq!(fsm.missing(), vec!["WAIT_FIFO"]);
    // A state code the probe does not name (WAIT_FIFO moved to 14) fails the run, though
    // every output is right.
    let r = run_broken(
        cfg.clone(),
        "ipu_ctrl",
        "localparam [3:0] WAIT_FIFO     = 4'd6;",
        "localparam [3:0] WAIT_FIFO     = 4'd14;",
        &m::random_stream(ipu, 100, 57),
        0.5,
        0.0,
    );
    assert_eq!(r.mismatches, 0, "{:?}", r.errors);
    let unnamed = |e: &String| e.starts_with("probe fsm: ") && e.ends_with("a state with no name");
    assert!(r.errors.iter().any(unnamed), "{:?}", r.errors);
}

/// Bitmaps: widths across byte and word boundaries, raster colour changes, empty bitmaps,
/// mixed with draws (whose pixels share pix with the fragments).
fn bitmap_stream(seed: u64) -> m::Stream {
    let mut rng = Rng::stream(seed, 12);
    let mut s = m::Stream::default();
    for (k, w) in [1u32, 7, 8, 9, 15, 16, 17, 31, 33, 0]
        .into_iter()
        .enumerate()
    {
        if k % 2 == 0 {
            s.cmds.extend(m::cmd_raster(rng.next_u64() as u32));
        }
        let h = 1 + (k as u32 % 4);
        s.cmds.extend(m::cmd_bitmap(w, h, 300 + w, 7 * k as u32));
        if w > 0 {
            for _ in 0..m::bitmap_words(w, h) {
                s.dma.push(rng.next_u64() as u32);
            }
        }
        s.draw(&mut rng, 5, 3, 2, 10, 10);
    }
    // glBitmap text: origins and moves from the raster position, an empty bitmap that only
    // moves it, negative moves and origins that wrap past 0.
    s.cmds.extend(m::cmd_raster_pos(2, 500));
    for (k, (xo, yo, xm, ym)) in [
        (5, 1, 9, 0),
        (0, -2, 9, 0),
        (-3, 0, -20, 3),
        (1, 1, 2047, -2048),
        (0, 0, 7, 1),
    ]
    .into_iter()
    .enumerate()
    {
        let (w, h) = if k == 2 { (0, 0) } else { (8, 3) };
        s.cmds.extend(m::cmd_bitmap_gl(w, h, xo, yo, xm, ym));
        for _ in 0..if w > 0 { m::bitmap_words(w, h) } else { 0 } {
            s.dma.push(rng.next_u64() as u32);
        }
    }
    s
}

#[test]
fn bitmaps_match_the_model_at_1_2_and_4_lanes() {
    for cfg in [one_lane(), four_lanes(), two_lanes()] {
        let b = build_cfg(cfg);
        for (seed, gap, stall) in [(61u64, 0.0, 0.0), (62, 0.5, 0.5)] {
            let s = bitmap_stream(seed);
            let (_, out) = check(&b, &s, seed, gap, stall);
            assert!(out.pixels > 100, "{}", out.pixels);
        }
    }
}

/// glBitmap with no stalls: bitmap pixels (bits) per clock for a bitmap of `bits`
/// words, 4 of 64 x 16 back to back.
fn bitmap_rate(b: &Built, bits: u32) -> f64 {
    let mut s = m::Stream::default();
    s.cmds.extend(m::cmd_raster(0xff20_4080));
    for i in 0..4 {
        s.cmds.extend(m::cmd_bitmap(64, 16, 0, 16 * i));
        s.dma
            .extend(std::iter::repeat_n(bits, m::bitmap_words(64, 16)));
    }
    let (r, out) = check(b, &s, 14, 0.0, 0.0);
    assert_eq!(out.pixels, 4 * 16 * 64 * u64::from(bits.count_ones()) / 32);
    let rate = f64::from(4 * 64 * 16) / r.cycles as f64;
    println!(
        "{}: Bitmap 64x16 x4, words {bits:#010x}: {} fragments in {} clocks, {rate:.3} bitmap pixels/clock",
        b.cfg.design.name, out.pixels, r.cycles
    );
    rate
}

#[test]
fn bitmap_rate_with_no_stalls() {
    // A bit a clock at any lane count, whether or not it makes a fragment.
    for cfg in [one_lane(), four_lanes()] {
        let b = build_cfg(cfg);
        for bits in [0xffff_ffff, 0xaaaa_aaaa] {
            assert!(bitmap_rate(&b, bits) > 0.97);
        }
    }
}

#[test]
fn broken_bitmap_is_caught() {
    let cfg = two_lanes();
    broken_variants_fail(
        &cfg,
        &bitmap_stream(63),
        &[
            // Bit 0 of a byte taken as its leftmost pixel (GL's LSB_FIRST).
            (
                "ipu",
                "{px_byte, ~col[2:0]}",
                "{px_byte, col[2:0]}",
                0.0,
                true,
            ),
        ],
    );
}

/// Convolution: every filter size up to the config's (even ones too), channel masks,
/// weights in and out of range, draws narrower than, as wide as and wider than the filter
/// (one-pixel columns), a draw too wide for the line buffers, the filter with maps and
/// zoom, off again, a bad size (status 6) and a truncated filter at the end.
fn conv_stream(cfg: &Config, seed: u64) -> m::Stream {
    let ipu = cfg.ipu.as_ref().expect("ipu");
    let c = ipu.convolution.expect("convolution");
    let k = c.size;
    let line = if k > 1 { c.line.min(12) } else { 12 };
    let fmts: Vec<u32> = (0..7u32).filter(|f| ipu.formats[*f as usize]).collect();
    let mut rng = Rng::stream(seed, 13);
    let mut s = m::Stream::default();
    s.cmds.push(m::cmd_convolution(true));
    s.draw(&mut rng, fmts[0], 4, 3, 5, 5); // the reset filter: 1x1 identity
    let mut n = 0u32;
    for kh in 1..=k {
        for kw in 1..=k {
            n += 1;
            let weights: Vec<u32> = (0..kw * kh)
                .map(|_| match rng.next_u64() % 10 {
                    0 => rng.next_u64() as u32,
                    _ => m::q16(
                        (rng.next_u64() % 3000) as f64 / 1000.0 / f64::from(kw * kh)
                            - 0.5 / f64::from(kw),
                    ),
                })
                .collect();
            s.cmds.extend(m::cmd_filter(n % 16, kw, kh, &weights));
            if n % 4 == 1 && ipu.pixel_map.is_some() {
                s.cmds.extend(m::cmd_pixelmap(n % 4, &[n as u8, 200, 30]));
                s.cmds.push(m::cmd_mapcolor(n % 8 == 1));
            }
            if ipu.zoom.is_some() {
                let z = [(1.0, 1.0), (2.0, 0.5), (-1.0, 1.5), (0.7, -2.0)][n as usize % 4];
                s.cmds.extend(m::cmd_zoom(m::q16(z.0), m::q16(z.1)));
            }
            for (j, w) in [1, kw, kw + 3, line].into_iter().enumerate() {
                let fmt = fmts[(n as usize + j) % fmts.len()];
                s.draw(&mut rng, fmt, w, kh + j as u32 % 2, 1000 + w, 50 * n);
            }
        }
    }
    if ipu.zoom.is_some() {
        s.cmds.extend(m::cmd_zoom(m::q16(1.0), m::q16(1.0)));
    }
    s.cmds.push(m::cmd_convolution(false));
    s.draw(&mut rng, fmts[0], 5, 2, 0, 0);
    s.cmds.push(m::cmd_convolution(true));
    if k > 1 {
        s.draw(&mut rng, fmts[0], c.line + 1, 1, 0, 0); // too wide: status 4
    }
    s.cmds.extend(m::cmd_filter(0xf, 0, 1, &[])); // bad size: status 6
    s.cmds.extend(m::cmd_filter(0x7, k + 1, 1, &[])); // likewise
    s.draw(&mut rng, fmts[0], k + 1, k, 9, 9);
    s.cmds
        .extend(&m::cmd_filter(0xf, k, k, &vec![m::q16(0.5); (k * k) as usize])[..2]);
    s
}

#[test]
fn convolution_matches_the_model_at_1_and_4_lanes() {
    // (And with maps and zoom around it at one lane in co_simulation_visits_every_fsm_state.)
    for cfg in [one_lane_plain(), four_lanes()] {
        let b = build_cfg(cfg);
        for (seed, gap, stall) in [(71u64, 0.0, 0.0), (72, 0.5, 0.5)] {
            let s = conv_stream(&b.cfg, seed);
            let (_, out) = check(&b, &s, seed, gap, stall);
            assert!(out.pixels > 20, "{}", out.pixels);
            assert!(out.status.iter().any(|w| w & 0xf == m::EV_FILTER));
        }
    }
}

#[test]
fn broken_convolution_is_caught() {
    let cfg = one_lane_with(CONV3);
    // Filters whose sums leave 0..=255 both ways: all taps 1.5, then all -1.0.
    let mut rng = Rng::stream(73, 0);
    let mut s = m::Stream::default();
    s.cmds.push(m::cmd_convolution(true));
    for w in [1.5, -1.0] {
        s.cmds.extend(m::cmd_filter(0xf, 3, 3, &[m::q16(w); 9]));
        s.draw(&mut rng, 0, 6, 4, 10, 10);
    }
    broken_variants_fail(
        &cfg,
        &s,
        &[
            // Sums above 255 wrap instead of saturating.
            (
                "ipu_conv",
                "(|sum[AccW-2:24]) ? 8'hff",
                "1'b0 ? 8'hff",
                0.3,
                true,
            ),
            // Negative sums wrap instead of clamping to 0.
            ("ipu_conv", "sum[AccW-1] ? 8'd0", "1'b0 ? 8'd0", 0.0, true),
        ],
    );
}

/// A 5x5 blur on R, G, B (alpha from the centre tap) and a 3x3 edge filter with negative
/// weights: the RTL's pixels (equal to the model's) are within 1 LSB of GL's formula in
/// f64 with the float weights; and the filter's rate with no stalls.
#[test]
fn convolution_follows_gl() {
    let b = build_cfg(one_lane_plain());
    let mut rng = Rng::stream(73, 0);
    let blur: Vec<f64> = [1.0, 4.0, 6.0, 4.0, 1.0]
        .iter()
        .flat_map(|a| [1.0, 4.0, 6.0, 4.0, 1.0].map(|b| a * b / 256.0))
        .collect();
    let edge = vec![-1.0, -1.0, -1.0, -1.0, 8.5, -1.0, -1.0, -1.0, -1.0];
    let (w, h) = (64u32, 16u32);
    for (k, weights) in [(5u32, &blur), (3, &edge)] {
        let mut s = m::Stream::default();
        let q: Vec<u32> = weights.iter().map(|v| m::q16(*v)).collect();
        s.cmds.extend(m::cmd_filter(0x7, k, k, &q));
        s.cmds.push(m::cmd_convolution(true));
        s.draw(&mut rng, 0, w, h, 0, 0);
        let (r, out) = check(&b, &s, 73, 0.0, 0.0);
        let (ow, oh) = (w - k + 1, h - k + 1);
        assert_eq!(out.pixels, u64::from(ow * oh));
        for beat in &out.pix {
            let (x, y) = (beat.field(32, 16) as u32, beat.field(48, 16) as u32);
            for ch in 0..4 {
                let c =
                    |i: u32, j: u32| f64::from((s.dma[(j * w + i) as usize] >> (8 * ch)) & 0xff);
                let gl = if ch == 3 {
                    c(x + k / 2, y + k / 2)
                } else {
                    let mut acc = 0.0;
                    for n in 0..k {
                        for mm in 0..k {
                            acc += weights[(n * k + mm) as usize] * c(x + mm, y + n);
                        }
                    }
                    acc.clamp(0.0, 255.0).round()
                };
                let got = beat.field(8 * ch, 8) as f64;
                assert!(
                    (got - gl).abs() <= 1.0,
                    "{k}x{k} ({x}, {y}) ch {ch}: {got} vs GL {gl}"
                );
            }
        }
        println!(
            "{}: convolution {k}x{k}, rgba8888 {w}x{h}: {} output pixels in {} clocks, {:.3} image pixels/clock",
            b.cfg.design.name,
            out.pixels,
            r.cycles,
            f64::from(w * h) / r.cycles as f64
        );
        assert!(
            f64::from(w * h) / r.cycles as f64 > 0.95,
            "a pixel a clock in"
        );
    }
}

/// The framebuffer paths: READ_PIXELS in every format code (enabled, disabled, none) at
/// widths 1..=9 (rows that end inside a 128-bit word), COPY_TEX_IMAGE likewise from
/// several base addresses, COPY_PIXELS with and without zoom, with transfers, maps and
/// the filter on between them, draws and bitmaps in between, empty regions, a copy too
/// wide for the zoom line buffer and truncated framebuffer commands at the end.
fn fb_stream(cfg: &Config, seed: u64) -> m::Stream {
    let ipu = cfg.ipu.as_ref().expect("ipu");
    let mut rng = Rng::stream(seed, 14);
    let mut s = m::Stream::default();
    let fmts: Vec<u32> = (0..7u32).filter(|f| ipu.formats[*f as usize]).collect();
    for w in 1..=9u32 {
        let fmt = w % 8;
        let h = 1 + w % 3;
        let src = (0xfff0 + w, 3 * w);
        s.fb_cmd(&mut rng, ipu, m::FbOp::Read(fmt), (w, h), src);
        s.fb_cmd(
            &mut rng,
            ipu,
            m::FbOp::CopyTex(7 - fmt, 0xffff_fff0 + 7 * w),
            (w, h),
            src,
        );
        s.fb_cmd(&mut rng, ipu, m::FbOp::Copy((100 + w, 200)), (w, h), src);
        s.cmds.extend(m::cmd_transfer(
            w % 2 == 1,
            w % 4,
            m::q16(f64::from(w) / 9.0),
        ));
        if w == 4 {
            s.draw(&mut rng, fmts[0], 3, 2, 5, 5);
            s.cmds.push(m::cmd_push());
        }
    }
    for fmt in &fmts {
        s.fb_cmd(&mut rng, ipu, m::FbOp::Read(*fmt), (10, 3), (1, 2));
        s.fb_cmd(&mut rng, ipu, m::FbOp::CopyTex(*fmt, 0x100), (6, 2), (1, 2));
    }
    s.cmds.push(m::cmd_pop());
    if let Some(line) = ipu.zoom {
        s.cmds.extend(m::cmd_zoom(m::q16(2.0), m::q16(-0.5)));
        for w in [1, 5, line.min(12)] {
            s.fb_cmd(&mut rng, ipu, m::FbOp::Copy((7, 9)), (w, 3), (w, 4));
            // Zoom does not apply to ReadPixels and CopyTexImage.
            s.fb_cmd(&mut rng, ipu, m::FbOp::Read(fmts[0]), (w, 2), (0, 0));
            s.fb_cmd(&mut rng, ipu, m::FbOp::CopyTex(fmts[0], 5), (w, 2), (0, 0));
        }
        s.fb_cmd(&mut rng, ipu, m::FbOp::Copy((0, 0)), (line + 1, 1), (0, 0)); // status 4
        s.cmds.extend(m::cmd_zoom(m::q16(1.0), m::q16(1.0)));
    }
    if ipu.pixel_map.is_some() {
        s.cmds.extend(m::cmd_pixelmap(1, &[9, 200, 30, 77]));
        s.cmds.push(m::cmd_mapcolor(true));
        s.fb_cmd(&mut rng, ipu, m::FbOp::Read(fmts[0]), (7, 2), (3, 3));
        s.fb_cmd(&mut rng, ipu, m::FbOp::Copy((1, 1)), (7, 2), (3, 3));
        s.cmds.push(m::cmd_mapcolor(false));
    }
    if let Some(c) = ipu.convolution {
        let k = c.size;
        let weights: Vec<u32> = (0..k * k)
            .map(|i| m::q16(f64::from(i % 5) / 8.0 - 0.1))
            .collect();
        s.cmds.extend(m::cmd_filter(0xb, k, k, &weights));
        s.cmds.push(m::cmd_convolution(true));
        for w in [1, k, k + 3] {
            s.fb_cmd(
                &mut rng,
                ipu,
                m::FbOp::Read(fmts[w as usize % fmts.len()]),
                (w, k + 1),
                (8, 8),
            );
            s.fb_cmd(&mut rng, ipu, m::FbOp::CopyTex(fmts[0], 9), (w, k), (8, 8));
            s.fb_cmd(&mut rng, ipu, m::FbOp::Copy((50, 50)), (w, k + 2), (8, 8));
        }
        s.cmds.push(m::cmd_convolution(false));
    }
    s.fb_cmd(&mut rng, ipu, m::FbOp::Read(fmts[0]), (0, 4), (0, 0)); // empty
    s.fb_cmd(&mut rng, ipu, m::FbOp::Copy((0, 0)), (4, 0), (0, 0)); // empty
    s.cmds
        .extend(&m::cmd_copytex(fmts[0], 2, 2, (0, 0), 0)[..3]); // truncated
    s
}

#[test]
fn framebuffer_paths_match_the_model_at_1_2_and_4_lanes() {
    for cfg in [one_lane(), four_lanes(), two_lanes(), one_lane_plain()] {
        let b = build_cfg(cfg);
        for (seed, gap, stall) in [(81u64, 0.0, 0.0), (82, 0.5, 0.5), (83, 0.2, 0.8)] {
            let s = fb_stream(&b.cfg, seed);
            let (_, out) = check(&b, &s, seed, gap, stall);
            // In 32-bit units: dma_out's, and the tex words' of dma_word_bits.
            let units = (b.cfg.ipu.as_ref().expect("ipu").dma_word_bits / 32) as usize;
            assert!(
                out.dma_out.len() > 50 && out.tex.len() * units > 50,
                "{} {}",
                out.dma_out.len(),
                out.tex.len()
            );
            assert!(out.pixels > 50 && out.fb_req.len() > 20);
            assert!(out.status.iter().any(|w| w & 0xf == m::EV_FORMAT));
        }
    }
}

#[test]
fn broken_framebuffer_paths_are_caught() {
    let cfg = two_lanes();
    broken_variants_fail(
        &cfg,
        &fb_stream(&cfg, 84),
        &[
            // 5-bit channels packed by truncation, not GL's rounding.
            (
                "ipu_pack",
                "- {5'd0, c} + 13'd127;",
                "- {5'd0, c} + 13'd0;",
                0.0,
                true,
            ),
            // A row that ends inside a 128-bit word does not release it: the next row
            // starts in the wrong word.
            (
                "ipu",
                "| last_px | (fb_act & last_col);",
                "| last_px;",
                0.3,
                true,
            ),
        ],
    );
}

#[test]
fn broken_one_lane_packer_is_caught() {
    let cfg = one_lane();
    broken_variants_fail(
        &cfg,
        &fb_stream(&cfg, 85),
        &[
            // Two-byte pixels placed as if they were one byte wide.
            (
                "ipu_pack",
                "(blog_q == 2'd1) ? held_ext[WordBytes+1:2]",
                "(blog_q == 2'd1) ? held_ext[WordBytes+2:3]",
                0.0,
                true,
            ),
            // The beat shifted past the held bytes by one byte too few.
            (
                "ipu_pack",
                "beat_q} << {n_q, 3'b000};",
                "beat_q} << {n_q - 1'b1, 3'b000};",
                0.0,
                true,
            ),
            // An image's last word not sent until a later pixel fills it.
            (
                "ipu_pack",
                "wire word_now = upto[WordBytes-1] | last_q;",
                "wire word_now = upto[WordBytes-1];",
                0.3,
                false,
            ),
        ],
    );
}

/// A framebuffer path with no gaps and no stalls: region pixels per clock, measured.
fn fb_rate(b: &Built, name: &str, op: m::FbOp, size: (u32, u32), count: u32) -> f64 {
    let (pixels, clocks) = fb_run(b, name, op, size, count);
    pixels as f64 / clocks as f64
}

/// A framebuffer path with no gaps and no stalls: (region pixels, clocks), measured.
fn fb_run(b: &Built, name: &str, op: m::FbOp, (w, h): (u32, u32), count: u32) -> (u64, u64) {
    let ipu = b.cfg.ipu.as_ref().expect("ipu");
    let mut rng = Rng::stream(13, 0);
    let mut s = m::Stream::default();
    for i in 0..count {
        s.fb_cmd(&mut rng, ipu, op, (w, h), (0, i * h));
    }
    let (r, out) = check(b, &s, 13, 0.0, 0.0);
    assert_eq!(
        out.fb_req.len(),
        count as usize,
        "{name}: every region requested"
    );
    let pixels = u64::from(count * w * h);
    let rate = pixels as f64 / r.cycles as f64;
    println!(
        "{}: {name} {w}x{h} x{count}: {pixels} pixels in {} clocks, {rate:.3} pixels/clock",
        b.cfg.design.name, r.cycles
    );
    (pixels, r.cycles)
}

#[test]
fn framebuffer_paths_rate_with_no_stalls() {
    use m::FbOp::{Copy, CopyTex, Read};
    // One lane: a pixel a clock on every path: rows added to every region cost exactly
    // their pixels, and what a region costs beyond its pixels (the pipeline's latency,
    // deeper at the tests' 200 MHz clock) stays within a bound.
    let b = build_cfg(one_lane());
    for (name, op) in [
        ("ReadPixels l8", Read(5)),
        ("ReadPixels rgba8888", Read(0)),
        ("CopyPixels", Copy((0, 0))),
        ("CopyTexImage rgba8888", CopyTex(0, 0)),
        ("CopyTexImage rgb565", CopyTex(2, 0)),
    ] {
        let (p16, c16) = fb_run(&b, name, op, (64, 16), 4);
        let (p32, c32) = fb_run(&b, name, op, (64, 32), 4);
        assert_eq!(c32 - c16, p32 - p16, "{name}: a pixel a clock");
        let latency = (c16 - p16) as f64 / 4.0;
        assert!(latency <= 24.0, "{name}: {latency} clocks a region");
    }
    // Four lanes: 4 pixels of a 128-bit framebuffer word a beat; ReadPixels and
    // CopyTexImage pack them into 128-bit words (this config's dma_word_bits), 4 pixels a
    // clock in every format. Regions of 64x64, so that each draw's latency (a few clocks
    // more where the clock's schedule adds registers) is 2% of its clocks, not a bound's
    // slack.
    let b = build_cfg(four_lanes());
    for (name, op, min) in [
        ("ReadPixels l8", Read(5), 3.9),
        ("ReadPixels rgb565", Read(2), 3.9),
        ("ReadPixels rgba8888", Read(0), 3.9),
        ("CopyPixels", Copy((0, 0)), 3.9),
        ("CopyTexImage rgb565", CopyTex(2, 0), 3.9),
        ("CopyTexImage rgba8888", CopyTex(0, 0), 3.9),
    ] {
        assert!(fb_rate(&b, name, op, (64, 64), 4) > min, "{name}");
    }
    // Two lanes, 2 pixels a beat, but this config's last register is a fifo of depth 1,
    // which takes a beat every other clock: 1 pixel a clock.
    let b = build_cfg(two_lanes());
    for (name, op, min) in [
        ("ReadPixels l8", Read(5), 0.97),
        ("ReadPixels rgba4444", Read(3), 0.97),
        ("CopyPixels", Copy((0, 0)), 0.97),
        ("CopyTexImage bgra8888", CopyTex(1, 0), 0.97),
    ] {
        // Rows of 10: the widest its zoom line buffer takes (CopyPixels checks it).
        assert!(fb_rate(&b, name, op, (10, 64), 4) > min, "{name}");
    }
}

/// ReadPixels packs as GL says, computed here in f64 from the framebuffer words: with
/// identity scale and bias, an n-bit channel is exactly round(c / 255 * (2^n - 1)) and
/// luminance exactly round(clamp((R + G + B) / 255, 0, 1) * 255) (GL 2.0, 4.3.2); with a
/// scale and bias, within 1 LSB of GL's float math. Rows are packed one after another,
/// alignment 1, little endian.
#[test]
fn read_pixels_pack_as_gl_says() {
    let b = build_cfg(one_lane());
    let ipu = b.cfg.ipu.clone().expect("ipu");
    let (w, h) = (13u32, 3u32);
    for (scale, bias) in [(1.0, 0.0), (0.8, 0.1)] {
        let mut rng = Rng::stream(91, 0);
        let mut s = m::Stream::default();
        for ch in 0..4 {
            s.cmds.extend(m::cmd_transfer(false, ch, m::q16(scale)));
            s.cmds.extend(m::cmd_transfer(true, ch, m::q16(bias)));
        }
        for fmt in 0..7 {
            s.fb_cmd(&mut rng, &ipu, m::FbOp::Read(fmt), (w, h), (7, 7));
        }
        let (_, out) = check(&b, &s, 91, 0.3, 0.3);
        let bytes: Vec<u8> = out.dma_out.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut at = 0usize;
        let mut word = 0usize;
        for fmt in 0..7u32 {
            let bpp = m::bytes_per_pixel(fmt) as usize;
            let words = (w * h) as usize * bpp;
            let start = at;
            for j in 0..h as usize {
                for i in 0..w as usize {
                    let px = s.fb[word + j * 4 + i / 4][i % 4];
                    let c = |ch: u32| {
                        let v = f64::from((px >> (8 * ch)) & 0xff) / 255.0;
                        (v * scale + bias).clamp(0.0, 1.0)
                    };
                    let n = |v: f64, bits: u32| (v * f64::from((1u32 << bits) - 1)).round() as i64;
                    let l = (c(0) + c(1) + c(2)).clamp(0.0, 1.0);
                    // GL's value of each field: (value, lowest bit, bits).
                    let want: Vec<(i64, u32, u32)> = match fmt {
                        0 => (0..4).map(|k| (n(c(k), 8), 8 * k, 8)).collect(),
                        1 => [2, 1, 0, 3]
                            .iter()
                            .enumerate()
                            .map(|(p, k)| (n(c(*k), 8), 8 * p as u32, 8))
                            .collect(),
                        2 => vec![(n(c(0), 5), 11, 5), (n(c(1), 6), 5, 6), (n(c(2), 5), 0, 5)],
                        3 => (0..4).map(|k| (n(c(k), 4), 12 - 4 * k, 4)).collect(),
                        4 => vec![
                            (n(c(0), 5), 11, 5),
                            (n(c(1), 5), 6, 5),
                            (n(c(2), 5), 1, 5),
                            (n(c(3), 1), 0, 1),
                        ],
                        5 => vec![(n(l, 8), 0, 8)],
                        _ => vec![(n(l, 8), 0, 8), (n(c(3), 8), 8, 8)],
                    };
                    let got = (0..bpp).fold(0u32, |v, k| v | u32::from(bytes[at + k]) << (8 * k));
                    for (value, lo, bits) in want {
                        let g = i64::from((got >> lo) & ((1 << bits) - 1));
                        let tol = if scale == 1.0 && bias == 0.0 { 0 } else { 1 };
                        assert!(
                            (g - value).abs() <= tol,
                            "{} ({i}, {j}) bits {lo}+{bits}: {g} vs GL {value}",
                            gpurtl::config::ipu::FORMATS[fmt as usize]
                        );
                    }
                    at += bpp;
                }
            }
            // The command's last word is zero-padded; the next starts on a word.
            let end = at.div_ceil(4) * 4;
            assert!(bytes[at..end].iter().all(|b| *b == 0), "padding");
            assert_eq!(end - start, words.div_ceil(4) * 4);
            at = end;
            word += m::fb_words(w, h);
        }
        assert_eq!(at, bytes.len());
    }
}

/// `gpurtl render --read FORMAT`, model path: the drawn picture read back by READ_PIXELS
/// in rgb565 is each pixel through GL's 5-6-5 rounding and back; in l8, ReadPixels'
/// luminance min(R + G + B, 255) in R, G and B; an unknown format is a usage error.
#[test]
fn render_reads_back_in_a_format() {
    let dir = scratch("render-read");
    let input = project_dir().join("docs/ipu/seed_example_in.png");
    let a = png(&input);
    for fmt in ["rgb565", "l8"] {
        let out = dir.join(format!("{fmt}.png"));
        let o = gpurtl()
            .args(["render", "--image"])
            .arg(&input)
            .args(["--read", fmt, "--out"])
            .arg(&out)
            .output()
            .expect("runs gpurtl");
        assert!(o.status.success(), "{}", text(&o));
        let b = png(&out);
        assert_eq!((b.width, b.height), (a.width, a.height));
        for (i, o) in a.pixels.iter().zip(&b.pixels) {
            let n = |c: u8, bits: u32| {
                let max = f64::from((1u32 << bits) - 1);
                let v = (f64::from(c) / 255.0 * max).round();
                (v * 255.0 / max).round() as i32
            };
            let want = if fmt == "l8" {
                let l = (u32::from(i[0]) + u32::from(i[1]) + u32::from(i[2])).min(255) as i32;
                [l, l, l, 255]
            } else {
                [n(i[0], 5), n(i[1], 6), n(i[2], 5), 255]
            };
            for ch in 0..4 {
                // Bit replication widens within 1 LSB of GL's rounding.
                assert!(
                    (i32::from(o[ch]) - want[ch]).abs() <= 1,
                    "{fmt} {i:?}: {o:?}"
                );
            }
        }
    }
    let o = gpurtl()
        .args(["render", "--image"])
        .arg(&input)
        .args(["--read", "rgb555", "--out"])
        .arg(dir.join("x.png"))
        .output()
        .expect("runs gpurtl");
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}

/// Runs `s` at gap = stall = 0 and checks the cycle model (`model::ipu_timing`) predicted
/// the measured clocks exactly (the run fails on a difference; this also fails when the
/// model gave no prediction). Returns the clocks.
fn exact_clocks(b: &Built, name: &str, s: &m::Stream, seed: u64) -> u64 {
    let (r, _) = check(b, s, seed, 0.0, 0.0);
    println!(
        "{}: {name}: {} clocks measured, model {:?}; {:.3} transactions/clock measured, model {:.3?}",
        b.cfg.design.name, r.cycles, r.model_cycles, r.throughput, r.model_throughput
    );
    assert_eq!(r.model_cycles, Some(r.cycles), "{name}: model clocks");
    assert_eq!(
        r.model_throughput,
        Some(r.throughput),
        "{name}: model throughput"
    );
    r.cycles
}

/// The rate tests' streams (same seeds, sizes and positions): DrawPixels in `formats`
/// (`(w, h)`, 4 draws), zoomed l8 draws, bitmaps and the framebuffer paths in `fb`.
fn rate_streams(
    cfg: &Config,
    formats: &[u32],
    (w, h): (u32, u32),
    fb: &[(&str, m::FbOp)],
    fb_size: (u32, u32),
) -> Vec<(String, m::Stream, u64)> {
    let ipu = cfg.ipu.as_ref().expect("ipu");
    let mut out = Vec::new();
    for &fmt in formats {
        let mut rng = Rng::stream(11, 0);
        let mut s = m::Stream::default();
        for i in 0..4 {
            s.draw(&mut rng, fmt, w, h, 0, i * h);
        }
        let name = gpurtl::config::ipu::FORMATS[fmt as usize];
        out.push((format!("DrawPixels {name} {w}x{h} x4"), s, 11));
    }
    for z in [2.0, 0.5] {
        let mut rng = Rng::stream(12, 0);
        let mut s = m::Stream::default();
        s.cmds.extend(m::cmd_zoom(m::q16(z), m::q16(z)));
        let zw = ipu.zoom.unwrap_or(64).min(64);
        for i in 0..4 {
            s.draw(&mut rng, 5, zw, 16, 0, i * 64);
        }
        out.push((format!("DrawPixels l8 {zw}x16 x4 zoom {z}"), s, 12));
    }
    for bits in [0xffff_ffff, 0xaaaa_aaaa] {
        let mut s = m::Stream::default();
        s.cmds.extend(m::cmd_raster(0xff20_4080));
        for i in 0..4 {
            s.cmds.extend(m::cmd_bitmap(64, 16, 0, 16 * i));
            s.dma
                .extend(std::iter::repeat_n(bits, m::bitmap_words(64, 16)));
        }
        out.push((format!("Bitmap 64x16 x4 words {bits:#010x}"), s, 14));
    }
    for (name, op) in fb {
        let mut rng = Rng::stream(13, 0);
        let mut s = m::Stream::default();
        for i in 0..4 {
            s.fb_cmd(&mut rng, ipu, *op, fb_size, (0, i * fb_size.1));
        }
        out.push((format!("{name} {}x{} x4", fb_size.0, fb_size.1), s, 13));
    }
    out
}

#[test]
fn cycle_model_predicts_the_rate_streams_at_1_lane() {
    use m::FbOp::{Copy, CopyTex, Read};
    // Every format, zoom, bitmaps and every framebuffer path.
    let b = build_cfg(one_lane());
    let fb = [
        ("ReadPixels l8", Read(5)),
        ("ReadPixels rgba8888", Read(0)),
        ("CopyPixels", Copy((0, 0))),
        ("CopyTexImage rgba8888", CopyTex(0, 0)),
        ("CopyTexImage rgb565", CopyTex(2, 0)),
    ];
    for (name, s, seed) in rate_streams(&b.cfg, &[0, 1, 2, 3, 4, 5, 6], (64, 16), &fb, (64, 16)) {
        exact_clocks(&b, &name, &s, seed);
    }
    // The convolution rate (`convolution_follows_gl`): filter words, then a draw.
    let b = build_cfg(one_lane_plain());
    let mut rng = Rng::stream(73, 0);
    for k in [5u32, 3] {
        let mut s = m::Stream::default();
        let weights = vec![m::q16(1.0 / f64::from(k * k)); (k * k) as usize];
        s.cmds.extend(m::cmd_filter(0x7, k, k, &weights));
        s.cmds.push(m::cmd_convolution(true));
        s.draw(&mut rng, 0, 64, 16, 0, 0);
        exact_clocks(&b, &format!("convolution {k}x{k} rgba8888 64x16"), &s, 73);
    }
}

#[test]
fn cycle_model_predicts_the_rate_streams_at_2_and_4_lanes() {
    use m::FbOp::{Copy, CopyTex, Read};
    let b = build_cfg(four_lanes());
    let fb = [
        ("ReadPixels l8", Read(5)),
        ("ReadPixels rgb565", Read(2)),
        ("ReadPixels rgba8888", Read(0)),
        ("CopyPixels", Copy((0, 0))),
        ("CopyTexImage rgb565", CopyTex(2, 0)),
    ];
    for (name, s, seed) in rate_streams(&b.cfg, &[5, 2, 0, 6], (64, 16), &fb, (64, 16)) {
        exact_clocks(&b, &name, &s, seed);
    }
    // Rows of 3 l8 pixels: one or two beats a row.
    for (name, s, seed) in rate_streams(&b.cfg, &[5], (3, 64), &[], (0, 0))
        .into_iter()
        .take(1)
    {
        exact_clocks(&b, &name, &s, seed);
    }
    // Two lanes, a 64-bit DMA word and a one-deep FIFO (a beat every other clock).
    let b = build_cfg(two_lanes());
    let fb = [
        ("ReadPixels l8", Read(5)),
        ("ReadPixels rgba4444", Read(3)),
        ("CopyPixels", Copy((0, 0))),
        ("CopyTexImage bgra8888", CopyTex(1, 0)),
    ];
    for (name, s, seed) in rate_streams(&b.cfg, &[1, 3, 4, 5], (10, 64), &fb, (10, 64)) {
        exact_clocks(&b, &name, &s, seed);
    }
}

#[test]
fn cycle_model_predicts_random_mixes_and_stays_out_of_runs_with_gaps() {
    // Every command kind (transfers, stack events, maps, filters, bitmaps, the
    // framebuffer paths, other units' words, truncated commands) at gap = stall = 0.
    for cfg in [one_lane(), two_lanes(), four_lanes(), one_lane_plain()] {
        let b = build_cfg(cfg);
        let ipu = b.cfg.ipu.as_ref().expect("ipu").clone();
        for seed in [21u64, 22, 23] {
            let s = m::random_stream(&ipu, 120, seed);
            exact_clocks(&b, &format!("random mix, seed {seed}"), &s, seed);
        }
        // With gaps or stalls the model predicts nothing: no false timing failures.
        let s = m::random_stream(&ipu, 60, 24);
        for (gap, stall) in [(0.3, 0.0), (0.0, 0.3)] {
            let (r, _) = check(&b, &s, 24, gap, stall);
            assert_eq!(r.model_cycles, None, "gap {gap} stall {stall}");
            assert_eq!(r.model_throughput, None);
        }
    }
}

/// `cfg` built for `mhz` (`[clock] target_mhz`), under its own name (its own build).
fn at_clock(mut cfg: Config, mhz: f64, name: &str) -> Config {
    cfg.clock.target_mhz = mhz;
    cfg.design.name = name.to_string();
    cfg
}

/// The schedule follows the clock (`iface::ipu::Pipe`): at 50 MHz the short pipeline (the
/// map stage one register, no skids), at 100 MHz a middle one, at the tests' default 200
/// MHz the longest (above). Each co-simulates against the model, and the cycle model
/// stays exact at its depth: maps, zoom, the framebuffer paths and random mixes.
#[test]
fn slow_and_middle_targets_match_the_model_exactly() {
    use gpurtl::iface::ipu::Pipe;
    use gpurtl::iface::timing::Timing;
    for (cfg, stages) in [
        (at_clock(one_lane(), 50.0, "ipu_l1_50"), 1),
        (at_clock(two_lanes(), 100.0, "ipu_l2_100"), 3),
    ] {
        let ipu = cfg.ipu.clone().expect("ipu");
        let pipe = Pipe::new(&ipu, &Timing::new(&cfg.clock));
        assert_eq!(pipe.map_stages(), stages, "{}", cfg.design.name);
        let b = build_cfg(cfg);
        let name = b.cfg.design.name.clone();
        exact_clocks(&b, &format!("{name} maps"), &map_stream(&b.cfg, 41), 41);
        exact_clocks(&b, &format!("{name} zoom"), &zoom_stream(&b.cfg, 30), 30);
        exact_clocks(&b, &format!("{name} fb"), &fb_stream(&b.cfg, 14), 14);
        for seed in [21u64, 22] {
            let s = m::random_stream(&ipu, 120, seed);
            exact_clocks(&b, &format!("{name} random mix, seed {seed}"), &s, seed);
        }
        check(&b, &map_stream(&b.cfg, 42), 42, 0.5, 0.5);
        check(&b, &m::random_stream(&ipu, 120, 25), 25, 0.3, 0.3);
    }
}
