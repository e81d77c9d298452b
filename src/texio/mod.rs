//! Texture files in and pictures out, for `gpurtl sample` and `gpurtl draw`: PNG and DDS
//! readers, the box-filter mip chain, conversion of RGBA8 images into the texel formats
//! and the memory words that `MipImage::fetch` reads, a DXT1 block encoder, the
//! coordinate CSV reader, and atomic file output.
//!
//! Every input error is an `anyhow` error whose message starts with `error: FILE:` (and
//! the line and column where they apply) and says what is allowed.

pub mod csv;
pub mod dds;
pub mod dxt1;
pub mod mip;
pub mod png;

use std::fs;
use std::path::Path;

use anyhow::{Result, bail};

use crate::config::TexLayout;
use crate::model::tmu::format::{Rgba8, TexFormat};
use crate::model::tmu::sampler::MipImage;

/// Largest texture side accepted (GL implementations of the seed's era: 4096 to 16384).
pub const MAX_SIZE: u32 = 16384;

/// An RGBA8 picture, row-major, row 0 at the top (t = 0 in the texture).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<Rgba8>,
}

impl Image {
    /// A picture of transparent black.
    pub fn new(width: u32, height: u32) -> Self {
        Self {
            width,
            height,
            pixels: vec![[0; 4]; width as usize * height as usize],
        }
    }

    pub fn get(&self, x: u32, y: u32) -> Rgba8 {
        self.pixels[y as usize * self.width as usize + x as usize]
    }

    pub fn set(&mut self, x: u32, y: u32, c: Rgba8) {
        self.pixels[y as usize * self.width as usize + x as usize] = c;
    }
}

/// What a texture file holds, ready to be stored in any format.
#[derive(Debug, Clone)]
pub struct TextureFile {
    /// The texel format the file stores (PNG: rgba8888); the default for `--format`.
    pub format: TexFormat,
    /// The full mip chain down to 1x1, as RGBA8: the file's levels, then generated ones.
    pub levels: Vec<Image>,
    /// For a DXT1 file, its blocks per level (two words each, row-major as the file
    /// holds them), so that sampling it as dxt1 reads the file's own blocks.
    pub dxt1: Option<Vec<Vec<u32>>>,
    /// How many levels came from the file; the rest are box-filtered from the last one.
    pub file_levels: usize,
}

impl TextureFile {
    pub fn width(&self) -> u32 {
        self.levels[0].width
    }

    pub fn height(&self) -> u32 {
        self.levels[0].height
    }

    /// The texture stored in `format` with `layout`: the words `MipImage::fetch` reads.
    /// A DXT1 file stored as dxt1 keeps its blocks; anything else is converted from RGBA8.
    pub fn to_mip_image(&self, format: TexFormat, layout: TexLayout) -> MipImage {
        let levels = match (&self.dxt1, format) {
            (Some(blocks), TexFormat::Dxt1) => blocks
                .iter()
                .zip(&self.levels)
                .map(|(b, img)| dxt1::to_memory_order(b, img.width, img.height))
                .collect(),
            _ => self
                .levels
                .iter()
                .map(|img| mip::encode(img, format, layout))
                .collect(),
        };
        MipImage {
            format,
            layout,
            log2_width: self.width().trailing_zeros(),
            log2_height: self.height().trailing_zeros(),
            levels,
        }
    }
}

/// The error for a texture whose size GL (as this toolkit models it) cannot take.
pub fn check_size(name: &str, width: u32, height: u32) -> Result<()> {
    let ok = |n: u32| n.is_power_of_two() && n <= MAX_SIZE;
    if ok(width) && ok(height) {
        return Ok(());
    }
    let (what, n) = if ok(width) {
        ("height", height)
    } else {
        ("width", width)
    };
    let why = if n == 0 {
        "is zero"
    } else if n.is_power_of_two() {
        "is too large"
    } else {
        "is not a power of two"
    };
    bail!(
        "error: {name}: texture is {width}x{height}: {what} {n} {why}\n  allowed: widths and heights that are powers of two, 1..={MAX_SIZE}"
    )
}

/// Reads a PNG or DDS file (told apart by their magic bytes) and completes its mip chain.
pub fn load(path: &Path) -> Result<TextureFile> {
    let name = path.display().to_string();
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) => bail!("error: {name}: cannot read the texture: {e}"),
    };
    from_bytes(&bytes, &name)
}

/// A PNG or DDS file's bytes as a texture; `name` is used in error messages.
pub fn from_bytes(bytes: &[u8], name: &str) -> Result<TextureFile> {
    let (format, mut levels, mut dxt1) = if bytes.starts_with(png::MAGIC) {
        (TexFormat::Rgba8888, vec![png::decode(bytes, name)?], None)
    } else if bytes.starts_with(dds::MAGIC) {
        let d = dds::parse(bytes, name)?;
        (d.format, d.levels, d.dxt1)
    } else {
        bail!(
            "error: {name}: not a PNG or DDS file (it starts with neither the PNG signature nor \"DDS \")\n  allowed: PNG (any colour type, 8 or 16 bits) and DDS (DXT1, or uncompressed 8-, 16-, 24- or 32-bit RGB, RGBA, luminance or alpha)"
        )
    };
    let file_levels = levels.len();
    mip::complete(&mut levels);
    if let Some(blocks) = &mut dxt1 {
        for img in &levels[blocks.len()..] {
            blocks.push(dxt1::encode_image(img));
        }
    }
    Ok(TextureFile {
        format,
        levels,
        dxt1,
        file_levels,
    })
}

/// Writes `bytes` to `path` through a temporary file in the same directory renamed over
/// it, so that a failed run leaves no partial file and an earlier file stays intact.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => Path::new(".").to_path_buf(),
    };
    let base = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp = dir.join(format!(".{base}.tmp-{}", std::process::id()));
    let result = fs::write(&tmp, bytes).and_then(|()| fs::rename(&tmp, path));
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        bail!("error: {}: cannot write: {e}", path.display());
    }
    Ok(())
}
