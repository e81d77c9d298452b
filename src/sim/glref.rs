//! A real OpenGL implementation as a second reference for the texture unit: Mesa,
//! off screen through OSMesa, samples the same texture words with the same sampler
//! state, one point (one fragment) per sample, and the colours come back from an RGBA8
//! framebuffer. `sim/glref/glref.c` is the program; it is compiled once per source hash
//! into the simulation work directory, like a Verilator build.
//!
//! Mesa's gallium drivers: `softpipe` samples in fp32 and is the reference used by the
//! tests; `llvmpipe` (the default of a Mesa install) filters with 8-bit weights.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::{BuildLock, SimError, io};
use crate::emit::sha256_hex;
use crate::model::tmu::format::{Rgba8, TexFormat};
use crate::model::tmu::lod::LOD_FRAC;
use crate::model::tmu::sampler::{Filter, Sampler, TexImage, texel_word};
use crate::texio::Image;
use crate::workload::Wrap;

const SOURCE: &str = include_str!("../../sim/glref/glref.c");

/// The Debian package that has OSMesa's header and library.
pub const PACKAGE: &str = "libosmesa6-dev";

/// Mesa's gallium driver behind OSMesa.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Driver {
    Softpipe,
    Llvmpipe,
}

impl Driver {
    pub fn name(self) -> &'static str {
        match self {
            Driver::Softpipe => "softpipe",
            Driver::Llvmpipe => "llvmpipe",
        }
    }
}

/// How a sample's level of detail is found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Lod {
    /// `textureLod`: this lambda (the texture's LOD bias is added by GL).
    Explicit(f32),
    /// `textureGrad`: a quad's coordinate differences along x and y.
    Grad { dx: (f32, f32), dy: (f32, f32) },
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GlSample {
    pub s: f32,
    pub t: f32,
    pub lod: Lod,
}

/// One texture, its sampler state and the samples taken from it.
pub struct GlCase<'a, I: TexImage> {
    pub img: &'a I,
    pub sampler: Sampler,
    pub samples: Vec<GlSample>,
}

/// The samples of a 2x2 quad (lanes (x,y), (x+1,y), (x,y+1), (x+1,y+1)) with the
/// gradients a rasteriser takes from it; an explicit `lod` replaces them.
pub fn quad_samples(st: &[(f32, f32); 4], lod: Option<f32>) -> [GlSample; 4] {
    let l = match lod {
        Some(l) => Lod::Explicit(l),
        None => Lod::Grad {
            dx: (st[1].0 - st[0].0, st[1].1 - st[0].1),
            dy: (st[2].0 - st[0].0, st[2].1 - st[0].1),
        },
    };
    st.map(|(s, t)| GlSample { s, t, lod: l })
}

fn gl_filter(f: Filter) -> u32 {
    match f {
        Filter::Nearest => 0x2600,
        Filter::Linear => 0x2601,
        Filter::NearestMipmapNearest => 0x2700,
        Filter::LinearMipmapNearest => 0x2701,
        Filter::NearestMipmapLinear => 0x2702,
        Filter::LinearMipmapLinear => 0x2703,
    }
}

fn gl_wrap(w: Wrap) -> u32 {
    match w {
        Wrap::Repeat => 0x2901,
        Wrap::ClampToEdge => 0x812f,
        Wrap::MirroredRepeat => 0x8370,
    }
}

/// One level as GL's upload takes it: texels row by row in the format's packed type
/// (little-endian), or DXT1 blocks row by row, read from where the model keeps them.
pub fn level_bytes(img: &impl TexImage, level: u32) -> (u32, u32, Vec<u8>) {
    let (lw0, lh0) = img.log2_size();
    let (lw, lh) = (lw0.saturating_sub(level), lh0.saturating_sub(level));
    let (w, h) = (1u32 << lw, 1u32 << lh);
    let format = img.format();
    let layout = img.layout();
    let mut out = Vec::new();
    if format == TexFormat::Dxt1 {
        for by in 0..h.div_ceil(4) {
            for bx in 0..w.div_ceil(4) {
                let (word, _) = texel_word(format, layout, lw, lh, 4 * bx, 4 * by);
                out.extend_from_slice(&img.word(level, word).to_le_bytes());
                out.extend_from_slice(&img.word(level, word + 1).to_le_bytes());
            }
        }
        return (w, h, out);
    }
    let bits = format.bits_per_texel();
    for v in 0..h {
        for u in 0..w {
            let (word, sub) = texel_word(format, layout, lw, lh, u, v);
            let raw = u64::from(img.word(level, word)) >> (sub * bits);
            out.extend_from_slice(&raw.to_le_bytes()[..bits as usize / 8]);
        }
    }
    (w, h, out)
}

fn lod_f32(fixed: i32) -> f32 {
    fixed as f32 / (1u32 << LOD_FRAC) as f32
}

/// The program's input for `cases`.
fn job<I: TexImage>(cases: &[GlCase<'_, I>]) -> String {
    use std::fmt::Write as _;
    let mut text = String::new();
    for c in cases {
        let levels = c.img.last_level() + 1;
        let _ = writeln!(text, "case {} {levels}", c.img.format().name());
        for l in 0..levels {
            let (w, h, bytes) = level_bytes(c.img, l);
            let _ = write!(text, "level {w} {h} {} ", bytes.len());
            for b in bytes {
                let _ = write!(text, "{b:02x}");
            }
            text.push('\n');
        }
        let s = &c.sampler;
        let _ = writeln!(
            text,
            "sampler {} {} {} {} {:?} {:?} {:?}",
            gl_filter(s.min_filter),
            gl_filter(s.mag_filter),
            gl_wrap(s.wrap_s),
            gl_wrap(s.wrap_t),
            lod_f32(s.lod_bias),
            lod_f32(s.min_lod),
            lod_f32(s.max_lod)
        );
        let _ = writeln!(text, "samples {}", c.samples.len());
        for p in &c.samples {
            // `{:?}` prints the shortest decimal that reads back as the same f32.
            let _ = match p.lod {
                Lod::Explicit(l) => writeln!(text, "{:?} {:?} 0 {l:?} 0 0 0", p.s, p.t),
                Lod::Grad { dx, dy } => writeln!(
                    text,
                    "{:?} {:?} 1 {:?} {:?} {:?} {:?}",
                    p.s, p.t, dx.0, dx.1, dy.0, dy.1
                ),
            };
        }
    }
    text
}

/// Compiles `glref.c` (once per source hash) under `work_dir`; returns the program.
pub fn build(work_dir: &Path) -> Result<PathBuf, SimError> {
    let hash = sha256_hex(SOURCE.as_bytes());
    let dir = work_dir.join(format!("glref-{}", &hash[..16]));
    let exe = dir.join("glref");
    if exe.is_file() {
        return Ok(exe);
    }
    fs::create_dir_all(&dir).map_err(io(format!("creating {}", dir.display())))?;
    let _lock = BuildLock::acquire(&dir.join("build.lock"))?;
    if exe.is_file() {
        return Ok(exe);
    }
    let src = dir.join("glref.c");
    fs::write(&src, SOURCE).map_err(io(format!("writing {}", src.display())))?;
    let tmp = dir.join(format!("glref.tmp-{}", std::process::id()));
    let out = Command::new("gcc")
        .args(["-O1", "-std=c99", "-Wall", "-Wextra", "-o"])
        .arg(&tmp)
        .arg(&src)
        .arg("-lOSMesa")
        .output()
        .map_err(|e| SimError::MissingTool {
            tool: "gcc".into(),
            hint: format!("{e}; install it with `apt-get install gcc`"),
        })?;
    if !out.status.success() {
        let log = String::from_utf8_lossy(&out.stderr);
        if log.contains("osmesa.h") || log.contains("-lOSMesa") {
            return Err(SimError::MissingTool {
                tool: "OSMesa".into(),
                hint: format!("install it with `apt-get install {PACKAGE}` (or `make deps`)"),
            });
        }
        return Err(SimError::Build {
            unit: "glref".into(),
            log: src.display().to_string(),
            tail: log.into_owned(),
        });
    }
    fs::rename(&tmp, &exe).map_err(io(format!("renaming {}", tmp.display())))?;
    Ok(exe)
}

/// Samples every case through Mesa's `driver`: one colour per sample, in order.
pub fn sample<I: TexImage>(
    cases: &[GlCase<'_, I>],
    driver: Driver,
    work_dir: &Path,
) -> Result<Vec<Vec<Rgba8>>, SimError> {
    let text = run(&job(cases), driver, work_dir)?;
    let parse = |l: &str| -> Option<Rgba8> {
        let v: Vec<u8> = l
            .split_whitespace()
            .map(|f| f.parse().ok())
            .collect::<Option<_>>()?;
        v.try_into().ok()
    };
    let mut colours = Vec::new();
    for l in text.lines() {
        colours.push(parse(l).ok_or_else(|| {
            SimError::Run(format!(
                "glref ({}) printed `{l}`, not `R G B A`",
                driver.name()
            ))
        })?);
    }
    let mut colours = colours.into_iter();
    let mut result = Vec::with_capacity(cases.len());
    for case in cases {
        let got: Vec<Rgba8> = colours.by_ref().take(case.samples.len()).collect();
        if got.len() != case.samples.len() {
            return Err(SimError::Run(format!(
                "glref ({}) returned {} colour(s) for a case of {}",
                driver.name(),
                got.len(),
                case.samples.len()
            )));
        }
        result.push(got);
    }
    Ok(result)
}

/// Runs glref (built first if need be) on `input` under Mesa's `driver`: its stdout.
fn run(input: &str, driver: Driver, work_dir: &Path) -> Result<String, SimError> {
    let exe = build(work_dir)?;
    let input = input.to_string();
    let mut child = Command::new(&exe)
        .env("GALLIUM_DRIVER", driver.name())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(io(format!("running {}", exe.display())))?;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    // Written from a thread: the program answers while it still reads.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child
        .wait_with_output()
        .map_err(io(format!("running {}", exe.display())))?;
    let wrote = writer.join().expect("the writer thread does not panic");
    if !out.status.success() {
        return Err(SimError::Run(format!(
            "glref ({}) failed: {}",
            driver.name(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    wrote.map_err(io("writing to glref"))?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A glDrawPixels of an RGBA8 picture through GL's fixed-function pixel path.
pub struct GlDraw<'a> {
    /// Row 0 is GL row 0 (the first row GL receives).
    pub image: &'a Image,
    /// Window position of the raster position, within [`FB_SIZE`].
    pub x: i32,
    pub y: i32,
    pub zoom: (f32, f32),
    /// glPixelTransfer's per-channel scale and bias, R, G, B, A.
    pub scale: [f32; 4],
    pub bias: [f32; 4],
    /// Colour maps by channel (0 = R_TO_R .. 3 = A_TO_A), values in [0, 1]; any map
    /// turns MAP_COLOR on.
    pub maps: Vec<(u32, Vec<f32>)>,
}

/// The framebuffer glref draws into is this many pixels square.
pub const FB_SIZE: u32 = 256;

/// A framebuffer pixel a draw wrote: x, y (row 0 at the bottom), colour.
pub type Written = (u32, u32, Rgba8);

/// Appends an image's pixels as hex bytes, R G B A, row 0 first, and ends the line.
fn push_hex_pixels(text: &mut String, image: &Image) {
    use std::fmt::Write as _;
    for p in &image.pixels {
        for b in p {
            let _ = write!(text, "{b:02x}");
        }
    }
    text.push('\n');
}

/// Runs every draw through Mesa's `driver`: the pixels each one wrote, by row then x.
pub fn draw_pixels(
    draws: &[GlDraw<'_>],
    driver: Driver,
    work_dir: &Path,
) -> Result<Vec<Vec<Written>>, SimError> {
    use std::fmt::Write as _;
    let mut text = String::new();
    for d in draws {
        let (w, h) = (d.image.width, d.image.height);
        let _ = writeln!(
            text,
            "draw {w} {h} {} {} {:?} {:?}",
            d.x, d.y, d.zoom.0, d.zoom.1
        );
        let _ = write!(text, "transfer");
        for v in d.scale.iter().chain(&d.bias) {
            let _ = write!(text, " {v:?}");
        }
        let _ = writeln!(text, "\nmaps {}", d.maps.len());
        for (ch, values) in &d.maps {
            let _ = write!(text, "map {ch} {}", values.len());
            for v in values {
                let _ = write!(text, " {v:?}");
            }
            text.push('\n');
        }
        text.push_str("pixels ");
        push_hex_pixels(&mut text, d.image);
    }
    let out = run(&text, driver, work_dir)?;
    let bad = |l: &str| SimError::Run(format!("glref ({}) printed `{l}`", driver.name()));
    let mut lines = out.lines();
    let mut result = Vec::with_capacity(draws.len());
    for _ in draws {
        let head = lines.next().unwrap_or("");
        let n: usize = head
            .strip_prefix("written ")
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| bad(head))?;
        let mut px = Vec::with_capacity(n);
        for _ in 0..n {
            let l = lines.next().unwrap_or("");
            let v: Vec<u32> = l
                .split_whitespace()
                .map(|f| f.parse().ok())
                .collect::<Option<_>>()
                .filter(|v: &Vec<u32>| v.len() == 6 && v[2..].iter().all(|&c| c < 256))
                .ok_or_else(|| bad(l))?;
            px.push((v[0], v[1], [v[2], v[3], v[4], v[5]].map(|c| c as u8)));
        }
        result.push(px);
    }
    Ok(result)
}

/// A glReadPixels of a region whose RGBA8 contents are `image` (at the framebuffer's
/// origin), packed in one of gpurtl's DMA formats under glPixelTransfer's scale and bias.
pub struct GlRead<'a> {
    /// Row 0 is the region's lowest row.
    pub image: &'a Image,
    /// A name from `config::ipu::FORMATS`.
    pub format: &'static str,
    pub scale: [f32; 4],
    pub bias: [f32; 4],
}

/// Runs every read through Mesa's `driver`: the bytes each glReadPixels returned (pack
/// alignment 1).
pub fn read_pixels(
    reads: &[GlRead<'_>],
    driver: Driver,
    work_dir: &Path,
) -> Result<Vec<Vec<u8>>, SimError> {
    use std::fmt::Write as _;
    let mut text = String::new();
    for r in reads {
        let _ = write!(
            text,
            "read {} {} {}\ntransfer",
            r.image.width, r.image.height, r.format
        );
        for v in r.scale.iter().chain(&r.bias) {
            let _ = write!(text, " {v:?}");
        }
        text.push_str("\npixels ");
        push_hex_pixels(&mut text, r.image);
    }
    let out = run(&text, driver, work_dir)?;
    let mut lines = out.lines();
    reads
        .iter()
        .map(|_| hex_line(lines.next().unwrap_or(""), "read", driver))
        .collect()
}

/// A colour-index glDrawPixels (GL_COLOR_INDEX, GL_UNSIGNED_BYTE) at the framebuffer's
/// origin under GL_INDEX_SHIFT, GL_INDEX_OFFSET and the I_TO_* maps.
pub struct GlIndexDraw {
    pub width: u32,
    pub height: u32,
    pub shift: i32,
    pub offset: i32,
    /// I_TO_R .. I_TO_A, each a power of two of values in [0, 1].
    pub maps: [Vec<f32>; 4],
    /// Row 0 first.
    pub indices: Vec<u8>,
}

/// Runs every colour-index draw through Mesa's `driver`: the drawn region read back as
/// RGBA8 bytes, row 0 first.
pub fn index_pixels(
    draws: &[GlIndexDraw],
    driver: Driver,
    work_dir: &Path,
) -> Result<Vec<Vec<u8>>, SimError> {
    use std::fmt::Write as _;
    let mut text = String::new();
    for d in draws {
        let _ = writeln!(
            text,
            "index {} {} {} {}",
            d.width, d.height, d.shift, d.offset
        );
        for (ch, values) in d.maps.iter().enumerate() {
            let _ = write!(text, "map {ch} {}", values.len());
            for v in values {
                let _ = write!(text, " {v:?}");
            }
            text.push('\n');
        }
        text.push_str("pixels ");
        for b in &d.indices {
            let _ = write!(text, "{b:02x}");
        }
        text.push('\n');
    }
    let out = run(&text, driver, work_dir)?;
    let mut lines = out.lines();
    draws
        .iter()
        .map(|_| hex_line(lines.next().unwrap_or(""), "index", driver))
        .collect()
}

/// A `KEYWORD N HEX` line's N bytes.
fn hex_line(l: &str, keyword: &str, driver: Driver) -> Result<Vec<u8>, SimError> {
    let bad = || SimError::Run(format!("glref ({}) printed `{l}`", driver.name()));
    let mut f = l.split_whitespace();
    let (n, hex) = match (f.next(), f.next(), f.next()) {
        (Some(k), Some(n), Some(hex)) if k == keyword => {
            (n.parse::<usize>().map_err(|_| bad())?, hex)
        }
        _ => return Err(bad()),
    };
    (0..hex.len() / 2)
        .map(|i| {
            hex.get(2 * i..2 * i + 2)
                .and_then(|b| u8::from_str_radix(b, 16).ok())
        })
        .collect::<Option<Vec<u8>>>()
        .filter(|v| v.len() == n)
        .ok_or_else(bad)
}

/// The largest difference per channel between two colour lists, and how many colours
/// differ by more than `tolerance` in some channel.
pub fn compare(a: &[Rgba8], b: &[Rgba8], tolerance: u8) -> ([u8; 4], usize) {
    let mut max = [0u8; 4];
    let mut over = 0;
    for (x, y) in a.iter().zip(b) {
        let d: [u8; 4] = std::array::from_fn(|k| x[k].abs_diff(y[k]));
        for k in 0..4 {
            max[k] = max[k].max(d[k]);
        }
        over += usize::from(d.iter().any(|&v| v > tolerance));
    }
    (max, over)
}
