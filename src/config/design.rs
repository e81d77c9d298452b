//! `[design]` and `[clock]`: the design's name, module prefix and target clock.

use serde::{Deserialize, Serialize};

use super::error::{Invalid, Seg, path};
use super::verilog_names::{check_identifier, check_prefix};

/// What each key accepts; validation and type errors both quote these.
pub const NAME_ALLOWED: &str =
    "a Verilog identifier: a letter or `_`, then letters, digits or `_`; not a keyword";
pub const PREFIX_ALLOWED: &str =
    "empty, or a letter or `_` followed by letters, digits or `_` (e.g. \"gpu_\")";
pub const TARGET_MHZ_ALLOWED: &str = "a number of MHz in (0, 5000]";

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DesignSection {
    /// Names the output directory, the FuseSoC core and every file header.
    pub name: String,
    /// Prepended to every generated module name (lowRISC's `prim_`, say).
    #[serde(default)]
    pub module_prefix: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockSection {
    /// Target frequency; the constraint writers of later units read it.
    pub target_mhz: f64,
}

impl Default for ClockSection {
    fn default() -> Self {
        Self { target_mhz: 200.0 }
    }
}

impl DesignSection {
    pub fn validate(&self, errs: &mut Vec<Invalid>) {
        if let Err(e) = check_identifier(&self.name) {
            errs.push(Invalid::at(
                &path(&["design", "name"]),
                format!("design name {:?} {e}", self.name),
                NAME_ALLOWED,
            ));
        }
        if let Err(e) = check_prefix(&self.module_prefix) {
            errs.push(Invalid::at(
                &path(&["design", "module_prefix"]),
                format!("module prefix {:?} {e}", self.module_prefix),
                PREFIX_ALLOWED,
            ));
        }
    }
}

impl ClockSection {
    pub fn validate(&self, errs: &mut Vec<Invalid>) {
        let f = self.target_mhz;
        if !(f.is_finite() && f > 0.0 && f <= 5000.0) {
            let p: Vec<Seg> = path(&["clock", "target_mhz"]);
            errs.push(Invalid::at(
                &p,
                format!("target frequency {f} MHz is out of range"),
                TARGET_MHZ_ALLOWED,
            ));
        }
    }
}
