//! `hs_chain`: the unit that strings handshake registers together, one per boundary.

use std::collections::BTreeMap;

use askama::Template;

use super::handshake::{block_kind, module_for};
use super::{Ctx, Dir, Module, RenderError, Rst, StreamPort, Unit, render};
use crate::config::{HsChain, StageKind};

/// One stage as the template sees it: instance name, module, and the signals around it.
pub struct StageView {
    pub inst: String,
    pub label: String,
    pub module: Option<String>,
    pub depth: Option<u32>,
    pub in_valid: String,
    pub in_ready: String,
    pub in_data: String,
    pub out_valid: String,
    pub out_ready: String,
    pub out_data: String,
}

#[derive(Template)]
#[template(path = "rtl/hs_chain.v")]
pub struct HsChainTop<'a> {
    pub name: String,
    pub width: u32,
    pub rst: Rst,
    pub stamp: String,
    pub stages: Vec<StageView>,
    pub last: StageView,
    /// False when every stage is a bypass: clock and reset are then unused.
    pub registered: bool,
    pub latency: u32,
    pub capacity: u32,
    pub peak_rate: String,
    pub comb_paths: String,
    #[template(skip)]
    ctx: &'a Ctx,
    #[template(skip)]
    chain: &'a HsChain,
}

impl<'a> HsChainTop<'a> {
    pub fn new(ctx: &'a Ctx, chain: &'a HsChain) -> Self {
        let mut stages: Vec<StageView> = Vec::new();
        for (i, kind) in chain.stages.iter().enumerate() {
            let inst = format!("u_stage{i}");
            let (in_valid, in_ready, in_data) = match stages.last() {
                None => ("in_valid_i".into(), "in_ready_o".into(), "in_data_i".into()),
                Some(prev) => (
                    prev.out_valid.clone(),
                    prev.out_ready.clone(),
                    prev.out_data.clone(),
                ),
            };
            stages.push(StageView {
                label: kind.label(),
                module: block_kind(*kind).map(|b| ctx.module_name(b)),
                depth: match kind {
                    StageKind::Fifo { depth } => Some(*depth),
                    _ => None,
                },
                in_valid,
                in_ready,
                in_data,
                out_valid: format!("stage{i}_valid"),
                out_ready: format!("stage{i}_ready"),
                out_data: format!("stage{i}_data"),
                inst,
            });
        }
        let last = stages
            .last()
            .map(StageView::clone_signals)
            .unwrap_or_default();
        let registered = chain.stages.iter().any(|k| *k != StageKind::Bypass);
        let latency = chain
            .stages
            .iter()
            .filter(|k| **k != StageKind::Bypass)
            .count() as u32;
        Self {
            name: ctx.module_name("hs_chain"),
            width: chain.width,
            rst: ctx.rst.clone(),
            stamp: ctx.stamp.clone(),
            stages,
            last,
            registered,
            latency,
            capacity: chain.capacity(),
            peak_rate: format!("{:.1}", chain.peak_rate()),
            comb_paths: comb_paths(&chain.stages),
            ctx,
            chain,
        }
    }

    /// Renders the stage modules (each kind once) and the chain top, and the unit.
    pub fn elaborate(&self) -> Result<(Unit, Vec<Module>), RenderError> {
        let mut modules: Vec<Module> = Vec::new();
        for kind in &self.chain.stages {
            if let Some(m) = module_for(self.ctx, *kind, self.chain.width)?
                && !modules.iter().any(|x| x.name == m.name)
            {
                modules.push(m);
            }
        }
        let mut instantiates: Vec<String> = modules.iter().map(|m| m.name.clone()).collect();
        instantiates.sort();
        let top = Module {
            name: self.name.clone(),
            kind: "hs_chain",
            parameters: BTreeMap::from([("Width".to_string(), u64::from(self.width))]),
            instantiates,
            text: render(&self.name, self)?,
        };
        modules.push(top);
        let unit = Unit {
            name: "hs_chain",
            top: self.name.clone(),
            modules: modules.iter().map(|m| m.name.clone()).collect(),
            ports: vec![
                StreamPort {
                    name: "in".into(),
                    dir: Dir::In,
                    width: self.width,
                },
                StreamPort {
                    name: "out".into(),
                    dir: Dir::Out,
                    width: self.width,
                },
            ],
            mem_ports: Vec::new(),
            // Filled in from the rendered hierarchy (rtl::stages) once the design is whole.
            stages: Vec::new(),
            probes: Vec::new(),
        };
        Ok((unit, modules))
    }
}

impl StageView {
    fn clone_signals(&self) -> StageView {
        StageView {
            inst: self.inst.clone(),
            label: self.label.clone(),
            module: self.module.clone(),
            depth: self.depth,
            in_valid: self.in_valid.clone(),
            in_ready: self.in_ready.clone(),
            in_data: self.in_data.clone(),
            out_valid: self.out_valid.clone(),
            out_ready: self.out_ready.clone(),
            out_data: self.out_data.clone(),
        }
    }
}

impl Default for StageView {
    fn default() -> Self {
        StageView {
            inst: String::new(),
            label: String::new(),
            module: None,
            depth: None,
            in_valid: "in_valid_i".into(),
            in_ready: "in_ready_o".into(),
            in_data: "in_data_i".into(),
            out_valid: "in_valid_i".into(),
            out_ready: "in_ready_o".into(),
            out_data: "in_data_i".into(),
        }
    }
}

/// Which ports are combinationally coupled through the chain, in words for the header.
fn comb_paths(stages: &[StageKind]) -> String {
    // Ready passes combinationally backwards while every stage from the output back is a
    // bypass or a bubble; valid and data pass forwards only through a chain of bypasses.
    let ready = stages
        .iter()
        .all(|k| matches!(k, StageKind::Bypass | StageKind::Bubble));
    let forward = stages.iter().all(|k| *k == StageKind::Bypass);
    let mut paths = Vec::new();
    if ready {
        paths.push("out_ready_i -> in_ready_o");
    }
    if forward {
        paths.push("in_valid_i -> out_valid_o, in_data_i -> out_data_o");
    }
    if paths.is_empty() {
        "none between the ports (each register breaks them)".into()
    } else {
        paths.join("; ")
    }
}
