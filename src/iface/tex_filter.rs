//! The contract of the texture filter: the request and response layouts and the fp32
//! encoding of a channel, which the RTL renders as a table and the model computes.

use crate::config::{TexFormat, TexOutput, Tmu};

/// Pass codes: a single-level sample, the first level of a trilinear pair (no response),
/// and the second (blended with the first).
pub const PASS_SINGLE: u32 = 0;
pub const PASS_FIRST: u32 = 1;
pub const PASS_SECOND: u32 = 2;

/// A channel as fp32 in [0, 1]: exactly c / 255 rounded to the nearest float, the
/// normalisation GL specifies for unsigned normalised 8-bit values.
pub fn unorm8_to_f32(c: u8) -> f32 {
    (f64::from(c) / 255.0) as f32
}

/// The request's fields, as the model and the vectors lay them out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FilterLayout {
    pub lanes: u32,
    /// Quads of 4 lanes (at least one), each with its own trilinear weight f.
    pub quads: u32,
    pub wbits: u32,
    pub sub_w: u32,
    pub dxt1: bool,
    pub tex_w: u32,
    pub lane_w: u32,
    pub req_w: u32,
    pub out_lane_w: u32,
    pub rsp_w: u32,
}

impl FilterLayout {
    pub fn new(tmu: &Tmu) -> Self {
        let dxt1 = tmu.has_format(TexFormat::Dxt1);
        let eight = tmu.has_format(TexFormat::L8) || tmu.has_format(TexFormat::A8);
        // The texel's index in its word: 0..16 in a DXT1 block, 0..4 bytes, 0..2 halves.
        let sub_w = if dxt1 {
            4
        } else if eight {
            2
        } else {
            1
        };
        let tex_w = sub_w + 32 + if dxt1 { 32 } else { 0 };
        let lane_w = 1 + 2 * tmu.weight_bits + 4 * tex_w;
        let out_lane_w = match tmu.output {
            TexOutput::Rgba8 => 32,
            TexOutput::Fp32 => 128,
        };
        Self {
            lanes: tmu.lanes,
            quads: tmu.quads(),
            wbits: tmu.weight_bits,
            sub_w,
            dxt1,
            tex_w,
            lane_w,
            // pass, f per quad, format
            req_w: tmu.lanes * lane_w + 5 + 8 * tmu.quads(),
            out_lane_w,
            rsp_w: tmu.lanes * out_lane_w,
        }
    }
}
