//! TOML config: schema (serde, `deny_unknown_fields`), semantic validation, derived values.
//!
//! Every error names the key path, its line and column, and what is allowed.

mod design;
mod error;
pub mod gpu;
mod hs_chain;
pub mod ipu;
mod mem;
mod reset;
mod tmu;
pub mod verilog_names;

use std::fmt;
use std::ops::Range;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

pub use design::{ClockSection, DesignSection, Family};
pub use error::{ConfigError, Invalid, Seg, path};
pub use gpu::{Gpu, GpuSection, Serves};
pub use hs_chain::{HsChain, HsChainSection, STAGE_KINDS, StageKind};
pub use ipu::{Convolution, Fixed, Ipu, IpuSection, PixelMap};
pub use mem::{
    ADDR_BITS, Access, DEFAULT_LATENCY as DEFAULT_MEM_LATENCY, MapSection, Mem, MemMap, MemSection,
    Policy, Requester, RequesterSection, clog2, reads_in_flight,
};
pub use reset::{ResetActive, ResetKind, ResetSection};
pub use tmu::{
    CacheSection, CacheShape, Filter, FilterProducts, MAX_LINES, Replacement, TexCache, TexFormat,
    TexLayout, TexOutput, Tmu, TmuSection, Wrap,
};

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
    pub tmu: Option<TmuSection>,
    /// Absent from the canonical form when absent, so older configs keep their hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mem: Option<MemSection>,
    // Skipped when absent so that configs without [ipu] keep their hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ipu: Option<IpuSection>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<GpuSection>,
}

/// A validated config with its derived values; everything downstream reads this.
#[derive(Debug, Clone, Serialize)]
pub struct Config {
    pub design: DesignSection,
    pub clock: ClockSection,
    pub reset: ResetSection,
    pub hs_chain: Option<HsChain>,
    pub tmu: Option<Tmu>,
    pub mem: Option<Mem>,
    pub ipu: Option<Ipu>,
    /// The GPU top, when the config has `[ipu]`, `[tmu]` and `[mem]`.
    pub gpu: Option<Gpu>,
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
    // The io::Error is part of the message, not a `source`, so it prints once.
    #[error("cannot read config {path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error("{0}")]
    Invalid(ConfigErrors),
}

/// Loads the file at `path`, or the embedded default when `path` is `None`.
pub fn load(path: Option<&Path>) -> Result<Config, LoadError> {
    match path {
        None => parse(DEFAULT_TOML, DEFAULT_ORIGIN).map_err(LoadError::Invalid),
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|error| LoadError::Io {
                path: p.display().to_string(),
                error,
            })?;
            parse(&text, &p.display().to_string()).map_err(LoadError::Invalid)
        }
    }
}

/// Parses and validates TOML text; `origin` names it in messages.
pub fn parse(src: &str, origin: &str) -> Result<Config, ConfigErrors> {
    let raw = deserialize(src, origin)?;
    let mut invalid = Vec::new();
    raw.design.validate(&mut invalid);
    raw.clock.validate(&mut invalid);
    let hs_chain = raw.hs_chain.as_ref().and_then(|c| c.validate(&mut invalid));
    let tmu = raw.tmu.as_ref().and_then(|t| t.validate(&mut invalid));
    let mem = raw.mem.as_ref().and_then(|m| m.validate(&mut invalid));
    let ipu = raw.ipu.as_ref().and_then(|t| t.validate(&mut invalid));
    // Only on valid units: a binding's check reads what they make.
    let gpu = if invalid.is_empty() {
        gpu::validate(
            raw.gpu.as_ref(),
            ipu.as_ref(),
            tmu.as_ref(),
            mem.as_ref(),
            &mut invalid,
        )
    } else {
        None
    };
    if raw.hs_chain.is_none() && raw.tmu.is_none() && raw.mem.is_none() && raw.ipu.is_none() {
        invalid.push(Invalid::at(
            &[],
            "the config describes no unit",
            "at least one unit section: [hs_chain], [tmu.cache], [mem], [ipu]",
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
        tmu,
        mem,
        ipu,
        gpu,
        hash,
        origin: origin.to_string(),
    })
}

fn deserialize(src: &str, origin: &str) -> Result<RawConfig, ConfigErrors> {
    // Best-effort parse first: every syntax error is reported, and the recovered document
    // names the key each one sits in.
    let (doc, syntax) = DeTable::parse_recoverable(src);
    if !syntax.is_empty() {
        let errors = syntax
            .iter()
            .map(|e| syntax_error(src, origin, doc.get_ref(), e))
            .collect();
        return Err(ConfigErrors(errors));
    }
    serde_path_to_error::deserialize(toml::de::Deserializer::from(doc)).map_err(|e| {
        let key = e.path().to_string();
        let key = if key == "." { String::new() } else { key };
        ConfigErrors(vec![schema_error(src, origin, key, e.inner())])
    })
}

/// Splits toml's and serde's "<what>, expected <allowed>" into its two halves.
fn split_expected(msg: &str) -> (String, Option<String>) {
    match msg.trim().split_once(", expected ") {
        Some((m, a)) => (m.to_string(), Some(a.to_string())),
        None => (msg.trim().to_string(), None),
    }
}

/// A TOML syntax error, named by the key it sits in.
fn syntax_error(src: &str, origin: &str, doc: &DeTable<'_>, e: &toml::de::Error) -> ConfigError {
    let (mut message, mut allowed) = split_expected(e.message());
    let mut span = e.span();
    let offset = span.as_ref().map_or(0, |s| s.start).min(src.len());
    let (key, value_span) = key_at(doc, src, offset);
    let quote = match message.as_str() {
        "invalid basic string" => Some('"'),
        "invalid literal string" => Some('\''),
        _ => None,
    };
    if let Some(q) = quote.filter(|q| allowed.as_deref() == Some(format!("`{q}`").as_str())) {
        // toml says "invalid basic string, expected `\"`" and points past the line's end;
        // the fix is a closing quote, so say that and point at the opening one.
        message = "unterminated string".into();
        allowed = Some(format!("a closing `{q}` on the same line"));
        span = value_span.or(span);
    } else if message == "duplicate key" {
        // toml's recovery keeps the first definition: say where it is (a table header
        // repeated may instead have been recorded at the repeat, so check it comes first).
        if let Some((first, true)) = locate(doc, &key) {
            let (line, _) = error::line_col(src, first.start.min(src.len()));
            if line < error::line_col(src, offset).0 {
                message = format!("duplicate key: already set on line {line}");
            }
        }
    } else if message == "string values must be quoted" {
        // toml's "expected literal string" assumes a string was meant; say what the key takes.
        allowed = accepts(&error::render_path(&key)).or(allowed);
    }
    ConfigError::new(
        origin,
        src,
        error::render_path(&key),
        span,
        message,
        allowed,
    )
}

/// A schema error from serde at `key`. A missing field is named by its own path, and what
/// is allowed comes from [`accepts`] when it knows the key, since serde can only name the
/// Rust type (`u32`, `a sequence`).
fn schema_error(src: &str, origin: &str, key: String, e: &toml::de::Error) -> ConfigError {
    let (mut message, expected) = split_expected(e.message());
    // A key missing from the root has no better place than the whole document.
    let span = if key.is_empty() { None } else { e.span() };
    let mut key = key;
    let missing = message
        .strip_prefix("missing field `")
        .and_then(|m| m.strip_suffix('`'))
        .map(str::to_string);
    if let Some(field) = missing {
        key = if key.is_empty() {
            field
        } else {
            format!("{key}.{field}")
        };
        message = "required key is missing".into();
    }
    let allowed = accepts(&key).or(expected);
    ConfigError::new(origin, src, key, span, message, allowed)
}

/// What a key accepts, for any key of the schema; `None` for keys it does not have.
fn accepts(key: &str) -> Option<String> {
    // Array indices do not change what an element accepts: `stages[3]` is `stages[]`.
    let mut general = String::new();
    let mut in_index = false;
    for c in key.chars() {
        match c {
            '[' => {
                in_index = true;
                general.push_str("[]");
            }
            ']' => in_index = false,
            _ if in_index => {}
            _ => general.push(c),
        }
    }
    let allowed = match general.as_str() {
        "design" => "a [design] table with `name` and, optionally, `module_prefix`",
        "design.name" => design::NAME_ALLOWED,
        "design.module_prefix" => design::PREFIX_ALLOWED,
        "clock" => "a [clock] table with `target_mhz` and, optionally, `family`",
        "clock.target_mhz" => design::TARGET_MHZ_ALLOWED,
        "clock.family" => design::FAMILY_ALLOWED,
        "reset" => "a [reset] table with `kind` and `active`",
        "reset.kind" => reset::KIND_ALLOWED,
        "reset.active" => reset::ACTIVE_ALLOWED,
        "hs_chain" => "a [hs_chain] table with `width` and `stages`",
        "hs_chain.width" => hs_chain::WIDTH_ALLOWED,
        "hs_chain.stages" => return Some(hs_chain::stages_allowed()),
        "hs_chain.stages[]" => STAGE_KINDS,
        "tmu" => {
            "a [tmu] table with lanes, formats, weight_bits, output, filter_products, textures, mip_levels, filters, wraps and a [tmu.cache] table"
        }
        "tmu.lanes" => tmu::LANES_ALLOWED,
        "tmu.formats" => tmu::FORMATS_ALLOWED,
        "tmu.formats[]" => tmu::FORMAT_ALLOWED,
        "tmu.weight_bits" => tmu::WEIGHT_BITS_ALLOWED,
        "tmu.output" => tmu::OUTPUT_ALLOWED,
        "tmu.filter_products" => tmu::FILTER_PRODUCTS_ALLOWED,
        "tmu.textures" => tmu::TEXTURES_ALLOWED,
        "tmu.mip_levels" => tmu::MIP_LEVELS_ALLOWED,
        "tmu.filters" | "tmu.filters[]" => tmu::FILTERS_ALLOWED,
        "tmu.wraps" | "tmu.wraps[]" => tmu::WRAPS_ALLOWED,
        "tmu.cache" => {
            "a [tmu.cache] table with size_bytes, line_bytes, ways, banks, ports, mshr_entries, replacement, bus_bits, layout"
        }
        "tmu.cache.size_bytes" => tmu::SIZE_ALLOWED,
        "tmu.cache.line_bytes" => tmu::LINE_ALLOWED,
        "tmu.cache.ways" => tmu::WAYS_ALLOWED,
        "tmu.cache.banks" => tmu::BANKS_ALLOWED,
        "tmu.cache.ports" => tmu::PORTS_ALLOWED,
        "tmu.cache.mshr_entries" => tmu::MSHR_ALLOWED,
        "tmu.cache.replacement" => tmu::REPLACEMENT_ALLOWED,
        "tmu.cache.bus_bits" => tmu::BUS_ALLOWED,
        "tmu.cache.layout" => tmu::LAYOUT_ALLOWED,
        "tmu.cache.queue_depth" => tmu::QUEUE_ALLOWED,
        "tmu.cache.tag_ports" => tmu::TAG_PORTS_ALLOWED,
        "mem" => {
            "a [mem] table with data_bits, max_burst, policy, optional latency and outstanding_reads, [[mem.requesters]] and an optional [mem.map]"
        }
        "mem.data_bits" => mem::DATA_BITS_ALLOWED,
        "mem.max_burst" => mem::MAX_BURST_ALLOWED,
        "mem.policy" => mem::POLICY_ALLOWED,
        "mem.latency" => mem::LATENCY_ALLOWED,
        "mem.outstanding_reads" => mem::OUTSTANDING_ALLOWED,
        "mem.requesters" => mem::REQUESTERS_ALLOWED,
        "mem.requesters[]" => {
            "a table with name, access, max_burst, optional priority and optional serves"
        }
        "mem.requesters[].name" => mem::NAME_ALLOWED,
        "mem.requesters[].access" => mem::ACCESS_ALLOWED,
        "mem.requesters[].priority" => mem::PRIORITY_ALLOWED,
        "mem.requesters[].max_burst" => mem::REQ_BURST_ALLOWED,
        "mem.requesters[].serves" => gpu::SERVES_ALLOWED,
        "gpu" => "a [gpu] table with fb_width and fb_height",
        "gpu.fb_width" | "gpu.fb_height" => gpu::FB_SIDE_ALLOWED,
        "mem.map" => {
            "a [mem.map] table with shader_bytes, image_bytes, texture_bytes, user_bytes, page_bytes, buffer_objects, display_lists, textures, mip_levels"
        }
        "mem.map.shader_bytes" => mem::SHADER_ALLOWED,
        "mem.map.image_bytes" | "mem.map.user_bytes" => mem::AREA_ALLOWED,
        "mem.map.texture_bytes" => mem::TEXTURE_AREA_ALLOWED,
        "mem.map.page_bytes" => mem::PAGE_ALLOWED,
        "mem.map.buffer_objects" => mem::BUFFER_OBJECTS_ALLOWED,
        "mem.map.display_lists" => mem::DISPLAY_LISTS_ALLOWED,
        "mem.map.textures" => mem::TEXTURES_ALLOWED,
        "mem.map.mip_levels" => mem::MIP_LEVELS_ALLOWED,
        "ipu" => {
            "an [ipu] table with lanes, dma_word_bits, formats, scale_int_bits, scale_frac_bits, bias_int_bits, bias_frac_bits, stack_depth, registers, bitmap, framebuffer, fb_word_bits, [ipu.zoom], [ipu.pixel_map], [ipu.convolution]"
        }
        "ipu.lanes" => ipu::LANES_ALLOWED,
        "ipu.fb_word_bits" => ipu::FB_ALLOWED,
        "ipu.dma_word_bits" => ipu::DMA_ALLOWED,
        "ipu.formats" => ipu::FORMATS_ALLOWED,
        "ipu.formats[]" => ipu::FORMAT_ALLOWED,
        "ipu.scale_int_bits" | "ipu.bias_int_bits" => ipu::INT_BITS_ALLOWED,
        "ipu.scale_frac_bits" | "ipu.bias_frac_bits" => ipu::FRAC_BITS_ALLOWED,
        "ipu.stack_depth" => ipu::STACK_ALLOWED,
        "ipu.registers" => ipu::REGISTERS_ALLOWED,
        "ipu.registers[]" => STAGE_KINDS,
        "ipu.bitmap" | "ipu.framebuffer" => ipu::ON_ALLOWED,
        "ipu.zoom" => "an [ipu.zoom] table with `enabled` and `max_line_width`",
        "ipu.zoom.enabled" => ipu::ON_ALLOWED,
        "ipu.pixel_map.enabled" => ipu::ON_ALLOWED,
        "ipu.convolution.enabled" => ipu::ON_ALLOWED,
        "ipu.zoom.max_line_width" => ipu::ZOOM_LINE_ALLOWED,
        "ipu.pixel_map" => "an [ipu.pixel_map] table with `enabled`, `table_size` and `maps`",
        "ipu.pixel_map.table_size" => ipu::MAP_SIZE_ALLOWED,
        "ipu.pixel_map.maps" => ipu::MAPS_ALLOWED,
        "ipu.pixel_map.maps[]" => ipu::MAPS_ALLOWED,
        "ipu.convolution" => {
            "an [ipu.convolution] table with `enabled`, `kernel_size`, `max_line_width` and `weight_int_bits`"
        }
        "ipu.convolution.weight_int_bits" => ipu::WEIGHT_INT_ALLOWED,
        "ipu.convolution.kernel_size" => ipu::KERNEL_ALLOWED,
        "ipu.convolution.max_line_width" => ipu::CONV_LINE_ALLOWED,
        _ => return None,
    };
    Some(allowed.to_string())
}

fn locate_all(src: &str, origin: &str, invalid: Vec<Invalid>) -> ConfigErrors {
    let doc = DeTable::parse(src).ok();
    let errors = invalid
        .into_iter()
        .map(|inv| {
            let span = doc
                .as_ref()
                .and_then(|d| locate(d.get_ref(), &inv.path))
                .map(|(span, _)| span);
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

/// The span of the value at `path`, or of the deepest enclosing item that exists; the flag
/// says whether the whole path was found.
fn locate(doc: &DeTable<'_>, path: &[Seg]) -> Option<(Range<usize>, bool)> {
    let Some((Seg::Key(first), rest)) = path.split_first() else {
        return None;
    };
    let (_, mut value) = doc.iter().find(|(k, _)| k.get_ref() == first)?;
    let mut found = true;
    for seg in rest {
        let next = match (seg, value.get_ref()) {
            (Seg::Key(k), DeValue::Table(_)) => value.get_ref().get(k.as_str()),
            (Seg::Index(i), DeValue::Array(_)) => value.get_ref().get(*i),
            _ => None,
        };
        match next {
            Some(v) => value = v,
            None => {
                found = false;
                break;
            }
        }
    }
    Some((value.span(), found))
}

/// One key or array element of a parsed document, with where it sits.
struct Item {
    path: Vec<Seg>,
    key: Option<Range<usize>>,
    value: Range<usize>,
    /// A `[table]` or `[[array]]` header, which opens the lines after it.
    header: bool,
}

fn items(src: &str, table: &DeTable<'_>, prefix: &[Seg], out: &mut Vec<Item>) {
    for (k, v) in table.iter() {
        let mut path = prefix.to_vec();
        path.push(Seg::Key(k.get_ref().to_string()));
        item(src, v, path, Some(k.span()), out);
    }
}

fn item(
    src: &str,
    v: &Spanned<DeValue<'_>>,
    path: Vec<Seg>,
    key: Option<Range<usize>>,
    out: &mut Vec<Item>,
) {
    let value = v.span();
    let header = src.get(value.start..).is_some_and(|s| s.starts_with('['))
        && matches!(v.get_ref(), DeValue::Table(_));
    match v.get_ref() {
        DeValue::Table(t) => items(src, t, &path, out),
        DeValue::Array(a) => {
            for (i, e) in a.iter().enumerate() {
                let mut p = path.clone();
                p.push(Seg::Index(i));
                item(src, e, p, None, out);
            }
        }
        _ => {}
    }
    out.push(Item {
        path,
        key,
        value,
        header,
    });
}

/// The key a syntax error at `offset` sits in, and the span of the value there if any:
/// the innermost key or value spanning `offset`; else the key that starts the error's line,
/// under the last table header before it.
fn key_at(doc: &DeTable<'_>, src: &str, offset: usize) -> (Vec<Seg>, Option<Range<usize>>) {
    let mut all = Vec::new();
    items(src, doc, &[], &mut all);
    // Inclusive end: toml reports an unterminated value just past its last character.
    let within = |r: &Range<usize>| r.start <= offset && offset <= r.end;
    let inner = all
        .iter()
        .filter(|it| !it.header && (within(&it.value) || it.key.as_ref().is_some_and(within)))
        .max_by_key(|it| (it.value.start, it.path.len()));
    if let Some(it) = inner {
        return (it.path.clone(), Some(it.value.clone()));
    }
    let mut path = all
        .iter()
        .filter(|it| it.header && it.value.start <= offset)
        .max_by_key(|it| it.value.start)
        .map(|it| it.path.clone())
        .unwrap_or_default();
    // The bare (possibly dotted) key at the start of the error's line, if it has one.
    let line_start = src[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = src[line_start..].trim_start();
    let bare: String = line
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        .collect();
    path.extend(
        bare.split('.')
            .filter(|k| !k.is_empty())
            .map(|k| Seg::Key(k.to_string())),
    );
    (path, None)
}
