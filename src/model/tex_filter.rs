//! The `tex_filter` unit's model: format conversion and filter lanes, request in, colours
//! out, with the arithmetic of `tmu::format` and `tmu::filter`. Bit exact with
//! templates/rtl/tex_filter.v, including the trilinear accumulator it keeps between
//! requests.

use crate::config::{TexFormat, TexOutput, Tmu};
use crate::iface::field::{Field, get};
use crate::iface::tex_filter::{BLEND_W, FORMAT_W, FilterLayout, PASS_W, WORD_W};
use crate::iface::{Dir, StreamPort};
use crate::rng::Rng;
use crate::vectors::{Bits, PortVectors, VectorSet};

use super::tmu::filter::{bilinear_sum, round, trilinear, unorm8_to_f32};
use super::tmu::format::{Rgba8, decode_dxt1, decode_word};
use super::tmu::lod::LOD_FRAC;

pub use crate::iface::tex_filter::{PASS_FIRST, PASS_SECOND, PASS_SINGLE};

/// One texel as the cache delivers it: the word holding it, the DXT1 index word, and
/// its index in the word (or block).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TexelIn {
    pub word: u32,
    pub aux: u32,
    pub sub: u32,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LaneIn {
    pub active: bool,
    pub a: u32,
    pub b: u32,
    pub texels: [TexelIn; 4],
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterReq {
    pub pass: u32,
    /// The trilinear weight of each quad of 4 lanes (one for fewer lanes).
    pub f: Vec<u32>,
    pub format: u32,
    pub lanes: Vec<LaneIn>,
}

/// The unit's state: the accumulator of each lane (reset to zero).
pub struct FilterModel {
    tmu: Tmu,
    acc: Vec<[u64; 4]>,
}

impl FilterModel {
    pub fn new(tmu: &Tmu) -> Self {
        Self {
            tmu: tmu.clone(),
            acc: vec![[0; 4]; tmu.lanes as usize],
        }
    }

    fn texel(&self, format: u32, t: &TexelIn) -> Rgba8 {
        let Some(&f) = TexFormat::ALL.get(format as usize) else {
            return [0; 4];
        };
        if !self.tmu.has_format(f) {
            return [0; 4];
        }
        match f {
            TexFormat::Dxt1 => decode_dxt1(t.word, t.aux, t.sub & 15),
            _ => decode_word(f, t.word, t.sub % f.texels_per_word()),
        }
    }

    /// The lanes' colours for one request; `None` for a first pass (no response).
    pub fn step(&mut self, req: &FilterReq) -> Option<Vec<Rgba8>> {
        let bits = self.tmu.weight_bits;
        let mut out = Vec::with_capacity(req.lanes.len());
        for (l, lane) in req.lanes.iter().enumerate() {
            let texels = lane.texels.map(|t| self.texel(req.format, &t));
            let sum = bilinear_sum(texels, lane.a, lane.b, bits);
            let c = match req.pass {
                PASS_FIRST => {
                    self.acc[l] = sum;
                    [0; 4]
                }
                PASS_SECOND => {
                    let f = req.f.get(l / 4).copied().unwrap_or(0);
                    trilinear(self.acc[l], sum, f, LOD_FRAC, bits)
                }
                _ => round(sum, 2 * bits),
            };
            out.push(if lane.active { c } else { [0; 4] });
        }
        (req.pass != PASS_FIRST).then_some(out)
    }
}

/// The request word, packed by the layout's field tables (the RTL slices it by the same
/// tables' `Req`, `Lane` and `Tex` localparams).
pub fn encode_req(l: &FilterLayout, req: &FilterReq) -> Bits {
    let (rq, ln, tx) = (l.req_fields(), l.lane_fields(), l.texel_fields());
    let at = |fields: &[Field], name: &str| get(fields, name).lsb;
    let mut b = Bits::zero(l.req_w);
    for (i, lane) in req.lanes.iter().enumerate() {
        let base = at(&rq, "Lanes") + i as u32 * l.lane_w;
        b.set_field(base + at(&ln, "Active"), 1, u64::from(lane.active));
        b.set_field(base + at(&ln, "A"), l.wbits, u64::from(lane.a));
        b.set_field(base + at(&ln, "B"), l.wbits, u64::from(lane.b));
        for (k, t) in lane.texels.iter().enumerate() {
            let tex = base + at(&ln, "Texels") + k as u32 * l.tex_w;
            b.set_field(tex + at(&tx, "Sub"), l.sub_w, u64::from(t.sub));
            b.set_field(tex + at(&tx, "Word"), WORD_W, u64::from(t.word));
            if l.dxt1 {
                b.set_field(tex + at(&tx, "Aux"), WORD_W, u64::from(t.aux));
            }
        }
    }
    b.set_field(at(&rq, "Format"), FORMAT_W, u64::from(req.format));
    for (q, f) in req.f.iter().enumerate() {
        b.set_field(
            at(&rq, "Blends") + BLEND_W * q as u32,
            BLEND_W,
            u64::from(*f),
        );
    }
    b.set_field(at(&rq, "Pass"), PASS_W, u64::from(req.pass));
    b
}

/// The response word: per lane RGBA8 (R lowest) or four fp32 channels.
pub fn encode_rsp(l: &FilterLayout, output: TexOutput, lanes: &[Rgba8]) -> Bits {
    let mut b = Bits::zero(l.rsp_w);
    for (i, c) in lanes.iter().enumerate() {
        let base = i as u32 * l.out_lane_w;
        for (ch, v) in c.iter().enumerate() {
            match output {
                TexOutput::Rgba8 => b.set_field(base + ch as u32 * 8, 8, u64::from(*v)),
                TexOutput::Fp32 => b.set_field(
                    base + ch as u32 * 32,
                    32,
                    u64::from(unorm8_to_f32(*v).to_bits()),
                ),
            }
        }
    }
    b
}

/// Random requests: the enabled formats (and now and then a disabled or unknown code),
/// words with equal halves now and then (DXT1 blocks of one colour),
/// weights across their range (a quarter nearest, a = b = 0), trilinear pairs and single
/// samples, now and then a lone second pass, random masks, words and texel indices.
pub fn random_requests(tmu: &Tmu, count: usize, seed: u64) -> Vec<FilterReq> {
    let l = FilterLayout::new(tmu);
    let mut rng = Rng::stream(seed, 40);
    let mut out = Vec::with_capacity(count);
    let mut pending_second = false;
    while out.len() < count {
        let format = if rng.chance(0.05) {
            (rng.next_u64() % 8) as u32
        } else {
            tmu.formats[(rng.next_u64() % tmu.formats.len() as u64) as usize].code()
        };
        let pass = if pending_second {
            pending_second = false;
            PASS_SECOND
        } else if rng.chance(0.3) {
            pending_second = true;
            PASS_FIRST
        } else if rng.chance(0.05) {
            PASS_SECOND
        } else if rng.chance(0.1) {
            3
        } else {
            PASS_SINGLE
        };
        let wmax = 1u64 << l.wbits;
        let nearest = rng.chance(0.25);
        let lanes = (0..l.lanes)
            .map(|_| LaneIn {
                active: rng.chance(0.9),
                a: if nearest {
                    0
                } else {
                    (rng.next_u64() % wmax) as u32
                },
                b: if nearest {
                    0
                } else {
                    (rng.next_u64() % wmax) as u32
                },
                texels: std::array::from_fn(|_| TexelIn {
                    // A tenth have equal halves: DXT1's solid blocks (colour 0 = colour 1).
                    word: if rng.chance(0.1) {
                        (rng.next_u64() as u32 & 0xffff) * 0x1_0001
                    } else {
                        rng.next_u64() as u32
                    },
                    aux: if l.dxt1 { rng.next_u64() as u32 } else { 0 },
                    sub: (rng.next_u64() % (1 << l.sub_w)) as u32,
                }),
            })
            .collect();
        out.push(FilterReq {
            pass,
            f: (0..l.quads)
                .map(|_| (rng.next_u64() % 256) as u32)
                .collect(),
            format,
            lanes,
        });
    }
    out
}

/// Stimulus and expected responses for `count` random requests.
pub fn vectors(tmu: &Tmu, count: usize, seed: u64) -> VectorSet {
    let l = FilterLayout::new(tmu);
    let reqs = random_requests(tmu, count, seed);
    let mut model = FilterModel::new(tmu);
    let mut rsps = Vec::new();
    for r in &reqs {
        if let Some(c) = model.step(r) {
            rsps.push(encode_rsp(&l, tmu.output, &c));
        }
    }
    let port = |name: &str, dir, width| StreamPort {
        name: name.into(),
        dir,
        width,
    };
    VectorSet {
        unit: "tex_filter".into(),
        seed,
        ports: vec![
            PortVectors {
                port: port("req", Dir::In, l.req_w),
                items: reqs.iter().map(|r| encode_req(&l, r)).collect(),
            },
            PortVectors {
                port: port("rsp", Dir::Out, l.rsp_w),
                items: rsps,
            },
        ],
    }
}
