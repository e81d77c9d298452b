//! A small timer for the plain-`main` benches: runs a closure until about half a second
//! has passed (at least 5 times) and reports the median time per run.

use std::time::{Duration, Instant};

/// Median wall time of one call of `f`.
pub fn median(mut f: impl FnMut()) -> Duration {
    f(); // warm-up
    let mut times = Vec::new();
    let start = Instant::now();
    while times.len() < 5 || (start.elapsed() < Duration::from_millis(500) && times.len() < 1000) {
        let t = Instant::now();
        f();
        times.push(t.elapsed());
    }
    times.sort();
    times[times.len() / 2]
}

/// Only `cargo bench` passes `--bench`; under `cargo test` a bench just says so.
pub fn benching(name: &str) -> bool {
    let on = std::env::args().any(|a| a == "--bench");
    if !on {
        println!("{name}: skipped (run it with `cargo bench --bench {name}`)");
    }
    on
}
