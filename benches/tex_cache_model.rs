//! Texture cache figures from the model: hit rate, memory bytes per texel, requests split
//! for lack of ways, and the bank-conflict rate bound, per workload and cache shape.
//! Run with `cargo bench --bench tex_cache_model`; a plain main that prints a table.

use std::time::Instant;

use gpurtl::config::{CacheSection, Replacement, TexCache, TexLayout};
use gpurtl::model::tex_cache::{bank_check, run_traffic};
use gpurtl::workload::{Workload, generate};

fn section(size_bytes: u32, ways: u32, banks: u32, ports: u32) -> CacheSection {
    CacheSection {
        size_bytes,
        line_bytes: 256,
        ways,
        banks,
        ports,
        mshr_entries: 8,
        replacement: Replacement::Lru,
        bus_bits: if banks == 4 { 64 } else { 128 },
        layout: TexLayout::Tiled4x4,
        queue_depth: 64,
        tag_ports: None,
    }
}

fn cache(
    name: &str,
    ways: u32,
    banks: u32,
    ports: u32,
    replacement: Replacement,
    layout: TexLayout,
) -> (String, TexCache) {
    let section = CacheSection {
        replacement,
        layout,
        ..section(16384, ways, banks, ports)
    };
    let c = section.validate(&mut Vec::new()).expect("a valid cache");
    (name.to_string(), c)
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("tex_cache_model: skipped (run it with `cargo bench --bench tex_cache_model`)");
        return;
    }
    let caches = [
        cache(
            "seed: 16 KiB, 64-way LRU, 4 lanes, tiled",
            64,
            16,
            16,
            Replacement::Lru,
            TexLayout::Tiled4x4,
        ),
        cache(
            "64-way FIFO, 4 lanes, tiled",
            64,
            16,
            16,
            Replacement::Fifo,
            TexLayout::Tiled4x4,
        ),
        cache(
            "64-way tree pseudo-LRU, 4 lanes, tiled",
            64,
            16,
            16,
            Replacement::Plru,
            TexLayout::Tiled4x4,
        ),
        cache(
            "4-way LRU, 4 lanes, tiled",
            4,
            16,
            16,
            Replacement::Lru,
            TexLayout::Tiled4x4,
        ),
        cache(
            "direct mapped, 1 lane, tiled",
            1,
            4,
            4,
            Replacement::Lru,
            TexLayout::Tiled4x4,
        ),
        cache(
            "64-way LRU, 4 lanes, linear",
            64,
            16,
            16,
            Replacement::Lru,
            TexLayout::Linear,
        ),
    ];
    for (name, c) in &caches {
        let check = bank_check(c);
        println!(
            "\n### {name}\n\nbank check: worst 2x2 footprint {} clock(s) over {} footprints; request bound {} clock(s)\n",
            check.footprint_clocks, check.footprints, check.request_bound
        );
        println!(
            "| workload | requests | texels | hit rate | misses | bytes/texel | split requests | requests/clock (banks) | model Mtexels/s |"
        );
        println!("|---|---|---|---|---|---|---|---|---|");
        let lanes = (c.ports / 4) as usize;
        for w in Workload::ALL {
            let reqs = generate(w, lanes, c.layout, c.shape(), 1, 200_000);
            let t = Instant::now();
            let s = run_traffic(c, &reqs);
            let secs = t.elapsed().as_secs_f64();
            println!(
                "| {} | {} | {} | {:.4} | {} | {:.3} | {} | {:.3} | {:.1} |",
                w.name(),
                s.requests,
                s.texels,
                s.hit_rate(),
                s.misses,
                s.bytes_per_texel(),
                s.split_requests,
                s.bank_rate(),
                s.texels as f64 / secs / 1e6
            );
        }
    }
    sweep();
}

/// Hit rate against size and associativity: 4 lanes, 256-byte lines, LRU, 16 banks; the
/// rasterised 1024x1024 workloads, both layouts. "full" is one set.
fn sweep() {
    const SIZES: [u32; 4] = [4096, 8192, 16384, 32768];
    const WAYS: [Option<u32>; 4] = [Some(1), Some(4), Some(16), None];
    let workloads = ["one2one_1024", "min2x_1024", "rot30_1024", "mag2x_1024"];
    for (layout, layout_name) in [
        (TexLayout::Tiled4x4, "4x4 tiled"),
        (TexLayout::Linear, "linear"),
    ] {
        for name in workloads {
            let w = Workload::from_name(name).expect("a workload");
            println!("\n### hit rate: {name}, {layout_name}, 4 lanes, LRU\n");
            println!("| size | direct mapped | 4-way | 16-way | fully associative |");
            println!("|---|---|---|---|---|");
            for size in SIZES {
                let mut row = format!("| {} KiB |", size / 1024);
                for ways in WAYS {
                    let ways = ways.unwrap_or(size / 256);
                    let c = CacheSection {
                        layout,
                        ..section(size, ways, 16, 16)
                    }
                    .validate(&mut Vec::new())
                    .expect("a valid cache");
                    let reqs = generate(w, 4, c.layout, c.shape(), 1, 200_000);
                    row += &format!(" {:.4} |", run_traffic(&c, &reqs).hit_rate());
                }
                println!("{row}");
            }
        }
    }
}
