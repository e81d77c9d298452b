//! Level of detail per quad, from the lanes' coordinate differences (GL 2.0, 3.8.8).
//!
//! GL: rho = max(|(du/dx, dv/dx)|, |(du/dy, dv/dy)|), lambda = log2(rho) + bias, clamped.
//! In a 2x2 quad, d/dx is lane 1 - lane 0 and d/dy lane 2 - lane 0, in texels of the
//! base level. Here u and v are fixed point with `frac` fraction bits, so the squared
//! lengths are exact integers; log2(rho) = log2(rho^2) / 2 avoids the square root, and
//! log2 is computed to `LOD_FRAC` fraction bits by repeated squaring (each squaring of a
//! mantissa in [1, 2) yields the next bit), an integer algorithm the RTL repeats exactly.
//! log2(rho^2) to `LOD_FRAC` bits is log2(rho) to one bit more, which the halving rounds
//! to nearest: lambda is within 2^-(LOD_FRAC + 1) of the real value of the fixed-point
//! rho (plus a few 2^-MANT_BITS, from truncating each squared mantissa).

use crate::iface::tmu::DIFF_W;

/// Fraction bits of lambda (and of the trilinear blend weight taken from it).
pub const LOD_FRAC: u32 = 8;
/// Fraction bits of the mantissa squared in the log2 unit.
pub const MANT_BITS: u32 = 16;
/// Lambda, bias and LOD limits are 16-bit signed (8.8): +-128 levels.
pub const LOD_MIN: i32 = -(1 << 15);
pub const LOD_MAX: i32 = (1 << 15) - 1;
/// Coordinate differences are clamped to this magnitude before squaring: 2^23 texels,
/// far beyond any level count, so lambda is unchanged and the squares fit 62 bits.
pub const DIFF_MAX: i64 = (1 << DIFF_W) - 1;

/// floor(log2(x) * 2^LOD_FRAC) for x >= 1, by repeated squaring of the mantissa.
pub fn log2_fixed(x: u128) -> i32 {
    debug_assert!(x >= 1);
    let msb = 127 - x.leading_zeros();
    // Mantissa in [1, 2) with MANT_BITS fraction bits (truncated).
    let mut m: u64 = if msb >= MANT_BITS {
        (x >> (msb - MANT_BITS)) as u64
    } else {
        (x << (MANT_BITS - msb)) as u64
    };
    let mut frac = 0i32;
    for _ in 0..LOD_FRAC {
        m = (m * m) >> MANT_BITS;
        frac <<= 1;
        if m >= 2 << MANT_BITS {
            frac |= 1;
            m >>= 1;
        }
    }
    ((msb as i32) << LOD_FRAC) | frac
}

/// Fixed-point lambda (LOD_FRAC fraction bits) of a quad whose lanes 0, 1, 2 are at
/// (x, y), (x+1, y), (x, y+1), with u, v in base-level texels with `frac` fraction bits
/// (wrapping i64 values: differences are exact while they are below 2^62).
/// A quad whose coordinates do not change has rho = 0: lambda is the lowest value,
/// `LOD_MIN`, so any clamp takes the minimum.
pub fn lambda(u: [i64; 3], v: [i64; 3], frac: u32) -> i32 {
    let d = |a: i64, b: i64| -> u128 {
        let x = b.wrapping_sub(a).clamp(-DIFF_MAX, DIFF_MAX).unsigned_abs();
        u128::from(x * x)
    };
    let rho2_x = d(u[0], u[1]) + d(v[0], v[1]);
    let rho2_y = d(u[0], u[2]) + d(v[0], v[2]);
    let rho2 = rho2_x.max(rho2_y);
    if rho2 == 0 {
        return LOD_MIN;
    }
    // log2(rho) = log2(rho2) / 2 - frac (rho2 carries 2 * frac fraction bits). log2(rho2)
    // to 8 fraction bits is log2(rho) to 9: the halving rounds that to 8, to nearest.
    ((log2_fixed(rho2) + 1) >> 1) - ((frac as i32) << LOD_FRAC)
}

/// Bias and clamp as GL applies them: lambda + bias, then into [min, max]; all fixed
/// point with LOD_FRAC fraction bits.
pub fn bias_clamp(lambda: i32, bias: i32, min: i32, max: i32) -> i32 {
    lambda.saturating_add(bias).clamp(min, max.max(min))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn log2_of_powers_of_two_is_exact() {
        for k in 0..100u32 {
            assert_eq!(log2_fixed(1u128 << k), (k as i32) << LOD_FRAC);
        }
    }

    #[test]
    fn log2_is_a_floor_within_one_step() {
        let mut rng = Rng::stream(3, 0);
        let step = 1.0 / f64::from(1u32 << LOD_FRAC);
        for _ in 0..100_000 {
            let x = (rng.next_u64() >> (rng.next_u64() % 60)).max(1);
            let got = f64::from(log2_fixed(u128::from(x))) * step;
            let exact = (x as f64).log2();
            // Truncated squarings may lose one more step at most.
            assert!(
                got <= exact + 1e-12 && got > exact - 2.0 * step,
                "x {x}: {got} vs {exact}"
            );
        }
    }

    #[test]
    fn lambda_matches_gl_for_scaled_and_rotated_quads() {
        let frac = 8;
        let one = 1i64 << frac;
        // Minification by 4 along x: rho = 4, lambda = 2.
        assert_eq!(lambda([0, 4 * one, 0], [0, 0, one], frac), 2 << LOD_FRAC);
        // Magnification by 2: rho = 1/2, lambda = -1.
        assert_eq!(
            lambda([0, one / 2, 0], [0, 0, one / 2], frac),
            -1 << LOD_FRAC
        );
        // A 3-4-5 step: rho = 5, lambda = log2(5) = 2.3219 = 594.4/256, to nearest 594.
        let l = lambda([0, 3 * one, 0], [0, 4 * one, 0], frac);
        assert_eq!(l, 594);
        // Rounded to nearest, within half a step (and a little for the mantissa).
        let mut rng = Rng::stream(4, 0);
        for _ in 0..20_000 {
            let (a, b) = (
                (rng.next_u64() % (1 << 20)) as i64,
                (rng.next_u64() % (1 << 20)) as i64,
            );
            if a == 0 && b == 0 {
                continue;
            }
            let exact = ((a * a + b * b) as f64).sqrt().log2() - f64::from(frac);
            let got = f64::from(lambda([0, a, 0], [0, b, 0], frac)) / 256.0;
            assert!(
                (got - exact).abs() <= 0.5 / 256.0 + 1e-4,
                "{a} {b}: {got} vs {exact}"
            );
        }
        assert_eq!(lambda([5; 3], [7; 3], frac), LOD_MIN);
        assert_eq!(bias_clamp(LOD_MIN, 0, 0, 10 << 8), 0);
        assert_eq!(bias_clamp(3 << 8, 1 << 8, 0, 10 << 8), 4 << 8);
        // Wrapped coordinates: a step across the 2^64 wrap is still one texel.
        assert_eq!(
            lambda([i64::MAX, i64::MIN + one - 1, i64::MAX], [0, 0, one], frac),
            0
        );
    }
}
