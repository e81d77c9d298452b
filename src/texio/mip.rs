//! The box-filter mip chain, and RGBA8 images stored as texel formats in memory words.
//!
//! Box filter: level n+1 is level n halved in each dimension that is above 1, every
//! texel the mean of the 2x2 texels it covers, `(a + b + c + d + 2) / 4` per channel
//! (rounded to nearest, halves up). Sizes are powers of two, so no level has an odd side
//! except 1. Once one side is 1 (a 1-texel-wide or 1-texel-high level of a non-square
//! texture), only the other side halves and each texel is the mean of the 2 texels it
//! covers, `(a + b + 1) / 2`. The chain ends at 1x1: max(log2 w, log2 h) + 1 levels.
//!
//! Storing a channel of n bits is GL's conversion of an unsigned normalised value,
//! round(c * (2^n - 1) / 255) (never a tie: 255 is odd), which `widen` inverts exactly,
//! so a texel read back from a 16-bit format is the RGBA8 value nearest to the original
//! that the format can hold. `l8`, `la88` and `a8` take L = R and A as GL does for a
//! LUMINANCE / LUMINANCE_ALPHA / ALPHA internal format given RGBA data.

use crate::config::TexLayout;
use crate::model::tmu::format::{Rgba8, TexFormat};
use crate::model::tmu::sampler::MipImage;

use super::{Image, dxt1};

/// The next smaller level of `img` (see the module comment for 1-texel sides).
pub fn next_level(img: &Image) -> Image {
    let (w, h) = ((img.width / 2).max(1), (img.height / 2).max(1));
    let (fx, fy) = (img.width / w, img.height / h);
    let n = fx * fy;
    let mut out = Image::new(w, h);
    for y in 0..h {
        for x in 0..w {
            let mut sum = [0u32; 4];
            for j in 0..fy {
                for i in 0..fx {
                    let c = img.get(x * fx + i, y * fy + j);
                    for (s, v) in sum.iter_mut().zip(c) {
                        *s += u32::from(v);
                    }
                }
            }
            out.set(x, y, sum.map(|s| ((s + n / 2) / n) as u8));
        }
    }
    out
}

/// Extends `levels` (at least the base level) with box-filtered levels down to 1x1.
pub fn complete(levels: &mut Vec<Image>) {
    while let Some(last) = levels.last() {
        if last.width == 1 && last.height == 1 {
            break;
        }
        let next = next_level(last);
        levels.push(next);
    }
}

/// Rounds the 8-bit channel `c` to `bits` bits: round(c * (2^bits - 1) / 255).
pub fn narrow(c: u8, bits: u32) -> u32 {
    let max = (1u32 << bits) - 1;
    (u32::from(c) * max + 127) / 255
}

/// The bits of one texel of an uncompressed format, as `decode_word` reads them.
pub fn pack(format: TexFormat, c: Rgba8) -> u32 {
    let [r, g, b, a] = c;
    match format {
        TexFormat::Rgba8888 => u32::from_le_bytes(c),
        TexFormat::Rgb565 => (narrow(r, 5) << 11) | (narrow(g, 6) << 5) | narrow(b, 5),
        TexFormat::Rgba4444 => {
            (narrow(r, 4) << 12) | (narrow(g, 4) << 8) | (narrow(b, 4) << 4) | narrow(a, 4)
        }
        TexFormat::Rgba5551 => {
            (narrow(r, 5) << 11) | (narrow(g, 5) << 6) | (narrow(b, 5) << 1) | narrow(a, 1)
        }
        TexFormat::L8 => u32::from(r),
        TexFormat::La88 => u32::from(r) | (u32::from(a) << 8),
        TexFormat::A8 => u32::from(a),
        TexFormat::Dxt1 => unreachable!("DXT1 is stored by blocks"),
    }
}

/// One level stored in `format` and `layout`: `MipImage::level_words` words, padding 0.
pub fn encode(img: &Image, format: TexFormat, layout: TexLayout) -> Vec<u32> {
    if format == TexFormat::Dxt1 {
        return dxt1::to_memory_order(&dxt1::encode_image(img), img.width, img.height);
    }
    let (lw, lh) = (img.width.trailing_zeros(), img.height.trailing_zeros());
    let mut words = vec![0u32; MipImage::level_words(format, lw, lh)];
    let tiles_x = img.width.div_ceil(4);
    let bits = format.bits_per_texel();
    let per = format.texels_per_word();
    for v in 0..img.height {
        for u in 0..img.width {
            let index = match layout {
                TexLayout::Linear => (v << lw) + u,
                TexLayout::Tiled4x4 => ((v / 4) * tiles_x + u / 4) * 16 + (v % 4) * 4 + u % 4,
            };
            let shift = (index % per) * bits;
            words[(index / per) as usize] |= pack(format, img.get(u, v)) << shift;
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tmu::format::widen;

    fn image(w: u32, h: u32, f: impl Fn(u32, u32) -> Rgba8) -> Image {
        let mut img = Image::new(w, h);
        for y in 0..h {
            for x in 0..w {
                img.set(x, y, f(x, y));
            }
        }
        img
    }

    #[test]
    fn box_filter_rounds_and_handles_one_texel_sides() {
        let img = image(2, 2, |x, y| [(x + 2 * y) as u8, 0, 255, 1]);
        // (0 + 1 + 2 + 3 + 2) / 4 = 2; (1 + 1 + 0 + 0 + 2) / 4 = 1 (half up).
        assert_eq!(next_level(&img).pixels, vec![[2, 0, 255, 1]]);
        // 4x1: pairs along x only, (a + b + 1) / 2.
        let row = image(4, 1, |x, _| [x as u8 * 10, 1, 0, 0]);
        let next = next_level(&row);
        assert_eq!((next.width, next.height), (2, 1));
        assert_eq!(next.pixels, vec![[5, 1, 0, 0], [25, 1, 0, 0]]);
        // 1x2: pairs along y.
        let col = image(1, 2, |_, y| [0, y as u8, 0, 0]);
        assert_eq!(next_level(&col).pixels, vec![[0, 1, 0, 0]]);
        // A chain of 8x2 has 4 levels: 8x2, 4x1, 2x1, 1x1.
        let mut levels = vec![image(8, 2, |_, _| [9; 4])];
        complete(&mut levels);
        let sizes: Vec<(u32, u32)> = levels.iter().map(|l| (l.width, l.height)).collect();
        assert_eq!(sizes, vec![(8, 2), (4, 1), (2, 1), (1, 1)]);
    }

    #[test]
    fn narrowing_inverts_gl_widening() {
        for bits in 1..=8 {
            for v in 0..(1u32 << bits) {
                assert_eq!(narrow(widen(v, bits), bits), v, "{bits} bits, {v}");
            }
            // And rounds to nearest: the widened result is the closest representable.
            for c in 0..=255u8 {
                let got = i32::from(widen(narrow(c, bits), bits));
                let best = (0..(1u32 << bits))
                    .map(|v| (i32::from(widen(v, bits)) - i32::from(c)).abs())
                    .min()
                    .unwrap();
                assert_eq!((got - i32::from(c)).abs(), best, "{bits} bits, {c}");
            }
        }
    }

    #[test]
    fn stored_levels_read_back_through_the_sampler_fetch() {
        let img = image(8, 4, |x, y| {
            [
                (x * 31) as u8,
                (y * 60) as u8,
                (x * y * 9) as u8,
                255 - x as u8,
            ]
        });
        for format in TexFormat::ALL {
            for layout in [TexLayout::Linear, TexLayout::Tiled4x4] {
                let mip = MipImage {
                    format,
                    layout,
                    log2_width: 3,
                    log2_height: 2,
                    levels: vec![encode(&img, format, layout)],
                };
                for y in 0..4 {
                    for x in 0..8 {
                        let c = img.get(x, y);
                        let want = match format {
                            TexFormat::Dxt1 => continue,
                            TexFormat::L8 => [c[0], c[0], c[0], 255],
                            TexFormat::La88 => [c[0], c[0], c[0], c[3]],
                            TexFormat::A8 => [0, 0, 0, c[3]],
                            f => crate::model::tmu::format::decode_word(f, pack(f, c), 0),
                        };
                        assert_eq!(mip.fetch(0, x, y), want, "{format:?} {layout:?} ({x},{y})");
                    }
                }
            }
        }
    }
}
