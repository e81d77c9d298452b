//! `mem_arb`: the memory arbiter (seed 002), rendered from `[mem]`. Rust decides the
//! structure (requester ports, arbitration classes, request field layout) and computes the
//! worst-case wait of each requester; the template spells it out. The model is
//! `model::mem_arb`.

use std::collections::BTreeMap;

use askama::Template;
use serde::Serialize;

use super::handshake::module_for;
use super::{Ctx, Module, RenderError, Rst, Unit, render};
use crate::config::{ADDR_BITS, Mem, Policy, StageKind};
#[cfg(test)]
use crate::iface::field::width;
use crate::iface::mem_arb::{
    Field, describe, lsb_params, req_fields, tag_fields, wbeat_fields, wbeat_width,
};
pub use crate::iface::mem_arb::{Pipe, WRITE_TAGS};
use crate::iface::timing::Timing;
// rtl/mod.rs, sim and the tests name the port and the ports here.
pub use crate::iface::mem_arb::{RwMemPort, req_width, rw_mem_port, unit_ports};

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
                "{}: at most {b} burst(s) ahead of it (the one in progress, any queued, and {} granted after its request), {c} clock(s)",
                self.name,
                self.grants_to_others.unwrap_or(0)
            ),
            _ => format!(
                "{}: can starve: a higher priority requester can hold the port indefinitely",
                self.name
            ),
        }
    }
}

/// Clocks a burst of requester `i` holds the grant at most: one for a read-only
/// requester; a write's request waits for room among the write tags, which the write
/// side frees a beat a clock, so a write counts its longest burst's beats.
fn occupancy(mem: &Mem, i: usize) -> u64 {
    let r = &mem.requesters[i];
    if r.access.writes() {
        u64::from(r.max_burst)
    } else {
        1
    }
}

/// The worst-case wait of every requester under the config's policy and pipeline. A
/// requester in the highest class (all of them under round robin, the first under fixed
/// priority) waits for the beats of the write bursts already sent, the burst in
/// progress, the bursts already in the grant queue (of anyone), and at most one burst of
/// each other member of its class; any lower class can starve.
pub fn worst_case_waits(mem: &Mem, pipe: &Pipe) -> Vec<Wait> {
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
            // A queued burst can be anyone's; its own clock through the queue on top.
            let queued = u64::from(pipe.queued_bursts());
            let longest = (0..n).map(|j| occupancy(mem, j)).max().unwrap_or(0);
            let through_queue = queued * longest + u64::from(pipe.grant_queue);
            // Write bursts already sent whose beats are still owed (the write tags and
            // the head) go first.
            let longest_write = (0..n)
                .filter(|&j| mem.requesters[j].access.writes())
                .map(|j| occupancy(mem, j))
                .max()
                .unwrap_or(0);
            let owed = u64::from(WRITE_TAGS + 1) * longest_write;
            let clocks = owed
                + in_progress
                + through_queue
                + others.iter().map(|&j| occupancy(mem, j)).sum::<u64>();
            Wait {
                name,
                bursts: Some(others.len() as u32 + 1 + pipe.queued_bursts()),
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
    /// The localparam holding the class's member count (`N` for a class of everyone).
    pub size: String,
    pub rr: bool,
    pub k: usize,
    pub member_names: String,
    pub req_concat: String,
    pub any_req: String,
    pub any_pick: String,
    pub assigns: Vec<String>,
    /// Round robin: each member's pick, `<label>_pick[i] = req[i] & ~(any member ahead
    /// of it asks)`.
    pub pick_terms: Vec<String>,
}

pub struct BoundCtx {
    pub name: String,
    pub class_label: String,
    /// The class's member-count localparam.
    pub class_size: String,
    pub k: usize,
    pub pos: usize,
    pub bound: u32,
}

#[derive(Template)]
#[template(path = "rtl/mem_arb.v")]
pub struct MemArb {
    /// The design-wide naming and reset, for the handshake modules it renders.
    pub ctx: Ctx,
    /// The unit's stream ports.
    pub ports: Vec<crate::iface::StreamPort>,
    pub name: String,
    pub stamp: String,
    pub rst: Rst,
    pub skid: String,
    pub fifo: String,
    pub n: usize,
    pub policy: &'static str,
    pub data_bits: u32,
    /// A write beat's width and layout, `{strb, data}`: the RTL carries it whole.
    pub wbeat_w: u32,
    pub wbeat_layout: String,
    pub addr_bits: u32,
    pub len_bits: u32,
    pub id_bits: u32,
    /// Requester indices an id can hold, `2 ** id_bits`.
    pub id_count: u32,
    /// The head reader's ready is a mux on the head tag's index (with the head register):
    /// for up to four indices that is one LUT4 pair and its PFUMX, shallower than the
    /// AND-OR over the per-reader flags; an 8:1 mux is deeper than the AND-OR over six
    /// readers (seed 002, median of seeds 1-3: 177 against 205 MHz), so wider ids keep
    /// the AND-OR.
    pub rready_mux: bool,
    /// The readers' `_rdata_ready_i` by requester index, highest first, `1'b0` for
    /// writers and indices past the last requester, for the mux.
    pub rready_by_id: String,
    pub outstanding: u32,
    /// The memory latency the tag FIFO is sized for.
    pub latency: u32,
    /// Field offsets of the request words and of a read tag, as localparams.
    pub lsbs: Vec<(String, u32)>,
    pub tag_layout: String,
    /// The tag FIFOs' input, `{single_q, id_q, len_q}`, in the order of [`tag_fields`].
    pub tag_in: String,
    /// Write tags the FIFO holds (the head register holds one more).
    pub write_tags: u32,
    pub reqs: Vec<ReqCtx>,
    pub classes: Vec<ClassCtx>,
    pub any_rr: bool,
    /// Some requester writes (else the write-beat select is constant).
    pub any_writer: bool,
    pub bounds: Vec<BoundCtx>,
    pub waits: Vec<String>,
    /// The pipeline at the config's clock, and the target it was scheduled for.
    pub pipe: Pipe,
    pub target_mhz: String,
}

/// Requester `i` as the template sees it.
fn req_ctx(mem: &Mem, i: usize) -> ReqCtx {
    let r = &mem.requesters[i];
    ReqCtx {
        name: r.name.clone(),
        idx: i,
        access: r.access.label(),
        reads: r.access.reads(),
        writes: r.access.writes(),
        priority: r.priority,
        max_burst: r.max_burst,
        req_w: req_width(mem, i),
        req_layout: describe(&req_fields(mem, i)),
        write_expr: match (r.access.reads(), r.access.writes()) {
            (true, true) => format!("{}_req_data_i[ReqWriteLsb]", r.name),
            (true, false) => "1'b0".into(),
            _ => "1'b1".into(),
        },
        id_lit: format!("{}'d{i}", mem.id_bits()),
    }
}

/// An arbitration class (its members in list order) as the template sees it.
fn class_ctx(mem: &Mem, members: &[usize]) -> ClassCtx {
    let k = members.len();
    let label = match mem.policy {
        Policy::RoundRobin => "rr".to_string(),
        _ => format!("p{}", mem.requesters[members[0]].priority),
    };
    let size = if k == mem.requesters.len() {
        "N".to_string()
    } else {
        // `rr` -> `RrN`, `p2` -> `P2N`.
        format!("{}{}N", label[..1].to_ascii_uppercase(), &label[1..])
    };
    let names: Vec<&str> = members
        .iter()
        .map(|&i| mem.requesters[i].name.as_str())
        .collect();
    let picks: Vec<String> = members.iter().map(|m| format!("pick[{m}]")).collect();
    if k == 1 {
        let m = members[0];
        return ClassCtx {
            label,
            size,
            rr: false,
            k,
            member_names: names.join(", "),
            req_concat: String::new(),
            any_req: format!("req_valid[{m}]"),
            any_pick: picks.join(" | "),
            assigns: vec![format!("pick[{m}] = 1'b1;")],
            pick_terms: Vec::new(),
        };
    }
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
        pick_terms: (0..k).map(|i| rr_pick_term(&label, k, i)).collect(),
        size,
        rr: true,
        k,
        member_names: names.join(", "),
        req_concat: format!("{{{}}}", rev.join(", ")),
        any_pick: picks.join(" | "),
        label,
    }
}

/// Member `i`'s round-robin pick among `k`: it asks and no member ahead of it asks. The
/// mask holds the members after the last winner (a thermometer), which come first, in
/// order, then the others: `j < i` is ahead unless only `i` is masked, `j > i` only when
/// `j` is masked and `i` is not.
fn rr_pick_term(label: &str, k: usize, i: usize) -> String {
    let m = |j: usize| format!("{label}_mask_q[{j}]");
    let ahead: Vec<String> = (0..k)
        .filter(|&j| j != i)
        .map(|j| {
            let when = if j < i {
                format!("{} | ~{}", m(j), m(i))
            } else {
                format!("{} & ~{}", m(j), m(i))
            };
            format!("({label}_req[{j}] & ({when}))")
        })
        .collect();
    format!(
        "{label}_pick[{i}] = {label}_req[{i}] & ~({});",
        ahead.join(" | ")
    )
}

/// The request words' field offsets: every requester's fields lie at the same place
/// (the write flag only exists in some), so one localparam per field name serves all.
fn req_lsbs(mem: &Mem) -> Vec<(String, u32)> {
    let mut lsbs: Vec<(String, u32)> = Vec::new();
    for i in 0..mem.requesters.len() {
        for p in lsb_params("Req", &req_fields(mem, i)) {
            if !lsbs.iter().any(|(n, _)| *n == p.0) {
                lsbs.push(p);
            }
        }
    }
    lsbs
}

impl MemArb {
    pub fn new(ctx: &Ctx, mem: &Mem, timing: &Timing) -> Self {
        let len_w = mem.len_bits();
        let reqs: Vec<ReqCtx> = (0..mem.requesters.len()).map(|i| req_ctx(mem, i)).collect();
        let classes: Vec<ClassCtx> = mem.classes().iter().map(|m| class_ctx(mem, m)).collect();
        let pipe = Pipe::new(mem, timing);
        let waits = worst_case_waits(mem, &pipe);
        let top = &mem.classes()[0];
        let bounds = waits
            .iter()
            .enumerate()
            .filter_map(|(i, w)| {
                let bound = w.grants_to_others?;
                Some(BoundCtx {
                    name: w.name.clone(),
                    class_label: classes[0].label.clone(),
                    class_size: classes[0].size.clone(),
                    k: top.len(),
                    pos: top.iter().position(|&m| m == i).unwrap_or(0),
                    bound,
                })
            })
            .collect();
        Self {
            ctx: ctx.clone(),
            ports: unit_ports(mem),
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
            wbeat_w: wbeat_width(mem),
            wbeat_layout: describe(&wbeat_fields(mem)),
            addr_bits: ADDR_BITS,
            len_bits: len_w,
            id_bits: mem.id_bits(),
            id_count: 1 << mem.id_bits(),
            rready_mux: pipe.rtag_stage && mem.id_bits() <= 2,
            rready_by_id: rready_by_id(mem),
            outstanding: mem.outstanding_reads,
            latency: mem.latency,
            lsbs: [req_lsbs(mem), lsb_params("Tag", &tag_fields(mem))].concat(),
            tag_layout: describe(&tag_fields(mem)),
            tag_in: tag_concat(&tag_fields(mem)),
            write_tags: WRITE_TAGS,
            any_rr: classes.iter().any(|c| c.rr),
            any_writer: mem.requesters.iter().any(|r| r.access.writes()),
            reqs,
            classes,
            bounds,
            waits: waits.iter().map(Wait::describe).collect(),
            pipe,
            target_mhz: format!("{:.0}", 1000.0 / timing.period_ns),
        }
    }

    /// Renders the arbiter and the handshake modules it uses.
    pub fn elaborate(&self) -> Result<(Unit, Vec<Module>), RenderError> {
        let ctx = &self.ctx;
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
            ports: self.ports.clone(),
            mem_ports: Vec::new(),
            // Filled in from the rendered hierarchy (rtl::stages) once the design is whole.
            stages: Vec::new(),
            probes: Vec::new(),
        };
        Ok((unit, modules))
    }
}

/// `{..., r1_rdata_ready_i, r0_rdata_ready_i}` over every index an id can hold: a
/// reader's ready at its index, `1'b0` at a writer's and past the last requester.
fn rready_by_id(mem: &Mem) -> String {
    let bits: Vec<String> = (0..1usize << mem.id_bits())
        .rev()
        .map(|i| match mem.requesters.get(i) {
            Some(r) if r.access.reads() => format!("{}_rdata_ready_i", r.name),
            _ => "1'b0".into(),
        })
        .collect();
    format!("{{{}}}", bits.join(", "))
}

/// A tag built from the burst register, highest field first: each field `Foo` of
/// [`tag_fields`] is the register `foo_q`.
fn tag_concat(fields: &[Field]) -> String {
    let regs: Vec<String> = fields
        .iter()
        .rev()
        .map(|f| format!("{}_q", f.name.to_ascii_lowercase()))
        .collect();
    format!("{{{}}}", regs.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config;

    fn arb(policy: &str) -> (Ctx, Mem, Timing) {
        let toml = format!(
            "[design]\nname = \"t\"\n[mem]\ndata_bits = 64\nmax_burst = 8\npolicy = \"{policy}\"\n\
             [[mem.requesters]]\nname = \"a\"\naccess = \"both\"\nmax_burst = 8\npriority = 1\n\
             [[mem.requesters]]\nname = \"b\"\naccess = \"read\"\nmax_burst = 4\npriority = 2\n\
             [[mem.requesters]]\nname = \"c\"\naccess = \"write\"\nmax_burst = 2\npriority = 2\n\
             [[mem.requesters]]\nname = \"d\"\naccess = \"read\"\nmax_burst = 2\npriority = 2\n"
        );
        let cfg = config::parse(&toml, "test").expect("valid");
        (
            Ctx::new(&cfg),
            cfg.mem.clone().expect("mem"),
            Timing::new(&cfg.clock),
        )
    }

    /// The field offsets and class sizes the arbiter declares are the contract's.
    #[test]
    fn rendered_localparams_are_the_contracts_layouts() {
        for policy in ["fixed", "round_robin", "classes"] {
            let (ctx, mem, timing) = arb(policy);
            let arb = MemArb::new(&ctx, &mem, &timing);
            let declared =
                crate::rtl::align::localparams(&render(&arb.name, &arb).expect("renders"));
            let mut words = vec![tag_fields(&mem)];
            words.extend((0..mem.requesters.len()).map(|i| req_fields(&mem, i)));
            for (w, fields) in words.iter().enumerate() {
                let word = if w == 0 { "Tag" } else { "Req" };
                for (name, lsb) in lsb_params(word, fields) {
                    assert_eq!(
                        declared.get(&name),
                        Some(&u64::from(lsb)),
                        "{policy} {name}"
                    );
                }
            }
            // The tag FIFO is fed in the table's order and read back by its offsets.
            let text = render(&arb.name, &arb).expect("renders");
            let flat: String = text.split_whitespace().collect();
            let concat: Vec<String> = tag_fields(&mem)
                .iter()
                .rev()
                .map(|f| format!("{}_q", f.name.to_ascii_lowercase()))
                .collect();
            let feed = format!(".in_data_i({{{}}})", concat.join(","));
            assert!(flat.contains(&feed), "{policy}: tag FIFO fed as {feed}");
            for f in tag_fields(&mem) {
                let read = format!("tag_data[Tag{}Lsb+:", f.name);
                assert!(flat.contains(&read), "{policy}: tag read as {read}");
            }
            // A write beat is the contract's width at every writer, in the write path and
            // at memory.
            assert_eq!(declared["WBeatW"], u64::from(wbeat_width(&mem)));
            let wbeat = wbeat_width(&mem) - 1;
            for (port, dir) in [
                ("a_wdata_data_i", "input"),
                ("c_wdata_data_i", "input"),
                ("mem_wdata_data_o", "output"),
            ] {
                let decl = format!("{dir}wire[{wbeat}:0]{port}");
                assert!(flat.contains(&decl), "{policy}: {decl}");
            }
            let mut path = vec!["reg[WBeatW-1:0]wsel_data;", ".Width(WBeatW))u_wdata_skid"];
            if arb.pipe.wdata_stage {
                path.push("reg[WBeatW-1:0]wstage_data_q;");
            }
            for line in path {
                assert!(flat.contains(line), "{policy}: {line}");
            }
            // TagW = IdW + LenW + 1 (the single-beat flag) in the RTL.
            assert_eq!(
                declared["IdW"] + declared["LenW"] + 1,
                u64::from(width(&tag_fields(&mem)))
            );
            for c in &arb.classes {
                if c.rr {
                    let n = declared.get(&c.size).or(declared.get("N"));
                    assert_eq!(n, Some(&(c.k as u64)), "{policy} {}", c.size);
                }
            }
        }
    }
}
