//! Generation speed for every preset in `configs/`: parse + elaborate + render all output
//! files in memory, and separately the atomic write of those files into a temp dir.
//!
//! Run: `cargo bench --bench generate`.

use std::fs;
use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use gpurtl::{config, emit, rtl};

/// Every `configs/*.toml`, read now (at bench time), sorted by file name.
fn presets() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
    let mut out: Vec<(String, String)> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| {
            let name = p
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let text =
                fs::read_to_string(&p).unwrap_or_else(|e| panic!("reading {}: {e}", p.display()));
            (name, text)
        })
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no presets in {}", dir.display());
    out
}

fn generate_in_memory(text: &str, origin: &str) -> Vec<emit::OutFile> {
    let cfg = config::parse(text, origin).unwrap_or_else(|e| panic!("{origin}: {e}"));
    let design = rtl::elaborate(&cfg).unwrap_or_else(|e| panic!("{origin}: {e}"));
    emit::files(&design, &cfg)
}

fn bench_generate(c: &mut Criterion) {
    let presets = presets();

    let mut g = c.benchmark_group("generate/in_memory");
    for (name, text) in &presets {
        g.bench_with_input(BenchmarkId::from_parameter(name), text, |b, text| {
            b.iter(|| generate_in_memory(black_box(text), name));
        });
    }
    g.finish();

    let root: PathBuf =
        std::env::temp_dir().join(format!("gpurtl-bench-gen-{}", std::process::id()));
    let mut g = c.benchmark_group("generate/write_atomic");
    for (name, text) in &presets {
        let files = generate_in_memory(text, name);
        let dir = root.join(name);
        g.bench_with_input(BenchmarkId::from_parameter(name), &files, |b, files| {
            // Each iteration replaces the previous output, as a repeated `generate` does.
            b.iter(|| emit::write_atomic(black_box(&dir), files).expect("write_atomic"));
        });
    }
    g.finish();
    let _ = fs::remove_dir_all(&root);
}

criterion_group!(benches, bench_generate);
criterion_main!(benches);
