//! A sweep as a Slurm job array: `--emit-slurm DIR` writes the plan, the points and an
//! `sbatch` script with one array task per point; each task runs `gpurtl sweep task DIR
//! --index $SLURM_ARRAY_TASK_ID` and leaves `results/<point>.json`; `gpurtl sweep collect
//! DIR` turns what finished into the same results and plots as a local sweep.

use std::path::Path;

use super::{Plan, PointResult, point_file};
use crate::synth::Target;

/// What one array task asks of Slurm, from what the task does.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskResources {
    pub cpus: u32,
    pub mem_gib: u32,
    pub minutes: u32,
}

impl TaskResources {
    /// One CPU (a task runs its workloads and its synthesis one after another); memory
    /// for Verilator's build (2 GiB) or for Yosys and nextpnr on a big unit (8 GiB); time
    /// for a Verilator build and each workload (30 minutes each), and for synthesis an
    /// hour, plus an hour per placement seed.
    pub fn for_plan(plan: &Plan) -> TaskResources {
        let s = &plan.settings;
        let runs = s.runs().len() as u32;
        let mut minutes = if s.model_only { 10 } else { 30 + 30 * runs };
        let mut mem_gib = 2;
        if let Some(sy) = &s.synth {
            mem_gib = 8;
            minutes += 60;
            if matches!(sy.target, Target::Ecp5 | Target::Ice40) {
                minutes += 60 * sy.seeds;
            }
        }
        TaskResources {
            cpus: 1,
            mem_gib,
            minutes,
        }
    }
}

/// The `sbatch` script. Paths are absolute: a task runs wherever Slurm starts it.
pub fn script(plan: &Plan, dir: &Path, exe: &Path, cwd: &Path) -> String {
    let n = plan.spec.count();
    let r = TaskResources::for_plan(plan);
    let q = |p: &Path| shell_quote(&p.display().to_string());
    format!(
        "#!/bin/bash
# gpurtl sweep of {spec}: {n} point(s), one array task each.
# Submit with:   sbatch {script}
# Then gather:   gpurtl sweep collect {dir_plain}
#SBATCH --job-name=gpurtl-sweep
#SBATCH --array=0-{last}
#SBATCH --ntasks=1
#SBATCH --cpus-per-task={cpus}
#SBATCH --mem={mem}G
#SBATCH --time={hh:02}:{mm:02}:00
#SBATCH --output={out}
set -euo pipefail
cd {cwd}
exec {exe} sweep task {dir} --index \"$SLURM_ARRAY_TASK_ID\"
",
        spec = plan.spec,
        script = dir.join("sweep.sbatch").display(),
        dir_plain = dir.display(),
        last = n.saturating_sub(1),
        cpus = r.cpus,
        mem = r.mem_gib,
        hh = r.minutes / 60,
        mm = r.minutes % 60,
        out = dir.join("task-%a.log").display(),
        cwd = q(cwd),
        exe = q(exe),
        dir = q(dir),
    )
}

fn shell_quote(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+=:".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Where task `index` leaves its result.
pub fn result_file(plan: &Plan, index: usize) -> String {
    let p = plan.spec.point(index);
    point_file(&p, plan.spec.count())
        .replace("points/", "results/")
        .replace(".toml", ".json")
}

/// Reads every task's result; `None` for a task that left none (or an unreadable one).
pub fn read_results(plan: &Plan, dir: &Path) -> Vec<Option<PointResult>> {
    (0..plan.spec.count())
        .map(|i| {
            std::fs::read_to_string(dir.join(result_file(plan, i)))
                .ok()
                .and_then(|t| serde_json::from_str::<PointResult>(&t).ok())
                .filter(|r| r.index == i)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config;
    use crate::sweep::{Axis, Settings, Spec, SynthSettings};

    fn plan(synth: Option<SynthSettings>) -> Plan {
        let axes = vec![Axis::parse("tmu.cache.ways=1,2,4").unwrap()];
        Plan {
            generator: "gpurtl test".into(),
            spec: Spec::new(config::DEFAULT_ORIGIN, config::DEFAULT_TOML, axes, false).unwrap(),
            settings: Settings {
                unit: "tex_cache".into(),
                workloads: vec!["rot30_256".into(), "random".into()],
                count: 100,
                seed: 1,
                gap: 0.0,
                stall: 0.0,
                mem_latency: None,
                model_only: false,
                synth,
            },
        }
    }

    #[test]
    fn the_script_is_one_task_a_point_with_its_resources() {
        let p = plan(None);
        let s = script(
            &p,
            Path::new("/tmp/sw eep"),
            Path::new("/bin/gpurtl"),
            Path::new("/w"),
        );
        assert!(s.contains("#SBATCH --array=0-2\n"), "{s}");
        assert!(s.contains("#SBATCH --cpus-per-task=1\n"));
        assert!(s.contains("#SBATCH --mem=2G\n"));
        assert!(s.contains("#SBATCH --time=01:30:00\n"), "{s}");
        assert!(s.contains(
            "exec /bin/gpurtl sweep task '/tmp/sw eep' --index \"$SLURM_ARRAY_TASK_ID\""
        ));
        let p = plan(Some(SynthSettings {
            target: Target::Ecp5,
            seeds: 3,
        }));
        let r = TaskResources::for_plan(&p);
        assert_eq!((r.mem_gib, r.minutes), (8, 90 + 60 + 180));
        assert_eq!(result_file(&p, 2), "results/p002.json");
    }
}
