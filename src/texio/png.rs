//! PNG in (any colour type and depth, converted to RGBA8 as GL would upload it) and
//! PNG out (RGBA8), through the `png` crate.
//!
//! Conversion to RGBA8, what `glTexImage2D` does with the matching format: grey is
//! GL_LUMINANCE (R = G = B = L, A = 255), grey with alpha GL_LUMINANCE_ALPHA, RGB gets
//! A = 255; palettes and 1-, 2- and 4-bit greys are expanded first, and a tRNS chunk
//! becomes alpha. 16-bit samples are GL_UNSIGNED_SHORT values converted to 8 bits with
//! rounding, round(v * 255 / 65535). Gamma and colour-space chunks are ignored: GL
//! uploads the stored values.

use std::io::Cursor;

use anyhow::{Result, bail};
use png::{BitDepth, ColorType, Decoder, Encoder, Transformations};

use super::{Image, check_size};

pub const MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

/// Decodes a PNG file's bytes as a texture (sizes [`check_size`] takes); `name` is used
/// in error messages.
pub fn decode(bytes: &[u8], name: &str) -> Result<Image> {
    decode_with(bytes, name, check_size)
}

/// Decodes a PNG file's bytes as a picture of any size (what glDrawPixels takes); the
/// caller checks the size against what it draws into.
pub fn decode_picture(bytes: &[u8], name: &str) -> Result<Image> {
    decode_with(bytes, name, |_, _, _| Ok(()))
}

fn decode_with(
    bytes: &[u8],
    name: &str,
    check: impl Fn(&str, u32, u32) -> Result<()>,
) -> Result<Image> {
    let mut decoder = Decoder::new(Cursor::new(bytes));
    decoder.set_transformations(Transformations::EXPAND);
    let mut reader = match decoder.read_info() {
        Ok(r) => r,
        Err(e) => bail!("error: {name}: bad PNG: {e}"),
    };
    let (width, height) = (reader.info().width, reader.info().height);
    check(name, width, height)?;
    let (color, depth) = reader.output_color_type();
    let Some(size) = reader.output_buffer_size() else {
        bail!("error: {name}: PNG of {width}x{height} is too large to decode");
    };
    let mut buf = vec![0u8; size];
    if let Err(e) = reader.next_frame(&mut buf) {
        bail!("error: {name}: bad PNG data: {e}");
    }
    let channels = match color {
        ColorType::Grayscale => 1,
        ColorType::GrayscaleAlpha => 2,
        ColorType::Rgb => 3,
        ColorType::Rgba => 4,
        ColorType::Indexed => bail!("error: {name}: PNG palette was not expanded"),
    };
    let samples: Vec<u8> = match depth {
        BitDepth::Eight => buf,
        BitDepth::Sixteen => buf
            .chunks_exact(2)
            .map(|b| ((u32::from(u16::from_be_bytes([b[0], b[1]])) * 255 + 32767) / 65535) as u8)
            .collect(),
        d => bail!("error: {name}: PNG bit depth {d:?} was not expanded to 8 bits"),
    };
    let pixels = samples
        .chunks_exact(channels)
        .take(width as usize * height as usize)
        .map(|p| match *p {
            [l] => [l, l, l, 255],
            [l, a] => [l, l, l, a],
            [r, g, b] => [r, g, b, 255],
            [r, g, b, a] => [r, g, b, a],
            _ => unreachable!(),
        })
        .collect();
    Ok(Image {
        width,
        height,
        pixels,
    })
}

/// Encodes an RGBA8 picture as a PNG file's bytes.
pub fn encode(img: &Image) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut enc = Encoder::new(&mut out, img.width, img.height);
    enc.set_color(ColorType::Rgba);
    enc.set_depth(BitDepth::Eight);
    let mut writer = enc.write_header()?;
    writer.write_image_data(img.pixels.as_flattened())?;
    writer.finish()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32, color: ColorType, depth: BitDepth, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut enc = Encoder::new(&mut out, w, h);
        enc.set_color(color);
        enc.set_depth(depth);
        let mut wr = enc.write_header().unwrap();
        wr.write_image_data(data).unwrap();
        wr.finish().unwrap();
        out
    }

    #[test]
    fn colour_types_convert_as_gl_uploads_them() {
        let g = png(2, 1, ColorType::Grayscale, BitDepth::Eight, &[7, 200]);
        assert_eq!(
            decode(&g, "g").unwrap().pixels,
            vec![[7, 7, 7, 255], [200, 200, 200, 255]]
        );
        let ga = png(1, 1, ColorType::GrayscaleAlpha, BitDepth::Eight, &[9, 99]);
        assert_eq!(decode(&ga, "ga").unwrap().pixels, vec![[9, 9, 9, 99]]);
        let rgb = png(1, 1, ColorType::Rgb, BitDepth::Eight, &[1, 2, 3]);
        assert_eq!(decode(&rgb, "rgb").unwrap().pixels, vec![[1, 2, 3, 255]]);
        // 16 bits: 0x8080 = 32896 -> 128; 0x00ff = 255 -> 1 (0.99 rounds up).
        let w = png(
            1,
            1,
            ColorType::Rgba,
            BitDepth::Sixteen,
            &[0x80, 0x80, 0, 0xff, 0xff, 0xff, 0, 0],
        );
        assert_eq!(decode(&w, "w").unwrap().pixels, vec![[128, 1, 255, 0]]);
        // 1-bit grey expands to 0 and 255.
        let b = png(2, 1, ColorType::Grayscale, BitDepth::One, &[0b0100_0000]);
        assert_eq!(
            decode(&b, "b").unwrap().pixels,
            vec![[0, 0, 0, 255], [255, 255, 255, 255]]
        );
    }

    #[test]
    fn round_trip_and_size_errors() {
        let mut img = Image::new(4, 2);
        img.set(3, 1, [1, 2, 3, 4]);
        assert_eq!(decode(&encode(&img).unwrap(), "x").unwrap(), img);
        let bad = png(3, 2, ColorType::Rgb, BitDepth::Eight, &[0; 18]);
        let e = format!("{:#}", decode(&bad, "odd.png").unwrap_err());
        assert!(
            e.contains("odd.png: texture is 3x2: width 3 is not a power of two"),
            "{e}"
        );
        let e = format!("{:#}", decode(b"\x89PNG\r\n\x1a\nxx", "t.png").unwrap_err());
        assert!(e.starts_with("error: t.png: bad PNG"), "{e}");
    }
}
