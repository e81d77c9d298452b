//! `ipu`: the image processing unit (seed 000), rendered from `[ipu]`: the command
//! decoder and control FSM, the parameter store and stack, and the main pipeline's
//! unpack (format conversion), scale and bias stages with a handshake register after
//! each; the stages after them (maps, filter, zoom, bitmap) and, with the framebuffer
//! paths, the packer. The lanes, enabled formats and field positions are decided here;
//! the templates spell them out. The command encoding and the codes the RTL shares with the model are in
//! `iface::ipu`; the model is `model::ipu`.

use std::collections::BTreeMap;

use askama::Template;

use super::handshake::{block_kind, module_for};
use super::{Ctx, Dir, Module, Probe, RenderError, Rst, StreamPort, Unit, render};
use crate::config::ipu::{CI8, FORMATS, STAGES};
use crate::config::{Ipu, StageKind};
use crate::iface::field::{lsb_params, pack};
pub use crate::iface::ipu::fsm_states;
use crate::iface::ipu::{
    Act, CMD_KERNEL_H, CMD_KERNEL_MASK, CMD_KERNEL_W, CMD_MOVE, CMD_XMOVE, CMD_YMOVE, EV_FILTER,
    EV_WIDTH, EVENT_MEANINGS, EVENTS, FB_REQ_WIDTH, FB_WIDTH, FILTER_INIT, Field, Pipe,
    RASTER_INIT, STATUS_WIDTH, TABLES, ZOOM_ACC_W, ZOOM_ONE, beat_fields, bias_sum_bits,
    bytes_per_pixel, command_docs, map_magic, pix_fields, pix_width, rtl_cmd_fields, tex_width,
    zoom_acc_w,
};

/// BITMAP's moves as `bmove_q` holds them (the command's `Move` field), lowest first: x,
/// y (the RTL's `Bmove<Field>Lsb`).
pub fn bmove_fields() -> Vec<Field> {
    [("X", CMD_XMOVE), ("Y", CMD_YMOVE)]
        .iter()
        .map(|&(name, f)| Field {
            name,
            lsb: f.lsb - CMD_MOVE.lsb,
            width: f.width,
        })
        .collect()
}

/// CONVOLUTION_FILTER's fields as `fsel_q` holds them, lowest first: the channel mask,
/// the kernel's width and height (the RTL's `Fsel<Field>Lsb`).
pub fn fsel_fields() -> Vec<Field> {
    pack(&[
        ("Mask", CMD_KERNEL_MASK.width),
        ("Kw", CMD_KERNEL_W.width),
        ("Kh", CMD_KERNEL_H.width),
    ])
}

fn clog2(x: u32) -> u32 {
    32 - (x.max(1) - 1).leading_zeros()
}

/// One enabled format: its code, localparam name and bytes-per-pixel log2.
pub struct FormatView {
    pub code: u32,
    pub name: String,
    pub bpp_log: u32,
}

fn formats(ipu: &Ipu) -> Vec<FormatView> {
    (0..FORMATS.len() as u32)
        .filter(|c| ipu.formats[*c as usize])
        .map(|c| FormatView {
            code: c,
            name: format!("FMT_{}", FORMATS[c as usize].to_uppercase()),
            bpp_log: bytes_per_pixel(c).trailing_zeros(),
        })
        .collect()
}

#[derive(Template)]
#[template(path = "rtl/ipu_convert.v")]
pub struct IpuConvert {
    pub name: String,
    pub stamp: String,
    pub raw_w: u32,
    pub formats: Vec<FormatView>,
}

#[derive(Template)]
#[template(path = "rtl/ipu_pack.v")]
pub struct IpuPack {
    pub name: String,
    pub stamp: String,
    pub rst: Rst,
    pub lanes: u32,
    pub multi: bool,
    pub beat_w: u32,
    /// Bits of the lanes' pixels: the beat's x, y and mask sit above them.
    pub meta: u32,
    pub formats: Vec<FormatView>,
    pub lane_list: Vec<u32>,
    /// The beat's packed bytes at 1, 2 and 4 bytes a pixel, pixel 0 lowest, zero above.
    pub bytes1: String,
    pub bytes2: String,
    pub bytes4: String,
    /// The beat's pixel count from its (contiguous) mask.
    pub count_expr: String,
    /// The top bit of the byte offset that indexes the beat's bytes (and a word more).
    pub off_hi: u32,
    /// Bytes of an output word, `dma_out`'s and `tex`'s (`dma_word_bits / 8`).
    pub wbytes: u32,
    /// Bits of the count of bytes held in the word being filled (0 .. wbytes - 1).
    pub nw: u32,
    /// The word's bytes from the top.
    pub word_bytes: Vec<WordByte>,
    /// An enabled format stores alpha; one is luminance.
    pub alpha: bool,
    pub lum: bool,
    /// The rounding in a register stage of its own (`Pipe::pack_narrow`): the channels
    /// the formats read are registered, and read as `<name><lane>_q` (`sfx`).
    pub narrow: bool,
    pub sfx: &'static str,
    /// The rounded channels the enabled formats read.
    pub rounds: Vec<Round>,
    /// The channels the formats read after the rounding's register, raw and rounded.
    pub staged: Vec<Staged>,
    /// rgba5551 is enabled: its alpha bit `a1_<lane>`.
    pub alpha1: bool,
    /// A format other than rgba5551 reads alpha's low seven bits.
    pub alpha_low: bool,
}

/// A channel rounded to `bits` bits: `<name><lane> = narrow<bits>(<ch><lane>)`.
pub struct Round {
    pub name: String,
    pub ch: &'static str,
    pub bits: u32,
}

/// A lane's signal `<name><lane>` of `bits` bits that the rounding's register holds.
pub struct Staged {
    pub name: String,
    pub bits: u32,
}

/// The packer's rounded channels (`rounds`) and what its formats read (`staged`), from
/// the enabled format codes: 0 rgba8888, 1 bgra8888, 2 rgb565, 3 rgba4444, 4 rgba5551,
/// 5 l8, 6 la88.
fn pack_channels(formats: &[bool; 8]) -> (Vec<Round>, Vec<Staged>) {
    let on = |c: usize| formats[c];
    let mut rounds = Vec::new();
    let mut round = |ch: &'static str, bits: u32| {
        rounds.push(Round {
            name: format!("{ch}{bits}_"),
            ch,
            bits,
        })
    };
    if on(3) {
        for ch in ["r", "g", "b", "a"] {
            round(ch, 4);
        }
    }
    if on(2) || on(4) {
        round("r", 5);
        round("b", 5);
    }
    if on(4) {
        round("g", 5);
    }
    if on(2) {
        round("g", 6);
    }
    let mut staged = Vec::new();
    if on(0) || on(1) {
        for ch in ["r", "g", "b"] {
            staged.push(Staged {
                name: ch.to_string(),
                bits: 8,
            });
        }
    }
    if on(0) || on(1) || on(6) {
        staged.push(Staged {
            name: "a".to_string(),
            bits: 8,
        });
    }
    if on(4) {
        staged.push(Staged {
            name: "a1_".to_string(),
            bits: 1,
        });
    }
    if on(5) || on(6) {
        staged.push(Staged {
            name: "lum".to_string(),
            bits: 8,
        });
    }
    staged.extend(rounds.iter().map(|r| Staged {
        name: r.name.clone(),
        bits: r.bits,
    }));
    (rounds, staged)
}

/// A byte of the packer's word: its index, and whether it is the lowest (always held
/// or the beat's) or may hold a byte kept from the beat before.
pub struct WordByte {
    pub k: u32,
    pub first: bool,
    pub held: bool,
}

/// The packer as the top sees it: its module, the pix side of the split at the pipeline's
/// end, and where the image that reaches it ends (the filtered image with the filter on):
/// x of its last pixel plus one, y of its last row.
pub struct FbView {
    pub module: String,
    pub pix: (&'static str, &'static str, &'static str),
    pub end_x: String,
    pub last_y: String,
    /// Bytes of its output word (`dma_out`'s and `tex`'s).
    pub wbytes: u32,
}

#[derive(Template)]
#[template(path = "rtl/ipu_scale.v")]
pub struct IpuScale {
    pub name: String,
    pub stamp: String,
    pub sw: u32,
    pub sf: u32,
    pub pw: u32,
}

#[derive(Template)]
#[template(path = "rtl/ipu_bias.v")]
pub struct IpuBias {
    pub name: String,
    pub stamp: String,
    pub pw: u32,
    pub bw: u32,
    pub sf: u32,
    pub bf: u32,
    pub f: u32,
    pub sumw: u32,
    /// Bits of a sum from the rounding point up (`sum_o`, `sum_i`).
    pub hiw: u32,
    pub p_shift: u32,
    pub b_shift: u32,
}

#[derive(Template)]
#[template(path = "rtl/ipu_zoom.v")]
pub struct IpuZoom {
    pub name: String,
    pub stamp: String,
    pub rst: Rst,
    pub line: u32,
    pub lanes: u32,
    pub multi: bool,
    pub beat_w: u32,
    /// Bits of the lanes' pixels: the beat's x, y and mask sit above them.
    pub meta: u32,
    pub acc_w: u32,
    /// The zoomed output beat: `cnt` lanes from (x_out, y_out) on.
    pub zoom_beat: String,
    /// With lanes > 1: the mask of the `cnt` lanes a beat fills.
    pub copies_mask: String,
    /// With lanes > 1: bits of a group's pixel count (0..=lanes) and of a lane index.
    pub cnt_w: u32,
    pub lane_w: u32,
    /// The input beat's pixel count from its contiguous mask.
    pub in_count_expr: String,
    /// The group's pixel ends 1..=lanes.
    pub ends: Vec<u32>,
    /// Each of the beat's columns (and banks of the line buffer).
    pub positions: Vec<ZoomPos>,
}

/// Column `p` of a zoomed beat: `sel`, which of the group's pixels covers it (the count of
/// the group's pixel ends at or before it), and `mirror`, the column lane `p` shows when
/// the factor is negative.
pub struct ZoomPos {
    pub p: u32,
    /// Its offset: `ox_q + p`.
    pub off: String,
    pub sel: String,
    pub mirror: String,
    /// Bank `p` may hold the column after `i_q`'s word (`p` below the last lane).
    pub carry: bool,
}

impl ZoomPos {
    fn all(lanes: u32) -> Vec<Self> {
        let lane_w = clog2(lanes);
        (0..lanes)
            .map(|p| {
                let terms: Vec<String> = (1..lanes)
                    .map(|j| {
                        let c = format!("(e_{j} <= off_{p})");
                        if lane_w > 1 {
                            format!("{{{}'d0, {c}}}", lane_w - 1)
                        } else {
                            c
                        }
                    })
                    .collect();
                ZoomPos {
                    p,
                    off: if p == 0 {
                        "ox_q".to_string()
                    } else {
                        format!("ox_q + {}'d{p}", ZOOM_ACC_W - 16)
                    },
                    sel: terms.join(" + "),
                    mirror: if p == 0 {
                        "cnt_m1".to_string()
                    } else {
                        format!("cnt_m1 - {lane_w}'d{p}")
                    },
                    carry: p + 1 < lanes,
                }
            })
            .collect()
    }
}

#[derive(Template)]
#[template(path = "rtl/ipu_map.v")]
pub struct IpuMap {
    pub name: String,
    pub stamp: String,
    pub rst: Rst,
    pub lanes: u32,
    pub multi: bool,
    pub size: u32,
    pub maps_bits: String,
    /// The colour-index maps (with the ci8 format), `A B G R` as Verilog binary digits.
    pub index: bool,
    pub imaps_bits: String,
    pub beat_w: u32,
    /// The divide by 255: multiplier, its width, and the shift.
    pub k: u64,
    pub k_bits: u32,
    pub shift: u32,
    /// The schedule's registers (iface::ipu::Pipe): the first product's operands, after
    /// the first product, after the second, and the read data's second register; the
    /// stages and where each loads.
    pub operands: bool,
    pub k_prod: u32,
    pub prod: bool,
    pub scaled: bool,
    pub rdata: bool,
    pub stages: u32,
    pub k_scaled: u32,
    pub k_read: u32,
    pub k_data: u32,
    pub stage_doc: String,
    /// The colour index's registers up to the read: (stage, what it loads).
    pub ci_hops: Vec<(u32, String)>,
    /// The index offset is added a register after the shift (`ci_in` is not used).
    pub ci_add_late: bool,
    /// Each stage's handshake, the last stage and `busy_o`'s expression.
    pub hs: Vec<MapHs>,
    pub last: u32,
    pub busy: String,
}

/// One map stage's handshake: its index, the ready behind it, the valid and the beat into
/// it.
pub struct MapHs {
    pub k: u32,
    pub behind: String,
    pub offer: String,
    pub src: String,
}

fn map_hs(stages: u32) -> Vec<MapHs> {
    (0..stages)
        .map(|k| MapHs {
            k,
            behind: if k + 1 == stages {
                "out_ready_i".into()
            } else {
                format!("ready{}", k + 1)
            },
            offer: if k == 0 {
                "in_valid_i".into()
            } else {
                format!("valid{}_q", k - 1)
            },
            src: if k == 0 {
                "in_data_i".into()
            } else {
                format!("beat{}_q", k - 1)
            },
        })
        .collect()
}

#[derive(Template)]
#[template(path = "rtl/ipu_conv.v")]
pub struct IpuConv {
    pub name: String,
    pub stamp: String,
    pub rst: Rst,
    pub k: u32,
    pub line: u32,
    pub ww: u32,
    pub acc_w: u32,
    pub lanes: u32,
    pub multi: bool,
    pub beat_w: u32,
    pub meta: u32,
    pub sub_w: u32,
    /// The filtered output beat: one pixel in lane 0 at (rx_q, ry_q), the row sums' pixel.
    pub conv_beat: String,
}

/// The convolution filter as the top sees it.
#[derive(Clone)]
pub struct ConvView {
    pub module: String,
    pub k: u32,
    pub line: u32,
    pub ww: u32,
    /// The draw-width check against the line buffers (kernels above 1x1).
    pub checks_width: bool,
}

/// A handshake link between two stages: valid, ready, data, and whether the top declares
/// its wires (not when it is the pix port or the bitmap merge's input).
#[derive(Clone)]
pub struct Link {
    pub valid: String,
    pub ready: String,
    pub data: String,
    pub declare: bool,
}

/// The pixel map stage as the top sees it.
#[derive(Clone)]
pub struct MapView {
    pub module: String,
    pub size: u32,
    pub addr_w: u32,
    /// Which maps exist, `A B G R` as Verilog binary digits.
    pub bits: String,
    /// Which colour-index maps exist, likewise, when the ci8 format is enabled.
    pub ibits: Option<String>,
}

/// A `pix` beat of one pixel in lane 0 at (x, y): `{mask = 1, y, x, zero lanes, pixel}`,
/// without the mask at one lane.
fn lane0_beat(lanes: u32, y: &str, x: &str, pixel: &str) -> String {
    if lanes > 1 {
        format!("{{{lanes}'d1, {y}, {x}, {}'d0, {pixel}}}", 32 * (lanes - 1))
    } else {
        format!("{{{y}, {x}, {pixel}}}")
    }
}

/// The zoom stage's output beat at `lanes` > 1: lane k carries its column's pixel
/// (`lane_k`) when the beat holds more than k columns (`cnt`), else zero; and that mask.
fn copies_beat(lanes: u32) -> (String, String) {
    if lanes == 1 {
        return (lane0_beat(1, "y_out", "x_out", "src_pix"), String::new());
    }
    let cnt_w = clog2(lanes) + 1;
    let mask: Vec<String> = (1..lanes)
        .rev()
        .map(|k| format!("(cnt > {cnt_w}'d{k})"))
        .chain(["1'b1".to_string()])
        .collect();
    let pixels: Vec<String> = (1..lanes)
        .rev()
        .map(|k| format!("(copies[{k}] ? lane_{k} : 32'd0)"))
        .chain(["lane_0".to_string()])
        .collect();
    (
        format!("{{copies, y_out, x_out, {}}}", pixels.join(", ")),
        format!("{{{}}}", mask.join(", ")),
    )
}

/// A handshake register of `kind` from `input` to `output` (whose wires it declares when
/// `output.declare`), its module added to `modules` once.
fn reg_view(
    ctx: &Ctx,
    modules: &mut Vec<Module>,
    stage: &'static str,
    kind: StageKind,
    width: u32,
    input: Link,
    output: Link,
) -> Result<RegView, RenderError> {
    if let Some(m) = module_for(ctx, kind, width)?
        && !modules.iter().any(|x| x.name == m.name)
    {
        modules.push(m);
    }
    Ok(RegView {
        stage,
        label: kind.label(),
        inst: format!("u_{stage}_reg"),
        module: block_kind(kind).map(|b| ctx.module_name(b)),
        depth: match kind {
            StageKind::Fifo { depth } => Some(depth),
            _ => None,
        },
        width,
        in_valid: input.valid,
        in_ready: input.ready,
        in_data: input.data,
        out_valid: output.valid,
        out_ready: output.ready,
        out_data: output.data,
        declare: output.declare,
    })
}

/// The parameter stack's entry as a concatenation of the `_q` or `_d` registers.
fn entry(suffix: &str, zoom: bool) -> String {
    let mut regs = vec!["scale", "bias"];
    if zoom {
        regs.extend(["zx", "zy"]);
    }
    let names: Vec<String> = regs.iter().map(|r| format!("{r}_{suffix}")).collect();
    format!("{{{}}}", names.join(", "))
}

/// A stage's handshake register and the signals around it.
pub struct RegView {
    pub stage: &'static str,
    pub label: String,
    pub inst: String,
    pub module: Option<String>,
    pub depth: Option<u32>,
    pub width: u32,
    pub in_valid: String,
    pub in_ready: String,
    pub in_data: String,
    pub out_valid: String,
    pub out_ready: String,
    pub out_data: String,
    /// The output wires are the register's own (not the pix port).
    pub declare: bool,
}

/// One lane's bit positions.
pub struct LaneView {
    pub i: u32,
    /// `[hi:lo]` of the lane's 32-bit pixel in the unpack and bias data.
    pub px: String,
    /// `[hi:lo]` of the lane's raw pixel (`raw_w` bits) in the fetch data, and of the
    /// bits above it up to 32 (empty when `raw_w` is 32).
    pub raw_px: String,
    pub pad_px: Option<String>,
    /// `[hi:lo]` of the lane's products in the scale data.
    pub prod: String,
    /// `[hi:lo]` of the lane's bias sums (their bits from the rounding point up) in the
    /// sum data (`Pipe::bias_sum`).
    pub sum: String,
    /// Byte step of this lane from the group's first pixel, for 1, 2 and 4 bytes a pixel.
    pub step1: u32,
    pub step2: u32,
    pub step4: u32,
    /// The step when it is the same at every pixel size (lane 0's, or a lane whose steps
    /// wrap to one byte): no case on the size.
    pub step_any: Option<u32>,
}

/// The decoder's header: what it holds and does in this config, and its states.
fn ctrl_summary(ipu: &Ipu, name: &str, top: &str) -> String {
    let mut held = vec!["scale and bias"];
    if ipu.zoom.is_some() {
        held.push("the zoom factors");
    }
    if ipu.pixel_map.is_some() {
        held.push("the maps' sizes and MAP_COLOR");
    }
    if ipu.formats[CI8] {
        held.push("INDEX_SHIFT and INDEX_OFFSET");
    }
    if ipu.bitmap {
        held.push("the raster colour and position");
    }
    if ipu.convolution.is_some() {
        held.push("the filter's size and CONVOLUTION_2D");
    }
    let mut writes = Vec::new();
    if ipu.pixel_map.is_some() {
        writes.push("the maps' tables an entry a clock");
    }
    if ipu.convolution.is_some() {
        writes.push("the filter's weights a word a clock");
    }
    let states: Vec<&str> = fsm_states(ipu).iter().map(|(_, n)| *n).collect();
    format!(
        "{name}: the command decoder and control FSM of the image processing unit ({top}): \
         takes the commands on cmd and passes every other word on pass, holds the \
         parameters the commands set ({}) and the parameter stack of StackDepth entries, \
         sends the status events, requests a draw's DMA words (dma_req){}, and steps the \
         unpack stage's position (col_o, row_o, byte_o) by the groups it issues{}. States: \
         {}. A parameter changes only once drained_i says the pipeline holds no pixel that \
         needs the old value.",
        held.join(", "),
        if ipu.framebuffer {
            " or a framebuffer region (fb_req)"
        } else {
            ""
        },
        if writes.is_empty() {
            String::new()
        } else {
            format!("; it writes {}", writes.join(" and "))
        },
        states.join(", "),
    )
}

/// The command decoder and control FSM (`ipu_ctrl`): the commands, the parameters they
/// set and their stack, the status events, the requests and the unpack stage's position.
#[derive(Template)]
#[template(path = "rtl/ipu_ctrl.v")]
pub struct IpuCtrl {
    pub name: String,
    pub stamp: String,
    pub rst: Rst,
    /// The IPU top that instantiates it.
    pub top: String,
    /// The header's first paragraph (what it holds and does, its states), wrapped.
    pub summary: Vec<String>,
    /// The DMA word's bytes, and bits of a byte index into it.
    pub wb: u32,
    pub byte_w: u32,
    pub formats: Vec<FormatView>,
    pub sw: u32,
    pub bw: u32,
    /// Expressions: the command value shifted to the scale's and the bias's fraction.
    pub scale_shift: String,
    pub bias_shift: String,
    pub scale_one: String,
    pub depth: u32,
    pub status_w: u32,
    /// `value_q`'s width: what the commands that keep it read (32 with the raster colour
    /// or the index arithmetic, 24 with zoom's factor alone); none when only PIXEL_TRANSFER
    /// has a value, whose saturation loads from the command word itself.
    pub value_w: Option<u32>,
    /// The zoom stage's line buffer width, when enabled.
    pub zoom: Option<u32>,
    pub map: Option<MapView>,
    pub conv: Option<ConvView>,
    /// A draw-width check exists (zoom's or the filter's line buffers): ACT_WIDTH.
    pub line_check: bool,
    pub bitmap: bool,
    /// The framebuffer paths.
    pub fb: bool,
    /// The ci8 format: colour-index draws, INDEX_TRANSFER and the I_TO_* maps.
    pub ci: bool,
    /// What waits for the pipeline to drain before taking its size word, if anything.
    pub draw_waits: Option<&'static str>,
    pub waits_cond: String,
    /// The commands whose second word is a value (RECEIVE_1 then SEND_ONE_IDLE).
    pub value_acts: String,
    /// The reset values of the zoom factors and the raster colour (GL's initial state) as
    /// hex digits; the convolution filter's size at reset (iface::ipu::FILTER_INIT).
    pub zoom_one: String,
    pub raster_init: String,
    pub filter_init: u32,
    /// A stack entry: its width, and its fields as `_q` and `_d` concatenations.
    pub stack_w: u32,
    pub stack_entry_q: String,
    pub stack_entry_d: String,
    /// The contract's code tables (states, opcodes, actions, events) as localparams.
    pub tables: Vec<LocalTable>,
    /// The command-word fields' offsets it slices `cmd_data_i` with, as localparams.
    pub cmd_params: Vec<String>,
    /// The offsets of the command fields held in registers (`bmove_q`, `fsel_q`).
    pub reg_params: Vec<String>,
}

#[derive(Template)]
#[template(path = "rtl/ipu.v")]
pub struct IpuTop {
    /// The DMA input word: bits, bytes, and bits of a byte index into it.
    pub dma_w: u32,
    pub wb: u32,
    pub byte_w: u32,
    pub name: String,
    pub stamp: String,
    pub rst: Rst,
    pub convert: String,
    pub scale_mod: String,
    pub bias_mod: String,
    pub lanes: u32,
    pub lanes_v: u32,
    pub multi: bool,
    pub format_list: String,
    pub raw_w: u32,
    pub sw: u32,
    pub sf: u32,
    pub sint: u32,
    pub bw: u32,
    pub bf: u32,
    pub bint: u32,
    pub pw: u32,
    pub depth: u32,
    pub cnt_w: u32,
    pub capacity: u32,
    pub regs: Vec<RegView>,
    pub lanes_v_list: Vec<LaneView>,
    /// Widths and field positions of the three stages' data.
    pub d1_w: u32,
    pub d2_w: u32,
    pub pix_w: u32,
    pub px_w: u32,
    pub prod_w: u32,
    pub meta1: u32,
    pub meta2: u32,
    pub status_w: u32,
    pub reg_labels: String,
    /// The decoder's module, and the spaces that align its reset's connection.
    pub ctrl: String,
    pub ctrl_pad: String,
    /// The zoom stage's module and line buffer width, when enabled.
    pub zoom: Option<(String, u32)>,
    pub map: Option<MapView>,
    /// The bias register's output, and the input and output of the stages after it.
    pub bias_out: Link,
    pub map_io: Option<(Link, Link)>,
    pub conv_io: Option<(Link, Link)>,
    pub zoom_io: Option<(Link, Link)>,
    /// Skid or FIFO registers behind the map's and zoom's own output registers, and the
    /// wires that say they hold pixels.
    pub map_reg: Option<RegView>,
    pub zoom_reg: Option<RegView>,
    pub reg_busy: Vec<String>,
    /// The FSM waits on `drained` from a flop (`Pipe::drained_reg`).
    pub drained_reg: bool,
    /// The scale's multipliers take a plain copy of the scale (`Pipe::mul_operands`).
    pub mul_operands: bool,
    /// The fetch register before the converter (`Pipe::unpack_fetch`): the unpack data's
    /// layout with raw pixels, and the format (and the framebuffer flag) above it.
    pub fetch: Option<RegView>,
    pub fetch_w: u32,
    /// The bias's sum register (`Pipe::bias_sum`): each lane's four sums from the
    /// rounding point up (`sum_hi_w` bits each), the scale data's {mask, y, x} above them
    /// from `sum_x_lsb`.
    pub sum_reg: Option<RegView>,
    pub sum_hi_w: u32,
    pub sum_x_lsb: u32,
    /// The zoom stage's image width and height (the filtered image's with the filter).
    pub zoom_size: (String, String),
    pub conv: Option<ConvView>,
    /// The bitmap module, and the pipeline's last output (the pix port, or the merge
    /// with the bitmap's fragments before it).
    pub bitmap: bool,
    pub last: (&'static str, &'static str, &'static str),
    pub bm_beat: String,
    /// The enabled status events, `value meaning` each, wrapped for the header; the
    /// width and filter events' values; zoom factor 1.0 as hex digits (the packer's
    /// pixels are not zoomed).
    pub status_lines: Vec<String>,
    pub ev_width: u32,
    pub ev_filter: u32,
    pub zoom_one: String,
    /// The framebuffer paths and their packer, when enabled.
    pub fb: Option<FbView>,
    /// The framebuffer paths are on and their word (4 pixels, one "byte" each) is not
    /// the DMA word's byte count: the unpack stage's word size depends on `fb_act`.
    pub fb_word_differs: bool,
    /// The ci8 format: colour-index draws, INDEX_TRANSFER and the I_TO_* maps.
    pub ci: bool,
    /// The stage data's widths and the field positions the top slices, as localparams.
    pub beat_params: Vec<String>,
    /// The header's list of the config's commands, wrapped.
    pub command_lines: Vec<String>,
}

/// The stage data's layouts as the top names them: unpack's (RGBA8 items, a mask even at
/// one lane), scale's (four products an item) and a pix beat's, with `W` the width.
pub fn beat_layouts(ipu: &Ipu, prod_w: u32) -> [(&'static str, Vec<Field>); 3] {
    let l = ipu.lanes;
    [
        ("Unpack", beat_fields(l, 32, true)),
        ("Scale", beat_fields(l, prod_w, true)),
        ("Pix", pix_fields(ipu)),
    ]
}

/// The localparams of the fields the top slices (an unused localparam is a lint warning):
/// each layout's width and x, and scale's mask.
fn beat_params(ipu: &Ipu, prod_w: u32) -> Vec<String> {
    let mut lines = Vec::new();
    for (stem, fields) in beat_layouts(ipu, prod_w) {
        let w: u32 = fields.iter().map(|f| f.width).sum();
        lines.push(format!("localparam integer {stem}W = {w};"));
        for f in &fields {
            if f.name == "X" || (stem == "Scale" && f.name == "Mask") {
                lines.push(format!(
                    "localparam integer {stem}{}Lsb = {};",
                    f.name, f.lsb
                ));
            }
        }
    }
    lines
}

/// `text` in lines of at most `width` characters, broken at spaces.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match lines.last_mut() {
            Some(l) if l.len() + 1 + word.len() <= width => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// A table of `iface::ipu` as the top declares it: its comment and localparam lines.
pub struct LocalTable {
    pub doc: &'static str,
    pub lines: Vec<String>,
}

/// The codes of `TABLES` the config generates, one `localparam` each; tables with no
/// enabled code are left out.
pub fn local_tables(ipu: &Ipu) -> Vec<LocalTable> {
    TABLES
        .iter()
        .map(|t| {
            let codes = t.enabled(ipu);
            let pad = codes.iter().map(|c| c.name.len()).max().unwrap_or(0);
            LocalTable {
                doc: t.doc,
                lines: codes
                    .iter()
                    .map(|c| {
                        let w = t.width;
                        let v = if t.hex {
                            format!("{w}'h{:02X}", c.value)
                        } else {
                            format!("{w}'d{}", c.value)
                        };
                        format!("localparam [{}:0] {:<pad$} = {v};", w - 1, c.name)
                    })
                    .collect(),
            }
        })
        .filter(|t| !t.lines.is_empty())
        .collect()
}

/// The widths the top and its stages share, derived once from the config.
#[derive(Clone, Copy)]
struct Shape {
    l: u32,
    sw: u32,
    sf: u32,
    bw: u32,
    bf: u32,
    /// A channel's product with its scale.
    pw: u32,
    /// The widest enabled format's raw pixel.
    raw_w: u32,
    px_w: u32,
    prod_w: u32,
    /// Bits of the lanes' pixels (products): the beat's x, y and mask sit above them.
    meta1: u32,
    meta2: u32,
    /// Stage data: unpack and bias's, scale's, and a pix beat's.
    d1_w: u32,
    d2_w: u32,
    pix_w: u32,
    /// The DMA word's bytes, and bits of a byte index into it.
    wb: u32,
    byte_w: u32,
}

/// The links after bias (see `IpuUnit::links`).
struct Links {
    bias_out: Link,
    map_io: Option<(Link, Link)>,
    conv_io: Option<(Link, Link)>,
    zoom_io: Option<(Link, Link)>,
    map_reg: Option<RegView>,
    zoom_reg: Option<RegView>,
    reg_busy: Vec<String>,
}

pub struct IpuUnit<'a> {
    ctx: &'a Ctx,
    ipu: &'a Ipu,
    /// The depths the clock asks for.
    pipe: Pipe,
}

/// The map stage's registers in order, for its header.
fn map_stage_doc(pipe: &Pipe) -> String {
    let mut s = Vec::new();
    if pipe.mul_operands {
        s.push("the operands c and size - 1");
    }
    if pipe.map_prod {
        s.push("c * (size - 1)");
    }
    if pipe.map_scaled {
        s.push("p * MulK");
    }
    s.push("the tables' read");
    if pipe.map_rdata {
        s.push("the read data");
    }
    s.join(", ")
}

impl<'a> IpuUnit<'a> {
    pub fn new(ctx: &'a Ctx, ipu: &'a Ipu, pipe: Pipe) -> Self {
        Self { ctx, ipu, pipe }
    }

    /// The widths the top and its stages share.
    fn shape(&self) -> Shape {
        let ipu = self.ipu;
        let l = ipu.lanes;
        let (sw, bw) = (ipu.scale.width(), ipu.bias.width());
        let pw = sw + 9;
        let fmts = formats(ipu);
        let raw_w = 8 * fmts.iter().map(|v| 1u32 << v.bpp_log).max().unwrap_or(1);
        // Stage data: {mask[lanes], y, x, lanes x pixel} (unpack, bias) and
        // {mask, y, x, lanes x 4 products} (scale). The pix port drops the mask at 1 lane.
        let px_w = 32;
        let prod_w = 4 * pw;
        let meta1 = l * px_w;
        let meta2 = l * prod_w;
        // The DMA word: its bytes and the width of a byte index into it.
        let wb = ipu.dma_word_bits / 8;
        Shape {
            l,
            sw,
            sf: ipu.scale.frac,
            bw,
            bf: ipu.bias.frac,
            pw,
            raw_w,
            px_w,
            prod_w,
            meta1,
            meta2,
            d1_w: meta1 + 32 + l,
            d2_w: meta2 + 32 + l,
            pix_w: pix_width(ipu),
            wb,
            byte_w: clog2(wb),
        }
    }

    /// Stages (1) to (3)'s own modules: the format converter, scale and bias; their names.
    fn pixel_modules(
        &self,
        modules: &mut Vec<Module>,
    ) -> Result<(String, String, String), RenderError> {
        let Shape {
            sw,
            sf,
            bw,
            bf,
            pw,
            raw_w,
            ..
        } = self.shape();
        let (ctx, ipu) = (self.ctx, self.ipu);
        let stamp = &ctx.stamp;
        let (sumw, f) = bias_sum_bits(ipu);
        let convert = ctx.module_name("ipu_convert");
        modules.push(Module {
            name: convert.clone(),
            kind: "ipu_convert",
            parameters: BTreeMap::from([("RawWidth".to_string(), u64::from(raw_w))]),
            instantiates: Vec::new(),
            text: render(
                &convert,
                &IpuConvert {
                    name: convert.clone(),
                    stamp: stamp.clone(),
                    raw_w,
                    formats: formats(ipu),
                },
            )?,
        });
        let scale_mod = ctx.module_name("ipu_scale");
        modules.push(Module {
            name: scale_mod.clone(),
            kind: "ipu_scale",
            parameters: BTreeMap::from([("ScaleWidth".to_string(), u64::from(sw))]),
            instantiates: Vec::new(),
            text: render(
                &scale_mod,
                &IpuScale {
                    name: scale_mod.clone(),
                    stamp: stamp.clone(),
                    sw,
                    sf,
                    pw,
                },
            )?,
        });
        let bias_mod = ctx.module_name("ipu_bias");
        modules.push(Module {
            name: bias_mod.clone(),
            kind: "ipu_bias",
            parameters: BTreeMap::from([
                ("ScaleFrac".to_string(), u64::from(sf)),
                ("BiasWidth".to_string(), u64::from(bw)),
                ("BiasFrac".to_string(), u64::from(bf)),
                ("ProdWidth".to_string(), u64::from(pw)),
            ]),
            instantiates: Vec::new(),
            text: render(
                &bias_mod,
                &IpuBias {
                    name: bias_mod.clone(),
                    stamp: stamp.clone(),
                    pw,
                    bw,
                    sf,
                    bf,
                    f,
                    sumw,
                    hiw: sumw - f,
                    p_shift: f - sf,
                    b_shift: f - bf,
                },
            )?,
        });
        Ok((convert, scale_mod, bias_mod))
    }

    /// The handshake registers after unpack, scale and bias; the last drives `last` when
    /// no stage follows bias.
    fn stage_regs(
        &self,
        modules: &mut Vec<Module>,
        last: (&'static str, &'static str, &'static str),
    ) -> Result<Vec<RegView>, RenderError> {
        let Shape {
            d1_w, d2_w, pix_w, ..
        } = self.shape();
        let (ctx, ipu) = (self.ctx, self.ipu);
        let mut regs = Vec::new();
        let widths = [d1_w, d2_w, pix_w];
        for (i, kind) in ipu.registers.iter().enumerate() {
            let stage = STAGES[i];
            let (in_valid, in_ready) = match i {
                0 if self.pipe.unpack_fetch => {
                    ("fetch_valid".to_string(), "fetch_ready".to_string())
                }
                0 => ("unpack_in_valid".to_string(), "unpack_in_ready".to_string()),
                2 if self.pipe.bias_sum => ("sum_valid".to_string(), "sum_ready".to_string()),
                _ => (
                    format!("{}_valid", STAGES[i - 1]),
                    format!("{}_ready", STAGES[i - 1]),
                ),
            };
            let (out_valid, out_ready, out_data) = if i == STAGES.len() - 1
                && ipu.zoom.is_none()
                && ipu.pixel_map.is_none()
                && ipu.convolution.is_none()
            {
                (last.0.into(), last.1.into(), last.2.into())
            } else {
                (
                    format!("{stage}_valid"),
                    format!("{stage}_ready"),
                    format!("{stage}_data"),
                )
            };
            let declare = out_valid != last.0;
            let input = Link {
                valid: in_valid,
                ready: in_ready,
                data: format!("{stage}_in_data"),
                declare: false,
            };
            let output = Link {
                valid: out_valid,
                ready: out_ready,
                data: out_data,
                declare,
            };
            regs.push(reg_view(
                ctx, modules, stage, *kind, widths[i], input, output,
            )?);
        }
        Ok(regs)
    }

    /// Stage (4), zoom: its module; its name and line buffer width.
    fn zoom_stage(&self, modules: &mut Vec<Module>) -> Result<Option<(String, u32)>, RenderError> {
        let Shape {
            l, pix_w, meta1, ..
        } = self.shape();
        let (ctx, ipu) = (self.ctx, self.ipu);
        let stamp = &ctx.stamp;
        Ok(match ipu.zoom {
            Some(line) => {
                let zname = ctx.module_name("ipu_zoom");
                let (zoom_beat, copies_mask) = copies_beat(l);
                modules.push(Module {
                    name: zname.clone(),
                    kind: "ipu_zoom",
                    parameters: BTreeMap::from([("MaxLine".to_string(), u64::from(line))]),
                    instantiates: Vec::new(),
                    text: render(
                        &zname,
                        &IpuZoom {
                            name: zname.clone(),
                            stamp: stamp.clone(),
                            rst: ctx.rst.clone(),
                            line,
                            lanes: l,
                            multi: l > 1,
                            beat_w: pix_w,
                            meta: meta1,
                            acc_w: zoom_acc_w(l),
                            zoom_beat,
                            copies_mask,
                            cnt_w: clog2(l) + 1,
                            lane_w: clog2(l),
                            in_count_expr: (0..l)
                                .map(|i| format!("{{{}'d0, in_mask[{i}]}}", clog2(l)))
                                .collect::<Vec<_>>()
                                .join(" + "),
                            ends: (1..=l).collect(),
                            positions: if l > 1 { ZoomPos::all(l) } else { Vec::new() },
                        },
                    )?,
                });
                Some((zname, line))
            }
            None => None,
        })
    }

    /// Stage (5), the pixel maps: its module, and the top's view of it.
    fn map_stage(&self, modules: &mut Vec<Module>) -> Result<Option<MapView>, RenderError> {
        let Shape { l, pix_w, .. } = self.shape();
        let (ctx, ipu) = (self.ctx, self.ipu);
        let stamp = &ctx.stamp;
        Ok(match ipu.pixel_map {
            Some(pm) => {
                let mname = ctx.module_name("ipu_map");
                let (k, shift) = map_magic(pm.size);
                let pipe = self.pipe;
                let k_read = pipe.map_k_read();
                let digits = |on: [bool; 4]| -> String {
                    on.iter()
                        .rev()
                        .map(|m| if *m { '1' } else { '0' })
                        .collect()
                };
                let bits = digits(pm.maps);
                let ibits = ipu.formats[CI8].then(|| digits(pm.index_maps));
                modules.push(Module {
                    name: mname.clone(),
                    kind: "ipu_map",
                    parameters: BTreeMap::from([
                        ("Lanes".to_string(), u64::from(l)),
                        ("TableSize".to_string(), u64::from(pm.size)),
                        ("BeatWidth".to_string(), u64::from(pix_w)),
                    ]),
                    instantiates: Vec::new(),
                    text: render(
                        &mname,
                        &IpuMap {
                            name: mname.clone(),
                            stamp: stamp.clone(),
                            rst: ctx.rst.clone(),
                            lanes: l,
                            multi: l > 1,
                            size: pm.size,
                            maps_bits: bits.clone(),
                            index: ibits.is_some(),
                            imaps_bits: ibits.clone().unwrap_or_default(),
                            beat_w: pix_w,
                            k,
                            k_bits: 64 - k.leading_zeros(),
                            shift,
                            operands: pipe.mul_operands,
                            k_prod: u32::from(pipe.mul_operands),
                            prod: pipe.map_prod,
                            scaled: pipe.map_scaled,
                            rdata: pipe.map_rdata,
                            stages: pipe.map_stages(),
                            k_scaled: k_read - u32::from(pipe.map_scaled),
                            k_read,
                            k_data: k_read + 1,
                            stage_doc: map_stage_doc(&pipe),
                            // With two registers or more before the read, the
                            // offset is added after the first (the shift before it).
                            ci_add_late: k_read >= 2,
                            ci_hops: (0..k_read)
                                .map(|j| {
                                    let src = match j {
                                        0 if k_read >= 2 => "ci_sh[AddrW-1:0]".to_string(),
                                        0 => "ci_in".to_string(),
                                        1 => "ci0_q + ioff_i".to_string(),
                                        _ => format!("ci{}_q", j - 1),
                                    };
                                    (j, src)
                                })
                                .collect(),
                            hs: map_hs(pipe.map_stages()),
                            last: pipe.map_stages() - 1,
                            busy: (0..pipe.map_stages())
                                .map(|k| format!("valid{k}_q"))
                                .collect::<Vec<_>>()
                                .join(" | "),
                        },
                    )?,
                });
                Some(MapView {
                    module: mname,
                    size: pm.size,
                    addr_w: clog2(pm.size).max(1),
                    bits,
                    ibits,
                })
            }
            None => None,
        })
    }

    /// The convolution filter: its module, and the top's view of it.
    fn conv_stage(&self, modules: &mut Vec<Module>) -> Result<Option<ConvView>, RenderError> {
        let Shape {
            l, pix_w, meta1, ..
        } = self.shape();
        let (ctx, ipu) = (self.ctx, self.ipu);
        let stamp = &ctx.stamp;
        Ok(match ipu.convolution {
            Some(c) => {
                let cname = ctx.module_name("ipu_conv");
                let ww = c.weight.width();
                modules.push(Module {
                    name: cname.clone(),
                    kind: "ipu_conv",
                    parameters: [("Kernel", c.size), ("MaxLine", c.line), ("WeightWidth", ww)]
                        .into_iter()
                        // A 1x1 filter has no line buffer.
                        .filter(|(n, _)| c.size > 1 || *n != "MaxLine")
                        .map(|(n, v)| (n.to_string(), u64::from(v)))
                        .collect(),
                    instantiates: Vec::new(),
                    text: render(
                        &cname,
                        &IpuConv {
                            name: cname.clone(),
                            stamp: stamp.clone(),
                            rst: ctx.rst.clone(),
                            k: c.size,
                            line: c.line,
                            ww,
                            // Products of 8 x ww bits (signed ww + 9), Taps of them, the
                            // rounding half: never overflows.
                            acc_w: ww + 9 + clog2(c.size * c.size) + 1,
                            lanes: l,
                            multi: l > 1,
                            beat_w: pix_w,
                            meta: meta1,
                            sub_w: clog2(l).max(1),
                            conv_beat: lane0_beat(l, "ry_q", "rx_q", "result"),
                        },
                    )?,
                });
                Some(ConvView {
                    module: cname,
                    k: c.size,
                    line: c.line,
                    ww,
                    checks_width: c.size > 1,
                })
            }
            None => None,
        })
    }

    /// The framebuffer paths' packer: its module, and the top's view of it (`pix_side`:
    /// the pix side of the split at the pipeline's end; `image_size`: the image reaching it).
    fn pack_stage(
        &self,
        modules: &mut Vec<Module>,
        pix_side: (&'static str, &'static str, &'static str),
        image_size: &(String, String),
    ) -> Result<Option<FbView>, RenderError> {
        let Shape {
            l, pix_w, meta1, ..
        } = self.shape();
        let (ctx, ipu) = (self.ctx, self.ipu);
        let stamp = &ctx.stamp;
        Ok(if ipu.framebuffer {
            let pname = ctx.module_name("ipu_pack");
            // The lanes' packed pixels at `n` bytes a pixel, the highest lane first, zero above.
            let bytes = |n: u32| {
                let mut parts = Vec::new();
                if n < 4 {
                    parts.push(format!("{}'d0", 8 * (4 - n) * l));
                }
                for i in (0..l).rev() {
                    parts.push(format!("px{i}[{}:0]", 8 * n - 1));
                }
                format!("{{{}}}", parts.join(", "))
            };
            let (rounds, staged) = pack_channels(&ipu.formats);
            let count_expr = (0..l)
                .map(|i| format!("{{2'd0, in_mask[{i}]}}"))
                .collect::<Vec<_>>()
                .join(" + ");
            modules.push(Module {
                name: pname.clone(),
                kind: "ipu_pack",
                parameters: BTreeMap::from([
                    ("Lanes".to_string(), u64::from(l)),
                    ("BeatWidth".to_string(), u64::from(pix_w)),
                    ("WordBytes".to_string(), u64::from(ipu.dma_word_bits / 8)),
                ]),
                instantiates: Vec::new(),
                text: render(
                    &pname,
                    &IpuPack {
                        name: pname.clone(),
                        stamp: stamp.clone(),
                        rst: ctx.rst.clone(),
                        lanes: l,
                        multi: l > 1,
                        beat_w: pix_w,
                        meta: meta1,
                        // Colour indices are drawn, never read or copied to a texture.
                        formats: formats(ipu)
                            .into_iter()
                            .filter(|f| f.code != CI8 as u32)
                            .collect(),
                        lane_list: (0..l).collect(),
                        bytes1: bytes(1),
                        bytes2: bytes(2),
                        bytes4: bytes(4),
                        count_expr,
                        // Offsets index 8 * (4 lanes + wbytes) bits: all the index's bits.
                        off_hi: clog2(32 * l + ipu.dma_word_bits) - 4,
                        wbytes: ipu.dma_word_bits / 8,
                        nw: clog2(ipu.dma_word_bits / 8),
                        word_bytes: (0..ipu.dma_word_bits / 8)
                            .rev()
                            .map(|k| WordByte {
                                k,
                                first: k == 0,
                                held: k + 1 < ipu.dma_word_bits / 8,
                            })
                            .collect(),
                        alpha: [0, 1, 3, 4, 6].iter().any(|c| ipu.formats[*c]),
                        lum: ipu.formats[5] || ipu.formats[6],
                        narrow: self.pipe.pack_narrow,
                        sfx: if self.pipe.pack_narrow { "_q" } else { "" },
                        rounds,
                        staged,
                        alpha1: ipu.formats[4],
                        alpha_low: [0, 1, 3, 6].iter().any(|c| ipu.formats[*c]),
                    },
                )?,
            });
            // An expression in parentheses when it is more than a name.
            let term = |e: &str| {
                if e.contains(' ') {
                    format!("({e})")
                } else {
                    e.to_string()
                }
            };
            Some(FbView {
                module: pname,
                pix: pix_side,
                end_x: format!("x0 + {}", term(&image_size.0)),
                last_y: format!("y0 + {} - 16'd1", term(&image_size.1)),
                wbytes: ipu.dma_word_bits / 8,
            })
        } else {
            None
        })
    }

    /// The links between bias and the stages after it (`on`: maps, filter, zoom), in GL's
    /// order, and the registers behind the map's and zoom's own output registers.
    fn links(
        &self,
        modules: &mut Vec<Module>,
        last: (&'static str, &'static str, &'static str),
        on: [bool; 3],
    ) -> Result<Links, RenderError> {
        let (ctx, ipu) = (self.ctx, self.ipu);
        let pix_w = pix_width(ipu);
        // The stages after bias, in GL's order: maps (per pixel), the convolution filter,
        // zoom (rasterisation); each link is the output of the one before.
        let after: Vec<&str> = ["map", "conv", "zoom"]
            .into_iter()
            .zip(on)
            .filter(|(_, on)| *on)
            .map(|(n, _)| n)
            .collect();
        let link_of = |from: &str, is_last: bool| {
            if is_last {
                Link {
                    valid: last.0.into(),
                    ready: last.1.into(),
                    data: last.2.into(),
                    declare: false,
                }
            } else {
                Link {
                    valid: format!("{from}_valid"),
                    ready: format!("{from}_ready"),
                    data: format!("{from}_data"),
                    declare: from != "bias",
                }
            }
        };
        let bias_out = link_of("bias", after.is_empty());
        let stage_io = |name: &str| {
            after.iter().position(|n| *n == name).map(|k| {
                let input = if k == 0 {
                    link_of("bias", false)
                } else {
                    link_of(after[k - 1], false)
                };
                (input, link_of(name, k == after.len() - 1))
            })
        };
        let mut map_io = stage_io("map");
        let conv_io = stage_io("conv");
        let mut zoom_io = stage_io("zoom");
        // A skid or FIFO register behind the map's or zoom's own output register: the
        // stage drives `<stage>_own_*`, the register the link the stage drove before.
        let mut behind = |io: &mut Option<(Link, Link)>,
                          stage: &'static str,
                          kind: StageKind|
         -> Result<Option<RegView>, RenderError> {
            let Some((_, o)) = io.as_mut().filter(|_| kind != StageKind::Bubble) else {
                return Ok(None);
            };
            let own = Link {
                valid: format!("{stage}_own_valid"),
                ready: format!("{stage}_own_ready"),
                data: format!("{stage}_own_data"),
                declare: true,
            };
            let out = std::mem::replace(o, own.clone());
            reg_view(ctx, modules, stage, kind, pix_w, own, out).map(Some)
        };
        // The schedule's registers behind them (a skid where the clock needs ready cut).
        let map_reg = behind(&mut map_io, "map", self.pipe.map_register)?;
        let zoom_reg = behind(&mut zoom_io, "zoom", self.pipe.zoom_register)?;
        // Their contents count as the pipeline's: `drained` waits for them.
        let reg_busy: Vec<String> = [&map_reg, &zoom_reg]
            .iter()
            .filter_map(|r| r.as_ref().map(|r| format!("{}_reg_busy", r.stage)))
            .collect();
        Ok(Links {
            bias_out,
            map_io,
            conv_io,
            zoom_io,
            map_reg,
            zoom_reg,
            reg_busy,
        })
    }

    /// The unit as the harness sees it: its ports and the FSM's probe.
    fn unit(&self, top: String, modules: &[Module]) -> Unit {
        let ipu = self.ipu;
        let pix_w = pix_width(ipu);
        let port = |n: &str, dir, width| StreamPort {
            name: n.into(),
            dir,
            width,
        };
        let mut unit = Unit {
            name: "ipu",
            top,
            modules: modules.iter().map(|m| m.name.clone()).collect(),
            ports: vec![
                port("cmd", Dir::In, 32),
                port("dma", Dir::In, ipu.dma_word_bits),
                port("pass", Dir::Out, 32),
                port("dma_req", Dir::Out, 32),
                port("pix", Dir::Out, pix_w),
                port("status", Dir::Out, STATUS_WIDTH),
            ],
            mem_ports: Vec::new(),
            // Filled in from the rendered hierarchy (rtl::stages) once the design is whole.
            stages: Vec::new(),
            probes: vec![Probe {
                name: "fsm",
                // The decoder's state register (its module is inlined by Verilator).
                signal: "u_ctrl.state_q",
                states: fsm_states(ipu),
            }],
        };
        if ipu.framebuffer {
            unit.ports.extend([
                port("fb", Dir::In, FB_WIDTH),
                port("fb_req", Dir::Out, FB_REQ_WIDTH),
                port("dma_out", Dir::Out, ipu.dma_word_bits),
                port("tex", Dir::Out, tex_width(ipu)),
            ]);
        }
        unit
    }

    /// Renders the pipeline's modules, the handshake registers it uses and the top.
    pub fn elaborate(&self) -> Result<(Unit, Vec<Module>), RenderError> {
        let (ctx, ipu) = (self.ctx, self.ipu);
        let stamp = ctx.stamp.clone();
        let Shape {
            l,
            sw,
            sf,
            bw,
            bf,
            pw,
            raw_w,
            px_w,
            prod_w,
            meta1,
            meta2,
            d1_w,
            d2_w,
            pix_w,
            wb,
            byte_w,
            ..
        } = self.shape();
        let fmts = formats(ipu);
        let mut modules: Vec<Module> = Vec::new();
        let (convert, scale_mod, bias_mod) = self.pixel_modules(&mut modules)?;
        let pix_side = if ipu.bitmap {
            ("pipe_valid", "pipe_ready", "pipe_data")
        } else {
            ("pix_valid_o", "pix_ready_i", "pix_data_o")
        };
        // With the framebuffer paths the pipeline ends in a split: pix or the packer.
        let last = if ipu.framebuffer {
            ("tail_valid", "tail_ready", "tail_data")
        } else {
            pix_side
        };
        let regs = self.stage_regs(&mut modules, last)?;
        // {fb_act, format, the unpack data's layout}.
        let fetch_w = self.shape().d1_w + 3 + u32::from(ipu.framebuffer);
        let fetch = if self.pipe.unpack_fetch {
            Some(reg_view(
                ctx,
                &mut modules,
                "fetch",
                StageKind::Bubble,
                fetch_w,
                Link {
                    valid: "unpack_in_valid".into(),
                    ready: "unpack_in_ready".into(),
                    data: "fetch_in_data".into(),
                    declare: false,
                },
                Link {
                    valid: "fetch_valid".into(),
                    ready: "fetch_ready".into(),
                    data: "fetch_data".into(),
                    declare: true,
                },
            )?)
        } else {
            None
        };
        let (sumw, frac) = bias_sum_bits(ipu);
        let sum_hi_w = sumw - frac;
        let sum_x_lsb = l * 4 * sum_hi_w;
        let sum_reg = if self.pipe.bias_sum {
            Some(reg_view(
                ctx,
                &mut modules,
                "sum",
                StageKind::Skid,
                sum_x_lsb + 32 + l,
                Link {
                    valid: "scale_valid".into(),
                    ready: "scale_ready".into(),
                    data: "sum_in_data".into(),
                    declare: false,
                },
                Link {
                    valid: "sum_valid".into(),
                    ready: "sum_ready".into(),
                    data: "sum_data".into(),
                    declare: true,
                },
            )?)
        } else {
            None
        };
        let lanes_v_list = (0..l)
            .map(|i| LaneView {
                i,
                px: format!("[{}:{}]", 32 * i + 31, 32 * i),
                raw_px: format!("[{}:{}]", 32 * i + raw_w - 1, 32 * i),
                pad_px: (raw_w < 32).then(|| format!("[{}:{}]", 32 * i + 31, 32 * i + raw_w)),
                prod: format!("[{}:{}]", prod_w * i + prod_w - 1, prod_w * i),
                sum: format!("[{}:{}]", 4 * sum_hi_w * (i + 1) - 1, 4 * sum_hi_w * i),
                step1: i % wb,
                step2: (2 * i) % wb,
                step4: (4 * i) % wb,
                step_any: (i % wb == (2 * i) % wb && i % wb == (4 * i) % wb).then_some(i % wb),
            })
            .collect();
        let shift = |frac: u32| {
            if frac == 16 {
                "cmd_data_i".to_string()
            } else {
                let n = 16 - frac;
                format!("{{{{{n}{{cmd_data_i[31]}}}}, cmd_data_i[31:{n}]}}")
            }
        };
        let zoom = self.zoom_stage(&mut modules)?;
        let map = self.map_stage(&mut modules)?;
        let conv = self.conv_stage(&mut modules)?;
        let Links {
            bias_out,
            map_io,
            conv_io,
            zoom_io,
            map_reg,
            zoom_reg,
            reg_busy,
        } = self.links(
            &mut modules,
            last,
            [map.is_some(), conv.is_some(), zoom.is_some()],
        )?;
        // The image that reaches the packer or zoom: GL_REDUCE's with the filter on.
        let image_size: (String, String) = if conv.is_some() {
            (
                "conv_on ? (width - {13'd0, kw} + 16'd1) : width".into(),
                "conv_on ? (height - {13'd0, kh} + 16'd1) : height".into(),
            )
        } else {
            ("width".into(), "height".into())
        };
        let fb = self.pack_stage(&mut modules, pix_side, &image_size)?;
        let depth = ipu.stack_depth;
        let capacity =
            ipu.capacity() + u32::from(self.pipe.unpack_fetch) + u32::from(self.pipe.bias_sum);
        let name = ctx.module_name("ipu");
        // The decoder and control FSM, in a module of its own.
        let ctrl = ctx.module_name("ipu_ctrl");
        let ctrl_view = IpuCtrl {
            name: ctrl.clone(),
            stamp: stamp.clone(),
            rst: ctx.rst.clone(),
            top: ctx.module_name("ipu"),
            summary: wrap(&ctrl_summary(ipu, &ctrl, &ctx.module_name("ipu")), 86),
            wb,
            byte_w,
            sw,
            bw,
            depth: ipu.stack_depth,
            status_w: STATUS_WIDTH,
            zoom: ipu.zoom,
            map: map.clone(),
            conv: conv.clone(),
            bitmap: ipu.bitmap,
            fb: ipu.framebuffer,
            ci: ipu.formats[CI8],
            zoom_one: format!("{ZOOM_ONE:06x}"),
            formats: formats(ipu),
            scale_shift: shift(sf),
            bias_shift: shift(bf),
            scale_one: format!("{sw}'d{}", 1u64 << sf),
            // The raster colour and the index arithmetic read all 32 bits, zoom's second
            // factor 24; PIXEL_TRANSFER's values saturate from the command word.
            value_w: if ipu.bitmap || ipu.formats[CI8] {
                Some(32)
            } else if ipu.zoom.is_some() {
                Some(24)
            } else {
                None
            },
            line_check: ipu.zoom.is_some() || ipu.convolution.is_some_and(|c| c.size > 1),
            raster_init: format!("{RASTER_INIT:08x}"),
            filter_init: FILTER_INIT,
            // A colour-index draw switches scale, bias and the maps to its path for all its
            // pixels: the draw before must have left them.
            draw_waits: match (
                ipu.zoom.is_some()
                    || ipu.convolution.is_some()
                    || ipu.framebuffer
                    || ipu.formats[CI8],
                ipu.bitmap,
            ) {
                (true, true) => Some("draw or bitmap"),
                (true, false) => Some("draw"),
                (false, true) => Some("bitmap or draw"),
                (false, false) => None,
            },
            waits_cond: {
                let acts: Vec<String> = Act::enabled(ipu, Act::size_waits)
                    .iter()
                    .map(|a| format!("(act_q != {})", a.code().name))
                    .collect();
                if acts.len() == 1 {
                    acts[0].clone()
                } else {
                    format!("({})", acts.join(" & "))
                }
            },
            value_acts: Act::enabled(ipu, Act::takes_value)
                .iter()
                .map(|a| format!("(act_q == {})", a.code().name))
                .collect::<Vec<_>>()
                .join(" | "),
            stack_w: 4 * sw + 4 * bw + if ipu.zoom.is_some() { 48 } else { 0 },
            stack_entry_q: entry("q", ipu.zoom.is_some()),
            stack_entry_d: entry("d", ipu.zoom.is_some()),
            tables: local_tables(ipu),
            cmd_params: lsb_params("Cmd", &rtl_cmd_fields(ipu))
                .iter()
                .map(|(name, lsb)| format!("localparam integer {name} = {lsb};"))
                .collect(),
            reg_params: [
                (ipu.bitmap, lsb_params("Bmove", &bmove_fields())),
                (
                    ipu.convolution.is_some(),
                    lsb_params("Fsel", &fsel_fields()),
                ),
            ]
            .into_iter()
            .filter(|(on, _)| *on)
            .flat_map(|(_, p)| p)
            .map(|(name, lsb)| format!("localparam integer {name} = {lsb};"))
            .collect(),
        };
        let mut ctrl_params = vec![("StackDepth", ipu.stack_depth)];
        if let Some(line) = ipu.zoom {
            ctrl_params.push(("ZoomMaxLine", line));
        }
        if let Some(pm) = ipu.pixel_map {
            ctrl_params.push(("TableSize", pm.size));
        }
        if let Some(c) = &conv {
            ctrl_params.push(("Kernel", c.k));
            if c.checks_width {
                ctrl_params.push(("ConvMaxLine", c.line));
            }
            ctrl_params.push(("WeightWidth", c.ww));
        }
        modules.push(Module {
            name: ctrl.clone(),
            kind: "ipu_ctrl",
            parameters: ctrl_params
                .into_iter()
                .map(|(n, v)| (n.to_string(), u64::from(v)))
                .collect(),
            instantiates: Vec::new(),
            text: render(&ctrl, &ctrl_view)?,
        });
        let top = IpuTop {
            name: name.clone(),
            stamp: stamp.clone(),
            rst: ctx.rst.clone(),
            convert: convert.clone(),
            scale_mod: scale_mod.clone(),
            bias_mod: bias_mod.clone(),
            lanes: l,
            lanes_v: l,
            multi: l > 1,
            format_list: fmts
                .iter()
                .map(|v| FORMATS[v.code as usize])
                .collect::<Vec<_>>()
                .join(", "),
            raw_w,
            sw,
            sf,
            sint: ipu.scale.int,
            bw,
            bf,
            bint: ipu.bias.int,
            pw,
            depth,
            cnt_w: clog2(capacity + 2).max(2),
            capacity,
            regs,
            lanes_v_list,
            dma_w: ipu.dma_word_bits,
            wb,
            byte_w,
            d1_w,
            d2_w,
            pix_w,
            px_w,
            prod_w,
            meta1,
            meta2,
            status_w: STATUS_WIDTH,
            ctrl: ctrl.clone(),
            ctrl_pad: " ".repeat("dma_req_valid_o".len() - ctx.rst.port.len()),
            reg_labels: ipu
                .registers
                .iter()
                .zip(STAGES)
                .map(|(k, s)| format!("{s}: {}", k.label()))
                .chain(
                    [&map_reg, &zoom_reg]
                        .into_iter()
                        .flatten()
                        .map(|r| format!("behind {}: {}", r.stage, r.label)),
                )
                .collect::<Vec<_>>()
                .join(", "),
            bias_out,
            status_lines: wrap(
                &format!(
                    "status: {{level[7:0], 4'b0, event[3:0]}}: {}; the command then changes \
                     nothing.",
                    EVENTS
                        .enabled(ipu)
                        .iter()
                        .map(|c| {
                            let meaning = EVENT_MEANINGS
                                .iter()
                                .find(|(v, _)| *v == c.value)
                                .map_or("", |(_, m)| *m);
                            format!("{} {meaning}", c.value)
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                86,
            ),
            ev_width: EV_WIDTH,
            ev_filter: EV_FILTER,
            zoom_one: format!("{ZOOM_ONE:06x}"),
            map_io,
            conv_io,
            zoom_io,
            map_reg,
            zoom_reg,
            reg_busy,
            drained_reg: self.pipe.drained_reg,
            mul_operands: self.pipe.mul_operands,
            fetch,
            fetch_w,
            sum_reg,
            sum_hi_w,
            sum_x_lsb,
            // With the filter, zoom takes the filtered image's size.
            zoom_size: image_size,

            bitmap: ipu.bitmap,
            last,
            bm_beat: lane0_beat(l, "y0 + row", "x0 + col", "raster"),
            map,
            conv,
            zoom,
            fb,
            ci: ipu.formats[CI8],
            beat_params: beat_params(ipu, prod_w),
            command_lines: wrap(
                &format!(
                    "{}; every other word is passed on unchanged, in order (pass).",
                    command_docs(ipu).join(", ")
                ),
                84,
            ),
            fb_word_differs: ipu.framebuffer && wb != 4,
        };
        let mut instantiates: Vec<String> = modules.iter().map(|m| m.name.clone()).collect();
        instantiates.sort();
        modules.push(Module {
            name: name.clone(),
            kind: "ipu",
            parameters: BTreeMap::from([("StackDepth".to_string(), u64::from(depth))]),
            instantiates,
            text: render(&name, &top)?,
        });
        let unit = self.unit(name, &modules);
        Ok((unit, modules))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rtl::Design;

    /// The design of a config's IPU alone.
    fn elaborate(cfg: &crate::config::Config) -> Result<Design, RenderError> {
        let ctx = Ctx::new(cfg);
        let ipu = cfg.ipu.as_ref().expect("an [ipu] config");
        let (unit, modules) = IpuUnit::new(
            &ctx,
            ipu,
            Pipe::new(ipu, &crate::iface::timing::Timing::new(&cfg.clock)),
        )
        .elaborate()?;
        let mut design = Design {
            name: cfg.design.name.clone(),
            modules: Vec::new(),
            units: Vec::new(),
        };
        for m in modules {
            design.add(m);
        }
        design.units.push(unit);
        Ok(design)
    }

    /// The decoder's module (`ipu_ctrl`), which the top instantiates.
    fn ctrl(design: &Design) -> &crate::rtl::Module {
        let top = design
            .module(&design.unit("ipu").expect("ipu").top)
            .expect("top");
        let ctrl = design
            .modules
            .iter()
            .find(|m| m.kind == "ipu_ctrl")
            .expect("the decoder");
        assert_eq!(
            top.instantiates.iter().filter(|m| **m == ctrl.name).count(),
            1
        );
        assert!(top.text.contains(&format!("{} #(", ctrl.name)));
        ctrl
    }

    /// A module's localparams, whitespace folded: name -> (width, value).
    fn localparams(text: &str) -> BTreeMap<String, (u32, u32)> {
        text.lines()
            .filter_map(|l| {
                let l: Vec<&str> = l.split_whitespace().collect();
                let [kw, range, name, eq, lit] = l[..] else {
                    return None;
                };
                let hi = range
                    .strip_prefix('[')?
                    .strip_suffix(":0]")?
                    .parse::<u32>()
                    .ok()?;
                let lit = lit.strip_suffix(';')?;
                let (w, v) = lit.split_once('\'')?;
                let v = match v.split_at(1) {
                    ("d", d) => d.parse().ok()?,
                    ("h", h) => u32::from_str_radix(h, 16).ok()?,
                    _ => return None,
                };
                (kw == "localparam" && eq == "=" && w.parse::<u32>().ok()? == hi + 1)
                    .then(|| (name.to_string(), (hi + 1, v)))
            })
            .collect()
    }

    /// Every code of the contract's tables the config enables is a localparam of the
    /// decoder with the table's width and value, and no disabled one is; the probe lists
    /// the enabled states and names the decoder's state register.
    #[test]
    fn rendered_localparams_are_the_contracts_tables() {
        for (body, n) in [
            ("", 7),
            (
                "bitmap = true\nframebuffer = true\nformats = [\"rgba8888\", \"ci8\"]\n\
                 [ipu.zoom]\nenabled = true\n[ipu.pixel_map]\nenabled = true\nmaps = [\"r_to_r\", \"i_to_r\"]\n\
                 [ipu.convolution]\nenabled = true\n",
                10,
            ),
        ] {
            let src = format!("[design]\nname = \"t\"\n[ipu]\n{body}");
            let cfg = crate::config::parse(&src, "test").expect("valid");
            let ipu = cfg.ipu.as_ref().expect("ipu");
            let design = elaborate(&cfg).expect("elaborates");
            let unit = design.unit("ipu").expect("ipu");
            let ctrl = ctrl(&design);
            let declared = localparams(&ctrl.text);
            let states = fsm_states(ipu);
            assert_eq!(states.len(), n);
            assert_eq!(unit.probes[0].states, states);
            assert_eq!(unit.probes[0].signal, "u_ctrl.state_q");
            assert!(
                design
                    .module(&unit.top)
                    .expect("top")
                    .text
                    .contains(" u_ctrl (")
            );
            for t in TABLES {
                for c in t.codes {
                    let got = declared.get(c.name);
                    if c.feature.on(ipu) {
                        assert_eq!(got, Some(&(t.width, c.value)), "{}", c.name);
                    } else {
                        assert_eq!(got, None, "{} is not enabled", c.name);
                    }
                }
            }
            assert!(
                ctrl.text
                    .contains("state_q /* verilator public_flat_rd */;")
            );
        }
    }

    /// The command-word localparams are the contract's fields: each field the config's
    /// `ipu_ctrl.v` slices is declared with its lsb, and no other `Cmd*Lsb` is.
    #[test]
    fn rendered_command_fields_are_the_contracts_fields() {
        for body in [
            "",
            "bitmap = true\nframebuffer = true\nformats = [\"rgba8888\", \"ci8\"]\n\
             [ipu.zoom]\nenabled = true\n[ipu.pixel_map]\nenabled = true\nmaps = [\"r_to_r\", \"i_to_r\"]\n\
             [ipu.convolution]\nenabled = true\n",
        ] {
            let src = format!("[design]\nname = \"t\"\n[ipu]\n{body}");
            let cfg = crate::config::parse(&src, "test").expect("valid");
            let ipu = cfg.ipu.as_ref().expect("ipu");
            let design = elaborate(&cfg).expect("elaborates");
            let top = ctrl(&design);
            let declared: BTreeMap<String, u64> = crate::rtl::align::localparams(&top.text)
                .into_iter()
                .filter(|(k, _)| k.starts_with("Cmd") && k.ends_with("Lsb"))
                .collect();
            let want: BTreeMap<String, u64> = rtl_cmd_fields(ipu)
                .iter()
                .map(|f| (format!("Cmd{}Lsb", f.name), u64::from(f.lsb)))
                .collect();
            assert_eq!(declared, want);
            for f in rtl_cmd_fields(ipu) {
                assert!(top.text.contains(&format!("cmd_data_i[Cmd{}Lsb", f.name)));
            }
        }
    }

    /// The stage data's width and field localparams are the contract's layouts, at one and
    /// at several lanes.
    #[test]
    fn rendered_beat_layouts_are_the_contracts_fields() {
        for lanes in [1, 2, 4] {
            let src = format!("[design]\nname = \"t\"\n[ipu]\nlanes = {lanes}\n");
            let cfg = crate::config::parse(&src, "test").expect("valid");
            let ipu = cfg.ipu.as_ref().expect("ipu");
            let design = elaborate(&cfg).expect("elaborates");
            let top = design
                .module(&design.unit("ipu").expect("ipu").top)
                .expect("top");
            let ints: BTreeMap<String, u32> = crate::rtl::align::localparams(&top.text)
                .into_iter()
                .filter_map(|(k, v)| Some((k, u32::try_from(v).ok()?)))
                .collect();
            let prod_w = 4 * (ipu.scale.width() + 9);
            for (stem, fields) in beat_layouts(ipu, prod_w) {
                let w: u32 = fields.iter().map(|f| f.width).sum();
                assert_eq!(ints.get(format!("{stem}W").as_str()), Some(&w), "{stem}W");
                for f in fields {
                    if let Some(v) = ints.get(format!("{stem}{}Lsb", f.name).as_str()) {
                        assert_eq!(*v, f.lsb, "{stem}{}Lsb", f.name);
                    }
                }
                assert!(ints.contains_key(format!("{stem}XLsb").as_str()));
            }
            assert_eq!(
                ints.get("PixW"),
                Some(&pix_width(ipu)),
                "the pix port's width"
            );
        }
    }

    /// The registers' field localparams (the decoder's) are their tables, and the stages'
    /// sizes are integer localparams of the top with the config's values, passed to the
    /// stages and the decoder by name.
    #[test]
    fn rendered_register_fields_and_sizes_are_the_tables() {
        let src = "[design]\nname = \"t\"\n[ipu]\nbitmap = true\n\
                   [ipu.zoom]\nenabled = true\nmax_line_width = 512\n\
                   [ipu.pixel_map]\nenabled = true\ntable_size = 64\nmaps = [\"r_to_r\"]\n\
                   [ipu.convolution]\nenabled = true\nkernel_size = 3\nmax_line_width = 32\n";
        let cfg = crate::config::parse(src, "test").expect("valid");
        let ipu = cfg.ipu.as_ref().expect("ipu");
        let design = elaborate(&cfg).expect("elaborates");
        let top = design
            .module(&design.unit("ipu").expect("ipu").top)
            .expect("top");
        let declared = crate::rtl::align::localparams(&top.text);
        let in_ctrl = crate::rtl::align::localparams(&ctrl(&design).text);
        for (word, fields) in [("Bmove", bmove_fields()), ("Fsel", fsel_fields())] {
            for f in fields {
                let n = format!("{word}{}Lsb", f.name);
                assert_eq!(in_ctrl.get(&n), Some(&u64::from(f.lsb)), "{n}");
            }
        }
        let conv = ipu.convolution.as_ref().expect("convolution");
        for (n, v) in [
            ("ConvKernel", conv.size),
            ("ConvMaxLine", conv.line),
            ("MapEntries", 64),
            ("ZoomMaxLine", 512),
        ] {
            assert_eq!(declared.get(n), Some(&u64::from(v)), "{n}");
        }
        for port in [
            ".TableSize (MapEntries)",
            ".Kernel (ConvKernel)",
            ".MaxLine (ConvMaxLine)",
            ".MaxLine (ZoomMaxLine)",
            ".ZoomMaxLine (ZoomMaxLine)",
            ".ConvMaxLine (ConvMaxLine)",
            ".StackDepth (StackDepth)",
        ] {
            let squeezed: String = top
                .text
                .lines()
                .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
                .collect::<Vec<_>>()
                .join("\n");
            assert!(squeezed.contains(port), "{port}");
        }
    }
}
