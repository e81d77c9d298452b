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
pub const FAMILY_ALLOWED: &str = "\"ecp5\", \"ice40\", \"xilinx7\" or \"asic\" (default \"ecp5\"): the delay table that sets pipeline depths";

/// The device family the design is built for. Pipeline depths are scheduled against its
/// delay table (`iface::timing`), so the same `target_mhz` gives a deeper pipeline on a
/// slower family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// Lattice ECP5, speed grade 6 (the flow's default device, LFE5U-85F).
    #[default]
    Ecp5,
    /// Lattice iCE40 HX.
    Ice40,
    /// AMD/Xilinx 7 series, speed grade -1.
    Xilinx7,
    /// Standard cells (the OSU 0.18 um library the ASIC flow maps to).
    Asic,
}

impl Family {
    pub fn label(self) -> &'static str {
        match self {
            Family::Ecp5 => "ecp5",
            Family::Ice40 => "ice40",
            Family::Xilinx7 => "xilinx7",
            Family::Asic => "asic",
        }
    }
}

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
    /// Target frequency: the SDC's clock, and what pipeline depths are scheduled for.
    pub target_mhz: f64,
    /// The family whose delays the schedule uses.
    #[serde(default)]
    pub family: Family,
}

impl Default for ClockSection {
    fn default() -> Self {
        Self {
            target_mhz: 200.0,
            family: Family::Ecp5,
        }
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
