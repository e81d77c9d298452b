//! From an fp32 texture coordinate to texel indices and a filter weight, as the texel
//! address generator computes them: in integers, without a floating-point unit.
//!
//! For a level `2^log2_size` texels wide and weights of `frac_bits` bits, linear
//! filtering needs `floor((s * size - 0.5) * 2^frac_bits)`; its high bits are the first
//! texel's index and its low `frac_bits` the weight of the second texel. Nearest needs
//! `floor(s * size)`. Both are `floor(s * 2^k)` for an integer `k`, minus a constant,
//! which the hardware gets by shifting the fp32 mantissa by `k` plus the exponent.
//!
//! Defined results for every input (the RTL does the same):
//! - Repeat and mirrored repeat only need the index modulo twice the size, so the shifted
//!   mantissa is kept modulo 2^64 (bits above never reach the result): exact for every
//!   finite coordinate, however large.
//! - Clamp to edge saturates the shifted value at +-2^62, far beyond any texture, so a
//!   huge coordinate lands on the edge it points to.
//! - NaN reads as 0.0. +inf and -inf read as 0.0 under repeat and mirrored repeat (they
//!   have no fractional part to repeat) and as the far edges under clamp to edge.

use crate::workload::Wrap;

/// fp32 `s` as its sign, its 24-bit integer mantissa and the power of two it scales by:
/// `s = (-1)^neg * mant * 2^exp`. NaN and infinities are resolved by the caller.
fn split(s: f32) -> (bool, u64, i32) {
    let bits = s.to_bits();
    let neg = bits >> 31 != 0;
    let e = ((bits >> 23) & 0xff) as i32;
    let f = u64::from(bits & 0x7f_ffff);
    if e == 0 {
        // Subnormal: no hidden bit.
        (neg, f, -149)
    } else {
        (neg, f | 0x80_0000, e - 150)
    }
}

/// `floor(s * 2^k)` modulo 2^64, as a two's-complement i64. NaN and infinities give 0.
pub fn floor_shift_wrapping(s: f32, k: i32) -> i64 {
    if !s.is_finite() {
        return 0;
    }
    let (neg, mant, exp) = split(s);
    let sh = exp + k;
    // Magnitude * 2^sh, floor for positive values; bits at or above 2^64 wrap away.
    let (mag, inexact) = if sh >= 64 {
        (0u64, false)
    } else if sh >= 0 {
        (mant << sh, false)
    } else if sh > -64 {
        (mant >> -sh, mant & ((1u64 << -sh) - 1) != 0)
    } else {
        (0, mant != 0)
    };
    let v = mag as i64;
    if neg {
        // floor(-x) = -ceil(x).
        v.wrapping_neg().wrapping_sub(i64::from(inexact))
    } else {
        v
    }
}

/// Saturation bound for clamp to edge: far outside any texture, far from overflow.
const SAT: i64 = 1 << 62;

/// `floor(s * 2^k)` saturated to +-2^62. NaN gives 0; infinities saturate.
pub fn floor_shift_saturating(s: f32, k: i32) -> i64 {
    if s.is_nan() {
        return 0;
    }
    if s.is_infinite() {
        return if s > 0.0 { SAT } else { -SAT };
    }
    let (neg, mant, exp) = split(s);
    let sh = exp + k;
    // mant < 2^24, so mant << sh stays below 2^62 while sh <= 38.
    let (mag, inexact) = if sh > 38 {
        (SAT, false)
    } else if sh >= 0 {
        ((mant << sh) as i64, false)
    } else if sh > -64 {
        ((mant >> -sh) as i64, mant & ((1u64 << -sh) - 1) != 0)
    } else {
        (0, mant != 0)
    };
    if neg {
        -mag.min(SAT) - i64::from(inexact)
    } else {
        mag.min(SAT)
    }
}

/// One axis of a sample: the texel indices (already wrapped) and the weight of the
/// second texel in `frac_bits` bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Axis {
    pub i0: u32,
    pub i1: u32,
    pub frac: u32,
}

fn fixed(s: f32, k: i32, wrap: Wrap) -> i64 {
    match wrap {
        Wrap::ClampToEdge => floor_shift_saturating(s, k),
        Wrap::Repeat | Wrap::MirroredRepeat => floor_shift_wrapping(s, k),
    }
}

/// Wraps a texel index that may have wrapped modulo 2^64 (repeat, mirror) or saturated
/// (clamp); the size is a power of two, so both are exact.
pub fn wrap_index(i: i64, log2_size: u32, wrap: Wrap) -> u32 {
    let n = 1i64 << log2_size;
    match wrap {
        Wrap::Repeat => (i & (n - 1)) as u32,
        Wrap::ClampToEdge => i.clamp(0, n - 1) as u32,
        Wrap::MirroredRepeat => {
            let m = i & (2 * n - 1);
            (if m >= n { 2 * n - 1 - m } else { m }) as u32
        }
    }
}

/// GL's LINEAR texel pair along one axis: `u = s * size - 0.5`, texels `floor(u)` and
/// `floor(u) + 1`, weight `frac(u)` truncated to `frac_bits` bits.
pub fn linear(s: f32, log2_size: u32, frac_bits: u32, wrap: Wrap) -> Axis {
    let k = (log2_size + frac_bits) as i32;
    let half = 1i64 << (frac_bits - 1);
    let u = match wrap {
        Wrap::ClampToEdge => fixed(s, k, wrap).saturating_sub(half),
        _ => fixed(s, k, wrap).wrapping_sub(half),
    };
    let i = u >> frac_bits;
    Axis {
        i0: wrap_index(i, log2_size, wrap),
        i1: wrap_index(i.wrapping_add(1), log2_size, wrap),
        frac: (u & ((1 << frac_bits) - 1)) as u32,
    }
}

/// GL's NEAREST texel along one axis: `floor(s * size)`, wrapped.
pub fn nearest(s: f32, log2_size: u32, wrap: Wrap) -> u32 {
    wrap_index(fixed(s, log2_size as i32, wrap), log2_size, wrap)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use crate::workload::wrap;

    const WRAPS: [Wrap; 3] = [Wrap::Repeat, Wrap::ClampToEdge, Wrap::MirroredRepeat];

    /// The float reference for ordinary coordinates: f64 holds s * 2^k exactly.
    fn reference(s: f32, log2: u32, bits: u32, w: Wrap) -> Axis {
        let u = f64::from(s) * f64::from(1u32 << log2) - 0.5;
        let i = u.floor();
        let frac = ((u - i) * f64::from(1u32 << bits)).floor() as u32;
        let n = 1u32 << log2;
        Axis {
            i0: wrap(i as i64, n, w),
            i1: wrap(i as i64 + 1, n, w),
            frac,
        }
    }

    #[test]
    fn ordinary_coordinates_match_float_math() {
        let mut rng = Rng::stream(11, 0);
        for _ in 0..200_000 {
            let s = (rng.unit() * 40.0 - 20.0) as f32;
            let log2 = (rng.next_u64() % 11) as u32;
            let bits = 1 + (rng.next_u64() % 12) as u32;
            for w in WRAPS {
                assert_eq!(
                    linear(s, log2, bits, w),
                    reference(s, log2, bits, w),
                    "s {s} 2^{log2} {bits} bits {w:?}"
                );
                let n = 1u32 << log2;
                let want = wrap((f64::from(s) * f64::from(n)).floor() as i64, n, w);
                assert_eq!(nearest(s, log2, w), want, "nearest s {s} 2^{log2} {w:?}");
            }
        }
    }

    #[test]
    fn floor_shift_is_exact_at_the_edges() {
        assert_eq!(floor_shift_wrapping(-0.25, 0), -1);
        assert_eq!(floor_shift_wrapping(-1.0, 0), -1);
        assert_eq!(floor_shift_wrapping(-0.0, 4), 0);
        assert_eq!(floor_shift_wrapping(f32::MIN_POSITIVE / 2.0, 0), 0);
        assert_eq!(floor_shift_wrapping(-f32::MIN_POSITIVE / 2.0, 0), -1);
        assert_eq!(floor_shift_wrapping(1.5, 3), 12);
        // 2^70 wraps to 0 modulo 2^64; 3 * 2^62 is -2^62 as i64.
        assert_eq!(floor_shift_wrapping(2f32.powi(70), 0), 0);
        assert_eq!(floor_shift_wrapping(3.0 * 2f32.powi(62), 0), -(1 << 62));
        assert_eq!(floor_shift_saturating(1e30, 8), SAT);
        assert_eq!(floor_shift_saturating(-1e30, 8), -SAT);
        assert_eq!(floor_shift_saturating(-0.5, 0), -1);
    }

    #[test]
    fn huge_and_special_coordinates_are_defined() {
        // Repeat: a huge exact multiple of the size is texel 0's left edge, weight 1/2.
        let a = linear(2f32.powi(40), 8, 8, Wrap::Repeat);
        assert_eq!((a.i0, a.i1, a.frac), (255, 0, 128));
        // The same under mirror: the mirrored seam repeats texel 0.
        let a = linear(2f32.powi(40), 8, 8, Wrap::MirroredRepeat);
        assert_eq!((a.i0, a.i1, a.frac), (0, 0, 128));
        // Clamp: far right and far left edges.
        let a = linear(1e30, 8, 8, Wrap::ClampToEdge);
        assert_eq!((a.i0, a.i1), (255, 255));
        let a = linear(f32::NEG_INFINITY, 8, 8, Wrap::ClampToEdge);
        assert_eq!((a.i0, a.i1), (0, 0));
        // NaN reads as 0.0 in every mode; infinity as 0.0 under repeat.
        for w in WRAPS {
            assert_eq!(linear(f32::NAN, 6, 8, w), linear(0.0, 6, 8, w));
            assert_eq!(nearest(f32::NAN, 6, w), 0);
        }
        assert_eq!(
            linear(f32::INFINITY, 6, 8, Wrap::Repeat),
            linear(0.0, 6, 8, Wrap::Repeat)
        );
    }
}
