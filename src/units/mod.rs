//! The one list of co-simulatable units. Each unit ties its RTL description (`rtl/`) to
//! its model (`model/`) behind [`UnitDef`]; generation, `gpurtl units`, the vector writer
//! and the co-simulation driver iterate [`UNITS`] instead of matching names.
//!
//! This is the only place that sees both sides: `rtl/` and `model/` meet here and in
//! `iface/` (the contract), never in each other.

mod gpu;
mod hs_chain;
mod ipu;
mod mem_arb;
mod mem_mgr;
mod tex_cache;
mod tex_filter;
mod tmu;

use crate::config::Config;
use crate::model::Expectation;
use crate::rtl::mem_arb::RwMemPort;
use crate::rtl::{self, Ctx, Design, Module, RenderError, Unit};
use crate::vectors::VectorSet;

/// A unit kind: everything the tool does with one unit, given a validated config.
pub trait UnitDef: Sync {
    /// The name `-u` takes; also the block's name in `rtl/`, `model/` and `templates/`.
    fn name(&self) -> &'static str;

    /// The unit's RTL: ports, top module and the modules it needs, leaves first. `None`
    /// when the config has no such unit.
    fn elaborate(
        &self,
        ctx: &Ctx,
        cfg: &Config,
    ) -> Option<Result<(Unit, Vec<Module>), RenderError>>;

    /// The model's stimulus and expected output for `count` items. `workload` is one of
    /// [`UnitDef::workloads`] (checked by the caller) or `None` for the unit's default mix.
    fn vectors(
        &self,
        cfg: &Config,
        count: usize,
        seed: u64,
        workload: Option<&str>,
    ) -> Option<VectorSet>;

    /// What the model expects of these vectors' timing under the given gaps and stalls.
    /// `unit` is this unit as elaborated: its capacity starts from its stage list.
    fn expectation(
        &self,
        cfg: &Config,
        unit: &Unit,
        v: &VectorSet,
        gap: f64,
        stall: f64,
    ) -> Expectation;

    /// The traffic names `--workload` accepts; empty when the unit has one traffic.
    fn workloads(&self) -> Vec<&'static str> {
        Vec::new()
    }

    /// Read/write memory ports the harness serves with its read/write memory model.
    fn rw_mem_ports(&self, _cfg: &Config) -> Vec<RwMemPort> {
        Vec::new()
    }

    /// Extra lines for `gpurtl units` and `gpurtl check` (worst-case waits, maps).
    fn notes(&self, _cfg: &Config) -> Vec<String> {
        Vec::new()
    }
}

/// Every unit, in the order a design lists them (and `files.f` their modules).
pub static UNITS: &[&dyn UnitDef] = &[
    &hs_chain::HsChain,
    &tex_cache::TexCache,
    &tex_filter::TexFilter,
    &tmu::Tmu,
    &mem_arb::MemArb,
    &mem_mgr::MemMgr,
    &ipu::Ipu,
    &gpu::Gpu,
];

/// The unit kind called `name`, whether or not a given config has it.
pub fn find(name: &str) -> Option<&'static dyn UnitDef> {
    UNITS.iter().copied().find(|u| u.name() == name)
}

/// Elaborates every unit of the config into one design; a module two units share is
/// rendered once.
pub fn elaborate(cfg: &Config) -> Result<Design, RenderError> {
    let ctx = Ctx::new(cfg);
    let mut design = Design {
        name: cfg.design.name.clone(),
        modules: Vec::new(),
        units: Vec::new(),
    };
    for def in UNITS {
        let Some(elaborated) = def.elaborate(&ctx, cfg) else {
            continue;
        };
        let (unit, modules) = elaborated?;
        for m in modules {
            design.add(m);
        }
        design.units.push(unit);
    }
    for k in 0..design.units.len() {
        let stages = rtl::stages::of(&design, &design.units[k]).map_err(|e| RenderError {
            module: e.module.clone(),
            source: askama::Error::Custom(Box::new(e)),
        })?;
        design.units[k].stages = stages;
    }
    Ok(design)
}

/// The model's vectors for unit `name`; `None` for a unit the config does not have.
pub fn vectors(
    cfg: &Config,
    name: &str,
    count: usize,
    seed: u64,
    workload: Option<&str>,
) -> Option<VectorSet> {
    find(name)?.vectors(cfg, count, seed, workload)
}

/// The model's timing expectation for an elaborated unit; a unit with no model expects
/// nothing.
pub fn expectation(cfg: &Config, unit: &Unit, v: &VectorSet, gap: f64, stall: f64) -> Expectation {
    find(unit.name).map_or_else(Expectation::none, |u| {
        u.expectation(cfg, unit, v, gap, stall)
    })
}

/// The read/write memory ports of unit `name`.
pub fn rw_mem_ports(cfg: &Config, name: &str) -> Vec<RwMemPort> {
    find(name).map_or_else(Vec::new, |u| u.rw_mem_ports(cfg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_elaborated_unit_is_listed() {
        let mut names: Vec<&str> = UNITS.iter().map(|u| u.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), UNITS.len(), "a unit name is listed twice");
        let cfg =
            crate::config::parse(crate::config::DEFAULT_TOML, "default").expect("default config");
        let design = elaborate(&cfg).expect("elaborates");
        let listed: Vec<&str> = UNITS.iter().map(|u| u.name()).collect();
        let made: Vec<&str> = design.units.iter().map(|u| u.name).collect();
        assert_eq!(
            made, listed,
            "the default config has every unit, in list order"
        );
        for u in &design.units {
            let def = find(u.name).expect("listed");
            let v = def
                .vectors(&cfg, 8, 1, None)
                .expect("the model has vectors");
            assert_eq!(v.unit, u.name, "vectors name their unit");
            for p in &u.ports {
                let port = v
                    .port(&p.name)
                    .unwrap_or_else(|| panic!("{}: no vectors for port {}", u.name, p.name));
                assert_eq!(
                    port.port.width, p.width,
                    "{}.{}: vector width",
                    u.name, p.name
                );
            }
        }
    }
}
