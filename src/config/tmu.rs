//! `[tmu]`: the texture mapping unit (seed 001): its lanes, texel formats, filter
//! precision and output, and its texture cache, `[tmu.cache]`: multi-port, multi-bank,
//! non-blocking, read-only.

use serde::{Deserialize, Serialize};

use super::error::{Invalid, Seg, path};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TmuSection {
    /// Fragments per request; the cache serves their 2x2 footprints (ports = 4 * lanes).
    #[serde(default)]
    pub lanes: Option<u32>,
    /// Texel formats the format converters handle; the others generate no hardware.
    #[serde(default = "all_formats")]
    pub formats: Vec<TexFormat>,
    /// Bits of the bilinear weights (the fraction of u - 0.5 and v - 0.5).
    #[serde(default = "default_weight_bits")]
    pub weight_bits: u32,
    /// Filtered colours as 8-bit channels or as fp32 (exactly c / 255).
    #[serde(default)]
    pub output: TexOutput,
    /// Where the filter's bilinear products are: adder trees in logic, or multiplier
    /// blocks with their input and output registers.
    #[serde(default)]
    pub filter_products: FilterProducts,
    /// Texture descriptors in the texture parameter memory (seed 001/002: 6).
    #[serde(default = "default_textures")]
    pub textures: u32,
    /// Mip levels per descriptor (seed 002: 12); the largest side is 2^(mip_levels - 1).
    #[serde(default = "default_mip_levels")]
    pub mip_levels: u32,
    /// Filters the unit implements; the others generate no hardware.
    #[serde(default = "all_filters")]
    pub filters: Vec<Filter>,
    /// Wrap modes the unit implements; the others generate no hardware.
    #[serde(default = "all_wraps")]
    pub wraps: Vec<Wrap>,
    pub cache: CacheSection,
}

fn default_textures() -> u32 {
    6
}

fn default_mip_levels() -> u32 {
    12
}

fn all_filters() -> Vec<Filter> {
    Filter::ALL.to_vec()
}

fn all_wraps() -> Vec<Wrap> {
    Wrap::ALL.to_vec()
}

fn all_formats() -> Vec<TexFormat> {
    TexFormat::ALL.to_vec()
}

fn default_weight_bits() -> u32 {
    10
}

/// Texel formats in memory (see src/model/tmu/format.rs for their packing). The code of
/// each is its position here, as the texture descriptors hold it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TexFormat {
    Rgba8888,
    Rgb565,
    Rgba4444,
    Rgba5551,
    L8,
    La88,
    A8,
    Dxt1,
}

impl TexFormat {
    pub const ALL: [TexFormat; 8] = [
        TexFormat::Rgba8888,
        TexFormat::Rgb565,
        TexFormat::Rgba4444,
        TexFormat::Rgba5551,
        TexFormat::L8,
        TexFormat::La88,
        TexFormat::A8,
        TexFormat::Dxt1,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TexFormat::Rgba8888 => "rgba8888",
            TexFormat::Rgb565 => "rgb565",
            TexFormat::Rgba4444 => "rgba4444",
            TexFormat::Rgba5551 => "rgba5551",
            TexFormat::L8 => "l8",
            TexFormat::La88 => "la88",
            TexFormat::A8 => "a8",
            TexFormat::Dxt1 => "dxt1",
        }
    }

    /// The format's code in texture descriptors and in tex_filter requests.
    pub fn code(self) -> u32 {
        Self::ALL.iter().position(|&f| f == self).unwrap_or(0) as u32
    }

    pub fn from_name(name: &str) -> Option<TexFormat> {
        Self::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Bits of memory per texel (a DXT1 block of 16 texels is 64 bits).
    pub fn bits_per_texel(self) -> u32 {
        match self {
            TexFormat::Rgba8888 => 32,
            TexFormat::Rgb565 | TexFormat::Rgba4444 | TexFormat::Rgba5551 | TexFormat::La88 => 16,
            TexFormat::L8 | TexFormat::A8 => 8,
            TexFormat::Dxt1 => 4,
        }
    }

    /// Texels in one 32-bit cache word, for the uncompressed formats.
    pub fn texels_per_word(self) -> u32 {
        32 / self.bits_per_texel()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TexOutput {
    #[default]
    Rgba8,
    Fp32,
}

/// Where the filter lanes' bilinear products are built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FilterProducts {
    /// Sums of shifted rows in pipelined adder trees (carry chains), no multiplier blocks.
    #[default]
    Logic,
    /// 18 x 18 multiplier blocks (MULT18X18D on ECP5), registered at their inputs and
    /// output, with carry chains after them: one for each of the two horizontal blends
    /// and the vertical one, and two for the level blend (one up to 4 weight bits).
    Dsp,
}

/// GL texture filters (TEXTURE_MIN_FILTER takes all six, TEXTURE_MAG_FILTER the first two).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Filter {
    Nearest,
    Linear,
    NearestMipmapNearest,
    LinearMipmapNearest,
    NearestMipmapLinear,
    LinearMipmapLinear,
}

impl Filter {
    pub const ALL: [Filter; 6] = [
        Filter::Nearest,
        Filter::Linear,
        Filter::NearestMipmapNearest,
        Filter::LinearMipmapNearest,
        Filter::NearestMipmapLinear,
        Filter::LinearMipmapLinear,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Filter::Nearest => "nearest",
            Filter::Linear => "linear",
            Filter::NearestMipmapNearest => "nearest_mipmap_nearest",
            Filter::LinearMipmapNearest => "linear_mipmap_nearest",
            Filter::NearestMipmapLinear => "nearest_mipmap_linear",
            Filter::LinearMipmapLinear => "linear_mipmap_linear",
        }
    }

    /// The filter's code in texture descriptors: its position in [`Filter::ALL`].
    pub fn code(self) -> u32 {
        Self::ALL.iter().position(|&f| f == self).unwrap_or(0) as u32
    }

    /// Reads more than the base level.
    pub fn mipmapped(self) -> bool {
        !matches!(self, Filter::Nearest | Filter::Linear)
    }

    /// Blends two levels.
    pub fn trilinear(self) -> bool {
        matches!(
            self,
            Filter::NearestMipmapLinear | Filter::LinearMipmapLinear
        )
    }

    /// LINEAR within a level.
    pub fn linear_texels(self) -> bool {
        matches!(
            self,
            Filter::Linear | Filter::LinearMipmapNearest | Filter::LinearMipmapLinear
        )
    }
}

pub const LANES_ALLOWED: &str = "1, 2, 4 or 8 (4 = one 2x2 quad, 8 = two), and tmu.cache.ports = 4 * lanes (default: ports / 4)";
pub const TEXTURES_ALLOWED: &str = "an integer in 1..=16 (default 6)";
pub const MIP_LEVELS_ALLOWED: &str =
    "an integer in 1..=16 (default 12; the largest texture side is 2^(mip_levels - 1))";
pub const FILTERS_ALLOWED: &str = "a non-empty list of distinct \"nearest\", \"linear\", \"nearest_mipmap_nearest\", \"linear_mipmap_nearest\", \"nearest_mipmap_linear\", \"linear_mipmap_linear\" with \"nearest\" or \"linear\" among them (the magnification filters; default: all)";
pub const WRAPS_ALLOWED: &str = "a non-empty list of distinct \"repeat\", \"clamp_to_edge\", \"mirrored_repeat\" (default: all)";
pub const FORMATS_ALLOWED: &str = "a non-empty list of distinct \"rgba8888\", \"rgb565\", \"rgba4444\", \"rgba5551\", \"l8\", \"la88\", \"a8\", \"dxt1\" (default: all)";
pub const FORMAT_ALLOWED: &str =
    "\"rgba8888\", \"rgb565\", \"rgba4444\", \"rgba5551\", \"l8\", \"la88\", \"a8\" or \"dxt1\"";
pub const WEIGHT_BITS_ALLOWED: &str =
    "an integer in 4..=12 (default 10: within 1 LSB of GL's real-valued filtering)";
pub const OUTPUT_ALLOWED: &str = "\"rgba8\" or \"fp32\" (default \"rgba8\")";
pub const FILTER_PRODUCTS_ALLOWED: &str = "\"logic\" (adder trees) or \"dsp\" (18 x 18 multiplier blocks, with weight_bits up to 10) (default \"logic\")";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Replacement {
    /// Least recently used way of the set.
    Lru,
    /// Oldest allocated way of the set.
    Fifo,
    /// Tree pseudo-LRU: a set keeps ways - 1 bits, one per node of a binary tree over its
    /// ways, each pointing at the half its next victim is in (a 64-way set keeps 63 bits
    /// where LRU's age matrix keeps 2,016).
    Plru,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TexLayout {
    /// Row-major texels.
    Linear,
    /// 4x4-texel tiles, row-major by tile, texels row-major inside (a DXT1 block's shape).
    Tiled4x4,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheSection {
    /// Data capacity in bytes (seed 001: 16 KiB).
    pub size_bytes: u32,
    /// Line size in bytes (seed 001: 2048-bit lines, 256 bytes).
    pub line_bytes: u32,
    /// Associativity: 1 is direct mapped, size / line is fully associative (seed 001).
    pub ways: u32,
    /// Data RAM banks; texels of a 2x2 footprint always fall in different banks.
    pub banks: u32,
    /// Texels per request (e.g. 16 for the 2x2 footprints of 4 lanes).
    pub ports: u32,
    /// Miss status holding registers: line fills in flight at once.
    pub mshr_entries: u32,
    pub replacement: Replacement,
    /// Memory bus width in bits: a line fill is line_bytes * 8 / bus_bits beats.
    pub bus_bits: u32,
    pub layout: TexLayout,
    /// Passes queued between the tag check and the data read: how far tags run ahead
    /// of data, which hides memory latency (Igehy et al.'s fragment FIFO).
    #[serde(default = "default_queue_depth")]
    pub queue_depth: u32,
    /// Lines the tag unit looks up a clock; below `ports`, a merge stage first folds a
    /// request's texels onto their distinct lines (default: `ports`, no merge).
    #[serde(default)]
    pub tag_ports: Option<u32>,
}

fn default_queue_depth() -> u32 {
    64
}

pub const TAG_PORTS_ALLOWED: &str =
    "4, 8, 16 or 32 lines a clock, at most ports (default: ports, no merge stage)";
pub const QUEUE_ALLOWED: &str = "a power of two in 2..=512 (default 64)";
pub const SIZE_ALLOWED: &str = "a power of two in 256..=1048576 bytes";
pub const LINE_ALLOWED: &str =
    "a power of two in 64..=4096 bytes (a 4x4 tile of 32-bit texels is 64)";
pub const WAYS_ALLOWED: &str =
    "a power of two from 1 (direct mapped) to size_bytes / line_bytes (fully associative)";
pub const BANKS_ALLOWED: &str =
    "4 or 16 (one texel of a 2x2 footprint per bank), at most line_bytes / 4";
pub const PORTS_ALLOWED: &str =
    "4, 8, 16 or 32 texels per request (2x2 footprints of 1, 2, 4 or 8 lanes)";
pub const MSHR_ALLOWED: &str = "an integer in 1..=64";
pub const BUS_ALLOWED: &str =
    "a power of two in 32..=1024 bits, at most half a line (line_bytes * 4)";
pub const REPLACEMENT_ALLOWED: &str = "\"lru\", \"plru\" or \"fifo\"";
pub const LAYOUT_ALLOWED: &str = "\"linear\" or \"tiled4x4\"";

/// How a bank number splits into a parity class and an index in the class: bit
/// positions of the bank number, most significant first ([`TexCache::bank_classes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BankClasses {
    /// v's low bit, then u's: a class is the parity of (u, v).
    pub class_bits: Vec<u32>,
    pub index_bits: Vec<u32>,
}

/// The validated cache and what it derives.
#[derive(Debug, Clone, Serialize)]
pub struct TexCache {
    pub size_bytes: u32,
    pub line_bytes: u32,
    pub ways: u32,
    pub sets: u32,
    pub lines: u32,
    pub banks: u32,
    pub ports: u32,
    pub mshr_entries: u32,
    pub replacement: Replacement,
    pub bus_bits: u32,
    /// Bus beats per line fill.
    pub beats_per_line: u32,
    /// 32-bit texel words per line, and per line in each bank.
    pub words_per_line: u32,
    pub words_per_bank_line: u32,
    pub layout: TexLayout,
    pub queue_depth: u32,
    /// Distinct lines the tag unit looks up a clock (`ports` when texels are looked up
    /// one a port, with no merge stage).
    pub tag_ports: u32,
    /// Byte addresses are this wide.
    pub addr_bits: u32,
    /// 32-bit words per bus beat.
    pub words_per_beat: u32,
}

/// Tags, valid bits and ages are flops, compared in parallel: at most this many lines.
pub const MAX_LINES: u32 = 256;

fn pow2_in(x: u32, lo: u32, hi: u32) -> bool {
    x.is_power_of_two() && (lo..=hi).contains(&x)
}

/// The validated `[tmu]`.
#[derive(Debug, Clone, Serialize)]
pub struct Tmu {
    pub lanes: u32,
    /// Enabled formats, in code order.
    pub formats: Vec<TexFormat>,
    pub weight_bits: u32,
    pub output: TexOutput,
    pub filter_products: FilterProducts,
    pub textures: u32,
    pub mip_levels: u32,
    /// Enabled filters and wraps, in code order.
    pub filters: Vec<Filter>,
    pub wraps: Vec<Wrap>,
    pub cache: TexCache,
}

impl Tmu {
    pub fn has_format(&self, f: TexFormat) -> bool {
        self.formats.contains(&f)
    }

    /// 2x2 quads per request, each with its own LOD: lanes / 4, and one (without LOD
    /// from differences) below 4 lanes.
    pub fn quads(&self) -> u32 {
        (self.lanes / 4).max(1)
    }
}

impl TmuSection {
    pub fn validate(&self, errs: &mut Vec<Invalid>) -> Option<Tmu> {
        let before = errs.len();
        let cache = self.cache.validate(errs);
        let lanes = self.lanes.unwrap_or(self.cache.ports / 4);
        if !matches!(lanes, 1 | 2 | 4 | 8) {
            errs.push(Invalid::at(
                &path(&["tmu", "lanes"]),
                format!("lanes {lanes} is not allowed"),
                LANES_ALLOWED,
            ));
        } else if self.lanes.is_some() && self.cache.ports != 4 * lanes {
            errs.push(Invalid::at(
                &path(&["tmu", "lanes"]),
                format!(
                    "{lanes} lanes need 2x2 footprints of {} texels, but tmu.cache.ports is {}",
                    4 * lanes,
                    self.cache.ports
                ),
                LANES_ALLOWED,
            ));
        }
        let formats = distinct(errs, "formats", &self.formats, FORMATS_ALLOWED);
        if !(4..=12).contains(&self.weight_bits) {
            errs.push(Invalid::at(
                &path(&["tmu", "weight_bits"]),
                format!("weight_bits {} is not allowed", self.weight_bits),
                WEIGHT_BITS_ALLOWED,
            ));
        }
        // The vertical blend's product is (8 + weight_bits) x (weight_bits + 1) bits, signed:
        // one 18 x 18 block up to 10 weight bits.
        if self.filter_products == FilterProducts::Dsp && self.weight_bits > 10 {
            errs.push(Invalid::at(
                &path(&["tmu", "filter_products"]),
                format!(
                    "\"dsp\" needs weight_bits of at most 10 (a product of 18 x 11 bits), not {}",
                    self.weight_bits
                ),
                FILTER_PRODUCTS_ALLOWED,
            ));
        }
        let int_in = |errs: &mut Vec<Invalid>, key: &str, v: u32, hi: u32, allowed: &str| {
            if !(1..=hi).contains(&v) {
                errs.push(Invalid::at(
                    &path(&["tmu", key]),
                    format!("{key} {v} is not allowed"),
                    allowed,
                ));
            }
        };
        int_in(errs, "textures", self.textures, 16, TEXTURES_ALLOWED);
        int_in(errs, "mip_levels", self.mip_levels, 16, MIP_LEVELS_ALLOWED);
        let filters = distinct(errs, "filters", &self.filters, FILTERS_ALLOWED);
        if !filters.is_empty() && !filters.iter().any(|f| !f.mipmapped()) {
            errs.push(Invalid::at(
                &path(&["tmu", "filters"]),
                "no magnification filter is enabled".to_string(),
                FILTERS_ALLOWED,
            ));
        }
        let wraps = distinct(errs, "wraps", &self.wraps, WRAPS_ALLOWED);
        if errs.len() > before {
            return None;
        }
        Some(Tmu {
            lanes,
            formats,
            weight_bits: self.weight_bits,
            output: self.output,
            filter_products: self.filter_products,
            textures: self.textures,
            mip_levels: self.mip_levels,
            filters,
            wraps,
            cache: cache?,
        })
    }
}

/// The list sorted into code order; empty lists and repeats are errors.
fn distinct<T: Ord + Copy>(
    errs: &mut Vec<Invalid>,
    key: &str,
    list: &[T],
    allowed: &str,
) -> Vec<T> {
    let mut v = list.to_vec();
    v.sort();
    v.dedup();
    if list.is_empty() || v.len() != list.len() {
        errs.push(Invalid::at(
            &path(&["tmu", key]),
            if list.is_empty() {
                format!("tmu.{key} is empty")
            } else {
                format!("tmu.{key} lists one twice")
            },
            allowed,
        ));
    }
    v
}

impl CacheSection {
    pub fn validate(&self, errs: &mut Vec<Invalid>) -> Option<TexCache> {
        let at = |key: &str| {
            let mut p = path(&["tmu", "cache"]);
            p.push(Seg::Key(key.into()));
            p
        };
        let before = errs.len();
        let mut check = |ok: bool, key: &str, value: u32, allowed: &str| {
            if !ok {
                errs.push(Invalid::at(
                    &at(key),
                    format!("{key} {value} is not allowed"),
                    allowed,
                ));
            }
        };
        check(
            pow2_in(self.size_bytes, 256, 1 << 20),
            "size_bytes",
            self.size_bytes,
            SIZE_ALLOWED,
        );
        check(
            pow2_in(self.line_bytes, 64, 4096),
            "line_bytes",
            self.line_bytes,
            LINE_ALLOWED,
        );
        check(
            matches!(self.banks, 4 | 16),
            "banks",
            self.banks,
            BANKS_ALLOWED,
        );
        check(
            matches!(self.ports, 4 | 8 | 16 | 32),
            "ports",
            self.ports,
            PORTS_ALLOWED,
        );
        check(
            (1..=64).contains(&self.mshr_entries),
            "mshr_entries",
            self.mshr_entries,
            MSHR_ALLOWED,
        );
        check(
            pow2_in(self.bus_bits, 32, 1024),
            "bus_bits",
            self.bus_bits,
            BUS_ALLOWED,
        );
        check(self.ways.is_power_of_two(), "ways", self.ways, WAYS_ALLOWED);
        check(
            pow2_in(self.queue_depth, 2, 512),
            "queue_depth",
            self.queue_depth,
            QUEUE_ALLOWED,
        );
        let tag_ports = self.tag_ports.unwrap_or(self.ports);
        check(
            matches!(tag_ports, 4 | 8 | 16 | 32),
            "tag_ports",
            tag_ports,
            TAG_PORTS_ALLOWED,
        );
        if errs.len() > before {
            return None;
        }
        // Relations between keys, once each key is in range on its own.
        let lines = self.size_bytes / self.line_bytes;
        let mut related = |ok: bool, key: &str, msg: String, allowed: &str| {
            if !ok {
                errs.push(Invalid::at(&at(key), msg, allowed));
            }
        };
        related(
            self.line_bytes <= self.size_bytes,
            "line_bytes",
            format!(
                "a {}-byte line does not fit a {}-byte cache",
                self.line_bytes, self.size_bytes
            ),
            LINE_ALLOWED,
        );
        related(
            self.ways <= lines.max(1),
            "ways",
            format!("{} ways but the cache holds {lines} lines", self.ways),
            WAYS_ALLOWED,
        );
        related(
            self.banks * 4 <= self.line_bytes,
            "banks",
            format!(
                "{} banks need lines of at least {} bytes",
                self.banks,
                self.banks * 4
            ),
            BANKS_ALLOWED,
        );
        related(
            lines >= 2,
            "size_bytes",
            format!("{lines} line(s); a cache needs at least two"),
            "at least two lines (size_bytes / line_bytes >= 2)",
        );
        related(
            lines <= MAX_LINES,
            "size_bytes",
            format!("{lines} lines; tags are flops searched in parallel"),
            "at most 256 lines (size_bytes / line_bytes)",
        );
        related(
            self.bus_bits < self.line_bytes * 8,
            "bus_bits",
            format!(
                "a {}-bit bus fills a {}-byte line in under two beats",
                self.bus_bits, self.line_bytes
            ),
            BUS_ALLOWED,
        );
        related(
            tag_ports <= self.ports,
            "tag_ports",
            format!(
                "{tag_ports} lines a clock but a request has {} texels",
                self.ports
            ),
            TAG_PORTS_ALLOWED,
        );
        if errs.len() > before {
            return None;
        }
        let words_per_line = self.line_bytes / 4;
        let cache = TexCache {
            size_bytes: self.size_bytes,
            line_bytes: self.line_bytes,
            ways: self.ways,
            sets: lines / self.ways,
            lines,
            banks: self.banks,
            ports: self.ports,
            mshr_entries: self.mshr_entries,
            replacement: self.replacement,
            bus_bits: self.bus_bits,
            beats_per_line: self.line_bytes * 8 / self.bus_bits,
            words_per_line,
            words_per_bank_line: words_per_line / self.banks,
            layout: self.layout,
            queue_depth: self.queue_depth,
            tag_ports,
            addr_bits: 32,
            words_per_beat: (self.bus_bits / 32).max(1),
        };
        // A line fill writes each beat's words in one clock, one word per bank.
        if let Some(clash) = cache.beat_bank_clash() {
            errs.push(Invalid::at(
                &at("bus_bits"),
                format!("a {}-bit beat puts two words in bank {clash} ({} banks, {:?} layout)", self.bus_bits, self.banks, self.layout).replace("Tiled4x4", "tiled4x4").replace("Linear", "linear"),
                "a narrower bus, more banks, or the other layout: each beat's words in distinct banks",
            ));
            return None;
        }
        Some(cache)
    }
}

impl TexCache {
    /// Whether a merge stage folds each request's texels onto their distinct lines before
    /// the tag unit, which then looks up `tag_ports` lines a clock.
    pub fn merges(&self) -> bool {
        self.tag_ports < self.ports
    }

    /// The shape adversarial traffic aims at.
    pub fn shape(&self) -> CacheShape {
        CacheShape {
            line_bytes: self.line_bytes,
            sets: self.sets,
            ways: self.ways,
        }
    }

    /// The data bank of the 32-bit texel word at byte address `addr`: a function of the
    /// address alone, so a line fill knows where each word goes. In the 4x4-tiled layout
    /// the word address bits [1:0] are u mod 4 and [3:2] are v mod 4 inside a tile, so
    /// the bank takes the low u and v bits and a 2x2 footprint hits four banks at every
    /// position and wrap. In the linear layout only u is in the low bits: vertical
    /// neighbours may share a bank, which the bank checker reports as a second clock.
    /// This is the one definition of the mapping: the RTL's `bank_of` is rendered from
    /// [`TexCache::bank_bit`], and tests/tex_cache.rs runs both over every word offset.
    pub fn bank(&self, addr: u64) -> u32 {
        let word = addr >> 2;
        (0..self.banks.trailing_zeros()).fold(0, |bank, k| {
            bank | ((((word >> self.bank_bit(k)) & 1) as u32) << k)
        })
    }

    /// The word-address bit that is bit `k` of a word's bank. Tiled: the low half of the
    /// bank bits are u's low bits (word bits 0..), the high half v's (word bits 2..).
    /// Linear: the word address's low bits.
    pub fn bank_bit(&self, k: u32) -> u32 {
        let half = self.banks.trailing_zeros() / 2; // bits of u and of v in the bank
        match self.layout {
            TexLayout::Tiled4x4 if k >= half => k - half + 2,
            _ => k,
        }
    }

    /// The banks' parity classes, where a class holds several banks. In the tiled layout
    /// a 2x2 footprint's four texels have the four parities of (u, v), so with 16 banks
    /// each lane of four texels asks each class of four banks for one word: the data
    /// stage reads a class's banks through the lane's port for that class (a 4:1 select)
    /// and puts the four ports back in texel order (another), not each texel from every
    /// bank (16:1). A pass whose lane asks two banks of one class is read as if a class
    /// were one bank. `None` where a class is a single bank (4 banks) or for the linear
    /// layout (vertical neighbours share a bank).
    pub fn bank_classes(&self) -> Option<BankClasses> {
        let half = self.banks.trailing_zeros() / 2;
        if self.layout != TexLayout::Tiled4x4 || half < 2 {
            return None;
        }
        // Bank bit 0 is u's low bit and bit `half` v's (`bank_bit`).
        let class_bits = vec![half, 0];
        let index_bits = (0..self.banks.trailing_zeros())
            .rev()
            .filter(|k| !class_bits.contains(k))
            .collect();
        Some(BankClasses {
            class_bits,
            index_bits,
        })
    }

    /// The parity class of a word's bank, and its index in the class (a bank number's
    /// bits as [`TexCache::bank_classes`] splits them).
    pub fn bank_class(&self, addr: u64) -> Option<(u32, u32)> {
        let cl = self.bank_classes()?;
        let bank = self.bank(addr);
        let pick = |bits: &[u32]| bits.iter().fold(0, |v, k| (v << 1) | ((bank >> k) & 1));
        Some((pick(&cl.class_bits), pick(&cl.index_bits)))
    }

    /// A bank that two words of one bus beat share, if any (a fill writes a beat at once).
    pub fn beat_bank_clash(&self) -> Option<u32> {
        let wpb = self.words_per_beat;
        for beat in 0..(self.words_per_line / wpb).max(1) {
            let mut seen = vec![false; self.banks as usize];
            for j in 0..wpb {
                let b = self.bank(u64::from(beat * wpb + j) * 4) as usize;
                if std::mem::replace(&mut seen[b], true) {
                    return Some(b as u32);
                }
            }
        }
        None
    }

    /// The line holding byte address `addr`, and its set.
    pub fn line_of(&self, addr: u64) -> u64 {
        addr / u64::from(self.line_bytes)
    }

    pub fn set_of(&self, line: u64) -> u32 {
        (line % u64::from(self.sets)) as u32
    }
}

/// GL texture wrap modes (TEXTURE_WRAP_S / _T).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Wrap {
    Repeat,
    ClampToEdge,
    MirroredRepeat,
}

impl Wrap {
    pub const ALL: [Wrap; 3] = [Wrap::Repeat, Wrap::ClampToEdge, Wrap::MirroredRepeat];

    pub fn name(self) -> &'static str {
        match self {
            Wrap::Repeat => "repeat",
            Wrap::ClampToEdge => "clamp_to_edge",
            Wrap::MirroredRepeat => "mirrored_repeat",
        }
    }

    /// The wrap's code in texture descriptors: its position in [`Wrap::ALL`].
    pub fn code(self) -> u32 {
        Self::ALL.iter().position(|&w| w == self).unwrap_or(0) as u32
    }
}

/// The cache the adversarial traffic is aimed at; set = (addr / line_bytes) mod sets.
/// Zero fields are treated as 1 so no generator divides by zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheShape {
    pub line_bytes: u32,
    pub sets: u32,
    pub ways: u32,
}

impl CacheShape {
    /// The SPEC's texture cache: 16 KB, 2048-bit lines, fully associative.
    pub const SPEC: CacheShape = CacheShape {
        line_bytes: 256,
        sets: 1,
        ways: 64,
    };

    pub fn line(&self) -> u64 {
        u64::from(self.line_bytes.max(1))
    }

    pub fn sets(&self) -> u64 {
        u64::from(self.sets.max(1))
    }

    /// Line number of a byte address.
    pub fn line_of(&self, addr: u64) -> u64 {
        addr / self.line()
    }

    pub fn set_of(&self, addr: u64) -> u64 {
        self.line_of(addr) % self.sets()
    }
}
