//! A unit's stage list: the handshake registers (skid, bubble, FIFO) its module hierarchy
//! instantiates, read from the rendered modules, so the items a unit can hold follow from
//! what it is built of instead of a number typed beside it.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Design, Module, Unit};

/// One handshake register of a unit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Stage {
    /// Instance path from the top, `u_cache.u_pass_queue`.
    pub path: String,
    /// Module kind: `hs_skid`, `hs_bubble`, `hs_fifo` or `hs_ram_fifo`.
    pub kind: &'static str,
    /// Items it holds when full.
    pub holds: u64,
}

/// Why a stage list could not be read: a generator bug, which tests report.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("stage list of {module}: {what}")]
pub struct StageError {
    pub module: String,
    pub what: String,
}

/// The handshake registers under `unit`'s top module, in instance order.
pub fn of(design: &Design, unit: &Unit) -> Result<Vec<Stage>, StageError> {
    let top = design.module(&unit.top).ok_or_else(|| StageError {
        module: unit.top.clone(),
        what: "the top module is not in the design".into(),
    })?;
    let mut out = Vec::new();
    let params = top
        .parameters
        .iter()
        .map(|(k, v)| (k.clone(), Some(*v)))
        .collect();
    walk(design, top, &params, "", &mut out)?;
    Ok(out)
}

/// An instantiation in a module's text.
struct Instance<'a> {
    module: &'a Module,
    name: String,
    overrides: Vec<(String, String)>,
    /// Copies a generate loop makes: the product of the enclosing `for` bounds (`Err`
    /// with the loop's text where a bound is not a number or a parameter).
    copies: Result<u64, String>,
}

fn walk(
    design: &Design,
    m: &Module,
    params: &BTreeMap<String, Option<u64>>,
    prefix: &str,
    out: &mut Vec<Stage>,
) -> Result<(), StageError> {
    let err = |what: String| StageError {
        module: m.name.clone(),
        what,
    };
    // Parameters and the localparams with a literal value; `None` for one whose value
    // this reader cannot know (an expression), which is an error only where it is used.
    let mut known = params.clone();
    known.extend(
        super::align::localparams(&m.text)
            .into_iter()
            .map(|(k, v)| (k, Some(v))),
    );
    for inst in instances(design, m, &known) {
        let mut child: BTreeMap<String, Option<u64>> = inst
            .module
            .parameters
            .iter()
            .map(|(k, v)| (k.clone(), Some(*v)))
            .collect();
        for (name, expr) in &inst.overrides {
            child.insert(name.clone(), resolve(expr, &known));
        }
        let path = format!("{prefix}{}", inst.name);
        let holds = match inst.module.kind {
            "hs_skid" => Some(2),
            "hs_bubble" => Some(1),
            "hs_fifo" | "hs_ram_fifo" => {
                Some(child.get("Depth").and_then(|d| *d).ok_or_else(|| {
                    err(format!(
                        "{path}: a FIFO whose Depth is not a number or a parameter"
                    ))
                })?)
            }
            _ => None,
        };
        let mut inner = Vec::new();
        match holds {
            Some(holds) => inner.push(Stage {
                path,
                kind: inst.module.kind,
                holds,
            }),
            None => walk(design, inst.module, &child, &format!("{path}."), &mut inner)?,
        }
        if inner.is_empty() {
            continue;
        }
        let copies = inst.copies.clone().map_err(|l| {
            err(format!(
                "{}: in a generate loop of unknown length: {l}",
                inst.name
            ))
        })?;
        for k in 0..copies {
            out.extend(inner.iter().map(|s| Stage {
                // Generate copies are named by index, as the simulators name them.
                path: if copies > 1 {
                    format!("{}[{k}]", s.path)
                } else {
                    s.path.clone()
                },
                ..s.clone()
            }));
        }
    }
    Ok(())
}

fn resolve(expr: &str, known: &BTreeMap<String, Option<u64>>) -> Option<u64> {
    let e = expr.trim();
    e.parse().ok().or_else(|| known.get(e).copied().flatten())
}

/// The instantiations of design modules in `m`'s text: `<module> #( .P (v), ... ) u_x (`
/// or `<module> u_x (`.
fn instances<'a>(
    design: &'a Design,
    m: &Module,
    known: &BTreeMap<String, Option<u64>>,
) -> Vec<Instance<'a>> {
    let lines: Vec<&str> = m.text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let body = line.trim_start();
        let indent = line.len() - body.len();
        let mut words = body.split_whitespace();
        let (Some(first), Some(second)) = (words.next(), words.next()) else {
            i += 1;
            continue;
        };
        let Some(module) = design.module(first).filter(|_| first != m.name) else {
            i += 1;
            continue;
        };
        let copies = generate_copies(&lines[..i], indent, known);
        let mut overrides = Vec::new();
        let name = if second == "#(" {
            // Parameter overrides up to `) u_x (`.
            let mut name = None;
            i += 1;
            while i < lines.len() {
                let l = lines[i].trim();
                if let Some(rest) = l.strip_prefix(')') {
                    name = rest.split_whitespace().next().map(str::to_string);
                    break;
                }
                if let Some((pname, rest)) = l.strip_prefix('.').and_then(|p| p.split_once('(')) {
                    let value = rest.trim_end_matches(',').trim_end().trim_end_matches(')');
                    overrides.push((pname.trim().to_string(), value.to_string()));
                }
                i += 1;
            }
            name
        } else {
            Some(second.to_string())
        };
        if let Some(name) = name {
            out.push(Instance {
                module,
                name,
                overrides,
                copies,
            });
        }
        i += 1;
    }
    out
}

/// The copies the generate loops around a statement at `indent` make: the enclosing
/// openers are the lines above it at smaller indentation, up to module level (2).
fn generate_copies(
    above: &[&str],
    indent: usize,
    known: &BTreeMap<String, Option<u64>>,
) -> Result<u64, String> {
    let mut copies = 1u64;
    let mut level = indent;
    for line in above.iter().rev() {
        let body = line.trim_start();
        let at = line.len() - body.len();
        if body.is_empty() || at >= level {
            continue;
        }
        if at <= 2 {
            break;
        }
        level = at;
        if let Some(head) = body.strip_prefix("for (") {
            if body.ends_with(": g_slice") {
                // Slices of one datapath in lockstep (hs_chain): they hold the same
                // items, so a slice's registers are counted once.
                continue;
            }
            // `for (g = 0; g < Bound; g = g + 1) begin`
            let parts: Vec<&str> = head.split(';').collect();
            let bound = match parts.as_slice() {
                [init, cond, ..] if init.trim().ends_with("= 0") => cond
                    .split_once('<')
                    .map(|(_, b)| b.trim())
                    .filter(|b| !b.starts_with('=')),
                _ => None,
            };
            let n = bound
                .and_then(|b| resolve(b, known))
                .ok_or_else(|| body.to_string())?;
            copies *= n;
        }
        // `if (...) begin` and plain `begin` blocks make one copy at most.
    }
    Ok(copies)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config;

    #[test]
    fn the_default_units_list_their_registers() {
        let cfg = config::parse(config::DEFAULT_TOML, "default").expect("default");
        let ctx = super::super::Ctx::new(&cfg);
        let mut design = Design {
            name: "default".into(),
            modules: Vec::new(),
            units: Vec::new(),
        };
        let chain = cfg.hs_chain.as_ref().expect("chain");
        let tmu = cfg.tmu.as_ref().expect("tmu");
        for (unit, modules) in [
            super::super::hs_chain::HsChainTop::new(&ctx, chain).elaborate(),
            super::super::tmu::TmuUnit::new(&ctx, tmu).elaborate(),
        ]
        .into_iter()
        .map(|r| r.expect("elaborates"))
        {
            modules.into_iter().for_each(|m| design.add(m));
            design.units.push(unit);
        }
        let chain = design.unit("hs_chain").expect("hs_chain");
        let stages = of(&design, chain).expect("stage list");
        let kinds: Vec<&str> = stages.iter().map(|s| s.kind).collect();
        let want: Vec<&str> = cfg
            .hs_chain
            .as_ref()
            .expect("chain")
            .stages
            .iter()
            .filter_map(|k| super::super::handshake::block_kind(*k))
            .collect();
        assert_eq!(kinds, want);
        let held: u64 = stages.iter().map(|s| s.holds).sum();
        assert_eq!(
            held,
            u64::from(cfg.hs_chain.as_ref().expect("chain").capacity())
        );
        // The tmu reaches its cache's pass queue through u_cache, at the cache's depth.
        let tmu = design.unit("tmu").expect("tmu");
        let stages = of(&design, tmu).expect("stage list");
        let queue = stages
            .iter()
            .find(|s| s.path == "u_cache.u_pass_queue")
            .expect("the cache's pass queue");
        assert_eq!(
            queue.holds,
            u64::from(cfg.tmu.as_ref().expect("tmu").cache.queue_depth)
        );
        for u in &design.units {
            of(&design, u).unwrap_or_else(|e| panic!("{}: {e}", u.name));
        }
    }
}
