//! One textured quad rasterised in tiled order: 2x2 pixel quads with (s, t) and a GL LOD.

use super::Request;
use super::texture::{
    Layout, TexelRef, Texture, Wrap, bilinear_footprint, mip_level_nearest, texel_address,
};

/// Side of a screen tile in pixels; tiles are visited row-major.
pub const SCREEN_TILE: u32 = 8;

/// How the textured quad maps screen pixels to texels (all 1:1 in aspect).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scene {
    /// A pixel steps half a texel: the texture spans twice the screen, lod -1 clamped to 0.
    Magnify2x,
    /// A pixel steps one texel: lod 0.
    OneToOne,
    /// A pixel steps two texels: lod 1, mip level 1 is read (Repeat tiles it on screen).
    Minify2x,
    /// A texture-sized square at 1:1 rotated 30 degrees about the screen centre; pixels
    /// outside it are masked (the screen corners). lod about 0.
    Rotated30,
}

impl Scene {
    pub const ALL: [Scene; 4] = [
        Scene::Magnify2x,
        Scene::OneToOne,
        Scene::Minify2x,
        Scene::Rotated30,
    ];
}

/// One 2x2 pixel quad: fragments (x,y), (x+1,y), (x,y+1), (x+1,y+1) at pixel centres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quad {
    /// Top-left pixel.
    pub x: u32,
    pub y: u32,
    /// (s, t) of each fragment, None where the pixel is off the primitive or the screen.
    pub frags: [Option<(f32, f32)>; 4],
    /// log2 of GL's rho in level-0 texels, clamped to [0, levels-1].
    pub lod: f32,
}

impl Quad {
    pub fn active(&self) -> usize {
        self.frags.iter().filter(|f| f.is_some()).count()
    }
}

/// Iterator over the quads of one frame in tiled raster order: 8x8-pixel tiles
/// row-major, the 16 quads of a tile row-major; quads with no active fragment skipped.
#[derive(Debug, Clone)]
pub struct Raster {
    scene: Scene,
    tex: Texture,
    screen_w: u32,
    screen_h: u32,
    /// Next quad as tile index * 16 + quad index inside the tile.
    next: u64,
}

/// Quads per screen tile.
const QUADS_PER_TILE: u64 = (SCREEN_TILE as u64 / 2) * (SCREEN_TILE as u64 / 2);

impl Raster {
    pub fn new(scene: Scene, tex: &Texture, screen_w: u32, screen_h: u32) -> Self {
        Self {
            scene,
            tex: *tex,
            screen_w,
            screen_h,
            next: 0,
        }
    }

    fn tiles_x(&self) -> u64 {
        u64::from(self.screen_w.div_ceil(SCREEN_TILE))
    }

    fn tiles(&self) -> u64 {
        self.tiles_x() * u64::from(self.screen_h.div_ceil(SCREEN_TILE))
    }

    /// Level-0 texel coordinates of pixel centre (px, py), and whether it is on the quad.
    fn map(&self, px: f64, py: f64) -> (f64, f64, bool) {
        let scale = match self.scene {
            Scene::Magnify2x => 0.5,
            Scene::OneToOne => 1.0,
            Scene::Minify2x => 2.0,
            Scene::Rotated30 => {
                let w = f64::from(self.tex.level_width(0));
                let h = f64::from(self.tex.level_height(0));
                let dx = px - f64::from(self.screen_w) / 2.0;
                let dy = py - f64::from(self.screen_h) / 2.0;
                // The quad is rotated by +30 degrees, so screen -> texture rotates by -30.
                let (sin, cos) = std::f64::consts::FRAC_PI_6.sin_cos();
                let u = cos * dx + sin * dy + w / 2.0;
                let v = -sin * dx + cos * dy + h / 2.0;
                let inside = (0.0..w).contains(&u) && (0.0..h).contains(&v);
                return (u, v, inside);
            }
        };
        (px * scale, py * scale, true)
    }

    fn quad_at(&self, x: u32, y: u32) -> Quad {
        let w = f64::from(self.tex.level_width(0));
        let h = f64::from(self.tex.level_height(0));
        let mut st = [(0.0f32, 0.0f32); 4];
        let mut frags = [None; 4];
        for (i, (st, frag)) in st.iter_mut().zip(frags.iter_mut()).enumerate() {
            let (fx, fy) = (x + (i as u32 & 1), y + (i as u32 >> 1));
            let (u, v, inside) = self.map(f64::from(fx) + 0.5, f64::from(fy) + 0.5);
            *st = ((u / w) as f32, (v / h) as f32);
            // Masked fragments still give their (s, t) to the derivatives, like GL's
            // helper pixels.
            if inside && fx < self.screen_w && fy < self.screen_h {
                *frag = Some(*st);
            }
        }
        Quad {
            x,
            y,
            frags,
            lod: quad_lod(&self.tex, &st),
        }
    }
}

/// GL's lod from a quad's (s, t): d/dx from fragments 0->1, d/dy from 0->2, in level-0
/// texels; rho = max of the two lengths; lod = log2(rho) clamped to [0, levels-1].
pub fn quad_lod(tex: &Texture, st: &[(f32, f32); 4]) -> f32 {
    let w = f64::from(tex.level_width(0));
    let h = f64::from(tex.level_height(0));
    let d = |a: (f32, f32), b: (f32, f32)| {
        let du = (f64::from(b.0) - f64::from(a.0)) * w;
        let dv = (f64::from(b.1) - f64::from(a.1)) * h;
        (du * du + dv * dv).sqrt()
    };
    let rho = d(st[0], st[1]).max(d(st[0], st[2]));
    let last = f64::from(tex.levels.saturating_sub(1));
    // rho 0 gives -inf, clamped to 0 like any magnification.
    rho.log2().clamp(0.0, last) as f32
}

impl Iterator for Raster {
    type Item = Quad;

    fn next(&mut self) -> Option<Quad> {
        let half = u64::from(SCREEN_TILE / 2);
        while self.next < self.tiles() * QUADS_PER_TILE {
            let (tile, q) = (self.next / QUADS_PER_TILE, self.next % QUADS_PER_TILE);
            self.next += 1;
            let x = (tile % self.tiles_x()) * u64::from(SCREEN_TILE) + (q % half) * 2;
            let y = (tile / self.tiles_x()) * u64::from(SCREEN_TILE) + (q / half) * 2;
            // Both fit in u32: they are below the screen size rounded up to a tile.
            let quad = self.quad_at(x as u32, y as u32);
            if quad.active() > 0 {
                return Some(quad);
            }
        }
        None
    }
}

/// All quads of one frame of `scene` on a `screen_w` x `screen_h` screen.
pub fn rasterize(scene: Scene, tex: &Texture, screen_w: u32, screen_h: u32) -> Vec<Quad> {
    Raster::new(scene, tex, screen_w, screen_h).collect()
}

/// The bilinear 2x2 footprint of each active fragment at the quad's nearest mip level
/// (GL_LINEAR_MIPMAP_NEAREST); `wrap` applies to both s and t.
pub fn quad_footprints(
    tex: &Texture,
    quads: &[Quad],
    wrap: Wrap,
) -> Vec<[Option<[TexelRef; 4]>; 4]> {
    quads.iter().map(|q| footprint(tex, q, wrap)).collect()
}

fn footprint(tex: &Texture, quad: &Quad, wrap: Wrap) -> [Option<[TexelRef; 4]>; 4] {
    let level = mip_level_nearest(tex, quad.lod);
    quad.frags
        .map(|f| f.map(|(s, t)| bilinear_footprint(tex, level, s, t, wrap, wrap)))
}

/// The texel addresses of `quads`, `lanes` fragments per request (see the module docs).
pub fn requests(
    tex: &Texture,
    quads: &[Quad],
    wrap: Wrap,
    lanes: usize,
    layout: Layout,
) -> Vec<Request> {
    requests_from(tex, quads.iter().copied(), wrap, lanes, layout, usize::MAX)
}

/// As `requests`, from any quad stream, stopping after `max` requests.
pub(crate) fn requests_from(
    tex: &Texture,
    quads: impl Iterator<Item = Quad>,
    wrap: Wrap,
    lanes: usize,
    layout: Layout,
    max: usize,
) -> Vec<Request> {
    let mut out = Vec::new();
    if lanes == 0 {
        return out;
    }
    let mut lane_texels: Vec<Option<[u64; 4]>> = Vec::with_capacity(lanes);
    // A request with no active lane is never sent; a short last one is padded.
    let flush = |lane_texels: &mut Vec<Option<[u64; 4]>>, out: &mut Vec<Request>| {
        if lane_texels.iter().any(Option::is_some) {
            lane_texels.resize(lanes, None);
            out.push(Request::from_lanes(lane_texels));
        }
        lane_texels.clear();
    };
    for quad in quads {
        for frag in footprint(tex, &quad, wrap) {
            let addrs =
                frag.map(|refs| refs.map(|r| texel_address(tex, layout, r.level, r.u, r.v)));
            lane_texels.push(addrs);
            if lane_texels.len() == lanes {
                flush(&mut lane_texels, &mut out);
                if out.len() >= max {
                    return out;
                }
            }
        }
    }
    flush(&mut lane_texels, &mut out);
    out.truncate(max);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tex256() -> Texture {
        Texture::new(0, 8, 8, 4)
    }

    #[test]
    fn first_quads_fill_the_first_screen_tile_row_major() {
        let quads = rasterize(Scene::OneToOne, &tex256(), 256, 256);
        assert_eq!(quads.len(), 128 * 128);
        let xy: Vec<(u32, u32)> = quads.iter().take(17).map(|q| (q.x, q.y)).collect();
        assert_eq!(&xy[..5], [(0, 0), (2, 0), (4, 0), (6, 0), (0, 2)]);
        assert!(xy[..16].iter().all(|&(x, y)| x < 8 && y < 8));
        assert_eq!(xy[15], (6, 6));
        assert_eq!(xy[16], (8, 0));
        // The second tile row starts after the 32 tiles of the first.
        assert_eq!((quads[32 * 16].x, quads[32 * 16].y), (0, 8));
        // Fragments are at pixel centres, ordered (x,y), (x+1,y), (x,y+1), (x+1,y+1).
        let q = &quads[16];
        let c = |x: f32, y: f32| Some((x / 256.0, y / 256.0));
        assert_eq!(
            q.frags,
            [c(8.5, 0.5), c(9.5, 0.5), c(8.5, 1.5), c(9.5, 1.5)]
        );
    }

    #[test]
    fn lod_per_scene() {
        let t = tex256();
        let lods = |scene| {
            rasterize(scene, &t, 256, 256)
                .iter()
                .map(|q| q.lod)
                .collect::<Vec<_>>()
        };
        assert!(lods(Scene::OneToOne).iter().all(|&l| l == 0.0));
        assert!(lods(Scene::Magnify2x).iter().all(|&l| l == 0.0));
        assert!(lods(Scene::Minify2x).iter().all(|&l| l == 1.0));
        assert!(
            lods(Scene::Rotated30)
                .iter()
                .all(|&l| (0.0..1e-3).contains(&l))
        );
        // A 1024 texture minified: the same lod, not tied to the texture size.
        let big = Texture::new(0, 10, 10, 4);
        assert!(
            rasterize(Scene::Minify2x, &big, 64, 64)
                .iter()
                .all(|q| q.lod == 1.0)
        );
    }

    #[test]
    fn quad_lod_clamps_to_the_last_level() {
        let t = Texture::new(0, 2, 2, 4);
        // A pixel stepping a whole texture width (4 texels): log2 4 = 2 = last level.
        assert_eq!(
            quad_lod(&t, &[(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)]),
            2.0
        );
        assert_eq!(
            quad_lod(&t, &[(0.0, 0.0), (4.0, 0.0), (0.0, 0.0), (0.0, 0.0)]),
            2.0
        );
        assert_eq!(quad_lod(&t, &[(0.5, 0.5); 4]), 0.0);
    }

    #[test]
    fn rotated_scene_masks_the_corners() {
        let quads = rasterize(Scene::Rotated30, &tex256(), 256, 256);
        // The screen corner (0,0) is outside the rotated square, so that quad is skipped.
        assert_ne!((quads[0].x, quads[0].y), (0, 0));
        assert!(quads.len() < 128 * 128);
        let partial = quads
            .iter()
            .filter(|q| (1..4).contains(&q.active()))
            .count();
        assert!(partial > 100, "{partial}");
        // The centre is covered and maps to the texture centre.
        let centre = quads
            .iter()
            .find(|q| (q.x, q.y) == (128, 128))
            .map(|q| q.frags[0]);
        let (s, t) = centre.flatten().unwrap_or_default();
        assert!((s - 0.5).abs() < 0.01 && (t - 0.5).abs() < 0.01, "{s} {t}");
        // Active fragments: the square's area inside the screen, below the full 65536.
        let active: usize = quads.iter().map(Quad::active).sum();
        assert!((40_000..60_000).contains(&active), "{active}");
        assert!(
            quads
                .iter()
                .flat_map(|q| q.frags)
                .flatten()
                .all(|(s, t)| { (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t) })
        );
    }

    #[test]
    fn odd_screen_sizes_mask_pixels_off_the_screen() {
        let quads = rasterize(Scene::OneToOne, &tex256(), 5, 3);
        // Tile (0,0) only; quads at x 0,2,4 for rows 0 and 2.
        assert_eq!(quads.len(), 6);
        let active: usize = quads.iter().map(Quad::active).sum();
        assert_eq!(active, 15);
        assert_eq!(quads[2].frags[1], None);
    }

    #[test]
    fn footprints_use_the_nearest_level() {
        let t = tex256();
        let one = rasterize(Scene::OneToOne, &t, 16, 16);
        let fp = quad_footprints(&t, &one, Wrap::Repeat);
        let r = |level, u, v| TexelRef { level, u, v };
        // Pixel (0,0) samples texel (0,0) at its centre.
        assert_eq!(
            fp[0][0],
            Some([r(0, 0, 0), r(0, 1, 0), r(0, 0, 1), r(0, 1, 1)])
        );
        assert_eq!(
            fp[0][3],
            Some([r(0, 1, 1), r(0, 2, 1), r(0, 1, 2), r(0, 2, 2)])
        );
        // Minified: pixel (x,y) lands on level-1 texel (x,y)'s centre.
        let min = rasterize(Scene::Minify2x, &t, 16, 16);
        let fp = quad_footprints(&t, &min, Wrap::Repeat);
        assert_eq!(
            fp[1][1],
            Some([r(1, 3, 0), r(1, 4, 0), r(1, 3, 1), r(1, 4, 1)])
        );
        // Magnified: pixel 0 is at u = 0.25, so i0 = -1 wraps.
        let mag = rasterize(Scene::Magnify2x, &t, 16, 16);
        let fp = quad_footprints(&t, &mag, Wrap::Repeat);
        assert_eq!(fp[0][0].map(|f| f[0]), Some(r(0, 255, 255)));
        let fp = quad_footprints(&t, &mag, Wrap::ClampToEdge);
        assert_eq!(fp[0][0].map(|f| f[0]), Some(r(0, 0, 0)));
    }

    #[test]
    fn requests_per_quad_or_per_fragment() {
        let t = tex256();
        let quads = rasterize(Scene::Rotated30, &t, 64, 64);
        let active: usize = quads.iter().map(Quad::active).sum();
        let four = requests(&t, &quads, Wrap::Repeat, 4, Layout::Linear);
        assert_eq!(four.len(), quads.len());
        assert!(four.iter().all(|r| r.texels.len() == 16));
        let masked: usize = four
            .iter()
            .map(|r| r.texels.iter().filter(|a| a.is_none()).count())
            .sum();
        assert_eq!(masked, (quads.len() * 4 - active) * 4);
        let one = requests(&t, &quads, Wrap::Repeat, 1, Layout::Linear);
        assert_eq!(one.len(), active);
        assert!(
            one.iter()
                .all(|r| r.texels.len() == 4 && r.texels.iter().all(Option::is_some))
        );
        // Lane i of a quad request holds fragment i's footprint, texels in footprint order.
        let fp = quad_footprints(&t, &quads[..1], Wrap::Repeat);
        for (lane, f) in fp[0].iter().enumerate() {
            let want = f.map(|refs| {
                refs.map(|r| Some(texel_address(&t, Layout::Linear, r.level, r.u, r.v)))
            });
            match want {
                Some(w) => assert_eq!(four[0].texels[lane * 4..lane * 4 + 4], w),
                None => assert!(
                    four[0].texels[lane * 4..lane * 4 + 4]
                        .iter()
                        .all(Option::is_none)
                ),
            }
        }
        assert!(requests(&t, &quads, Wrap::Repeat, 0, Layout::Linear).is_empty());
        // 8 lanes: two quads per request, the last one padded.
        let eight = requests(&t, &quads, Wrap::Repeat, 8, Layout::Linear);
        assert_eq!(eight.len(), quads.len().div_ceil(2));
    }
}
