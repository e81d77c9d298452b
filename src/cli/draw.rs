//! `gpurtl draw`: one textured quad rasterised in 2x2 pixel quads through the texture
//! mapping unit's model, written as a PNG.
//!
//! The quad is the texture's unit square. Flat, it is `scale` times the texture's size in
//! pixels, centred on the picture and rotated by `angle` degrees (counter-clockwise as
//! seen, y down) about the centre: texture point (s, t) has quad-local offsets
//! a = (s - 1/2) * W * scale, b = (t - 1/2) * H * scale. Perspective tilts it about its
//! horizontal centre line, the top edge (t = 0) away from the viewer: the point is drawn
//! at centre + R(angle) * (a, b) / w with w = 1 + P * (1 - 2t), so the top edge shrinks
//! by 1 / (1 + P) and the bottom grows by 1 / (1 - P); P in [0, 1) keeps w positive.
//!
//! Each pixel centre (x + 1/2, y + 1/2) is mapped back exactly: (x', y') = R(-angle) *
//! (pixel - centre), b = y' / (1 + 2P y' / (H scale)), a = x' * (1 - 2P b / (H scale)),
//! then s, t from a, b (perspective-correct: the inverse of the projective map). A pixel
//! is covered when s and t are in [0, 1) and it is in front of the horizon. Pixels are
//! taken in 2x2 quads from the top left; a quad with at least one covered pixel is sampled
//! through `sample_quad` with all four lanes' coordinates (uncovered lanes are helper
//! lanes, as on a GPU, so the LOD always comes from the quad's differences), and only its
//! covered pixels are written. Everything else stays transparent black.

use std::path::PathBuf;

use clap::Args;

use super::sample::{
    load_texture, parse_format, parse_mag_filter, parse_min_filter, parse_wrap, sampler,
};
use anyhow::anyhow;

use super::{ConfigArg, Failure, failure, tmu_rtl, usage};
use crate::config::TexLayout;
use crate::model::tmu::format::{Rgba8, TexFormat};
use crate::model::tmu::sampler::{Filter, quad_lambda, sample_quad, select_levels};
use crate::model::tmu::unit::{Lane, TmuCmd};
use crate::texio::{self, Image};
use crate::workload::Wrap;

fn parse_size(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(n @ 1..=8192) => Ok(n),
        _ => Err(format!("`{s}` pixels; allowed: an integer in 1..=8192")),
    }
}

fn parse_scale(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && (1.0 / 1024.0..=1024.0).contains(&x) => Ok(x),
        _ => Err(format!("`{s}` scale; allowed: a number in 1/1024..=1024")),
    }
}

fn parse_angle(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(format!("`{s}` angle; allowed: a finite number of degrees")),
    }
}

fn parse_perspective(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if (0.0..1.0).contains(&x) => Ok(x),
        _ => Err(format!("`{s}` perspective; allowed: a number in [0, 1)")),
    }
}

#[derive(Args, Debug, Clone)]
pub struct DrawArgs {
    /// Texture: PNG or DDS, as for `gpurtl sample`.
    #[arg(long, value_name = "FILE")]
    pub texture: PathBuf,
    /// Picture width [default: the texture's width].
    #[arg(long, value_name = "W", value_parser = parse_size)]
    pub width: Option<u32>,
    /// Picture height [default: the texture's height].
    #[arg(long, value_name = "H", value_parser = parse_size)]
    pub height: Option<u32>,
    /// Rotation in degrees, counter-clockwise on the picture.
    #[arg(long, value_name = "DEG", default_value = "0", value_parser = parse_angle, allow_hyphen_values = true)]
    pub angle: f64,
    /// Quad size in pixels per texel of the base level.
    #[arg(long, value_name = "S", default_value = "1", value_parser = parse_scale)]
    pub scale: f64,
    /// Perspective foreshortening in [0, 1): the top edge recedes.
    #[arg(long, value_name = "P", default_value = "0", value_parser = parse_perspective)]
    pub perspective: f64,
    /// As for `gpurtl sample`.
    #[arg(long, value_name = "F", default_value = "nearest_mipmap_linear", value_parser = parse_min_filter)]
    pub min_filter: Filter,
    /// nearest or linear.
    #[arg(long, value_name = "F", default_value = "linear", value_parser = parse_mag_filter)]
    pub mag_filter: Filter,
    /// Wrap mode for s and t: repeat, clamp_to_edge, mirrored_repeat.
    #[arg(long, value_name = "W", default_value = "repeat", value_parser = parse_wrap)]
    pub wrap: Wrap,
    /// Texel format the texture is stored in [default: the file's own].
    #[arg(long, value_name = "F", value_parser = parse_format)]
    pub format: Option<TexFormat>,
    /// Output PNG.
    #[arg(long, short = 'o', value_name = "FILE.png")]
    pub out: PathBuf,
    /// Also draw through the config's `tmu` RTL in Verilator (a 4- or 8-lane unit: one
    /// or two quads a request), fail if it differs from the model, and print requests per
    /// clock and the cache hit rate.
    #[arg(long)]
    pub rtl: bool,
    /// With --rtl: the config whose [tmu] is run (e.g. configs/seed001_tmu.toml).
    #[command(flatten)]
    pub config: ConfigArg,
}

/// Screen to texture: the inverse of the quad's projective map (see the module comment).
struct Mapping {
    cx: f64,
    cy: f64,
    cos: f64,
    sin: f64,
    qw: f64,
    qh: f64,
    p: f64,
}

impl Mapping {
    /// (s, t) of a point on the picture, and whether it is on the quad.
    fn st(&self, x: f64, y: f64) -> ((f32, f32), bool) {
        let (dx, dy) = (x - self.cx, y - self.cy);
        // R(-angle): undo the rotation (y down, counter-clockwise as seen).
        let xr = self.cos * dx - self.sin * dy;
        let yr = self.sin * dx + self.cos * dy;
        let den = 1.0 + 2.0 * self.p * yr / self.qh;
        let b = yr / den;
        let a = xr * (1.0 - 2.0 * self.p * b / self.qh);
        let (s, t) = (a / self.qw + 0.5, b / self.qh + 0.5);
        let inside = den > 0.0 && (0.0..1.0).contains(&s) && (0.0..1.0).contains(&t);
        ((s as f32, t as f32), inside)
    }
}

pub fn run(a: &DrawArgs) -> Result<u8, Failure> {
    let (tex, img) = load_texture(&a.texture, a.format, TexLayout::Tiled4x4)?;
    let (w, h) = (
        a.width.unwrap_or_else(|| tex.width().min(8192)),
        a.height.unwrap_or_else(|| tex.height().min(8192)),
    );
    // 10-bit weights, the [tmu] default, or the unit's.
    let bits = if a.rtl {
        tmu_rtl::weight_bits(&a.config)?
    } else {
        10
    };
    let s = sampler(a.min_filter, a.mag_filter, a.wrap, a.wrap, bits, 0.0);
    let rad = a.angle.to_radians();
    let map = Mapping {
        cx: f64::from(w) / 2.0,
        cy: f64::from(h) / 2.0,
        cos: rad.cos(),
        sin: rad.sin(),
        qw: f64::from(tex.width()) * a.scale,
        qh: f64::from(tex.height()) * a.scale,
        p: a.perspective,
    };
    let mut pic = Image::new(w, h);
    let mut histogram = vec![0u64; img.levels.len()];
    let (mut blended, mut covered) = (0u64, 0u64);
    // Every quad with a covered pixel: its pixels, which it writes, its coordinates.
    let mut quads = Vec::new();
    for y in (0..h).step_by(2) {
        for x in (0..w).step_by(2) {
            let px = [(x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1)];
            let lanes = px.map(|(px, py)| map.st(f64::from(px) + 0.5, f64::from(py) + 0.5));
            let write =
                std::array::from_fn::<bool, 4, _>(|k| lanes[k].1 && px[k].0 < w && px[k].1 < h);
            if write.contains(&true) {
                quads.push((px, write, lanes.map(|(st, _)| st)));
            }
        }
    }
    let colours: Vec<[Rgba8; 4]> = if a.rtl {
        let (cfg, tmu) = tmu_rtl::tmu_for(&a.config, &img, &s)?;
        if tmu.lanes < 4 {
            return Err(usage(anyhow!(
                "error: draw --rtl needs a tmu of 4 or 8 lanes (2x2 quads a request); the config's has {} (configs/seed001_tmu.toml has 4)",
                tmu.lanes
            )));
        }
        // One quad a request at 4 lanes, two at 8 (the last request's missing quad is
        // a masked copy of its first).
        let per = (tmu.lanes / 4) as usize;
        let groups: Vec<_> = quads.chunks(per).collect();
        let requests = groups
            .iter()
            .map(|group| TmuCmd::Sample {
                tex: 0,
                lod: None,
                lanes: (0..4 * per)
                    .map(|k| {
                        let (_, write, st) = group.get(k / 4).unwrap_or(&group[0]);
                        Lane {
                            s: st[k % 4].0,
                            t: st[k % 4].1,
                            active: k / 4 < group.len() && write[k % 4],
                        }
                    })
                    .collect(),
            })
            .collect();
        let (got, run) = tmu_rtl::run(&cfg, &tex, &img, &s, requests)?;
        println!("{}", tmu_rtl::summary(&run));
        got.iter()
            .zip(&groups)
            .flat_map(|(c, group)| {
                c.chunks(4)
                    .take(group.len())
                    .map(|q| [q[0], q[1], q[2], q[3]])
                    .collect::<Vec<_>>()
            })
            .collect()
    } else {
        quads
            .iter()
            .map(|(_, _, st)| sample_quad(&img, &s, st, None))
            .collect()
    };
    for ((px, write, st), c) in quads.iter().zip(&colours) {
        let lambda = quad_lambda(&img, &s, st, None);
        let (d1, _, blend, _) = select_levels(&img, &s, lambda);
        histogram[d1 as usize] += 1;
        blended += u64::from(blend != 0);
        for (k, &(px, py)) in px.iter().enumerate() {
            if write[k] {
                pic.set(px, py, c[k]);
                covered += 1;
            }
        }
    }
    let quads = quads.len();
    let bytes = texio::png::encode(&pic).map_err(failure)?;
    texio::write_atomic(&a.out, &bytes).map_err(failure)?;
    println!(
        "drew {}: {w}x{h} pixels, {covered} covered; texture {} ({}x{}, {} levels) as {}",
        a.out.display(),
        a.texture.display(),
        tex.width(),
        tex.height(),
        img.levels.len(),
        img.format.name()
    );
    println!("quads sampled: {quads} ({blended} trilinear, blending into the next level)");
    println!("level  size        quads");
    for (level, n) in histogram.iter().enumerate() {
        let (lw, lh) = img.level_log2(level as u32);
        println!(
            "{level:<6} {:<11} {n}",
            format!("{}x{}", 1u32 << lw, 1u32 << lh)
        );
    }
    Ok(0)
}
