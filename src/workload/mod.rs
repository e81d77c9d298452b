//! Texture traffic shared by the texture cache and the texture mapping unit (TMU).
//!
//! Every workload is a list of [`Request`]s: `lanes * 4` texel byte addresses, lane `i`
//! holding entries `4*i .. 4*i+4`, `None` for a masked lane. The four texels of a lane
//! are a GL bilinear footprint in the order (i0,j0), (i1,j0), (i0,j1), (i1,j1).
//!
//! Conventions:
//! - Textures: a full mip chain stored level after level from `base`; each level's size
//!   is rounded up to whole 4x4 tiles so [`Layout::Linear`] and [`Layout::Tiled4x4`]
//!   share the level bases ([`Texture::level_base`]).
//! - Texel-centre rule (GL): `u = s * width - 0.5`, `i0 = floor(u)`, `i1 = i0 + 1`, each
//!   wrapped by [`wrap`]; the same for t. A sample at a texel centre still fetches the
//!   weight-0 neighbours, as a GL bilinear filter does.
//! - Raster order: 8x8-pixel screen tiles row-major, the 2x2 pixel quads inside a tile
//!   row-major; fragments of a quad (x,y), (x+1,y), (x,y+1), (x+1,y+1) at pixel centres.
//!   With 4 lanes one request is one quad (lane = fragment); with 1 lane one request is
//!   one active fragment; other lane counts cut the fragment stream into groups of
//!   `lanes`. A request with no active lane is not sent.
//! - LOD: GL's rho from the quad's differences (0->1 for x, 0->2 for y) in level-0
//!   texels, `lod = log2(rho)` clamped to [0, levels-1]; the footprint is read at the
//!   nearest level (GL_LINEAR_MIPMAP_NEAREST).
//!
//! The workloads of [`generate`] (textures RGBA8 at [`TEXTURE_BASE`], wrap Repeat, the
//! screen as large as the texture, so one frame is 16384 quads at 256 and 262144 at 1024):
//! - `mag2x_*`: each texel spans 2x2 pixels (lod clamped to 0), heavy reuse.
//! - `one2one_*`: one texel per pixel, lod 0.
//! - `min2x_*`: a pixel steps 2 texels, lod 1, level 1 read twice across the screen.
//! - `rot30_*`: the texture square at 1:1 rotated 30 degrees about the screen centre;
//!   diagonal walks through the texture, corners masked.
//! - `thrash`: ways+1 lines of one set in a ring, so an LRU set misses on every texel.
//! - `all_miss`: every texel on a new line, never reused.
//! - `same_line`: bursts of [`SAME_LINE_BURST`] requests all on one line.
//! - `random`: uniform random texels of level 0 of the 256x256 texture, seeded.
//!
//! Raster workloads end with the frame (fewer than `max_requests` when the frame is
//! shorter) and ignore the seed; the others give exactly `max_requests`. The layout only
//! matters where addresses come from texels (raster and random); the cache-shaped ones
//! build addresses from lines.

pub mod adversarial;
pub mod raster;
pub mod texture;

pub use adversarial::{SAME_LINE_BURST, all_miss, random_uniform, same_line, thrash};
pub use raster::{Quad, Raster, Scene, quad_footprints, quad_lod, rasterize, requests};
pub use texture::{
    Layout, TexelRef, Texture, Wrap, bilinear_footprint, mip_level_nearest, texel_address, wrap,
};

/// Where [`generate`] places its texture (line aligned for any power-of-two line).
pub const TEXTURE_BASE: u64 = 0x0010_0000;
/// RGBA8.
pub const TEXEL_BYTES: u32 = 4;

/// One lookup: `lanes * 4` texel byte addresses, lane-major, `None` for masked lanes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub texels: Vec<Option<u64>>,
}

impl Request {
    /// A request from each lane's four addresses (None = masked lane).
    pub fn from_lanes(lanes: &[Option<[u64; 4]>]) -> Self {
        Self {
            texels: lanes
                .iter()
                .flat_map(|l| match l {
                    Some(a) => a.map(Some),
                    None => [None; 4],
                })
                .collect(),
        }
    }

    pub fn lanes(&self) -> usize {
        self.texels.len() / 4
    }

    /// Lanes with their texels present.
    pub fn active_lanes(&self) -> usize {
        self.texels
            .chunks(4)
            .filter(|l| l.iter().any(Option::is_some))
            .count()
    }
}

pub use crate::config::CacheShape;

/// Texture sizes of the raster workloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TexSize {
    S256,
    S1024,
}

impl TexSize {
    pub fn log2(self) -> u32 {
        match self {
            TexSize::S256 => 8,
            TexSize::S1024 => 10,
        }
    }
}

/// Every kind of traffic [`generate`] makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Workload {
    /// One frame of `Scene` on a square texture of `TexSize`, screen the same size.
    Raster(Scene, TexSize),
    Thrash,
    AllMiss,
    SameLine,
    Random,
}

impl Workload {
    pub const ALL: [Workload; 12] = [
        Workload::Raster(Scene::Magnify2x, TexSize::S256),
        Workload::Raster(Scene::OneToOne, TexSize::S256),
        Workload::Raster(Scene::Minify2x, TexSize::S256),
        Workload::Raster(Scene::Rotated30, TexSize::S256),
        Workload::Raster(Scene::Magnify2x, TexSize::S1024),
        Workload::Raster(Scene::OneToOne, TexSize::S1024),
        Workload::Raster(Scene::Minify2x, TexSize::S1024),
        Workload::Raster(Scene::Rotated30, TexSize::S1024),
        Workload::Thrash,
        Workload::AllMiss,
        Workload::SameLine,
        Workload::Random,
    ];

    /// Stable name, used in reports and on the command line.
    pub fn name(self) -> &'static str {
        use Scene::*;
        use TexSize::*;
        match self {
            Workload::Raster(Magnify2x, S256) => "mag2x_256",
            Workload::Raster(OneToOne, S256) => "one2one_256",
            Workload::Raster(Minify2x, S256) => "min2x_256",
            Workload::Raster(Rotated30, S256) => "rot30_256",
            Workload::Raster(Magnify2x, S1024) => "mag2x_1024",
            Workload::Raster(OneToOne, S1024) => "one2one_1024",
            Workload::Raster(Minify2x, S1024) => "min2x_1024",
            Workload::Raster(Rotated30, S1024) => "rot30_1024",
            Workload::Thrash => "thrash",
            Workload::AllMiss => "all_miss",
            Workload::SameLine => "same_line",
            Workload::Random => "random",
        }
    }

    pub fn from_name(name: &str) -> Option<Workload> {
        Workload::ALL.into_iter().find(|w| w.name() == name)
    }

    /// The texture the workload reads (the 256 one for the cache-shaped kinds).
    pub fn texture(self) -> Texture {
        let log2 = match self {
            Workload::Raster(_, size) => size.log2(),
            _ => TexSize::S256.log2(),
        };
        Texture::new(TEXTURE_BASE, log2, log2, TEXEL_BYTES)
    }
}

/// Up to `max_requests` requests of `workload`, the same for the same arguments.
pub fn generate(
    workload: Workload,
    lanes: usize,
    layout: Layout,
    shape: CacheShape,
    seed: u64,
    max_requests: usize,
) -> Vec<Request> {
    let tex = workload.texture();
    let n = max_requests;
    match workload {
        Workload::Raster(scene, _) => {
            let (w, h) = (tex.level_width(0), tex.level_height(0));
            let quads = Raster::new(scene, &tex, w, h);
            raster::requests_from(&tex, quads, Wrap::Repeat, lanes, layout, n)
        }
        Workload::Thrash => thrash(shape, tex.base, TEXEL_BYTES, lanes, n),
        Workload::AllMiss => all_miss(shape, tex.base, TEXEL_BYTES, lanes, n),
        Workload::SameLine => same_line(shape, tex.base, TEXEL_BYTES, lanes, n, seed),
        Workload::Random => random_uniform(&tex, layout, lanes, n, seed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_are_unique_and_round_trip() {
        let names: HashSet<&str> = Workload::ALL.iter().map(|w| w.name()).collect();
        assert_eq!(names.len(), Workload::ALL.len());
        for w in Workload::ALL {
            assert_eq!(Workload::from_name(w.name()), Some(w));
        }
        assert_eq!(
            Workload::from_name("rot30_1024").map(|w| w.texture().levels),
            Some(11)
        );
        assert_eq!(Workload::from_name("nope"), None);
    }

    #[test]
    fn generate_is_deterministic_and_shaped() {
        let shape = CacheShape::SPEC;
        for w in Workload::ALL {
            for (lanes, layout) in [(4, Layout::Tiled4x4), (1, Layout::Linear)] {
                let a = generate(w, lanes, layout, shape, 5, 300);
                assert_eq!(a, generate(w, lanes, layout, shape, 5, 300), "{}", w.name());
                assert_eq!(a.len(), 300, "{}", w.name());
                assert!(a.iter().all(|r| r.lanes() == lanes && r.active_lanes() > 0));
                let tex = w.texture();
                if matches!(w, Workload::Raster(..) | Workload::Random) {
                    let inside = |x: &u64| *x >= tex.base && *x < tex.base + tex.total_bytes();
                    assert!(a.iter().flat_map(|r| r.texels.iter().flatten()).all(inside));
                }
            }
        }
        let r1 = generate(Workload::Random, 4, Layout::Linear, shape, 1, 10);
        assert_ne!(
            r1,
            generate(Workload::Random, 4, Layout::Linear, shape, 2, 10)
        );
    }

    #[test]
    fn raster_workload_is_the_frame_prefix() {
        let w = Workload::Raster(Scene::Rotated30, TexSize::S256);
        let tex = w.texture();
        let quads = rasterize(Scene::Rotated30, &tex, 256, 256);
        let all = requests(&tex, &quads, Wrap::Repeat, 4, Layout::Tiled4x4);
        let shape = CacheShape::SPEC;
        let some = generate(w, 4, Layout::Tiled4x4, shape, 0, 1000);
        assert_eq!(some[..], all[..1000]);
        // The frame ends before a large cap.
        let whole = generate(w, 4, Layout::Tiled4x4, shape, 0, usize::MAX);
        assert_eq!(whole, all);
    }

    #[test]
    fn layouts_change_addresses_not_texels() {
        let w = Workload::Raster(Scene::OneToOne, TexSize::S256);
        let shape = CacheShape::SPEC;
        let lin = generate(w, 4, Layout::Linear, shape, 0, 64);
        let til = generate(w, 4, Layout::Tiled4x4, shape, 0, 64);
        assert_ne!(lin, til);
        // The first screen tile reads texels (0..9, 0..9) of level 0: fewer 256-byte
        // lines when tiled than when linear (9 rows of 1 KiB each).
        let lines = |rs: &[Request]| {
            rs[..16]
                .iter()
                .flat_map(|r| r.texels.iter().flatten())
                .map(|&a| shape.line_of(a))
                .collect::<HashSet<_>>()
                .len()
        };
        assert_eq!(lines(&lin), 9);
        assert_eq!(lines(&til), 3);
    }
}
