//! `tmu`: the texture mapping unit (seed 001) as one co-simulated unit: `tmu_lod` (texture
//! parameter memory, LOD, level choice), `tmu_addr` (texel address generation, with
//! `tmu_fixed` converting fp32 coordinates), `tex_cache` and `tex_filter`. The command
//! layout and the descriptor registers are decided here; the model is
//! `model::tmu::unit`.

use std::collections::BTreeMap;

use askama::Template;

use super::handshake::{module_for, ram_fifo_module};
use super::tex_cache::TexCacheTop;
use super::tex_filter::{FilterLayout, TexFilter};
use super::{Ctx, MemPort, Module, RenderError, Rst, Unit, render};
use crate::config::{Filter, StageKind, TexFormat, TexLayout, TexOutput, Tmu, Wrap};
use crate::iface::field::{Field, describe, get, lsb_params, pack, width};
use crate::iface::fifo::FifoStorage;
use crate::iface::mem_mgr::upper_camel;
use crate::iface::tex_cache::{CacheLayout, WORD_ADDR_BITS};
use crate::iface::tex_filter::BLEND_W;
use crate::iface::tex_filter::{PASS_FIRST, PASS_SECOND, PASS_SINGLE, PASS_W};
use crate::iface::tmu::{
    AddrPipe, COORD_W, CTRL_FIELDS, DIFF_W, LANE_W, LOG_W, LodPipe, REGS, TmuLayout, WRAP_W,
    ctrl_lsb_name, ctrl_w, desc_fields, has_lod, narrow_bits, widths,
};

/// Bits of a format code: the descriptor's `format` field.
pub fn format_w() -> u32 {
    CTRL_FIELDS
        .iter()
        .find(|f| f.0 == "format")
        .map_or(0, |f| f.2)
}

/// A format's localparam in the RTL: `FmtRgba8888`.
fn format_code_name(f: TexFormat) -> String {
    upper_camel("Fmt", f.name())
}

/// `format == A || format == B` over the formats with `per_word` texels in a word.
fn formats_with_texels_per_word(per_word: u32) -> String {
    let terms: Vec<String> = TexFormat::ALL
        .iter()
        .filter(|f| **f != TexFormat::Dxt1 && f.texels_per_word() == per_word)
        .map(|f| format!("format == {}", format_code_name(*f)))
        .collect();
    terms.join(" || ")
}

/// The codes the address stage compares with or produces, as (range, name, value): the
/// formats of one and of four texels a word and DXT1 (their positions in
/// `TexFormat::ALL`), and the pass codes of `iface::tex_filter`.
fn addr_codes() -> Vec<(String, String, String)> {
    let (fw, pw) = (format_w(), PASS_W);
    let mut codes: Vec<(String, String, String)> = TexFormat::ALL
        .iter()
        .filter(|f| **f == TexFormat::Dxt1 || matches!(f.texels_per_word(), 1 | 4))
        .map(|f| {
            (
                format!("[{}:0]", fw - 1),
                format_code_name(*f),
                format!("{fw}'d{}", f.code()),
            )
        })
        .collect();
    for (name, code) in [
        ("PassSingle", PASS_SINGLE),
        ("PassFirst", PASS_FIRST),
        ("PassSecond", PASS_SECOND),
    ] {
        codes.push((
            format!("[{}:0]", pw - 1),
            name.into(),
            format!("{pw}'d{code}"),
        ));
    }
    codes
}

/// A level as a plan and a pass carry it, lowest first: log2 width, log2 height, the
/// level's first word (the RTL's `Level<Field>Lsb`).
pub fn level_fields() -> Vec<Field> {
    pack(&[("Lw", LOG_W), ("Lh", LOG_W), ("Base", WORD_ADDR_BITS)])
}

/// A quad's part of a plan, lowest first: blend, tri, linear, two levels' {base, lh, lw}
/// (the RTL's `PlanQuad<Field>Lsb`).
pub fn plan_quad_fields() -> Vec<Field> {
    let level_w = width(&level_fields());
    pack(&[
        ("Blend", BLEND_W),
        ("Tri", 1),
        ("Linear", 1),
        ("Level1", level_w),
        ("Level2", level_w),
    ])
}

/// A plan, from `tmu_lod` to `tmu_addr`, lowest first: the sample's lanes as the command
/// has them, format, the two wraps, the quads (quad 0 lowest; the RTL's `Plan<Field>Lsb`).
pub fn plan_fields(lanes: u32, quads: u32) -> Vec<Field> {
    pack(&[
        ("Lanes", lanes * LANE_W),
        ("Format", format_w()),
        ("WrapS", WRAP_W),
        ("WrapT", WRAP_W),
        ("Quads", quads * width(&plan_quad_fields())),
    ])
}

/// A sample and its descriptor as `tmu_lod` carries them down its stages, lowest first:
/// the sample command's fields, then the descriptor's (the RTL's `P0<Field>Lsb`).
pub fn carry_fields(layout: &TmuLayout) -> Vec<Field> {
    let list: Vec<(&'static str, u32)> = layout
        .sample_fields()
        .iter()
        .chain(desc_fields().iter())
        .map(|f| (f.name, f.width))
        .collect();
    pack(&list)
}

/// A quad's coordinate differences in `tmu_lod`, each clamped to [`DIFF_W`] bits, lowest
/// first: u and v along x (lane 1 - lane 0), u and v along y (lane 2 - lane 0) (the RTL's
/// `Diff<Field>Lsb`).
pub fn diff_fields() -> Vec<Field> {
    pack(&[
        ("Ux", DIFF_W),
        ("Vx", DIFF_W),
        ("Uy", DIFF_W),
        ("Vy", DIFF_W),
    ])
}

/// A quad's log2 state in `tmu_lod`, lowest first: rho^2 is zero, its highest set bit,
/// the 17-bit mantissa being squared, the fraction bits found so far (the RTL's
/// `LogQuad<Field>Lsb`).
pub fn log_quad_fields() -> Vec<Field> {
    pack(&[("Zero", 1), ("Msb", 6), ("Mant", 17), ("Frac", 8)])
}

/// A quad after `tmu_lod`'s compare clock (C1), lowest first: magnification, lambda > 1/2,
/// lambda past the last level's switch-over, floor(lambda) >= the last level, the rounded
/// level, floor(lambda), floor(lambda) + 1 and lambda's fraction, the blend (the RTL's
/// `Cmp<Field>Lsb`).
pub fn lod_cmp_fields() -> Vec<Field> {
    pack(&[
        ("Mag", 1),
        ("GtHalf", 1),
        ("PastLast", 1),
        ("FloorGe", 1),
        ("Near", LOG_W),
        ("Floor", LOG_W),
        ("FloorUp", LOG_W),
        ("Frac", BLEND_W),
    ])
}

/// A texture's filter class beside C1's compares, lowest first: the minifier rounds to
/// one level, blends two, is linear within a level, the magnifier is linear, and the last
/// level (the RTL's `Class<Field>Lsb`).
pub fn lod_class_fields() -> Vec<Field> {
    pack(&[
        ("MipNear", 1),
        ("MipLin", 1),
        ("MinLin", 1),
        ("MagLin", 1),
        ("Last", LOG_W),
    ])
}

/// A quad's level choice after C2, lowest first: the first and second level, the blend
/// between them and whether the quad filters linearly (the RTL's `Pick<Field>Lsb`).
pub fn lod_pick_fields() -> Vec<Field> {
    pack(&[
        ("D1", LOG_W),
        ("D2", LOG_W),
        ("Blend", BLEND_W),
        ("Linear", 1),
    ])
}

/// A quad's part of a pass in `tmu_addr` between its stages, lowest first: lw, lh, base,
/// linear, skip, and from the level's size, worked out in the first clock for the
/// address stage: the tile row's shift (log2 of the tiles in a row; a row of DXT1 groups
/// is two rows of blocks, one place more) and whether the pass reads DXT1 blocks in 2x2
/// groups (the RTL's `PassQuad<Field>Lsb`).
pub fn pass_quad_fields() -> Vec<Field> {
    pack(&[
        ("Lw", LOG_W),
        ("Lh", LOG_W),
        ("Base", WORD_ADDR_BITS),
        ("Linear", 1),
        ("Skip", 1),
        ("TileSh", LOG_W),
        ("Grouped", 1),
    ])
}

/// A lane between `tmu_addr`'s stages, lowest first: active, the weights a and b, the
/// wrapped texel columns i0s, i1s and rows i0t, i1t (the RTL's `CLane<Field>Lsb`).
pub fn coord_lane_fields(wbits: u32) -> Vec<Field> {
    pack(&[
        ("Active", 1),
        ("A", wbits),
        ("B", wbits),
        ("I0s", COORD_W),
        ("I1s", COORD_W),
        ("I0t", COORD_W),
        ("I1t", COORD_W),
    ])
}

/// Where clamp to edge saturates a coordinate's index, as bounds on its magnitude, so that
/// `tmu_addr` decides it beside the sum rather than after it. With a scale S (2^wbits when
/// linear, else 1) and a half texel h (S / 2 when linear, else 0), u = mag - h or
/// -mag - inexact - h, and the index floor(u / S) is below -2 exactly when a negative
/// coordinate has mag + inexact > 2S - h, and above 2^CoordW exactly when a positive one
/// has mag >= (2^CoordW + 1) S + h. Returns (2S - h, (2^CoordW + 1) S + h).
pub fn clamp_bounds(wbits: u32, linear: bool) -> (u64, u64) {
    let (s, h) = if linear {
        (1u64 << wbits, 1u64 << (wbits - 1))
    } else {
        (1, 0)
    };
    (2 * s - h, ((1u64 << COORD_W) + 1) * s + h)
}

/// An explicit LOD after `tmu_lod`'s first selection clock, lowest first: its mantissa,
/// the right shift that takes it to 8 fraction bits (142 - e1), which mantissa bits that
/// shift drops (bit i when i < 142 - e1), its sign, and whether it saturates (e1 >= 142)
/// or is NaN (the RTL's `LodPre<Field>Lsb`).
pub fn lod_pre_fields() -> Vec<Field> {
    pack(&[
        ("Mant", 24),
        ("Nsh", 8),
        ("Low", 24),
        ("Neg", 1),
        ("Sat", 1),
        ("Nan", 1),
    ])
}

/// A coordinate after `tmu_addr`'s first clock, lowest first: the shift amount (s * 2^k =
/// mant * 2^sh) and its negation (a second adder beside the first, so the shift's clock
/// has no carry before its compares), the 24-bit mantissa, the sign, `zero` (NaN, or an
/// infinity when not clamping: converts as 0), `inf` and `sat` (clamp to edge). The RTL's
/// `Pre<Field>Lsb`.
pub fn pre_fields() -> Vec<Field> {
    pack(&[
        ("Sh", 11),
        ("Nsh", 11),
        ("Mant", 24),
        ("Neg", 1),
        ("Zero", 1),
        ("Inf", 1),
        ("Sat", 1),
    ])
}

/// A coordinate after `tmu_addr`'s coarse shift, lowest first: the mantissa shifted by
/// the shift's multiple of 8 (left: its low narrow_bits bits; right: all 24), the shift
/// left over (0..=7), the direction (left), whether the whole shift puts every bit out
/// (kill), the mantissa's bits that it puts below the binary point (right shifts) and
/// past 2^narrow_bits (left shifts), one flag a bit, and the sign, zero (NaN or an
/// unclamped infinity), infinity and clamp flags as [`pre_fields`] has them. The RTL's
/// `Coarse<Field>Lsb`.
pub fn coarse_fields(wbits: u32) -> Vec<Field> {
    pack(&[
        ("Val", narrow_bits(wbits).max(24)),
        ("Fine", 3),
        ("Left", 1),
        ("Kill", 1),
        ("Lo", 24),
        ("Hi", 24),
        ("Neg", 1),
        ("Zero", 1),
        ("Inf", 1),
        ("Sat", 1),
    ])
}

/// A coordinate after `tmu_addr`'s shift (its fine half), lowest first: the magnitude
/// modulo 2^narrow_bits, whether bits were shifted out below the binary point, the
/// sign, and `huge` (clamp to edge of a magnitude beyond the narrow value or infinite:
/// the sign alone decides the texel). The RTL's `Mid<Field>Lsb`.
pub fn mid_fields(wbits: u32) -> Vec<Field> {
    pack(&[
        ("Mag", narrow_bits(wbits)),
        ("Inexact", 1),
        ("Neg", 1),
        ("Huge", 1),
    ])
}

/// A lane between two of `tmu_addr`'s conversion clocks, lowest first: active, the
/// column's and the row's coordinate, `coord_w` bits each (the RTL's `ELane<Field>Lsb`
/// and `MLane<Field>Lsb`).
pub fn conv_lane_fields(coord_w: u32) -> Vec<Field> {
    pack(&[("Active", 1), ("S", coord_w), ("T", coord_w)])
}

/// The k terms of a quad's pass level that the exponent's sums take, per coordinate:
/// {150 - k, k - 150}, 11 bits each (the RTL's `k_terms`).
pub const K_TERMS_W: u32 = 22;

/// A word after `tmu_addr`'s level clock, lowest first: the head and the wraps as
/// [`conv_fields`] has them (so the exponent's word takes them whole), the quads' k terms
/// of the pass's level, s then t, and the lanes as the plan has them (the RTL's
/// `Lv<Field>Lsb`).
pub fn level_word_fields(lanes: u32, quads: u32) -> Vec<Field> {
    let mut f = pass_head(quads);
    f.extend([
        ("WrapS", WRAP_W),
        ("WrapT", WRAP_W),
        ("Ks", quads * 2 * K_TERMS_W),
        ("Lanes", lanes * width(&conv_lane_fields(32))),
    ]);
    pack(&f)
}

/// A word between `tmu_addr`'s clocks before the wraps, lowest first: pair, pass,
/// format, the quads' blends, the quads, the two wrap modes, the lanes of `lane_w` bits
/// (the RTL's `E<Field>Lsb`, `M<Field>Lsb` and `F<Field>Lsb`).
pub fn conv_fields(lanes: u32, quads: u32, lane_w: u32) -> Vec<Field> {
    let mut f = pass_head(quads);
    f.extend([
        ("WrapS", WRAP_W),
        ("WrapT", WRAP_W),
        ("Lanes", lanes * lane_w),
    ]);
    pack(&f)
}

/// A coordinate after `tmu_addr`'s sum stage, lowest first: the low NB bits of the sum
/// for the index (and the weight) and of the sum for the index + 1, before the sign's
/// select; the sign; whether clamp to edge saturates it low or high (the RTL's
/// `Sum<Field>Lsb`).
pub fn sum_fields(wbits: u32) -> Vec<Field> {
    pack(&[
        ("Sum", narrow_bits(wbits)),
        ("Sum1", narrow_bits(wbits)),
        ("Neg", 1),
        ("Lt", 1),
        ("Gt", 1),
    ])
}

/// A lane after `tmu_addr`'s conversion stage, lowest first: active, the weights a and b,
/// the texel column and row before wrapping, narrow: modulo 2^(CoordW + 2), or
/// saturated to -2..=2^CoordW under clamp to edge, then the same of the column + 1 and
/// the row + 1 (the RTL's `FLane<Field>Lsb`).
pub fn fixed_lane_fields(wbits: u32) -> Vec<Field> {
    pack(&[
        ("Active", 1),
        ("A", wbits),
        ("B", wbits),
        ("Is", COORD_W + 2),
        ("It", COORD_W + 2),
        ("Is1", COORD_W + 2),
        ("It1", COORD_W + 2),
    ])
}

/// The fields every word between `tmu_addr`'s stages starts with: pair, pass, format,
/// from the format in the first clock for the address stage log2 of the texels in a word
/// and whether it is DXT1, the quads' blends, the quads.
fn pass_head(quads: u32) -> Vec<(&'static str, u32)> {
    vec![
        ("Pair", 1),
        ("Pass", PASS_W),
        ("Format", format_w()),
        ("PerSh", 2),
        ("Dxt", 1),
        ("Blends", BLEND_W * quads),
        ("Quads", quads * width(&pass_quad_fields())),
    ]
}

/// What `tmu_addr` carries between its stages, lowest first: pair, pass, format, the
/// quads' blends, the quads, the lanes (the RTL's `C<Field>Lsb`).
pub fn coord_fields(lanes: u32, quads: u32, wbits: u32) -> Vec<Field> {
    let mut f = pass_head(quads);
    f.push(("Lanes", lanes * width(&coord_lane_fields(wbits))));
    pack(&f)
}

/// A lane of a pass as the filter reads it, lowest first: active, the weights a and b,
/// the four texels' indices in their words (the RTL's `SLane<Field>Lsb`).
pub fn pass_lane_fields(wbits: u32, sub_w: u32) -> Vec<Field> {
    pack(&[
        ("Active", 1),
        ("A", wbits),
        ("B", wbits),
        ("Subs", 4 * sub_w),
    ])
}

/// What a pass carries for the filter (the entry of `tmu`'s side FIFO), lowest first:
/// pair, pass, the quads' blends, format, the lanes (lane 0 lowest; the RTL's
/// `Side<Field>Lsb`).
pub fn side_fields(lanes: u32, quads: u32, wbits: u32, sub_w: u32) -> Vec<Field> {
    pack(&[
        ("Pair", 1),
        ("Pass", PASS_W),
        ("Blends", BLEND_W * quads),
        ("Format", format_w()),
        ("Lanes", lanes * width(&pass_lane_fields(wbits, sub_w))),
    ])
}

/// A pass between `tmu_addr`'s last two clocks, lowest first: each texel's index in its
/// level (texel k of lane i at 4i + k; a DXT1 block's first word), their active bits, the
/// side fields, each quad's level base, and log2 of the texels in a word (0 for DXT1); the
/// last clock shifts the indices to words and adds the bases (the RTL's `W<Field>Lsb`).
pub fn word_fields(lanes: u32, quads: u32, wbits: u32, sub_w: u32) -> Vec<Field> {
    pack(&[
        ("Words", 4 * lanes * WORD_ADDR_BITS),
        ("Active", 4 * lanes),
        ("Side", width(&side_fields(lanes, quads, wbits, sub_w))),
        ("Bases", quads * WORD_ADDR_BITS),
        ("Shift", 2),
    ])
}

/// A pass, from `tmu_addr` to `tmu`, lowest first: the texels' word addresses (texel k
/// of lane i at port 4i + k, port 0 lowest), their active bits, the side fields (the
/// RTL's `Pass<Field>Lsb`).
pub fn pass_fields(lanes: u32, quads: u32, wbits: u32, sub_w: u32) -> Vec<Field> {
    let ports = 4 * lanes;
    pack(&[
        ("Addrs", ports * WORD_ADDR_BITS),
        ("Active", ports),
        ("Side", width(&side_fields(lanes, quads, wbits, sub_w))),
    ])
}

#[derive(Template)]
#[template(path = "rtl/tmu_fixed.v")]
pub struct TmuFixed {
    pub name: String,
    pub stamp: String,
    pub kw: u32,
}

#[derive(Template)]
#[template(path = "rtl/tmu_lod.v")]
pub struct TmuLod {
    pub name: String,
    pub stamp: String,
    pub rst: Rst,
    pub skid: String,
    pub fixed: String,
    pub lanes: u32,
    pub quads: u32,
    pub plan_quad_w: u32,
    pub textures: u32,
    pub mip_levels: u32,
    pub max_log2: u32,
    pub tex_w: u32,
    pub reg_w: u32,
    pub req_w: u32,
    pub plan_w: u32,
    pub infl_w: u32,
    /// A register after the descriptor read (`desc_stage`).
    pub desc_stage: bool,
    /// A register after each selection stage (`LodPipe`), and the clocks they make.
    pub lod_regs: [bool; 6],
    pub lod_clocks: String,
    /// The same for the quads' stages (four lanes): the first three, the squarings' as a
    /// bit vector (`SqReg`, stage 4 in its lowest bit), and the clocks they make.
    pub lod_quad: [bool; 7],
    pub sq_stages: Vec<SqStage>,
    pub quad_clocks: String,
    pub target_mhz: String,
    /// Pipeline registers with credits and a queue before the output skid
    /// (`iface::tmu::lod_credits`), the queue's module and its credits.
    pub credits: bool,
    pub fifo: String,
    pub queue: CreditQueue,
    /// LOD hardware at all (more than one filter), and from the quad's differences.
    pub lod: bool,
    pub quad_lod: bool,
    /// Width of an explicit LOD between its two clocks (`lod_pre_fields`).
    pub lod_pre_w: u32,
    pub filter_mask: String,
    pub filter_fallback: u32,
    pub filter_fallback_name: &'static str,
    /// The codes the level choice compares with, as localparams
    /// (`FilterLinearMipmapNearest`), from `Filter::ALL`: every filter but NEAREST, which
    /// is the one no comparison names.
    pub filter_codes: Vec<(String, u32)>,
    pub filter_list: String,
    pub wrap_mask: String,
    pub wrap_fallback: u32,
    pub wrap_fallback_name: &'static str,
    pub wrap_list: String,
    /// A sample request's lane, the descriptor registers and the control fields the
    /// body reads: (localparam, value), from src/iface/tmu.rs.
    pub lane_w: u32,
    pub regs: Vec<(&'static str, u32)>,
    pub ctrl_w: u32,
    pub ctrl_fields: Vec<(String, u32)>,
    pub reg_desc: String,
    pub ctrl_desc: String,
    /// Widths of the packed words (see the field tables above) and, per quad, of a
    /// clamped difference, its square and rho^2.
    pub sample_w: u32,
    pub desc_w: u32,
    pub p0_w: u32,
    pub level_w: u32,
    pub diff_w: u32,
    pub delta_w: u32,
    pub sq_w: u32,
    pub rho2_w: u32,
    pub log_quad_w: u32,
    /// A quad's compares, the filter class and a quad's pick (`lod` only).
    pub cmp_w: u32,
    pub class_w: u32,
    pub pick_w: u32,
    /// The words' `<Word><Field>Lsb` localparams the body reads.
    pub lsbs: Vec<(String, u32)>,
    /// Named datapath widths (iface::tmu).
    pub widths: Vec<(&'static str, u32, &'static str)>,
}

/// One of `tmu_lod`'s four squaring stages (stages 4 to 7): its wires are `sq<i>_*`, its
/// input the previous one's (the normalisation's, `s3_*`, for the first).
pub struct SqStage {
    pub n: usize,
    pub name: String,
    pub prev: String,
    pub reg: bool,
    pub inst: String,
    pub in_valid: String,
    pub in_ready: String,
    pub in_data: String,
    pub out_valid: String,
    pub out_ready: String,
    pub out_data: String,
}

impl SqStage {
    fn new(i: usize, reg: bool) -> Self {
        let name = format!("sq{i}");
        let prev = if i == 0 {
            "s3".to_string()
        } else {
            format!("sq{}", i - 1)
        };
        Self {
            n: 4 + i,
            inst: format!("u_{name}"),
            in_valid: format!("{prev}_valid"),
            in_ready: format!("{prev}_ready"),
            in_data: format!("{{{name}_steps, {prev}_data[P0W-1:0]}}"),
            out_valid: format!("{name}_valid"),
            out_ready: format!("{name}_ready"),
            out_data: format!("{name}_data"),
            name,
            prev,
            reg,
        }
    }
}

/// Control fields that only the LOD hardware reads.
const LOD_CTRL_FIELDS: [&str; 3] = ["min_filter", "mag_linear", "last_level"];

#[derive(Template)]
#[template(path = "rtl/tmu_addr.v")]
pub struct TmuAddr {
    pub name: String,
    pub stamp: String,
    pub rst: Rst,
    pub skid: String,
    pub lanes: u32,
    pub quads: u32,
    pub plan_quad_w: u32,
    pub pass_quad_w: u32,
    /// `PlanQuad<Field>Lsb` and `PassQuad<Field>Lsb` from the tables.
    pub plan_quad_lsbs: Vec<(String, u32)>,
    pub pass_quad_lsbs: Vec<(String, u32)>,
    pub lane_w: u32,
    pub ports: u32,
    pub wbits: u32,
    pub sub_w: u32,
    pub plan_w: u32,
    pub out_w: u32,
    /// `1'b1` when DXT1 is enabled (its passes read two words a texel).
    pub dxt1: &'static str,
    pub clamp: bool,
    pub mirror: bool,
    pub tiled: bool,
    pub layout: &'static str,
    pub wrap_list: String,
    /// `Plan<Field>Lsb`, `Level<Field>Lsb`, `F<Field>Lsb`, `FLane<Field>Lsb`,
    /// `C<Field>Lsb`, `CLane<Field>Lsb` and `SLane<Field>Lsb` from the tables, and those
    /// words' widths.
    pub word_lsbs: Vec<(String, u32)>,
    pub level_w: u32,
    /// Widths of a coordinate's k terms, and of the level clock's lanes and word.
    pub k_terms_w: u32,
    pub lv_lane_w: u32,
    pub lv_w: u32,
    /// Widths of the conversion's first and second clocks' lanes and words and of a
    /// coordinate in each, and the narrow value's bits (`narrow_bits`).
    pub e_lane_w: u32,
    pub e_w: u32,
    pub pre_w: u32,
    /// The coarse shift's coordinate, lane and word (`coarse_fields`).
    pub coarse_w: u32,
    /// Its `Val` field's width: the mantissa's bits the coarse shift keeps.
    pub coarse_val_w: u32,
    pub h_lane_w: u32,
    pub h_w: u32,
    pub m_lane_w: u32,
    pub m_w: u32,
    pub mid_w: u32,
    /// A coordinate after the sum stage, a lane of them, and the word (`sum_fields`).
    pub sum_w: u32,
    pub u_lane_w: u32,
    pub u_w: u32,
    pub nb: u32,
    /// The magnitudes past which a coordinate's index leaves -2..=2^CoordW, nearest and
    /// linear: see `clamp_bounds`.
    pub lt_nearest: u64,
    pub lt_linear: u64,
    pub gt_nearest: u64,
    pub gt_linear: u64,
    pub f_lane_w: u32,
    pub f_w: u32,
    pub c_lane_w: u32,
    pub c1_w: u32,
    /// Width of the word between the last two clocks (`word_fields`).
    pub w_w: u32,
    pub s_lane_w: u32,
    /// Named datapath widths (iface::tmu), and the codes compared with.
    pub widths: Vec<(&'static str, u32, &'static str)>,
    pub codes: Vec<(String, String, String)>,
    pub clamp_code: String,
    pub mirror_code: String,
    /// The output word (a pass), its side fields and a side lane, as the header describes
    /// them; the side word's width.
    pub out_desc: String,
    pub side_desc: String,
    pub s_lane_desc: String,
    pub side_w: u32,
    /// The formats of one texel a word and of four (log2 texels a word 0 and 2).
    pub one_per_word: String,
    pub four_per_word: String,
    /// A skid register after the level, exponent, coarse shift, fine shift, sum, select,
    /// wrap and word stages (`AddrPipe`); the stages that share each clock, and the clock.
    pub reg_level: bool,
    pub reg_exp: bool,
    pub reg_shift: bool,
    pub reg_align: bool,
    pub reg_sum: bool,
    pub reg_fixed: bool,
    pub reg_coord: bool,
    pub reg_word: bool,
    pub addr_clocks: String,
    pub target_mhz: String,
    /// Pipeline registers with credits and a queue (`AddrPipe::credits`): the queue's
    /// module, the passes the credits let in (the queue holds one entry more, written
    /// every clock), the count's width and the count one short of the credits.
    pub credits: bool,
    pub fifo: String,
    pub queue: CreditQueue,
}

/// The queue at the end of a pipeline of registers that never stall, and its credits
/// (`hs_stage.v`'s `queue`): the items the credits let in, the queue's entries (one more,
/// so that it is written every clock), the count's width and the count one short of the
/// credits, as a literal.
#[derive(Debug, Clone, Default)]
pub struct CreditQueue {
    pub depth: u32,
    pub entries: u32,
    pub used_w: u32,
    pub last_free: String,
}

impl CreditQueue {
    pub fn new(depth: u32) -> Self {
        let used_w = 32 - depth.leading_zeros();
        Self {
            depth,
            entries: depth + 1,
            used_w,
            last_free: format!("{used_w}'d{}", depth.saturating_sub(1)),
        }
    }
}

#[derive(Template)]
#[template(path = "rtl/tmu.v")]
pub struct TmuTop {
    pub name: String,
    pub stamp: String,
    pub rst: Rst,
    pub cache_pad: String,
    pub lod: String,
    pub addr: String,
    pub cache: String,
    pub filter: String,
    pub fifo: String,
    pub skid: String,
    /// A skid register after the side FIFO's head (`iface::tmu::side_stage`).
    pub side_stage: bool,
    /// Registers on each side of the join (`iface::tmu::join_stage`): a skid on the
    /// cache's response, a bubble register before the filter, and the side entry's
    /// control copy of the pair flag (with DXT1).
    pub join_stage: bool,
    pub bubble: String,
    pub target_mhz: String,
    pub lanes: u32,
    pub quads: u32,
    pub wbits: u32,
    pub sub_w: u32,
    pub plan_w: u32,
    pub pass_w: u32,
    /// The side word's and a side lane's widths, and `Pass<Field>Lsb`, `Side<Field>Lsb`
    /// and `SLane<Field>Lsb` from the tables.
    pub side_w: u32,
    pub s_lane_w: u32,
    pub word_lsbs: Vec<(String, u32)>,
    pub req_w: u32,
    pub rsp_w: u32,
    pub bus_bits: u32,
    pub side_depth: u32,
    pub filter_tex_w: u32,
    pub filter_lane_w: u32,
    /// The filter request's width and its `FReq`, `FLane` and `FTex` field offsets, from
    /// iface::tex_filter's tables.
    pub filter_req_w: u32,
    pub filter_lsbs: Vec<(String, u32)>,
    /// Named datapath widths (iface::tmu).
    pub widths: Vec<(&'static str, u32, &'static str)>,
    /// A cache response's width and where its hit and miss counts start.
    pub crsp_w: u32,
    pub crsp_hits_lsb: u32,
    pub dxt1: bool,
    pub out_desc: &'static str,
}

fn names<T: Copy>(list: &[T], name: fn(T) -> &'static str) -> String {
    list.iter().map(|&x| name(x)).collect::<Vec<_>>().join(", ")
}

/// `8'b...` style mask of enabled codes, highest code first.
fn mask(width: usize, enabled: impl Fn(usize) -> bool) -> String {
    (0..width)
        .rev()
        .map(|i| if enabled(i) { '1' } else { '0' })
        .collect()
}

/// What the blocks of the unit share: layouts, widths and the filter fallback.
struct Geometry {
    layout: TmuLayout,
    fl: FilterLayout,
    quads: u32,
    plan_w: u32,
    pass_w: u32,
    ports: u32,
    fallback: Filter,
    lod: bool,
    wrap_list: String,
    skid: String,
    fixed: String,
    /// Registers on each side of the join (`iface::tmu::join_stage`), decided once.
    join_stage: bool,
}

impl Geometry {
    fn new(ctx: &Ctx, tmu: &Tmu) -> Self {
        let layout = TmuLayout::new(tmu);
        let fl = FilterLayout::new(tmu);
        let quads = tmu.quads();
        let plan_w = width(&plan_fields(tmu.lanes, quads));
        let pass_w = width(&pass_fields(tmu.lanes, quads, tmu.weight_bits, fl.sub_w));
        let ports = 4 * tmu.lanes;
        let (nearest, linear) = (
            tmu.filters.contains(&Filter::Nearest),
            tmu.filters.contains(&Filter::Linear),
        );
        let fallback = if nearest {
            Filter::Nearest
        } else {
            debug_assert!(linear, "validation keeps a magnification filter");
            Filter::Linear
        };
        let lod = has_lod(tmu);
        let wrap_list = names(&tmu.wraps, Wrap::name);
        let skid = ctx.module_name("hs_skid");
        let fixed = ctx.module_name("tmu_fixed");
        let join_stage = crate::iface::tmu::join_stage(&ctx.timing, tmu.lanes);

        Self {
            layout,
            fl,
            quads,
            plan_w,
            pass_w,
            ports,
            fallback,
            lod,
            wrap_list,
            skid,
            fixed,
            join_stage,
        }
    }
}

/// The whole unit, ready to elaborate.
pub struct TmuUnit<'a> {
    ctx: &'a Ctx,
    tmu: &'a Tmu,
}

impl<'a> TmuUnit<'a> {
    /// Scheduled for the design's clock (`ctx.timing`).
    pub fn new(ctx: &'a Ctx, tmu: &'a Tmu) -> Self {
        Self { ctx, tmu }
    }

    pub fn elaborate(&self) -> Result<(Unit, Vec<Module>), RenderError> {
        let (ctx, tmu) = (self.ctx, self.tmu);
        let g = Geometry::new(ctx, tmu);
        let fixed = g.fixed.clone();
        let layout = g.layout;

        let mut modules = Vec::new();
        let mut kinds = vec![StageKind::Skid, StageKind::Fifo { depth: 4 }];
        if g.join_stage {
            kinds.push(StageKind::Bubble);
        }
        for kind in kinds {
            if let Some(m) = module_for(ctx, kind, 32)? {
                modules.push(m);
            }
        }
        if FifoStorage::of(crate::iface::tmu::side_depth(tmu)) == FifoStorage::Ram {
            modules.push(ram_fifo_module(ctx)?);
        }
        let lod_block = self.lod_block(&g);
        let addr_block = self.addr_block(&g);
        // The 64-bit converter serves only the LOD's differences (four lanes or more);
        // tmu_addr converts in its own narrow shift and sum.
        let mut lod_uses = vec![g.skid.clone()];
        if lod_block.credits {
            lod_uses.push(lod_block.fifo.clone());
        }
        if lod_block.quad_lod {
            let fx = TmuFixed {
                name: fixed.clone(),
                stamp: ctx.stamp.clone(),
                kw: 5,
            };
            modules.push(Module {
                name: fx.name.clone(),
                kind: "tmu_fixed",
                parameters: BTreeMap::from([("KW".to_string(), 5)]),
                instantiates: Vec::new(),
                text: render(&fx.name, &fx)?,
            });
            lod_uses.push(fixed.clone());
        }
        for (m, kind, params, uses) in [
            (
                render(&lod_block.name, &lod_block)?,
                "tmu_lod",
                vec![("Textures", tmu.textures), ("MipLevels", tmu.mip_levels)],
                lod_uses,
            ),
            (
                render(&addr_block.name, &addr_block)?,
                "tmu_addr",
                vec![("WBits", tmu.weight_bits)],
                if addr_block.credits {
                    vec![addr_block.fifo.clone(), g.skid.clone()]
                } else {
                    vec![g.skid.clone()]
                },
            ),
        ] {
            modules.push(Module {
                name: ctx.module_name(kind),
                kind,
                parameters: params
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), u64::from(v)))
                    .collect(),
                instantiates: uses,
                text: m,
            });
        }
        let cache = TexCacheTop::new(ctx, &tmu.cache);
        let (_, cache_modules) = cache.elaborate()?;
        let filter = TexFilter::new(ctx, tmu);
        let (_, filter_modules) = filter.elaborate()?;
        for m in cache_modules.into_iter().chain(filter_modules) {
            if !modules.iter().any(|x| x.name == m.name) {
                modules.push(m);
            }
        }
        let top = self.top(
            &g,
            &lod_block.name,
            &addr_block.name,
            &cache.name,
            &filter.name,
        );
        let mut instantiates = vec![
            lod_block.name.clone(),
            addr_block.name.clone(),
            top.fifo.clone(),
            top.cache.clone(),
            top.filter.clone(),
        ];
        if top.side_stage || top.join_stage {
            instantiates.push(top.skid.clone());
        }
        if top.join_stage {
            instantiates.push(top.bubble.clone());
        }
        instantiates.sort();
        modules.push(Module {
            name: top.name.clone(),
            kind: "tmu",
            parameters: BTreeMap::from([("SideDepth".to_string(), u64::from(top.side_depth))]),
            instantiates,
            text: render(&top.name, &top)?,
        });
        let unit = Unit {
            name: "tmu",
            top: top.name.clone(),
            modules: modules.iter().map(|m| m.name.clone()).collect(),
            ports: layout.ports(),
            mem_ports: vec![MemPort {
                name: "mem".into(),
                addr_width: 32,
                data_width: tmu.cache.bus_bits,
                beats: tmu.cache.beats_per_line,
            }],
            // Filled in from the rendered hierarchy (rtl::stages) once the design is whole.
            stages: Vec::new(),
            probes: Vec::new(),
        };
        Ok((unit, modules))
    }

    /// The front: descriptors, LOD and level choice.
    fn lod_block(&self, g: &Geometry) -> TmuLod {
        let (ctx, tmu) = (self.ctx, self.tmu);
        let (layout, quads, plan_w, lod) = (g.layout, g.quads, g.plan_w, g.lod);
        let (skid, fixed, fallback, wrap_list) = (&g.skid, &g.fixed, g.fallback, &g.wrap_list);
        let quad_lod = crate::iface::tmu::quad_lod(tmu);
        let lod_pipe = LodPipe::new(&ctx.timing, tmu.textures, quad_lod);
        let lod_credits = crate::iface::tmu::lod_credits(&ctx.timing, tmu);
        // Only what the body reads: Verilator warns of an unused localparam.
        let lod_only = ["Lod", "HasLod", "Bias", "MinLod", "MaxLod"];
        let mut lsbs = lsb_params("Write", &layout.write_fields());
        lsbs.extend(lsb_params(
            "Sample",
            &layout
                .sample_fields()
                .into_iter()
                .filter(|f| f.name == "Tex" || (quad_lod && f.name == "Lanes"))
                .collect::<Vec<_>>(),
        ));
        lsbs.extend(lsb_params("Desc", &desc_fields()));
        lsbs.extend(lsb_params(
            "P0",
            &carry_fields(&layout)
                .into_iter()
                .filter(|f| lod || !lod_only.contains(&f.name))
                .collect::<Vec<_>>(),
        ));
        if quad_lod {
            lsbs.extend(lsb_params("Diff", &diff_fields()));
            lsbs.extend(lsb_params("LogQuad", &log_quad_fields()));
        }
        if g.lod {
            lsbs.extend(lsb_params("LodPre", &lod_pre_fields()));
            lsbs.extend(lsb_params("Cmp", &lod_cmp_fields()));
            lsbs.extend(lsb_params("Class", &lod_class_fields()));
            lsbs.extend(lsb_params("Pick", &lod_pick_fields()));
        }
        lsbs.extend(lsb_params("Plan", &plan_fields(tmu.lanes, quads)));
        lsbs.extend(lsb_params("PlanQuad", &plan_quad_fields()));
        lsbs.extend(lsb_params("Level", &level_fields()));
        TmuLod {
            name: ctx.module_name("tmu_lod"),
            stamp: ctx.stamp.clone(),
            rst: ctx.rst.clone(),
            skid: skid.clone(),
            fixed: fixed.clone(),
            lanes: tmu.lanes,
            quads,
            plan_quad_w: width(&plan_quad_fields()),
            textures: tmu.textures,
            mip_levels: tmu.mip_levels,
            max_log2: tmu.mip_levels - 1,
            tex_w: layout.tex_w,
            reg_w: layout.reg_w,
            req_w: layout.req_w,
            plan_w,
            // Samples in flight: two in each of at most ten skid registers.
            infl_w: 5,
            desc_stage: crate::iface::tmu::desc_stage(&ctx.timing, tmu.textures),
            lod_regs: lod_pipe.regs,
            lod_clocks: lod_pipe.describe(),
            lod_quad: lod_pipe.quad,
            sq_stages: (0..4)
                .map(|i| SqStage::new(i, lod_pipe.quad[3 + i]))
                .collect(),
            quad_clocks: lod_pipe.describe_quad(),
            target_mhz: format!("{}", ctx.timing.target_mhz),
            credits: lod_credits.is_some(),
            fifo: ctx.module_name("hs_fifo"),
            queue: CreditQueue::new(lod_credits.unwrap_or(0)),
            lod,
            quad_lod,
            lod_pre_w: width(&lod_pre_fields()),
            filter_mask: mask(8, |i| {
                Filter::ALL.get(i).is_some_and(|f| tmu.filters.contains(f))
            }),
            filter_fallback: fallback.code(),
            filter_fallback_name: fallback.name(),
            filter_codes: Filter::ALL
                .iter()
                .filter(|f| **f != Filter::Nearest)
                .map(|f| (upper_camel("Filter", f.name()), f.code()))
                .collect(),
            filter_list: names(&tmu.filters, Filter::name),
            wrap_mask: mask(4, |i| {
                Wrap::ALL.get(i).is_some_and(|w| tmu.wraps.contains(w))
            }),
            wrap_fallback: tmu.wraps[0].code(),
            wrap_fallback_name: tmu.wraps[0].name(),
            wrap_list: wrap_list.clone(),
            lane_w: LANE_W,
            regs: REGS.to_vec(),
            ctrl_w: ctrl_w(),
            ctrl_fields: CTRL_FIELDS
                .iter()
                .filter(|f| lod || !LOD_CTRL_FIELDS.contains(&f.0))
                .map(|f| (ctrl_lsb_name(f.0), f.1))
                .collect(),
            reg_desc: format!(
                "{} control, {} LOD bias, {} {{max_lod, min_lod}} (16-bit signed,\n//   8 \
             fraction bits), {} + level: the level's word address",
                REGS[0].1, REGS[1].1, REGS[2].1, REGS[3].1
            ),
            ctrl_desc: CTRL_FIELDS
                .chunks(4)
                .map(|c| {
                    c.iter()
                        .map(|(n, lsb, w)| match w {
                            1 => format!("{n}[{lsb}]"),
                            _ => format!("{n}[{}:{lsb}]", lsb + w - 1),
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .collect::<Vec<_>>()
                .join(",\n//   "),
            sample_w: width(&layout.sample_fields()),
            desc_w: width(&desc_fields()),
            p0_w: width(&carry_fields(&layout)),
            level_w: width(&level_fields()),
            diff_w: width(&diff_fields()),
            delta_w: DIFF_W,
            sq_w: 2 * DIFF_W,
            rho2_w: 2 * DIFF_W + 1,
            log_quad_w: width(&log_quad_fields()),
            cmp_w: width(&lod_cmp_fields()),
            class_w: width(&lod_class_fields()),
            pick_w: width(&lod_pick_fields()),
            lsbs,
            widths: widths(&["AddrW", "LgW", "WrapW", "FormatW", "BlendW"]),
        }
    }

    /// Texel address generation.
    fn addr_block(&self, g: &Geometry) -> TmuAddr {
        let (ctx, tmu) = (self.ctx, self.tmu);
        let (fl, quads, plan_w, pass_w, ports) = (&g.fl, g.quads, g.plan_w, g.pass_w, g.ports);
        let (skid, wrap_list) = (&g.skid, g.wrap_list.clone());
        let wbits = tmu.weight_bits;
        let coord = coord_fields(tmu.lanes, quads, wbits);
        let mut word_lsbs = lsb_params("Plan", &plan_fields(tmu.lanes, quads));
        word_lsbs.extend(lsb_params("Level", &level_fields()));
        let e_lane = conv_lane_fields(width(&pre_fields()));
        let m_lane = conv_lane_fields(width(&mid_fields(wbits)));
        let exp_word = conv_fields(tmu.lanes, quads, width(&e_lane));
        let lv_lane = conv_lane_fields(32);
        let lv_word = level_word_fields(tmu.lanes, quads);
        // The exponent's word takes the level word's head and wraps whole.
        assert_eq!(get(&lv_word, "Ks").lsb, get(&exp_word, "Lanes").lsb);
        let h_lane = conv_lane_fields(width(&coarse_fields(wbits)));
        let coarse_word = conv_fields(tmu.lanes, quads, width(&h_lane));
        let shift_word = conv_fields(tmu.lanes, quads, width(&m_lane));
        let u_lane = conv_lane_fields(width(&sum_fields(wbits)));
        let sum_word = conv_fields(tmu.lanes, quads, width(&u_lane));
        let fixed_word = conv_fields(tmu.lanes, quads, width(&fixed_lane_fields(wbits)));
        word_lsbs.extend(lsb_params("Lv", &lv_word));
        word_lsbs.extend(lsb_params("LvLane", &lv_lane));
        // The exponent's stage, and the shift's after it, pass the head on whole.
        word_lsbs.extend(
            lsb_params("E", &exp_word)
                .into_iter()
                .filter(|(n, _)| n == "ELanesLsb"),
        );
        word_lsbs.extend(lsb_params("ELane", &e_lane));
        word_lsbs.extend(lsb_params("Pre", &pre_fields()));
        // The shift's two halves pass the head on whole: they name only what they read.
        word_lsbs.extend(
            lsb_params("H", &coarse_word)
                .into_iter()
                .filter(|(n, _)| n == "HLanesLsb"),
        );
        word_lsbs.extend(lsb_params("HLane", &h_lane));
        word_lsbs.extend(lsb_params("Coarse", &coarse_fields(wbits)));
        word_lsbs.extend(
            lsb_params("M", &shift_word)
                .into_iter()
                .filter(|(n, _)| ["MQuadsLsb", "MLanesLsb"].contains(&n.as_str())),
        );
        word_lsbs.extend(lsb_params("MLane", &m_lane));
        word_lsbs.extend(lsb_params("Mid", &mid_fields(wbits)));
        // The sum stage passes the head on whole too.
        word_lsbs.extend(lsb_params("U", &sum_word).into_iter().filter(|(n, _)| {
            ["UQuadsLsb", "UWrapSLsb", "UWrapTLsb", "ULanesLsb"].contains(&n.as_str())
        }));
        word_lsbs.extend(lsb_params("ULane", &u_lane));
        word_lsbs.extend(lsb_params("Sum", &sum_fields(wbits)));
        word_lsbs.extend(lsb_params("F", &fixed_word));
        word_lsbs.extend(lsb_params("FLane", &fixed_lane_fields(wbits)));
        word_lsbs.extend(lsb_params("C", &coord));
        word_lsbs.extend(lsb_params("CLane", &coord_lane_fields(wbits)));
        word_lsbs.extend(lsb_params("SLane", &pass_lane_fields(wbits, fl.sub_w)));
        let side = side_fields(tmu.lanes, quads, wbits, fl.sub_w);
        word_lsbs.extend(lsb_params(
            "Pass",
            &pass_fields(tmu.lanes, quads, wbits, fl.sub_w),
        ));
        word_lsbs.extend(lsb_params("Side", &side));
        let word = word_fields(tmu.lanes, quads, wbits, fl.sub_w);
        word_lsbs.extend(lsb_params("W", &word));
        let pipe = AddrPipe::new(&ctx.timing, tmu);
        TmuAddr {
            name: ctx.module_name("tmu_addr"),
            stamp: ctx.stamp.clone(),
            rst: ctx.rst.clone(),
            skid: skid.clone(),
            lanes: tmu.lanes,
            quads,
            plan_quad_w: width(&plan_quad_fields()),
            pass_quad_w: width(&pass_quad_fields()),
            plan_quad_lsbs: lsb_params("PlanQuad", &plan_quad_fields()),
            pass_quad_lsbs: lsb_params("PassQuad", &pass_quad_fields()),
            lane_w: LANE_W,
            ports,
            wbits: tmu.weight_bits,
            sub_w: fl.sub_w,
            plan_w,
            out_w: pass_w,
            dxt1: if fl.dxt1 { "1'b1" } else { "1'b0" },
            clamp: tmu.wraps.contains(&Wrap::ClampToEdge),
            mirror: tmu.wraps.contains(&Wrap::MirroredRepeat),
            tiled: tmu.cache.layout == TexLayout::Tiled4x4,
            layout: match tmu.cache.layout {
                TexLayout::Tiled4x4 => "4x4 tiles, row-major, texels row-major in a tile",
                TexLayout::Linear => "row-major",
            },
            wrap_list,
            word_lsbs,
            level_w: width(&level_fields()),
            k_terms_w: K_TERMS_W,
            lv_lane_w: width(&lv_lane),
            lv_w: width(&lv_word),
            e_lane_w: width(&e_lane),
            e_w: width(&exp_word),
            pre_w: width(&pre_fields()),
            coarse_w: width(&coarse_fields(wbits)),
            coarse_val_w: get(&coarse_fields(wbits), "Val").width,
            h_lane_w: width(&h_lane),
            h_w: width(&coarse_word),
            m_lane_w: width(&m_lane),
            m_w: width(&shift_word),
            mid_w: width(&mid_fields(wbits)),
            sum_w: width(&sum_fields(wbits)),
            u_lane_w: width(&u_lane),
            u_w: width(&sum_word),
            nb: narrow_bits(wbits),
            lt_nearest: clamp_bounds(wbits, false).0,
            lt_linear: clamp_bounds(wbits, true).0,
            gt_nearest: clamp_bounds(wbits, false).1,
            gt_linear: clamp_bounds(wbits, true).1,
            f_lane_w: width(&fixed_lane_fields(wbits)),
            f_w: width(&fixed_word),
            c_lane_w: width(&coord_lane_fields(wbits)),
            c1_w: width(&coord),
            w_w: width(&word),
            s_lane_w: width(&pass_lane_fields(wbits, fl.sub_w)),
            widths: widths(&[
                "AddrW",
                "LgW",
                "CoordW",
                "WrapW",
                "FormatW",
                "BlendW",
                "PassCodeW",
            ]),
            codes: addr_codes(),
            clamp_code: format!("{WRAP_W}'d{}", Wrap::ClampToEdge.code()),
            mirror_code: format!("{WRAP_W}'d{}", Wrap::MirroredRepeat.code()),
            out_desc: describe(&pass_fields(tmu.lanes, quads, wbits, fl.sub_w)),
            side_desc: describe(&side),
            s_lane_desc: describe(&pass_lane_fields(wbits, fl.sub_w)),
            side_w: width(&side),
            one_per_word: formats_with_texels_per_word(1),
            four_per_word: formats_with_texels_per_word(4),
            reg_level: pipe.regs[0],
            reg_exp: pipe.regs[1],
            reg_shift: pipe.regs[2],
            reg_align: pipe.regs[3],
            reg_sum: pipe.regs[4],
            reg_fixed: pipe.regs[5],
            reg_coord: pipe.regs[6],
            reg_word: pipe.regs[7],
            addr_clocks: pipe.describe(),
            credits: pipe.credits(),
            fifo: ctx.module_name("hs_fifo"),
            queue: CreditQueue::new(pipe.queue_depth()),
            target_mhz: format!("{}", ctx.timing.target_mhz),
        }
    }

    /// The top module, joining the blocks, the cache and the filter.
    fn top(&self, g: &Geometry, lod: &str, addr: &str, cache: &str, filter: &str) -> TmuTop {
        let (ctx, tmu) = (self.ctx, self.tmu);
        let (layout, fl, quads, plan_w, pass_w) = (g.layout, &g.fl, g.quads, g.plan_w, g.pass_w);
        let wbits = tmu.weight_bits;
        let crsp = CacheLayout::new(&tmu.cache);
        let side = side_fields(tmu.lanes, quads, wbits, fl.sub_w);
        let s_lane = pass_lane_fields(wbits, fl.sub_w);
        let mut word_lsbs = lsb_params("Pass", &pass_fields(tmu.lanes, quads, wbits, fl.sub_w));
        word_lsbs.extend(lsb_params("Side", &side));
        word_lsbs.extend(lsb_params("SLane", &s_lane));
        TmuTop {
            name: ctx.module_name("tmu"),
            stamp: ctx.stamp.clone(),
            rst: ctx.rst.clone(),
            cache_pad: " ".repeat("mem_req_valid_o".len() - ctx.rst.port.len()),
            lod: lod.to_string(),
            addr: addr.to_string(),
            cache: cache.to_string(),
            filter: filter.to_string(),
            fifo: ctx.module_name(FifoStorage::of(crate::iface::tmu::side_depth(tmu)).block()),
            skid: g.skid.clone(),
            side_stage: crate::iface::tmu::side_stage(
                &ctx.timing,
                crate::iface::tmu::side_depth(tmu),
            ),
            join_stage: g.join_stage,
            bubble: ctx.module_name("hs_bubble"),
            target_mhz: format!("{}", ctx.timing.target_mhz),
            lanes: tmu.lanes,
            quads,
            wbits: tmu.weight_bits,
            sub_w: fl.sub_w,
            plan_w,
            pass_w,
            side_w: width(&side),
            s_lane_w: width(&s_lane),
            word_lsbs,
            req_w: layout.req_w,
            rsp_w: layout.rsp_w,
            bus_bits: tmu.cache.bus_bits,
            side_depth: crate::iface::tmu::side_depth(tmu),
            filter_tex_w: fl.tex_w,
            filter_lane_w: fl.lane_w,
            filter_req_w: fl.req_w,
            filter_lsbs: {
                let mut v = lsb_params("FReq", &fl.req_fields());
                v.extend(lsb_params("FLane", &fl.lane_fields()));
                v.extend(lsb_params("FTex", &fl.texel_fields()));
                v
            },
            widths: widths(&["AddrW", "WordW", "FormatW", "BlendW", "PassCodeW"]),
            crsp_w: crsp.rsp_w,
            crsp_hits_lsb: crsp.hits_lsb(),
            dxt1: fl.dxt1,
            out_desc: match tmu.output {
                TexOutput::Rgba8 => "RGBA8 (R lowest)",
                TexOutput::Fp32 => "four fp32 channels (R lowest)",
            },
        }
    }
}
