//! Speed of the Rust model: vector generation and the cycle model, in items per second.
//!
//! Run: `cargo bench --bench model` (median of repeated runs, about half a second each).

use std::hint::black_box;

mod timing;

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

fn main() {
    if !timing::benching("model") {
        return;
    }
    let chain = default_chain();
    assert_eq!(chain.width, 32);
    let rate = |t: std::time::Duration| ITEMS as f64 / t.as_secs_f64() / 1e6;

    let t = timing::median(|| {
        black_box(hs_chain::vectors(black_box(&chain), ITEMS, SEED));
    });
    println!(
        "model/vectors/width32/{ITEMS}: {:.2} ms, {:.1} M items/s",
        t.as_secs_f64() * 1e3,
        rate(t)
    );

    let inputs = hs_chain::vectors(&chain, ITEMS, SEED).ports[0]
        .items
        .clone();
    for (gap, stall) in [(0.3, 0.3), (0.0, 0.0)] {
        let t = timing::median(|| {
            black_box(hs_chain::run_cycles(
                black_box(&chain),
                &inputs,
                SEED,
                gap,
                stall,
            ));
        });
        println!(
            "model/run_cycles/default_chain/gap{gap}_stall{stall}: {:.2} ms, {:.1} M items/s",
            t.as_secs_f64() * 1e3,
            rate(t)
        );
    }
}
