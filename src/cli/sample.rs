//! `gpurtl sample`: what the texture mapping unit's model returns for coordinates from
//! a CSV file. Also the option parsers that `gpurtl draw` shares.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::anyhow;
use clap::Args;

use super::{ConfigArg, Failure, failure, tmu_rtl, usage};
use crate::config::{TexLayout, Tmu};
use crate::model::tmu::format::{Rgba8, TexFormat};
use crate::model::tmu::lod::LOD_FRAC;
use crate::model::tmu::sampler::{Filter, MipImage, Sampler, lod_fixed, sample_quad};
use crate::sim::{SimOptions, glref};
use crate::texio::{self, TextureFile, csv::Coord};
use crate::workload::Wrap;

pub const FILTERS: [(&str, Filter); 6] = [
    ("nearest", Filter::Nearest),
    ("linear", Filter::Linear),
    ("nearest_mipmap_nearest", Filter::NearestMipmapNearest),
    ("linear_mipmap_nearest", Filter::LinearMipmapNearest),
    ("nearest_mipmap_linear", Filter::NearestMipmapLinear),
    ("linear_mipmap_linear", Filter::LinearMipmapLinear),
];

pub const WRAPS: [(&str, Wrap); 3] = [
    ("repeat", Wrap::Repeat),
    ("clamp_to_edge", Wrap::ClampToEdge),
    ("mirrored_repeat", Wrap::MirroredRepeat),
];

fn names<T>(table: &[(&str, T)]) -> String {
    table.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
}

pub fn parse_min_filter(s: &str) -> Result<Filter, String> {
    FILTERS
        .iter()
        .find(|(n, _)| *n == s)
        .map(|&(_, f)| f)
        .ok_or_else(|| format!("unknown filter `{s}`; allowed: {}", names(&FILTERS)))
}

pub fn parse_mag_filter(s: &str) -> Result<Filter, String> {
    match parse_min_filter(s) {
        Ok(f @ (Filter::Nearest | Filter::Linear)) => Ok(f),
        _ => Err(format!(
            "`{s}` is not a magnification filter; allowed: nearest, linear"
        )),
    }
}

pub fn parse_wrap(s: &str) -> Result<Wrap, String> {
    WRAPS
        .iter()
        .find(|(n, _)| *n == s)
        .map(|&(_, w)| w)
        .ok_or_else(|| format!("unknown wrap mode `{s}`; allowed: {}", names(&WRAPS)))
}

pub fn parse_format(s: &str) -> Result<TexFormat, String> {
    TexFormat::from_name(s).ok_or_else(|| {
        let all: Vec<&str> = TexFormat::ALL.iter().map(|f| f.name()).collect();
        format!("unknown texel format `{s}`; allowed: {}", all.join(", "))
    })
}

fn parse_layout(s: &str) -> Result<TexLayout, String> {
    match s {
        "linear" => Ok(TexLayout::Linear),
        "tiled4x4" => Ok(TexLayout::Tiled4x4),
        _ => Err(format!("unknown layout `{s}`; allowed: linear, tiled4x4")),
    }
}

fn parse_lanes(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n @ (1 | 2 | 4 | 8)) => Ok(n),
        _ => Err(format!("`{s}` lanes; allowed: 1, 2, 4, 8")),
    }
}

pub fn parse_weight_bits(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(n @ 4..=12) => Ok(n),
        _ => Err(format!(
            "`{s}` weight bits; allowed: an integer in 4..=12 (as [tmu] weight_bits)"
        )),
    }
}

pub fn parse_lod_bias(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(x) if (-64.0..=64.0).contains(&x) => Ok(x),
        _ => Err(format!("`{s}` LOD bias; allowed: a number in -64..=64")),
    }
}

#[derive(Args, Debug, Clone)]
pub struct SampleArgs {
    /// Texture: PNG, or DDS (DXT1, uncompressed 8/16/24/32-bit; its mip chain if present).
    #[arg(long, value_name = "FILE")]
    pub texture: PathBuf,
    /// Coordinates: `s,t` or `s,t,lod` per row.
    #[arg(long, value_name = "FILE.csv")]
    pub coords: PathBuf,
    /// Texel format the texture is stored in: rgba8888, rgb565, rgba4444, rgba5551, l8,
    /// la88, a8, dxt1 [default: the file's own].
    #[arg(long, value_name = "F", value_parser = parse_format)]
    pub format: Option<TexFormat>,
    /// nearest, linear, nearest_mipmap_nearest, linear_mipmap_nearest,
    /// nearest_mipmap_linear, linear_mipmap_linear (GL's default).
    #[arg(long, value_name = "F", default_value = "nearest_mipmap_linear", value_parser = parse_min_filter)]
    pub min_filter: Filter,
    /// nearest or linear (GL's default).
    #[arg(long, value_name = "F", default_value = "linear", value_parser = parse_mag_filter)]
    pub mag_filter: Filter,
    /// repeat, clamp_to_edge, mirrored_repeat.
    #[arg(long, value_name = "W", default_value = "repeat", value_parser = parse_wrap)]
    pub wrap_s: Wrap,
    /// repeat, clamp_to_edge, mirrored_repeat.
    #[arg(long, value_name = "W", default_value = "repeat", value_parser = parse_wrap)]
    pub wrap_t: Wrap,
    /// Rows per request (1, 2, 4 or 8); 4 is one 2x2 quad, 8 two quads.
    #[arg(long, value_name = "N", default_value = "4", value_parser = parse_lanes)]
    pub lanes: usize,
    /// Bits of the bilinear weights, 4..=12 (10, the [tmu] default, is within 1 LSB of GL).
    #[arg(long, value_name = "N", default_value = "10", value_parser = parse_weight_bits)]
    pub weight_bits: u32,
    /// TEXTURE_LOD_BIAS, added to every LOD (computed or explicit), -64..=64.
    #[arg(long, value_name = "X", default_value = "0", value_parser = parse_lod_bias, allow_hyphen_values = true)]
    pub lod_bias: f32,
    /// Texture memory layout: linear or tiled4x4 (same results; a DXT1 texture is always blocks).
    #[arg(long, value_name = "L", default_value = "tiled4x4", value_parser = parse_layout)]
    pub layout: TexLayout,
    /// Output CSV, `r,g,b,a` per row [default: stdout].
    #[arg(long, short = 'o', value_name = "FILE.csv")]
    pub out: Option<PathBuf>,
    /// Also run the samples through the config's `tmu` RTL in Verilator (requests of its
    /// lane count); fail if it differs from the model. A unit of fewer than 4 lanes has no
    /// quad: its rows without a LOD are sampled at LOD 0 (plus the bias).
    #[arg(long)]
    pub rtl: bool,
    /// Also sample the rows through a real OpenGL, Mesa's softpipe (off screen, by
    /// OSMesa), write its colours to FILE.csv and print the largest difference per channel
    /// from the model's (rows near a level switch may differ more; see README).
    #[arg(long, value_name = "FILE.csv")]
    pub gl: Option<PathBuf>,
    /// With --rtl: the config whose [tmu] is run.
    #[command(flatten)]
    pub config: ConfigArg,
}

/// The sampler state of the options: GL's MIN_LOD -1000 and MAX_LOD 1000.
pub fn sampler(
    min_filter: Filter,
    mag_filter: Filter,
    wrap_s: Wrap,
    wrap_t: Wrap,
    weight_bits: u32,
    lod_bias: f32,
) -> Sampler {
    Sampler {
        min_filter,
        mag_filter,
        wrap_s,
        wrap_t,
        lod_bias: lod_fixed(lod_bias),
        min_lod: -1000 << LOD_FRAC,
        max_lod: 1000 << LOD_FRAC,
        weight_bits,
    }
}

/// Loads the texture and stores it in `format` (default: the file's own).
pub fn load_texture(
    path: &Path,
    format: Option<TexFormat>,
    layout: TexLayout,
) -> Result<(TextureFile, MipImage), Failure> {
    let tex = texio::load(path).map_err(usage)?;
    let img = tex.to_mip_image(format.unwrap_or(tex.format), layout);
    Ok((tex, img))
}

/// A quad of rows: its four (s, t), its explicit LOD, and how many rows it answers.
#[derive(Debug, Clone, Copy)]
pub struct RowQuad {
    pub rows: usize,
    pub st: [(f32, f32); 4],
    pub lod: Option<f32>,
}

/// The quads the rows are sampled in. Consecutive rows without a LOD form requests of `lanes` rows, each
/// split into 2x2 quads of four rows; a request cut short (by the end of the file or by
/// a row with a LOD), and every request of fewer than four lanes, is padded to a quad by
/// repeating its last row. A row with a LOD is sampled alone at that LOD.
pub fn quads(rows: &[Coord], lanes: usize) -> Vec<RowQuad> {
    let mut out = Vec::with_capacity(rows.len() / 4 + 1);
    let mut i = 0;
    while i < rows.len() {
        if let Some(lod) = rows[i].lod {
            out.push(RowQuad {
                rows: 1,
                st: [(rows[i].s, rows[i].t); 4],
                lod: Some(lod),
            });
            i += 1;
            continue;
        }
        let mut j = i;
        while j < rows.len() && j - i < lanes && rows[j].lod.is_none() {
            j += 1;
        }
        for quad in rows[i..j].chunks(4) {
            let last = quad[quad.len() - 1];
            let st: [(f32, f32); 4] = std::array::from_fn(|k| {
                let r = quad.get(k).unwrap_or(&last);
                (r.s, r.t)
            });
            out.push(RowQuad {
                rows: quad.len(),
                st,
                lod: None,
            });
        }
        i = j;
    }
    out
}

/// Samples every row, in the quads of [`quads`].
pub fn sample_rows(img: &MipImage, sampler: &Sampler, rows: &[Coord], lanes: usize) -> Vec<Rgba8> {
    quads(rows, lanes)
        .iter()
        .flat_map(|q| sample_quad(img, sampler, &q.st, q.lod)[..q.rows].to_vec())
        .collect()
}

/// The same rows sampled by Mesa (softpipe, through OSMesa): each quad's rows by
/// textureGrad with the quad's differences, or by textureLod.
fn sample_rows_gl(
    img: &MipImage,
    sampler: &Sampler,
    rows: &[Coord],
    lanes: usize,
) -> Result<Vec<Rgba8>, Failure> {
    let q = quads(rows, lanes);
    let samples = q
        .iter()
        .flat_map(|q| glref::quad_samples(&q.st, q.lod)[..q.rows].to_vec())
        .collect();
    let case = glref::GlCase {
        img,
        sampler: *sampler,
        samples,
    };
    let mut got = glref::sample(
        &[case],
        glref::Driver::Softpipe,
        &SimOptions::default_work_dir(),
    )
    .map_err(failure)?;
    Ok(got.pop().unwrap_or_default())
}

/// The rows as requests of the unit's lanes: a row with a LOD alone, the others in
/// groups of `lanes` (cut short by a row with a LOD or the end).
fn groups(tmu: &Tmu, rows: &[Coord]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < rows.len() {
        let mut j = i + 1;
        if rows[i].lod.is_none() {
            while j < rows.len() && j - i < tmu.lanes as usize && rows[j].lod.is_none() {
                j += 1;
            }
        }
        out.push((i, j));
        i = j;
    }
    out
}

pub fn run(a: &SampleArgs) -> Result<u8, Failure> {
    let (tex, img) = load_texture(&a.texture, a.format, a.layout)?;
    let name = a.coords.display().to_string();
    let text = fs::read(&a.coords)
        .map_err(|e| usage(anyhow!("error: {name}: cannot read the coordinates: {e}")))?;
    let text = String::from_utf8(text)
        .map_err(|e| usage(anyhow!("error: {name}: not UTF-8 text: {e}")))?;
    let rows = texio::csv::parse_coords(&text, &name).map_err(usage)?;
    let s = sampler(
        a.min_filter,
        a.mag_filter,
        a.wrap_s,
        a.wrap_t,
        a.weight_bits,
        a.lod_bias,
    );
    let colours = if a.rtl {
        let (cfg, tmu) = tmu_rtl::tmu_for(&a.config, &img, &s)?;
        let groups = groups(&tmu, &rows);
        let requests = groups
            .iter()
            .map(|&(i, j)| {
                let st: Vec<(f32, f32)> = rows[i..j].iter().map(|r| (r.s, r.t)).collect();
                tmu_rtl::request(&tmu, &st, rows[i].lod)
            })
            .collect();
        let (got, run) = tmu_rtl::run(&cfg, &tex, &img, &s, requests)?;
        eprintln!("{}", tmu_rtl::summary(&run));
        got.iter()
            .zip(&groups)
            .flat_map(|(c, &(i, j))| c[..j - i].to_vec())
            .collect()
    } else {
        sample_rows(&img, &s, &rows, a.lanes)
    };
    if let Some(path) = &a.gl {
        let gl = sample_rows_gl(&img, &s, &rows, a.lanes)?;
        texio::write_atomic(path, texio::csv::render_rgba(&gl).as_bytes()).map_err(failure)?;
        // Against the model's quads (an RTL of fewer than four lanes has none).
        let model = sample_rows(&img, &s, &rows, a.lanes);
        let (max, over) = glref::compare(&gl, &model, 1);
        eprintln!(
            "gl: Mesa (softpipe) sampled {} row(s) into {}; largest difference per channel {},{},{},{}; {over} row(s) more than 1 LSB apart",
            gl.len(),
            path.display(),
            max[0],
            max[1],
            max[2],
            max[3]
        );
        if let Some(i) =
            (0..gl.len()).find(|&i| glref::compare(&gl[i..=i], &colours[i..=i], 1).1 > 0)
        {
            eprintln!(
                "gl: first at line {}: Mesa {:?}, the unit {:?}",
                rows[i].line, gl[i], colours[i]
            );
        }
    }
    let csv = texio::csv::render_rgba(&colours);
    match &a.out {
        Some(path) => {
            texio::write_atomic(path, csv.as_bytes()).map_err(failure)?;
            eprintln!(
                "sampled {} row(s) of {} ({}x{}, {} levels, {} from the file) as {} into {}",
                rows.len(),
                a.texture.display(),
                tex.width(),
                tex.height(),
                tex.levels.len(),
                tex.file_levels,
                img.format.name(),
                path.display()
            );
        }
        None => print!("{csv}"),
    }
    Ok(0)
}
