//! Handshake registers: `hs_bubble`, `hs_skid`, `hs_fifo` (a `bypass` is wires and has no
//! module), and `hs_ram_fifo` for deep queues. Each keeps `Width` (and `Depth`) as real
//! Verilog parameters.

use std::collections::BTreeMap;

use askama::Template;

use super::{Ctx, Module, RenderError, Rst, render};
use crate::config::StageKind;
use crate::iface::fifo::{RAM_FIFO_HEAD, RAM_FIFO_MIN_DEPTH};

#[derive(Template)]
#[template(path = "rtl/hs_bubble.v")]
pub struct HsBubble {
    pub name: String,
    pub width: u32,
    pub rst: Rst,
    pub stamp: String,
}

#[derive(Template)]
#[template(path = "rtl/hs_skid.v")]
pub struct HsSkid {
    pub name: String,
    pub width: u32,
    pub rst: Rst,
    pub stamp: String,
}

#[derive(Template)]
#[template(path = "rtl/hs_fifo.v")]
pub struct HsFifo {
    pub name: String,
    pub width: u32,
    /// The default of the `Depth` parameter; instances override it.
    pub depth: u32,
    /// The default of `ThermoDepth`: depths up to it keep a thermometer fill level.
    pub thermo_depth: u32,
    pub rst: Rst,
    pub stamp: String,
}

#[derive(Template)]
#[template(path = "rtl/hs_ram_fifo.v")]
pub struct HsRamFifo {
    pub name: String,
    pub width: u32,
    /// The default of the `Depth` parameter; instances override it.
    pub depth: u32,
    /// The default of `Head`, the flop entries read ahead of the RAM.
    pub head: u32,
    pub rst: Rst,
    pub stamp: String,
}

/// Renders `hs_ram_fifo`. Its parameter defaults are fixed (every unit renders the same
/// module and its instances override `Width` and `Depth`).
pub fn ram_fifo_module(ctx: &Ctx) -> Result<Module, RenderError> {
    let name = ctx.module_name("hs_ram_fifo");
    let block = HsRamFifo {
        name: name.clone(),
        width: 32,
        depth: RAM_FIFO_MIN_DEPTH,
        head: RAM_FIFO_HEAD,
        rst: ctx.rst.clone(),
        stamp: ctx.stamp.clone(),
    };
    Ok(Module {
        text: render(&name, &block)?,
        name,
        kind: "hs_ram_fifo",
        parameters: BTreeMap::from([
            ("Width".to_string(), 32),
            ("Depth".to_string(), u64::from(RAM_FIFO_MIN_DEPTH)),
            ("Head".to_string(), u64::from(RAM_FIFO_HEAD)),
        ]),
        instantiates: Vec::new(),
    })
}

/// Deepest FIFO whose fill level is a thermometer: Depth flops instead of a count and
/// two flags, which takes the count's carry off the ready path (seed001_tmu's 16-deep
/// chain FIFO: its count was the critical path at 233 MHz on ECP5). Deeper queues (the
/// cache's pass queue) keep the binary count.
pub const FIFO_THERMO_DEPTH: u32 = 32;

/// The block kind (template and module base name) of a stage kind; `None` for bypass.
pub fn block_kind(kind: StageKind) -> Option<&'static str> {
    match kind {
        StageKind::Bypass => None,
        StageKind::Bubble => Some("hs_bubble"),
        StageKind::Skid => Some("hs_skid"),
        StageKind::Fifo { .. } => Some("hs_fifo"),
    }
}

/// Renders the module for a stage kind at the given width (`None` for bypass).
pub fn module_for(ctx: &Ctx, kind: StageKind, width: u32) -> Result<Option<Module>, RenderError> {
    let Some(block) = block_kind(kind) else {
        return Ok(None);
    };
    let name = ctx.module_name(block);
    let mut parameters = BTreeMap::from([("Width".to_string(), u64::from(width))]);
    let (rst, stamp) = (ctx.rst.clone(), ctx.stamp.clone());
    let text = match kind {
        StageKind::Bypass => unreachable!("bypass has no module"),
        StageKind::Bubble => render(
            &name,
            &HsBubble {
                name: name.clone(),
                width,
                rst,
                stamp,
            },
        )?,
        StageKind::Skid => render(
            &name,
            &HsSkid {
                name: name.clone(),
                width,
                rst,
                stamp,
            },
        )?,
        StageKind::Fifo { depth } => {
            parameters.insert("Depth".into(), u64::from(depth));
            parameters.insert("ThermoDepth".into(), u64::from(FIFO_THERMO_DEPTH));
            render(
                &name,
                &HsFifo {
                    name: name.clone(),
                    width,
                    depth,
                    thermo_depth: FIFO_THERMO_DEPTH,
                    rst,
                    stamp,
                },
            )?
        }
    };
    Ok(Some(Module {
        name,
        kind: block,
        parameters,
        instantiates: Vec::new(),
        text,
    }))
}
