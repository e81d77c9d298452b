//! A sweep's rows: one per point and workload, written as `results.csv` and
//! `results.json` and printed as a short table. Nothing in them depends on timing, the
//! cache or `--jobs`, so two runs of one sweep give the same bytes.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::{Figures, Plan, PointResult, point_file};

/// What a point came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    /// The co-simulation disagreed with the model, or a tool failed.
    Failed,
    /// The config did not validate: its error is in the row.
    Invalid,
    /// Collected from a Slurm array with no result for the point.
    Missing,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Failed => "failed",
            Status::Invalid => "invalid",
            Status::Missing => "missing",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct AxisValue {
    pub key: String,
    pub value: String,
    /// The TOML literal written into the point's config.
    pub literal: String,
}

/// One point on one workload.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub point: String,
    pub index: usize,
    pub status: Status,
    pub values: Vec<AxisValue>,
    pub workload: String,
    #[serde(flatten)]
    pub figures: Figures,
    pub fmax_mhz: Option<f64>,
    pub area: Option<f64>,
    pub area_unit: Option<String>,
    pub resources: BTreeMap<String, u64>,
    /// The point's config, relative to the sweep directory.
    pub config: String,
    pub config_hash: Option<String>,
    pub error: Option<String>,
    pub reproduce: Option<String>,
}

/// A metric the rows carry: its column, its axis label, and how to read it.
pub struct Metric {
    pub name: &'static str,
    pub label: &'static str,
    pub get: fn(&Row) -> Option<f64>,
}

/// Every numeric metric, in column order (plots draw each one that has values).
pub const METRICS: &[Metric] = &[
    Metric {
        name: "throughput",
        label: "items per clock",
        get: |r| r.figures.throughput,
    },
    Metric {
        name: "model_throughput",
        label: "items per clock (cycle model)",
        get: |r| r.figures.model_throughput,
    },
    Metric {
        name: "hit_rate",
        label: "hit rate",
        get: |r| r.figures.hit_rate,
    },
    Metric {
        name: "bytes_per_texel",
        label: "memory bytes per texel",
        get: |r| r.figures.bytes_per_texel,
    },
    Metric {
        name: "texels_per_clock",
        label: "texels per clock",
        get: |r| r.figures.texels_per_clock,
    },
    Metric {
        name: "latency_ratio",
        label: "throughput at latency / ideal memory",
        get: |r| r.figures.latency_ratio,
    },
    Metric {
        name: "fmax_mhz",
        label: "Fmax (MHz)",
        get: |r| r.fmax_mhz,
    },
    Metric {
        name: "area",
        label: "area",
        get: |r| r.area,
    },
];

/// The rows of a sweep, in point order and workload order. `results[i]` is point `i`'s
/// result, `None` when a Slurm task left none.
pub fn rows(plan: &Plan, results: &[Option<PointResult>]) -> Vec<Row> {
    let total = plan.spec.count();
    let runs = plan.settings.runs();
    let mut out = Vec::new();
    for (i, res) in results.iter().enumerate() {
        let point = plan.spec.point(i);
        let values: Vec<AxisValue> = plan
            .spec
            .axes
            .iter()
            .zip(&point.levels)
            .map(|(a, l)| AxisValue {
                key: a.key.clone(),
                value: l.label.clone(),
                literal: l.literal.clone(),
            })
            .collect();
        let base = Row {
            point: point.id(total),
            index: i,
            status: Status::Missing,
            values,
            workload: String::new(),
            figures: Figures::default(),
            fmax_mhz: None,
            area: None,
            area_unit: None,
            resources: BTreeMap::new(),
            config: point_file(&point, total),
            config_hash: None,
            error: None,
            reproduce: None,
        };
        for (k, w) in runs.iter().enumerate() {
            let mut row = base.clone();
            row.workload = w.clone().unwrap_or_else(|| "default".into());
            if let Some(r) = res {
                fill(&mut row, r, k);
            } else {
                row.error = Some("no result: the task did not finish".into());
            }
            out.push(row);
        }
    }
    out
}

fn fill(row: &mut Row, r: &PointResult, k: usize) {
    row.config_hash = r.config_hash.clone();
    if let Some(e) = &r.invalid {
        row.status = Status::Invalid;
        row.error = Some(e.clone());
        return;
    }
    let mut failed = false;
    if let Some(run) = r.runs.get(k) {
        row.figures = run.figures.clone();
        row.error = run.error.clone();
        row.reproduce = run.reproduce.clone();
        failed |= !run.passed;
    } else {
        failed = true;
        row.error = Some("no run for this workload".into());
    }
    if let Some(s) = &r.synth {
        row.fmax_mhz = s.fmax_mhz;
        row.area = s.area;
        row.area_unit = Some(s.area_unit.clone());
        row.resources = s.resources.clone();
        if let Some(e) = &s.error {
            failed = true;
            row.error.get_or_insert_with(|| format!("synth: {e}"));
        }
    }
    row.status = if failed { Status::Failed } else { Status::Ok };
}

fn num(v: Option<f64>) -> String {
    v.map_or(String::new(), |x| format!("{x:.6}"))
}

/// `results.csv`: the swept keys as columns, then the figures, then the tool versions.
pub fn csv(plan: &Plan, rows: &[Row], tools: &[String]) -> Vec<u8> {
    let res_keys: BTreeSet<&String> = rows.iter().flat_map(|r| r.resources.keys()).collect();
    let mut header: Vec<String> = vec!["point".into(), "status".into()];
    header.extend(plan.spec.axes.iter().map(|a| a.key.clone()));
    header.extend(["workload", "passed", "cycles"].map(String::from));
    header.extend(METRICS.iter().map(|m| m.name.to_string()));
    header.push("area_unit".into());
    header.extend(res_keys.iter().map(|k| format!("res_{k}")));
    header.extend(["config", "config_hash", "error", "reproduce", "tools"].map(String::from));
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.write_record(&header);
    for r in rows {
        let mut rec: Vec<String> = vec![r.point.clone(), r.status.name().into()];
        rec.extend(r.values.iter().map(|v| v.value.clone()));
        rec.push(r.workload.clone());
        // Whether the co-simulation matched the model; empty where nothing ran.
        rec.push(
            match r.status {
                Status::Ok => "true",
                Status::Failed => "false",
                Status::Invalid | Status::Missing => "",
            }
            .into(),
        );
        rec.push(r.figures.cycles.map_or(String::new(), |c| c.to_string()));
        rec.extend(METRICS.iter().map(|m| num((m.get)(r))));
        rec.push(r.area_unit.clone().unwrap_or_default());
        rec.extend(
            res_keys
                .iter()
                .map(|k| r.resources.get(*k).map_or(String::new(), u64::to_string)),
        );
        rec.push(r.config.clone());
        rec.push(r.config_hash.clone().unwrap_or_default());
        rec.push(r.error.clone().unwrap_or_default());
        rec.push(r.reproduce.clone().unwrap_or_default());
        rec.push(tools.join("; "));
        let _ = w.write_record(&rec);
    }
    w.into_inner().unwrap_or_default()
}

/// `results.json`: the sweep (base, keys, settings), the tools and the rows.
pub fn json(plan: &Plan, rows: &[Row], tools: &[String]) -> Vec<u8> {
    let v = serde_json::json!({
        "generator": plan.generator,
        "base": plan.spec.base_origin,
        "keys": plan.spec.axes.iter().map(|a| &a.key).collect::<Vec<_>>(),
        "zip": plan.spec.zip,
        "settings": plan.settings,
        "tools": tools,
        "rows": rows,
    });
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s.into_bytes()
}

/// The short table `gpurtl sweep` prints: the keys, then each metric that has values.
pub fn table(plan: &Plan, rows: &[Row]) -> String {
    let metrics: Vec<&Metric> = METRICS
        .iter()
        .filter(|m| rows.iter().any(|r| (m.get)(r).is_some()))
        .collect();
    let mut cols: Vec<(String, Vec<String>)> = Vec::new();
    cols.push((
        "point".into(),
        rows.iter().map(|r| r.point.clone()).collect(),
    ));
    for (k, a) in plan.spec.axes.iter().enumerate() {
        cols.push((
            a.key.rsplit('.').next().unwrap_or(&a.key).to_string(),
            rows.iter().map(|r| r.values[k].value.clone()).collect(),
        ));
    }
    cols.push((
        "workload".into(),
        rows.iter().map(|r| r.workload.clone()).collect(),
    ));
    cols.push((
        "status".into(),
        rows.iter().map(|r| r.status.name().to_string()).collect(),
    ));
    for m in metrics {
        cols.push((
            m.name.to_string(),
            rows.iter()
                .map(|r| {
                    (m.get)(r).map_or("-".into(), |x| {
                        if x.abs() >= 100.0 {
                            format!("{x:.1}")
                        } else {
                            format!("{x:.4}")
                        }
                    })
                })
                .collect(),
        ));
    }
    let widths: Vec<usize> = cols
        .iter()
        .map(|(h, v)| {
            v.iter()
                .map(String::len)
                .chain([h.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut s = String::new();
    for (i, (h, _)) in cols.iter().enumerate() {
        s += &format!("{h:<w$}  ", w = widths[i]);
    }
    s = s.trim_end().to_string() + "\n";
    for r in 0..rows.len() {
        let mut line = String::new();
        for (i, (_, v)) in cols.iter().enumerate() {
            line += &format!("{:<w$}  ", v[r], w = widths[i]);
        }
        s += line.trim_end();
        s += "\n";
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config;
    use crate::sweep::{Axis, RunResult, Settings, Spec};

    fn plan() -> Plan {
        let axes = vec![Axis::parse("tmu.cache.ways=1,4,3").unwrap()];
        Plan {
            generator: "gpurtl test".into(),
            spec: Spec::new(config::DEFAULT_ORIGIN, config::DEFAULT_TOML, axes, false).unwrap(),
            settings: Settings {
                unit: "tex_cache".into(),
                workloads: vec!["rot30_256".into()],
                count: 10,
                seed: 1,
                gap: 0.0,
                stall: 0.0,
                mem_latency: None,
                model_only: false,
                synth: None,
            },
        }
    }

    fn run(passed: bool) -> RunResult {
        RunResult {
            workload: "rot30_256".into(),
            passed,
            figures: Figures {
                cycles: Some(100),
                throughput: Some(0.5),
                model_throughput: None,
                hit_rate: Some(0.9),
                bytes_per_texel: Some(2.0),
                texels_per_clock: Some(2.0),
                latency_ratio: Some(0.95),
            },
            error: (!passed).then(|| "port rsp: item 3 differs".into()),
            reproduce: (!passed).then(|| "gpurtl sim -c x -u tex_cache".into()),
        }
    }

    #[test]
    fn failed_invalid_and_missing_points_keep_their_reasons() {
        let p = plan();
        let results = vec![
            Some(PointResult {
                index: 0,
                config_hash: Some("h0".into()),
                invalid: None,
                runs: vec![run(true)],
                synth: None,
                computed: 1,
            }),
            Some(PointResult {
                index: 1,
                config_hash: Some("h1".into()),
                invalid: None,
                runs: vec![run(false)],
                synth: None,
                computed: 1,
            }),
            None,
        ];
        let rows = rows(&p, &results);
        let st: Vec<Status> = rows.iter().map(|r| r.status).collect();
        assert_eq!(st, [Status::Ok, Status::Failed, Status::Missing]);
        assert_eq!(
            rows[1].reproduce.as_deref(),
            Some("gpurtl sim -c x -u tex_cache")
        );
        let text = String::from_utf8(csv(&p, &rows, &["t".into()])).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with("point,status,tmu.cache.ways,workload,passed,cycles,throughput")
        );
        assert!(lines[1].starts_with("p000,ok,1,rot30_256,true,100,0.500000"));
        assert!(
            lines[2].starts_with("p001,failed,4,rot30_256,false,100,0.500000"),
            "{}",
            lines[2]
        );
        assert!(lines[2].contains("gpurtl sim -c x -u tex_cache"));
        assert!(
            lines[3].starts_with("p002,missing,3,rot30_256,,,"),
            "{}",
            lines[3]
        );
        let t = table(&p, &rows);
        assert!(t.contains("p001   4     rot30_256  failed"), "{t}");
    }
}
