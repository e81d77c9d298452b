//! Generation speed for every preset in `configs/`: parse + elaborate + render all output
//! files in memory, and separately the atomic write of those files into a temp dir.
//!
//! Run: `cargo bench --bench generate`.

use std::fs;
use std::hint::black_box;
use std::path::{Path, PathBuf};

mod timing;

use gpurtl::units;
use gpurtl::{config, emit};

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
    let design = units::elaborate(&cfg).unwrap_or_else(|e| panic!("{origin}: {e}"));
    emit::files(&design, &cfg)
}

fn main() {
    if !timing::benching("generate") {
        return;
    }
    let presets = presets();
    let ms = |t: std::time::Duration| t.as_secs_f64() * 1e3;
    for (name, text) in &presets {
        let t = timing::median(|| {
            black_box(generate_in_memory(black_box(text), name));
        });
        println!("generate/in_memory/{name}: {:.3} ms", ms(t));
    }

    let root: PathBuf =
        std::env::temp_dir().join(format!("gpurtl-bench-gen-{}", std::process::id()));
    for (name, text) in &presets {
        let files = generate_in_memory(text, name);
        let dir = root.join(name);
        // Each run replaces the previous output, as a repeated `generate` does.
        let t =
            timing::median(|| emit::write_atomic(black_box(&dir), &files).expect("write_atomic"));
        println!("generate/write_atomic/{name}: {:.3} ms", ms(t));
    }
    let _ = fs::remove_dir_all(&root);
}
