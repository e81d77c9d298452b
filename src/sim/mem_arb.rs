//! The memory arbiter's figures for one co-simulation run: memory port utilisation,
//! the idle clocks between bursts of different requesters, and the generator's
//! worst-case waits, with what it takes to reproduce the run.

use serde::Serialize;

use super::{MemRows, MemTiming, SimOptions, SimReport};
use crate::config::{Config, Policy};
use crate::rtl::mem_arb::{Pipe, Wait, worst_case_waits};

#[derive(Debug, Clone, Default, Serialize)]
pub struct MemArbReport {
    pub workload: String,
    pub policy: &'static str,
    pub requesters: usize,
    pub data_bits: u32,
    /// Bursts the memory accepted, and beats each way.
    pub bursts: u64,
    pub read_beats: u64,
    pub write_beats: u64,
    /// Beats per clock over the run (1.0 is a port busy every clock).
    pub utilization: f64,
    pub bytes_per_clock: f64,
    /// A burst of one requester after a burst of another that was already requested and
    /// due when the first one's last beat moved: how often, and the idle clocks between.
    pub switches: u64,
    pub switch_idle_total: u64,
    pub switch_idle_max: u64,
    pub worst_case_waits: Vec<Wait>,
    /// Response ports that can starve by policy, with the longest wait this run saw
    /// between two of their responses (from reset to the first).
    pub policy_waits: Vec<(String, u64)>,
    pub mem: MemTiming,
    pub rows: MemRows,
}

impl MemArbReport {
    /// The flags beyond `--seed --count --gap --stall` that reproduce the run.
    pub fn reproduce_flags(&self) -> String {
        let mut s = format!(
            " --mem-latency {} --mem-jitter {} --mem-gap {} --mem-stall {}",
            self.mem.latency, self.mem.jitter, self.mem.gap, self.mem.stall
        );
        if self.rows != MemRows::default() {
            s += &format!(
                " --mem-row-bits {} --mem-row-penalty {}",
                self.rows.bits, self.rows.penalty
            );
        }
        if self.workload != "mixed" {
            s += &format!(" --workload {}", self.workload);
        }
        s
    }

    pub fn summary(&self) -> String {
        let mut s = format!(
            "  mem_arb ({}, {} requesters, {}): {:.2} bytes/clock, port {:.1}% busy ({} bursts, {} read + {} write beats)\n",
            self.policy,
            self.requesters,
            self.workload,
            self.bytes_per_clock,
            100.0 * self.utilization,
            self.bursts,
            self.read_beats,
            self.write_beats
        );
        s += &format!(
            "  back-to-back bursts of different requesters: {}, idle clocks between them: {} in all, at most {}\n",
            self.switches, self.switch_idle_total, self.switch_idle_max
        );
        for w in &self.worst_case_waits {
            s += &format!("  worst-case wait {}\n", w.describe());
        }
        for (port, clocks) in &self.policy_waits {
            s += &format!(
                "  {port}: waited by policy (a lower priority can starve) up to {clocks} clocks between responses\n"
            );
        }
        s
    }
}

/// Adds the arbiter's figures to a `mem_arb` run's report.
pub fn with_figures(mut r: SimReport, cfg: &Config, opt: &SimOptions, rows: MemRows) -> SimReport {
    let Some(mem) = &cfg.mem else {
        return r;
    };
    let Some(m) = r.memory.iter().find(|m| m.name == "mem") else {
        return r;
    };
    let beats = m.beats;
    let utilization = if r.cycles == 0 {
        0.0
    } else {
        beats as f64 / r.cycles as f64
    };
    r.mem_arb = Some(MemArbReport {
        workload: opt.workload.clone().unwrap_or_else(|| "mixed".into()),
        policy: match mem.policy {
            Policy::Fixed => "fixed",
            Policy::RoundRobin => "round_robin",
            Policy::Classes => "classes",
        },
        requesters: mem.requesters.len(),
        data_bits: mem.data_bits,
        bursts: m.requests,
        read_beats: m.read_beats.unwrap_or(0),
        write_beats: m.write_beats.unwrap_or(0),
        utilization,
        bytes_per_clock: utilization * (mem.data_bits / 8) as f64,
        switches: m.switches.unwrap_or(0),
        switch_idle_total: m.switch_idle_total.unwrap_or(0),
        switch_idle_max: m.switch_idle_max.unwrap_or(0),
        worst_case_waits: worst_case_waits(
            mem,
            &Pipe::new(mem, &crate::iface::timing::Timing::new(&cfg.clock)),
        ),
        mem: opt.mem,
        rows,
        policy_waits: r
            .ports
            .iter()
            .filter(|p| p.may_starve)
            .map(|p| (p.name.clone(), p.longest_wait))
            .collect(),
    });
    r
}
