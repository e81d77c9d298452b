//! Texel formats after the texture cache: the words the cache returns become RGBA8
//! texels. One converter per texel in hardware; here one function.
//!
//! Packing follows OpenGL's packed pixel types as they sit in little-endian memory:
//! `rgba8888` is `GL_RGBA`/`GL_UNSIGNED_BYTE` (R in the lowest byte), `rgb565` is
//! `GL_UNSIGNED_SHORT_5_6_5` (R in bits 15..11), `rgba4444` and `rgba5551` are
//! `GL_UNSIGNED_SHORT_4_4_4_4` and `_5_5_5_1` (R highest, A lowest), `l8`, `la88` (L in
//! the low byte) and `a8` are `GL_LUMINANCE`, `GL_LUMINANCE_ALPHA` and `GL_ALPHA`
//! (L becomes R = G = B; alpha alone gives R = G = B = 0). `dxt1` is
//! `GL_COMPRESSED_RGBA_S3TC_DXT1_EXT`: 4x4 texels in 8 bytes, colour 0 and colour 1
//! (rgb565) then 16 two-bit indices, texel (x, y) at bits 2 * (4y + x).
//!
//! Widening an n-bit channel to 8 bits is GL's conversion, round(c * 255 / (2^n - 1)),
//! computed exactly (a 32- or 64-entry table in hardware). Bit replication, the cheap
//! alternative, is exact for 1, 2, 4 and 8 bits but off by one for 5- and 6-bit values
//! such as 3 (24 instead of 25), so it is not used.

/// A texel as the filter lanes see it: R, G, B, A in 0..=255.
pub type Rgba8 = [u8; 4];

pub use crate::config::TexFormat;

pub use crate::iface::tex_filter::widen;

fn field(word: u32, lsb: u32, bits: u32) -> u32 {
    (word >> lsb) & ((1 << bits) - 1)
}

/// An `rgb565` colour as RGBA8, alpha 255.
pub fn rgb565(c: u32) -> Rgba8 {
    [
        widen(field(c, 11, 5), 5),
        widen(field(c, 5, 6), 6),
        widen(field(c, 0, 5), 5),
        255,
    ]
}

/// A DXT1 endpoint as RGBA8, alpha 255: widened by bit replication, as the S3TC
/// reference decoder (and Mesa) widen endpoints.
pub fn dxt1_endpoint(c: u32) -> Rgba8 {
    let rep = |v: u32, bits: u32| ((v << (8 - bits)) | (v >> (2 * bits - 8))) as u8;
    [
        rep(field(c, 11, 5), 5),
        rep(field(c, 5, 6), 6),
        rep(field(c, 0, 5), 5),
        255,
    ]
}

/// Texel `index` (0 = lowest bits) of a 32-bit word of an uncompressed format.
pub fn decode_word(format: TexFormat, word: u32, index: u32) -> Rgba8 {
    let bits = format.bits_per_texel();
    debug_assert!(format != TexFormat::Dxt1 && index < format.texels_per_word());
    let t = if bits == 32 {
        word
    } else {
        field(word, index * bits, bits)
    };
    match format {
        TexFormat::Rgba8888 => t.to_le_bytes(),
        TexFormat::Rgb565 => rgb565(t),
        TexFormat::Rgba4444 => [
            widen(field(t, 12, 4), 4),
            widen(field(t, 8, 4), 4),
            widen(field(t, 4, 4), 4),
            widen(field(t, 0, 4), 4),
        ],
        TexFormat::Rgba5551 => [
            widen(field(t, 11, 5), 5),
            widen(field(t, 6, 5), 5),
            widen(field(t, 1, 5), 5),
            widen(field(t, 0, 1), 1),
        ],
        TexFormat::L8 => {
            let l = t as u8;
            [l, l, l, 255]
        }
        TexFormat::La88 => {
            let l = t as u8;
            [l, l, l, (t >> 8) as u8]
        }
        TexFormat::A8 => [0, 0, 0, t as u8],
        TexFormat::Dxt1 => unreachable!("DXT1 texels come from decode_dxt1"),
    }
}

/// The DXT1 palette's interpolated channel: (2a + b) / 3, truncated.
fn third(a: u8, b: u8) -> u8 {
    ((2 * u32::from(a) + u32::from(b)) / 3) as u8
}

/// Texel `texel` (4y + x) of a DXT1 block given as its two little-endian 32-bit words:
/// `colors` = colour 0 | colour 1 << 16, `indices` = the 16 two-bit indices.
///
/// Colour 0 > colour 1 (as 16-bit numbers): four opaque colours, c2 = (2c0 + c1) / 3 and
/// c3 = (c0 + 2c1) / 3. Otherwise three: c2 = (c0 + c1) / 2 and c3 transparent black.
/// Endpoints are widened to 8 bits by bit replication first and the divisions truncate,
/// as the S3TC reference decoder and Mesa do (the extension leaves both open; other
/// decoders differ by up to one LSB).
pub fn decode_dxt1(colors: u32, indices: u32, texel: u32) -> Rgba8 {
    debug_assert!(texel < 16);
    let c0 = colors & 0xffff;
    let c1 = colors >> 16;
    let (p0, p1) = (dxt1_endpoint(c0), dxt1_endpoint(c1));
    let index = field(indices, 2 * texel, 2);
    let mix =
        |f: fn(u8, u8) -> u8| -> Rgba8 { [f(p0[0], p1[0]), f(p0[1], p1[1]), f(p0[2], p1[2]), 255] };
    match (index, c0 > c1) {
        (0, _) => p0,
        (1, _) => p1,
        (2, true) => mix(third),
        (3, true) => mix(|a, b| third(b, a)),
        (2, false) => mix(|a, b| ((u32::from(a) + u32::from(b)) / 2) as u8),
        _ => [0, 0, 0, 0],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widening_is_gl_rounding() {
        for bits in 1..=8u32 {
            let max = (1u32 << bits) - 1;
            for v in 0..=max {
                let exact = (f64::from(v) * 255.0 / f64::from(max)).round() as u8;
                assert_eq!(widen(v, bits), exact, "{bits}-bit {v}");
            }
        }
        // Where bit replication would be wrong.
        assert_eq!(widen(3, 5), 25);
        assert_eq!(widen(3, 6), 12);
    }

    #[test]
    fn the_rtl_constant_formulas_are_these_divisions() {
        // Widening by multiply-shift (templates/rtl/tex_filter.v widens by a table of `widen`
        // now) and DXT1 thirds as x * 683 >> 11, a tree of six shifted rows there.
        for v in 0..32 {
            assert_eq!((v * 527 + 23) >> 6, u32::from(widen(v, 5)), "w5({v})");
        }
        for v in 0..64 {
            assert_eq!((v * 259 + 33) >> 6, u32::from(widen(v, 6)), "w6({v})");
        }
        for x in 0..768u32 {
            assert_eq!((x * 683) >> 11, x / 3, "{x} / 3");
        }
    }

    #[test]
    fn packed_formats_put_channels_where_gl_does() {
        // Pure red, green, blue and alpha in each 16-bit format, in the upper half-word.
        let red565 = 0xf800u32 << 16;
        assert_eq!(decode_word(TexFormat::Rgb565, red565, 1), [255, 0, 0, 255]);
        assert_eq!(decode_word(TexFormat::Rgb565, red565, 0), [0, 0, 0, 255]);
        assert_eq!(decode_word(TexFormat::Rgb565, 0x07e0, 0), [0, 255, 0, 255]);
        assert_eq!(decode_word(TexFormat::Rgba4444, 0x000f, 0), [0, 0, 0, 255]);
        assert_eq!(decode_word(TexFormat::Rgba4444, 0xf000, 0), [255, 0, 0, 0]);
        assert_eq!(decode_word(TexFormat::Rgba5551, 0x0001, 0), [0, 0, 0, 255]);
        assert_eq!(decode_word(TexFormat::Rgba5551, 0x003e, 0), [0, 0, 255, 0]);
        assert_eq!(
            decode_word(TexFormat::Rgba8888, 0x4433_2211, 0),
            [0x11, 0x22, 0x33, 0x44]
        );
        assert_eq!(
            decode_word(TexFormat::L8, 0x4433_2211, 2),
            [0x33, 0x33, 0x33, 255]
        );
        assert_eq!(
            decode_word(TexFormat::La88, 0x4433_2211, 1),
            [0x33, 0x33, 0x33, 0x44]
        );
        assert_eq!(decode_word(TexFormat::A8, 0x4433_2211, 3), [0, 0, 0, 0x44]);
    }

    #[test]
    fn every_16_bit_texel_matches_float_conversion() {
        for t in 0..=0xffffu32 {
            let f = |v: u32, bits: u32| {
                (f64::from(v) * 255.0 / f64::from((1u32 << bits) - 1)).round() as u8
            };
            let c = decode_word(TexFormat::Rgb565, t, 0);
            assert_eq!(c, [f(t >> 11, 5), f((t >> 5) & 63, 6), f(t & 31, 5), 255]);
            let c = decode_word(TexFormat::Rgba5551, t << 16, 1);
            assert_eq!(
                c,
                [
                    f(t >> 11, 5),
                    f((t >> 6) & 31, 5),
                    f((t >> 1) & 31, 5),
                    f(t & 1, 1)
                ]
            );
        }
    }

    #[test]
    fn dxt1_palette_modes() {
        // c0 = white > c1 = black: four colours, thirds in between.
        let colors = 0xffff; // colour 1 = 0
        let indices = 0b11_10_01_00;
        assert_eq!(decode_dxt1(colors, indices, 0), [255, 255, 255, 255]);
        assert_eq!(decode_dxt1(colors, indices, 1), [0, 0, 0, 255]);
        assert_eq!(decode_dxt1(colors, indices, 2), [170, 170, 170, 255]);
        assert_eq!(decode_dxt1(colors, indices, 3), [85, 85, 85, 255]);
        // c0 <= c1: three colours and transparent black.
        let colors = 0xffff << 16; // colour 0 = 0
        assert_eq!(decode_dxt1(colors, indices, 2), [127, 127, 127, 255]);
        assert_eq!(decode_dxt1(colors, indices, 3), [0, 0, 0, 0]);
        // Texel 15 uses the top two index bits.
        assert_eq!(decode_dxt1(colors, 0b01 << 30, 15), [255, 255, 255, 255]);
    }

    #[test]
    fn dxt1_interpolation_truncates_the_exact_value() {
        // Every pair of 6-bit green endpoints (the widest channel), both modes.
        for g0 in 0..64u32 {
            for g1 in 0..64u32 {
                let colors = (g0 << 5) | ((g1 << 5) << 16);
                let rep = |g: u32| f64::from((g << 2) | (g >> 4));
                let (a, b) = (rep(g0), rep(g1));
                for (idx, exact) in [(2u32, (2.0 * a + b) / 3.0), (3, (a + 2.0 * b) / 3.0)] {
                    let got = f64::from(decode_dxt1(colors, idx, 0)[1]);
                    let want = if g0 > g1 {
                        exact
                    } else if idx == 2 {
                        (a + b) / 2.0
                    } else {
                        0.0
                    };
                    assert!(got <= want && want - got < 1.0, "g0 {g0} g1 {g1} idx {idx}");
                }
            }
        }
    }
}
