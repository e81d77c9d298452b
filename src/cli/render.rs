//! `gpurtl render`: a PNG through the image processing unit's DrawPixels path (seed 000)
//! and the framebuffer region it wrote, as a PNG.
//!
//! The picture is sent as one rgba8888 DRAW_PIXELS; PNG row 0 is the first row GL receives
//! (GL row 0). Before it: PIXEL_TRANSFER for every channel's scale and bias (GL-normalised
//! floats, sent as Q15.16; a bias of 2/255 raises an 8-bit channel by 2), ZOOM (sent as
//! Q7.16), and with `--map` the four colour maps and MAP_COLOR. The raster position is
//! (32768, 32768), so mirrored draws stay on the 16-bit framebuffer. The output is the
//! rectangle of pixels the draw wrote (GL's pixel-centre rule: `ceil(n * |z| - 0.5)`
//! columns from `n`), its row 0 the lowest framebuffer row written.
//!
//! `--rtl` also runs the command stream through the Verilated `ipu` (the co-simulation
//! harness of `gpurtl sim`), which compares every pixel beat the RTL sends with the
//! model's; the PNG is written only when all of them match, else the exit code is 1.
//!
//! Kernel (`--convolve`): `[WxH:]w0,w1,...`, the filter's weights row by row, row 0 first
//! (GL's order: row 0 is the filter image's bottom row), each in [-128, 128]; without the
//! `WxH:` prefix the kernel is square (1, 4, 9, 16 or 25 weights). W and H are 1..=5. The
//! weights apply to R, G and B (sent as Q15.16 in one CONVOLUTION_FILTER with mask 0x7);
//! alpha passes unchanged from the pixel under the filter's centre tap. The filter runs in
//! GL's GL_REDUCE border mode, so the output is W - 1 columns and H - 1 rows smaller (before
//! zoom). The unit then also has a 5x5 filter with 8192-pixel line buffers.
//!
//! `--read FORMAT` (one of the DMA formats, `rgba8888` .. `la88`) then reads the written
//! rectangle back with READ_PIXELS (glReadPixels) under GL's default transfer state
//! (scale 1, bias 0, MAP_COLOR and CONVOLUTION off), the framebuffer answering with the
//! drawn pixels, and the output is what ReadPixels returned, widened back to RGBA8 as
//! DRAW_PIXELS unpacks it: the format's quantisation (and ReadPixels' luminance, R + G + B
//! clamped) made visible. The unit then also has the framebuffer paths.
//!
//! Map file (`--map`): lines `r`, `g`, `b` or `a` followed by the map's values, GL floats
//! in [0, 1] separated by spaces or commas (at most 256 of them); `#` starts a comment.
//! Each value is sent as an 8-bit entry, round(v * 255).

use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow, bail};
use clap::Args;

use super::{Failure, failure, usage};
use crate::config::{self, Config};
use crate::model::ipu as m;
use crate::sim::{self, SimOptions};
use crate::texio::{self, Image};
use crate::units;

/// The unit `render` runs: one lane, zoom with the widest line, four 256-entry maps.
const CONFIG: &str = "[design]\nname = \"render\"\nmodule_prefix = \"render_\"\n\
[reset]\nkind = \"async\"\nactive = \"low\"\n[ipu]\nlanes = 1\nscale_int_bits = 8\n\
scale_frac_bits = 16\nbias_int_bits = 8\nbias_frac_bits = 16\n\
[ipu.zoom]\nenabled = true\nmax_line_width = 8192\n\
[ipu.pixel_map]\nenabled = true\ntable_size = 256\n\
maps = [\"r_to_r\", \"g_to_g\", \"b_to_b\", \"a_to_a\"]\n";

/// The unit's filter, added only for `--convolve` (so other renders reuse their build).
const CONV: &str = "[ipu.convolution]\nenabled = true\nkernel_size = 5\nmax_line_width = 8192\n\
weight_int_bits = 8\n";

/// A `--convolve` kernel: width, height and the weights, row 0 first.
#[derive(Debug, Clone, PartialEq)]
pub struct Kernel {
    pub w: u32,
    pub h: u32,
    pub weights: Vec<f64>,
}

fn parse_kernel(s: &str) -> Result<Kernel, String> {
    let bad = |why: &str| {
        format!(
            "`{s}`: {why}; allowed: [WxH:]w0,w1,... with W and H in 1..=5 and W * H weights in [-128, 128] (no prefix: 1, 4, 9, 16 or 25 of them, a square)"
        )
    };
    let (size, list) = match s.split_once(':') {
        Some((size, list)) => {
            let (w, h) = size
                .split_once(['x', 'X'])
                .ok_or_else(|| bad("the size is not WxH"))?;
            let parse = |t: &str| {
                t.trim()
                    .parse::<u32>()
                    .map_err(|_| bad("the size is not WxH"))
            };
            (Some((parse(w)?, parse(h)?)), list)
        }
        None => (None, s),
    };
    let weights = list
        .split(',')
        .map(|t| t.trim().parse::<f64>())
        .collect::<Result<Vec<f64>, _>>()
        .map_err(|_| bad("a weight is not a number"))?;
    if weights.iter().any(|v| !v.is_finite() || v.abs() > 128.0) {
        return Err(bad("a weight is out of range"));
    }
    let (w, h) = match size {
        Some(wh) => wh,
        None => {
            let n = (1..=5u32)
                .find(|n| (n * n) as usize == weights.len())
                .ok_or_else(|| bad("the weights do not make a square"))?;
            (n, n)
        }
    };
    if !(1..=5).contains(&w) || !(1..=5).contains(&h) {
        return Err(bad("the size is out of range"));
    }
    if weights.len() != (w * h) as usize {
        return Err(bad("the count of weights is not W * H"));
    }
    Ok(Kernel { w, h, weights })
}

/// The raster position.
const ORIGIN: u32 = 0x8000;

/// `N` comma-separated finite numbers of magnitude at most `bound`.
fn parse_numbers<const N: usize>(s: &str, names: &str, bound: f64) -> Result<[f64; N], String> {
    let bad = || format!("`{s}`; allowed: {N} numbers {names}, each in [-{bound}, {bound}]");
    let v: Vec<f64> = s
        .split(',')
        .map(|t| t.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| bad())?;
    if v.iter().any(|x| !x.is_finite() || x.abs() > bound) {
        return Err(bad());
    }
    v.try_into().map_err(|_| bad())
}

fn parse_four(s: &str) -> Result<[f64; 4], String> {
    parse_numbers(s, "R,G,B,A", 128.0)
}

fn parse_zoom(s: &str) -> Result<[f64; 2], String> {
    parse_numbers(s, "X,Y", 64.0)
}

/// A DMA format's name: its code. ReadPixels packs RGBA formats only (not ci8).
fn parse_format(s: &str) -> Result<u32, String> {
    let rgba = &config::ipu::FORMATS[..config::ipu::CI8];
    rgba.iter()
        .position(|f| *f == s)
        .map(|c| c as u32)
        .ok_or_else(|| format!("unknown format {s:?}; allowed: {}", rgba.join(", ")))
}

#[derive(Args, Debug, Clone)]
pub struct RenderArgs {
    /// The picture to draw (PNG; row 0 is GL row 0).
    #[arg(long, value_name = "FILE.png")]
    pub image: PathBuf,
    /// glPixelTransfer scales R,G,B,A.
    #[arg(long, value_name = "R,G,B,A", value_parser = parse_four, allow_hyphen_values = true)]
    pub scale: Option<[f64; 4]>,
    /// glPixelTransfer biases R,G,B,A (GL-normalised: 2/255 adds 2 to an 8-bit channel).
    #[arg(long, value_name = "R,G,B,A", value_parser = parse_four, allow_hyphen_values = true)]
    pub bias: Option<[f64; 4]>,
    /// glPixelZoom factors X,Y.
    #[arg(long, value_name = "X,Y", value_parser = parse_zoom, allow_hyphen_values = true)]
    pub zoom: Option<[f64; 2]>,
    /// glConvolutionFilter2D kernel on R, G, B: `[WxH:]w0,w1,...`, row 0 first (see
    /// `gpurtl render` in README.md); turns CONVOLUTION_2D on (GL_REDUCE).
    #[arg(long, value_name = "KERNEL", value_parser = parse_kernel, allow_hyphen_values = true)]
    pub convolve: Option<Kernel>,
    /// Colour maps (see `gpurtl render` in README.md); turns MAP_COLOR on.
    #[arg(long, value_name = "FILE")]
    pub map: Option<PathBuf>,
    /// Read the drawn rectangle back with glReadPixels in FORMAT (default transfer state);
    /// the output is what it returned, widened back to RGBA8.
    #[arg(long, value_name = "FORMAT", value_parser = parse_format)]
    pub read: Option<u32>,
    /// Run the Verilated RTL too; its pixels must equal the model's.
    #[arg(long)]
    pub rtl: bool,
    /// Output PNG: the pixels the draw wrote.
    #[arg(long, short = 'o', value_name = "FILE.png")]
    pub out: PathBuf,
}

/// The maps of a map file, by channel.
fn read_maps(path: &Path) -> anyhow::Result<Vec<(u32, Vec<u8>)>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("error: reading map file {}", path.display()))?;
    let mut maps = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = || format!("error: {}:{}", path.display(), n + 1);
        let mut words = line
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty());
        let ch = match words.next() {
            Some("r") => 0,
            Some("g") => 1,
            Some("b") => 2,
            Some("a") => 3,
            other => bail!(
                "{}: `{}`; allowed: a line starts with r, g, b or a",
                at(),
                other.unwrap_or("")
            ),
        };
        let mut values = Vec::new();
        for w in words {
            match w.parse::<f64>() {
                Ok(v) if (0.0..=1.0).contains(&v) => values.push((v * 255.0).round() as u8),
                _ => bail!("{}: `{w}`; allowed: map values in [0, 1]", at()),
            }
        }
        if values.is_empty() || values.len() > 256 {
            bail!("{}: {} values; allowed: 1..=256", at(), values.len());
        }
        maps.push((ch, values));
    }
    Ok(maps)
}

/// The command stream and DMA words of the draw.
fn stream(a: &RenderArgs, img: &Image, maps: &[(u32, Vec<u8>)]) -> m::Stream {
    let mut s = m::Stream::default();
    for ch in 0..4 {
        if let Some(scale) = a.scale {
            s.cmds
                .extend(m::cmd_transfer(false, ch, m::q16(scale[ch as usize])));
        }
        if let Some(bias) = a.bias {
            s.cmds
                .extend(m::cmd_transfer(true, ch, m::q16(bias[ch as usize])));
        }
    }
    if let Some([zx, zy]) = a.zoom {
        s.cmds.extend(m::cmd_zoom(m::q16(zx), m::q16(zy)));
    }
    for (ch, values) in maps {
        s.cmds.extend(m::cmd_pixelmap(*ch, values));
    }
    if !maps.is_empty() {
        s.cmds.push(m::cmd_mapcolor(true));
    }
    if let Some(k) = &a.convolve {
        let q: Vec<u32> = k.weights.iter().map(|v| m::q16(*v)).collect();
        s.cmds.extend(m::cmd_filter(0x7, k.w, k.h, &q));
        s.cmds.push(m::cmd_convolution(true));
    }
    s.cmds
        .extend(m::cmd_draw(0, img.width, img.height, ORIGIN, ORIGIN));
    s.dma = img.pixels.iter().map(|p| u32::from_le_bytes(*p)).collect();
    s
}

/// Appends READ_PIXELS of `pic` in format `fmt` under GL's default transfer state, and the
/// framebuffer's answer (the picture, 4 pixels a 128-bit word, rows padded).
fn read_back(s: &mut m::Stream, pic: &Image, fmt: u32) {
    for ch in 0..4 {
        s.cmds.extend(m::cmd_transfer(false, ch, m::q16(1.0)));
        s.cmds.extend(m::cmd_transfer(true, ch, 0));
    }
    s.cmds.push(m::cmd_mapcolor(false));
    s.cmds.push(m::cmd_convolution(false));
    s.cmds
        .extend(m::cmd_read(fmt, pic.width, pic.height, ORIGIN, ORIGIN));
    for y in 0..pic.height {
        for k in 0..pic.width.div_ceil(4) {
            s.fb.push(std::array::from_fn(|i| {
                let x = 4 * k + i as u32;
                if x < pic.width {
                    u32::from_le_bytes(pic.get(x, y))
                } else {
                    0
                }
            }));
        }
    }
}

/// What READ_PIXELS returned in format `fmt`, `w` x `h`, widened back to RGBA8.
fn read_picture(out: &m::Outputs, fmt: u32, (w, h): (u32, u32)) -> Image {
    let bpp = m::bytes_per_pixel(fmt) as usize;
    let bytes: Vec<u8> = out.dma_out.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut pic = Image::new(w, h);
    for (p, chunk) in bytes.chunks(bpp).take((w * h) as usize).enumerate() {
        let raw = (0..bpp).fold(0u32, |v, i| v | u32::from(chunk[i]) << (8 * i));
        let (x, y) = (p as u32 % w, p as u32 / w);
        pic.set(x, y, m::convert(fmt, raw).to_le_bytes());
    }
    pic
}

/// The written pixels as a picture: row 0 the lowest framebuffer row.
fn picture(cfg: &Config, out: &m::Outputs) -> anyhow::Result<Image> {
    let px = match cfg.ipu.as_ref() {
        Some(ipu) => out.written(ipu),
        None => Vec::new(),
    };
    let (Some(x0), Some(x1)) = (px.iter().map(|p| p.0).min(), px.iter().map(|p| p.0).max()) else {
        bail!(
            "error: the draw wrote no pixels (a zoom factor rounds the picture away, or the picture is smaller than the kernel)"
        );
    };
    let y0 = px.iter().map(|p| p.1).min().unwrap_or(0);
    let y1 = px.iter().map(|p| p.1).max().unwrap_or(0);
    let mut pic = Image::new(x1 - x0 + 1, y1 - y0 + 1);
    for (x, y, c) in px {
        pic.set(x - x0, y - y0, c.to_le_bytes());
    }
    Ok(pic)
}

/// The sizes DrawPixels takes here: any, up to the 16-bit fields of the draw's size and
/// the line buffers the draw goes through (the zoom's, and the convolution's when on),
/// which hold a whole row.
fn check_picture(ipu: &config::Ipu, name: &str, width: u32, height: u32) -> anyhow::Result<()> {
    let mut lines: Vec<(u32, &str)> = Vec::new();
    if let Some(w) = ipu.zoom {
        lines.push((w, "[ipu.zoom] max_line_width, the zoom's line buffer"));
    }
    if let Some(c) = &ipu.convolution {
        lines.push((
            c.line,
            "[ipu.convolution] max_line_width, the filter's line buffers",
        ));
    }
    if let Some((w, what)) = lines.iter().min_by_key(|l| l.0)
        && width > *w
    {
        bail!("error: {name}: {width} pixels wide; allowed: 1..={w} ({what} in the render config)");
    }
    if height > u32::from(u16::MAX) || width > u32::from(u16::MAX) {
        bail!(
            "error: {name}: {width}x{height} pixels; allowed: up to 65535 a side (DRAW_PIXELS' size fields)"
        );
    }
    Ok(())
}

pub fn run(a: &RenderArgs) -> Result<u8, Failure> {
    let mut text = if a.convolve.is_some() {
        format!("{CONFIG}{CONV}")
    } else {
        CONFIG.to_string()
    };
    if a.read.is_some() {
        // The framebuffer paths, only when reading (other renders reuse their build).
        text = text.replacen("[ipu]\n", "[ipu]\nframebuffer = true\n", 1);
    }
    let cfg = config::parse(&text, "render").map_err(|e| failure(anyhow!("{e}")))?;
    let ipu = cfg
        .ipu
        .clone()
        .ok_or_else(|| failure(anyhow!("no [ipu]")))?;
    let bytes = std::fs::read(&a.image)
        .with_context(|| format!("error: reading {}", a.image.display()))
        .map_err(usage)?;
    let img = texio::png::decode_picture(&bytes, &a.image.display().to_string()).map_err(usage)?;
    check_picture(&ipu, &a.image.display().to_string(), img.width, img.height).map_err(usage)?;
    let maps = match &a.map {
        Some(p) => read_maps(p).map_err(usage)?,
        None => Vec::new(),
    };
    let mut s = stream(a, &img, &maps);
    let (mut vectors, out) = m::encode(&ipu, &s, 1);
    let mut pic = picture(&cfg, &out).map_err(failure)?;
    if let Some(fmt) = a.read {
        read_back(&mut s, &pic, fmt);
        let (v, out) = m::encode(&ipu, &s, 1);
        vectors = v;
        pic = read_picture(&out, fmt, (pic.width, pic.height));
    }
    if a.rtl {
        let design = units::elaborate(&cfg).map_err(failure)?;
        let unit = sim::find_unit(&design, "ipu").map_err(failure)?;
        let work_dir = SimOptions::default_work_dir();
        let bar = super::sim_bar();
        let opt = SimOptions {
            progress: bar.as_ref().map(|b| b.progress()),
            ..SimOptions::new(s.cmds.len(), 1, work_dir.clone())
        };
        opt.tell(sim::Stage::Build);
        let built = sim::build(&cfg, &design, unit, false, &work_dir);
        let r = built.and_then(|(dir, cached)| {
            let e = units::expectation(&cfg, unit, &vectors, 0.0, 0.0);
            sim::run_vectors(unit, &dir, cached, &opt, &vectors, &e)
        });
        if let Some(b) = bar {
            b.finish();
        }
        let r = r.map_err(failure)?;
        if !r.passed {
            eprintln!(
                "error: the RTL's pixels differ from the model's: {}",
                r.errors.join("; ")
            );
            return Ok(1);
        }
        println!(
            "rtl: {} transactions equal the model's, {} clocks",
            r.transactions, r.cycles
        );
    }
    let png = texio::png::encode(&pic).map_err(failure)?;
    texio::write_atomic(&a.out, &png).map_err(failure)?;
    println!(
        "rendered {}: {}x{} pixels from {} ({}x{})",
        a.out.display(),
        pic.width,
        pic.height,
        a.image.display(),
        img.width,
        img.height
    );
    Ok(0)
}
