//! `[mem]`: the shared memory of seed 002 (HMGPU): the memory port, the requesters that
//! share it through the arbiter `mem_arb`, the arbitration policy, and (`[mem.map]`) the
//! region map the memory manager uses.

use serde::{Deserialize, Serialize};

use super::error::{Invalid, Seg, path};
use super::gpu::Serves;
use super::verilog_names::check_identifier;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemSection {
    /// Data bits of one memory beat.
    pub data_bits: u32,
    /// The longest burst the memory port carries, in beats.
    pub max_burst: u32,
    /// Arbitration between requesters.
    pub policy: Policy,
    /// Clocks from a read burst's request at the memory to its first beat, for the memory
    /// the port is built for.
    #[serde(default = "default_latency")]
    pub latency: u32,
    /// Read bursts issued and not yet returned, at most (the depth of the tag FIFO);
    /// without it, derived from `latency` (`reads_in_flight`).
    pub outstanding_reads: Option<u32>,
    pub requesters: Vec<RequesterSection>,
    pub map: Option<MapSection>,
}

/// The latency `[mem]` assumes without one: the CLI's memory model default too.
pub const DEFAULT_LATENCY: u32 = 100;

fn default_latency() -> u32 {
    DEFAULT_LATENCY
}

/// Clocks a read burst's tag is held beyond the latency and its beats: the arbiter's
/// request and return registers, less the head tag register's burst (measured: the
/// smallest depth that keeps reads-only traffic at the port's full rate, for bursts of
/// 2, 4 and 8 beats at latencies 20, 100 and 200).
const TAG_CLOCKS: u32 = 2;

/// Read bursts in flight (tag FIFO depth) that keep the port streaming reads of `beats`
/// beats from a memory of `latency` clocks, by Little's law: a tag returns after the
/// latency and its beats, and `depth` tags plus the head register's must cover that
/// time at `beats` clocks each: `ceil((latency + 2) / beats)`.
pub fn reads_in_flight(latency: u32, beats: u32) -> u32 {
    (latency + TAG_CLOCKS).div_ceil(beats.max(1)).max(1)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// Highest `priority` first (list order breaks ties); lower priorities can starve.
    Fixed,
    /// Every requester in turn; `priority` is ignored.
    RoundRobin,
    /// Priority classes: the highest class with a request wins, round robin inside it.
    Classes,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    Read,
    Write,
    Both,
}

impl Access {
    pub fn reads(self) -> bool {
        self != Access::Write
    }
    pub fn writes(self) -> bool {
        self != Access::Read
    }
    pub fn label(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::Write => "write",
            Access::Both => "both",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequesterSection {
    pub name: String,
    pub access: Access,
    #[serde(default)]
    pub priority: u32,
    pub max_burst: u32,
    /// The unit traffic this requester carries in the `gpu` top (`config::gpu`); absent
    /// from the canonical form when absent, so older configs keep their hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serves: Option<Serves>,
}

/// Seed 002's region map: the areas of the shared memory, from address 0 up, in the
/// order shader programs, 2D images, textures, paged user area.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapSection {
    pub shader_bytes: u64,
    pub image_bytes: u64,
    pub texture_bytes: u64,
    pub user_bytes: u64,
    pub page_bytes: u64,
    pub buffer_objects: u32,
    pub display_lists: u32,
    pub textures: u32,
    pub mip_levels: u32,
}

pub const DATA_BITS_ALLOWED: &str = "a power of two in 8..=512";
pub const MAX_BURST_ALLOWED: &str = "an integer in 1..=256 beats";
pub const POLICY_ALLOWED: &str = "\"fixed\", \"round_robin\" or \"classes\"";
pub const OUTSTANDING_ALLOWED: &str = "an integer in 1..=64, at least ceil((latency + 2) / beats) for the shortest reader's max_burst (the default)";
pub const LATENCY_ALLOWED: &str = "an integer in 0..=1000 clocks (default 100)";
pub const REQUESTERS_ALLOWED: &str = "an array of 1..=16 [[mem.requesters]] tables";
pub const NAME_ALLOWED: &str = "a Verilog identifier of at most 32 characters, not a keyword, not `mem`, unique among the requesters";
pub const ACCESS_ALLOWED: &str = "\"read\", \"write\" or \"both\"";
pub const PRIORITY_ALLOWED: &str = "an integer in 0..=15 (higher wins; default 0)";
pub const REQ_BURST_ALLOWED: &str = "an integer in 1..=mem.max_burst";
pub const PAGE_ALLOWED: &str = "a power of two in 256..=65536 bytes (seed 002: 1024)";
pub const AREA_ALLOWED: &str =
    "a positive multiple of page_bytes; the four areas together at most 4 GiB";
pub const SHADER_ALLOWED: &str =
    "a positive multiple of 4 x page_bytes (two vertex and two pixel shader slots, ping-pong)";
pub const TEXTURE_AREA_ALLOWED: &str =
    "a positive multiple of page_bytes x textures (a fixed partition per texture)";
pub const BUFFER_OBJECTS_ALLOWED: &str = "an integer in 1..=256 (seed 002: 8)";
pub const DISPLAY_LISTS_ALLOWED: &str = "an integer in 1..=4096 (seed 002: 256)";
pub const TEXTURES_ALLOWED: &str = "an integer in 1..=64 (seed 002: 6)";
pub const MIP_LEVELS_ALLOWED: &str = "an integer in 1..=16 (seed 002: 12)";

pub const MAX_REQUESTERS: usize = 16;
/// Memory addresses are byte addresses of this many bits.
pub const ADDR_BITS: u32 = 32;

/// One validated requester.
#[derive(Debug, Clone, Serialize)]
pub struct Requester {
    pub name: String,
    pub access: Access,
    pub priority: u32,
    pub max_burst: u32,
    pub serves: Option<Serves>,
}

/// A validated region map with its base addresses.
#[derive(Debug, Clone, Serialize)]
pub struct MemMap {
    pub shader_base: u64,
    pub shader_bytes: u64,
    pub image_base: u64,
    pub image_bytes: u64,
    pub texture_base: u64,
    pub texture_bytes: u64,
    pub user_base: u64,
    pub user_bytes: u64,
    pub page_bytes: u64,
    pub pages: u64,
    pub buffer_objects: u32,
    pub display_lists: u32,
    pub textures: u32,
    pub mip_levels: u32,
    /// Bytes of the texture partition each texture owns.
    pub bytes_per_texture: u64,
}

/// The validated `[mem]`.
#[derive(Debug, Clone, Serialize)]
pub struct Mem {
    pub data_bits: u32,
    pub max_burst: u32,
    pub policy: Policy,
    /// Clocks to a read's first beat, for the memory the port is built for.
    pub latency: u32,
    /// Tag FIFO depth: stated, or `reads_in_flight(latency, shortest reader's burst)`.
    pub outstanding_reads: u32,
    pub requesters: Vec<Requester>,
    pub map: Option<MemMap>,
}

impl Mem {
    /// Bytes per beat.
    pub fn beat_bytes(&self) -> u64 {
        u64::from(self.data_bits / 8)
    }

    /// Bits of a burst length field (beats - 1), at least one.
    pub fn len_bits(&self) -> u32 {
        clog2(self.max_burst).max(1)
    }

    /// Bits of a requester index, at least one.
    pub fn id_bits(&self) -> u32 {
        clog2(self.requesters.len() as u32).max(1)
    }

    /// The arbitration classes, highest priority first; each lists requester indices in
    /// list order. Round robin is one class; fixed priority one class per requester.
    pub fn classes(&self) -> Vec<Vec<usize>> {
        let n = self.requesters.len();
        match self.policy {
            Policy::RoundRobin => vec![(0..n).collect()],
            Policy::Fixed => {
                let mut order: Vec<usize> = (0..n).collect();
                // Stable: equal priorities keep list order.
                order.sort_by_key(|&i| std::cmp::Reverse(self.requesters[i].priority));
                order.into_iter().map(|i| vec![i]).collect()
            }
            Policy::Classes => {
                let mut prios: Vec<u32> = self.requesters.iter().map(|r| r.priority).collect();
                prios.sort_unstable_by(|a, b| b.cmp(a));
                prios.dedup();
                prios
                    .into_iter()
                    .map(|p| {
                        (0..n)
                            .filter(|&i| self.requesters[i].priority == p)
                            .collect()
                    })
                    .collect()
            }
        }
    }
}

pub fn clog2(x: u32) -> u32 {
    32 - (x.max(1) - 1).leading_zeros()
}

impl MemSection {
    /// The tag FIFO depth: the stated one if it covers the latency, else derived; an
    /// error when neither works. Requesters are valid here.
    fn reads_in_flight(
        &self,
        errs: &mut Vec<Invalid>,
        at: &dyn Fn(&[&str]) -> Vec<Seg>,
    ) -> Option<u32> {
        let (reader, beats) = self
            .requesters
            .iter()
            .filter(|r| r.access.reads())
            .map(|r| (r.name.as_str(), r.max_burst))
            .min_by_key(|r| r.1)?;
        let need = reads_in_flight(self.latency, beats);
        match self.outstanding_reads {
            _ if need > 64 => {
                errs.push(Invalid::at(
                    &at(&["latency"]),
                    format!(
                        "latency {} needs {need} read bursts in flight for reader {reader:?}'s bursts of {beats} beat(s), more than the tag FIFO's 64",
                        self.latency
                    ),
                    format!(
                        "at most {} clocks with bursts of {beats} beat(s), or a longer max_burst for {reader:?}",
                        64 * beats - TAG_CLOCKS
                    ),
                ));
                None
            }
            Some(o) if o >= need => Some(o),
            Some(o) => {
                errs.push(Invalid::at(
                    &at(&["outstanding_reads"]),
                    format!(
                        "outstanding_reads {o} does not cover latency {}: reader {reader:?}'s bursts of {beats} beat(s) need {need} read bursts in flight to keep the port busy",
                        self.latency
                    ),
                    format!("{need}..=64, or no outstanding_reads (derived), or a lower mem.latency"),
                ));
                None
            }
            None => Some(need),
        }
    }

    pub fn validate(&self, errs: &mut Vec<Invalid>) -> Option<Mem> {
        let at = |keys: &[&str]| {
            let mut p = path(&["mem"]);
            p.extend(keys.iter().map(|k| Seg::Key((*k).into())));
            p
        };
        let before = errs.len();
        if !(self.data_bits.is_power_of_two() && (8..=512).contains(&self.data_bits)) {
            errs.push(Invalid::at(
                &at(&["data_bits"]),
                format!("data_bits {} is not allowed", self.data_bits),
                DATA_BITS_ALLOWED,
            ));
        }
        if !(1..=256).contains(&self.max_burst) {
            errs.push(Invalid::at(
                &at(&["max_burst"]),
                format!("max_burst {} is not allowed", self.max_burst),
                MAX_BURST_ALLOWED,
            ));
        }
        if self.latency > 1000 {
            errs.push(Invalid::at(
                &at(&["latency"]),
                format!("latency {} is not allowed", self.latency),
                LATENCY_ALLOWED,
            ));
        }
        if let Some(o) = self.outstanding_reads
            && !(1..=64).contains(&o)
        {
            errs.push(Invalid::at(
                &at(&["outstanding_reads"]),
                format!("outstanding_reads {o} is not allowed"),
                OUTSTANDING_ALLOWED,
            ));
        }
        let n = self.requesters.len();
        if !(1..=MAX_REQUESTERS).contains(&n) {
            errs.push(Invalid::at(
                &at(&["requesters"]),
                format!("{n} requesters"),
                REQUESTERS_ALLOWED,
            ));
        }
        for (i, r) in self.requesters.iter().enumerate() {
            let key = |k: &str| {
                let mut p = at(&["requesters"]);
                p.push(Seg::Index(i));
                p.push(Seg::Key(k.into()));
                p
            };
            let name_problem = if r.name.len() > 32 {
                Some(format!("name {:?} is longer than 32 characters", r.name))
            } else if r.name == "mem" {
                Some("name \"mem\" is the memory port's".to_string())
            } else if let Err(e) = check_identifier(&r.name) {
                Some(format!("name {:?} {e}", r.name))
            } else if self.requesters[..i].iter().any(|o| o.name == r.name) {
                Some(format!("name {:?} is used by an earlier requester", r.name))
            } else {
                None
            };
            if let Some(msg) = name_problem {
                errs.push(Invalid::at(&key("name"), msg, NAME_ALLOWED));
            }
            if r.priority > 15 {
                errs.push(Invalid::at(
                    &key("priority"),
                    format!("priority {} is not allowed", r.priority),
                    PRIORITY_ALLOWED,
                ));
            }
            if r.max_burst == 0 || r.max_burst > self.max_burst.clamp(1, 256) {
                errs.push(Invalid::at(
                    &key("max_burst"),
                    format!(
                        "max_burst {} does not fit the memory port's max_burst {}",
                        r.max_burst, self.max_burst
                    ),
                    REQ_BURST_ALLOWED,
                ));
            }
        }
        if n > 0 && !self.requesters.iter().any(|r| r.access.reads()) {
            errs.push(Invalid::at(
                &at(&["requesters"]),
                "no requester reads: the read half of the memory port would be unused",
                "at least one requester with access \"read\" or \"both\"",
            ));
        }
        let map = self.map.as_ref().and_then(|m| m.validate(errs));
        if errs.len() > before {
            return None;
        }
        let outstanding_reads = self.reads_in_flight(errs, &at)?;
        Some(Mem {
            data_bits: self.data_bits,
            max_burst: self.max_burst,
            policy: self.policy,
            latency: self.latency,
            outstanding_reads,
            requesters: self
                .requesters
                .iter()
                .map(|r| Requester {
                    name: r.name.clone(),
                    access: r.access,
                    priority: r.priority,
                    max_burst: r.max_burst,
                    serves: r.serves,
                })
                .collect(),
            map,
        })
    }
}

impl MapSection {
    pub fn validate(&self, errs: &mut Vec<Invalid>) -> Option<MemMap> {
        let at = |k: &str| path(&["mem", "map", k]);
        let before = errs.len();
        let mut range = |ok: bool, key: &str, value: u64, allowed: &str| {
            if !ok {
                errs.push(Invalid::at(
                    &at(key),
                    format!("{key} {value} is not allowed"),
                    allowed,
                ));
            }
        };
        let page = self.page_bytes;
        range(
            page.is_power_of_two() && (256..=65536).contains(&page),
            "page_bytes",
            page,
            PAGE_ALLOWED,
        );
        range(
            (1..=256).contains(&self.buffer_objects),
            "buffer_objects",
            self.buffer_objects.into(),
            BUFFER_OBJECTS_ALLOWED,
        );
        range(
            (1..=4096).contains(&self.display_lists),
            "display_lists",
            self.display_lists.into(),
            DISPLAY_LISTS_ALLOWED,
        );
        range(
            (1..=64).contains(&self.textures),
            "textures",
            self.textures.into(),
            TEXTURES_ALLOWED,
        );
        range(
            (1..=16).contains(&self.mip_levels),
            "mip_levels",
            self.mip_levels.into(),
            MIP_LEVELS_ALLOWED,
        );
        if errs.len() > before {
            return None;
        }
        // Sizes against the page size, once the page size is known to be sound.
        let mut area = |key: &str, bytes: u64, unit: u64, allowed: &str, what: String| {
            if bytes == 0 || !bytes.is_multiple_of(unit) {
                errs.push(Invalid::at(
                    &at(key),
                    format!("{key} {bytes} is not a positive multiple of {unit} ({what})"),
                    allowed,
                ));
            }
        };
        area(
            "shader_bytes",
            self.shader_bytes,
            4 * page,
            SHADER_ALLOWED,
            format!("4 slots of {page}-byte pages"),
        );
        area(
            "image_bytes",
            self.image_bytes,
            page,
            AREA_ALLOWED,
            "page_bytes".into(),
        );
        area(
            "texture_bytes",
            self.texture_bytes,
            page * u64::from(self.textures),
            TEXTURE_AREA_ALLOWED,
            format!("{} textures x {page}-byte pages", self.textures),
        );
        area(
            "user_bytes",
            self.user_bytes,
            page,
            AREA_ALLOWED,
            "page_bytes".into(),
        );
        if errs.len() > before {
            return None;
        }
        let total = self.shader_bytes as u128
            + self.image_bytes as u128
            + self.texture_bytes as u128
            + self.user_bytes as u128;
        if total > 1u128 << ADDR_BITS {
            errs.push(Invalid::at(
                &at("user_bytes"),
                format!("the four areas need {total} bytes, more than the 32-bit address space"),
                AREA_ALLOWED,
            ));
            return None;
        }
        let pages = self.user_bytes / page;
        if pages < u64::from(self.buffer_objects) {
            errs.push(Invalid::at(
                &at("buffer_objects"),
                format!(
                    "{} buffer objects but the user area has {pages} pages",
                    self.buffer_objects
                ),
                "at most one buffer object per page of the user area",
            ));
            return None;
        }
        let image_base = self.shader_bytes;
        let texture_base = image_base + self.image_bytes;
        let user_base = texture_base + self.texture_bytes;
        Some(MemMap {
            shader_base: 0,
            shader_bytes: self.shader_bytes,
            image_base,
            image_bytes: self.image_bytes,
            texture_base,
            texture_bytes: self.texture_bytes,
            user_base,
            user_bytes: self.user_bytes,
            page_bytes: page,
            pages,
            buffer_objects: self.buffer_objects,
            display_lists: self.display_lists,
            textures: self.textures,
            mip_levels: self.mip_levels,
            bytes_per_texture: self.texture_bytes / u64::from(self.textures),
        })
    }
}
