//! The Rust descriptions of the hardware blocks: one struct per module kind, built from
//! the validated config, each rendering one Verilog module through one askama template.

pub mod handshake;
pub mod hs_chain;
pub mod ipu;
pub mod mem_arb;
pub mod mem_mgr;
pub mod tex_cache;
pub mod tex_filter;
pub mod tmu;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::config::{Config, ResetActive, ResetKind, ResetSection};
pub use crate::iface::{Dir, MemPort, Probe, StreamPort};

pub const GENERATOR: &str = concat!("gpurtl ", env!("CARGO_PKG_VERSION"));

/// A rendered Verilog module, one file.
#[derive(Debug, Clone, Serialize)]
pub struct Module {
    pub name: String,
    /// Block kind (`hs_skid`, `hs_chain`, ...): the template and model it comes from.
    pub kind: &'static str,
    /// Parameters and their default values as written in the file.
    pub parameters: BTreeMap<String, u64>,
    /// Names of the modules it instantiates.
    pub instantiates: Vec<String>,
    #[serde(skip)]
    pub text: String,
}

impl Module {
    pub fn file_name(&self) -> String {
        format!("{}.v", self.name)
    }
}

/// A co-simulatable unit: a top module, what it needs, and its stream ports.
#[derive(Debug, Clone, Serialize)]
pub struct Unit {
    pub name: &'static str,
    pub top: String,
    /// Modules in dependency order, top last.
    pub modules: Vec<String>,
    pub ports: Vec<StreamPort>,
    /// Memory read ports, served by the harness's memory model.
    pub mem_ports: Vec<MemPort>,
    /// State registers the co-simulation reports the coverage of.
    pub probes: Vec<Probe>,
}

/// Everything one config generates.
#[derive(Debug, Clone)]
pub struct Design {
    pub name: String,
    /// Unique modules in dependency order: leaves first.
    pub modules: Vec<Module>,
    pub units: Vec<Unit>,
}

impl Design {
    pub fn unit(&self, name: &str) -> Option<&Unit> {
        self.units.iter().find(|u| u.name == name)
    }

    pub fn module(&self, name: &str) -> Option<&Module> {
        self.modules.iter().find(|m| m.name == name)
    }

    /// The modules a unit needs, in dependency order.
    pub fn unit_modules(&self, unit: &Unit) -> Vec<&Module> {
        unit.modules.iter().filter_map(|m| self.module(m)).collect()
    }

    fn add(&mut self, module: Module) {
        // A module kind shared by two units is rendered once.
        if self.module(&module.name).is_none() {
            self.modules.push(module);
        }
    }
}

/// Rendering failed: a template bug, never a user error.
#[derive(Debug, thiserror::Error)]
#[error("rendering {module}: {source}")]
pub struct RenderError {
    pub module: String,
    pub source: askama::Error,
}

/// Elaborates every unit of the config.
pub fn elaborate(cfg: &Config) -> Result<Design, RenderError> {
    let ctx = Ctx::new(cfg);
    let mut design = Design {
        name: cfg.design.name.clone(),
        modules: Vec::new(),
        units: Vec::new(),
    };
    if let Some(chain) = &cfg.hs_chain {
        let (unit, modules) = hs_chain::HsChainTop::new(&ctx, chain).elaborate()?;
        for m in modules {
            design.add(m);
        }
        design.units.push(unit);
    }
    if let Some(tmu) = &cfg.tmu {
        let (unit, modules) = tex_cache::TexCacheTop::new(&ctx, &tmu.cache).elaborate(&ctx)?;
        for m in modules {
            design.add(m);
        }
        design.units.push(unit);
        let (unit, modules) = tex_filter::TexFilter::new(&ctx, tmu).elaborate(&ctx)?;
        for m in modules {
            design.add(m);
        }
        design.units.push(unit);
        let (unit, modules) = tmu::TmuUnit::new(&ctx, tmu).elaborate()?;
        for m in modules {
            design.add(m);
        }
        design.units.push(unit);
    }
    if let Some(mem) = &cfg.mem {
        let (unit, modules) = mem_arb::MemArb::new(&ctx, mem).elaborate(&ctx, mem)?;
        for m in modules {
            design.add(m);
        }
        design.units.push(unit);
        if let Some(map) = &mem.map {
            let (unit, modules) = mem_mgr::MemMgr::new(&ctx, map).elaborate()?;
            for m in modules {
                design.add(m);
            }
            design.units.push(unit);
        }
    }
    if let Some(ipu) = &cfg.ipu {
        let (unit, modules) = ipu::IpuUnit::new(&ctx, ipu).elaborate()?;
        for m in modules {
            design.add(m);
        }
        design.units.push(unit);
    }
    Ok(design)
}

/// The read/write memory ports of a unit (served by the harness's read/write memory
/// model); only `mem_arb` has one.
pub fn rw_mem_ports(cfg: &Config, unit: &str) -> Vec<mem_arb::RwMemPort> {
    match (unit, &cfg.mem) {
        ("mem_arb", Some(mem)) => vec![mem_arb::rw_mem_port(mem)],
        _ => Vec::new(),
    }
}

/// What every block needs from the config besides its own section.
#[derive(Debug, Clone)]
pub struct Ctx {
    pub prefix: String,
    pub rst: Rst,
    /// The comment line that opens every file.
    pub stamp: String,
}

impl Ctx {
    pub fn new(cfg: &Config) -> Self {
        Self {
            prefix: cfg.design.module_prefix.clone(),
            rst: Rst::new(&cfg.reset),
            stamp: stamp(cfg),
        }
    }

    pub fn module_name(&self, kind: &str) -> String {
        format!("{}{}", self.prefix, kind)
    }
}

/// The comment line that opens every generated file: generator version and config hash.
pub fn stamp(cfg: &Config) -> String {
    format!(
        "// Generated by {GENERATOR} from config \"{}\" (sha256 {}). Do not edit.",
        cfg.design.name,
        cfg.short_hash()
    )
}

/// The reset as templates spell it.
#[derive(Debug, Clone)]
pub struct Rst {
    /// Port name: `rst_ni` or `rst_i`.
    pub port: &'static str,
    /// Appended to `posedge clk_i` in a sensitivity list: empty for a sync reset.
    pub edge: String,
    /// The expression that is true while reset is asserted.
    pub active: String,
    /// Spaces that align `.rst_ni` with the other named connections.
    pub pad: String,
}

impl Rst {
    pub fn new(reset: &ResetSection) -> Self {
        let port = reset.port();
        let edge = match (reset.kind, reset.active) {
            (ResetKind::Sync, _) => String::new(),
            (ResetKind::Async, ResetActive::Low) => format!(" or negedge {port}"),
            (ResetKind::Async, ResetActive::High) => format!(" or posedge {port}"),
        };
        let active = match reset.active {
            ResetActive::Low => format!("!{port}"),
            ResetActive::High => port.to_string(),
        };
        Self {
            port,
            edge,
            active,
            pad: " ".repeat("out_valid_o".len() - port.len()),
        }
    }
}

/// Renders an askama template and restores the final newline askama drops.
pub fn render<T: askama::Template>(name: &str, t: &T) -> Result<String, RenderError> {
    let mut text = t.render().map_err(|source| RenderError {
        module: name.to_string(),
        source,
    })?;
    text.push('\n');
    Ok(text)
}
