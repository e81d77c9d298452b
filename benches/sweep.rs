//! `gpurtl sweep` on the model alone: 32 texture-cache points (size x ways x layout x
//! replacement) on the 1024x1024 rotated quad, at one and two points at a time, each from
//! an empty cache. Run with `cargo bench --bench sweep`; a plain main that prints a table.

use std::time::Instant;

use gpurtl::config::{DEFAULT_ORIGIN, DEFAULT_TOML};
use gpurtl::sweep::{self, Axis, Plan, Settings, Spec};

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("sweep: skipped (run it with `cargo bench --bench sweep`)");
        return;
    }
    let axes = [
        "tmu.cache.line_bytes=256",
        "tmu.cache.size_bytes=4096..32768*2",
        "tmu.cache.ways=1,16",
        "tmu.cache.layout=linear,tiled4x4",
        "tmu.cache.replacement=lru,fifo",
    ]
    .iter()
    .map(|a| Axis::parse(a).expect("a valid --set"))
    .collect();
    let plan = Plan {
        generator: gpurtl::rtl::GENERATOR.to_string(),
        spec: Spec::new(DEFAULT_ORIGIN, DEFAULT_TOML, axes, false).expect("a valid sweep"),
        settings: Settings {
            unit: "tex_cache".into(),
            workloads: vec!["rot30_1024".into()],
            count: 65_536,
            seed: 1,
            gap: 0.0,
            stall: 0.0,
            mem_latency: None,
            model_only: true,
            synth: None,
        },
    };
    let n = plan.spec.count();
    println!("{n} points, model only, tex_cache on rot30_1024, 65,536 requests each");
    println!("{:>6} {:>10} {:>14}", "jobs", "wall s", "points / s");
    for jobs in [1, 2] {
        let work =
            std::env::temp_dir().join(format!("gpurtl-bench-sweep-{}-{jobs}", std::process::id()));
        let _ = std::fs::remove_dir_all(&work);
        let t = Instant::now();
        let results =
            sweep::run_points(&plan, &work, &work, jobs, &|_| {}, &|| {}).expect("a thread pool");
        let s = t.elapsed().as_secs_f64();
        assert!(results.iter().all(|r| !r.failed()));
        println!("{jobs:>6} {s:>10.2} {:>14.1}", n as f64 / s);
        let _ = std::fs::remove_dir_all(&work);
    }
}
