//! `gpurtl sweep` on the real binary: argument errors before anything runs, invalid
//! points recorded and not fatal, co-simulated points, the cache, results that do not
//! depend on `--jobs`, valid plots, and the Slurm round trip on a single-node cluster
//! started by scripts/slurm-local.sh (Debian's slurm-wlm and munge; as root).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_gpurtl");

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpurtl-sweep-{}-{tag}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

fn gpurtl(args: &[&str], sim_dir: Option<&Path>) -> Output {
    let mut c = Command::new(BIN);
    c.args(args);
    if let Some(d) = sim_dir {
        c.env("GPURTL_SIM_DIR", d);
    }
    c.output().expect("run gpurtl")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn csv_rows(path: &Path) -> Vec<Vec<String>> {
    let mut r = csv::Reader::from_path(path).expect("results.csv");
    let mut rows = vec![
        r.headers()
            .expect("header")
            .iter()
            .map(String::from)
            .collect(),
    ];
    for rec in r.records() {
        rows.push(rec.expect("record").iter().map(String::from).collect());
    }
    rows
}

fn col(rows: &[Vec<String>], name: &str) -> usize {
    rows[0]
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {:?}", rows[0]))
}

#[test]
fn bad_arguments_exit_2_and_write_nothing() {
    let dir = scratch("bad-args");
    let out = dir.join("out");
    let o = out.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["--set", "tmu.cache.sizes=4096", "-u", "tex_cache"],
            "unknown key",
        ),
        (
            &["--set", "tmu.cache.ways=", "-u", "tex_cache"],
            "no values",
        ),
        (
            &["--set", "tmu.cache.ways=4 4", "-u", "tex_cache"],
            "bad value `4 4`",
        ),
        (
            &["--set", "tmu.cache.ways=8..2", "-u", "tex_cache"],
            "a range runs upwards",
        ),
        (
            &["--set", "tmu.cache.ways", "-u", "tex_cache"],
            "KEY=VALUES",
        ),
        (
            &["--set", "design.name.x=1", "-u", "tex_cache"],
            "is a value, not a table",
        ),
        (
            &[
                "--set",
                "tmu.cache.ways=1,4",
                "-u",
                "tex_cache",
                "-w",
                "nope",
            ],
            "unknown workload `nope`",
        ),
        (
            &["--set", "tmu.cache.ways=1,4", "-u", "gpu9"],
            "unknown unit",
        ),
        (
            &[
                "--set",
                "tmu.cache.ways=1",
                "--set",
                "tmu.cache.banks=4,16",
                "--zip",
                "-u",
                "tex_cache",
            ],
            "--zip needs lists of one length",
        ),
    ];
    for (args, want) in cases {
        let mut a = vec!["sweep", "-o", o, "--model-only"];
        a.extend_from_slice(args);
        let r = gpurtl(&a, Some(&dir.join("sim")));
        let err = text(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: expected {want:?} in:\n{err}");
        assert!(!out.exists(), "{args:?} wrote {}", out.display());
    }
    // The unknown key names what is allowed.
    let r = gpurtl(
        &[
            "sweep",
            "-o",
            o,
            "--set",
            "tmu.cache.sizes=4096",
            "-u",
            "tex_cache",
        ],
        None,
    );
    assert!(
        text(&r.stderr).contains("size_bytes"),
        "{}",
        text(&r.stderr)
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn model_only_sweeps_are_cached_and_do_not_depend_on_jobs() {
    let dir = scratch("model");
    let sets = [
        "--set",
        "tmu.cache.line_bytes=256",
        "--set",
        "tmu.cache.size_bytes=4096..65536*4",
        "--set",
        "tmu.cache.ways=1,4,64",
        "--set",
        "tmu.cache.layout=linear,tiled4x4",
    ];
    let run = |out: &str, jobs: &str, sim: &str| {
        let mut a = vec!["sweep", "-u", "tex_cache", "-w", "rot30_256", "-n", "4000"];
        a.extend_from_slice(&sets);
        a.extend_from_slice(&["--model-only", "-j", jobs, "-o"]);
        let out = dir.join(out);
        a.push(out.to_str().unwrap());
        let r = gpurtl(&a, Some(&dir.join(sim)));
        assert_eq!(r.status.code(), Some(0), "{}", text(&r.stderr));
        (out, text(&r.stdout), text(&r.stderr))
    };
    let (a, table, err) = run("a", "1", "sim1");
    assert!(err.contains("runs: 16 computed, 0 from the cache"), "{err}");
    let (b, _, err) = run("b", "2", "sim2");
    assert!(err.contains("runs: 16 computed"), "{err}");
    let csv_a = fs::read_to_string(a.join("results.csv")).unwrap();
    assert_eq!(
        csv_a,
        fs::read_to_string(b.join("results.csv")).unwrap(),
        "--jobs 1 and --jobs 2 give different results"
    );
    // Again into the first cache: nothing computed, the same bytes.
    let (c, _, err) = run("c", "2", "sim1");
    assert!(err.contains("runs: 0 computed, 16 from the cache"), "{err}");
    assert_eq!(csv_a, fs::read_to_string(c.join("results.csv")).unwrap());

    // 3 sizes x 3 ways x 2 layouts; 64 ways do not fit 4 KiB of 256-byte lines (16).
    let rows = csv_rows(&a.join("results.csv"));
    assert_eq!(rows.len(), 1 + 18, "{table}");
    let (st, ways, size, err_c, hit) = (
        col(&rows, "status"),
        col(&rows, "tmu.cache.ways"),
        col(&rows, "tmu.cache.size_bytes"),
        col(&rows, "error"),
        col(&rows, "hit_rate"),
    );
    for r in &rows[1..] {
        let invalid = r[ways] == "64" && r[size] == "4096";
        assert_eq!(r[st], if invalid { "invalid" } else { "ok" }, "{r:?}");
        if invalid {
            // The point's own file, line and column, and what is allowed.
            assert!(r[err_c].starts_with("error: points/p00"), "{}", r[err_c]);
            assert!(r[err_c].contains("key `tmu.cache.ways`"), "{}", r[err_c]);
            assert!(r[err_c].contains("allowed:"), "{}", r[err_c]);
        } else {
            let h: f64 = r[hit].parse().unwrap();
            assert!((0.0..=1.0).contains(&h) && h > 0.3, "{r:?}");
        }
    }
    // Each point's config validates to what the row says (and was written).
    let p = fs::read_to_string(a.join("points/p017.toml")).unwrap();
    assert!(
        p.contains("size_bytes = 65536") && p.contains("ways = 64"),
        "{p}"
    );
    assert!(p.contains("layout = \"tiled4x4\""), "{p}");

    // Plots: each metric against each key with more than one value, PNG and SVG.
    for m in ["hit_rate", "bytes_per_texel"] {
        for k in ["tmu.cache.size_bytes", "tmu.cache.ways", "tmu.cache.layout"] {
            let png_path = a.join(format!("plots/{m}-vs-{k}.png"));
            let file = fs::File::open(&png_path).unwrap_or_else(|e| panic!("{png_path:?}: {e}"));
            let mut dec = png::Decoder::new(std::io::BufReader::new(file))
                .read_info()
                .expect("a PNG");
            let mut buf = vec![0; dec.output_buffer_size().unwrap()];
            let info = dec.next_frame(&mut buf).expect("PNG data");
            assert_eq!((info.width, info.height), (900, 560));
            // Not a blank image: the lines are in colour.
            assert!(
                buf.chunks(3).any(|p| p[0] > 200 && p[1] < 80),
                "{png_path:?}"
            );
            let svg = fs::read_to_string(a.join(format!("plots/{m}-vs-{k}.svg"))).unwrap();
            assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
            assert!(svg.contains("<polyline") && svg.contains(k), "{m} {k}");
        }
        assert!(
            !a.join(format!("plots/{m}-vs-tmu.cache.line_bytes.png"))
                .exists()
        );
    }
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn co_simulated_points_with_area_give_a_pareto_front() {
    let dir = scratch("cosim");
    let out = dir.join("out");
    let r = gpurtl(
        &[
            "sweep",
            "--set",
            "hs_chain.width=8,64,0",
            "--set",
            "hs_chain.stages=[\"skid\", \"fifo:4\"],[\"bubble\"]",
            "-u",
            "hs_chain",
            "-n",
            "300",
            "--gap",
            "0.2",
            "--stall",
            "0.3",
            "--synth",
            "generic",
            "-o",
            out.to_str().unwrap(),
        ],
        None,
    );
    let (so, se) = (text(&r.stdout), text(&r.stderr));
    assert_eq!(r.status.code(), Some(0), "{so}{se}");
    let rows = csv_rows(&out.join("results.csv"));
    assert_eq!(rows.len(), 1 + 6);
    let (st, thr, model, area, cells) = (
        col(&rows, "status"),
        col(&rows, "throughput"),
        col(&rows, "model_throughput"),
        col(&rows, "area"),
        col(&rows, "res_cells"),
    );
    for r in &rows[1..] {
        if r[col(&rows, "hs_chain.width")] == "0" {
            assert_eq!(r[st], "invalid");
            continue;
        }
        assert_eq!(r[st], "ok", "{r:?}");
        // The RTL's items per clock, equal to the cycle model's.
        assert_eq!(r[thr], r[model], "{r:?}");
        let t: f64 = r[thr].parse().unwrap();
        assert!(t > 0.3 && t <= 1.0, "{r:?}");
        assert_eq!(r[area], format!("{}.000000", r[cells]));
    }
    // A wider chain has more cells.
    let cells_of = |w: &str, s: &str| -> u64 {
        rows[1..]
            .iter()
            .find(|r| r[col(&rows, "hs_chain.width")] == w && r[col(&rows, "hs_chain.stages")] == s)
            .map(|r| r[cells].parse().unwrap())
            .unwrap()
    };
    let s = "[\"skid\", \"fifo:4\"]";
    assert!(cells_of("64", s) > cells_of("8", s));
    assert!(out.join("plots/pareto.png").is_file() && out.join("plots/pareto.svg").is_file());
    assert!(so.contains("plots:"), "{so}");
    let json: serde_json::Value =
        serde_json::from_slice(&fs::read(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(json["rows"].as_array().unwrap().len(), 6);
    assert!(json["tools"].to_string().contains("Verilator"));
    let _ = fs::remove_dir_all(&dir);
}

/// Stops the test's Slurm cluster however the test ends.
struct Cluster(PathBuf);

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg("scripts/slurm-local.sh")
            .arg("stop")
            .arg(&self.0)
            .output();
    }
}

#[test]
fn a_slurm_job_array_round_trip() {
    let dir = scratch("slurm");
    let state = dir.join("cluster");
    let start = Command::new("bash")
        .arg("scripts/slurm-local.sh")
        .arg("start")
        .arg(&state)
        .output()
        .expect("run scripts/slurm-local.sh");
    let _cluster = Cluster(state.clone());
    assert!(
        start.status.success(),
        "starting Slurm (needs root, slurm-wlm and munge; `make deps` installs them): {}",
        text(&start.stderr)
    );
    let conf = state.join("slurm.conf");
    let emit = dir.join("array");
    let r = gpurtl(
        &[
            "sweep",
            "--set",
            "hs_chain.width=8,32,0",
            "-u",
            "hs_chain",
            "-n",
            "200",
            "--stall",
            "0.2",
            "--emit-slurm",
            emit.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(r.status.code(), Some(0), "{}", text(&r.stderr));
    // The plan, the points and the script, nothing run.
    let mut names: Vec<String> = fs::read_dir(&emit)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["points", "sweep.json", "sweep.sbatch"]);
    let script = fs::read_to_string(emit.join("sweep.sbatch")).unwrap();
    assert!(script.contains("#SBATCH --array=0-2"), "{script}");

    let sub = Command::new("sbatch")
        .env("SLURM_CONF", &conf)
        .arg(emit.join("sweep.sbatch"))
        .output()
        .expect("sbatch");
    assert!(sub.status.success(), "sbatch: {}", text(&sub.stderr));
    let t0 = Instant::now();
    let done = |i: usize| emit.join(format!("results/p00{i}.json")).is_file();
    while !(0..3).all(done) {
        assert!(
            t0.elapsed() < Duration::from_secs(600),
            "the array's tasks did not all finish in 10 minutes; logs in {}",
            emit.display()
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    let r = gpurtl(&["sweep", "collect", emit.to_str().unwrap()], None);
    let so = text(&r.stdout);
    assert_eq!(r.status.code(), Some(0), "{so}{}", text(&r.stderr));
    assert!(so.contains("collected 3 of 3"), "{so}");
    let rows = csv_rows(&emit.join("results.csv"));
    let st = col(&rows, "status");
    let statuses: Vec<&str> = rows[1..].iter().map(|r| r[st].as_str()).collect();
    assert_eq!(statuses, ["ok", "ok", "invalid"]);
    assert!(
        emit.join("plots/throughput-vs-hs_chain.width.png")
            .is_file()
    );

    // A task that left no result is listed as missing, and collect exits 1.
    fs::remove_file(emit.join("results/p001.json")).unwrap();
    let r = gpurtl(&["sweep", "collect", emit.to_str().unwrap()], None);
    let so = text(&r.stdout);
    assert_eq!(r.status.code(), Some(1), "{so}");
    assert!(so.contains("missing: p001 (array task 1)"), "{so}");
    let rows = csv_rows(&emit.join("results.csv"));
    assert_eq!(rows[2][st], "missing");
    drop(_cluster);
    let _ = fs::remove_dir_all(&dir);
}
