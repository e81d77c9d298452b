//! Proving a module's `ifdef FORMAL` properties with Yosys: k-induction over the
//! immediate assertions, under the module's assumptions, starting from reset.

use std::fs;
use std::path::Path;
use std::process::Command;

/// The outcome of one proof.
#[derive(Debug, Clone)]
pub struct Proof {
    pub proven: bool,
    pub log: String,
}

#[derive(Debug, thiserror::Error)]
pub enum FormalError {
    #[error("`yosys` could not run ({0}): install Debian's `yosys` package")]
    MissingYosys(std::io::Error),
    #[error("writing {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

/// The Yosys script. `-set-assumes` makes the assumptions count and `-verify` makes a
/// failed proof an error (without them a failure still exits 0); memories become flops
/// and async resets sync ones so `sat` can model them.
pub fn script(file: &str, top: &str, params: &[(&str, u64)]) -> String {
    script_with_deps(&[], file, top, params)
}

/// Proves the properties of `top` in the Verilog `text`, with parameter overrides.
/// `work` is a scratch directory.
pub fn prove(
    text: &str,
    top: &str,
    params: &[(&str, u64)],
    work: &Path,
) -> Result<Proof, FormalError> {
    prove_with_deps(&[], text, top, params, work)
}

/// The Yosys script for a module that may instantiate others: `deps` are read without
/// `-formal` (their own properties assume an environment of numbered items, which the
/// parent does not provide), the top with it, and the hierarchy is flattened so `sat`
/// sees one module.
pub fn script_with_deps(deps: &[String], file: &str, top: &str, params: &[(&str, u64)]) -> String {
    let chparam: String = params
        .iter()
        .map(|(k, v)| format!("chparam -set {k} {v} {top}; "))
        .collect();
    let read_deps = if deps.is_empty() {
        String::new()
    } else {
        format!("read_verilog {}; ", deps.join(" "))
    };
    format!(
        "{read_deps}read_verilog -formal {file}; {chparam}prep -flatten -top {top}; \
         memory_map; opt -fast; async2sync; \
         sat -tempinduct -prove-asserts -set-assumes -verify -maxsteps 24"
    )
}

/// Proves the properties of `top` (Verilog `text`), which instantiates the modules in
/// `deps` (name, text), with parameter overrides. `work` is a scratch directory.
pub fn prove_with_deps(
    deps: &[(String, String)],
    text: &str,
    top: &str,
    params: &[(&str, u64)],
    work: &Path,
) -> Result<Proof, FormalError> {
    let io = |source| FormalError::Io {
        path: work.display().to_string(),
        source,
    };
    fs::create_dir_all(work).map_err(io)?;
    let mut files = Vec::new();
    for (name, dep) in deps {
        let f = format!("{name}.v");
        fs::write(work.join(&f), dep).map_err(io)?;
        files.push(f);
    }
    let file = format!("{top}.v");
    fs::write(work.join(&file), text).map_err(io)?;
    let out = Command::new("yosys")
        .arg("-p")
        .arg(script_with_deps(&files, &file, top, params))
        .current_dir(work)
        .output()
        .map_err(FormalError::MissingYosys)?;
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let proven = out.status.success() && log.contains("Induction step proven: SUCCESS!");
    Ok(Proof { proven, log })
}
