//! The GPU subsystem (`gpu`): which `[[mem.requesters]]` serves which unit's memory
//! traffic (`serves`), and `[gpu]`, the framebuffer's geometry. A config with `[ipu]`,
//! `[tmu]` and `[mem]` has a `gpu` unit and must bind every traffic its units make.

use serde::{Deserialize, Serialize};

use super::error::{Invalid, Seg, path};
use super::{Access, Ipu, Mem, Tmu};

/// A unit's memory traffic that a requester of the arbiter carries in the `gpu` top.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Serves {
    /// The IPU's DMA: DRAW_PIXELS' and BITMAP's words read, READ_PIXELS' words written.
    #[serde(rename = "ipu.dma")]
    IpuDma,
    /// The framebuffer: the IPU's pixels written, regions read (READ_PIXELS, COPY_PIXELS,
    /// COPY_TEX_IMAGE).
    #[serde(rename = "ipu.fb")]
    IpuFb,
    /// COPY_TEX_IMAGE's texture words written.
    #[serde(rename = "ipu.tex")]
    IpuTex,
    /// The texture cache's line fills.
    #[serde(rename = "tmu.mem")]
    TmuMem,
}

pub const SERVES_ALLOWED: &str = "\"ipu.dma\", \"ipu.fb\", \"ipu.tex\" or \"tmu.mem\", each served by one requester (ipu.tex may be left to ipu.fb's; a requester serving none is a port of the gpu top)";
pub const FB_SIDE_ALLOWED: &str = "a power of two in 16..=4096 pixels; width x height x 4 bytes within the image area's destination slot (mem.map.image_bytes / 4)";

impl Serves {
    pub const ALL: [Serves; 4] = [
        Serves::IpuDma,
        Serves::IpuFb,
        Serves::IpuTex,
        Serves::TmuMem,
    ];

    /// Its place in [`Serves::ALL`] (declaration order).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The name `serves` takes.
    pub fn key(self) -> &'static str {
        match self {
            Serves::IpuDma => "ipu.dma",
            Serves::IpuFb => "ipu.fb",
            Serves::IpuTex => "ipu.tex",
            Serves::TmuMem => "tmu.mem",
        }
    }

    /// What the traffic is, for messages and headers.
    pub fn what(self) -> &'static str {
        match self {
            Serves::IpuDma => {
                "the IPU's DMA: draw and bitmap words read, READ_PIXELS' words written"
            }
            Serves::IpuFb => "the framebuffer: pixels written, regions read",
            Serves::IpuTex => "COPY_TEX_IMAGE's texture words written",
            Serves::TmuMem => "the texture cache's line fills",
        }
    }

    /// The access the traffic needs with this config's units, `None` when they make none:
    /// the IPU's reads and writes besides DRAW_PIXELS come with its framebuffer paths.
    pub fn needs(self, ipu: Option<&Ipu>, tmu: Option<&Tmu>) -> Option<Access> {
        let fb = ipu.map(|i| i.framebuffer);
        match self {
            Serves::IpuDma => fb.map(|f| if f { Access::Both } else { Access::Read }),
            Serves::IpuFb => fb.map(|f| if f { Access::Both } else { Access::Write }),
            Serves::IpuTex => fb.filter(|f| *f).map(|_| Access::Write),
            Serves::TmuMem => tmu.map(|_| Access::Read),
        }
    }
}

/// `[gpu]` as written.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuSection {
    #[serde(default = "default_side")]
    pub fb_width: u32,
    #[serde(default = "default_side")]
    pub fb_height: u32,
}

fn default_side() -> u32 {
    DEFAULT_FB_SIDE
}

/// The framebuffer's width and height without a `[gpu]` table.
pub const DEFAULT_FB_SIDE: u32 = 512;

/// The validated GPU subsystem.
#[derive(Debug, Clone, Serialize)]
pub struct Gpu {
    /// The framebuffer, RGBA8 pixels, row `y` at `y * fb_width` pixels from its base.
    pub fb_width: u32,
    pub fb_height: u32,
    /// The requester index serving each traffic of [`Serves::ALL`], in that order; `None`
    /// for a traffic this config does not make.
    pub requester: [Option<usize>; 4],
}

impl Gpu {
    /// The requester serving `s`.
    pub fn requester(&self, s: Serves) -> Option<usize> {
        self.requester[s.index()]
    }
}

fn requester_key(i: usize, key: &str) -> Vec<Seg> {
    let mut p = path(&["mem", "requesters"]);
    p.push(Seg::Index(i));
    p.push(Seg::Key(key.into()));
    p
}

/// Checks the bindings and `[gpu]` against the units the config has; the `gpu` unit
/// exists when `[ipu]`, `[tmu]` and `[mem]` all do.
pub fn validate(
    section: Option<&GpuSection>,
    ipu: Option<&Ipu>,
    tmu: Option<&Tmu>,
    mem: Option<&Mem>,
    errs: &mut Vec<Invalid>,
) -> Option<Gpu> {
    let before = errs.len();
    let Some(mem) = mem else {
        if section.is_some() {
            errs.push(Invalid::at(
                &path(&["gpu"]),
                "[gpu] without [mem]: the GPU top joins [ipu], [tmu] and [mem]",
                "a config with [ipu], [tmu] and [mem], or no [gpu]",
            ));
        }
        return None;
    };
    let mut requester: [Option<usize>; 4] = [None; 4];
    for (i, r) in mem.requesters.iter().enumerate() {
        let Some(s) = r.serves else { continue };
        let k = s.index();
        if let Some(first) = requester[k] {
            errs.push(Invalid::at(
                &requester_key(i, "serves"),
                format!(
                    "\"{}\" is served by requester {:?} already",
                    s.key(),
                    mem.requesters[first].name
                ),
                SERVES_ALLOWED,
            ));
            continue;
        }
        match s.needs(ipu, tmu) {
            None => errs.push(Invalid::at(
                &requester_key(i, "serves"),
                format!(
                    "\"{}\" ({}): this config's units make no such traffic",
                    s.key(),
                    s.what()
                ),
                "a traffic of a unit the config has (ipu.tex and the IPU's reads of ipu.fb need ipu.framebuffer = true)",
            )),
            Some(a) => {
                if a != r.access {
                    errs.push(Invalid::at(
                        &requester_key(i, "access"),
                        format!(
                            "requester {:?} serves \"{}\" ({}), which needs access \"{}\", not \"{}\"",
                            r.name,
                            s.key(),
                            s.what(),
                            a.label(),
                            r.access.label()
                        ),
                        format!("\"{}\"", a.label()),
                    ));
                }
                // Bound either way: one problem, one error.
                requester[k] = Some(i);
            }
        }
    }
    let (Some(ipu), Some(tmu)) = (ipu, tmu) else {
        if section.is_some() {
            errs.push(Invalid::at(
                &path(&["gpu"]),
                "[gpu] without [ipu] and [tmu]: the GPU top joins [ipu], [tmu] and [mem]",
                "a config with [ipu], [tmu] and [mem], or no [gpu]",
            ));
        }
        return None;
    };
    // COPY_TEX_IMAGE's words may share the framebuffer's requester.
    for (k, s) in Serves::ALL
        .iter()
        .enumerate()
        .filter(|(_, s)| **s != Serves::IpuTex)
    {
        if let (Some(a), None) = (s.needs(Some(ipu), Some(tmu)), requester[k]) {
            errs.push(Invalid::at(
                &path(&["mem", "requesters"]),
                format!(
                    "the GPU top (this config has [ipu], [tmu] and [mem]) needs a requester that serves \"{}\" ({})",
                    s.key(),
                    s.what()
                ),
                format!(
                    "serves = \"{}\" in a [[mem.requesters]] table with access \"{}\"",
                    s.key(),
                    a.label()
                ),
            ));
        }
    }
    let Some(map) = mem.map.as_ref() else {
        errs.push(Invalid::at(
            &path(&["mem"]),
            "the GPU top places its framebuffer, DMA rings and textures in [mem.map]'s areas, and this [mem] has none",
            "a [mem.map] table",
        ));
        return None;
    };
    if !matches!(mem.data_bits, 32 | 64 | 128) || mem.data_bits < ipu.dma_word_bits {
        errs.push(Invalid::at(
            &path(&["mem", "data_bits"]),
            format!(
                "data_bits {} with the GPU top: a beat holds whole pixels and DMA words ({} bits) and a 128-bit framebuffer word is whole beats",
                mem.data_bits, ipu.dma_word_bits
            ),
            format!("32, 64 or 128, at least ipu.dma_word_bits ({})", ipu.dma_word_bits),
        ));
    }
    if tmu.cache.bus_bits != mem.data_bits {
        errs.push(Invalid::at(
            &path(&["tmu", "cache", "bus_bits"]),
            format!(
                "bus_bits {}: the cache's fills come from the memory port, whose beats are {} bits",
                tmu.cache.bus_bits, mem.data_bits
            ),
            format!("{} (mem.data_bits)", mem.data_bits),
        ));
    }
    let (w, h) = section.map_or((DEFAULT_FB_SIDE, DEFAULT_FB_SIDE), |g| {
        (g.fb_width, g.fb_height)
    });
    let side_ok = |x: u32| x.is_power_of_two() && (16..=4096).contains(&x);
    for (key, v) in [("fb_width", w), ("fb_height", h)] {
        if !side_ok(v) {
            errs.push(Invalid::at(
                &path(&["gpu", key]),
                format!("{key} {v} is not allowed"),
                FB_SIDE_ALLOWED,
            ));
        }
    }
    let slot = map.image_bytes / 4;
    if side_ok(w) && side_ok(h) && u64::from(w) * u64::from(h) * 4 > slot {
        let at = if section.is_some() {
            path(&["gpu", "fb_width"])
        } else {
            path(&["mem", "map", "image_bytes"])
        };
        errs.push(Invalid::at(
            &at,
            format!(
                "a {w} x {h} framebuffer ({} bytes) does not fit the image area's destination slot ({slot} bytes)",
                u64::from(w) * u64::from(h) * 4
            ),
            FB_SIDE_ALLOWED,
        ));
    }
    (errs.len() == before).then_some(Gpu {
        fb_width: w,
        fb_height: h,
        requester,
    })
}
