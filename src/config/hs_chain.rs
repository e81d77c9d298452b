//! `[hs_chain]`: a chain of handshake registers, the first co-simulated unit.

use serde::{Deserialize, Serialize};

use super::error::{Invalid, Seg, path};

pub const MAX_WIDTH: u32 = 4096;
pub const MAX_STAGES: usize = 64;
pub const MAX_FIFO_DEPTH: u32 = 4096;
pub const STAGE_KINDS: &str = "\"bypass\", \"bubble\", \"skid\", \"fifo:N\" (N in 1..=4096)";
pub const WIDTH_ALLOWED: &str = "an integer in 1..=4096";

/// What `stages` accepts; validation and type errors both quote it.
pub fn stages_allowed() -> String {
    format!("an array of 1..=64 stages, each one of {STAGE_KINDS}")
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HsChainSection {
    /// Data bits carried by every stage.
    pub width: u32,
    /// Stage kinds from input to output, e.g. `["skid", "bubble", "fifo:4"]`.
    pub stages: Vec<String>,
}

/// One handshake register kind, as chosen per pipeline boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase", tag = "kind")]
pub enum StageKind {
    /// Wires: valid, ready and data pass straight through.
    Bypass,
    /// Seed 000's bubble-squeezing register: ready_in = ready_out | !valid_q.
    Bubble,
    /// Two-entry skid buffer: every output and in_ready_o come from flops.
    Skid,
    /// FIFO of `depth` entries; in_ready_o and out_valid_o come from flops.
    Fifo { depth: u32 },
}

impl StageKind {
    pub fn parse(text: &str) -> Result<Self, String> {
        match text {
            "bypass" => Ok(Self::Bypass),
            "bubble" => Ok(Self::Bubble),
            "skid" => Ok(Self::Skid),
            _ => {
                let Some(depth) = text.strip_prefix("fifo:") else {
                    return Err(format!("unknown handshake kind {text:?}"));
                };
                // "not a number" and "out of range" call for different fixes: say which.
                match depth.parse::<u32>() {
                    Ok(d) if (1..=MAX_FIFO_DEPTH).contains(&d) => Ok(Self::Fifo { depth: d }),
                    Ok(d) => Err(format!("fifo depth {d} is out of range")),
                    Err(_) => Err(format!("fifo depth {depth:?} is not a number")),
                }
            }
        }
    }

    /// Short name used in stage names and reports.
    pub fn label(&self) -> String {
        match self {
            Self::Bypass => "bypass".into(),
            Self::Bubble => "bubble".into(),
            Self::Skid => "skid".into(),
            Self::Fifo { depth } => format!("fifo:{depth}"),
        }
    }

    /// Transfers per clock with no gaps and no stalls.
    pub fn peak_rate(&self) -> f64 {
        match self {
            Self::Fifo { depth: 1 } => 0.5,
            _ => 1.0,
        }
    }
}

/// The validated chain.
#[derive(Debug, Clone, Serialize)]
pub struct HsChain {
    pub width: u32,
    pub stages: Vec<StageKind>,
}

impl HsChainSection {
    pub fn validate(&self, errs: &mut Vec<Invalid>) -> Option<HsChain> {
        let base = path(&["hs_chain"]);
        let at = |key: &str| {
            let mut p = base.clone();
            p.push(Seg::Key(key.into()));
            p
        };
        let mut ok = true;
        if !(1..=MAX_WIDTH).contains(&self.width) {
            errs.push(Invalid::at(
                &at("width"),
                format!("width {} is out of range", self.width),
                WIDTH_ALLOWED,
            ));
            ok = false;
        }
        if self.stages.is_empty() || self.stages.len() > MAX_STAGES {
            errs.push(Invalid::at(
                &at("stages"),
                format!("{} stages given", self.stages.len()),
                stages_allowed(),
            ));
            ok = false;
        }
        let mut stages = Vec::new();
        for (i, text) in self.stages.iter().enumerate() {
            match StageKind::parse(text) {
                Ok(kind) => stages.push(kind),
                Err(msg) => {
                    let mut p = at("stages");
                    p.push(Seg::Index(i));
                    errs.push(Invalid::at(&p, msg, STAGE_KINDS));
                    ok = false;
                }
            }
        }
        ok.then_some(HsChain {
            width: self.width,
            stages,
        })
    }
}

impl HsChain {
    /// Transfers per clock the chain sustains with no gaps and no stalls.
    pub fn peak_rate(&self) -> f64 {
        self.stages
            .iter()
            .map(StageKind::peak_rate)
            .fold(1.0, f64::min)
    }

    /// Items the chain holds when full (its latency in registers).
    pub fn capacity(&self) -> u32 {
        self.stages
            .iter()
            .map(|s| match s {
                StageKind::Bypass => 0,
                StageKind::Bubble => 1,
                StageKind::Skid => 2,
                StageKind::Fifo { depth } => *depth,
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_kinds() {
        assert_eq!(StageKind::parse("skid"), Ok(StageKind::Skid));
        assert_eq!(StageKind::parse("fifo:4"), Ok(StageKind::Fifo { depth: 4 }));
        assert!(StageKind::parse("fifo:0").is_err());
        assert!(StageKind::parse("fifo:x").is_err());
        assert!(StageKind::parse("fifo").is_err());
        assert!(StageKind::parse("Skid").is_err());
    }

    #[test]
    fn peak_rate_is_half_only_with_a_one_deep_fifo() {
        let chain = |s: &[StageKind]| HsChain {
            width: 8,
            stages: s.to_vec(),
        };
        assert_eq!(
            chain(&[StageKind::Skid, StageKind::Bubble]).peak_rate(),
            1.0
        );
        assert_eq!(
            chain(&[StageKind::Skid, StageKind::Fifo { depth: 1 }]).peak_rate(),
            0.5
        );
    }
}
