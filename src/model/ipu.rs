//! Model of the `ipu` unit (seed 000's image processing unit): commands, DMA words and
//! framebuffer words in; passed-through commands, DMA requests, pixels, status events,
//! framebuffer requests, DMA out words and texture-memory writes out. It is the reference
//! the RTL is compared with, transaction by transaction on every output port.
//!
//! # Command encoding
//!
//! Commands are 32-bit words on the `cmd` port; bits `[31:24]` are the opcode.
//!
//! | Opcode | Command | Words | Fields |
//! |---|---|---|---|
//! | `0x41` | PIXEL_TRANSFER | 2 | word 0: `[2]` 0 scale / 1 bias, `[1:0]` channel (0 R, 1 G, 2 B, 3 A); word 1: the value, signed Q15.16 (two's complement, value / 65536) |
//! | `0x42` | PUSH_PIXEL | 1 | pushes the 4 scales and 4 biases |
//! | `0x43` | POP_PIXEL | 1 | pops them back |
//! | `0x44` | DRAW_PIXELS | 3 | word 0: `[2:0]` format (0 rgba8888, 1 bgra8888, 2 rgb565, 3 rgba4444, 4 rgba5551, 5 l8, 6 la88, 7 ci8); word 1: `{height[15:0], width[15:0]}`; word 2: `{y[15:0], x[15:0]}` of the first pixel |
//! | `0x45` | ZOOM (zoom enabled) | 2 | word 0 `[23:0]`: x factor, word 1 `[23:0]`: y factor, signed Q7.16 |
//! | `0x46` | PIXELMAP (maps enabled) | 1 + ceil(n / 4) | word 0: `[20:8]` n entries (1..=table size, a power of two for I_TO_*), `[2:0]` map (R->R, G->G, B->B, A->A, I->R, I->G, I->B, I->A); then the n 8-bit entries, four a word, little endian |
//! | `0x47` | MAP_COLOR (maps enabled) | 1 | `[0]`: lookups on or off |
//! | `0x48` | RASTER_COLOR (bitmap enabled) | 2 | word 1: RGBA8 `{A, B, G, R}` |
//! | `0x49` | BITMAP (bitmap enabled) | 3 | word 0: `[11:0]` xmove, `[23:12]` ymove (signed); word 1: `{height, width}`; word 2: `{yorig, xorig}` (signed), the bitmap drawn from the raster position less the origin, which then moves; then `ceil(width / 8) * height` bytes from `dma`, bit 7 of a byte leftmost |
//! | `0x4A` | CONVOLUTION_FILTER (filter enabled) | 1 + kw * kh | word 0: `[3:0]` channel mask, `[10:8]` kw, `[14:12]` kh (1..=kernel size); then the weights `F[m, n]` row by row, row 0 first, signed Q15.16 |
//! | `0x4B` | CONVOLUTION (filter enabled) | 1 | `[0]`: the filter on or off |
//! | `0x4C` | RASTER_POS (bitmap enabled) | 2 | word 1: `{ry, rx}`, the current raster position for BITMAP |
//! | `0x4D` | READ_PIXELS (framebuffer enabled) | 3 | word 0: `[2:0]` format, as DRAW_PIXELS; word 1: `{height, width}`; word 2: `{y, x}` of the region's lower left pixel in the framebuffer |
//! | `0x4E` | COPY_PIXELS (framebuffer enabled) | 4 | word 1: `{height, width}`; word 2: `{y, x}` of the source region; word 3: `{y, x}` of the destination (GL's raster position) |
//! | `0x4F` | COPY_TEX_IMAGE (framebuffer enabled) | 4 | word 0: `[2:0]` texture format, codes as DRAW_PIXELS; word 1: `{height, width}`; word 2: `{y, x}` of the source region; word 3: the texture's base word address |
//! | `0x50` | INDEX_TRANSFER (ci8 enabled) | 2 | word 0: `[0]` 0 INDEX_SHIFT / 1 INDEX_OFFSET; word 1: a signed integer |
//! | other | not the IPU's | 1 | passed on unchanged, in order, on `pass` |
//!
//! Bits not listed are reserved and ignored. A config without zoom, maps, bitmap or filter does
//! not know their opcodes. Any word whose opcode is not the IPU's is passed through, so other units' commands must carry their opcode in every word the
//! IPU sees. A multi-word command waits for its words (RECEIVE_1, RECEIVE_2): a stream
//! that ends inside one leaves it pending and produces nothing for it.
//!
//! A PIXEL_TRANSFER value is converted to the configured fixed-point format by an
//! arithmetic shift right (floor) and saturated to its range. PUSH on a full stack and
//! POP on an empty one change nothing and emit a status event; so does DRAW_PIXELS with a
//! format the config does not enable (the draw is dropped, no DMA words are requested).
//!
//! # Framebuffer paths
//!
//! READ_PIXELS, COPY_PIXELS and COPY_TEX_IMAGE with a non-zero size send one request on
//! `fb_req`, `{height[15:0], width[15:0], y[15:0], x[15:0]}`, and take the region from
//! `fb`: its rows bottom up (row `y` first), each row `ceil(width / 4)` 128-bit words, pixel
//! `4k + i` of a row in bits `[32i+31:32i]` of the row's word `k`, RGBA8 `{A, B, G, R}`;
//! a row's last word is partly filled (the pixels past the row's end are ignored).
//! The pixels go through scale, bias, the pixel maps and, when it is on, the convolution
//! filter (GL applies convolution to every pixel transfer); then
//! - READ_PIXELS (glReadPixels): no zoom (GL); packed in the format, row after row, GL's
//!   pack alignment 1, little endian, exactly as DRAW_PIXELS unpacks, into words of
//!   `dma_word_bits` on `dma_out`, the first starting the command's pixels and the last one
//!   zero-padded: `ceil(n * bytes_per_pixel / B)` words for `n` pixels (B bytes a word). An n-bit channel is GL's `round(c * (2^n - 1) / 255)` (exact in integers,
//!   no ties exist); l8 and la88 carry GL's luminance for ReadPixels (GL 2.0, 4.3.2,
//!   "Conversion to L": `L = R + G + B`, then "Final Conversion" clamps to [0, 1]), so
//!   `min(R + G + B, 255)`.
//! - COPY_PIXELS (glCopyPixels): as DRAW_PIXELS from the pipeline on, zoom included, the
//!   region's pixel (i, j) drawn at the destination plus (i, j).
//! - COPY_TEX_IMAGE (glCopyTexImage2D): no zoom; packed as READ_PIXELS (texture formats
//!   use the same codes; l8 and la88 take L = R, GL's luminance for textures) into words
//!   of `dma_word_bits`, and word `k` written on `tex` as `{address = base + k, word}`:
//!   the texture row major, row 0 the region's lowest.
//!
//! A format the config does not enable is status event 3 (nothing requested); the width
//! checks are DRAW_PIXELS' (the zoom line buffer for COPY_PIXELS only).
//!
//! DRAW_PIXELS with a non-zero size sends one DMA request (`dma_req`: the number of
//! DMA words, `ceil(width * height * bytes_per_pixel / B)` for B bytes a word,
//! `dma_word_bits / 8`) and then takes exactly that many words from `dma` (a bitmap
//! likewise, `ceil(ceil(width / 8) * height / B)` words). Pixels are packed row after row
//! with no padding (GL's unpack alignment 1), pixel `p` at byte `p * bytes_per_pixel` of
//! the stream, little endian in a word (byte 0 is bits `[7:0]`); a beat takes up to
//! `lanes` pixels of one row from one word. Formats as GL's packed types: rgb565 is
//! `R[15:11] G[10:5] B[4:0]`, rgba4444 `R[15:12] G[11:8] B[7:4] A[3:0]`, rgba5551
//! `R[15:11] G[10:6] B[5:1] A[0]`, rgba8888 bytes R, G, B, A, bgra8888 bytes B, G, R, A,
//! l8 one byte L (R = G = B = L, A = 255), la88 bytes L, A, ci8 one byte, a colour index
//! (GL_COLOR_INDEX): shifted and offset by [`index_arith`], then looked up per channel in
//! the I_TO_* maps by [`index_map`], MAP_COLOR or not; scale, bias and the colour maps do
//! not apply to it (GL's order). READ_PIXELS and COPY_TEX_IMAGE take no ci8. An n-bit channel becomes 8
//! bits by bit replication, within 1 LSB of GL's `round(c * 255 / (2^n - 1))`.
//!
//! # Pixel transfer arithmetic
//!
//! Each channel `c` (8 bits, meaning c / 255) becomes
//! `clamp(round(c * scale + 255 * bias), 0, 255)` with scale `S / 2^SF` and bias
//! `B / 2^BF` exactly as stored: with `F = max(SF, BF)`,
//! `X = (c * S) << (F - SF) + (255 * B) << (F - BF) + 2^(F - 1)`, result
//! `X < 0 ? 0 : min(X >> F, 255)`. That is GL's `c * scale + bias` clamped to [0, 1] and
//! rounded to 8 bits (halves up), exact for the stored values; with 10 or more fraction
//! bits the stored values' floor error adds at most 0.5 LSB, so results are within 1 LSB
//! of GL's float math for values inside the format's range.
//!
//! # Output words
//!
//! `pix`: `{mask[lanes] (only when lanes > 1), y[15:0], x[15:0], rgba[lanes] x 32}`, lane 0
//! in the low bits, each pixel `{A, B, G, R}` (R in bits `[7:0]`). A beat carries up to
//! `lanes` consecutive pixels of one row that come from one DMA word, or up to `lanes`
//! copies of one zoomed image pixel; lane `i` is pixel `(x + i, y)`; lanes beyond the mask
//! are zero. `status`: `{level[7:0], 4'b0, event[3:0]}`
//! with event 1 stack overflow, 2 stack underflow, 3 format not enabled, 4 draw wider than
//! a line buffer, 5 pixel map size out of range, 6 filter size out of range, and the stack
//! level at the event.

use crate::config::ipu::{CI8, WEIGHT_FRAC};
use crate::config::{Fixed, Ipu};
use crate::iface::{Dir, StreamPort};
use crate::rng::{Rng, STREAM_DATA};
use crate::vectors::{Bits, PortVectors, VectorSet};

pub use crate::iface::ipu::{
    CMD_BIAS, CMD_CHANNEL, CMD_FACTOR, CMD_FLAG, CMD_HI, CMD_KERNEL_H, CMD_KERNEL_MASK,
    CMD_KERNEL_W, CMD_LO, CMD_MAP_COUNT, CMD_OP, CMD_SEL, CMD_XMOVE, CMD_YMOVE, EV_FILTER,
    EV_FORMAT, EV_MAPSIZE, EV_OVERFLOW, EV_UNDERFLOW, EV_WIDTH, FB_COPY, FB_COPYTEX, FB_READ,
    FB_REQ_WIDTH, FB_WIDTH, OP_BITMAP, OP_CONV_FILTER, OP_CONVOLUTION, OP_COPY, OP_COPYTEX,
    OP_DRAW, OP_INDEX, OP_MAPCOLOR, OP_PIXELMAP, OP_POP, OP_PUSH, OP_RASTER, OP_RASTER_POS,
    OP_READ, OP_TRANSFER, OP_ZOOM, STATUS_WIDTH, bytes_per_pixel, cmd_field, field, is_ipu_opcode,
    map_magic, pix_fields, pix_width, tex_width, with,
};
use crate::iface::ipu::{FILTER_INIT, RASTER_INIT};

/// The colour-index format's code in DRAW_PIXELS.
pub const FORMAT_CI8: u32 = CI8 as u32;

/// The convolution filter's state (glConvolutionFilter2D, CONVOLUTION_2D): on or off,
/// the filter's size and its weights `F[m, n]` at index `n * kw + m`, per channel, as
/// signed fixed point with [`WEIGHT_FRAC`] fraction bits. The reset state is off with a
/// 1x1 identity filter.
#[derive(Debug, Clone)]
pub struct Conv {
    pub on: bool,
    pub kw: u32,
    pub kh: u32,
    pub weights: Vec<[i64; 4]>,
}

impl Default for Conv {
    fn default() -> Self {
        Conv {
            on: false,
            kw: FILTER_INIT,
            kh: FILTER_INIT,
            weights: vec![[1 << WEIGHT_FRAC; 4]; (FILTER_INIT * FILTER_INIT) as usize],
        }
    }
}

/// Word 0 of a command with opcode `op`, its other fields 0.
pub const fn op(op: u32) -> u32 {
    with(0, &CMD_OP, op)
}

/// A size or position word's halves, `(width, height)` or `(x, y)`.
pub const fn lo_hi(word: u32) -> (u32, u32) {
    (cmd_field(word, &CMD_LO), cmd_field(word, &CMD_HI))
}

/// A size or position word `{hi, lo}`: `{height, width}` or `{y, x}`.
pub const fn hi_lo(hi: u32, lo: u32) -> u32 {
    with(with(0, &CMD_HI, hi), &CMD_LO, lo)
}

/// CONVOLUTION_FILTER's first word: channel mask, width and height.
pub fn filter_fields(w0: u32) -> (u32, u32, u32) {
    (
        cmd_field(w0, &CMD_KERNEL_MASK),
        cmd_field(w0, &CMD_KERNEL_W),
        cmd_field(w0, &CMD_KERNEL_H),
    )
}

/// The filter a CONVOLUTION_FILTER loads: the channels in `mask` take the `kw * kh`
/// weights (Q15.16, saturated to `fmt`), the others a single 1.0 at the filter's centre
/// tap `(kw / 2, kh / 2)`, so they pass unchanged from the pixel under it.
pub fn load_filter(mask: u32, kw: u32, kh: u32, words: &[u32], fmt: Fixed) -> Conv {
    let centre = (kh / 2) * kw + kw / 2;
    let weights = (0..kw * kh)
        .map(|k| {
            std::array::from_fn(|ch| {
                if mask >> ch & 1 == 1 {
                    to_fixed(words[k as usize], fmt)
                } else if k == centre {
                    1 << WEIGHT_FRAC
                } else {
                    0
                }
            })
        })
        .collect();
    Conv {
        on: false,
        kw,
        kh,
        weights,
    }
}

/// GL_REDUCE convolution of a `w` x `h` RGBA8 image (row 0 first): the
/// `(w - kw + 1) x (h - kh + 1)` result, empty when the filter is larger than the image.
/// Per channel `C[i, j] = sum F[m, n] * c[i + m, j + n]` (no flip, GL's formula), exact
/// in integers, then rounded (halves up) and clamped to 8 bits.
pub fn convolve(conv: &Conv, image: &[u32], w: u32, h: u32) -> (Vec<u32>, u32, u32) {
    if w < conv.kw || h < conv.kh {
        return (Vec::new(), 0, 0);
    }
    let (ow, oh) = (w - conv.kw + 1, h - conv.kh + 1);
    let mut out = Vec::with_capacity((ow * oh) as usize);
    for j in 0..oh {
        for i in 0..ow {
            let mut px = 0u32;
            for ch in 0..4 {
                let mut acc = 0i64;
                for n in 0..conv.kh {
                    for m in 0..conv.kw {
                        let c = (image[((j + n) * w + i + m) as usize] >> (8 * ch)) & 0xff;
                        acc += conv.weights[(n * conv.kw + m) as usize][ch] * i64::from(c);
                    }
                }
                let v = (acc + (1 << (WEIGHT_FRAC - 1))) >> WEIGHT_FRAC;
                px |= (v.clamp(0, 255) as u32) << (8 * ch);
            }
            out.push(px);
        }
    }
    (out, ow, oh)
}

/// The maps' state: MAP_COLOR, and per channel the loaded colour map and colour-index map
/// (GL's initial map is one entry of 0.0).
#[derive(Debug, Clone)]
pub struct Maps {
    pub on: bool,
    pub tables: [Vec<u32>; 4],
    pub index_tables: [Vec<u32>; 4],
}

impl Default for Maps {
    fn default() -> Self {
        Maps {
            on: false,
            tables: std::array::from_fn(|_| vec![0]),
            index_tables: std::array::from_fn(|_| vec![0]),
        }
    }
}

/// GL's INDEX_SHIFT and INDEX_OFFSET (both 0 initially).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IndexArith {
    pub shift: i32,
    pub offset: u32,
}

/// GL's arithmetic on a colour index: shifted left by `shift` bits (right when negative)
/// and `offset` added. Indices here have no fraction bits (GL leaves their number open),
/// so bits shifted out to the right are lost: a floor, as Mesa does. Only the low bits
/// survive the lookup's mask, so the sum wraps.
pub fn index_arith(i: u32, a: IndexArith) -> u32 {
    let shifted = match a.shift {
        s @ 0..=31 => i << s,
        s @ -31..=-1 => i >> -s,
        _ => 0,
    };
    shifted.wrapping_add(a.offset)
}

/// GL's colour index lookup for RGBA pixels: channel `ch` is the I_TO_* table's entry at
/// the index ANDed with its size - 1 (sizes are powers of two); a map the config does not
/// generate stays GL's initial one, whose single entry is 0.
pub fn index_map(ipu: &Ipu, maps: &Maps, ch: usize, index: u32) -> u32 {
    match ipu.pixel_map {
        Some(m) if m.index_maps[ch] => {
            let t = &maps.index_tables[ch];
            t[index as usize & (t.len() - 1)]
        }
        _ => 0,
    }
}

/// Whether a PIXELMAP's size suits map `sel` (`[2:0]` of its word 0): 1..=`max`, and a
/// power of two for the I_TO_* maps (GL's rule).
pub fn map_size_ok(sel: u32, n: u32, max: u32) -> bool {
    (1..=max).contains(&n) && (sel & 4 == 0 || n.is_power_of_two())
}

/// GL's map index `round(c / 255 * (size - 1))` of an 8-bit component, exact in integers
/// (no ties exist: `2c(size-1)` is even, `255(2k+1)` odd).
pub fn map_index(c: u32, size: u32) -> u32 {
    (2 * c * (size - 1) + 255) / 510
}

/// Zoom factor 1.0 in the ZOOM command's signed Q7.16.
pub use crate::iface::ipu::ZOOM_ONE;

/// The signed Q7.16 zoom factor in bits `[23:0]` of a ZOOM command word.
pub fn zoom_field(word: u32) -> i32 {
    ((cmd_field(word, &CMD_FACTOR) << 8) as i32) >> 8
}

/// First output column (or row) offset of image column `i` under a zoom factor of
/// magnitude `mag / 2^16`: GL's pixel-centre rule `ceil(i * z - 0.5)`, exact in integers
/// as `(i * mag + 2^15 - 1) >> 16`. Column `i` covers offsets
/// `zoom_start(i) .. zoom_start(i + 1)`; `n` pixels cover `zoom_start(n)`.
pub fn zoom_start(i: u64, mag: u64) -> u64 {
    (i * mag + (1 << 15) - 1) >> 16
}

/// The framebuffer coordinate of output offset `off` from `origin`: `origin + off` for a
/// positive factor, mirrored to `origin - 1 - off` for a negative one; 16 bits, wrapping.
pub fn zoom_coord(origin: u32, off: u64, negative: bool) -> u32 {
    let off = off as u32;
    let v = if negative {
        origin.wrapping_add(!off)
    } else {
        origin.wrapping_add(off)
    };
    v & 0xffff
}

/// The pixel in the low bits of `raw` in format `code` as RGBA8, R in bits [7:0]; a ci8
/// pixel's index sits in R (the map stage turns it into RGBA).
pub fn convert(code: u32, raw: u32) -> u32 {
    let rgba = |r: u32, g: u32, b: u32, a: u32| r | (g << 8) | (b << 16) | (a << 24);
    let x5 = |v: u32| (v << 3) | (v >> 2);
    let x6 = |v: u32| (v << 2) | (v >> 4);
    let x4 = |v: u32| v * 17;
    let byte = |i: u32| (raw >> (8 * i)) & 0xff;
    let v = raw & 0xffff;
    match code {
        0 => raw,
        1 => rgba(byte(2), byte(1), byte(0), byte(3)),
        2 => rgba(x5(v >> 11), x6((v >> 5) & 63), x5(v & 31), 255),
        3 => rgba(
            x4(v >> 12),
            x4((v >> 8) & 15),
            x4((v >> 4) & 15),
            x4(v & 15),
        ),
        4 => rgba(
            x5(v >> 11),
            x5((v >> 6) & 31),
            x5((v >> 1) & 31),
            (v & 1) * 255,
        ),
        5 => rgba(byte(0), byte(0), byte(0), 255),
        6 => rgba(byte(0), byte(0), byte(0), byte(1)),
        7 => byte(0),
        _ => 0,
    }
}

/// GL's `round(c * (2^bits - 1) / 255)` of an 8-bit component, exact: no ties exist
/// (`2c(2^n - 1)` is even, `255(2k + 1)` odd), so it is `floor((c(2^n - 1) + 127) / 255)`.
pub fn narrow(c: u32, bits: u32) -> u32 {
    (c * ((1 << bits) - 1) + 127) / 255
}

/// The RGBA8 pixel `px` (R in bits [7:0]) in format `code`, in the low bits; the inverse
/// of [`convert`] as GL packs: n-bit channels by [`narrow`], luminance `min(R + G + B,
/// 255)` for ReadPixels (`lum_sum`), R for textures.
pub fn pack(code: u32, px: u32, lum_sum: bool) -> u32 {
    let ch = |i: u32| (px >> (8 * i)) & 0xff;
    let (r, g, b, a) = (ch(0), ch(1), ch(2), ch(3));
    let l = if lum_sum { (r + g + b).min(255) } else { r };
    match code {
        0 => px,
        1 => b | (g << 8) | (r << 16) | (a << 24),
        2 => (narrow(r, 5) << 11) | (narrow(g, 6) << 5) | narrow(b, 5),
        3 => (narrow(r, 4) << 12) | (narrow(g, 4) << 8) | (narrow(b, 4) << 4) | narrow(a, 4),
        4 => (narrow(r, 5) << 11) | (narrow(g, 5) << 6) | (narrow(b, 5) << 1) | narrow(a, 1),
        5 => l,
        6 => l | (a << 8),
        _ => 0,
    }
}

/// Pixels packed in format `code`, row after row with no padding, into little-endian
/// 32-bit words, the last one zero-padded.
pub fn pack_words(code: u32, pixels: &[u32], lum_sum: bool) -> Vec<u32> {
    let bpp = bytes_per_pixel(code) as usize;
    let mut bytes = Vec::with_capacity(pixels.len() * bpp);
    for px in pixels {
        let v = pack(code, *px, lum_sum);
        bytes.extend((0..bpp).map(|i| (v >> (8 * i)) as u8));
    }
    bytes
        .chunks(4)
        .map(|c| {
            c.iter()
                .enumerate()
                .map(|(i, b)| u32::from(*b) << (8 * i))
                .sum()
        })
        .collect()
}

/// A Q15.16 command value in `fmt`: floor, then saturate.
pub fn to_fixed(value: u32, fmt: Fixed) -> i64 {
    let v = i64::from(value as i32) >> (16 - fmt.frac);
    v.clamp(fmt.min(), fmt.max())
}

/// One channel through scale then bias: see the module doc.
pub fn transfer(c: u32, scale: i64, bias: i64, s: Fixed, b: Fixed) -> u32 {
    let f = s.frac.max(b.frac);
    let x = ((i64::from(c) * scale) << (f - s.frac))
        + ((255 * bias) << (f - b.frac))
        + (1i64 << (f - 1));
    if x < 0 { 0 } else { (x >> f).min(255) as u32 }
}

/// The output transactions of a command stream, per port.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outputs {
    pub pass: Vec<u32>,
    pub dma_req: Vec<u32>,
    pub pix: Vec<Bits>,
    pub status: Vec<u32>,
    /// Framebuffer requests `{height, width, y, x}`.
    pub fb_req: Vec<u64>,
    /// READ_PIXELS' packed bytes, in 32-bit units (little endian); each READ_PIXELS
    /// starts a `dma_out` word of `dma_word_bits` and zero-pads its last (see
    /// [`Outputs::dma_out_words`]).
    pub dma_out: Vec<u32>,
    /// The units of `dma_out` each READ_PIXELS sent, in order.
    pub dma_out_chunks: Vec<usize>,
    /// COPY_TEX_IMAGE's writes `{address, word}`.
    pub tex: Vec<Bits>,
    /// The 32-bit units of the `dma` stream each draw and bitmap took, in order: each
    /// starts a DMA word, its last word zero-padded (see [`dma_words`]).
    pub dma_chunks: Vec<usize>,
    /// Pixels delivered (mask bits set over all beats).
    pub pixels: u64,
}

impl Outputs {
    /// The `dma_out` port's words: each READ_PIXELS' units, `dma_word_bits / 32` a word.
    pub fn dma_out_words(&self, ipu: &Ipu) -> Vec<Bits> {
        dma_words(ipu, &self.dma_out, &self.dma_out_chunks)
    }

    /// Every pixel the `pix` beats wrote, `(x, y, {A, B, G, R})`, in beat and lane order.
    pub fn written(&self, ipu: &Ipu) -> Vec<(u32, u32, u32)> {
        self.written_since(ipu, 0)
    }

    /// The pixels of the `pix` beats from beat `from` on, as [`Outputs::written`].
    pub fn written_since(&self, ipu: &Ipu, from: usize) -> Vec<(u32, u32, u32)> {
        let lanes = ipu.lanes;
        let fields = pix_fields(ipu);
        let get = |b: &Bits, name: &str| field(&fields, name).map(|f| b.field(f.lsb, f.width));
        let mut px = Vec::new();
        for b in self.pix.iter().skip(from) {
            let x = get(b, "X").unwrap_or(0) as u32;
            let y = get(b, "Y").unwrap_or(0) as u32;
            let mask = get(b, "Mask").unwrap_or(1);
            for k in (0..lanes).filter(|k| mask >> k & 1 == 1) {
                px.push(((x + k) & 0xffff, y, b.field(32 * k, 32) as u32));
            }
        }
        px
    }
}

/// A 128-bit framebuffer word: pixel `i` in bits `[32i+31:32i]`.
pub type FbWord = [u32; 4];

/// Framebuffer words of a `w` x `h` region: `ceil(w / 4)` a row.
pub fn fb_words(w: u32, h: u32) -> usize {
    w.div_ceil(4) as usize * h as usize
}

/// Where a pass through the pipeline ends: pix (DRAW_PIXELS, COPY_PIXELS), or the packer
/// in a format, its words on `dma_out` (READ_PIXELS) or on `tex` from a base address
/// (COPY_TEX_IMAGE).
#[derive(Debug, Clone, Copy)]
enum Sink {
    Pix,
    Pack { fmt: u32, tex: Option<u32> },
}

/// The unit's GL state between commands, and where its DMA and framebuffer inputs are.
struct Machine<'a, I: Inputs> {
    ipu: &'a Ipu,
    inputs: I,
    out: Outputs,
    scale: [i64; 4],
    bias: [i64; 4],
    zoom: (i32, i32),
    maps: Maps,
    index: IndexArith,
    conv: Conv,
    /// GL's current raster colour.
    raster: u32,
    /// GL's current raster position (window coordinates, integers), for BITMAP.
    raster_pos: (u32, u32),
    stack: Vec<StackEntry>,
}

/// Where the unit's DMA and framebuffer words come from, as it asks for them.
pub trait Inputs {
    /// The next `units` 32-bit DMA units (each request starts a DMA word), or `None`
    /// when there are none: the unit waits for ever.
    fn dma(&mut self, units: usize) -> Option<Vec<u32>>;
    /// The `words` framebuffer words of region `{height, width, y, x}` (as `fb_req`
    /// carries it), or `None` when there are none.
    fn fb(&mut self, region: u64, words: usize) -> Option<Vec<FbWord>>;
}

/// Inputs given in advance: the `dma` and `fb` ports' streams.
struct Given<'a> {
    dma: &'a [u32],
    fb: &'a [FbWord],
    dma_next: usize,
    fb_next: usize,
}

impl Inputs for Given<'_> {
    fn dma(&mut self, units: usize) -> Option<Vec<u32>> {
        let src = self.dma.get(self.dma_next..self.dma_next + units)?;
        self.dma_next += units;
        Some(src.to_vec())
    }

    fn fb(&mut self, _region: u64, words: usize) -> Option<Vec<FbWord>> {
        let src = self.fb.get(self.fb_next..self.fb_next + words)?;
        self.fb_next += words;
        Some(src.to_vec())
    }
}

/// A parameter stack entry: the scales, the biases and the zoom factors.
type StackEntry = ([i64; 4], [i64; 4], (i32, i32));

/// The input ran out inside a command: the unit waits forever, the run ends.
struct Starved;

impl<'a, I: Inputs> Machine<'a, I> {
    fn new(ipu: &'a Ipu, inputs: I) -> Self {
        Self {
            ipu,
            inputs,
            out: Outputs::default(),
            scale: [1i64 << ipu.scale.frac; 4],
            bias: [0; 4],
            zoom: (ZOOM_ONE, ZOOM_ONE),
            maps: Maps::default(),
            index: IndexArith::default(),
            conv: Conv::default(),
            // GL's initial current raster colour: (1, 1, 1, 1).
            raster: RASTER_INIT,
            raster_pos: (0, 0),
            stack: Vec::new(),
        }
    }

    fn word_bytes(&self) -> u64 {
        u64::from(self.ipu.dma_word_bits / 8)
    }

    /// A status event with the stack level.
    fn event(&mut self, ev: u32) {
        self.out.status.push(ev | ((self.stack.len() as u32) << 8));
    }

    /// The next `units` 32-bit DMA units, if the stream holds them.
    fn take_dma(&mut self, units: usize) -> Result<Vec<u32>, Starved> {
        let src = self.inputs.dma(units).ok_or(Starved)?;
        self.out.dma_chunks.push(units);
        Ok(src)
    }

    /// A command's words: a config that lacks a command's stage does not know its opcode
    /// (0, passed on); an out-of-range PIXELMAP or CONVOLUTION_FILTER is one word.
    fn decode(&self, w0: u32) -> (u32, usize) {
        let ipu = self.ipu;
        let op = cmd_field(w0, &CMD_OP);
        let op = if is_ipu_opcode(ipu, op) { op } else { 0 };
        let words = match op {
            OP_TRANSFER | OP_ZOOM | OP_RASTER | OP_RASTER_POS | OP_INDEX => 2,
            OP_DRAW | OP_BITMAP | OP_READ => 3,
            OP_COPY | OP_COPYTEX => 4,
            OP_PIXELMAP if self.map_ok(w0) => {
                1 + cmd_field(w0, &CMD_MAP_COUNT).div_ceil(4) as usize
            }
            OP_CONV_FILTER if self.filter_ok(w0) => {
                let (_, kw, kh) = filter_fields(w0);
                1 + (kw * kh) as usize
            }
            _ => 1,
        };
        (op, words)
    }

    fn map_ok(&self, w0: u32) -> bool {
        let n = cmd_field(w0, &CMD_MAP_COUNT);
        self.ipu
            .pixel_map
            .is_some_and(|m| map_size_ok(cmd_field(w0, &CMD_SEL), n, m.size))
    }

    fn filter_ok(&self, w0: u32) -> bool {
        let (_, kw, kh) = filter_fields(w0);
        self.ipu
            .convolution
            .is_some_and(|c| (1..=c.size).contains(&kw) && (1..=c.size).contains(&kh))
    }

    /// The command `op` in `c` (its words).
    fn command(&mut self, op: u32, c: &[u32]) -> Result<(), Starved> {
        let w0 = c[0];
        match op {
            OP_TRANSFER => {
                let ch = cmd_field(w0, &CMD_CHANNEL) as usize;
                if cmd_field(w0, &CMD_BIAS) == 0 {
                    self.scale[ch] = to_fixed(c[1], self.ipu.scale);
                } else {
                    self.bias[ch] = to_fixed(c[1], self.ipu.bias);
                }
            }
            OP_PUSH => {
                if self.stack.len() == self.ipu.stack_depth as usize {
                    self.event(EV_OVERFLOW);
                } else {
                    self.stack.push((self.scale, self.bias, self.zoom));
                }
            }
            OP_POP => match self.stack.pop() {
                Some((s, b, z)) => (self.scale, self.bias, self.zoom) = (s, b, z),
                None => self.event(EV_UNDERFLOW),
            },
            OP_ZOOM => self.zoom = (zoom_field(w0), zoom_field(c[1])),
            OP_INDEX if cmd_field(w0, &CMD_FLAG) == 0 => self.index.shift = c[1] as i32,
            OP_INDEX => self.index.offset = c[1],
            OP_MAPCOLOR => self.maps.on = cmd_field(w0, &CMD_FLAG) == 1,
            OP_RASTER => self.raster = c[1],
            OP_RASTER_POS => self.raster_pos = lo_hi(c[1]),
            OP_CONVOLUTION => self.conv.on = cmd_field(w0, &CMD_FLAG) == 1,
            OP_CONV_FILTER => self.conv_filter(c),
            OP_BITMAP => self.bitmap(c)?,
            OP_PIXELMAP => self.pixel_map(c),
            OP_DRAW => self.draw_pixels(c)?,
            OP_READ | OP_COPY | OP_COPYTEX => self.framebuffer(op, c)?,
            _ => self.out.pass.push(w0),
        }
        Ok(())
    }

    /// CONVOLUTION_FILTER: loads the filter (CONVOLUTION_2D keeps its value).
    fn conv_filter(&mut self, c: &[u32]) {
        if !self.filter_ok(c[0]) {
            return self.event(EV_FILTER);
        }
        let (fmask, kw, kh) = filter_fields(c[0]);
        let fmt = self.ipu.convolution.map_or(self.ipu.scale, |c| c.weight);
        let on = self.conv.on;
        self.conv = load_filter(fmask, kw, kh, &c[1..], fmt);
        self.conv.on = on;
    }

    /// BITMAP (glBitmap): the bitmap's origin at the raster position, then the raster
    /// position moves (an empty bitmap moves it too).
    fn bitmap(&mut self, c: &[u32]) -> Result<(), Starved> {
        let (w, h) = lo_hi(c[1]);
        let (rx, ry) = self.raster_pos;
        let x0 = rx.wrapping_sub(c[2]) & 0xffff;
        let y0 = ry.wrapping_sub(cmd_field(c[2], &CMD_HI)) & 0xffff;
        let (xmove, ymove) = bitmap_moves(c[0]);
        self.raster_pos = (
            rx.wrapping_add(xmove) & 0xffff,
            ry.wrapping_add(ymove) & 0xffff,
        );
        if w > 0 && h > 0 {
            let bytes = u64::from(w.div_ceil(8)) * u64::from(h);
            self.out
                .dma_req
                .push(bytes.div_ceil(self.word_bytes()) as u32);
            let src = self.take_dma(bitmap_words(w, h))?;
            bitmap(self.ipu, &mut self.out, &src, (w, h), (x0, y0), self.raster);
        }
        Ok(())
    }

    /// PIXELMAP: loads a map the config has (a size out of range is an event).
    fn pixel_map(&mut self, c: &[u32]) {
        let w0 = c[0];
        if !self.map_ok(w0) {
            return self.event(EV_MAPSIZE);
        }
        let n = cmd_field(w0, &CMD_MAP_COUNT) as usize;
        let ch = (w0 & 3) as usize;
        let is_index = w0 & 4 != 0;
        let table = || {
            (0..n)
                .map(|k| (c[1 + k / 4] >> (8 * (k % 4))) & 0xff)
                .collect()
        };
        match self.ipu.pixel_map {
            Some(m) if is_index && m.index_maps[ch] => self.maps.index_tables[ch] = table(),
            Some(m) if !is_index && m.maps[ch] => self.maps.tables[ch] = table(),
            _ => {}
        }
    }

    /// A draw wider than a line buffer it passes (zoom's, `zoomed`, or the filter's).
    fn too_wide(&self, w: u32, zoomed: bool) -> bool {
        (zoomed && self.ipu.zoom.is_some_and(|line| w > line))
            || self
                .ipu
                .convolution
                .is_some_and(|c| self.conv.on && c.size > 1 && w > c.line)
    }

    /// DRAW_PIXELS: its DMA words through the pipeline to pix.
    fn draw_pixels(&mut self, c: &[u32]) -> Result<(), Starved> {
        let ipu = self.ipu;
        let fmt = cmd_field(c[0], &CMD_SEL);
        let (w, h) = lo_hi(c[1]);
        let (x0, y0) = lo_hi(c[2]);
        if !ipu.formats[fmt as usize] {
            self.event(EV_FORMAT);
        } else if self.too_wide(w, true) {
            self.event(EV_WIDTH);
        } else if w > 0 && h > 0 {
            let bpp = bytes_per_pixel(fmt);
            let bytes = u64::from(w) * u64::from(h) * u64::from(bpp);
            self.out
                .dma_req
                .push(bytes.div_ceil(self.word_bytes()) as u32);
            let src = self.take_dma(bytes.div_ceil(4) as usize)?;
            let (scale, bias) = (self.scale, self.bias);
            let mut params = Params::new(ipu, &scale, &bias, self.zoom, &self.maps, &self.conv);
            params.index = (fmt == CI8 as u32).then_some(self.index);
            let groups = dma_groups(ipu, &src, fmt, w, h);
            draw(
                ipu,
                &mut self.out,
                groups,
                (w, h),
                (x0, y0),
                &params,
                Sink::Pix,
            );
        }
        Ok(())
    }

    /// READ_PIXELS, COPY_PIXELS, COPY_TEX_IMAGE: a framebuffer region through the pipeline
    /// to pix (a copy, at its destination) or the packer.
    fn framebuffer(&mut self, op: u32, c: &[u32]) -> Result<(), Starved> {
        let ipu = self.ipu;
        let fmt = cmd_field(c[0], &CMD_SEL);
        let (w, h) = lo_hi(c[1]);
        let src = c[2];
        let (sink, dest) = match op {
            OP_READ => (Sink::Pack { fmt, tex: None }, src),
            OP_COPY => (Sink::Pix, c[3]),
            _ => (
                Sink::Pack {
                    fmt,
                    tex: Some(c[3]),
                },
                src,
            ),
        };
        let (x0, y0) = lo_hi(dest);
        if op != OP_COPY && (fmt == CI8 as u32 || !ipu.formats[fmt as usize]) {
            self.event(EV_FORMAT);
        } else if self.too_wide(w, op == OP_COPY) {
            self.event(EV_WIDTH);
        } else if w > 0 && h > 0 {
            self.out
                .fb_req
                .push((u64::from(c[1]) << 32) | u64::from(src));
            let n = fb_words(w, h);
            let region = (u64::from(c[1]) << 32) | u64::from(src);
            let words = self.inputs.fb(region, n).ok_or(Starved)?;
            let params = Params::new(
                ipu,
                &self.scale,
                &self.bias,
                self.zoom,
                &self.maps,
                &self.conv,
            );
            let groups = fb_groups(ipu, &words, w, h);
            draw(ipu, &mut self.out, groups, (w, h), (x0, y0), &params, sink);
        }
        Ok(())
    }
}

/// Runs the unit on `cmds` with DMA words `dma` and framebuffer words `fb`; stops where
/// the commands end or the DMA or framebuffer words run out.
pub fn run(ipu: &Ipu, cmds: &[u32], dma: &[u32], fb: &[FbWord]) -> Outputs {
    let mut m = Machine::new(
        ipu,
        Given {
            dma,
            fb,
            dma_next: 0,
            fb_next: 0,
        },
    );
    let mut i = 0usize;
    while i < cmds.len() {
        let (op, words) = m.decode(cmds[i]);
        // A truncated command waits forever for the rest.
        let Some(c) = cmds.get(i..i + words) else {
            break;
        };
        if m.command(op, c).is_err() {
            break;
        }
        i += words;
    }
    m.out
}

/// The unit a command at a time, its DMA and framebuffer words from `I` as it asks: the
/// GPU's model feeds it from memory, which the pixels of earlier commands have changed.
pub struct Stepper<'a, I: Inputs>(Machine<'a, I>);

impl<'a, I: Inputs> Stepper<'a, I> {
    pub fn new(ipu: &'a Ipu, inputs: I) -> Self {
        Stepper(Machine::new(ipu, inputs))
    }

    /// The words of the command that starts with `w0`.
    pub fn words(&self, w0: u32) -> usize {
        self.0.decode(w0).1
    }

    /// Runs one whole command; `false` when its inputs ran out (the unit waits for ever).
    pub fn command(&mut self, c: &[u32]) -> bool {
        let (op, _) = self.0.decode(c[0]);
        self.0.command(op, c).is_ok()
    }

    pub fn out(&self) -> &Outputs {
        &self.0.out
    }

    pub fn inputs_mut(&mut self) -> &mut I {
        &mut self.0.inputs
    }
}

/// The pixel state a draw uses.
struct Params<'a> {
    scale: &'a [i64; 4],
    bias: &'a [i64; 4],
    zoom: (i32, i32),
    maps: &'a Maps,
    /// The convolution filter, when it is on.
    conv: Option<&'a Conv>,
    /// For a colour-index draw: the index arithmetic (scale, bias and the colour maps do
    /// not apply: GL converts indices to RGBA after them).
    index: Option<IndexArith>,
}

impl<'a> Params<'a> {
    /// The state a draw or copy runs under; the filter only when the config has one and
    /// it is on.
    fn new(
        ipu: &Ipu,
        scale: &'a [i64; 4],
        bias: &'a [i64; 4],
        zoom: (i32, i32),
        maps: &'a Maps,
        conv: &'a Conv,
    ) -> Self {
        Params {
            scale,
            bias,
            zoom,
            maps,
            conv: (ipu.convolution.is_some() && conv.on).then_some(conv),
            index: None,
        }
    }
}

/// A group of pixels the unpack stage issues in one beat: column and row of its first
/// pixel, and its RGBA8 pixels.
type Group = (u32, u32, Vec<u32>);

/// The groups of a draw from DMA words: up to `lanes` consecutive pixels of one row from
/// one DMA word.
fn dma_groups(ipu: &Ipu, words: &[u32], fmt: u32, w: u32, h: u32) -> Vec<Group> {
    let bpp = bytes_per_pixel(fmt);
    let wb = ipu.dma_word_bits / 8;
    let mut groups = Vec::new();
    // Byte offset in the stream; a pixel never straddles a 32-bit unit (bpp divides 4).
    let mut off = 0u32;
    for row in 0..h {
        let mut col = 0u32;
        while col < w {
            let slots = (wb - off % wb) / bpp;
            let g = ipu.lanes.min(slots).min(w - col);
            let px = (0..g)
                .map(|lane| {
                    let b = off + lane * bpp;
                    convert(fmt, words[(b / 4) as usize] >> (8 * (b % 4)))
                })
                .collect();
            groups.push((col, row, px));
            off += g * bpp;
            col += g;
        }
    }
    groups
}

/// The `dma` port's words for a stream of 32-bit units: each command's units (`chunks`)
/// start a word, `dma_word_bits / 32` units a word, unit 0 in the low bits, the last word
/// of a command zero-padded; units after the last command's likewise.
pub fn dma_words(ipu: &Ipu, units: &[u32], chunks: &[usize]) -> Vec<Bits> {
    let per = (ipu.dma_word_bits / 32) as usize;
    let mut words = Vec::new();
    let mut pack = |part: &[u32]| {
        for w in part.chunks(per) {
            let mut b = Bits::zero(ipu.dma_word_bits);
            for (i, u) in (0u32..).zip(w) {
                b.set_field(32 * i, 32, u64::from(*u));
            }
            words.push(b);
        }
    };
    let mut next = 0;
    for &c in chunks {
        pack(&units[next..next + c]);
        next += c;
    }
    pack(&units[next..]);
    words
}

/// The groups of a framebuffer region: up to `lanes` consecutive pixels of one 128-bit
/// word (lanes divide 4 and rows start on a word, so a group never spans two).
fn fb_groups(ipu: &Ipu, words: &[FbWord], w: u32, h: u32) -> Vec<Group> {
    let per_row = w.div_ceil(4) as usize;
    let mut groups = Vec::new();
    for row in 0..h {
        let mut col = 0u32;
        while col < w {
            let g = ipu.lanes.min(w - col);
            let word = &words[row as usize * per_row + (col / 4) as usize];
            let px = (0..g)
                .map(|lane| word[((col + lane) % 4) as usize])
                .collect();
            groups.push((col, row, px));
            col += g;
        }
    }
    groups
}

fn draw(
    ipu: &Ipu,
    out: &mut Outputs,
    groups: Vec<Group>,
    (w, h): (u32, u32),
    (x0, y0): (u32, u32),
    p: &Params,
    sink: Sink,
) {
    let (scale, bias) = (p.scale, p.bias);
    let lanes = ipu.lanes;
    let width = pix_width(ipu);
    let to_pix = matches!(sink, Sink::Pix);
    // ReadPixels and CopyTexImage bypass zoom (GL).
    let zoomed = to_pix && ipu.zoom.is_some() && p.zoom != (ZOOM_ONE, ZOOM_ONE);
    let mut image = Vec::new();
    // Zoom streams each row in the beats that reach it: the unpack stage's, or the
    // filter's one pixel a beat.
    let mut beats: Vec<Vec<u32>> = vec![Vec::new(); h as usize];
    for (col, row, pixels) in groups {
        let g = pixels.len() as u32;
        beats[row as usize].push(g);
        let mut beat = Bits::zero(width);
        for (lane, px) in (0u32..).zip(pixels) {
            let mut o = 0u32;
            for ch in 0..4 {
                let c = (px >> (8 * ch)) & 0xff;
                let v = match p.index {
                    Some(a) => index_map(ipu, p.maps, ch as usize, index_arith(px, a)),
                    None => {
                        let v = transfer(
                            c,
                            scale[ch as usize],
                            bias[ch as usize],
                            ipu.scale,
                            ipu.bias,
                        );
                        map(ipu, p.maps, ch as usize, v)
                    }
                };
                o |= v << (8 * ch);
            }
            image.push(o);
            beat.set_field(32 * lane, 32, u64::from(o));
        }
        beat.set_field(32 * lanes, 16, u64::from((x0 + col) & 0xffff));
        beat.set_field(32 * lanes + 16, 16, u64::from((y0 + row) & 0xffff));
        if lanes > 1 {
            beat.set_field(32 * lanes + 32, lanes, (1u64 << g) - 1);
        }
        if to_pix && !zoomed && p.conv.is_none() {
            out.pix.push(beat);
            out.pixels += u64::from(g);
        }
    }
    // The convolution filter after the main pipeline's per-pixel stages and before zoom,
    // as in GL (the RTL places it so); its result, one pixel a beat, goes on to zoom.
    let (image, w, h) = match p.conv {
        Some(c) => {
            let (image, w, h) = convolve(c, &image, w, h);
            beats = vec![vec![1; w as usize]; h as usize];
            (image, w, h)
        }
        None => (image, w, h),
    };
    if let Sink::Pack { fmt, tex } = sink {
        let words = pack_words(fmt, &image, tex.is_none());
        match tex {
            None => {
                out.dma_out_chunks.push(words.len());
                out.dma_out.extend(words);
            }
            Some(base) => {
                let dw = ipu.dma_word_bits;
                for (k, w) in (0u32..).zip(dma_words(ipu, &words, &[words.len()])) {
                    let mut beat = Bits::zero(tex_width(ipu));
                    for i in 0..dw / 32 {
                        beat.set_field(32 * i, 32, w.field(32 * i, 32));
                    }
                    beat.set_field(dw, 32, u64::from(base.wrapping_add(k)));
                    out.tex.push(beat);
                }
            }
        }
    } else if zoomed {
        zoom(ipu, out, &image, &beats, (w, h), (x0, y0), p.zoom);
    } else if p.conv.is_some() {
        for j in 0..h {
            for i in 0..w {
                let px = image[(j * w + i) as usize];
                push_one(ipu, out, (x0 + i) & 0xffff, (y0 + j) & 0xffff, px);
            }
        }
    }
}

/// DMA words of a `w` x `h` bitmap: rows of `ceil(w / 8)` bytes (GL's unpack alignment 1).
pub fn bitmap_words(w: u32, h: u32) -> usize {
    (w.div_ceil(8) as usize * h as usize).div_ceil(4)
}

/// The bitmap module (glBitmap): bit `i` of row `j` (bit 7 of a byte is its leftmost
/// pixel, bytes little endian in a word) set makes a fragment at `(x0 + i, y0 + j)` in the
/// raster colour, one a beat in lane 0; clear bits make none.
fn bitmap(
    ipu: &Ipu,
    out: &mut Outputs,
    words: &[u32],
    (w, h): (u32, u32),
    (x0, y0): (u32, u32),
    raster: u32,
) {
    let row_bytes = w.div_ceil(8) as usize;
    for j in 0..h as usize {
        for i in 0..w as usize {
            let byte = j * row_bytes + i / 8;
            let bits = (words[byte / 4] >> (8 * (byte % 4))) & 0xff;
            if (bits >> (7 - i % 8)) & 1 == 1 {
                let (x, y) = ((x0 + i as u32) & 0xffff, (y0 + j as u32) & 0xffff);
                push_one(ipu, out, x, y, raster);
            }
        }
    }
}

/// The pixel map stage (glPixelMap with MAP_COLOR): a generated map replaces the
/// component by its table's entry at GL's index. The RTL does this after bias and before
/// the filter and zoom, as GL does (the seed numbers it after zoom: a map is a function of
/// one pixel, so only the filter cares).
pub fn map(ipu: &Ipu, maps: &Maps, ch: usize, v: u32) -> u32 {
    match ipu.pixel_map {
        Some(m) if maps.on && m.maps[ch] => {
            let t = &maps.tables[ch];
            t[map_index(v, t.len() as u32) as usize]
        }
        _ => v,
    }
}

/// Sends one pixel at (x, y) as a beat of its own: lane 0, mask 1.
fn push_one(ipu: &Ipu, out: &mut Outputs, x: u32, y: u32, px: u32) {
    push_beat(ipu, out, x, y, &|_| px, 1);
}

/// Sends `n` (1..=lanes) pixels `px(0) .. px(n - 1)` from (x, y) rightwards as one beat:
/// lanes 0..n, mask of n ones.
fn push_beat(ipu: &Ipu, out: &mut Outputs, x: u32, y: u32, px: &dyn Fn(u64) -> u32, n: u32) {
    let mut beat = Bits::zero(pix_width(ipu));
    for k in 0..n {
        beat.set_field(32 * k, 32, u64::from(px(u64::from(k))));
    }
    for f in pix_fields(ipu) {
        match f.name {
            "X" => beat.set_field(f.lsb, f.width, u64::from(x)),
            "Y" => beat.set_field(f.lsb, f.width, u64::from(y)),
            "Mask" => beat.set_field(f.lsb, f.width, (1 << n) - 1),
            _ => {}
        }
    }
    out.pix.push(beat);
    out.pixels += u64::from(n);
}

/// The zoom stage (glPixelZoom): every image pixel becomes the output pixels whose
/// centres its zoomed rectangle covers, in the order the RTL sends them: output row by
/// output row, each in image order. The stage takes a row's pixels in groups: the beats
/// that reach it (`beats[j]`, pixel counts) for a row's first output row, `lanes` pixels
/// from column 0 for the rows it replays from its line buffer. A group's output columns go
/// out `lanes` to a beat (the last beat takes the rest; a beat never spans groups); lane k
/// is column `x + k`, and mirrored, `x` is the beat's leftmost column.
fn zoom(
    ipu: &Ipu,
    out: &mut Outputs,
    image: &[u32],
    beats: &[Vec<u32>],
    (w, h): (u32, u32),
    (x0, y0): (u32, u32),
    (zx, zy): (i32, i32),
) {
    let (mx, my) = (u64::from(zx.unsigned_abs()), u64::from(zy.unsigned_abs()));
    let lanes = u64::from(ipu.lanes);
    let replayed: Vec<u32> = (0..w)
        .step_by(ipu.lanes as usize)
        .map(|i| ipu.lanes.min(w - i))
        .collect();
    for j in 0..u64::from(h) {
        let row = &image[(j * u64::from(w)) as usize..((j + 1) * u64::from(w)) as usize];
        for oy in zoom_start(j, my)..zoom_start(j + 1, my) {
            let y = zoom_coord(y0, oy, zy < 0);
            let groups = if oy == zoom_start(j, my) {
                &beats[j as usize]
            } else {
                &replayed
            };
            let mut i = 0u64;
            for &n in groups {
                let end = zoom_start(i + u64::from(n), mx);
                for ox in (zoom_start(i, mx)..end).step_by(lanes as usize) {
                    let cnt = (end - ox).min(lanes);
                    // Lane k shows column ox + k, or ox + cnt - 1 - k mirrored: the pixel
                    // of the group whose coverage holds that column.
                    let lane_px = |k: u64| {
                        let col = if zx < 0 { ox + cnt - 1 - k } else { ox + k };
                        let p = (i..).find(|&p| zoom_start(p + 1, mx) > col).unwrap_or(i);
                        row[p as usize]
                    };
                    let left = if zx < 0 { ox + cnt - 1 } else { ox };
                    push_beat(
                        ipu,
                        out,
                        zoom_coord(x0, left, zx < 0),
                        y,
                        &lane_px,
                        cnt as u32,
                    );
                }
                i += u64::from(n);
            }
        }
    }
}

/// INDEX_TRANSFER: GL's INDEX_SHIFT (`offset` false) or INDEX_OFFSET, a signed integer.
pub fn cmd_index(offset: bool, value: i32) -> [u32; 2] {
    [
        with(op(OP_INDEX), &CMD_FLAG, u32::from(offset)),
        value as u32,
    ]
}

/// PIXELMAP: loads `values` (8-bit, v / 255) into map `map` (0 R->R .. 3 A->A, 4 I->R ..
/// 7 I->A).
pub fn cmd_pixelmap(map: u32, values: &[u8]) -> Vec<u32> {
    let mut words = vec![with(
        with(op(OP_PIXELMAP), &CMD_MAP_COUNT, values.len() as u32),
        &CMD_SEL,
        map,
    )];
    for chunk in values.chunks(4) {
        words.push(
            chunk
                .iter()
                .enumerate()
                .map(|(k, v)| u32::from(*v) << (8 * k))
                .sum(),
        );
    }
    words
}
pub fn cmd_mapcolor(on: bool) -> u32 {
    with(op(OP_MAPCOLOR), &CMD_FLAG, u32::from(on))
}

/// BITMAP's raster position moves, `[11:0]` xmove and `[23:12]` ymove of word 0 (signed),
/// as 32-bit two's complement.
pub fn bitmap_moves(w0: u32) -> (u32, u32) {
    let sext = |v: u32| (((v << 20) as i32) >> 20) as u32;
    (
        sext(cmd_field(w0, &CMD_XMOVE)),
        sext(cmd_field(w0, &CMD_YMOVE)),
    )
}

/// RASTER_POS: GL's current raster position (integer window coordinates, 16 bits each).
pub fn cmd_raster_pos(x: u32, y: u32) -> [u32; 2] {
    [op(OP_RASTER_POS), hi_lo(y, x)]
}

/// BITMAP as glBitmap: origin `(xorig, yorig)` (the bitmap's pixel (xorig, yorig) lands on
/// the raster position), then the raster position moves by `(xmove, ymove)` (12-bit
/// signed each).
pub fn cmd_bitmap_gl(w: u32, h: u32, xorig: i32, yorig: i32, xmove: i32, ymove: i32) -> [u32; 3] {
    [
        with(
            with(op(OP_BITMAP), &CMD_YMOVE, ymove as u32),
            &CMD_XMOVE,
            xmove as u32,
        ),
        hi_lo(h, w),
        hi_lo(yorig as u32, xorig as u32),
    ]
}

/// A bitmap at `(x, y)` that leaves the raster position there: RASTER_POS, then BITMAP
/// with origin and moves 0.
pub fn cmd_bitmap(w: u32, h: u32, x: u32, y: u32) -> Vec<u32> {
    let mut v = cmd_raster_pos(x, y).to_vec();
    v.extend(cmd_bitmap_gl(w, h, 0, 0, 0, 0));
    v
}

/// RASTER_COLOR: GL's current raster colour, RGBA8 `{A, B, G, R}`.
pub fn cmd_raster(rgba: u32) -> [u32; 2] {
    [op(OP_RASTER), rgba]
}

/// CONVOLUTION_FILTER: a `kw` x `kh` filter (row 0 first) for the channels in `mask`
/// (bit 0 R .. bit 3 A), weights as Q15.16.
pub fn cmd_filter(mask: u32, kw: u32, kh: u32, weights: &[u32]) -> Vec<u32> {
    let mut v = vec![with(
        with(
            with(op(OP_CONV_FILTER), &CMD_KERNEL_H, kh),
            &CMD_KERNEL_W,
            kw,
        ),
        &CMD_KERNEL_MASK,
        mask,
    )];
    v.extend(weights);
    v
}
/// CONVOLUTION: the filter on (GL's glEnable(GL_CONVOLUTION_2D)) or off.
pub fn cmd_convolution(on: bool) -> u32 {
    with(op(OP_CONVOLUTION), &CMD_FLAG, u32::from(on))
}

/// Command word builders.
pub fn cmd_transfer(bias: bool, channel: u32, value: u32) -> [u32; 2] {
    [
        with(
            with(op(OP_TRANSFER), &CMD_BIAS, u32::from(bias)),
            &CMD_CHANNEL,
            channel,
        ),
        value,
    ]
}
pub fn cmd_push() -> u32 {
    op(OP_PUSH)
}
pub fn cmd_pop() -> u32 {
    op(OP_POP)
}
/// ZOOM with factors as signed Q7.16 (`q16` of the float, low 24 bits kept).
pub fn cmd_zoom(zx: u32, zy: u32) -> [u32; 2] {
    [with(op(OP_ZOOM), &CMD_FACTOR, zx), with(0, &CMD_FACTOR, zy)]
}
pub fn cmd_draw(fmt: u32, w: u32, h: u32, x: u32, y: u32) -> [u32; 3] {
    [with(op(OP_DRAW), &CMD_SEL, fmt), hi_lo(h, w), hi_lo(y, x)]
}

/// READ_PIXELS of a `w` x `h` region at `(x, y)` in format `fmt`.
pub fn cmd_read(fmt: u32, w: u32, h: u32, x: u32, y: u32) -> [u32; 3] {
    [with(op(OP_READ), &CMD_SEL, fmt), hi_lo(h, w), hi_lo(y, x)]
}
/// COPY_PIXELS of the `w` x `h` region at `(x, y)` to `(dx, dy)`.
pub fn cmd_copy(w: u32, h: u32, (x, y): (u32, u32), (dx, dy): (u32, u32)) -> [u32; 4] {
    [op(OP_COPY), hi_lo(h, w), hi_lo(y, x), hi_lo(dy, dx)]
}
/// COPY_TEX_IMAGE of the `w` x `h` region at `(x, y)`, in format `fmt`, to word address
/// `base` of texture memory.
pub fn cmd_copytex(fmt: u32, w: u32, h: u32, (x, y): (u32, u32), base: u32) -> [u32; 4] {
    [
        with(op(OP_COPYTEX), &CMD_SEL, fmt),
        hi_lo(h, w),
        hi_lo(y, x),
        base,
    ]
}

/// A float as the Q15.16 a driver sends (round to nearest).
pub fn q16(v: f64) -> u32 {
    (v * 65536.0).round() as i64 as i32 as u32
}

/// A stream of commands and DMA words.
#[derive(Debug, Clone, Default)]
pub struct Stream {
    pub cmds: Vec<u32>,
    pub dma: Vec<u32>,
    pub fb: Vec<FbWord>,
}

impl Stream {
    /// Appends a draw and random DMA data for it (when the format has pixels).
    pub fn draw(&mut self, rng: &mut Rng, fmt: u32, w: u32, h: u32, x: u32, y: u32) {
        self.cmds.extend(cmd_draw(fmt, w, h, x, y));
        let words = (u64::from(w) * u64::from(h) * u64::from(bytes_per_pixel(fmt))).div_ceil(4);
        for _ in 0..words {
            self.dma.push(rng.next_u64() as u32);
        }
    }

    /// Random framebuffer words for a region (the pixels past a row's end too: the unit
    /// must ignore them).
    pub fn fb_region(&mut self, rng: &mut Rng, w: u32, h: u32) {
        for _ in 0..fb_words(w, h) {
            self.fb.push(std::array::from_fn(|_| rng.next_u64() as u32));
        }
    }

    /// A framebuffer command of a `w` x `h` region at `src`, and the framebuffer's
    /// answer when the format is enabled and the region not empty.
    pub fn fb_cmd(
        &mut self,
        rng: &mut Rng,
        ipu: &Ipu,
        op: FbOp,
        (w, h): (u32, u32),
        src: (u32, u32),
    ) {
        let fmt = match op {
            FbOp::Read(fmt) => {
                self.cmds.extend(cmd_read(fmt, w, h, src.0, src.1));
                Some(fmt)
            }
            FbOp::Copy(dest) => {
                self.cmds.extend(cmd_copy(w, h, src, dest));
                None
            }
            FbOp::CopyTex(fmt, base) => {
                self.cmds.extend(cmd_copytex(fmt, w, h, src, base));
                Some(fmt)
            }
        };
        let fmt_ok = fmt.is_none_or(|f| f != 7 && ipu.formats[f as usize]);
        if ipu.framebuffer && fmt_ok && w > 0 && h > 0 {
            self.fb_region(rng, w, h);
        }
    }
}

/// A framebuffer command: READ_PIXELS in a format, COPY_PIXELS to a destination,
/// COPY_TEX_IMAGE in a format to a base address.
#[derive(Debug, Clone, Copy)]
pub enum FbOp {
    Read(u32),
    Copy((u32, u32)),
    CopyTex(u32, u32),
}

/// Zoom factors of the random mixes: identity (the stage's bypass), enlarge, shrink,
/// mirror, zero, and fractions whose column counts vary from pixel to pixel.
pub const ZOOMS: [f64; 12] = [
    1.0, 1.0, 2.0, 0.5, -1.0, -0.5, 1.5, 0.34, 3.0, 0.0, -2.25, 0.7,
];

/// A random mix of `count` commands: transfers (some out of range), pushes and pops
/// (enough to overflow and underflow), draws of every format code (enabled, disabled
/// and none) and sizes (empty included), zoom factors when the config has zoom, other
/// units' opcodes; half the seeds end with a truncated multi-word command.
pub fn random_stream(ipu: &Ipu, count: usize, seed: u64) -> Stream {
    let mut rng = Rng::stream(seed, STREAM_DATA);
    let mut s = Stream::default();
    let pick = |rng: &mut Rng, n: u64| rng.next_u64() % n;
    for _ in 0..count {
        match pick(&mut rng, 24) {
            0..=4 => {
                let bias = pick(&mut rng, 2) == 1;
                let ch = pick(&mut rng, 4) as u32;
                let value = match pick(&mut rng, 8) {
                    0 => rng.next_u64() as u32,
                    1..=3 if bias => q16((pick(&mut rng, 200) as f64 - 100.0) / 255.0),
                    _ if bias => q16(pick(&mut rng, 4000) as f64 / 1000.0 - 2.0),
                    _ => q16(pick(&mut rng, 6000) as f64 / 1000.0 - 1.0),
                };
                s.cmds.extend(cmd_transfer(bias, ch, value));
            }
            5..=6 => s.cmds.push(cmd_push()),
            7..=8 => s.cmds.push(cmd_pop()),
            9..=14 => {
                let fmt = if pick(&mut rng, 10) == 0 {
                    7
                } else {
                    pick(&mut rng, 7) as u32
                };
                let w = pick(&mut rng, 12) as u32;
                let h = pick(&mut rng, 5) as u32;
                let x = rng.next_u64() as u32 & 0xffff;
                let y = rng.next_u64() as u32 & 0xffff;
                if ipu.formats[fmt as usize] {
                    s.draw(&mut rng, fmt, w, h, x, y);
                } else {
                    s.cmds.extend(cmd_draw(fmt, w, h, x, y));
                }
            }
            22 if ipu.bitmap => {
                if pick(&mut rng, 2) == 0 {
                    s.cmds.extend(cmd_raster(rng.next_u64() as u32));
                }
                let (w, h) = (pick(&mut rng, 20) as u32, pick(&mut rng, 5) as u32);
                let (x, y) = (
                    rng.next_u64() as u32 & 0xffff,
                    rng.next_u64() as u32 & 0xffff,
                );
                if pick(&mut rng, 2) == 0 {
                    s.cmds.extend(cmd_bitmap(w, h, x, y));
                } else {
                    // glBitmap from the raster position left by the one before.
                    let v = |rng: &mut Rng, n: u64| pick(rng, 2 * n) as i32 - n as i32;
                    let (xo, yo) = (v(&mut rng, 8), v(&mut rng, 8));
                    let (xm, ym) = (v(&mut rng, 2048), v(&mut rng, 30));
                    s.cmds.extend(cmd_bitmap_gl(w, h, xo, yo, xm, ym));
                }
                if w > 0 && h > 0 {
                    for _ in 0..bitmap_words(w, h) {
                        s.dma.push(rng.next_u64() as u32);
                    }
                }
            }
            23 if ipu.convolution.is_some() => {
                if pick(&mut rng, 3) == 0 {
                    s.cmds.push(cmd_convolution(pick(&mut rng, 4) != 0));
                } else {
                    let k = ipu.convolution.map_or(1, |c| c.size);
                    // Now and then a size out of range (0 or above the hardware's).
                    let size = |rng: &mut Rng| match pick(rng, 12) {
                        0 => [0, k + 1][pick(rng, 2) as usize],
                        _ => 1 + pick(rng, u64::from(k)) as u32,
                    };
                    let (kw, kh) = (size(&mut rng), size(&mut rng));
                    let n = if (1..=k).contains(&kw) && (1..=k).contains(&kh) {
                        kw * kh
                    } else {
                        0
                    };
                    let weights: Vec<u32> = (0..n)
                        .map(|_| match pick(&mut rng, 8) {
                            0 => rng.next_u64() as u32,
                            _ => q16(pick(&mut rng, 3000) as f64 / 1000.0 - 1.0),
                        })
                        .collect();
                    s.cmds
                        .extend(cmd_filter(pick(&mut rng, 16) as u32, kw, kh, &weights));
                }
            }
            15..=17 if ipu.framebuffer => {
                // Formats enabled, disabled and none; empty regions; widths across the
                // 4-pixel words; destinations and bases anywhere.
                let fmt = if pick(&mut rng, 10) == 0 {
                    7
                } else {
                    pick(&mut rng, 7) as u32
                };
                let (w, h) = (pick(&mut rng, 12) as u32, pick(&mut rng, 5) as u32);
                let mut at = || {
                    (
                        rng.next_u64() as u32 & 0xffff,
                        rng.next_u64() as u32 & 0xffff,
                    )
                };
                let (src, dest) = (at(), at());
                let op = match pick(&mut rng, 3) {
                    0 => FbOp::Read(fmt),
                    1 => FbOp::Copy(dest),
                    _ => FbOp::CopyTex(fmt, rng.next_u64() as u32),
                };
                s.fb_cmd(&mut rng, ipu, op, (w, h), src);
            }
            20 if ipu.zoom.is_some() => {
                let z = |rng: &mut Rng| q16(ZOOMS[pick(rng, ZOOMS.len() as u64) as usize]);
                let (zx, zy) = (z(&mut rng), z(&mut rng));
                s.cmds.extend(cmd_zoom(zx, zy));
            }
            18 if ipu.formats[CI8] => {
                // Colour indices: shifts either way (some past every index bit), offsets of
                // either sign, index maps of powers of two (and some that are not: flagged).
                match pick(&mut rng, 3) {
                    0 => {
                        let shift = match pick(&mut rng, 6) {
                            0 => rng.next_u64() as i32,
                            _ => pick(&mut rng, 25) as i32 - 12,
                        };
                        s.cmds.extend(cmd_index(false, shift));
                    }
                    1 => {
                        let offset = match pick(&mut rng, 4) {
                            0 => rng.next_u64() as i32,
                            _ => pick(&mut rng, 600) as i32 - 300,
                        };
                        s.cmds.extend(cmd_index(true, offset));
                    }
                    _ => {
                        let max = ipu.pixel_map.map_or(1, |m| m.size).min(64);
                        let n = match pick(&mut rng, 8) {
                            0 => 3,
                            _ => 1 << pick(&mut rng, u64::from(max.trailing_zeros()) + 1),
                        };
                        let values: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
                        s.cmds
                            .extend(cmd_pixelmap(4 + pick(&mut rng, 4) as u32, &values));
                    }
                }
                if pick(&mut rng, 2) == 0 {
                    let (w, h) = (pick(&mut rng, 12) as u32, pick(&mut rng, 5) as u32);
                    let (x, y) = (
                        rng.next_u64() as u32 & 0xffff,
                        rng.next_u64() as u32 & 0xffff,
                    );
                    s.draw(&mut rng, CI8 as u32, w, h, x, y);
                }
            }
            21 if ipu.pixel_map.is_some() => match pick(&mut rng, 4) {
                0 => s.cmds.push(cmd_mapcolor(pick(&mut rng, 3) != 0)),
                1 => {
                    // Out of range (0 or too big) now and then.
                    let max = ipu.pixel_map.map_or(1, |m| m.size);
                    let n = [0, max + 1][pick(&mut rng, 2) as usize];
                    s.cmds.push(with(op(OP_PIXELMAP), &CMD_MAP_COUNT, n));
                }
                _ => {
                    let max = ipu.pixel_map.map_or(1, |m| m.size).min(20);
                    let n = 1 + pick(&mut rng, u64::from(max)) as usize;
                    let values: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
                    s.cmds
                        .extend(cmd_pixelmap(pick(&mut rng, 4) as u32, &values));
                }
            },
            _ => {
                let mut word = rng.next_u64() as u32;
                while (OP_TRANSFER..=OP_INDEX).contains(&cmd_field(word, &CMD_OP)) {
                    word = rng.next_u64() as u32;
                }
                s.cmds.push(word);
            }
        }
    }
    match pick(&mut rng, if ipu.framebuffer { 9 } else { 6 }) {
        0 => s.cmds.push(cmd_transfer(false, 1, 0)[0]),
        1 => s.cmds.push(cmd_draw(0, 3, 3, 0, 0)[0]),
        2 => s.cmds.extend(&cmd_draw(0, 3, 3, 0, 0)[..2]),
        3 => s.cmds.push(cmd_zoom(q16(2.0), q16(2.0))[0]),
        4 => s.cmds.extend(&cmd_pixelmap(1, &[1, 2, 3, 4, 5])[..2]),
        6 => s.cmds.extend(&cmd_read(0, 3, 3, 0, 0)[..2]),
        7 => s.cmds.extend(&cmd_copy(3, 3, (0, 0), (9, 9))[..3]),
        8 => s.cmds.extend(&cmd_copytex(0, 3, 3, (0, 0), 64)[..3]),
        _ => {}
    }
    s
}

/// The vectors of a stream: stimulus on `cmd` and `dma`, the model's outputs on the rest.
pub fn encode(ipu: &Ipu, stream: &Stream, seed: u64) -> (VectorSet, Outputs) {
    let out = run(ipu, &stream.cmds, &stream.dma, &stream.fb);
    let word = |w: u32, width: u32| Bits::from_u64(width, u64::from(w));
    let port = |name: &str, dir, width| StreamPort {
        name: name.into(),
        dir,
        width,
    };
    let mut set = VectorSet {
        unit: "ipu".into(),
        seed,
        ports: vec![
            PortVectors {
                port: port("cmd", Dir::In, 32),
                items: stream.cmds.iter().map(|w| word(*w, 32)).collect(),
            },
            PortVectors {
                port: port("dma", Dir::In, ipu.dma_word_bits),
                items: dma_words(ipu, &stream.dma, &out.dma_chunks),
            },
            PortVectors {
                port: port("pass", Dir::Out, 32),
                items: out.pass.iter().map(|w| word(*w, 32)).collect(),
            },
            PortVectors {
                port: port("dma_req", Dir::Out, 32),
                items: out.dma_req.iter().map(|w| word(*w, 32)).collect(),
            },
            PortVectors {
                port: port("pix", Dir::Out, pix_width(ipu)),
                items: out.pix.clone(),
            },
            PortVectors {
                port: port("status", Dir::Out, STATUS_WIDTH),
                items: out.status.iter().map(|w| word(*w, STATUS_WIDTH)).collect(),
            },
        ],
    };
    if ipu.framebuffer {
        let wide = |v: u64, width: u32| Bits::from_u64(width, v);
        set.ports.extend([
            PortVectors {
                port: port("fb", Dir::In, FB_WIDTH),
                items: stream
                    .fb
                    .iter()
                    .map(|w| {
                        let mut b = Bits::zero(FB_WIDTH);
                        for (i, px) in (0u32..).zip(w) {
                            b.set_field(32 * i, 32, u64::from(*px));
                        }
                        b
                    })
                    .collect(),
            },
            PortVectors {
                port: port("fb_req", Dir::Out, FB_REQ_WIDTH),
                items: out.fb_req.iter().map(|v| wide(*v, FB_REQ_WIDTH)).collect(),
            },
            PortVectors {
                port: port("dma_out", Dir::Out, ipu.dma_word_bits),
                items: out.dma_out_words(ipu),
            },
            PortVectors {
                port: port("tex", Dir::Out, tex_width(ipu)),
                items: out.tex.clone(),
            },
        ]);
    }
    (set, out)
}

/// `gpurtl vectors/sim -u ipu`: a random command mix of `count` commands.
pub fn vectors(ipu: &Ipu, count: usize, seed: u64) -> VectorSet {
    encode(ipu, &random_stream(ipu, count, seed), seed).0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::StageKind;

    fn ipu(lanes: u32) -> Ipu {
        Ipu {
            lanes,
            dma_word_bits: 32,
            formats: [true, true, true, true, true, true, true, false],
            scale: Fixed { int: 4, frac: 12 },
            bias: Fixed { int: 2, frac: 12 },
            stack_depth: 2,
            registers: vec![StageKind::Bubble; 3],
            map_register: StageKind::Bubble,
            zoom_register: StageKind::Bubble,
            zoom: None,
            pixel_map: None,
            bitmap: false,
            convolution: None,
            framebuffer: false,
        }
    }

    #[test]
    fn bitmap_bits_become_fragments_in_the_raster_colour() {
        let mut cfg = ipu(2);
        cfg.bitmap = true;
        let mut cmds = cmd_raster(0x1122_3344).to_vec();
        cmds.extend(cmd_bitmap(9, 2, 100, 50));
        // Row 0: bytes 0x81, 0x80 -> columns 0, 7, 8; row 1: 0x40, 0x00 -> column 1.
        let out = run(&cfg, &cmds, &[0x0040_8081], &[]);
        let got: Vec<(u64, u64, u64)> = out
            .pix
            .iter()
            .map(|b| (b.field(64, 16), b.field(80, 16), b.field(0, 32)))
            .collect();
        assert_eq!(
            got,
            vec![
                (100, 50, 0x1122_3344),
                (107, 50, 0x1122_3344),
                (108, 50, 0x1122_3344),
                (101, 51, 0x1122_3344)
            ]
        );
        assert_eq!(out.dma_req, vec![1]);
    }

    #[test]
    fn bitmap_moves_the_raster_position() {
        let mut cfg = ipu(1);
        cfg.bitmap = true;
        // Two one-pixel bitmaps, origin (1, 0) then (0, 2), moves (5, -1) then (0, 0); an
        // empty bitmap between them moves the position by (-3, 10).
        let mut cmds = cmd_raster_pos(100, 50).to_vec();
        cmds.extend(cmd_bitmap_gl(1, 1, 1, 0, 5, -1));
        cmds.extend(cmd_bitmap_gl(0, 0, 0, 0, -3, 10));
        cmds.extend(cmd_bitmap_gl(1, 1, 0, 2, 0, 0));
        let out = run(&cfg, &cmds, &[0x80, 0x80], &[]);
        let got: Vec<(u64, u64)> = out
            .pix
            .iter()
            .map(|b| (b.field(32, 16), b.field(48, 16)))
            .collect();
        assert_eq!(got, vec![(99, 50), (102, 57)]);
    }

    #[test]
    fn convolution_reduces_and_follows_gls_formula() {
        let mut cfg = ipu(1);
        cfg.convolution = Some(crate::config::Convolution {
            size: 3,
            line: 8,
            weight: Fixed { int: 4, frac: 16 },
        });
        // A 2x1 filter on R only: C[i] = 0.5 c[i] - 0.25 c[i + 1]; G, B, A pass from the
        // centre tap (1, 0), the right-hand pixel.
        let mut cmds = cmd_filter(0x1, 2, 1, &[q16(0.5), q16(-0.25)]);
        cmds.push(cmd_convolution(true));
        cmds.extend(cmd_draw(5, 4, 2, 10, 20));
        cmds.extend(cmd_filter(0x1, 4, 1, &[])); // 4 > 3: status 6, nothing consumed
        let out = run(&cfg, &cmds, &[0x4010_c864, 0x0102_0304], &[]);
        let got: Vec<(u64, u64, u64)> = out
            .pix
            .iter()
            .map(|b| (b.field(32, 16), b.field(48, 16), b.field(0, 32)))
            .collect();
        let px = |r: u32, l: u32| u64::from(r | (l << 8) | (l << 16) | (0xff << 24));
        // Row 0: l8 100, 200, 16, 64; row 1: 4, 3, 2, 1. Halves round up, negatives clamp.
        assert_eq!(
            got,
            vec![
                (10, 20, px(0, 200)),
                (11, 20, px(96, 16)),
                (12, 20, px(0, 64)),
                (10, 21, px(1, 3)),
                (11, 21, px(1, 2)),
                (12, 21, px(1, 1)),
            ]
        );
        assert_eq!(out.status, vec![EV_FILTER]);
        assert_eq!(out.pass.len(), 0);
    }

    #[test]
    fn map_index_is_gls_rounding_and_the_rtl_divide_is_exact() {
        for size in [1u32, 2, 3, 16, 100, 256, 4096] {
            for c in 0..=255u32 {
                let gl = (f64::from(c) / 255.0 * f64::from(size - 1)).round() as u32;
                assert_eq!(map_index(c, size), gl, "size {size} c {c}");
            }
        }
        for max in [2u32, 256, 4096] {
            let (k, s) = map_magic(max);
            for size in 1..=max {
                for c in [0u32, 1, 127, 128, 254, 255] {
                    let p = u64::from(c * (size - 1));
                    assert_eq!(((p * k + (1 << (s - 1))) >> s) as u32, map_index(c, size));
                }
            }
        }
    }

    #[test]
    fn maps_look_up_after_transfer_when_map_color_is_on() {
        let mut cfg = ipu(1);
        cfg.pixel_map = Some(crate::config::PixelMap {
            size: 8,
            maps: [true, true, false, true],
            index_maps: [false; 4],
        });
        let mut cmds = cmd_pixelmap(0, &[10, 20, 30]);
        cmds.extend(cmd_pixelmap(3, &[7]));
        cmds.extend(cmd_pixelmap(1, &[0; 9])); // too big: flagged, nothing consumed
        cmds.extend(cmd_draw(0, 1, 1, 0, 0));
        cmds.push(cmd_mapcolor(true));
        cmds.extend(cmd_draw(0, 1, 1, 0, 0));
        let px = 0x8080_8080u32;
        let out = run(&cfg, &cmds, &[px, px], &[]);
        assert_eq!(out.status, vec![EV_MAPSIZE]);
        assert_eq!(out.pix[0].field(0, 32), u64::from(px));
        // R: index round(128/255 * 2) = 1; G: the initial map (0); B: not generated; A: 7.
        assert_eq!(out.pix[1].field(0, 32), 0x0780_0014);
        // The nine value words of the rejected command were passed through as commands.
        assert_eq!(out.pass.len(), 3);
    }

    /// GL's rule straight from its definition in f64: the output columns (offsets from the
    /// raster position) whose centres `off + 0.5` lie in `[z * i, z * (i + 1))`; a
    /// negative factor mirrors the columns about the raster position.
    fn gl_columns(z: f64, i: u64) -> Vec<i64> {
        let (a, b) = (z.abs() * i as f64, z.abs() * (i + 1) as f64);
        let lo = a.floor() as i64 - 2;
        let hi = b.ceil() as i64 + 2;
        (lo..=hi)
            .filter(|off| {
                let c = *off as f64 + 0.5;
                a <= c && c < b
            })
            .map(|off| if z < 0.0 { -1 - off } else { off })
            .collect()
    }

    #[test]
    fn zoom_columns_are_exactly_gls_pixel_centre_rule() {
        let mut rng = Rng::stream(17, 0);
        let mut factors: Vec<u32> = ZOOMS.iter().map(|z| q16(*z)).collect();
        factors.extend([1, 0x7f_ffff, 0x80_0000, 0x8000, 0x1_0001, 0xffff]);
        for _ in 0..300 {
            factors.push(rng.next_u64() as u32 & 0xff_ffff);
        }
        for word in factors {
            let z = zoom_field(word);
            let zf = f64::from(z) / 65536.0;
            let mag = u64::from(z.unsigned_abs());
            let n_max = if mag > 0x10_0000 { 40 } else { 300 };
            for i in 0..n_max {
                let hw: Vec<i64> = (zoom_start(i, mag)..zoom_start(i + 1, mag))
                    .map(|off| {
                        let c = zoom_coord(0x8000, off, z < 0) as i64;
                        c - 0x8000
                    })
                    .collect();
                assert_eq!(hw, gl_columns(zf, i), "z {zf} column {i}");
            }
            for n in 0..n_max {
                let gl = (n as f64 * zf.abs() - 0.5).ceil().max(0.0) as u64;
                assert_eq!(zoom_start(n, mag), gl, "z {zf}: {n} pixels");
            }
        }
    }

    #[test]
    fn zoom_shrinks_and_mirrors_the_seed_example() {
        let mut cfg = ipu(2);
        cfg.zoom = Some(16);
        // A 4x2 l8 image shrunk 2x, mirrored in y: pixels 1 and 3 of row 1 cover the
        // centres of offsets 0 and 1; row 1 lands on the row below the raster position.
        let mut cmds = cmd_zoom(q16(0.5), q16(-0.5)).to_vec();
        cmds.extend(cmd_draw(5, 4, 2, 10, 20));
        let out = run(&cfg, &cmds, &[0x0403_0201, 0x0807_0605], &[]);
        let got: Vec<(u64, u64, u64)> = out
            .pix
            .iter()
            .map(|b| (b.field(64, 16), b.field(80, 16), b.field(0, 8)))
            .collect();
        assert_eq!(got, vec![(10, 19, 6), (11, 19, 8)]);
        assert_eq!(out.pixels, 2);
        // Too wide for the line buffer: flagged, nothing requested.
        let out = run(&cfg, &cmd_draw(5, 17, 1, 0, 0), &[0; 5], &[]);
        assert_eq!(out.status, vec![EV_WIDTH]);
        assert!(out.dma_req.is_empty());
    }

    #[test]
    fn enlarged_pixels_of_a_group_share_beats() {
        let mut cfg = ipu(4);
        cfg.zoom = Some(16);
        // Two l8 pixels (one beat, one group) at -2.5 x: offsets 0..=1 and 2..=4 of the
        // mirror, x = 9 - offset. The first beat holds offsets 3..=0 (x 6..=9: pixel 2
        // twice, then pixel 1 twice), the second offset 4 (x 5).
        let mut cmds = cmd_zoom(q16(-2.5), q16(1.0)).to_vec();
        cmds.extend(cmd_draw(5, 2, 1, 10, 20));
        let out = run(&cfg, &cmds, &[0x0000_0201], &[]);
        let grey = |v: u32| 0xff00_0000 | (v * 0x01_0101);
        let beats: Vec<(u64, u64, Vec<u32>)> = out
            .pix
            .iter()
            .map(|b| {
                let lanes = (0..4).map(|k| b.field(32 * k, 32) as u32).collect();
                (b.field(128, 16), b.field(160, 4), lanes)
            })
            .collect();
        assert_eq!(
            beats,
            vec![
                (6, 0b1111, vec![grey(2), grey(2), grey(1), grey(1)]),
                (5, 0b0001, vec![grey(2), 0, 0, 0]),
            ]
        );
        let mut got = out.written(&cfg);
        got.sort();
        let want: Vec<(u32, u32, u32)> = [(5, 2), (6, 2), (7, 2), (8, 1), (9, 1)]
            .iter()
            .map(|&(x, v)| (x, 20, grey(v)))
            .collect();
        assert_eq!(got, want);
        assert_eq!(out.pixels, 5);
    }

    #[test]
    fn wide_dma_words_start_each_command_and_pad_its_last() {
        let mut cfg = ipu(4);
        cfg.dma_word_bits = 128;
        // 3 rgba8888 pixels (12 bytes) and 5 l8 pixels (5 bytes): one 128-bit word each.
        let mut cmds = cmd_draw(0, 3, 1, 0, 0).to_vec();
        cmds.extend(cmd_draw(5, 5, 1, 0, 1));
        let units = [
            0x0403_0201,
            0x0807_0605,
            0x0c0b_0a09,
            0x1312_1110,
            0x0000_0014,
        ];
        let out = run(&cfg, &cmds, &units, &[]);
        assert_eq!(out.dma_req, vec![1, 1]);
        assert_eq!(out.dma_chunks, vec![3, 2]);
        let words = dma_words(&cfg, &units, &out.dma_chunks);
        assert_eq!(words.len(), 2);
        assert_eq!(words[0].field(64, 64), 0x0c0b_0a09);
        assert_eq!(words[1].field(0, 64), 0x0000_0014_1312_1110);
        // One beat of 3 pixels, then one of 4 and one of 1 (a beat is one word's, one row's).
        let masks: Vec<u64> = out.pix.iter().map(|b| b.field(160, 4)).collect();
        assert_eq!(masks, vec![0b0111, 0b1111, 0b0001]);
        assert_eq!(out.written(&cfg)[6].2, 0xff13_1313);
    }

    #[test]
    fn channel_expansion_is_within_one_lsb_of_gl() {
        for bits in [1u32, 4, 5, 6] {
            let max = (1u32 << bits) - 1;
            for c in 0..=max {
                let gl = (f64::from(c) * 255.0 / f64::from(max)).round() as i64;
                let hw = i64::from(match bits {
                    1 => c * 255,
                    4 => c * 17,
                    5 => (c << 3) | (c >> 2),
                    _ => (c << 2) | (c >> 4),
                });
                assert!((gl - hw).abs() <= 1, "{bits} bits, {c}: {hw} vs {gl}");
            }
        }
    }

    #[test]
    fn transfer_is_within_one_lsb_of_gl_float_math() {
        let cfg = ipu(1);
        let mut rng = Rng::stream(3, 0);
        for _ in 0..20000 {
            let s = (rng.next_u64() % 16000) as f64 / 1000.0 - 8.0;
            let b = (rng.next_u64() % 8000) as f64 / 1000.0 - 4.0;
            let c = (rng.next_u64() % 256) as u32;
            let (sq, bq) = (q16(s), q16(b));
            let (sv, bv) = (
                f64::from(sq as i32) / 65536.0,
                f64::from(bq as i32) / 65536.0,
            );
            let gl = ((f64::from(c) / 255.0 * sv + bv).clamp(0.0, 1.0) * 255.0).round() as i64;
            let hw = i64::from(transfer(
                c,
                to_fixed(sq, cfg.scale),
                to_fixed(bq, cfg.bias),
                cfg.scale,
                cfg.bias,
            ));
            assert!(
                (gl - hw).abs() <= 1,
                "c {c} scale {sv} bias {bv}: {hw} vs {gl}"
            );
        }
    }

    #[test]
    fn seed_example_bias_2_scale_quarter() {
        // The seed's example: bias 2 (of 255), scale 0.25.
        let cfg = ipu(1);
        let (s, b) = (
            to_fixed(q16(0.25), cfg.scale),
            to_fixed(q16(2.0 / 255.0), cfg.bias),
        );
        for c in [0u32, 1, 100, 200, 255] {
            let gl = (f64::from(c) * 0.25 + 2.0).round() as u32;
            assert!(transfer(c, s, b, cfg.scale, cfg.bias).abs_diff(gl) <= 1);
        }
    }

    #[test]
    fn stack_overflow_and_underflow_change_nothing() {
        let cfg = ipu(1);
        let mut cmds = vec![cmd_pop(), cmd_push(), cmd_push(), cmd_push()];
        cmds.extend(cmd_transfer(false, 0, q16(0.5)));
        cmds.extend([cmd_pop(), cmd_pop(), cmd_pop()]);
        let out = run(&cfg, &cmds, &[], &[]);
        assert_eq!(
            out.status,
            vec![EV_UNDERFLOW, EV_OVERFLOW | (2 << 8), EV_UNDERFLOW]
        );
    }

    #[test]
    fn lanes_group_pixels_of_one_word_and_row() {
        let cfg = ipu(4);
        let mut cmds = cmd_draw(5, 3, 2, 10, 20).to_vec();
        cmds.push(0x1234_5678);
        let out = run(&cfg, &cmds, &[0x0403_0201, 0x0000_0605], &[]);
        // Row 0: three pixels of word 0; row 1: pixel 4 of word 0, then two of word 1.
        let masks: Vec<u64> = out.pix.iter().map(|b| b.field(160, 4)).collect();
        assert_eq!(masks, vec![0b111, 0b1, 0b11]);
        assert_eq!(out.pixels, 6);
        assert_eq!(out.dma_req, vec![2]);
        assert_eq!(out.pass, vec![0x1234_5678]);
        assert_eq!(out.pix[1].field(128, 16), 10);
        assert_eq!(out.pix[1].field(144, 16), 21);
        assert_eq!(out.pix[1].field(0, 8), 4);
    }

    #[test]
    fn pack_narrows_by_gls_formula() {
        // GL's conversion to an n-bit field: round(c / 255 * (2^n - 1)), in f64.
        for bits in [1u32, 4, 5, 6, 8] {
            let max = f64::from((1u32 << bits) - 1);
            for c in 0..=255u32 {
                let gl = (f64::from(c) / 255.0 * max).round() as u32;
                assert_eq!(narrow(c, bits), gl, "{bits} bits, c {c}");
            }
        }
        let px = 0x80ff_4020u32; // R 0x20, G 0x40, B 0xff, A 0x80
        assert_eq!(pack(0, px, true), px);
        assert_eq!(pack(1, px, true), 0x8020_40ff);
        assert_eq!(pack(2, px, true), (4 << 11) | (16 << 5) | 31);
        assert_eq!(pack(3, px, true), 0x24f8);
        assert_eq!(pack(4, px, true), (4 << 11) | (8 << 6) | (31 << 1) | 1);
        // ReadPixels' luminance R + G + B clamped; a texture's is R.
        assert_eq!(pack(5, px, true), 255);
        assert_eq!(pack(5, 0x0001_0203, true), 6);
        assert_eq!(pack(6, px, false), 0x8020);
        // Unpacking what was packed gives the pixel back for the 8-bit formats, and
        // within GL's rounding for the narrow ones.
        for code in [2u32, 3, 4] {
            for c in (0..=255u32).step_by(5) {
                let px = c | (c << 8) | (c << 16) | (c << 24);
                let back = convert(code, pack(code, px, true));
                assert!((back & 0xff).abs_diff(c) <= 9, "{code} {c}: {back:x}");
            }
        }
    }

    #[test]
    fn read_pixels_packs_rows_back_to_back_and_pads_the_last_word() {
        let mut cfg = ipu(2);
        cfg.framebuffer = true;
        // A 3 x 2 region: row 0 in word 0 (its pixel 3 ignored), row 1 in word 1.
        let fb = [
            [0x0000_0001, 0x0000_0002, 0x0000_0003, 0xdead_beef],
            [0x0000_0004, 0x0000_0005, 0x0000_0006, 0x1234_5678],
        ];
        let mut cmds = cmd_read(5, 3, 2, 10, 20).to_vec();
        cmds.extend(cmd_copytex(2, 3, 2, (10, 20), 0x40));
        cmds.extend(cmd_copy(3, 2, (10, 20), (7, 8)));
        let fb2: Vec<FbWord> = fb.iter().chain(&fb).chain(&fb).copied().collect();
        let out = run(&cfg, &cmds, &[], &fb2);
        let req = (2u64 << 48) | (3 << 32) | (20 << 16) | 10;
        assert_eq!(out.fb_req, vec![req; 3]);
        assert_eq!(out.dma_out, vec![0x0403_0201, 0x0000_0605]);
        // rgb565 of R = 1..6: round(r * 31 / 255) is 0 up to 4, then 1.
        let tex: Vec<(u64, u64)> = out
            .tex
            .iter()
            .map(|b| (b.field(32, 32), b.field(0, 32)))
            .collect();
        assert_eq!(tex, vec![(0x40, 0), (0x41, 0), (0x42, 0x0800_0800)]);
        // CopyPixels: two beats a row (2 lanes), at the destination.
        let at: Vec<(u64, u64, u64)> = out
            .pix
            .iter()
            .map(|b| (b.field(64, 16), b.field(80, 16), b.field(96, 2)))
            .collect();
        assert_eq!(at, vec![(7, 8, 3), (9, 8, 1), (7, 9, 3), (9, 9, 1)]);
    }

    #[test]
    fn colour_indices_become_rgba_through_the_index_maps() {
        let mut cfg = ipu(1);
        cfg.formats[CI8] = true;
        cfg.pixel_map = Some(crate::config::PixelMap {
            size: 16,
            maps: [true; 4],
            index_maps: [true, false, true, true],
        });
        let r: Vec<u8> = (0..16).map(|k| 100 + k).collect();
        let mut cmds = cmd_pixelmap(4, &r);
        cmds.extend(cmd_pixelmap(6, &[7, 9]));
        cmds.extend(cmd_pixelmap(5, &[1, 2, 3, 4])); // I->G not generated: ignored
        cmds.extend(cmd_pixelmap(0, &[255; 2])); // R->R: not for indices
        cmds.push(cmd_mapcolor(true));
        cmds.extend(cmd_transfer(false, 0, q16(0.5))); // nor is the scale
        cmds.extend(cmd_index(false, -1));
        cmds.extend(cmd_index(true, 3));
        cmds.extend(cmd_draw(FORMAT_CI8, 3, 1, 0, 0));
        let out = run(&cfg, &cmds, &[0x00_09_05_04], &[]);
        // (i >> 1) + 3: 5, 5, 7; R from 16 entries, B from 2 (index & 1), A's map never
        // loaded and G's not generated: 0.
        let px: Vec<u64> = out.pix.iter().map(|b| b.field(0, 32)).collect();
        assert_eq!(px, [105 | (9 << 16), 105 | (9 << 16), 107 | (9 << 16)]);
        // Index arithmetic: left and right, offsets that wrap, shifts past every bit.
        let a = |shift, offset| IndexArith { shift, offset };
        assert_eq!(index_arith(0x81, a(3, 0)), 0x408);
        assert_eq!(index_arith(0x81, a(-7, (-2i32) as u32)), u32::MAX);
        assert_eq!(index_arith(0xff, a(40, 5)), 5);
        assert_eq!(index_arith(0xff, a(i32::MIN, 0)), 0);
        // A size that is not a power of two is flagged for I_TO_* maps only.
        assert!(!map_size_ok(4, 3, 16) && map_size_ok(0, 3, 16) && map_size_ok(7, 16, 16));
        // Reads and texture copies of colour indices are errors; without ci8 the format
        // and INDEX_TRANSFER are unknown.
        cfg.framebuffer = true;
        let mut cmds = cmd_read(FORMAT_CI8, 2, 2, 0, 0).to_vec();
        cmds.extend(cmd_copytex(FORMAT_CI8, 2, 2, (0, 0), 0));
        let out = run(&cfg, &cmds, &[], &[]);
        assert_eq!(out.status, [EV_FORMAT, EV_FORMAT]);
        assert!(out.fb_req.is_empty());
        let out = run(&ipu(1), &cmd_index(true, 3), &[], &[]);
        assert_eq!(out.pass, cmd_index(true, 3));
    }

    #[test]
    fn truncated_commands_produce_nothing() {
        let cfg = ipu(1);
        let out = run(&cfg, &cmd_draw(0, 1, 1, 0, 0)[..2], &[0], &[]);
        assert_eq!(out, Outputs::default());
    }
}
