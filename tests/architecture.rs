//! The direction data flows in, checked on the source: every `crate::x` path in a
//! top-level module of `src/` must name a module that comes before it in [`LAYERS`]. So
//! `rtl/` and `model/` never import each other, both read the contract in `iface/`, and
//! only `units/` (and the drivers above it) see both.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The modules of `src/`, lowest first, each with the modules it may import.
const LAYERS: &[(&str, &[&str])] = &[
    ("rng", &[]),
    ("config", &["rng"]),
    // Textures, texel layouts and GL's wrap rules: what traffic, the contract's bank
    // check and the model share.
    ("workload", &["config", "rng"]),
    ("iface", &["config", "rng", "workload"]),
    ("vectors", &["iface", "rng"]),
    ("rtl", &["config", "iface"]),
    ("model", &["config", "iface", "rng", "vectors", "workload"]),
    (
        "units",
        &["config", "iface", "rtl", "model", "vectors", "workload"],
    ),
    ("texio", &["config", "model"]),
    ("emit", &["config", "rtl"]),
    ("formal", &["config", "rtl", "units"]),
    (
        "sim",
        &[
            "config", "emit", "iface", "model", "rtl", "texio", "units", "vectors", "workload",
        ],
    ),
    ("synth", &["config", "emit", "rtl", "sim", "units"]),
    // Design-space sweeps: points through the simulator and the implementation flow.
    (
        "sweep",
        &["config", "rtl", "sim", "synth", "units", "vectors"],
    ),
    (
        "cli",
        &[
            "config", "emit", "iface", "model", "rtl", "sim", "sweep", "synth", "texio", "units",
            "vectors", "workload",
        ],
    ),
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The top-level modules a file names as `crate::x`, outside comments.
fn imports(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(k) = rest.find("crate::") {
            // `gpurtl::crate::` cannot occur; `xcrate::` is another identifier.
            let before = rest[..k].chars().last();
            rest = &rest[k + "crate::".len()..];
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                continue;
            }
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                found.insert(name);
            }
        }
    }
    found
}

#[test]
fn layers_form_a_chain_with_no_cycle_and_name_every_module() {
    for (i, (name, deps)) in LAYERS.iter().enumerate() {
        for d in *deps {
            let at = LAYERS.iter().position(|(n, _)| n == d);
            assert!(
                at.is_some_and(|at| at < i),
                "{name} may import {d}, which is not a lower layer"
            );
        }
    }
    // Every module of src/ is in the table (main.rs and lib.rs are the crate roots).
    let mut modules: Vec<String> = fs::read_dir(src())
        .expect("src/")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_dir() || p.extension().is_some_and(|e| e == "rs"))
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .filter(|m| m != "main" && m != "lib")
        .collect();
    modules.sort();
    modules.dedup();
    for m in &modules {
        assert!(
            LAYERS.iter().any(|(n, _)| n == m),
            "src/{m} is in no layer of tests/architecture.rs"
        );
    }
}

#[test]
fn every_import_goes_down_the_layers() {
    let mut wrong = Vec::new();
    for (name, deps) in LAYERS {
        let mut files = Vec::new();
        rust_files(&src().join(name), &mut files);
        let single = src().join(format!("{name}.rs"));
        if single.exists() {
            files.push(single);
        }
        assert!(!files.is_empty(), "no source for module {name}");
        for f in files {
            let text = fs::read_to_string(&f).expect("readable");
            for m in imports(&text) {
                if m != *name && !deps.contains(&m.as_str()) {
                    wrong.push(format!(
                        "{} imports crate::{m}",
                        f.strip_prefix(src()).unwrap_or(&f).display()
                    ));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the flow (config -> iface -> rtl | model -> units -> drivers):\n  {}",
        wrong.join("\n  ")
    );
}

#[test]
fn the_import_scan_sees_paths_and_skips_comments() {
    let text = "use crate::rtl::{Dir};\nlet x = crate::model::f(); // crate::sim is a comment\n";
    let got: Vec<String> = imports(text).into_iter().collect();
    assert_eq!(got, ["model", "rtl"]);
}
