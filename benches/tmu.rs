//! Texture mapping unit figures, measured in Verilator co-simulation of the whole `tmu`
//! (every response checked against the model): quads per clock on cache hits (bilinear,
//! trilinear), on rasterised views of a 256x256 texture at 0 and 100 clocks of memory
//! latency, the cache hit rate, and how fast the model samples against Verilator.
//!
//! Only runs under `cargo bench --bench tmu`; under `cargo test` it prints a note.
//! Arguments after `--` pick workloads by a part of their name.

use std::path::PathBuf;
use std::time::Instant;

use gpurtl::config::{self, Config, Filter, TexFormat, TexLayout};
use gpurtl::model::tmu::sampler::MipImage;
use gpurtl::model::tmu::unit::{Lane, TmuCmd, TmuModel, load_texture};
use gpurtl::rng::Rng;
use gpurtl::sim::{self, MemTiming, SimOptions};

mod shared;

/// Four lanes (a quad a request) before a 16 KiB, 4-way cache of 256-byte lines, 16 banks,
/// a 128-bit bus, 8 line fills in flight: the tex_cache benchmark's 4-lane organisation,
/// with a queue of 256 passes: at a quad per clock, a miss is hidden only when the queue
/// holds the 116 clocks a line takes at 100 clocks of latency.
///
/// `lanes` is 4 (a quad a request) or 8 (two quads, 32 cache ports).
fn bench_config(lanes: u32) -> Config {
    let text = format!(
        "[design]\nname = \"bench_tmu{lanes}\"\nmodule_prefix = \"b{lanes}_\"\n[tmu]\nlanes = {lanes}\n\
         [tmu.cache]\nsize_bytes = 16384\nline_bytes = 256\nways = 4\nbanks = 16\nports = {}\n\
         mshr_entries = 16\nreplacement = \"lru\"\nbus_bits = 128\nlayout = \"tiled4x4\"\n\
         queue_depth = 256\n",
        4 * lanes
    );
    config::parse(&text, "bench").expect("valid bench config")
}

/// Pairs of consecutive quads as 8-lane requests (the raster's horizontal neighbours).
fn pairs(quads: &[TmuCmd]) -> Vec<TmuCmd> {
    quads
        .chunks(2)
        .map(|pair| {
            let lanes = pair
                .iter()
                .cycle()
                .take(2)
                .enumerate()
                .flat_map(|(k, q)| match q {
                    TmuCmd::Sample { lanes, .. } => lanes
                        .iter()
                        .map(|l| Lane {
                            active: l.active && k < pair.len(),
                            ..*l
                        })
                        .collect::<Vec<_>>(),
                    TmuCmd::Write { .. } => Vec::new(),
                })
                .collect();
            TmuCmd::Sample {
                tex: 0,
                lod: None,
                lanes,
            }
        })
        .collect()
}

/// A random texture with a full mip chain.
fn texture(format: TexFormat, log2: u32, seed: u64) -> MipImage {
    let mut rng = Rng::stream(seed, 0);
    MipImage {
        format,
        layout: TexLayout::Tiled4x4,
        log2_width: log2,
        log2_height: log2,
        levels: (0..=log2)
            .map(|l| {
                let n = MipImage::level_words(format, log2 - l, log2 - l);
                (0..n).map(|_| rng.next_u64() as u32).collect()
            })
            .collect(),
    }
}

/// The quads of a `size` x `size` picture showing the texture (2^log2 texels wide)
/// rotated by `angle` degrees, `scale` pixels per texel, in raster order of quads.
fn view(size: u32, log2: u32, angle: f64, scale: f64) -> Vec<TmuCmd> {
    let (sin, cos) = angle.to_radians().sin_cos();
    let texels = f64::from(1u32 << log2) * scale;
    let st = |x: f64, y: f64| {
        let (dx, dy) = (x - f64::from(size) / 2.0, y - f64::from(size) / 2.0);
        (
            ((cos * dx - sin * dy) / texels + 0.5) as f32,
            ((sin * dx + cos * dy) / texels + 0.5) as f32,
        )
    };
    let mut out = Vec::new();
    for y in (0..size).step_by(2) {
        for x in (0..size).step_by(2) {
            let lanes = [(0, 0), (1, 0), (0, 1), (1, 1)]
                .map(|(i, j)| {
                    let (s, t) = st(f64::from(x + i) + 0.5, f64::from(y + j) + 0.5);
                    Lane { s, t, active: true }
                })
                .to_vec();
            out.push(TmuCmd::Sample {
                tex: 0,
                lod: None,
                lanes,
            });
        }
    }
    out
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("tmu: skipped (run it with `cargo bench --bench tmu`)");
        return;
    }
    let work = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("bench-sim");
    let cfg = bench_config(4);
    let tmu = cfg.tmu.clone().expect("tmu");
    let (lm, ll, lml) = (Filter::Linear, Filter::Linear, Filter::LinearMipmapLinear);
    // (name, format, log2 size, picture size, angle, scale, min, mag)
    let runs = [
        (
            "hits: 8x8 magnified 16x, bilinear",
            TexFormat::Rgba8888,
            3,
            128,
            0.0,
            16.0,
            lm,
            ll,
        ),
        (
            "hits: 8x8 at 0.4, trilinear",
            TexFormat::Rgba8888,
            3,
            128,
            0.0,
            0.4,
            lml,
            ll,
        ),
        (
            "256x256 rotated 30, magnified 2x",
            TexFormat::Rgba8888,
            8,
            256,
            30.0,
            2.0,
            lml,
            ll,
        ),
        (
            "256x256 rotated 30, 1:1, bilinear",
            TexFormat::Rgba8888,
            8,
            256,
            30.0,
            1.0,
            lm,
            ll,
        ),
        (
            "256x256 rotated 30, minified 2.5x, trilinear",
            TexFormat::Rgba8888,
            8,
            128,
            30.0,
            0.4,
            lml,
            ll,
        ),
        (
            "256x256 dxt1 rotated 30, 1:1, bilinear",
            TexFormat::Dxt1,
            8,
            256,
            30.0,
            1.0,
            lm,
            ll,
        ),
    ];
    println!(
        "## tmu: 4 lanes, 16 KiB 4-way cache, 128-bit bus, 16 fills in flight, 256-pass queue (seed 1)"
    );
    println!();
    println!(
        "| workload | quads | quads/clock, ideal memory | quads/clock, latency 100 | ratio | hit rate | line fills | bus busy, latency 100 |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    // `cargo bench --bench tmu -- dxt1` runs only the workloads whose name holds "dxt1".
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let mut model_rate = Vec::new();
    let mut rtl_rate = Vec::new();
    for (name, format, log2, size, angle, scale, min, mag) in runs {
        if !filters.is_empty() && !filters.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        let img = texture(format, log2, 7);
        let s = shared::sampler(min, mag, &tmu);
        let (mut cmds, memory) = load_texture(0, &img, &s);
        let quads = view(size, log2, angle, scale);
        cmds.extend(quads.iter().cloned());
        let mut figures = Vec::new();
        for latency in [0, 100] {
            let opt = SimOptions {
                mem: MemTiming {
                    latency,
                    ..Default::default()
                },
                ..SimOptions::new(quads.len(), 1, work.clone())
            };
            let t = Instant::now();
            let run = sim::tmu::run(&cfg, &cmds, memory.clone(), &opt).expect("simulates");
            assert!(run.report.passed, "{name}: {:?}", run.report.errors);
            if latency == 100 {
                rtl_rate.push(quads.len() as f64 / t.elapsed().as_secs_f64());
            }
            figures.push(run);
        }
        let t = Instant::now();
        let mut m = TmuModel::new(&tmu, memory.clone());
        for c in &cmds {
            m.step(c);
        }
        model_rate.push(quads.len() as f64 / t.elapsed().as_secs_f64());
        let (ideal, slow) = (&figures[0], &figures[1]);
        println!(
            "| {name} | {} | {:.3} | {:.3} | {:.3} | {:.4} | {} | {:.1}% |",
            quads.len(),
            ideal.requests_per_clock(),
            slow.requests_per_clock(),
            slow.requests_per_clock() / ideal.requests_per_clock(),
            slow.hit_rate(),
            slow.fills,
            100.0 * slow.report.memory.first().map_or(0.0, |m| m.utilization)
        );
    }
    // 8 lanes: the raster's quads in horizontal pairs, a request each.
    let cfg8 = bench_config(8);
    let tmu8 = cfg8.tmu.clone().expect("tmu");
    let mut header = false;
    for (name, format, log2, size, angle, scale, min, mag) in runs {
        let name = format!("8 lanes, {name}");
        if !filters.is_empty() && !filters.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        if !header {
            println!();
            println!("## tmu: 8 lanes (two quads a request), 32 ports, otherwise the same");
            println!();
            println!(
                "| workload | quads | requests | quads/clock, ideal memory | quads/clock, latency 100 | ratio | hit rate |"
            );
            println!("|---|---|---|---|---|---|---|");
            header = true;
        }
        let img = texture(format, log2, 7);
        let s = shared::sampler(min, mag, &tmu8);
        let (mut cmds, memory) = load_texture(0, &img, &s);
        let quads = view(size, log2, angle, scale);
        let requests = pairs(&quads);
        cmds.extend(requests.iter().cloned());
        let mut rates = Vec::new();
        let mut hit = 0.0;
        for latency in [0, 100] {
            let opt = SimOptions {
                mem: MemTiming {
                    latency,
                    ..Default::default()
                },
                ..SimOptions::new(requests.len(), 1, work.clone())
            };
            let run = sim::tmu::run(&cfg8, &cmds, memory.clone(), &opt).expect("simulates");
            assert!(run.report.passed, "{name}: {:?}", run.report.errors);
            rates.push(quads.len() as f64 / run.report.cycles.max(1) as f64);
            hit = run.hit_rate();
        }
        println!(
            "| {name} | {} | {} | {:.3} | {:.3} | {:.3} | {:.4} |",
            quads.len(),
            requests.len(),
            rates[0],
            rates[1],
            rates[1] / rates[0],
            hit
        );
    }
    if model_rate.is_empty() {
        return;
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    println!();
    println!(
        "Model: {:.0} quads/s; Verilator co-simulation (build cached, vectors written and read): {:.0} quads/s; the model is {:.0}x faster.",
        mean(&model_rate),
        mean(&rtl_rate),
        mean(&model_rate) / mean(&rtl_rate)
    );
}
