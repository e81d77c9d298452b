//! A simple DXT1 (BC1) block encoder, for `--format dxt1` of a texture that is not DXT1.
//!
//! Per 4x4 block (only the texels inside the level count; a level under 4 texels wide
//! or high pads its block, and those texels are never read):
//! 1. Endpoints are the block's darkest and brightest texels by luminance
//!    (299 R + 587 G + 114 B, ties to the first in row order), rounded to rgb565.
//! 2. Always the four-colour mode: colour 0 must be greater than colour 1 as a 16-bit
//!    number, so the endpoints are swapped when needed. Equal endpoints (a block of one
//!    565 colour) cannot be ordered; then colour 1 becomes colour 0 minus one (or colour
//!    0 becomes 1 when it is 0, black) and every index points at the real colour.
//! 3. Each texel takes the palette entry, as `decode_dxt1` decodes it, nearest in
//!    squared RGB distance (ties to the lower index).
//!
//! Alpha is dropped: every encoded texel is opaque (the three-colour mode with its
//! transparent black is never produced). This is not a quality encoder; a block of two
//! colours, or of one, comes back as the nearest rgb565 colours, and gradients along
//! the luminance axis come back within the palette's steps.

use crate::model::tmu::format::{Rgba8, decode_dxt1};
use crate::model::tmu::sampler::dxt1_block;

use super::Image;
use super::mip::narrow;

fn luminance(c: Rgba8) -> u32 {
    299 * u32::from(c[0]) + 587 * u32::from(c[1]) + 114 * u32::from(c[2])
}

fn to565(c: Rgba8) -> u32 {
    (narrow(c[0], 5) << 11) | (narrow(c[1], 6) << 5) | narrow(c[2], 5)
}

/// Encodes up to 16 texels, given as (index in the block, colour), into the block's
/// two words: colour 0 | colour 1 << 16, and the 16 two-bit indices.
pub fn encode_block(texels: &[(u32, Rgba8)]) -> [u32; 2] {
    let Some(&(_, first)) = texels.first() else {
        return [0, 0];
    };
    let (mut lo, mut hi) = (first, first);
    for &(_, c) in texels {
        if luminance(c) < luminance(lo) {
            lo = c;
        }
        if luminance(c) > luminance(hi) {
            hi = c;
        }
    }
    let (mut c0, mut c1) = (to565(hi), to565(lo));
    if c0 < c1 {
        std::mem::swap(&mut c0, &mut c1);
    }
    if c0 == c1 {
        // One colour: every index at it (index 0, or 1 when it is black).
        let (colors, index) = if c0 > 0 {
            (c0 | ((c0 - 1) << 16), 0)
        } else {
            (1, 1)
        };
        let indices = texels
            .iter()
            .fold(0, |acc, &(pos, _)| acc | (index << (2 * pos)));
        return [colors, indices];
    }
    let colors = c0 | (c1 << 16);
    let palette: [Rgba8; 4] = std::array::from_fn(|i| decode_dxt1(colors, i as u32, 0));
    let mut indices = 0u32;
    for &(pos, c) in texels {
        let dist = |p: Rgba8| -> u32 {
            (0..3)
                .map(|k| (i32::from(p[k]) - i32::from(c[k])).unsigned_abs().pow(2))
                .sum()
        };
        let best = (0..4u32)
            .min_by_key(|&i| (dist(palette[i as usize]), i))
            .unwrap_or(0);
        indices |= best << (2 * pos);
    }
    [colors, indices]
}

/// A whole level as DXT1 blocks, row-major, two words per block (as `MipImage` holds it).
pub fn encode_image(img: &Image) -> Vec<u32> {
    let (bx, by) = (img.width.div_ceil(4), img.height.div_ceil(4));
    let mut words = Vec::with_capacity((bx * by * 2) as usize);
    for j in 0..by {
        for i in 0..bx {
            let mut texels = Vec::with_capacity(16);
            for y in 0..4 {
                for x in 0..4 {
                    let (u, v) = (i * 4 + x, j * 4 + y);
                    if u < img.width && v < img.height {
                        texels.push((y * 4 + x, img.get(u, v)));
                    }
                }
            }
            words.extend(encode_block(&texels));
        }
    }
    words
}

/// A level's blocks from the file order (row-major, two words a block, as DDS and
/// [`encode_image`] give them) to the order the unit reads them from memory
/// ([`dxt1_block`]), for a level `width` x `height` texels.
pub fn to_memory_order(words: &[u32], width: u32, height: u32) -> Vec<u32> {
    let (lw, lh) = (width.trailing_zeros(), height.trailing_zeros());
    let (bx, by) = (width.div_ceil(4), height.div_ceil(4));
    let mut out = vec![0u32; words.len()];
    for j in 0..by {
        for i in 0..bx {
            let from = 2 * (j * bx + i) as usize;
            let to = 2 * dxt1_block(lw, lh, i, j) as usize;
            out[to..to + 2].copy_from_slice(&words[from..from + 2]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tmu::format::dxt1_endpoint;

    fn decode(block: [u32; 2], pos: u32) -> Rgba8 {
        decode_dxt1(block[0], block[1], pos)
    }

    #[test]
    fn memory_order_reads_back_through_the_sampler_fetch() {
        use crate::config::TexLayout;
        use crate::model::tmu::sampler::MipImage;
        // 16x8: 4x2 blocks, each of one colour, so the block a texel reads is visible.
        let mut img = Image::new(16, 8);
        for y in 0..8 {
            for x in 0..16 {
                img.set(x, y, [(x / 4 * 60) as u8, (y / 4 * 200) as u8, 0, 255]);
            }
        }
        let file = encode_image(&img);
        let mip = MipImage {
            format: crate::model::tmu::format::TexFormat::Dxt1,
            layout: TexLayout::Tiled4x4,
            log2_width: 4,
            log2_height: 3,
            levels: vec![to_memory_order(&file, 16, 8)],
        };
        for y in 0..8 {
            for x in 0..16 {
                let blk = (y / 4 * 4 + x / 4) as usize;
                let want = decode([file[2 * blk], file[2 * blk + 1]], (y % 4) * 4 + x % 4);
                assert_eq!(mip.fetch(0, x, y), want, "({x},{y})");
            }
        }
    }

    #[test]
    fn always_four_colour_mode() {
        for c in [[0, 0, 0, 255], [255; 4], [10, 200, 30, 255], [0, 0, 1, 255]] {
            let b = encode_block(&[(0, c)]);
            assert!(b[0] & 0xffff > b[0] >> 16, "{c:?}: {:08x}", b[0]);
        }
    }

    #[test]
    fn solid_and_two_colour_blocks_come_back_as_their_565_colours() {
        let colours = [
            [0, 0, 0, 255],
            [255, 255, 255, 255],
            [255, 0, 0, 255],
            [12, 34, 56, 255],
        ];
        for a in colours {
            let solid: Vec<(u32, Rgba8)> = (0..16).map(|i| (i, a)).collect();
            let b = encode_block(&solid);
            for i in 0..16 {
                assert_eq!(decode(b, i), dxt1_endpoint(to565(a)), "solid {a:?}");
            }
            for bcol in colours {
                let two: Vec<(u32, Rgba8)> = (0..16)
                    .map(|i| (i, if (i + i / 4) % 2 == 0 { a } else { bcol }))
                    .collect();
                let b = encode_block(&two);
                for &(i, c) in &two {
                    assert_eq!(
                        decode(b, i),
                        dxt1_endpoint(to565(c)),
                        "{a:?} / {bcol:?} at {i}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_grey_ramp_stays_within_a_palette_step() {
        let ramp: Vec<(u32, Rgba8)> = (0..16)
            .map(|i| {
                let g = (i * 17) as u8;
                (i, [g, g, g, 255])
            })
            .collect();
        let b = encode_block(&ramp);
        for &(i, c) in &ramp {
            let got = decode(b, i);
            for k in 0..3 {
                // Endpoints 0 and 255, palette steps of 85: at most half a step off.
                assert!(
                    (i32::from(got[k]) - i32::from(c[k])).abs() <= 43,
                    "{i}: {got:?}"
                );
            }
            assert_eq!(got[3], 255);
        }
    }

    #[test]
    fn small_levels_pad_their_block() {
        let mut img = Image::new(2, 1);
        img.set(0, 0, [255, 0, 0, 255]);
        img.set(1, 0, [0, 0, 255, 255]);
        let words = encode_image(&img);
        assert_eq!(words.len(), 2);
        assert_eq!(decode([words[0], words[1]], 0), [255, 0, 0, 255]);
        assert_eq!(decode([words[0], words[1]], 1), [0, 0, 255, 255]);
    }
}
