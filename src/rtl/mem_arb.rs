//! `mem_arb`: the memory arbiter (seed 002), rendered from `[mem]`. Rust decides the
//! structure (requester ports, arbitration classes, request field layout) and computes the
//! worst-case wait of each requester; the template spells it out. The model is
//! `model::mem_arb`.

use std::collections::BTreeMap;

use askama::Template;
use serde::Serialize;

use super::handshake::module_for;
use super::{Ctx, Dir, Module, RenderError, Rst, StreamPort, Unit, render};
use crate::config::{ADDR_BITS, Mem, Policy, StageKind};

/// The memory side of `mem_arb`, served by the harness's read/write memory model: a
/// request per burst (`mem_req_*`: addr, len = beats - 1, write, id), write beats out
/// (`mem_wdata_*`), read beats in (`mem_rdata_*`).
#[derive(Debug, Clone, Serialize)]
pub struct RwMemPort {
    pub name: String,
    pub addr_width: u32,
    pub len_width: u32,
    pub id_width: u32,
    pub data_width: u32,
}

/// A requester's worst-case wait for the port.
#[derive(Debug, Clone, Serialize)]
pub struct Wait {
    pub name: String,
    /// `None`: a higher priority can hold the port for ever (starvation).
    pub bursts: Option<u32>,
    pub clocks: Option<u64>,
    /// Grants to others after its request and before its own (what the formal proof
    /// bounds).
    pub grants_to_others: Option<u32>,
}

impl Wait {
    pub fn describe(&self) -> String {
        match (self.bursts, self.clocks) {
            (Some(b), Some(c)) => format!(
                "{}: at most {b} burst(s) ahead of it (the one in progress and {} granted after its request), {c} clock(s)",
                self.name,
                b - 1
            ),
            _ => format!(
                "{}: can starve: a higher priority requester can hold the port indefinitely",
                self.name
            ),
        }
    }
}

/// Clocks a burst of requester `i` holds the grant at most: its longest write burst's
/// beats, or one clock for a read-only requester.
fn occupancy(mem: &Mem, i: usize) -> u64 {
    let r = &mem.requesters[i];
    if r.access.writes() {
        u64::from(r.max_burst)
    } else {
        1
    }
}

/// The worst-case wait of every requester under the config's policy. A requester in the
/// highest class (all of them under round robin, the first under fixed priority) waits
/// for the burst in progress and at most one burst of each other member of its class;
/// any lower class can starve.
pub fn worst_case_waits(mem: &Mem) -> Vec<Wait> {
    let classes = mem.classes();
    let n = mem.requesters.len();
    (0..n)
        .map(|i| {
            let name = mem.requesters[i].name.clone();
            let top = &classes[0];
            if !top.contains(&i) {
                return Wait {
                    name,
                    bursts: None,
                    clocks: None,
                    grants_to_others: None,
                };
            }
            let others: Vec<usize> = top.iter().copied().filter(|&j| j != i).collect();
            let in_progress = (0..n)
                .filter(|j| !others.contains(j))
                .map(|j| occupancy(mem, j))
                .max()
                .unwrap_or(0);
            let clocks = in_progress + others.iter().map(|&j| occupancy(mem, j)).sum::<u64>();
            Wait {
                name,
                bursts: Some(others.len() as u32 + 1),
                clocks: Some(clocks),
                grants_to_others: Some(others.len() as u32),
            }
        })
        .collect()
}

pub struct ReqCtx {
    pub name: String,
    pub idx: usize,
    pub access: &'static str,
    pub reads: bool,
    pub writes: bool,
    pub priority: u32,
    pub max_burst: u32,
    pub req_w: u32,
    pub req_layout: String,
    pub write_expr: String,
    pub id_lit: String,
}

pub struct ClassCtx {
    pub label: String,
    pub rr: bool,
    pub k: usize,
    pub member_names: String,
    pub req_concat: String,
    pub any_req: String,
    pub any_pick: String,
    pub assigns: Vec<String>,
}

pub struct BoundCtx {
    pub name: String,
    pub class_label: String,
    pub k: usize,
    pub pos: usize,
    pub bound: u32,
}

#[derive(Template)]
#[template(path = "rtl/mem_arb.v")]
pub struct MemArb {
    pub name: String,
    pub stamp: String,
    pub rst: Rst,
    pub skid: String,
    pub fifo: String,
    pub n: usize,
    pub policy: &'static str,
    pub data_bits: u32,
    pub addr_bits: u32,
    pub len_bits: u32,
    pub id_bits: u32,
    pub outstanding: u32,
    /// `wfire` widened to the beat counter's `LenW` bits.
    pub wfire_ext: String,
    pub reqs: Vec<ReqCtx>,
    pub classes: Vec<ClassCtx>,
    pub any_rr: bool,
    /// Some requester writes (else the write-beat select is constant).
    pub any_writer: bool,
    pub bounds: Vec<BoundCtx>,
    pub waits: Vec<String>,
}

/// Width of requester `i`'s request word: address, length, and a write flag when it both
/// reads and writes.
pub fn req_width(mem: &Mem, i: usize) -> u32 {
    let r = &mem.requesters[i];
    ADDR_BITS + mem.len_bits() + u32::from(r.access.reads() && r.access.writes())
}

impl MemArb {
    pub fn new(ctx: &Ctx, mem: &Mem) -> Self {
        let len_w = mem.len_bits();
        let id_w = mem.id_bits();
        let reqs: Vec<ReqCtx> = mem
            .requesters
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let both = r.access.reads() && r.access.writes();
                ReqCtx {
                    name: r.name.clone(),
                    idx: i,
                    access: r.access.label(),
                    reads: r.access.reads(),
                    writes: r.access.writes(),
                    priority: r.priority,
                    max_burst: r.max_burst,
                    req_w: req_width(mem, i),
                    req_layout: if both {
                        format!("{{write, len[{len_w}], addr[{ADDR_BITS}]}}")
                    } else {
                        format!("{{len[{len_w}], addr[{ADDR_BITS}]}}")
                    },
                    write_expr: match (r.access.reads(), r.access.writes()) {
                        (true, true) => format!("{}_req_data_i[AddrW+LenW]", r.name),
                        (true, false) => "1'b0".into(),
                        _ => "1'b1".into(),
                    },
                    id_lit: format!("{id_w}'d{i}"),
                }
            })
            .collect();
        let classes: Vec<ClassCtx> = mem
            .classes()
            .iter()
            .map(|members| {
                let k = members.len();
                let label = match mem.policy {
                    Policy::RoundRobin => "rr".to_string(),
                    _ => format!("p{}", mem.requesters[members[0]].priority),
                };
                let names: Vec<&str> = members
                    .iter()
                    .map(|&i| mem.requesters[i].name.as_str())
                    .collect();
                let picks: Vec<String> = members.iter().map(|m| format!("pick[{m}]")).collect();
                if k == 1 {
                    let m = members[0];
                    ClassCtx {
                        label,
                        rr: false,
                        k,
                        member_names: names.join(", "),
                        req_concat: String::new(),
                        any_req: format!("req_valid[{m}]"),
                        any_pick: picks.join(" | "),
                        assigns: vec![format!("pick[{m}] = 1'b1;")],
                    }
                } else {
                    let rev: Vec<String> = members
                        .iter()
                        .rev()
                        .map(|m| format!("req_valid[{m}]"))
                        .collect();
                    ClassCtx {
                        any_req: format!("|{label}_req"),
                        assigns: members
                            .iter()
                            .enumerate()
                            .map(|(p, m)| format!("pick[{m}] = {label}_pick[{p}];"))
                            .collect(),
                        label,
                        rr: true,
                        k,
                        member_names: names.join(", "),
                        req_concat: format!("{{{}}}", rev.join(", ")),
                        any_pick: picks.join(" | "),
                    }
                }
            })
            .collect();
        let waits = worst_case_waits(mem);
        let top = &mem.classes()[0];
        let bounds = waits
            .iter()
            .enumerate()
            .filter_map(|(i, w)| {
                let bound = w.grants_to_others?;
                Some(BoundCtx {
                    name: w.name.clone(),
                    class_label: classes[0].label.clone(),
                    k: top.len(),
                    pos: top.iter().position(|&m| m == i).unwrap_or(0),
                    bound,
                })
            })
            .collect();
        Self {
            name: ctx.module_name("mem_arb"),
            stamp: ctx.stamp.clone(),
            rst: ctx.rst.clone(),
            skid: ctx.module_name("hs_skid"),
            fifo: ctx.module_name("hs_fifo"),
            n: mem.requesters.len(),
            policy: match mem.policy {
                Policy::Fixed => "fixed priority (highest priority first, list order breaks ties)",
                Policy::RoundRobin => "round robin",
                Policy::Classes => "priority classes, round robin among equal priorities",
            },
            data_bits: mem.data_bits,
            addr_bits: ADDR_BITS,
            len_bits: len_w,
            id_bits: id_w,
            outstanding: mem.outstanding_reads,
            wfire_ext: if len_w == 1 {
                "wfire".into()
            } else {
                format!("{{{}'d0, wfire}}", len_w - 1)
            },
            any_rr: classes.iter().any(|c| c.rr),
            any_writer: mem.requesters.iter().any(|r| r.access.writes()),
            reqs,
            classes,
            bounds,
            waits: waits.iter().map(Wait::describe).collect(),
        }
    }

    /// Renders the arbiter and the handshake modules it uses.
    pub fn elaborate(&self, ctx: &Ctx, mem: &Mem) -> Result<(Unit, Vec<Module>), RenderError> {
        let mut modules = Vec::new();
        for kind in [StageKind::Skid, StageKind::Fifo { depth: 4 }] {
            if let Some(m) = module_for(ctx, kind, 32)? {
                modules.push(m);
            }
        }
        let mut instantiates: Vec<String> = modules.iter().map(|m| m.name.clone()).collect();
        instantiates.sort();
        modules.push(Module {
            name: self.name.clone(),
            kind: "mem_arb",
            parameters: BTreeMap::from([("Outstanding".to_string(), u64::from(self.outstanding))]),
            instantiates,
            text: render(&self.name, self)?,
        });
        let unit = Unit {
            name: "mem_arb",
            top: self.name.clone(),
            modules: modules.iter().map(|m| m.name.clone()).collect(),
            ports: unit_ports(mem),
            mem_ports: Vec::new(),
            probes: Vec::new(),
        };
        Ok((unit, modules))
    }
}

/// The requesters' stream ports, in order: per requester its request, its write data (if
/// it writes) and its read data (if it reads).
pub fn unit_ports(mem: &Mem) -> Vec<StreamPort> {
    let mut ports = Vec::new();
    for (i, r) in mem.requesters.iter().enumerate() {
        ports.push(StreamPort {
            name: format!("{}_req", r.name),
            dir: Dir::In,
            width: req_width(mem, i),
        });
        if r.access.writes() {
            ports.push(StreamPort {
                name: format!("{}_wdata", r.name),
                dir: Dir::In,
                width: mem.data_bits,
            });
        }
        if r.access.reads() {
            ports.push(StreamPort {
                name: format!("{}_rdata", r.name),
                dir: Dir::Out,
                width: mem.data_bits,
            });
        }
    }
    ports
}

/// The read/write memory port of `mem_arb`.
pub fn rw_mem_port(mem: &Mem) -> RwMemPort {
    RwMemPort {
        name: "mem".into(),
        addr_width: ADDR_BITS,
        len_width: mem.len_bits(),
        id_width: mem.id_bits(),
        data_width: mem.data_bits,
    }
}
