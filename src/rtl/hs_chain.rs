//! `hs_chain`: the unit that strings handshake registers together, one per boundary.

use std::collections::BTreeMap;

use askama::Template;

use super::handshake::{block_kind, module_for};
use super::{Ctx, Dir, Module, RenderError, Rst, StreamPort, Unit, render};
use crate::config::{HsChain, StageKind};
use crate::iface::timing::{Op, Timing};

/// The narrowest slice: below it more slices do not shorten the enables' paths (their two
/// LUT levels are left), they only add control flops.
pub const MIN_SLICE_BITS: u32 = 32;

/// Slices of the chain's datapath at this clock. A stage's enable is two LUT levels from
/// its control flops (the count compare or the downstream ready, and the valid) and then
/// a net to every bit of its register; when that does not fit the period, the datapath is
/// cut into slices, each with its own copy of every stage's control, so that an enable
/// reaches a slice and not the whole width. The count divides the width (each slice is
/// `Width / Slices` bits): the fewest slices whose enable fits, else the most that keep a
/// slice at least [`MIN_SLICE_BITS`] wide; 1 when the whole width fits or cannot be cut.
pub fn slices(timing: &Timing, width: u32) -> u32 {
    // The enables are one LUT from flops (the downstream ready and the stage's own valid;
    // README, "Enables from flops").
    let fits = |bits: u32| timing.fits(&[Op::Lut(1), Op::Fanout(bits)]);
    let counts: Vec<u32> = (1..=width / MIN_SLICE_BITS)
        .filter(|&n| width.is_multiple_of(n))
        .collect();
    if fits(width) || counts.len() <= 1 {
        return 1;
    }
    counts
        .iter()
        .copied()
        .find(|&n| fits(width / n))
        .or_else(|| counts.last().copied())
        .unwrap_or(1)
}

/// The clock the chain's slices are scheduled for at the least: handshake registers sit
/// between units, and in a design their ports reach logic placed anywhere, so they are
/// built with margin over a slower target (at 200 MHz seed001's 128-bit chain kept one
/// slice and placed at 245.8 MHz; scheduled for 250 MHz it has four, as at 270, where
/// they placed at 273.1).
pub const HS_CHAIN_MIN_MHZ: f64 = 250.0;

/// The clock that [`chain_slices`] schedules for, in words: `the 300 MHz clock`, or `250
/// MHz, the least a chain is built for (the target is 200 MHz)`.
pub fn slice_clock(timing: &Timing) -> String {
    if timing.target_mhz >= HS_CHAIN_MIN_MHZ {
        format!("the {} MHz clock", timing.target_mhz)
    } else {
        format!(
            "{HS_CHAIN_MIN_MHZ} MHz, the least a chain is built for (the target is {} MHz)",
            timing.target_mhz
        )
    }
}

/// The chain's slices: [`slices`] of its width at the target or [`HS_CHAIN_MIN_MHZ`],
/// whichever is faster; 1 when every stage is a bypass (wires).
pub fn chain_slices(timing: &Timing, chain: &HsChain) -> u32 {
    if chain.stages.iter().all(|k| *k == StageKind::Bypass) {
        1
    } else {
        slices(&timing.at_least(HS_CHAIN_MIN_MHZ), chain.width)
    }
}

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
    /// Datapath slices, each with its own control (see [`slices`]), and their width.
    pub slices: u32,
    pub slice_width: u32,
    /// The clock the slices are for, as the header says it: the target's, or the floor's
    /// with the target beside it.
    pub slice_clock: String,
    /// The stages as one slice sees them (boundary signals of the slice), when sliced.
    pub slice_stages: Vec<StageView>,
    pub slice_last: StageView,
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
        let n = chain_slices(&ctx.timing, chain);
        // A slice's stages: the same signals, but its input and output boundaries are
        // its bits of the ports and its own ready and valid.
        let slice_stages: Vec<StageView> = stages
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let mut v = s.clone_signals();
                if i == 0 {
                    v.in_ready = "slice_in_ready[s]".into();
                    v.in_data = "in_data_i[s*SliceW +: SliceW]".into();
                }
                v
            })
            .collect();
        let slice_last = slice_stages
            .last()
            .map(StageView::clone_signals)
            .unwrap_or_default();
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
            slices: n,
            slice_width: chain.width / n,
            slice_clock: slice_clock(&ctx.timing),
            slice_stages,
            slice_last,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ClockSection, Family};

    fn ecp5(mhz: f64) -> Timing {
        Timing::new(&ClockSection {
            target_mhz: mhz,
            family: Family::Ecp5,
        })
    }

    #[test]
    fn a_chain_is_sliced_for_at_least_250_mhz() {
        let chain = |width: u32, stages: Vec<StageKind>| HsChain { width, stages };
        let skids = vec![StageKind::Skid, StageKind::Skid];
        // seed001_tmu's 128 bits at 200 MHz: sliced as at 250 (and 270), not as at 200.
        assert_eq!(slices(&ecp5(200.0), 128), 1);
        assert_eq!(chain_slices(&ecp5(200.0), &chain(128, skids.clone())), 4);
        assert_eq!(chain_slices(&ecp5(270.0), &chain(128, skids.clone())), 4);
        // The wide preset's 512 bits at 250 MHz: the 16 slices it had at 300.
        assert_eq!(chain_slices(&ecp5(250.0), &chain(512, skids.clone())), 16);
        // Below 250 MHz the floor decides, above it the target; bypasses alone are wires.
        assert_eq!(
            chain_slices(&ecp5(230.0), &chain(100, skids.clone())),
            slices(&ecp5(250.0), 100)
        );
        assert_eq!(chain_slices(&ecp5(300.0), &chain(512, skids)), 16);
        assert_eq!(
            chain_slices(&ecp5(300.0), &chain(512, vec![StageKind::Bypass])),
            1
        );
    }

    #[test]
    fn the_slices_follow_the_clock_and_divide_the_width() {
        // Slow clocks: an enable reaches any width in time.
        assert_eq!(slices(&ecp5(100.0), 512), 1);
        // 230 MHz: 64 bits fit, 100 do not: two slices of 50; a prime width cannot be cut.
        assert_eq!(slices(&ecp5(230.0), 64), 1);
        assert_eq!(slices(&ecp5(230.0), 100), 2);
        assert_eq!(slices(&ecp5(230.0), 257), 1);
        // seed001_tmu's 128 bits at 270 MHz: not even 32 fit, so four slices of 32 (as
        // measured: 273 MHz, where two slices of 64 gave 258).
        assert_eq!(slices(&ecp5(270.0), 128), 4);
        // 300 MHz: not even a narrow slice fits, so as many as keep 32 bits a slice.
        assert_eq!(slices(&ecp5(300.0), 512), 16);
        assert_eq!(slices(&ecp5(300.0), 48), 1);
        for (mhz, width) in [(150.0, 4096), (250.0, 96), (300.0, 4000)] {
            let n = slices(&ecp5(mhz), width);
            assert_eq!(width % n, 0, "{width} bits at {mhz} MHz: {n} slices");
            assert!(n == 1 || width / n >= MIN_SLICE_BITS);
        }
    }

    /// The chain of `toml` as a design of its own, and its stage list.
    fn chain_design(toml: &str) -> (super::super::Design, Vec<super::super::stages::Stage>) {
        let cfg = crate::config::parse(toml, "chain").expect("validates");
        let ctx = Ctx::new(&cfg);
        let chain = cfg.hs_chain.as_ref().expect("chain");
        let (unit, modules) = HsChainTop::new(&ctx, chain).elaborate().expect("renders");
        let mut design = super::super::Design {
            name: "chain".into(),
            modules: Vec::new(),
            units: Vec::new(),
        };
        modules.into_iter().for_each(|m| design.add(m));
        let stages = super::super::stages::of(&design, &unit).expect("stage list");
        (design, stages)
    }

    #[test]
    fn a_sliced_chain_renders_its_slices_and_counts_its_registers_once() {
        let (design, stages) = chain_design(
            "[design]\nname = \"s\"\n[clock]\ntarget_mhz = 300.0\n\
             [hs_chain]\nwidth = 512\nstages = [\"skid\", \"fifo:4\", \"bypass\"]\n",
        );
        let top = design.module("hs_chain").expect("the chain top");
        assert!(
            top.text
                .contains("localparam integer Slices          = 16;"),
            "{}",
            top.text
        );
        assert!(top.text.contains("begin : g_slice"));
        assert!(
            top.text
                .contains(".in_data_i   (in_data_i[s*SliceW +: SliceW])")
        );
        let holds: u64 = stages.iter().map(|s| s.holds).sum();
        assert_eq!((stages.len(), holds), (2, 6));
        // Every stage a bypass: wires, no slices.
        let (design, _) = chain_design(
            "[design]\nname = \"b\"\n[clock]\ntarget_mhz = 300.0\n\
             [hs_chain]\nwidth = 512\nstages = [\"bypass\"]\n",
        );
        assert!(
            !design
                .module("hs_chain")
                .expect("top")
                .text
                .contains("g_slice")
        );
    }
}
