//! Co-simulation of `hs_chain` in Verilator against the Rust model, through the library
//! entry points and the CLI: every register kind and mixed chains, under random gaps and
//! stalls, several seeds; and proof that the harness catches broken DUTs.

mod common;

use std::fs;
use std::path::PathBuf;

use common::*;
use gpurtl::config::Config;
use gpurtl::sim::{self, SimOptions, SimReport};

fn chain_config(name: &str, width: u32, stages: &[&str], reset: (&str, &str)) -> Config {
    let stages: Vec<String> = stages.iter().map(|s| format!("\"{s}\"")).collect();
    parse(
        &format!(
            "[design]\nname = \"{name}\"\nmodule_prefix = \"t_\"\n[reset]\nkind = \"{}\"\nactive = \"{}\"\n\
             [hs_chain]\nwidth = {width}\nstages = [{}]\n",
            reset.0,
            reset.1,
            stages.join(", ")
        ),
        name,
    )
}

fn options(count: usize, seed: u64, gap: f64, stall: f64) -> SimOptions {
    sim_options(count, seed, gap, stall)
}

/// Builds once, then runs every (gap, stall) pattern over several seeds; all must pass
/// with the model's exact clock count.
fn sweep(cfg: &Config, count: usize) -> Vec<SimReport> {
    let design = elaborate(cfg);
    let unit = design.unit("hs_chain").expect("unit");
    let (dir, _) = sim::build(cfg, &design, unit, false, &work_dir()).expect("verilates");
    let patterns = [
        (0.0, 0.0),
        (0.3, 0.3),
        (0.9, 0.9),
        (0.9, 0.0),
        (0.0, 0.9),
        (0.3, 0.0),
        (0.0, 0.3),
    ];
    let mut reports = Vec::new();
    for seed in [1u64, 2, 0xC0FFEE] {
        for (gap, stall) in patterns {
            let r = sim::run_built(cfg, unit, &dir, true, &options(count, seed, gap, stall))
                .expect("runs");
            assert!(
                r.passed,
                "{}: seed {seed} gap {gap} stall {stall}: {:?} (vectors in {:?})",
                cfg.design.name, r.errors, r.vectors_dir
            );
            assert_eq!(r.mismatches, 0);
            assert_eq!(r.transactions, count as u64);
            assert_eq!(
                r.model_cycles,
                Some(r.cycles),
                "the cycle model predicts the RTL's clocks"
            );
            if gap == 0.0 && stall == 0.0 {
                let chain = cfg.hs_chain.as_ref().expect("chain");
                let latency = chain
                    .stages
                    .iter()
                    .filter(|k| k.label() != "bypass")
                    .count() as u64;
                let ideal = (count as f64 / chain.peak_rate()).ceil() as u64;
                assert!(
                    r.cycles <= ideal + latency,
                    "{}: {} clocks for {count} items, peak rate allows {}",
                    cfg.design.name,
                    r.cycles,
                    ideal + latency
                );
            }
            reports.push(r);
        }
    }
    reports
}

#[test]
fn each_register_kind_matches_the_model() {
    let kinds = ["bypass", "bubble", "skid", "fifo:1", "fifo:2", "fifo:5"];
    let resets = [
        ("async", "low"),
        ("sync", "high"),
        ("async", "high"),
        ("sync", "low"),
    ];
    for (i, kind) in kinds.iter().enumerate() {
        let name = format!("one_{}", kind.replace(':', "_"));
        let cfg = chain_config(
            &name,
            [32, 1, 13, 64, 65, 8][i],
            &[kind],
            resets[i % resets.len()],
        );
        let reports = sweep(&cfg, 1500);
        // Full-rate kinds move one item per clock with no gaps and no stalls.
        let free = &reports[0];
        let expected = if *kind == "fifo:1" { 0.5 } else { 1.0 };
        assert!(
            (free.throughput - expected).abs() < 0.01,
            "{kind}: {} items/clock, expected {expected}",
            free.throughput
        );
    }
}

#[test]
fn mixed_chains_match_the_model() {
    sweep(
        &chain_config(
            "mixed",
            32,
            &["skid", "bubble", "fifo:4", "bypass", "skid"],
            ("async", "low"),
        ),
        3000,
    );
    sweep(
        &chain_config(
            "bubbles",
            7,
            &["bubble", "bubble", "bubble", "fifo:1", "bubble"],
            ("sync", "low"),
        ),
        1000,
    );
}

#[test]
fn wide_preset_matches_the_model() {
    // 512-bit words exercise Verilator's VlWide ports in the harness.
    let toml = fs::read_to_string(project_dir().join("configs/wide.toml")).expect("preset");
    sweep(&parse(&toml, "wide.toml"), 800);
}

/// Builds a chain whose module `kind` has `from` replaced by `to`, runs it, and returns
/// the report, which must have failed.
fn run_broken(
    stages: &[&str],
    kind: &str,
    from: &str,
    to: &str,
    gap: f64,
    stall: f64,
) -> SimReport {
    let cfg = chain_config("broken", 16, stages, ("async", "low"));
    let opts = options(500, 5, gap, stall);
    let r = run_mutated(&cfg, "hs_chain", kind, (from, to), &opts);
    assert!(!r.passed, "the broken {kind} ({from} -> {to}) passed");
    assert!(
        r.vectors_dir.is_some(),
        "a failed run keeps its vectors for reproduction"
    );
    r
}

fn has_error(r: &SimReport, needle: &str) -> bool {
    r.errors.iter().any(|e| e.contains(needle))
}

#[test]
fn harness_catches_broken_duts() {
    // A bubble register that overwrites its held item: items are lost.
    let r = run_broken(
        &["bubble"],
        "hs_bubble",
        "assign in_ready_o = out_ready_i | ~valid_q;",
        "assign in_ready_o = 1'b1;",
        0.0,
        0.5,
    );
    assert!(has_error(&r, "model expects"), "{:?}", r.errors);
    assert!(r.mismatches > 0);

    // A skid buffer whose output register reloads while stalled: data changes under stall.
    let r = run_broken(
        &["skid"],
        "hs_skid",
        "out_load     = out_ready_i | ~out_valid_q;",
        "out_load     = 1'b1;",
        0.0,
        0.5,
    );
    assert!(has_error(&r, "while stalled"), "{:?}", r.errors);

    // A FIFO that does not advance its read pointer: every item comes out again.
    let r = run_broken(
        &["fifo:4"],
        "hs_fifo",
        "rd_ptr_d = (rd_ptr_q == LastPtr) ? {PtrW{1'b0}} : rd_ptr_q + 1'b1;",
        "rd_ptr_d = rd_ptr_q;",
        0.3,
        0.3,
    );
    assert!(has_error(&r, "model expects"), "{:?}", r.errors);

    // A bubble register whose valid waits for ready: the sender must not do that.
    let r = run_broken(
        &["bubble"],
        "hs_bubble",
        "assign out_valid_o = valid_q;",
        "assign out_valid_o = valid_q & out_ready_i;",
        0.0,
        0.3,
    );
    assert!(has_error(&r, "ready combinationally"), "{:?}", r.errors);

    // A FIFO that forgets to count its pushes: items go in and never come out.
    let r = run_broken(
        &["fifo:2"],
        "hs_fifo",
        "grow ? up : (shrink ? down : level_q[gk]);",
        "grow ? level_q[gk] : (shrink ? down : level_q[gk]);",
        0.0,
        0.0,
    );
    assert!(has_error(&r, "never came (lost?)"), "{:?}", r.errors);

    // Correct data, wrong timing: a FIFO that is full at one item runs at half rate.
    // Only the cycle model can see it.
    let r = run_broken(
        &["fifo:4"],
        "hs_fifo",
        "assign full  = level_q[Depth-1];",
        "assign full  = level_q[0];",
        0.0,
        0.0,
    );
    assert_eq!(r.mismatches, 0, "data is right");
    assert!(
        has_error(&r, "timing differs from the cycle model"),
        "{:?}",
        r.errors
    );
}

#[test]
fn cli_sim_prints_json_and_a_seed_reproduces_the_run() {
    let run = |seed: &str| {
        let out = gpurtl()
            .env("GPURTL_SIM_DIR", work_dir())
            .args([
                "sim", "--unit", "hs_chain", "--count", "700", "--seed", seed, "--gap", "0.3",
                "--stall", "0.3", "--json",
            ])
            .output()
            .expect("runs gpurtl");
        assert!(out.status.success(), "{}", text(&out));
        let v: serde_json::Value =
            serde_json::from_slice(&out.stdout).expect("one JSON object on stdout");
        for key in [
            "unit",
            "seed",
            "transactions",
            "mismatches",
            "cycles",
            "throughput",
            "passed",
        ] {
            assert!(v.get(key).is_some(), "missing {key} in {v}");
        }
        assert_eq!(v["unit"], "hs_chain");
        assert_eq!(v["passed"], true);
        assert_eq!(v["transactions"], 700);
        v
    };
    let a = run("77");
    let b = run("77");
    let c = run("78");
    assert_eq!(a["seed"], 77);
    assert_eq!(a["cycles"], b["cycles"], "same seed, same run");
    assert_ne!(
        a["cycles"], c["cycles"],
        "another seed draws other gaps and stalls"
    );
}

#[test]
fn cli_sim_summary_and_trace() {
    let trace = scratch("trace").join("chain.fst");
    let out = gpurtl()
        .env("GPURTL_SIM_DIR", work_dir())
        .args([
            "sim", "--unit", "hs_chain", "--count", "50", "--seed", "3", "--trace",
        ])
        .arg(&trace)
        .output()
        .expect("runs gpurtl");
    let log = text(&out);
    assert!(out.status.success(), "{log}");
    assert!(
        log.contains("PASS hs_chain: seed 3, 50 of 50 transactions, 0 mismatches"),
        "{log}"
    );
    assert!(
        log.contains(&format!("waveform {}", trace.display())),
        "{log}"
    );
    let fst = fs::read(&trace).expect("the FST file exists");
    assert!(fst.len() > 100, "FST has content");
    // Not a terminal: no progress bar, no escape sequences, no harness report lines.
    assert!(
        !log.contains('\x1b') && !log.contains("progress ") && !log.contains("transactions  "),
        "{log}"
    );
}

/// A run told to report its progress hears the build, the model, and the harness's counts
/// every PROGRESS_CLOCKS clocks, rising to every output at the end; the report is the
/// same as without it.
#[test]
fn progress_reports_follow_the_run() {
    let cfg = chain_config("progress", 8, &["skid", "fifo:4"], ("async", "low"));
    let design = elaborate(&cfg);
    let count = 3 * sim::PROGRESS_CLOCKS as usize;
    let heard = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = heard.clone();
    let opt = SimOptions {
        progress: Some(sim::Progress(std::sync::Arc::new(move |s| {
            log.lock().unwrap().push(s)
        }))),
        ..options(count, 5, 0.2, 0.2)
    };
    let r = sim::run(&cfg, &design, "hs_chain", &opt).expect("runs");
    assert!(r.passed, "{:?}", r.errors);
    let heard = heard.lock().unwrap().clone();
    assert_eq!(&heard[..2], &[sim::Stage::Build, sim::Stage::Model]);
    let runs: Vec<(u64, u64, u64)> = heard[2..]
        .iter()
        .map(|s| match *s {
            sim::Stage::Run { done, total, cycle } => (done, total, cycle),
            other => panic!("{other:?} after the run began"),
        })
        .collect();
    // Gaps and stalls make the run longer than its items: a report every 2^16 clocks and
    // one at the end.
    assert_eq!(
        runs.len() as u64,
        r.cycles / sim::PROGRESS_CLOCKS + 1,
        "{runs:?}"
    );
    assert!(
        runs.windows(2)
            .all(|w| w[0].0 <= w[1].0 && w[0].2 <= w[1].2),
        "{runs:?}"
    );
    assert!(runs.iter().all(|&(_, total, _)| total == count as u64));
    assert_eq!(
        runs.last().map(|r| (r.0, r.2)),
        Some((count as u64, r.cycles))
    );
    // The same run without the callback: the same clocks.
    let quiet = sim::run(&cfg, &design, "hs_chain", &options(count, 5, 0.2, 0.2)).expect("runs");
    assert_eq!(quiet.cycles, r.cycles);
}

#[test]
fn cli_vectors_are_the_documented_format_and_reproducible() {
    let dir = scratch("vectors");
    let write = |out: &PathBuf| {
        let o = gpurtl()
            .args([
                "vectors", "--unit", "hs_chain", "--count", "10", "--seed", "4", "--out",
            ])
            .arg(out)
            .output()
            .expect("runs gpurtl");
        assert!(o.status.success(), "{}", text(&o));
    };
    let (a, b) = (dir.join("a"), dir.join("b"));
    write(&a);
    write(&b);
    for f in ["in.vec", "out.vec"] {
        assert_eq!(
            fs::read(a.join(f)).expect("written"),
            fs::read(b.join(f)).expect("written")
        );
    }
    let input = fs::read_to_string(a.join("in.vec")).expect("in.vec");
    let expected = fs::read_to_string(a.join("out.vec")).expect("out.vec");
    assert!(input.starts_with("# gpurtl vectors 1\n# unit hs_chain\n# port in input 32\n# role stimulus\n# seed 4\n# count 10\n"));
    assert!(expected.contains("# port out output 32\n# role expected\n"));
    let data = |t: &str| {
        t.lines()
            .filter(|l| !l.starts_with('#'))
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(data(&input).len(), 10);
    assert!(
        data(&input)
            .iter()
            .all(|l| l.len() == 8 && u32::from_str_radix(l, 16).is_ok())
    );
    assert_eq!(
        data(&input),
        data(&expected),
        "a handshake chain delivers its input unchanged"
    );
}
