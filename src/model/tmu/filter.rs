//! Filter lanes: one per fragment, four channels each. Bilinear is the exact weighted sum
//! of four texels in fixed point, rounded once; trilinear blends two bilinear results.
//!
//! Weights have `bits` bits: a is the weight of the right texels, b of the lower ones,
//! both in 0..2^bits. The sum `t00 (W-a)(W-b) + t10 a (W-b) + t01 (W-a) b + t11 a b` with
//! W = 2^bits is exact in integers; adding W^2 / 2 and dropping 2 * bits bits rounds it
//! to nearest. Against GL's real-valued formula the only error is the weights'
//! truncation to `bits` bits (less than 2^-bits each) plus the final rounding: at most
//! 255 * 2^(1-bits) + 1/2 LSB, which is under one LSB from 10 bits up. With 8 bits (the
//! usual hardware choice, and what GL implementations do) the bound is 2.5 LSB; the
//! tests measure the actual worst case.

use super::format::Rgba8;

/// The exact bilinear sums per channel, with 2 * bits fraction bits (8 + 2 * bits wide).
pub fn bilinear_sum(t: [Rgba8; 4], a: u32, b: u32, bits: u32) -> [u64; 4] {
    let w = 1u64 << bits;
    let (a, b) = (u64::from(a), u64::from(b));
    let weights = [(w - a) * (w - b), a * (w - b), (w - a) * b, a * b];
    std::array::from_fn(|c| {
        t.iter()
            .zip(weights)
            .map(|(x, k)| u64::from(x[c]) * k)
            .sum()
    })
}

/// Rounds fixed-point channels with `frac` fraction bits to 8 bits.
pub fn round(sum: [u64; 4], frac: u32) -> Rgba8 {
    sum.map(|x| ((x + (1 << (frac - 1))) >> frac) as u8)
}

/// Bilinear filter of texels (i0,j0), (i1,j0), (i0,j1), (i1,j1) with weights a, b.
pub fn bilinear(t: [Rgba8; 4], a: u32, b: u32, bits: u32) -> Rgba8 {
    round(bilinear_sum(t, a, b, bits), 2 * bits)
}

/// Trilinear: the two levels' exact bilinear sums blended with weight f (`lod_bits`
/// bits) and rounded once, so the result keeps the bilinear bound (rounding each level
/// first would add up to half an LSB more).
pub fn trilinear(s1: [u64; 4], s2: [u64; 4], f: u32, lod_bits: u32, bits: u32) -> Rgba8 {
    let w = 1u64 << lod_bits;
    let f = u64::from(f);
    round(
        std::array::from_fn(|c| s1[c] * (w - f) + s2[c] * f),
        2 * bits + lod_bits,
    )
}

/// The fp32 encoding of a channel is part of the unit's contract.
pub use crate::iface::tex_filter::unorm8_to_f32;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn float_bilinear(t: [Rgba8; 4], a: f64, b: f64, c: usize) -> f64 {
        let x = |i: usize| f64::from(t[i][c]);
        x(0) * (1.0 - a) * (1.0 - b) + x(1) * a * (1.0 - b) + x(2) * (1.0 - a) * b + x(3) * a * b
    }

    #[test]
    fn bilinear_is_exact_rounding_of_the_fixed_point_sum() {
        let t = [
            [0, 10, 255, 7],
            [255, 20, 0, 7],
            [0, 30, 255, 7],
            [255, 40, 0, 7],
        ];
        assert_eq!(bilinear(t, 0, 0, 8), t[0]);
        assert_eq!(bilinear(t, 128, 0, 8), [128, 15, 128, 7]);
        assert_eq!(bilinear(t, 128, 128, 8), [128, 25, 128, 7]);
        let black = bilinear_sum([[0; 4]; 4], 0, 0, 8);
        let white = bilinear_sum([[255; 4]; 4], 0, 0, 8);
        assert_eq!(trilinear(black, white, 128, 8, 8), [128; 4]);
        assert_eq!(trilinear(black, white, 0, 8, 8), [0; 4]);
    }

    #[test]
    fn bilinear_error_against_real_weights() {
        // Real weights truncated to `bits` bits, as the address generator does.
        let mut rng = Rng::stream(5, 0);
        for bits in [8u32, 9, 10, 12] {
            let mut worst = 0f64;
            for _ in 0..100_000 {
                let mut t = [[0u8; 4]; 4];
                for x in t.iter_mut().flatten() {
                    *x = (rng.next_u64() & 0xff) as u8;
                }
                let (fa, fb) = (rng.unit(), rng.unit());
                let scale = f64::from(1u32 << bits);
                let (a, b) = ((fa * scale) as u32, (fb * scale) as u32);
                let got = bilinear(t, a, b, bits);
                for (c, g) in got.iter().enumerate() {
                    worst = worst.max((f64::from(*g) - float_bilinear(t, fa, fb, c)).abs());
                }
            }
            let bound = 255.0 * 2f64.powi(1 - bits as i32) + 0.5;
            assert!(worst <= bound, "{bits} bits: worst {worst} > bound {bound}");
            if bits >= 10 {
                assert!(worst < 1.0, "{bits} bits: worst {worst}");
            }
        }
    }

    #[test]
    fn fp32_output_is_c_over_255() {
        assert_eq!(unorm8_to_f32(0), 0.0);
        assert_eq!(unorm8_to_f32(255), 1.0);
        for c in 0..=255u8 {
            assert_eq!(unorm8_to_f32(c), f32::from(c) / 255.0);
        }
    }
}
