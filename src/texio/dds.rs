//! A DDS reader (DirectDraw Surface, the classic header without the DX10 extension).
//!
//! Layout, all little-endian: the magic `"DDS "`, a 124-byte header (size, flags, height,
//! width, pitch, depth, mip count at byte 24 of the header, reserved words, then the
//! 32-byte pixel format at byte 72: size, flags, FourCC, bit count, R, G, B and A masks;
//! then the caps words), then the levels one after another, base level first, each
//! tightly packed: uncompressed rows of width * bits / 8 bytes, DXT1 rows of 4x4 blocks
//! of 8 bytes (a level under 4 texels wide or high still takes whole blocks).
//!
//! Read: FourCC `DXT1` (BC1), and uncompressed pixels described by masks (flag RGB,
//! LUMINANCE or ALPHA, with ALPHAPIXELS for an alpha mask) of 8, 16, 24 or 32 bits per
//! pixel with channels of 1 to 8 contiguous bits: so 32-bit RGBA and BGRA (A8R8G8B8,
//! A8B8G8R8, X8R8G8B8), 16-bit R5G6B5, A4R4G4B4, A1R5G5B5, X1R5G5B5 in any channel order,
//! L8, A8L8, A8. Each channel widens to 8 bits as GL does (`widen`); a missing alpha is
//! 255, and an alpha-only format gives R = G = B = 0 (GL_ALPHA). Not read: other FourCCs
//! (DXT3, DXT5, DX10, ...), cube maps and volume textures.
//!
//! The file's format decides the default `--format`: DXT1 is dxt1; 5-6-5 bits rgb565;
//! 4-4-4-4 rgba4444; 5-5-5 with or without a 1-bit alpha rgba5551; L8 l8, A8L8 la88,
//! A8 a8; everything else rgba8888. Each of these stores the file's texels exactly.

use anyhow::{Result, bail};

use crate::model::tmu::format::{TexFormat, decode_dxt1, widen};

use super::{Image, check_size};

pub const MAGIC: &[u8] = b"DDS ";

const HEADER_SIZE: usize = 124;
const DATA_OFFSET: usize = 4 + HEADER_SIZE;

const DDSD_MIPMAPCOUNT: u32 = 0x2_0000;
const DDPF_ALPHAPIXELS: u32 = 0x1;
const DDPF_ALPHA: u32 = 0x2;
const DDPF_FOURCC: u32 = 0x4;
const DDPF_RGB: u32 = 0x40;
const DDPF_LUMINANCE: u32 = 0x2_0000;
const DDSCAPS2_CUBEMAP: u32 = 0x200;
const DDSCAPS2_VOLUME: u32 = 0x20_0000;

const ALLOWED: &str = "FourCC DXT1, or uncompressed RGB, RGBA, luminance or alpha masks of 8, 16, 24 or 32 bits per pixel with 1..=8 contiguous bits per channel (A8R8G8B8, R5G6B5, A4R4G4B4, A1R5G5B5, L8, A8L8, A8, ...)";

/// A parsed DDS file: its levels as RGBA8 and, for DXT1, its blocks.
#[derive(Debug, Clone)]
pub struct Dds {
    pub format: TexFormat,
    pub levels: Vec<Image>,
    pub dxt1: Option<Vec<Vec<u32>>>,
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
}

/// One channel of an uncompressed pixel: where its bits sit and how many there are.
#[derive(Debug, Clone, Copy)]
struct Channel {
    shift: u32,
    bits: u32,
}

impl Channel {
    fn from_mask(mask: u32) -> Option<Option<Channel>> {
        if mask == 0 {
            return Some(None);
        }
        let shift = mask.trailing_zeros();
        let bits = (mask >> shift).trailing_ones();
        // At most 8 bits, checked first: a shift by 32 would overflow.
        let ok = bits <= 8 && (mask >> shift) >> bits == 0;
        ok.then_some(Some(Channel { shift, bits }))
    }

    fn read(self, px: u32) -> u8 {
        widen((px >> self.shift) & ((1 << self.bits) - 1), self.bits)
    }
}

#[derive(Debug, Clone, Copy)]
enum Pixels {
    Dxt1,
    /// Bytes per pixel and R, G, B (R alone for luminance), A channels.
    Masked {
        bytes: usize,
        rgb: [Option<Channel>; 3],
        luminance: bool,
        alpha: Option<Channel>,
    },
}

/// Parses a whole DDS file; `name` is used in error messages.
pub fn parse(b: &[u8], name: &str) -> Result<Dds> {
    if !b.starts_with(MAGIC) {
        bail!("error: {name}: not a DDS file: the first 4 bytes are not \"DDS \"");
    }
    if b.len() < DATA_OFFSET {
        bail!(
            "error: {name}: truncated DDS header: {} bytes, the header needs {DATA_OFFSET}",
            b.len()
        );
    }
    let h = &b[4..DATA_OFFSET];
    if u32_at(h, 0) as usize != HEADER_SIZE || u32_at(h, 72) != 32 {
        bail!(
            "error: {name}: bad DDS header: header size {} and pixel format size {} (allowed: 124 and 32)",
            u32_at(h, 0),
            u32_at(h, 72)
        );
    }
    let flags = u32_at(h, 4);
    let (height, width) = (u32_at(h, 8), u32_at(h, 12));
    let caps2 = u32_at(h, 108);
    if caps2 & (DDSCAPS2_CUBEMAP | DDSCAPS2_VOLUME) != 0 {
        bail!(
            "error: {name}: a DDS cube map or volume texture (caps2 {caps2:#x})\n  allowed: 2D textures only"
        );
    }
    check_size(name, width, height)?;
    let full_chain = width.max(height).trailing_zeros() + 1;
    let count = if flags & DDSD_MIPMAPCOUNT != 0 {
        u32_at(h, 24).max(1)
    } else {
        1
    };
    if count > full_chain {
        bail!(
            "error: {name}: {count} mip levels for a {width}x{height} texture\n  allowed: 1..={full_chain} (down to 1x1)"
        );
    }
    let pf_flags = u32_at(h, 76);
    let four_cc = u32_at(h, 80);
    let bit_count = u32_at(h, 84);
    let masks = [88, 92, 96, 100].map(|o| u32_at(h, o));
    let pixels = if pf_flags & DDPF_FOURCC != 0 {
        if &four_cc.to_le_bytes() != b"DXT1" {
            let text = String::from_utf8_lossy(&four_cc.to_le_bytes()).into_owned();
            bail!("error: {name}: unsupported DDS FourCC {text:?}\n  allowed: {ALLOWED}");
        }
        Pixels::Dxt1
    } else {
        masked(name, pf_flags, bit_count, masks)?
    };
    let mut off = DATA_OFFSET;
    let mut levels = Vec::new();
    let mut blocks = Vec::new();
    for level in 0..count {
        let (w, hgt) = ((width >> level).max(1), (height >> level).max(1));
        let need = match pixels {
            Pixels::Dxt1 => (w.div_ceil(4) * hgt.div_ceil(4)) as usize * 8,
            Pixels::Masked { bytes, .. } => (w * hgt) as usize * bytes,
        };
        if b.len() < off + need {
            bail!(
                "error: {name}: truncated DDS data: level {level} ({w}x{hgt}) needs {need} bytes at offset {off}, the file has {} bytes",
                b.len()
            );
        }
        let data = &b[off..off + need];
        off += need;
        let mut img = Image::new(w, hgt);
        match pixels {
            Pixels::Dxt1 => {
                let words: Vec<u32> = (0..need / 4).map(|i| u32_at(data, 4 * i)).collect();
                let bx = w.div_ceil(4);
                for v in 0..hgt {
                    for u in 0..w {
                        let blk = ((v / 4) * bx + u / 4) as usize;
                        let c =
                            decode_dxt1(words[2 * blk], words[2 * blk + 1], (v % 4) * 4 + u % 4);
                        img.set(u, v, c);
                    }
                }
                blocks.push(words);
            }
            Pixels::Masked {
                bytes,
                rgb,
                luminance,
                alpha,
            } => {
                for (i, px) in data.chunks_exact(bytes).enumerate() {
                    let mut le = [0u8; 4];
                    le[..bytes].copy_from_slice(px);
                    let p = u32::from_le_bytes(le);
                    let ch = |c: Option<Channel>| c.map_or(0, |c| c.read(p));
                    let a = alpha.map_or(255, |c| c.read(p));
                    let c = if luminance {
                        let l = ch(rgb[0]);
                        [l, l, l, a]
                    } else {
                        [ch(rgb[0]), ch(rgb[1]), ch(rgb[2]), a]
                    };
                    img.pixels[i] = c;
                }
            }
        }
        levels.push(img);
    }
    let format = match pixels {
        Pixels::Dxt1 => TexFormat::Dxt1,
        Pixels::Masked {
            bytes,
            rgb,
            luminance,
            alpha,
        } => native(bytes, rgb, luminance, alpha),
    };
    Ok(Dds {
        format,
        levels,
        dxt1: matches!(pixels, Pixels::Dxt1).then_some(blocks),
    })
}

fn masked(name: &str, pf_flags: u32, bit_count: u32, masks: [u32; 4]) -> Result<Pixels> {
    let bad = |what: String| -> Result<Pixels> {
        bail!("error: {name}: unsupported DDS pixel format: {what}\n  allowed: {ALLOWED}")
    };
    if ![8, 16, 24, 32].contains(&bit_count) {
        return bad(format!("{bit_count} bits per pixel"));
    }
    let limit = if bit_count == 32 {
        u32::MAX
    } else {
        (1u32 << bit_count) - 1
    };
    let mut ch = [None; 4];
    for (i, m) in masks.into_iter().enumerate() {
        match Channel::from_mask(m) {
            Some(c) if m & !limit == 0 => ch[i] = c,
            _ => return bad(format!("mask {m:#010x} for a {bit_count}-bit pixel")),
        }
    }
    let alpha = if pf_flags & (DDPF_ALPHAPIXELS | DDPF_ALPHA) != 0 {
        ch[3]
    } else {
        None
    };
    let luminance = pf_flags & DDPF_LUMINANCE != 0;
    let rgb = [ch[0], ch[1], ch[2]];
    if pf_flags & DDPF_RGB != 0 || luminance {
        if rgb[0].is_none() {
            return bad("no red (or luminance) mask".into());
        }
    } else if pf_flags & DDPF_ALPHA == 0 || alpha.is_none() {
        return bad(format!(
            "flags {pf_flags:#x} (neither RGB, LUMINANCE, ALPHA nor FOURCC)"
        ));
    }
    let is_rgb = pf_flags & DDPF_RGB != 0;
    Ok(Pixels::Masked {
        bytes: bit_count as usize / 8,
        rgb: if is_rgb || luminance { rgb } else { [None; 3] },
        luminance: luminance && !is_rgb,
        alpha,
    })
}

/// The GL format that holds the file's pixels exactly (rgba8888 when none smaller does).
fn native(
    bytes: usize,
    rgb: [Option<Channel>; 3],
    luminance: bool,
    alpha: Option<Channel>,
) -> TexFormat {
    let bits = |c: Option<Channel>| c.map_or(0, |c| c.bits);
    let (r, g, b, a) = (bits(rgb[0]), bits(rgb[1]), bits(rgb[2]), bits(alpha));
    match (bytes, luminance, r, g, b, a) {
        (1, true, 8, _, _, 0) => TexFormat::L8,
        (2, true, 8, _, _, 8) => TexFormat::La88,
        (1, false, 0, 0, 0, 8) => TexFormat::A8,
        (2, false, 5, 6, 5, 0) => TexFormat::Rgb565,
        (2, false, 4, 4, 4, 4) => TexFormat::Rgba4444,
        (2, false, 5, 5, 5, 0 | 1) => TexFormat::Rgba5551,
        _ => TexFormat::Rgba8888,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A DDS header written field by field, the way the format describes it.
    fn header(
        w: u32,
        h: u32,
        mips: u32,
        pf_flags: u32,
        four_cc: &[u8; 4],
        bits: u32,
        masks: [u32; 4],
    ) -> Vec<u8> {
        let mut v = MAGIC.to_vec();
        let mut put = |x: u32| v.extend_from_slice(&x.to_le_bytes());
        put(124);
        put(0x1007 | if mips > 1 { DDSD_MIPMAPCOUNT } else { 0 });
        put(h);
        put(w);
        put(0);
        put(0);
        put(mips);
        for _ in 0..11 {
            put(0);
        }
        put(32);
        put(pf_flags);
        put(u32::from_le_bytes(*four_cc));
        put(bits);
        for m in masks {
            put(m);
        }
        put(0x1000);
        for _ in 0..4 {
            put(0);
        }
        assert_eq!(v.len(), DATA_OFFSET);
        v
    }

    const BGRA: [u32; 4] = [0x00ff_0000, 0x0000_ff00, 0x0000_00ff, 0xff00_0000];

    #[test]
    fn reads_bgra_with_a_mip_chain() {
        let mut f = header(2, 2, 2, DDPF_RGB | DDPF_ALPHAPIXELS, &[0; 4], 32, BGRA);
        // Bytes B, G, R, A: four texels of level 0, one of level 1.
        for px in [
            [1u8, 2, 3, 4],
            [5, 6, 7, 8],
            [9, 10, 11, 12],
            [13, 14, 15, 16],
            [20, 30, 40, 50],
        ] {
            f.extend_from_slice(&px);
        }
        let d = parse(&f, "t.dds").unwrap();
        assert_eq!(d.format, TexFormat::Rgba8888);
        assert_eq!(d.levels.len(), 2);
        assert_eq!(d.levels[0].get(0, 0), [3, 2, 1, 4]);
        assert_eq!(d.levels[0].get(1, 1), [15, 14, 13, 16]);
        assert_eq!(d.levels[1].pixels, vec![[40, 30, 20, 50]]);
        assert!(d.dxt1.is_none());
    }

    #[test]
    fn reads_16_bit_formats_with_gl_widening() {
        // R5G6B5: 0xf800 red, 0x001f blue; X1R5G5B5 without alpha; A4R4G4B4.
        let mut f = header(2, 1, 1, DDPF_RGB, &[0; 4], 16, [0xf800, 0x07e0, 0x001f, 0]);
        f.extend_from_slice(&0xf800u16.to_le_bytes());
        f.extend_from_slice(&(3u16 << 5).to_le_bytes());
        let d = parse(&f, "t.dds").unwrap();
        assert_eq!(d.format, TexFormat::Rgb565);
        assert_eq!(d.levels[0].pixels, vec![[255, 0, 0, 255], [0, 12, 0, 255]]);

        let mut f = header(
            1,
            1,
            1,
            DDPF_RGB | DDPF_ALPHAPIXELS,
            &[0; 4],
            16,
            [0x0f00, 0x00f0, 0x000f, 0xf000],
        );
        f.extend_from_slice(&0x8f01u16.to_le_bytes());
        let d = parse(&f, "t.dds").unwrap();
        assert_eq!(d.format, TexFormat::Rgba4444);
        assert_eq!(d.levels[0].pixels, vec![[255, 0, 17, 136]]);

        let mut f = header(
            1,
            1,
            1,
            DDPF_RGB | DDPF_ALPHAPIXELS,
            &[0; 4],
            16,
            [0x7c00, 0x03e0, 0x001f, 0x8000],
        );
        f.extend_from_slice(&0x7c00u16.to_le_bytes());
        let d = parse(&f, "t.dds").unwrap();
        assert_eq!(d.format, TexFormat::Rgba5551);
        assert_eq!(d.levels[0].pixels, vec![[255, 0, 0, 0]]);
    }

    #[test]
    fn reads_dxt1_blocks_as_stored() {
        // 4x4, two levels (4x4 and 2x2), one block each.
        let mut f = header(4, 4, 3, DDPF_FOURCC, b"DXT1", 0, [0; 4]);
        let block = |c0: u16, c1: u16, idx: u32| {
            let mut b = c0.to_le_bytes().to_vec();
            b.extend_from_slice(&c1.to_le_bytes());
            b.extend_from_slice(&idx.to_le_bytes());
            b
        };
        f.extend(block(0xf800, 0x001f, 0xe4e4_e4e4));
        f.extend(block(0x07e0, 0x0000, 0));
        f.extend(block(0x0000, 0xffff, 0b11));
        let d = parse(&f, "t.dds").unwrap();
        assert_eq!(d.format, TexFormat::Dxt1);
        let blocks = d.dxt1.unwrap();
        assert_eq!(blocks[0], vec![0x001f_f800, 0xe4e4_e4e4]);
        assert_eq!(d.levels[0].get(0, 0), [255, 0, 0, 255]);
        assert_eq!(d.levels[0].get(1, 0), [0, 0, 255, 255]);
        assert_eq!(d.levels[0].get(2, 3), [170, 0, 85, 255]);
        assert_eq!(d.levels[0].get(3, 3), [85, 0, 170, 255]);
        assert_eq!(d.levels[1].pixels, vec![[0, 255, 0, 255]; 4]);
        // Colour 0 <= colour 1: index 3 is transparent black.
        assert_eq!(d.levels[2].pixels, vec![[0, 0, 0, 0]]);
    }

    #[test]
    fn a_partial_dxt1_chain_is_completed_by_the_box_filter() {
        // 8x8 with two of its four levels: the 2x2 and 1x1 levels are generated from the
        // file's 4x4 level (solid green) and encoded as DXT1 blocks.
        let mut f = header(8, 8, 2, DDPF_FOURCC, b"DXT1", 0, [0; 4]);
        for c0 in [0xf800u16, 0xf800, 0xf800, 0xf800, 0x07e0] {
            f.extend_from_slice(&c0.to_le_bytes());
            f.extend_from_slice(&[0; 6]);
        }
        let tex = crate::texio::from_bytes(&f, "p.dds").unwrap();
        assert_eq!(
            (tex.format, tex.file_levels, tex.levels.len()),
            (TexFormat::Dxt1, 2, 4)
        );
        let blocks = tex.dxt1.as_ref().unwrap();
        assert_eq!(blocks.len(), 4);
        assert_eq!(blocks[1], vec![0x07e0, 0]);
        for (b, img) in blocks.iter().zip(&tex.levels).skip(2) {
            assert_eq!(decode_dxt1(b[0], b[1], 0), [0, 255, 0, 255]);
            assert_eq!(img.pixels[0], [0, 255, 0, 255]);
        }
    }

    #[test]
    fn errors_name_the_problem() {
        let err = |b: &[u8]| format!("{:#}", parse(b, "x.dds").unwrap_err());
        assert!(err(b"DDS ").contains("truncated DDS header"));
        let f = header(4, 4, 1, DDPF_FOURCC, b"DXT5", 0, [0; 4]);
        assert!(
            err(&f).contains("unsupported DDS FourCC \"DXT5\""),
            "{}",
            err(&f)
        );
        let f = header(6, 4, 1, DDPF_FOURCC, b"DXT1", 0, [0; 4]);
        assert!(err(&f).contains("texture is 6x4: width 6 is not a power of two"));
        let f = header(4, 4, 4, DDPF_FOURCC, b"DXT1", 0, [0; 4]);
        assert!(err(&f).contains("4 mip levels for a 4x4 texture"));
        let mut f = header(4, 4, 1, DDPF_FOURCC, b"DXT1", 0, [0; 4]);
        f.extend_from_slice(&[0; 7]);
        assert!(
            err(&f).contains("level 0 (4x4) needs 8 bytes at offset 128, the file has 135 bytes")
        );
        let f = header(
            4,
            4,
            1,
            DDPF_RGB,
            &[0; 4],
            32,
            [0x3ff, 0xffc00, 0x3ff0_0000, 0],
        );
        assert!(err(&f).contains("mask 0x000003ff"), "{}", err(&f));
        let f = header(4, 4, 1, DDPF_RGB, &[0; 4], 32, [u32::MAX, 0, 0, 0]);
        assert!(err(&f).contains("mask 0xffffffff"), "{}", err(&f));
        let f = header(4, 4, 1, DDPF_RGB, &[0; 4], 16, [0xff_0000, 0xff00, 0xff, 0]);
        assert!(
            err(&f).contains("mask 0x00ff0000 for a 16-bit pixel"),
            "{}",
            err(&f)
        );
    }
}
