//! The image processing unit's figures (issue 5): pixels per clock on every path in
//! Verilator co-simulation next to the cycle model's, the value model's speed, and Yosys
//! cell counts of the paper-like organisation.
//!
//! Every run goes through the library as `gpurtl sim` does (`sim::build`,
//! `ipu::encode`, `units::expectation`, `sim::run_vectors`), with no input gaps and no
//! output stalls, and is checked against the model: a mismatch or a clock count that
//! differs from the cycle model stops the bench. Only runs under `cargo bench --bench ipu`
//! (the `--bench` flag cargo passes); under `cargo test` it prints a note and returns.
//! `GPURTL_BENCH_JSON=FILE` also writes the rows as JSON.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use gpurtl::config::{self, Config};
use gpurtl::model::ipu as m;
use gpurtl::rng::Rng;
use gpurtl::sim::{self, SimOptions};
use gpurtl::units;

/// The organisations measured: the seed's (1 lane, 32-bit DMA words), 2 lanes with 64-bit
/// words and 4 lanes with 128-bit words; each with zoom, the four colour maps, bitmap and
/// the framebuffer paths, bubble registers.
fn bench_config(lanes: u32) -> Config {
    let text = format!(
        "[design]\nname = \"bench_ipu{lanes}\"\nmodule_prefix = \"bi{lanes}_\"\n[ipu]\nlanes = {lanes}\n\
         dma_word_bits = {}\nbitmap = true\nframebuffer = true\n\
         [ipu.zoom]\nenabled = true\nmax_line_width = 1024\n\
         [ipu.pixel_map]\nenabled = true\ntable_size = 256\n\
         maps = [\"r_to_r\", \"g_to_g\", \"b_to_b\", \"a_to_a\"]\n",
        32 * lanes
    );
    config::parse(&text, "bench").expect("valid bench config")
}

/// The paper-like organisation of BENCHMARKS.md: 1 lane, every feature on.
const PAPER: &str = "[design]\nname = \"paper\"\n[ipu]\nlanes = 1\nbitmap = true\n\
framebuffer = true\n[ipu.zoom]\nenabled = true\nmax_line_width = 1024\n\
[ipu.pixel_map]\nenabled = true\ntable_size = 256\n\
maps = [\"r_to_r\", \"g_to_g\", \"b_to_b\", \"a_to_a\"]\n\
[ipu.convolution]\nenabled = true\nkernel_size = 5\nmax_line_width = 1024\n";

struct Row {
    config: String,
    path: String,
    /// Pixels out (for zoom, what it wrote) and pixels (or bitmap bits) in.
    pixels: u64,
    image: u64,
    clocks: u64,
    model_clocks: u64,
    seconds: f64,
}

/// `(path, stream, pixels out)`: four 64 x 16 commands back to back, as the rate tests
/// (`4 * 64 * 16` pixels in).
fn streams(ipu: &gpurtl::config::Ipu) -> Vec<(String, m::Stream, u64)> {
    use m::FbOp::{Copy, CopyTex, Read};
    let (w, h, n) = (64u32, 16u32, 4u32);
    let px = u64::from(w * h * n);
    let mut out = Vec::new();
    for (name, fmt) in [("rgba8888", 0), ("rgb565", 2), ("l8", 5)] {
        let mut rng = Rng::stream(11, 0);
        let mut s = m::Stream::default();
        for i in 0..n {
            s.draw(&mut rng, fmt, w, h, 0, i * h);
        }
        out.push((format!("DrawPixels {name}"), s, px));
    }
    for z in [2.0, 0.5, 1.5, 3.0] {
        let mut rng = Rng::stream(12, 0);
        let mut s = m::Stream::default();
        s.cmds.extend(m::cmd_zoom(m::q16(z), m::q16(z)));
        for i in 0..n {
            s.draw(&mut rng, 5, w, h, 0, i * 64);
        }
        // Output pixels: what the zoom wrote.
        let (_, o) = m::encode(ipu, &s, 12);
        out.push((
            format!("DrawPixels l8, zoom {z} (output pixels)"),
            s,
            o.pixels,
        ));
    }
    for (name, op) in [
        ("ReadPixels rgba8888", Read(0)),
        ("ReadPixels rgb565", Read(2)),
        ("CopyPixels", Copy((0, 0))),
        ("CopyTexImage rgba8888", CopyTex(0, 0)),
    ] {
        let mut rng = Rng::stream(13, 0);
        let mut s = m::Stream::default();
        for i in 0..n {
            s.fb_cmd(&mut rng, ipu, op, (w, h), (0, i * h));
        }
        out.push((name.to_string(), s, px));
    }
    let mut s = m::Stream::default();
    s.cmds.extend(m::cmd_raster(0xff20_4080));
    for i in 0..n {
        s.cmds.extend(m::cmd_bitmap(w, h, 0, h * i));
        s.dma
            .extend(std::iter::repeat_n(0xffff_ffff, m::bitmap_words(w, h)));
    }
    out.push(("Bitmap (bitmap pixels)".to_string(), s, px));
    out
}

fn rates(lanes: u32, work: &Path) -> Vec<Row> {
    let cfg = bench_config(lanes);
    let ipu = cfg.ipu.clone().expect("ipu");
    let design = units::elaborate(&cfg).expect("elaborates");
    let unit = design.unit("ipu").expect("ipu unit").clone();
    let (dir, _) = sim::build(&cfg, &design, &unit, false, work).expect("verilates");
    let mut rows = Vec::new();
    for (path, s, pixels) in streams(&ipu) {
        let seed = 1;
        let (v, _) = m::encode(&ipu, &s, seed);
        let e = units::expectation(&cfg, &unit, &v, 0.0, 0.0);
        let opt = SimOptions {
            gap: 0.0,
            stall: 0.0,
            ..SimOptions::new(s.cmds.len(), seed, work.to_path_buf())
        };
        let t = Instant::now();
        let r = sim::run_vectors(&unit, &dir, true, &opt, &v, &e).expect("runs");
        let seconds = t.elapsed().as_secs_f64();
        assert!(r.passed, "{} {path}: {:?}", cfg.design.name, r.errors);
        rows.push(Row {
            config: format!("{lanes} lane(s), {}-bit DMA", ipu.dma_word_bits),
            path,
            pixels,
            image: 4 * 64 * 16,
            clocks: r.cycles,
            model_clocks: r
                .model_cycles
                .expect("the cycle model predicts gap 0, stall 0"),
            seconds,
        });
    }
    rows
}

/// The value model's speed on a large DrawPixels (1024 x 1024 rgba8888, maps on, 2x zoom).
fn model_speed() -> (u64, f64) {
    let cfg = bench_config(4);
    let ipu = cfg.ipu.clone().expect("ipu");
    let mut rng = Rng::stream(5, 0);
    let mut s = m::Stream::default();
    s.cmds.extend(m::cmd_zoom(m::q16(2.0), m::q16(2.0)));
    s.draw(&mut rng, 0, 512, 512, 0, 0);
    let t = Instant::now();
    let (_, out) = m::encode(&ipu, &s, 5);
    (out.pixels, t.elapsed().as_secs_f64())
}

/// Yosys 0.23's generic cell and flop counts of `text`'s `ipu` unit, flattened.
fn cells(text: &str, dir: &Path) -> (u64, u64) {
    let cfg = config::parse(text, "bench").expect("valid");
    let design = units::elaborate(&cfg).expect("elaborates");
    let unit = design.unit("ipu").expect("ipu");
    std::fs::create_dir_all(dir).expect("dir");
    let mut files = Vec::new();
    for module in design.unit_modules(unit) {
        let f = dir.join(module.file_name());
        std::fs::write(&f, &module.text).expect("writes");
        files.push(f.display().to_string());
    }
    let stat = dir.join("stat.txt");
    let script = format!(
        "read_verilog {}; synth -top {} -flatten -run begin:fine; opt -fast -full; techmap; \
         opt -fast; abc -fast; opt -fast; tee -q -o {} stat",
        files.join(" "),
        unit.top,
        stat.display()
    );
    let out = Command::new("yosys")
        .args(["-q", "-p", &script])
        .output()
        .expect("runs yosys");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&stat).expect("stat");
    let mut total = 0;
    let mut flops = 0;
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if line.contains("Number of cells:") {
            total = f.last().and_then(|v| v.parse().ok()).unwrap_or(0);
        } else if f.len() == 2 && f[0].contains("DFF") {
            flops += f[1].parse::<u64>().unwrap_or(0);
        }
    }
    (total, flops)
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("ipu: skipped (run it with `cargo bench --bench ipu`)");
        return;
    }
    let work = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("bench-sim");
    let mut rows = Vec::new();
    for lanes in [1, 2, 4] {
        rows.extend(rates(lanes, &work));
    }
    println!(
        "| config | path | pixels out | clocks | model | pixels out/clock | pixels in/clock | Vsim run, pixels/s |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {} | {} | {:.3} | {:.3} | {:.0} |",
            r.config,
            r.path,
            r.pixels,
            r.clocks,
            r.model_clocks,
            r.pixels as f64 / r.clocks as f64,
            r.image as f64 / r.clocks as f64,
            r.pixels as f64 / r.seconds
        );
    }
    let (px, s) = model_speed();
    println!(
        "\nmodel: {px} output pixels (512 x 512 rgba8888, 2x zoom, 4 lanes) in {s:.3} s, {:.0} pixels/s",
        px as f64 / s
    );
    let (c, f) = cells(PAPER, &work.join("paper-synth"));
    println!(
        "paper-like (1 lane, every feature, 5x5 filter): {c} cells, {f} flip-flops (Yosys generic, flattened)"
    );
    if let Ok(path) = std::env::var("GPURTL_BENCH_JSON") {
        let json: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| {
                serde_json::json!({
                    "config": r.config,
                    "path": r.path,
                    "pixels": r.pixels,
                    "pixels_in": r.image,
                    "clocks": r.clocks,
                    "model_clocks": r.model_clocks,
                    "pixels_per_clock": r.pixels as f64 / r.clocks as f64,
                })
            })
            .collect();
        let doc = serde_json::json!({
            "rates": json,
            "model_pixels_per_second": px as f64 / s,
            "paper_cells": c,
            "paper_flops": f,
        });
        std::fs::write(&path, serde_json::to_string_pretty(&doc).expect("json")).expect("writes");
        println!("wrote {path}");
    }
}
