//! Speed of the Rust model: vector generation and the cycle model, in items per second.
//!
//! Run: `cargo bench --bench model`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use gpurtl::config::{self, HsChain};
use gpurtl::model::hs_chain;

const ITEMS: usize = 100_000;
const SEED: u64 = 1;

/// The `[hs_chain]` of the embedded default preset (32 bits, skid/bubble/fifo:4/skid).
fn default_chain() -> HsChain {
    config::parse(config::DEFAULT_TOML, config::DEFAULT_ORIGIN)
        .expect("default preset")
        .hs_chain
        .expect("default preset has [hs_chain]")
}

fn bench_model(c: &mut Criterion) {
    let chain = default_chain();
    assert_eq!(chain.width, 32);

    let mut g = c.benchmark_group("model/vectors");
    g.throughput(Throughput::Elements(ITEMS as u64));
    g.bench_function(BenchmarkId::new("width32", ITEMS), |b| {
        b.iter(|| hs_chain::vectors(black_box(&chain), ITEMS, SEED));
    });
    g.finish();

    let inputs = hs_chain::vectors(&chain, ITEMS, SEED).ports[0]
        .items
        .clone();
    let mut g = c.benchmark_group("model/run_cycles");
    g.throughput(Throughput::Elements(ITEMS as u64));
    g.sample_size(20);
    for (gap, stall) in [(0.3, 0.3), (0.0, 0.0)] {
        let id = BenchmarkId::new("default_chain", format!("gap{gap}_stall{stall}"));
        g.bench_function(id, |b| {
            b.iter(|| hs_chain::run_cycles(black_box(&chain), &inputs, SEED, gap, stall));
        });
    }
    g.finish();
}

criterion_group!(benches, bench_model);
criterion_main!(benches);
