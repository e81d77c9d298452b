//! The `tmu` unit's model: commands in (descriptor writes and sample requests), colours
//! out, one response per sample request. The texture parameter memory is modelled as
//! the RTL holds it (raw register words); a sample reads its descriptor, takes the
//! features the config leaves out back to ones it has, and samples the texture from the
//! simulated memory through [`super::sampler`], the same integer stages as the RTL.
//!
//! Descriptor registers (word `reg` of texture `tex`): the table is
//! [`crate::iface::tmu::REGS`] and the control register's fields
//! [`crate::iface::tmu::CTRL_FIELDS`], which tmu_lod's localparams and header are
//! rendered from. LOD bias and limits are 16-bit signed with 8 fraction bits; a level's
//! base is the word address (byte address / 4) of its first word.
//!
//! Writes to a register or texture that does not exist change nothing; a sample of a
//! texture id that does not exist reads an all-zero descriptor.

use std::cell::Cell;
use std::collections::BTreeMap;

use super::format::Rgba8;
use super::lod::{LOD_FRAC, LOD_MAX, LOD_MIN, bias_clamp};
use super::sampler::{
    Filter, MipImage, Sampler, TexImage, lod_fixed, quad_lambda, sample_lanes, select_levels,
};
use crate::config::{TexFormat, TexLayout, Tmu, Wrap};
use crate::iface::field;
use crate::iface::tex_filter::FilterLayout;
use crate::iface::tmu::{CTRL_FIELDS, LANE_W, REG_BASE0, REG_BIAS, REG_CTRL, REG_LODS, TmuLayout};
use crate::iface::{Dir, StreamPort};
use crate::model::tex_filter::encode_rsp;
use crate::rng::{Rng, memory_word};
use crate::vectors::{Bits, PortVectors, VectorSet};

/// One command of the unit's input stream.
#[derive(Debug, Clone, PartialEq)]
pub enum TmuCmd {
    /// Writes register `reg` of texture `tex`'s descriptor.
    Write { tex: u32, reg: u32, data: u32 },
    /// Samples texture `tex` at each lane's (s, t), at the explicit level of detail `lod`
    /// or at the one from the quad's differences.
    Sample {
        tex: u32,
        lod: Option<f32>,
        lanes: Vec<Lane>,
    },
}

/// One lane of a sample request. A masked lane returns zero and reads no texels, but its
/// coordinates still count in the quad's differences (as a helper pixel's do).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lane {
    pub s: f32,
    pub t: f32,
    pub active: bool,
}

/// A field of the control word.
pub fn ctrl_field(ctrl: u32, name: &str) -> u32 {
    let (lsb, bits) = CTRL_FIELDS
        .iter()
        .find(|f| f.0 == name)
        .map_or((0, 0), |f| (f.1, f.2));
    (ctrl >> lsb) & ((1 << bits) - 1)
}

/// Builds a control word from its fields.
pub fn ctrl_word(fields: &[(&str, u32)]) -> u32 {
    fields.iter().fold(0, |w, &(name, v)| {
        let (lsb, bits) = CTRL_FIELDS
            .iter()
            .find(|f| f.0 == name)
            .map_or((0, 0), |f| (f.1, f.2));
        w | ((v & ((1 << bits) - 1)) << lsb)
    })
}

/// A texture as a descriptor places it in the simulated memory.
struct MemTexture<'a> {
    format: TexFormat,
    layout: TexLayout,
    log2: (u32, u32),
    last: u32,
    bases: &'a [u32],
    memory: &'a Memory,
    /// Words read: the cache's texel lookups (a DXT1 texel is two).
    reads: &'a Cell<u64>,
}

/// Words placed in memory (word address -> word); the rest is
/// [`memory_word`] of the byte address, as the harness's memory model holds it.
pub type Memory = BTreeMap<u32, u32>;

impl TexImage for MemTexture<'_> {
    fn format(&self) -> TexFormat {
        self.format
    }
    fn layout(&self) -> TexLayout {
        self.layout
    }
    fn log2_size(&self) -> (u32, u32) {
        self.log2
    }
    fn last_level(&self) -> u32 {
        self.last
    }
    fn word(&self, level: u32, index: u32) -> u32 {
        // Word addresses are 30 bits and wrap, as the address adders do.
        let w = self.bases[level as usize].wrapping_add(index) & 0x3fff_ffff;
        self.reads.set(self.reads.get() + 1);
        self.memory
            .get(&w)
            .copied()
            .unwrap_or_else(|| memory_word(u64::from(w) * 4))
    }
}

pub struct TmuModel {
    tmu: Tmu,
    layout: TmuLayout,
    /// Per texture: its register words.
    regs: Vec<Vec<u32>>,
    memory: Memory,
    /// Words read so far (texel lookups in the cache).
    pub reads: Cell<u64>,
    /// Samples so far whose two quads (8 lanes) differ in pass count: one trilinear, one
    /// not, so the request's second pass masks one quad.
    pub mixed_passes: Cell<u64>,
}

impl TmuModel {
    pub fn new(tmu: &Tmu, memory: Memory) -> Self {
        let layout = TmuLayout::new(tmu);
        Self {
            tmu: tmu.clone(),
            layout,
            regs: vec![vec![0; layout.regs as usize]; tmu.textures as usize],
            memory,
            reads: Cell::new(0),
            mixed_passes: Cell::new(0),
        }
    }

    /// The filter the unit applies for a descriptor's code: a disabled or unknown one
    /// falls back to nearest, or linear when nearest is disabled.
    pub fn effective_filter(&self, code: u32) -> Filter {
        match Filter::ALL.get(code as usize) {
            Some(f) if self.tmu.filters.contains(f) => *f,
            _ if self.tmu.filters.contains(&Filter::Nearest) => Filter::Nearest,
            _ => Filter::Linear,
        }
    }

    /// The wrap the unit applies: a disabled or unknown one falls back to the first
    /// enabled one.
    pub fn effective_wrap(&self, code: u32) -> Wrap {
        match Wrap::ALL.get(code as usize) {
            Some(w) if self.tmu.wraps.contains(w) => *w,
            _ => self.tmu.wraps[0],
        }
    }

    /// Runs one command; a sample returns each lane's colour (masked lanes and disabled
    /// formats read as zero).
    pub fn step(&mut self, cmd: &TmuCmd) -> Option<Vec<Rgba8>> {
        match cmd {
            TmuCmd::Write { tex, reg, data } => {
                if let Some(r) = self
                    .regs
                    .get_mut(*tex as usize)
                    .and_then(|t| t.get_mut(*reg as usize))
                {
                    *r = if *reg >= REG_BASE0 {
                        data & 0x3fff_ffff
                    } else {
                        *data
                    };
                }
                None
            }
            TmuCmd::Sample { tex, lod, lanes } => Some(self.sample(*tex, *lod, lanes)),
        }
    }

    fn sample(&self, tex: u32, lod: Option<f32>, lanes: &[Lane]) -> Vec<Rgba8> {
        let zero = vec![0; self.layout.regs as usize];
        let r = self.regs.get(tex as usize).unwrap_or(&zero);
        let ctrl = r[REG_CTRL as usize];
        let f = |name| ctrl_field(ctrl, name);
        let max_log2 = self.tmu.mip_levels - 1;
        let format = TexFormat::ALL[f("format") as usize];
        let sampler = Sampler {
            min_filter: self.effective_filter(f("min_filter")),
            mag_filter: self.effective_filter(f("mag_linear")),
            wrap_s: self.effective_wrap(f("wrap_s")),
            wrap_t: self.effective_wrap(f("wrap_t")),
            lod_bias: sext16(r[REG_BIAS as usize]),
            min_lod: sext16(r[REG_LODS as usize]),
            max_lod: sext16(r[REG_LODS as usize] >> 16),
            weight_bits: self.tmu.weight_bits,
        };
        let img = MemTexture {
            format,
            layout: self.tmu.cache.layout,
            log2: (
                f("log2_width").min(max_log2),
                f("log2_height").min(max_log2),
            ),
            last: f("last_level").min(max_log2),
            bases: &r[REG_BASE0 as usize..],
            memory: &self.memory,
            reads: &self.reads,
        };
        let enabled = self.tmu.has_format(format);
        let mut trilinear = Vec::new();
        // Each quad of 4 lanes (8 lanes are two) has its own LOD; fewer lanes than a quad
        // have no differences, so the explicit LOD or 0.
        let colours = lanes
            .chunks(4)
            .flat_map(|quad| {
                let st: Vec<(f32, f32)> = quad.iter().map(|l| (l.s, l.t)).collect();
                let lambda = match (st.as_slice(), lod) {
                    (&[a, b, c, d], _) => quad_lambda(&img, &sampler, &[a, b, c, d], lod),
                    (_, lod) => bias_clamp(
                        lod.map_or(0, lod_fixed),
                        sampler.lod_bias,
                        sampler.min_lod,
                        sampler.max_lod,
                    ),
                };
                trilinear.push(select_levels(&img, &sampler, lambda).2 != 0);
                // Only active lanes read texels (the cache counts their lookups).
                let active: Vec<(f32, f32)> = quad
                    .iter()
                    .filter(|l| l.active)
                    .map(|l| (l.s, l.t))
                    .collect();
                let mut colours = sample_lanes(&img, &sampler, &active, lambda).into_iter();
                quad.iter()
                    .map(|l| match l.active.then(|| colours.next()).flatten() {
                        Some(c) if enabled => c,
                        _ => [0; 4],
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        if trilinear.len() == 2 && trilinear[0] != trilinear[1] {
            self.mixed_passes.set(self.mixed_passes.get() + 1);
        }
        colours
    }
}

/// A 16-bit two's-complement field as i32 (LOD_FRAC fraction bits).
fn sext16(w: u32) -> i32 {
    i32::from(w as u16 as i16)
}

/// The LOD of `levels` as a descriptor register value (16-bit, LOD_FRAC fraction bits).
pub fn lod_reg(levels: f64) -> u32 {
    u32::from(
        ((levels * f64::from(1u32 << LOD_FRAC)).round() as i32).clamp(-32768, 32767) as i16 as u16,
    )
}

/// The command word (see [`TmuLayout`]).
pub fn encode_cmd(l: &TmuLayout, cmd: &TmuCmd) -> Bits {
    let mut b = Bits::zero(l.req_w);
    match cmd {
        TmuCmd::Write { tex, reg, data } => {
            let f = l.write_fields();
            let put = |b: &mut Bits, name: &str, v: u32| {
                let x = field::get(&f, name);
                b.set_field(x.lsb, x.width, u64::from(v));
            };
            put(&mut b, "Data", *data);
            put(&mut b, "Reg", *reg);
            put(&mut b, "Tex", *tex);
            b.set_field(l.req_w - 1, 1, 1);
        }
        TmuCmd::Sample { tex, lod, lanes } => {
            let f = l.sample_fields();
            let at = field::get(&f, "Lanes").lsb;
            for (i, lane) in lanes.iter().enumerate() {
                let at = at + i as u32 * LANE_W;
                b.set_field(at, 32, u64::from(lane.s.to_bits()));
                b.set_field(at + 32, 32, u64::from(lane.t.to_bits()));
                b.set_field(at + 64, 1, u64::from(lane.active));
            }
            if let Some(lod) = lod {
                let x = field::get(&f, "Lod");
                b.set_field(x.lsb, x.width, u64::from(lod.to_bits()));
                b.set_field(field::get(&f, "HasLod").lsb, 1, 1);
            }
            let x = field::get(&f, "Tex");
            b.set_field(x.lsb, x.width, u64::from(*tex));
        }
    }
    b
}

/// Coordinates no texture should trip over: NaN, infinities, huge, tiny and negative.
fn special(rng: &mut Rng) -> f32 {
    const S: [f32; 12] = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1e30,
        -1e30,
        1099511627776.0,
        -0.0,
        1e-40,
        -1e-40,
        -0.5,
        1.0,
        -3.75,
    ];
    if rng.chance(0.3) {
        f32::from_bits(rng.next_u64() as u32)
    } else {
        S[(rng.next_u64() % S.len() as u64) as usize]
    }
}

/// A random descriptor: mostly enabled features and sizes that exist, now and then a
/// disabled or unknown code, a level count beyond the texture, odd LOD limits.
fn random_descriptor(tmu: &Tmu, tex: u32, rng: &mut Rng) -> Vec<TmuCmd> {
    let pick = |rng: &mut Rng, n: u32| (rng.next_u64() % u64::from(n)) as u32;
    let format = if rng.chance(0.9) {
        tmu.formats[pick(rng, tmu.formats.len() as u32) as usize].code()
    } else {
        pick(rng, 8)
    };
    let codes = [
        format,
        pick(rng, 8),
        pick(rng, 2),
        pick(rng, 4),
        pick(rng, 4),
    ];
    descriptor(tmu, tex, codes, rng)
}

/// A descriptor of the given {format, min_filter, mag_linear, wrap_s, wrap_t} codes, with
/// random sizes, level count, bias, LOD limits and level addresses.
fn descriptor(tmu: &Tmu, tex: u32, codes: [u32; 5], rng: &mut Rng) -> Vec<TmuCmd> {
    let max = tmu.mip_levels - 1;
    let pick = |rng: &mut Rng, n: u32| (rng.next_u64() % u64::from(n)) as u32;
    let (lw, lh) = (pick(rng, max + 1), pick(rng, max + 1));
    let ctrl = ctrl_word(&[
        ("format", codes[0]),
        ("min_filter", codes[1]),
        ("mag_linear", codes[2]),
        ("wrap_s", codes[3]),
        ("wrap_t", codes[4]),
        ("log2_width", lw),
        ("log2_height", lh),
        (
            "last_level",
            if rng.chance(0.9) {
                lw.max(lh)
            } else {
                pick(rng, 16)
            },
        ),
    ]);
    let lo = if rng.chance(0.7) {
        -4.0
    } else {
        rng.unit() * 2.0
    };
    let hi = if rng.chance(0.7) {
        16.0
    } else {
        rng.unit() * 4.0
    };
    let mut cmds = vec![
        TmuCmd::Write {
            tex,
            reg: REG_CTRL,
            data: ctrl,
        },
        TmuCmd::Write {
            tex,
            reg: REG_BIAS,
            data: lod_reg(rng.unit() * 3.0 - 1.5),
        },
        TmuCmd::Write {
            tex,
            reg: REG_LODS,
            data: lod_reg(lo) | lod_reg(hi) << 16,
        },
    ];
    for level in 0..tmu.mip_levels {
        cmds.push(TmuCmd::Write {
            tex,
            reg: REG_BASE0 + level,
            data: rng.next_u64() as u32,
        });
    }
    cmds
}

/// A sample request: a 2x2 quad of a rotated, scaled view (lambda from about -3 to 5
/// levels), now and then special coordinates, an explicit LOD, masked lanes.
fn random_sample(tmu: &Tmu, tex: u32, rng: &mut Rng) -> TmuCmd {
    let size = f64::from(1u32 << (rng.next_u64() % u64::from(tmu.mip_levels)));
    let scale = 2f64.powf(rng.unit() * 8.0 - 3.0) / size;
    let angle = rng.unit() * std::f64::consts::TAU;
    let (dx, dy) = (
        (scale * angle.cos(), scale * angle.sin()),
        (-scale * angle.sin(), scale * angle.cos()),
    );
    let (mut s0, mut t0) = (rng.unit() * 5.0 - 2.0, rng.unit() * 5.0 - 2.0);
    let (mut dx, mut dy) = (dx, dy);
    let specials = rng.chance(0.08);
    let lanes = (0..tmu.lanes)
        .map(|i| {
            // The second quad of 8 lanes continues the first (two quads stacked), or half
            // the time is a quad of its own scale and place, so that the two quads'
            // levels and trilinear passes differ.
            if i == 4 && rng.chance(0.5) {
                let scale = 2f64.powf(rng.unit() * 8.0 - 3.0) / size;
                let angle = rng.unit() * std::f64::consts::TAU;
                dx = (scale * angle.cos(), scale * angle.sin());
                dy = (-scale * angle.sin(), scale * angle.cos());
                (s0, t0) = (rng.unit() * 5.0 - 2.0, rng.unit() * 5.0 - 2.0);
                (s0, t0) = (s0 - 2.0 * dy.0, t0 - 2.0 * dy.1);
            }
            let (x, y) = (f64::from(i & 1), f64::from(i >> 1));
            let mut st = (
                (s0 + x * dx.0 + y * dy.0) as f32,
                (t0 + x * dx.1 + y * dy.1) as f32,
            );
            if specials && rng.chance(0.5) {
                st.0 = special(rng);
            }
            if specials && rng.chance(0.5) {
                st.1 = special(rng);
            }
            Lane {
                s: st.0,
                t: st.1,
                active: !rng.chance(0.1),
            }
        })
        .collect();
    let lod = rng.chance(0.15).then(|| {
        if rng.chance(0.1) {
            special(rng)
        } else {
            (rng.unit() * 17.0 - 3.0) as f32
        }
    });
    TmuCmd::Sample { tex, lod, lanes }
}

/// `count` sample requests after every descriptor is written; now and then a descriptor
/// is rewritten, and a write to a register or texture that does not exist goes by.
pub fn random_commands(tmu: &Tmu, count: usize, seed: u64) -> Vec<TmuCmd> {
    let l = TmuLayout::new(tmu);
    let mut rng = Rng::stream(seed, 41);
    let mut cmds: Vec<TmuCmd> = (0..tmu.textures)
        .flat_map(|t| random_descriptor(tmu, t, &mut rng))
        .collect();
    let mut samples = 0;
    while samples < count {
        if rng.chance(0.005) {
            let tex = (rng.next_u64() % u64::from(tmu.textures)) as u32;
            cmds.extend(random_descriptor(tmu, tex, &mut rng));
        } else if rng.chance(0.003) {
            cmds.push(TmuCmd::Write {
                tex: (rng.next_u64() % (1 << l.tex_w)) as u32,
                reg: (rng.next_u64() % (1 << l.reg_w)) as u32,
                data: rng.next_u64() as u32,
            });
        } else {
            let tex = (rng.next_u64() % u64::from(tmu.textures)) as u32;
            cmds.push(random_sample(tmu, tex, &mut rng));
            samples += 1;
        }
    }
    cmds
}

/// Every combination of an enabled format, minification filter and wrap (on s; t takes
/// the next enabled wrap), each written to a descriptor of its own and sampled by `per`
/// random requests; the magnification filter alternates.
pub fn coverage_commands(tmu: &Tmu, per: usize, seed: u64) -> Vec<TmuCmd> {
    let mut rng = Rng::stream(seed, 42);
    let mut cmds = Vec::new();
    let mut k = 0u32;
    for f in &tmu.formats {
        for min in &tmu.filters {
            for (j, ws) in tmu.wraps.iter().enumerate() {
                let wt = tmu.wraps[(j + 1) % tmu.wraps.len()];
                let tex = k % tmu.textures;
                let codes = [f.code(), min.code(), k % 2, ws.code(), wt.code()];
                cmds.extend(descriptor(tmu, tex, codes, &mut rng));
                for _ in 0..per {
                    cmds.push(random_sample(tmu, tex, &mut rng));
                }
                k += 1;
            }
        }
    }
    cmds
}

/// Stimulus and expected responses for the commands, with `memory` placed (written as
/// `mem_words`, which the harness's memory model loads), and the model's colours.
pub fn vectors_for(
    tmu: &Tmu,
    cmds: &[TmuCmd],
    memory: Memory,
    seed: u64,
) -> (VectorSet, Vec<Vec<Rgba8>>) {
    let l = TmuLayout::new(tmu);
    let fl = FilterLayout::new(tmu);
    let words: Vec<Bits> = memory
        .iter()
        .map(|(&a, &w)| Bits::from_u64(64, (u64::from(w) << 32) | (u64::from(a) * 4)))
        .collect();
    let mut model = TmuModel::new(tmu, memory);
    let colours: Vec<Vec<Rgba8>> = cmds.iter().filter_map(|c| model.step(c)).collect();
    let [req, rsp] = [0, 1].map(|i| l.ports()[i].clone());
    let mut ports = vec![
        PortVectors {
            port: req,
            items: cmds.iter().map(|c| encode_cmd(&l, c)).collect(),
        },
        PortVectors {
            port: rsp,
            items: colours
                .iter()
                .map(|c| encode_rsp(&fl, tmu.output, c))
                .collect(),
        },
    ];
    if !words.is_empty() {
        ports.push(PortVectors {
            port: StreamPort {
                name: "mem_words".into(),
                dir: Dir::In,
                width: 64,
            },
            items: words,
        });
    }
    let v = VectorSet {
        unit: "tmu".into(),
        seed,
        ports,
    };
    (v, colours)
}

/// `count` random sample requests and their responses.
pub fn vectors(tmu: &Tmu, count: usize, seed: u64) -> VectorSet {
    vectors_for(tmu, &random_commands(tmu, count, seed), Memory::new(), seed).0
}

/// Where [`load_texture`] puts a texture's levels: from this byte address up.
pub const TEXTURE_BASE: u32 = 0x0010_0000;

/// The descriptor writes that make `img` texture `tex` under `sampler`, and the words
/// of its levels in memory (each level starting on a fresh 256-byte boundary).
pub fn load_texture(tex: u32, img: &MipImage, sampler: &Sampler) -> (Vec<TmuCmd>, Memory) {
    let mut memory = Memory::new();
    let mut cmds = Vec::new();
    let mut at = TEXTURE_BASE / 4;
    for (level, words) in img.levels.iter().enumerate() {
        cmds.push(TmuCmd::Write {
            tex,
            reg: REG_BASE0 + level as u32,
            data: at,
        });
        for (i, &w) in words.iter().enumerate() {
            memory.insert(at + i as u32, w);
        }
        at += (words.len() as u32).div_ceil(64) * 64;
    }
    let lod = |x: i32| u32::from(x.clamp(LOD_MIN, LOD_MAX) as i16 as u16);
    cmds.push(TmuCmd::Write {
        tex,
        reg: REG_CTRL,
        data: ctrl_word(&[
            ("format", img.format.code()),
            ("min_filter", sampler.min_filter.code()),
            (
                "mag_linear",
                u32::from(sampler.mag_filter == Filter::Linear),
            ),
            ("wrap_s", sampler.wrap_s.code()),
            ("wrap_t", sampler.wrap_t.code()),
            ("log2_width", img.log2_width),
            ("log2_height", img.log2_height),
            ("last_level", img.levels.len() as u32 - 1),
        ]),
    });
    cmds.push(TmuCmd::Write {
        tex,
        reg: REG_BIAS,
        data: lod(sampler.lod_bias),
    });
    cmds.push(TmuCmd::Write {
        tex,
        reg: REG_LODS,
        data: lod(sampler.min_lod) | lod(sampler.max_lod) << 16,
    });
    (cmds, memory)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmu(lanes: u32) -> Tmu {
        let text = format!(
            "[design]\nname = \"t\"\n[tmu]\nlanes = {lanes}\n[tmu.cache]\nsize_bytes = 2048\n\
             line_bytes = 256\nways = 8\nbanks = 16\nports = {}\nmshr_entries = 8\n\
             replacement = \"lru\"\nbus_bits = 64\nlayout = \"tiled4x4\"\nqueue_depth = 16\n",
            4 * lanes
        );
        crate::config::parse(&text, "test")
            .expect("valid")
            .tmu
            .expect("a tmu")
    }

    #[test]
    fn eight_lanes_sample_as_two_four_lane_quads() {
        let (t8, t4) = (tmu(8), tmu(4));
        let mut m8 = TmuModel::new(&t8, Memory::new());
        let mut m4 = TmuModel::new(&t4, Memory::new());
        for c in random_commands(&t8, 3000, 5) {
            let TmuCmd::Sample { tex, lod, lanes } = &c else {
                m8.step(&c);
                m4.step(&c);
                continue;
            };
            let got = m8.step(&c).expect("a sample answers");
            let quads: Vec<Rgba8> = lanes
                .chunks(4)
                .flat_map(|q| {
                    let half = TmuCmd::Sample {
                        tex: *tex,
                        lod: *lod,
                        lanes: q.to_vec(),
                    };
                    m4.step(&half).expect("a sample answers")
                })
                .collect();
            assert_eq!(got, quads, "{c:?}");
        }
    }
}
