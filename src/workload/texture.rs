//! Texture description, memory layouts, GL wrap modes and bilinear footprints.

/// Side of the square tiles that the level sizes are rounded up to (a DXT1 block is 4x4).
pub const TILE: u32 = 4;

/// One 2D texture with a mip chain, stored level after level from `base`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Texture {
    pub base: u64,
    pub log2_width: u32,
    pub log2_height: u32,
    pub levels: u32,
    /// 4 for RGBA8.
    pub texel_bytes: u32,
}

impl Texture {
    /// A texture with a full mip chain down to 1x1.
    pub fn new(base: u64, log2_width: u32, log2_height: u32, texel_bytes: u32) -> Self {
        // Widths are u32; the GL maximum texture size is far below 2^31.
        debug_assert!(log2_width < 32 && log2_height < 32);
        Self {
            base,
            log2_width,
            log2_height,
            levels: log2_width.max(log2_height) + 1,
            texel_bytes,
        }
    }

    pub fn level_width(&self, level: u32) -> u32 {
        1 << self.log2_width.saturating_sub(level)
    }

    pub fn level_height(&self, level: u32) -> u32 {
        1 << self.log2_height.saturating_sub(level)
    }

    /// 4x4 tiles across one row of `level` (at least one: small levels are padded).
    pub fn level_tiles_x(&self, level: u32) -> u32 {
        self.level_width(level).div_ceil(TILE)
    }

    pub fn level_tiles_y(&self, level: u32) -> u32 {
        self.level_height(level).div_ceil(TILE)
    }

    /// Bytes of `level`, rounded up to whole 4x4 tiles so both layouts fit in it.
    pub fn level_bytes(&self, level: u32) -> u64 {
        let tiles = u64::from(self.level_tiles_x(level)) * u64::from(self.level_tiles_y(level));
        tiles * u64::from(TILE * TILE) * u64::from(self.texel_bytes)
    }

    /// First byte of `level`; the same for both layouts.
    pub fn level_base(&self, level: u32) -> u64 {
        self.base + (0..level).map(|l| self.level_bytes(l)).sum::<u64>()
    }

    /// Bytes of the whole mip chain.
    pub fn total_bytes(&self) -> u64 {
        self.level_base(self.levels) - self.base
    }
}

/// How the texels of one level are ordered in memory: the config's `tmu.cache.layout`.
/// Linear is row-major with the level width as pitch; Tiled4x4 is row-major 4x4 tiles with
/// row-major texels inside a tile (DXT1 blocks are such tiles).
pub use crate::config::TexLayout as Layout;

/// Byte address of texel (u, v) of `level`; u and v are already wrapped into the level.
pub fn texel_address(tex: &Texture, layout: Layout, level: u32, u: u32, v: u32) -> u64 {
    debug_assert!(level < tex.levels);
    debug_assert!(u < tex.level_width(level) && v < tex.level_height(level));
    let index = match layout {
        Layout::Linear => u64::from(v) * u64::from(tex.level_width(level)) + u64::from(u),
        Layout::Tiled4x4 => {
            let tile =
                u64::from(v / TILE) * u64::from(tex.level_tiles_x(level)) + u64::from(u / TILE);
            tile * u64::from(TILE * TILE) + u64::from((v % TILE) * TILE + u % TILE)
        }
    };
    tex.level_base(level) + index * u64::from(tex.texel_bytes)
}

pub use crate::config::Wrap;

/// Integer texel coordinate `coord` wrapped into `0..size`.
///
/// The integer form of the GL rules (GL 3.0+ table "texel wrap"), which picks the same
/// texels as GL 2.0's mirroring of the coordinate s before the texel lookup:
/// repeat `coord mod size`; clamp-to-edge `clamp(coord, 0, size-1)`; mirrored repeat
/// `(size-1) - mirror((coord mod 2*size) - size)` with `mirror(a) = a` for a >= 0 and
/// `-(1+a)` otherwise. `size` 0 is treated as 1.
pub fn wrap(coord: i64, size: u32, mode: Wrap) -> u32 {
    let n = i64::from(size.max(1));
    let w = match mode {
        Wrap::Repeat => coord.rem_euclid(n),
        Wrap::ClampToEdge => coord.clamp(0, n - 1),
        Wrap::MirroredRepeat => {
            let a = coord.rem_euclid(2 * n) - n;
            let mirror = if a >= 0 { a } else { -(1 + a) };
            (n - 1) - mirror
        }
    };
    // In 0..size by construction.
    w as u32
}

/// One texel of one mip level, coordinates already wrapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TexelRef {
    pub level: u32,
    pub u: u32,
    pub v: u32,
}

/// The 2x2 texels GL's LINEAR filter reads for (s, t) at `level`.
///
/// `u = s * width - 0.5`, `i0 = floor(u)`, `i1 = i0 + 1` (each wrapped), the same for v;
/// order (i0,j0), (i1,j0), (i0,j1), (i1,j1). At a texel centre i1/j1 get weight 0 but
/// are still fetched, as in GL.
pub fn bilinear_footprint(
    tex: &Texture,
    level: u32,
    s: f32,
    t: f32,
    wrap_s: Wrap,
    wrap_t: Wrap,
) -> [TexelRef; 4] {
    let (w, h) = (tex.level_width(level), tex.level_height(level));
    // f64 keeps s * 2^n - 0.5 exact for every f32 s, so the floor is the true one.
    let i0 = (f64::from(s) * f64::from(w) - 0.5).floor() as i64;
    let j0 = (f64::from(t) * f64::from(h) - 0.5).floor() as i64;
    let (u0, u1) = (wrap(i0, w, wrap_s), wrap(i0 + 1, w, wrap_s));
    let (v0, v1) = (wrap(j0, h, wrap_t), wrap(j0 + 1, h, wrap_t));
    let at = |u, v| TexelRef { level, u, v };
    [at(u0, v0), at(u1, v0), at(u0, v1), at(u1, v1)]
}

/// The level GL's *_MIPMAP_NEAREST filters use for a (clamped) lod: 0 up to 0.5, then
/// `ceil(lod + 0.5) - 1` (round half down), at most the last level.
pub fn mip_level_nearest(tex: &Texture, lod: f32) -> u32 {
    let last = tex.levels.saturating_sub(1);
    if lod.is_nan() || lod <= 0.5 {
        return 0;
    }
    let d = (f64::from(lod) + 0.5).ceil() - 1.0;
    if d >= f64::from(last) { last } else { d as u32 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tex16() -> Texture {
        Texture::new(0, 4, 4, 4)
    }

    #[test]
    fn addresses_by_hand_both_layouts() {
        let t = tex16();
        // Linear: (6 * 16 + 5) * 4.
        assert_eq!(texel_address(&t, Layout::Linear, 0, 5, 6), 404);
        // Tiled: tile (1,1) -> 1*4+1 = 5; inside (2*4+1) = 9; (5*16 + 9) * 4.
        assert_eq!(texel_address(&t, Layout::Tiled4x4, 0, 5, 6), 356);
        assert_eq!(texel_address(&t, Layout::Tiled4x4, 0, 3, 3), 15 * 4);
        assert_eq!(texel_address(&t, Layout::Tiled4x4, 0, 4, 0), 16 * 4);
        assert_eq!(texel_address(&t, Layout::Tiled4x4, 0, 0, 4), 4 * 16 * 4);
        // Level 1 (8x8, base 1024): linear (6*8+5)*4; tiled tile (1,1) -> 3, (3*16+9)*4.
        assert_eq!(texel_address(&t, Layout::Linear, 1, 5, 6), 1024 + 212);
        assert_eq!(texel_address(&t, Layout::Tiled4x4, 1, 5, 6), 1024 + 228);
        // A padded 2x2 level: row pitch 2 when linear, row pitch 4 inside the tile.
        assert_eq!(texel_address(&t, Layout::Linear, 3, 1, 1), 1344 + 3 * 4);
        assert_eq!(texel_address(&t, Layout::Tiled4x4, 3, 1, 1), 1344 + 5 * 4);
        // The base is added.
        let b = Texture::new(0x1000, 4, 4, 4);
        assert_eq!(texel_address(&b, Layout::Tiled4x4, 0, 5, 6), 0x1000 + 356);
    }

    #[test]
    fn level_sizes_and_bases() {
        let t = tex16();
        assert_eq!(t.levels, 5);
        let bases: Vec<u64> = (0..=5).map(|l| t.level_base(l)).collect();
        // 16x16, 8x8, 4x4, then 2x2 and 1x1 padded to one 4x4 tile (64 bytes) each.
        assert_eq!(bases, [0, 1024, 1280, 1344, 1408, 1472]);
        assert_eq!(t.total_bytes(), 1472);
        // Non-square 16x4: 16x4, 8x2, 4x1, 2x1, 1x1 -> 4, 2, 1, 1, 1 tiles.
        let r = Texture::new(100, 4, 2, 4);
        assert_eq!(r.levels, 5);
        assert_eq!((r.level_width(3), r.level_height(3)), (2, 1));
        assert_eq!((r.level_width(4), r.level_height(4)), (1, 1));
        let bases: Vec<u64> = (0..5).map(|l| r.level_base(l) - 100).collect();
        assert_eq!(bases, [0, 256, 384, 448, 512]);
    }

    #[test]
    fn every_texel_of_a_level_has_its_own_address_inside_the_level() {
        let t = Texture::new(64, 3, 1, 2);
        for layout in [Layout::Linear, Layout::Tiled4x4] {
            for level in 0..t.levels {
                let mut seen = std::collections::HashSet::new();
                for v in 0..t.level_height(level) {
                    for u in 0..t.level_width(level) {
                        let a = texel_address(&t, layout, level, u, v);
                        assert!(a >= t.level_base(level) && a < t.level_base(level + 1));
                        assert!(seen.insert(a), "{layout:?} {level} {u} {v}");
                    }
                }
            }
        }
    }

    #[test]
    fn wrap_modes_by_hand() {
        let r = |c| wrap(c, 4, Wrap::Repeat);
        assert_eq!([r(-5), r(-1), r(0), r(3), r(4), r(9)], [3, 3, 0, 3, 0, 1]);
        let c = |c| wrap(c, 4, Wrap::ClampToEdge);
        assert_eq!(
            [c(-100), c(-1), c(0), c(3), c(4), c(100)],
            [0, 0, 0, 3, 3, 3]
        );
        let m = |c| wrap(c, 4, Wrap::MirroredRepeat);
        assert_eq!([m(-1), m(4), m(-5)], [0, 3, 3]);
        let row: Vec<u32> = (-8..12).map(m).collect();
        assert_eq!(
            row,
            [0, 1, 2, 3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0, 0, 1, 2, 3]
        );
        for mode in [Wrap::Repeat, Wrap::ClampToEdge, Wrap::MirroredRepeat] {
            assert!((-3..3).all(|c| wrap(c, 1, mode) == 0));
        }
    }

    /// GL 2.0 section 3.8.7: mirror(f) = frac(f) when floor(f) is even, 1 - frac(f)
    /// otherwise, then clamp-to-edge; the nearest texel of a texel centre must agree.
    #[test]
    fn mirrored_repeat_matches_gl2_coordinate_mirroring() {
        for n in 1u32..=6 {
            for i in -30i64..30 {
                let s = (i as f64 + 0.5) / f64::from(n);
                let fl = s.floor();
                let m = if (fl as i64).rem_euclid(2) == 0 {
                    s - fl
                } else {
                    1.0 - (s - fl)
                };
                let half = 0.5 / f64::from(n);
                let clamped = m.clamp(half, 1.0 - half);
                let gl2 = (clamped * f64::from(n)).floor() as u32;
                assert_eq!(wrap(i, n, Wrap::MirroredRepeat), gl2, "i {i} n {n}");
            }
        }
    }

    #[test]
    fn bilinear_at_a_texel_centre_and_at_the_edges() {
        let t = tex16();
        let refs = |s, t_, w| bilinear_footprint(&t, 0, s, t_, w, w).map(|r| (r.u, r.v));
        // Centre of texel (5,6): i0 = 5, j0 = 6; the +1 neighbours have weight 0.
        let c = refs(5.5 / 16.0, 6.5 / 16.0, Wrap::Repeat);
        assert_eq!(c, [(5, 6), (6, 6), (5, 7), (6, 7)]);
        // s = t = 0: u = -0.5 -> i0 = -1.
        assert_eq!(refs(0.0, 0.0, Wrap::ClampToEdge), [(0, 0); 4]);
        assert_eq!(
            refs(0.0, 0.0, Wrap::Repeat),
            [(15, 15), (0, 15), (15, 0), (0, 0)]
        );
        assert_eq!(refs(0.0, 0.0, Wrap::MirroredRepeat), [(0, 0); 4]);
        // s = t = 1: u = 15.5 -> i0 = 15, i1 = 16.
        assert_eq!(refs(1.0, 1.0, Wrap::ClampToEdge), [(15, 15); 4]);
        assert_eq!(
            refs(1.0, 1.0, Wrap::Repeat),
            [(15, 15), (0, 15), (15, 0), (0, 0)]
        );
        // Level 2 is 4x4: s = 0.3 -> u = 0.7 -> i0 = 0.
        let l2 = bilinear_footprint(&t, 2, 0.3, 0.3, Wrap::Repeat, Wrap::Repeat);
        assert_eq!(
            l2[3],
            TexelRef {
                level: 2,
                u: 1,
                v: 1
            }
        );
    }

    #[test]
    fn nearest_mip_level_rounds_half_down_and_clamps() {
        let t = tex16();
        let l = |lod| mip_level_nearest(&t, lod);
        assert_eq!(
            [l(0.0), l(0.5), l(0.51), l(1.0), l(1.5), l(1.6)],
            [0, 0, 1, 1, 1, 2]
        );
        assert_eq!([l(4.0), l(9.0), l(-3.0), l(f32::NAN)], [4, 4, 0, 0]);
    }
}
