//! `[reset]`: how control state is reset. lowRISC style (async, active low, `rst_ni`)
//! is the default.

use serde::{Deserialize, Serialize};

/// What each key accepts, spelled as TOML (serde's own list uses backquotes).
pub const KIND_ALLOWED: &str = "\"async\" or \"sync\"";
pub const ACTIVE_ALLOWED: &str = "\"low\" (port rst_ni) or \"high\" (port rst_i)";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ResetKind {
    #[default]
    Async,
    Sync,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ResetActive {
    #[default]
    Low,
    High,
}

#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResetSection {
    #[serde(default)]
    pub kind: ResetKind,
    #[serde(default)]
    pub active: ResetActive,
}

impl ResetSection {
    /// The reset port's name: `rst_ni` when active low, `rst_i` when active high.
    pub fn port(&self) -> &'static str {
        match self.active {
            ResetActive::Low => "rst_ni",
            ResetActive::High => "rst_i",
        }
    }
}
