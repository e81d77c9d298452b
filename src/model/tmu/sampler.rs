//! A whole sample, the way the texture mapping unit computes it: LOD per quad, level
//! selection, texel coordinates and wrap per lane, texel fetch from the words in memory
//! and format conversion, and the filter lanes. The same integer stages as the RTL.

use super::coord::{self, Axis};
use super::filter::{bilinear_sum, round, trilinear};
use super::format::{Rgba8, TexFormat, decode_dxt1, decode_word};
use super::lod::{LOD_FRAC, LOD_MAX, LOD_MIN, bias_clamp, lambda};
use crate::config::TexLayout;
use crate::workload::Wrap;

pub use crate::config::Filter;

/// A texture as it sits in memory: 32-bit words per mip level, base level first.
#[derive(Debug, Clone)]
pub struct MipImage {
    pub format: TexFormat,
    /// Texel order of uncompressed formats; DXT1 is always 4x4 blocks in [`dxt1_block`] order.
    pub layout: TexLayout,
    pub log2_width: u32,
    pub log2_height: u32,
    pub levels: Vec<Vec<u32>>,
}

impl MipImage {
    pub fn level_log2(&self, level: u32) -> (u32, u32) {
        (
            self.log2_width.saturating_sub(level),
            self.log2_height.saturating_sub(level),
        )
    }

    /// Words of one level: padded to whole 4x4 tiles (or DXT1 blocks).
    pub fn level_words(format: TexFormat, log2_w: u32, log2_h: u32) -> usize {
        let tiles = (1usize << log2_w).div_ceil(4) * (1usize << log2_h).div_ceil(4);
        tiles * 16 * format.bits_per_texel() as usize / 32
    }

    /// Texel (u, v) of `level`, u and v already wrapped into the level.
    pub fn fetch(&self, level: u32, u: u32, v: u32) -> Rgba8 {
        fetch(self, level, u, v)
    }
}

/// Where a sampled texture's words come from: a [`MipImage`] in memory here, or the
/// simulated memory behind the `tmu` unit's descriptors.
pub trait TexImage {
    fn format(&self) -> TexFormat;
    fn layout(&self) -> TexLayout;
    /// log2 of the base level's width and height.
    fn log2_size(&self) -> (u32, u32);
    /// The highest level that exists.
    fn last_level(&self) -> u32;
    /// Word `index` of `level`.
    fn word(&self, level: u32, index: u32) -> u32;
}

impl TexImage for MipImage {
    fn format(&self) -> TexFormat {
        self.format
    }
    fn layout(&self) -> TexLayout {
        self.layout
    }
    fn log2_size(&self) -> (u32, u32) {
        (self.log2_width, self.log2_height)
    }
    fn last_level(&self) -> u32 {
        (self.levels.len() as u32).saturating_sub(1)
    }
    fn word(&self, level: u32, index: u32) -> u32 {
        self.levels[level as usize][index as usize]
    }
}

fn level_log2(img: &impl TexImage, level: u32) -> (u32, u32) {
    let (w, h) = img.log2_size();
    (w.saturating_sub(level), h.saturating_sub(level))
}

/// Where DXT1 block (bx, by) of a level `2^lw` x `2^lh` texels sits, in blocks from the
/// level's start. Blocks go in 2x2 groups (row-major inside a group, groups row-major), so
/// the four blocks a bilinear footprint can touch have distinct low bits of their index:
/// row-major, vertical neighbours are a multiple of 16 banks' worth of words apart. A level
/// one block wide or tall is a row of blocks.
pub fn dxt1_block(lw: u32, lh: u32, bx: u32, by: u32) -> u32 {
    if lw < 3 || lh < 3 {
        return (by << lw.saturating_sub(2)) + bx;
    }
    // Groups per row: 2^(lw - 3); each group is 4 blocks.
    ((by >> 1) << (lw - 1)) + ((bx >> 1) << 2) + ((by & 1) << 1) + (bx & 1)
}

/// Where texel (u, v) of a level `2^lw` x `2^lh` texels sits: its word index and its
/// index in the word (in the 4x4 block for DXT1, whose block `i` is words `2i` and
/// `2i + 1`, blocks in [`dxt1_block`] order).
pub fn texel_word(
    format: TexFormat,
    layout: TexLayout,
    lw: u32,
    lh: u32,
    u: u32,
    v: u32,
) -> (u32, u32) {
    // Tiles per row: 2^lw / 4, at least one.
    let tile = ((v / 4) << lw.saturating_sub(2)) + u / 4;
    let in_tile = (v % 4) * 4 + u % 4;
    if format == TexFormat::Dxt1 {
        return (2 * dxt1_block(lw, lh, u / 4, v / 4), in_tile);
    }
    let index = match layout {
        TexLayout::Linear => (v << lw) + u,
        TexLayout::Tiled4x4 => tile * 16 + in_tile,
    };
    let per = format.texels_per_word();
    (index / per, index % per)
}

/// Texel (u, v) of `level`, u and v already wrapped into the level.
pub fn fetch(img: &impl TexImage, level: u32, u: u32, v: u32) -> Rgba8 {
    let (lw, lh) = level_log2(img, level);
    let format = img.format();
    let (word, sub) = texel_word(format, img.layout(), lw, lh, u, v);
    if format == TexFormat::Dxt1 {
        return decode_dxt1(img.word(level, word), img.word(level, word + 1), sub);
    }
    decode_word(format, img.word(level, word), sub)
}

/// Texture and sampler state, as the texture parameter memory holds it.
#[derive(Debug, Clone, Copy)]
pub struct Sampler {
    pub min_filter: Filter,
    pub mag_filter: Filter,
    pub wrap_s: Wrap,
    pub wrap_t: Wrap,
    /// TEXTURE_LOD_BIAS, MIN_LOD, MAX_LOD in fixed point with LOD_FRAC fraction bits.
    pub lod_bias: i32,
    pub min_lod: i32,
    pub max_lod: i32,
    /// Bits of the bilinear weights.
    pub weight_bits: u32,
}

impl Sampler {
    /// Repeat wrap, no LOD bias or clamp, the given filters and weight bits: the state
    /// the benches and throughput runs sample with.
    pub fn repeat(min_filter: Filter, mag_filter: Filter, weight_bits: u32) -> Self {
        Self {
            min_filter,
            mag_filter,
            wrap_s: Wrap::Repeat,
            wrap_t: Wrap::Repeat,
            lod_bias: 0,
            min_lod: -100 << LOD_FRAC,
            max_lod: 100 << LOD_FRAC,
            weight_bits,
        }
    }
}

/// Fraction bits of the coordinates the LOD is computed from.
pub const DERIV_FRAC: u32 = 12;

/// fp32 to fixed point with LOD_FRAC fraction bits, saturating to the 16-bit range the
/// descriptors hold (+-128 levels); NaN is 0.
pub fn lod_fixed(lod: f32) -> i32 {
    coord::floor_shift_saturating(lod, LOD_FRAC as i32)
        .clamp(i64::from(LOD_MIN), i64::from(LOD_MAX)) as i32
}

/// Which level(s) a quad reads and how they blend: (level, next level, blend weight of
/// the next one with LOD_FRAC bits, filter within a level).
pub fn select_levels(
    img: &impl TexImage,
    sampler: &Sampler,
    lambda: i32,
) -> (u32, u32, u32, Filter) {
    let one = 1i32 << LOD_FRAC;
    let half = one / 2;
    let last = img.last_level();
    // GL's magnification switch-over point c.
    let c = if sampler.mag_filter == Filter::Linear
        && matches!(
            sampler.min_filter,
            Filter::NearestMipmapNearest | Filter::NearestMipmapLinear
        ) {
        half
    } else {
        0
    };
    if lambda <= c {
        return (0, 0, 0, sampler.mag_filter);
    }
    let within = if sampler.min_filter.linear_texels() {
        Filter::Linear
    } else {
        Filter::Nearest
    };
    match sampler.min_filter {
        Filter::Nearest | Filter::Linear => (0, 0, 0, sampler.min_filter),
        Filter::NearestMipmapNearest | Filter::LinearMipmapNearest => {
            // Level ceil(lambda + 1/2) - 1, level 0 up to 1/2.
            let d = if lambda <= half {
                0
            } else {
                ((lambda + half + one - 1) >> LOD_FRAC) - 1
            };
            ((d as u32).min(last), 0, 0, within)
        }
        Filter::NearestMipmapLinear | Filter::LinearMipmapLinear => {
            let d1 = (lambda >> LOD_FRAC) as u32;
            if d1 >= last {
                (last, last, 0, within)
            } else {
                (d1, d1 + 1, (lambda & (one - 1)) as u32, within)
            }
        }
    }
}

/// One lane's colour from one level, exact, with 2 * weight_bits fraction bits.
fn sample_level(
    img: &impl TexImage,
    sampler: &Sampler,
    level: u32,
    s: f32,
    t: f32,
    f: Filter,
) -> [u64; 4] {
    let (lw, lh) = level_log2(img, level);
    let bits = sampler.weight_bits;
    if f == Filter::Nearest {
        let u = coord::nearest(s, lw, sampler.wrap_s);
        let v = coord::nearest(t, lh, sampler.wrap_t);
        return fetch(img, level, u, v).map(|c| u64::from(c) << (2 * bits));
    }
    let a: Axis = coord::linear(s, lw, bits, sampler.wrap_s);
    let b: Axis = coord::linear(t, lh, bits, sampler.wrap_t);
    let texels = [
        fetch(img, level, a.i0, b.i0),
        fetch(img, level, a.i1, b.i0),
        fetch(img, level, a.i0, b.i1),
        fetch(img, level, a.i1, b.i1),
    ];
    bilinear_sum(texels, a.frac, b.frac, bits)
}

/// The quad's lambda: from the lanes' coordinates, or the explicit LOD; biased, clamped.
pub fn quad_lambda(
    img: &impl TexImage,
    sampler: &Sampler,
    st: &[(f32, f32); 4],
    lod: Option<f32>,
) -> i32 {
    let base = match lod {
        Some(l) => lod_fixed(l),
        None => {
            let fx = |s: f32, log2: u32| coord::floor_shift_wrapping(s, (log2 + DERIV_FRAC) as i32);
            let (lw, lh) = img.log2_size();
            let u = [0, 1, 2].map(|i| fx(st[i].0, lw));
            let v = [0, 1, 2].map(|i| fx(st[i].1, lh));
            lambda(u, v, DERIV_FRAC)
        }
    };
    bias_clamp(base, sampler.lod_bias, sampler.min_lod, sampler.max_lod)
}

/// Samples a 2x2 quad (lanes (x,y), (x+1,y), (x,y+1), (x+1,y+1)); with `lod`, the
/// explicit level of detail replaces the one from the lanes' differences.
pub fn sample_quad(
    img: &impl TexImage,
    sampler: &Sampler,
    st: &[(f32, f32); 4],
    lod: Option<f32>,
) -> [Rgba8; 4] {
    let lambda = quad_lambda(img, sampler, st, lod);
    let c = sample_lanes(img, sampler, st, lambda);
    [c[0], c[1], c[2], c[3]]
}

/// Samples any number of lanes at one lambda (biased and clamped already).
pub fn sample_lanes(
    img: &impl TexImage,
    sampler: &Sampler,
    st: &[(f32, f32)],
    lambda: i32,
) -> Vec<Rgba8> {
    let (d1, d2, blend, f) = select_levels(img, sampler, lambda);
    let bits = sampler.weight_bits;
    st.iter()
        .map(|&(s, t)| {
            let c1 = sample_level(img, sampler, d1, s, t, f);
            if blend == 0 {
                round(c1, 2 * bits)
            } else {
                let c2 = sample_level(img, sampler, d2, s, t, f);
                trilinear(c1, c2, blend, LOD_FRAC, bits)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use crate::workload::wrap;

    const WRAPS: [Wrap; 3] = [Wrap::Repeat, Wrap::ClampToEdge, Wrap::MirroredRepeat];

    /// A random texture with a full mip chain (levels are independent random data: the
    /// filter's accuracy does not depend on them being box-filtered).
    fn image(format: TexFormat, layout: TexLayout, lw: u32, lh: u32, rng: &mut Rng) -> MipImage {
        let levels = (0..=lw.max(lh))
            .map(|l| {
                let n = MipImage::level_words(format, lw.saturating_sub(l), lh.saturating_sub(l));
                (0..n).map(|_| rng.next_u64() as u32).collect()
            })
            .collect();
        MipImage {
            format,
            layout,
            log2_width: lw,
            log2_height: lh,
            levels,
        }
    }

    /// GL's sampling in real numbers, for one lane at given level(s) and blend.
    fn reference(
        img: &MipImage,
        sampler: &Sampler,
        levels: (u32, u32, f64, Filter),
        s: f32,
        t: f32,
    ) -> [f64; 4] {
        let one_level = |level: u32| -> [f64; 4] {
            let (lw, lh) = img.level_log2(level);
            let (w, h) = (1u32 << lw, 1u32 << lh);
            let (s, t) = (f64::from(s), f64::from(t));
            let get = |i: i64, j: i64| {
                img.fetch(
                    level,
                    wrap(i, w, sampler.wrap_s),
                    wrap(j, h, sampler.wrap_t),
                )
                .map(f64::from)
            };
            if levels.3 == Filter::Nearest {
                return get(
                    (s * f64::from(w)).floor() as i64,
                    (t * f64::from(h)).floor() as i64,
                );
            }
            let (u, v) = (s * f64::from(w) - 0.5, t * f64::from(h) - 0.5);
            let (i, j) = (u.floor(), v.floor());
            let (a, b) = (u - i, v - j);
            let (i, j) = (i as i64, j as i64);
            let t = [get(i, j), get(i + 1, j), get(i, j + 1), get(i + 1, j + 1)];
            std::array::from_fn(|c| {
                t[0][c] * (1.0 - a) * (1.0 - b)
                    + t[1][c] * a * (1.0 - b)
                    + t[2][c] * (1.0 - a) * b
                    + t[3][c] * a * b
            })
        };
        let c1 = one_level(levels.0);
        if levels.2 == 0.0 {
            return c1;
        }
        let c2 = one_level(levels.1);
        std::array::from_fn(|c| c1[c] * (1.0 - levels.2) + c2[c] * levels.2)
    }

    /// Worst error in LSB of the integer sampler against GL's real-valued formulas, for
    /// random quads at random scales and the quad's own lambda (its accuracy is tested in
    /// `lod`).
    fn worst_error(
        format: TexFormat,
        filter: Filter,
        wrap: Wrap,
        weight_bits: u32,
        seed: u64,
    ) -> f64 {
        let mut rng = Rng::stream(seed, 0);
        let img = image(format, TexLayout::Tiled4x4, 5, 4, &mut rng);
        let sampler = Sampler {
            min_filter: filter,
            mag_filter: if filter.linear_texels() {
                Filter::Linear
            } else {
                Filter::Nearest
            },
            wrap_s: wrap,
            wrap_t: wrap,
            lod_bias: 0,
            min_lod: -1000 << LOD_FRAC,
            max_lod: 1000 << LOD_FRAC,
            weight_bits,
        };
        let mut worst = 0f64;
        for _ in 0..3000 {
            let scale = 2f64.powf(rng.unit() * 8.0 - 5.0) / 32.0;
            let (s0, t0) = (rng.unit() * 6.0 - 3.0, rng.unit() * 6.0 - 3.0);
            let st = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)]
                .map(|(dx, dy)| ((s0 + dx * scale) as f32, (t0 + dy * scale * 0.7) as f32));
            let got = sample_quad(&img, &sampler, &st, None);
            let lambda = quad_lambda(&img, &sampler, &st, None);
            let (d1, d2, blend, f) = select_levels(&img, &sampler, lambda);
            let levels = (d1, d2, f64::from(blend) / f64::from(1u32 << LOD_FRAC), f);
            for (lane, (s, t)) in st.iter().enumerate() {
                let want = reference(&img, &sampler, levels, *s, *t);
                for c in 0..4 {
                    worst = worst.max((f64::from(got[lane][c]) - want[c]).abs());
                }
            }
        }
        worst
    }

    #[test]
    fn within_one_lsb_of_gl_with_10_bit_weights() {
        for (k, format) in [TexFormat::Rgba8888, TexFormat::Rgb565, TexFormat::Dxt1]
            .into_iter()
            .enumerate()
        {
            for filter in Filter::ALL {
                for wrap in WRAPS {
                    let w = worst_error(format, filter, wrap, 10, k as u64);
                    assert!(w < 1.0, "{format:?} {filter:?} {wrap:?}: {w} LSB");
                }
            }
        }
    }

    #[test]
    fn nearest_filters_are_exact() {
        for wrap in WRAPS {
            for filter in [Filter::Nearest, Filter::NearestMipmapNearest] {
                assert_eq!(worst_error(TexFormat::Rgba4444, filter, wrap, 8, 9), 0.0);
            }
        }
    }

    #[test]
    fn dxt1_blocks_fill_the_level_and_a_footprint_spans_four_banks() {
        for (lw, lh) in [(2, 2), (2, 5), (5, 2), (3, 3), (4, 6), (8, 8), (9, 3)] {
            let (bw, bh) = (1u32 << (lw - 2), 1u32 << (lh - 2));
            let mut seen = vec![false; (bw * bh) as usize];
            for by in 0..bh {
                for bx in 0..bw {
                    let i = dxt1_block(lw, lh, bx, by) as usize;
                    assert!(
                        !std::mem::replace(&mut seen[i], true),
                        "{lw} {lh}: {bx},{by}"
                    );
                }
            }
            // A bilinear footprint's 2x2 blocks (wrapping): distinct modulo 8 blocks, so
            // their words fall in 4 distinct banks of 16.
            for by in 0..bh {
                for bx in 0..bw {
                    let mut banks: Vec<u32> = [(0, 0), (1, 0), (0, 1), (1, 1)]
                        .iter()
                        .map(|(i, j)| dxt1_block(lw, lh, (bx + i) % bw, (by + j) % bh) % 8)
                        .collect();
                    banks.sort();
                    banks.dedup();
                    let blocks = bw.min(2) * bh.min(2);
                    assert_eq!(banks.len() as u32, blocks, "{lw} {lh}: {bx},{by}");
                }
            }
        }
    }

    #[test]
    fn level_selection_follows_gl() {
        let mut rng = Rng::stream(1, 0);
        let img = image(TexFormat::Rgba8888, TexLayout::Linear, 3, 3, &mut rng);
        let mut s = Sampler {
            min_filter: Filter::LinearMipmapNearest,
            mag_filter: Filter::Linear,
            wrap_s: Wrap::Repeat,
            wrap_t: Wrap::Repeat,
            lod_bias: 0,
            min_lod: -1000 << 8,
            max_lod: 1000 << 8,
            weight_bits: 8,
        };
        let at = |s: &Sampler, l: f64| select_levels(&img, s, (l * 256.0) as i32);
        assert_eq!(at(&s, 0.0), (0, 0, 0, Filter::Linear)); // magnified
        assert_eq!(at(&s, 0.5), (0, 0, 0, Filter::Linear)); // minified, level 0
        assert_eq!(at(&s, 0.75), (1, 0, 0, Filter::Linear));
        assert_eq!(at(&s, 1.5), (1, 0, 0, Filter::Linear)); // round half down
        assert_eq!(at(&s, 9.0), (3, 0, 0, Filter::Linear)); // last level
        s.min_filter = Filter::NearestMipmapLinear;
        assert_eq!(at(&s, 0.25), (0, 0, 0, Filter::Linear)); // c = 0.5: still magnified
        assert_eq!(at(&s, 1.25), (1, 2, 64, Filter::Nearest));
        assert_eq!(at(&s, 3.5), (3, 3, 0, Filter::Nearest));
    }
}
