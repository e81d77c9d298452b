//! TOML config: schema (serde, `deny_unknown_fields`), semantic validation, derived values.
//!
//! Every error names the key path, its line and column, and what is allowed.

mod design;
mod error;
mod hs_chain;
mod reset;
pub mod verilog_names;

use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use toml::de::{DeTable, DeValue};

pub use design::{ClockSection, DesignSection};
pub use error::{ConfigError, Invalid, Seg, path};
pub use hs_chain::{HsChain, HsChainSection, STAGE_KINDS, StageKind};
pub use reset::{ResetActive, ResetKind, ResetSection};

/// The preset compiled into the binary, used when no `--config` is given.
pub const DEFAULT_TOML: &str = include_str!("../../configs/default.toml");
pub const DEFAULT_ORIGIN: &str = "<embedded configs/default.toml>";

/// The file as written: serde's view of the TOML.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawConfig {
    pub design: DesignSection,
    #[serde(default)]
    pub clock: ClockSection,
    #[serde(default)]
    pub reset: ResetSection,
    pub hs_chain: Option<HsChainSection>,
}

/// A validated config with its derived values; everything downstream reads this.
#[derive(Debug, Clone, Serialize)]
pub struct Config {
    pub design: DesignSection,
    pub clock: ClockSection,
    pub reset: ResetSection,
    pub hs_chain: Option<HsChain>,
    /// SHA-256 of the canonical form of the config (comments and layout do not count).
    pub hash: String,
    /// Where the TOML came from, for messages.
    #[serde(skip)]
    pub origin: String,
}

impl Config {
    /// The first 12 hex digits of the hash, as file headers show it.
    pub fn short_hash(&self) -> &str {
        &self.hash[..12]
    }

    /// Names of the co-simulatable units this config describes, in a fixed order.
    pub fn unit_names(&self) -> Vec<&'static str> {
        let mut units = Vec::new();
        if self.hs_chain.is_some() {
            units.push("hs_chain");
        }
        units
    }
}

/// All problems found in one config.
#[derive(Debug, Clone)]
pub struct ConfigErrors(pub Vec<ConfigError>);

impl fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "error: {e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigErrors {}

/// Reading a config: either the file cannot be read, or it is wrong.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read config {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Invalid(ConfigErrors),
}

/// Loads the file at `path`, or the embedded default when `path` is `None`.
pub fn load(path: Option<&Path>) -> Result<Config, LoadError> {
    match path {
        None => parse(DEFAULT_TOML, DEFAULT_ORIGIN).map_err(LoadError::Invalid),
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|source| LoadError::Io {
                path: p.display().to_string(),
                source,
            })?;
            parse(&text, &p.display().to_string()).map_err(LoadError::Invalid)
        }
    }
}

/// Parses and validates TOML text; `origin` names it in messages.
pub fn parse(src: &str, origin: &str) -> Result<Config, ConfigErrors> {
    let raw = deserialize(src, origin).map_err(|e| ConfigErrors(vec![e]))?;
    let mut invalid = Vec::new();
    raw.design.validate(&mut invalid);
    raw.clock.validate(&mut invalid);
    let hs_chain = raw.hs_chain.as_ref().and_then(|c| c.validate(&mut invalid));
    if raw.hs_chain.is_none() {
        invalid.push(Invalid::at(
            &[],
            "the config describes no unit",
            "at least one unit section: [hs_chain]",
        ));
    }
    if !invalid.is_empty() {
        return Err(locate_all(src, origin, invalid));
    }
    let canonical = serde_json::to_string(&raw).unwrap_or_default();
    let hash = Sha256::digest(canonical.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok(Config {
        design: raw.design,
        clock: raw.clock,
        reset: raw.reset,
        hs_chain,
        hash,
        origin: origin.to_string(),
    })
}

fn deserialize(src: &str, origin: &str) -> Result<RawConfig, ConfigError> {
    let de = toml::de::Deserializer::parse(src).map_err(|e| from_toml(src, origin, "", &e))?;
    serde_path_to_error::deserialize(de).map_err(|e| {
        let key = e.path().to_string();
        let key = if key == "." { String::new() } else { key };
        from_toml(src, origin, &key, e.inner())
    })
}

/// Turns toml's error into ours, splitting serde's ", expected ..." into `allowed`.
fn from_toml(src: &str, origin: &str, key: &str, e: &toml::de::Error) -> ConfigError {
    let msg = e.message().trim();
    let (message, allowed) = match msg.split_once(", expected ") {
        Some((m, a)) => (m.to_string(), Some(a.to_string())),
        None => (msg.to_string(), None),
    };
    ConfigError::new(origin, src, key.to_string(), e.span(), message, allowed)
}

fn locate_all(src: &str, origin: &str, invalid: Vec<Invalid>) -> ConfigErrors {
    let doc = DeTable::parse(src).ok();
    let errors = invalid
        .into_iter()
        .map(|inv| {
            let span = doc.as_ref().and_then(|d| locate(d.get_ref(), &inv.path));
            ConfigError::new(
                origin,
                src,
                error::render_path(&inv.path),
                span,
                inv.message,
                inv.allowed,
            )
        })
        .collect();
    ConfigErrors(errors)
}

/// The span of the value at `path`, or of the deepest enclosing item that exists.
fn locate(doc: &DeTable<'_>, path: &[Seg]) -> Option<std::ops::Range<usize>> {
    let Some((Seg::Key(first), rest)) = path.split_first() else {
        return None;
    };
    let (_, mut value) = doc.iter().find(|(k, _)| k.get_ref() == first)?;
    for seg in rest {
        let next = match (seg, value.get_ref()) {
            (Seg::Key(k), DeValue::Table(_)) => value.get_ref().get(k.as_str()),
            (Seg::Index(i), DeValue::Array(_)) => value.get_ref().get(*i),
            _ => None,
        };
        match next {
            Some(v) => value = v,
            None => break,
        }
    }
    Some(value.span())
}
