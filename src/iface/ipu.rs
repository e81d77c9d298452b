//! The contract of the image processing unit: what its RTL and its model agree on.
//!
//! Each fact is written once here: the port widths, the format codes' pixel sizes, the
//! command opcodes, the status events, the control FSM's states and actions, and the
//! framebuffer operations. `rtl::ipu` renders the tables as `ipu_ctrl.v`'s localparams (and
//! the probe's state names); `model::ipu` and `model::ipu_timing` match on the same
//! constants and enums.

use crate::config::ipu::CI8;
use crate::config::{Ipu, StageKind};
use crate::iface::timing::{Op, Timing};

/// Width of a `pix` beat: `{mask[lanes] (lanes > 1), y[15:0], x[15:0], lanes x RGBA8}`.
pub fn pix_width(ipu: &Ipu) -> u32 {
    pix_fields(ipu).iter().map(|f| f.width).sum()
}

pub use super::Field;
use super::field::pack;

/// The layout of the pipeline's beats, lane 0 lowest:
/// `{mask[lanes], y[15:0], x[15:0], lanes x item}` with `item_w`-bit items (RGBA8 pixels,
/// or scale's four products); the mask is left out when `with_mask` is false (a `pix`
/// beat at one lane).
pub fn beat_fields(lanes: u32, item_w: u32, with_mask: bool) -> Vec<Field> {
    let mut f = vec![("Items", lanes * item_w), ("X", 16), ("Y", 16)];
    if with_mask {
        f.push(("Mask", lanes));
    }
    pack(&f)
}

/// A `pix` beat's layout (the mask only with more than one lane).
pub fn pix_fields(ipu: &Ipu) -> Vec<Field> {
    beat_fields(ipu.lanes, 32, ipu.lanes > 1)
}

/// The field `name` of `fields`.
pub fn field(fields: &[Field], name: &str) -> Option<Field> {
    fields.iter().find(|f| f.name == name).copied()
}

/// Width of a `status` beat: `{level[7:0], 4'b0, event[3:0]}`.
pub const STATUS_WIDTH: u32 = 16;
/// Width of `fb` words (4 RGBA8 pixels) and of `fb_req` beats (`{height, width, y, x}`).
pub const FB_WIDTH: u32 = 128;
pub const FB_REQ_WIDTH: u32 = 64;

/// Width of `tex` beats: `{address[31:0], word}`, a word of `dma_word_bits` (texture
/// memory is written in the memory's words, as DMA reads and writes them).
pub fn tex_width(ipu: &Ipu) -> u32 {
    32 + ipu.dma_word_bits
}

/// Accumulator width of the zoom stage: a 16-bit index times a 24-bit factor magnitude,
/// plus the rounding constant. The model keeps the exact sums at this width.
pub const ZOOM_ACC_W: u32 = 16 + 24 + 1;

/// Accumulator width of the single-lane zoom's RTL: the sums modulo 2^24, so offsets
/// modulo 2^8. The RTL only compares an offset with one at most 128 columns or rows
/// (the largest factor's magnitude, 0x800000) behind or one ahead, and 130 values tell
/// apart modulo 256, so the equality compares are 8 bits wide, not 25. The multi-lane
/// zoom orders offsets (`<=`), which the modulus would break: it keeps the exact width.
pub fn zoom_acc_w(lanes: u32) -> u32 {
    if lanes > 1 { ZOOM_ACC_W } else { 16 + 8 }
}

/// Bytes per pixel of each format code (0 for a code that names no format).
pub fn bytes_per_pixel(code: u32) -> u32 {
    match code {
        0 | 1 => 4,
        2..=4 | 6 => 2,
        5 | 7 => 1,
        _ => 0,
    }
}

/// The constant multiply the RTL divides by 255 with: `(p * k + 2^(s-1)) >> s` equals
/// `round(p / 255)` for every product `p = c * (size - 1)` of an 8-bit component and a
/// map of up to `max_size` entries; the smallest such shift, checked exhaustively.
pub fn map_magic(max_size: u32) -> (u64, u32) {
    let pmax = 255 * u64::from(max_size - 1);
    for s in 8..48u32 {
        let k = ((1u64 << s) + 127) / 255;
        if (0..=pmax).all(|p| (p * k + (1 << (s - 1))) >> s == (2 * p + 255) / 510) {
            return (k, s);
        }
    }
    unreachable!("a shift of 47 bits always divides exactly enough")
}

/// The part of the config a code exists with: a config without it does not know the code
/// (the template declares no localparam for it, the model and the FSM ignore it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feature {
    Always,
    Zoom,
    Maps,
    Bitmap,
    Filter,
    Framebuffer,
    Ci8,
    /// A draw-width check against a line buffer: zoom's, or a filter's above 1x1.
    LineCheck,
}

impl Feature {
    pub fn on(self, ipu: &Ipu) -> bool {
        match self {
            Self::Always => true,
            Self::Zoom => ipu.zoom.is_some(),
            Self::Maps => ipu.pixel_map.is_some(),
            Self::Bitmap => ipu.bitmap,
            Self::Filter => ipu.convolution.is_some(),
            Self::Framebuffer => ipu.framebuffer,
            Self::Ci8 => ipu.formats[CI8],
            Self::LineCheck => ipu.zoom.is_some() || ipu.convolution.is_some_and(|c| c.size > 1),
        }
    }
}

/// One named code of a table: its Verilog localparam name, value and feature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Code {
    pub name: &'static str,
    pub value: u32,
    pub feature: Feature,
}

const fn code(name: &'static str, value: u32, feature: Feature) -> Code {
    Code {
        name,
        value,
        feature,
    }
}

/// A table of codes the template declares as localparams of `width` bits.
#[derive(Debug, Clone, Copy)]
pub struct Table {
    /// The comment above the localparams.
    pub doc: &'static str,
    pub width: u32,
    /// Values print in hex (opcodes) rather than decimal.
    pub hex: bool,
    pub codes: &'static [Code],
}

impl Table {
    /// The codes the config generates.
    pub fn enabled(&self, ipu: &Ipu) -> Vec<Code> {
        self.codes
            .iter()
            .filter(|c| c.feature.on(ipu))
            .copied()
            .collect()
    }
}

// Command opcodes (`cmd` bits [31:24]); the encoding is described in `model::ipu`.
pub const OP_TRANSFER: u32 = 0x41;
pub const OP_PUSH: u32 = 0x42;
pub const OP_POP: u32 = 0x43;
pub const OP_DRAW: u32 = 0x44;
pub const OP_ZOOM: u32 = 0x45;
pub const OP_PIXELMAP: u32 = 0x46;
pub const OP_MAPCOLOR: u32 = 0x47;
pub const OP_RASTER: u32 = 0x48;
pub const OP_BITMAP: u32 = 0x49;
pub const OP_CONV_FILTER: u32 = 0x4A;
pub const OP_CONVOLUTION: u32 = 0x4B;
pub const OP_RASTER_POS: u32 = 0x4C;
pub const OP_READ: u32 = 0x4D;
pub const OP_COPY: u32 = 0x4E;
pub const OP_COPYTEX: u32 = 0x4F;
pub const OP_INDEX: u32 = 0x50;

/// A command-word field; `cmd_field` reads it and `with` writes it.
const fn cf(name: &'static str, lsb: u32, width: u32) -> Field {
    Field { name, lsb, width }
}

/// Word 0's opcode, in every command.
pub const CMD_OP: Field = cf("Op", 24, 8);
/// The low and high halves of a size or position word: `{height, width}`, `{y, x}`.
pub const CMD_LO: Field = cf("Lo", 0, 16);
pub const CMD_HI: Field = cf("Hi", 16, 16);
/// Word 0's select: DRAW_PIXELS', READ_PIXELS' and COPY_TEX_IMAGE's format,
/// PIXEL_TRANSFER's `{bias, channel}`, PIXELMAP's map.
pub const CMD_SEL: Field = cf("Sel", 0, 3);
/// PIXEL_TRANSFER: the channel (0 R .. 3 A) and scale (0) or bias (1).
pub const CMD_CHANNEL: Field = cf("Channel", 0, 2);
pub const CMD_BIAS: Field = cf("Bias", 2, 1);
/// MAP_COLOR's and CONVOLUTION's on/off, INDEX_TRANSFER's shift (0) or offset (1).
pub const CMD_FLAG: Field = cf("Flag", 0, 1);
/// ZOOM: a factor, signed Q7.16 (word 0's x, word 1's y).
pub const CMD_FACTOR: Field = cf("Factor", 0, 24);
/// PIXELMAP: the entry count, and the map's I_TO_* bit (map codes 4..7).
pub const CMD_MAP_COUNT: Field = cf("MapCount", 8, 13);
pub const CMD_MAP_INDEXED: Field = cf("MapIndexed", 2, 1);
/// BITMAP: the raster position's moves `{ymove, xmove}` (signed), and each.
pub const CMD_MOVE: Field = cf("Move", 0, 24);
pub const CMD_XMOVE: Field = cf("XMove", 0, 12);
pub const CMD_YMOVE: Field = cf("YMove", 12, 12);
/// CONVOLUTION_FILTER: the channel mask and the kernel's width and height.
pub const CMD_KERNEL_MASK: Field = cf("KernelMask", 0, 4);
pub const CMD_KERNEL_W: Field = cf("KernelW", 8, 3);
pub const CMD_KERNEL_H: Field = cf("KernelH", 12, 3);

/// Every command-word field, with the feature whose commands use it and whether `ipu_ctrl.v`
/// slices `cmd_data_i` with it (it declares `Cmd<Name>Lsb` only then: an unused localparam
/// is a lint warning; the others it reads from registers loaded with a wider field).
pub const CMD_FIELDS: [(Field, Feature, bool); 16] = [
    (CMD_OP, Feature::Always, true),
    (CMD_LO, Feature::Always, true),
    (CMD_HI, Feature::Always, true),
    (CMD_SEL, Feature::Always, true),
    (CMD_CHANNEL, Feature::Always, false),
    (CMD_BIAS, Feature::Always, false),
    (CMD_FLAG, Feature::Always, false),
    (CMD_FACTOR, Feature::Zoom, true),
    (CMD_MAP_COUNT, Feature::Maps, true),
    (CMD_MAP_INDEXED, Feature::Maps, true),
    (CMD_MOVE, Feature::Bitmap, true),
    (CMD_XMOVE, Feature::Bitmap, false),
    (CMD_YMOVE, Feature::Bitmap, false),
    (CMD_KERNEL_MASK, Feature::Filter, true),
    (CMD_KERNEL_W, Feature::Filter, true),
    (CMD_KERNEL_H, Feature::Filter, true),
];

/// The command-word fields `ipu_ctrl.v` slices in this config: its `Cmd<Name>Lsb` localparams.
pub fn rtl_cmd_fields(ipu: &Ipu) -> Vec<Field> {
    CMD_FIELDS
        .iter()
        .filter(|(_, feat, rtl)| *rtl && feat.on(ipu))
        .map(|(f, _, _)| *f)
        .collect()
}

/// Field `f` of command word `word`.
pub const fn cmd_field(word: u32, f: &Field) -> u32 {
    (word >> f.lsb) & ((1 << f.width) - 1) as u32
}

/// `word` with field `f` set to `v` (truncated to the field).
pub const fn with(word: u32, f: &Field, v: u32) -> u32 {
    let mask = (((1u64 << f.width) - 1) as u32) << f.lsb;
    (word & !mask) | ((v << f.lsb) & mask)
}

/// The opcodes, as `ipu_ctrl.v` names them.
pub const OPCODES: Table = Table {
    doc: "Command opcodes (cmd_data_i[31:24]).",
    width: 8,
    hex: true,
    codes: &[
        code("OP_TRANSFER", OP_TRANSFER, Feature::Always),
        code("OP_PUSH", OP_PUSH, Feature::Always),
        code("OP_POP", OP_POP, Feature::Always),
        code("OP_DRAW", OP_DRAW, Feature::Always),
        code("OP_ZOOM", OP_ZOOM, Feature::Zoom),
        code("OP_PIXELMAP", OP_PIXELMAP, Feature::Maps),
        code("OP_MAPCOLOR", OP_MAPCOLOR, Feature::Maps),
        code("OP_RASTER", OP_RASTER, Feature::Bitmap),
        code("OP_BITMAP", OP_BITMAP, Feature::Bitmap),
        code("OP_FILTER", OP_CONV_FILTER, Feature::Filter),
        code("OP_CONV", OP_CONVOLUTION, Feature::Filter),
        code("OP_RPOS", OP_RASTER_POS, Feature::Bitmap),
        code("OP_READ", OP_READ, Feature::Framebuffer),
        code("OP_COPY", OP_COPY, Feature::Framebuffer),
        code("OP_COPYTEX", OP_COPYTEX, Feature::Framebuffer),
        code("OP_INDEX", OP_INDEX, Feature::Ci8),
    ],
};

/// Each opcode's command, as GL names it, and its words, for the header comment.
pub const COMMANDS: [(u32, &str, &str); 16] = [
    (OP_TRANSFER, "PIXEL_TRANSFER", "2 words"),
    (OP_PUSH, "PUSH_PIXEL", "1 word"),
    (OP_POP, "POP_PIXEL", "1 word"),
    (OP_DRAW, "DRAW_PIXELS", "3 words"),
    (OP_ZOOM, "ZOOM", "2 words"),
    (OP_PIXELMAP, "PIXELMAP", "1 + ceil(n / 4) words"),
    (OP_MAPCOLOR, "MAP_COLOR", "1 word"),
    (OP_RASTER, "RASTER_COLOR", "2 words"),
    (OP_BITMAP, "BITMAP", "3 words"),
    (OP_CONV_FILTER, "CONVOLUTION_FILTER", "1 + kw * kh words"),
    (OP_CONVOLUTION, "CONVOLUTION", "1 word"),
    (OP_RASTER_POS, "RASTER_POS", "2 words"),
    (OP_READ, "READ_PIXELS", "3 words"),
    (OP_COPY, "COPY_PIXELS", "4 words"),
    (OP_COPYTEX, "COPY_TEX_IMAGE", "4 words"),
    (OP_INDEX, "INDEX_TRANSFER", "2 words"),
];

/// The config's commands, `0x41 PIXEL_TRANSFER (2 words)`, in opcode order.
pub fn command_docs(ipu: &Ipu) -> Vec<String> {
    let mut ops: Vec<u32> = OPCODES.enabled(ipu).iter().map(|c| c.value).collect();
    ops.sort_unstable();
    ops.iter()
        .filter_map(|op| COMMANDS.iter().find(|c| c.0 == *op))
        .map(|(op, name, words)| format!("0x{op:02X} {name} ({words})"))
        .collect()
}

/// The config knows opcode `op` (an unknown one is passed on).
pub fn is_ipu_opcode(ipu: &Ipu, op: u32) -> bool {
    OPCODES.enabled(ipu).iter().any(|c| c.value == op)
}

// Status events (`status` bits [3:0]).
pub const EV_OVERFLOW: u32 = 1;
pub const EV_UNDERFLOW: u32 = 2;
pub const EV_FORMAT: u32 = 3;
pub const EV_WIDTH: u32 = 4;
pub const EV_MAPSIZE: u32 = 5;
pub const EV_FILTER: u32 = 6;

/// What each status event means, for the RTL's header (in `EVENTS`' order).
pub const EVENT_MEANINGS: [(u32, &str); 6] = [
    (EV_OVERFLOW, "stack overflow"),
    (EV_UNDERFLOW, "stack underflow"),
    (EV_FORMAT, "format not enabled"),
    (EV_WIDTH, "draw wider than a line buffer"),
    (EV_MAPSIZE, "pixel map size out of range"),
    (EV_FILTER, "filter size out of range"),
];

/// GL's initial state that the RTL's reset and the model's start share: zoom factor 1.0
/// in the ZOOM command's signed Q7.16, the current raster colour (1, 1, 1, 1) as
/// RGBA8 {A, B, G, R}, and the convolution filter's size.
pub const ZOOM_ONE: i32 = 1 << 16;
pub const RASTER_INIT: u32 = 0xffff_ffff;
/// The convolution filter's initial width and height: the 1x1 identity.
pub const FILTER_INIT: u32 = 1;

pub const EVENTS: Table = Table {
    doc: "Status events (status_data_o[3:0]).",
    width: 4,
    hex: false,
    codes: &[
        code("EV_OVERFLOW", EV_OVERFLOW, Feature::Always),
        code("EV_UNDERFLOW", EV_UNDERFLOW, Feature::Always),
        code("EV_FORMAT", EV_FORMAT, Feature::Always),
        code("EV_WIDTH", EV_WIDTH, Feature::LineCheck),
        code("EV_MAPSIZE", EV_MAPSIZE, Feature::Maps),
        code("EV_FILTER", EV_FILTER, Feature::Filter),
    ],
};

// The framebuffer commands' operation, opcode[1:0] (`fbop_q`).
pub const FB_READ: u32 = OP_READ & 3;
pub const FB_COPY: u32 = OP_COPY & 3;
pub const FB_COPYTEX: u32 = OP_COPYTEX & 3;

pub const FB_OPS: Table = Table {
    doc: "Framebuffer commands: opcode[1:0] tells them apart (fbop_q).",
    width: 2,
    hex: false,
    codes: &[
        code("FB_READ", FB_READ, Feature::Framebuffer),
        code("FB_COPY", FB_COPY, Feature::Framebuffer),
        code("FB_COPYTEX", FB_COPYTEX, Feature::Framebuffer),
    ],
};

/// The control FSM's states (`state_q`, seed 000's names; FILTER is not one of the
/// seed's). The cycle model folds WAIT_FIFO into PIPELINE: it only names an empty source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Idle,
    Receive1,
    Receive2,
    SendOneIdle,
    SendPara,
    Pipeline,
    WaitFifo,
    PixelMap,
    Bitmap,
    Filter,
}

/// The states in code order: code, name and feature of each.
pub const STATES: [(State, Code); 10] = [
    (State::Idle, code("IDLE", 0, Feature::Always)),
    (State::Receive1, code("RECEIVE_1", 1, Feature::Always)),
    (State::Receive2, code("RECEIVE_2", 2, Feature::Always)),
    (
        State::SendOneIdle,
        code("SEND_ONE_IDLE", 3, Feature::Always),
    ),
    (State::SendPara, code("SEND_PARA", 4, Feature::Always)),
    (State::Pipeline, code("PIPELINE", 5, Feature::Always)),
    (State::WaitFifo, code("WAIT_FIFO", 6, Feature::Always)),
    (State::PixelMap, code("PIXELMAP", 7, Feature::Maps)),
    (State::Bitmap, code("BITMAP", 8, Feature::Bitmap)),
    (State::Filter, code("FILTER", 9, Feature::Filter)),
];

const STATE_CODES: [Code; 10] = {
    let mut c = [code("", 0, Feature::Always); 10];
    let mut i = 0;
    while i < STATES.len() {
        c[i] = STATES[i].1;
        i += 1;
    }
    c
};

pub const STATE_TABLE: Table = Table {
    doc: "Control FSM states (seed 000's names).",
    width: 4,
    hex: false,
    codes: &STATE_CODES,
};

impl State {
    pub fn code(self) -> Code {
        STATES[self as usize].1
    }
}

/// The FSM's states the config generates, code and name: the probe's list.
pub fn fsm_states(ipu: &Ipu) -> Vec<(u32, &'static str)> {
    STATE_TABLE
        .enabled(ipu)
        .iter()
        .map(|c| (c.value, c.name))
        .collect()
}

/// What SEND_ONE_IDLE (or the command in RECEIVE_1/2) does: `act_q`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    Transfer,
    Push,
    Pop,
    Draw,
    Format,
    Zoom,
    Width,
    MapSize,
    MapColor,
    Bitmap,
    Raster,
    Conv,
    FilterSize,
    RasterPos,
    Fb,
    Index,
}

/// The actions in code order.
pub const ACTS: [(Act, Code); 16] = [
    (Act::Transfer, code("ACT_TRANSFER", 0, Feature::Always)),
    (Act::Push, code("ACT_PUSH", 1, Feature::Always)),
    (Act::Pop, code("ACT_POP", 2, Feature::Always)),
    (Act::Draw, code("ACT_DRAW", 3, Feature::Always)),
    (Act::Format, code("ACT_FORMAT", 4, Feature::Always)),
    (Act::Zoom, code("ACT_ZOOM", 5, Feature::Zoom)),
    (Act::Width, code("ACT_WIDTH", 6, Feature::LineCheck)),
    (Act::MapSize, code("ACT_MAPSIZE", 7, Feature::Maps)),
    (Act::MapColor, code("ACT_MAPCOLOR", 8, Feature::Maps)),
    (Act::Bitmap, code("ACT_BITMAP", 9, Feature::Bitmap)),
    (Act::Raster, code("ACT_RASTER", 10, Feature::Bitmap)),
    (Act::Conv, code("ACT_CONV", 11, Feature::Filter)),
    (Act::FilterSize, code("ACT_FILTERSIZE", 12, Feature::Filter)),
    (Act::RasterPos, code("ACT_RPOS", 13, Feature::Bitmap)),
    (Act::Fb, code("ACT_FB", 14, Feature::Framebuffer)),
    (Act::Index, code("ACT_INDEX", 15, Feature::Ci8)),
];

const ACT_CODES: [Code; 16] = {
    let mut c = [code("", 0, Feature::Always); 16];
    let mut i = 0;
    while i < ACTS.len() {
        c[i] = ACTS[i].1;
        i += 1;
    }
    c
};

pub const ACT_TABLE: Table = Table {
    doc: "What SEND_ONE_IDLE does (act_q).",
    width: 4,
    hex: false,
    codes: &ACT_CODES,
};

impl Act {
    pub fn code(self) -> Code {
        ACTS[self as usize].1
    }

    /// The command's second word is a value (RECEIVE_1 then SEND_ONE_IDLE), not a size.
    pub fn takes_value(self) -> bool {
        matches!(
            self,
            Self::Transfer | Self::Zoom | Self::Raster | Self::RasterPos | Self::Index
        )
    }

    /// The command's size word waits in RECEIVE_1 for the unit to drain (where the config
    /// makes draws wait): the commands that send pixels.
    pub fn size_waits(self) -> bool {
        matches!(self, Self::Draw | Self::Bitmap | Self::Fb)
    }

    /// The config's actions that `pred` selects, in code order.
    pub fn enabled(ipu: &Ipu, pred: fn(Act) -> bool) -> Vec<Act> {
        ACTS.iter()
            .filter(|(a, c)| pred(*a) && c.feature.on(ipu))
            .map(|(a, _)| *a)
            .collect()
    }
}

/// The pipeline depths the clock asks for (`iface::timing`): the RTL (`rtl::ipu`) and the
/// cycle model (`model::ipu_timing`) read the same struct, so a deeper pipeline is a longer
/// latency in both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pipe {
    /// The multipliers' operands come from plain registers of their own (no reset, no
    /// select in front of them), where a multiply alone does not fit a stage: an FPGA's
    /// DSP block can then take them in as its input registers, and its product's register
    /// as its output register, so the multiply leaves the fabric's paths. The map gets a
    /// stage for them (c and size - 1); the scale stage's pixel already comes from the
    /// unpack register, and its scale factor gets a plain copy.
    pub mul_operands: bool,
    /// The bias stage's sum (`c * scale` + 255 * bias, one carry chain) is registered, and
    /// its rounding's clamp (the overflow's OR, the select, the lane mask) follows the
    /// register: a skid register between the scale and bias registers (a skid's ready is a
    /// flop, so the ready chain from the map back to the fetch register grows no longer).
    pub bias_sum: bool,
    /// The pixel map's index `round(c * (size - 1) / 255)` is two multiplies and an add
    /// before the table's address: a register after the first product `c * (size - 1)`.
    pub map_prod: bool,
    /// ... and after the second, `p * MulK` (the rounding add follows it).
    pub map_scaled: bool,
    /// The tables' read data registered again (a two-clock block-RAM read) before the
    /// output's multiplexers.
    pub map_rdata: bool,
    /// The registers behind the map and zoom stages: the config's, or a skid where the
    /// config has none and the clock is too fast for ready to ripple from the packer
    /// through every stage to the unpack stage in one clock.
    pub map_register: StageKind,
    pub zoom_register: StageKind,
    /// The packer's format conversion (GL's rounding to 4, 5 and 6 bits: two carry chains
    /// a channel) in a bubble register of its own, before the packer's beat register.
    pub pack_narrow: bool,
    /// The control FSM waits on `drained` from a flop, a clock late: the pipeline was
    /// empty a clock ago and nothing entered it then.
    pub drained_reg: bool,
    /// A bubble register (`fetch`) between the unpack stage's byte select and its format
    /// converter: the group's raw pixels, their format and position, registered.
    pub unpack_fetch: bool,
}

/// LUT levels after the bias stage's sum: the clamp's overflow OR and select, and the
/// lane mask.
const BIAS_OUT_LUTS: u32 = 3;

/// The bias stage's sum per channel: (its width, its fraction bits), as `ipu_bias`
/// declares them (`SumWidth`, `Frac`): the product `c * scale` and 255 * bias at the finer
/// of the two fractions, two bits to spare.
pub fn bias_sum_bits(ipu: &Ipu) -> (u32, u32) {
    let (sf, bf) = (ipu.scale.frac, ipu.bias.frac);
    let pw = ipu.scale.width() + 9;
    let f = sf.max(bf);
    ((pw + f - sf).max(ipu.bias.width() + 9 + f - bf) + 2, f)
}

/// LUT levels after the map tables' read: loaded, MAP_COLOR, colour index and lane mask.
const MAP_OUT_LUTS: u32 = 3;
/// LUT levels of ready from the packer to the control FSM's counters, through the zoom's
/// and the packer's decisions and every bubble register.
const READY_LUTS: u32 = 12;
/// LUT levels from the stages' busy flags through `drained` to the FSM's next state and
/// its parameter registers' enables.
const DRAINED_LUTS: u32 = 5;
/// The unpack stage's path from the FSM's byte count to the unpack register: each lane's
/// byte (an add and a decode), the word's byte select, the converter's format select and
/// the framebuffer select.
const UNPACK_OPS: [Op; 4] = [Op::Lut(2), Op::Mux(4), Op::Mux(8), Op::Lut(1)];
/// LUT levels of the packer's input after its rounding: the format's channel select and
/// the beat's bytes by pixel size.
const PACK_IN_LUTS: u32 = 3;
/// Bits of the rounding's sums `c * (2^n - 1) + 127` and `p + 1 + (p >> 8)` at n = 6.
const NARROW_BITS: u32 = 14;

impl Pipe {
    pub fn new(ipu: &Ipu, t: &Timing) -> Self {
        // A skid's ready comes from a flop: it cuts the chain.
        let cut = |kind: StageKind| {
            if kind == StageKind::Bubble && !t.fits(&[Op::Lut(READY_LUTS)]) {
                StageKind::Skid
            } else {
                kind
            }
        };
        let (map_register, zoom_register) = (cut(ipu.map_register), cut(ipu.zoom_register));
        // Formats 2..=4 (rgb565, rgba4444, rgba5551) round channels to fewer bits.
        let narrows = ipu.formats[2..=4].iter().any(|on| *on);
        let pack_narrow = ipu.framebuffer
            && narrows
            && !t.fits(&[
                Op::Carry(NARROW_BITS),
                Op::Carry(NARROW_BITS),
                Op::Lut(PACK_IN_LUTS),
            ]);
        let drained_reg = !t.fits(&[Op::Lut(DRAINED_LUTS), Op::Fanout(256)]);
        let unpack_fetch = !t.fits(&UNPACK_OPS);
        let mul_operands = !t.fits(&[Op::Mult]);
        let bias_sum = !t.fits(&[Op::Carry(bias_sum_bits(ipu).0), Op::Lut(BIAS_OUT_LUTS)]);
        let Some(m) = ipu.pixel_map else {
            return Self {
                mul_operands,
                bias_sum,
                map_prod: false,
                map_scaled: false,
                map_rdata: false,
                map_register,
                zoom_register,
                pack_narrow,
                drained_reg,
                unpack_fetch,
            };
        };
        // The index path: 8 x SizeW bits, then p x MulK, then the rounding add up to the
        // index's top bit, ending at the table's address.
        let (_, shift) = map_magic(m.size);
        let size_w = m.size.next_power_of_two().trailing_zeros().max(1);
        let s = t.schedule(&[Op::Mult, Op::Mult, Op::Carry(shift + size_w)]);
        Self {
            mul_operands,
            bias_sum,
            map_prod: s[1] != s[0],
            map_scaled: s[2] != s[1],
            map_rdata: !t.fits(&[Op::RamRead, Op::Lut(MAP_OUT_LUTS)]),
            map_register,
            zoom_register,
            pack_narrow,
            drained_reg,
            unpack_fetch,
        }
    }

    /// Registers of the map stage: its output (the tables' read register) and the ones
    /// the clock adds.
    pub fn map_stages(&self) -> u32 {
        1 + u32::from(self.mul_operands)
            + u32::from(self.map_prod)
            + u32::from(self.map_scaled)
            + u32::from(self.map_rdata)
    }

    /// Registers of the map stage before its tables' read register.
    pub fn map_k_read(&self) -> u32 {
        u32::from(self.mul_operands) + u32::from(self.map_prod) + u32::from(self.map_scaled)
    }

    /// `gpurtl check`'s line.
    pub fn describe(&self, ipu: &Ipu) -> String {
        let mut skids = Vec::new();
        if ipu.pixel_map.is_some() && self.map_register != ipu.map_register {
            skids.push("map");
        }
        if ipu.zoom.is_some() && self.zoom_register != ipu.zoom_register {
            skids.push("zoom");
        }
        let skids = if skids.is_empty() {
            String::new()
        } else {
            format!(
                "; a skid register behind {} (ready cut)",
                skids.join(" and ")
            )
        };
        let mut narrow = String::new();
        if self.pack_narrow {
            narrow.push_str("; the packer's rounding in a stage of its own");
        }
        if self.drained_reg {
            narrow.push_str("; drained from a flop (a clock late)");
        }
        if self.unpack_fetch {
            narrow.push_str("; a fetch register before the format converter");
        }
        if self.mul_operands {
            narrow.push_str("; the multipliers' operands in plain registers (DSP input registers)");
        }
        if self.bias_sum {
            narrow.push_str("; the bias's sum registered before its clamp");
        }
        if ipu.pixel_map.is_none() {
            return format!("ipu: no pixel map stage{skids}{narrow}");
        }
        let mut added = Vec::new();
        if self.mul_operands {
            added.push("the operands");
        }
        if self.map_prod {
            added.push("the first product");
        }
        if self.map_scaled {
            added.push("the second product");
        }
        if self.map_rdata {
            added.push("the table read (two-clock read)");
        }
        format!(
            "ipu: pixel map {} stage(s){}{skids}",
            self.map_stages(),
            if added.is_empty() {
                String::new()
            } else {
                format!(", registers after {}", added.join(", "))
            }
        ) + &narrow
    }
}

/// Every table `ipu_ctrl.v` (the decoder) declares, in the order it declares them.
pub const TABLES: [Table; 5] = [STATE_TABLE, OPCODES, FB_OPS, ACT_TABLE, EVENTS];

#[cfg(test)]
mod tests {
    use super::*;

    /// The enums' order is the tables' code order, so `x as usize` indexes them.
    #[test]
    fn enum_order_is_code_order() {
        for (i, (s, c)) in STATES.iter().enumerate() {
            assert_eq!((*s as usize, c.value as usize), (i, i));
        }
        for (i, (a, c)) in ACTS.iter().enumerate() {
            assert_eq!((*a as usize, c.value as usize), (i, i));
        }
    }

    /// Every opcode has its command's name and length.
    #[test]
    fn every_opcode_is_documented() {
        let mut documented: Vec<u32> = COMMANDS.iter().map(|c| c.0).collect();
        let mut ops: Vec<u32> = OPCODES.codes.iter().map(|c| c.value).collect();
        documented.sort_unstable();
        ops.sort_unstable();
        assert_eq!(documented, ops);
    }

    /// The command fields fit a 32-bit word, names are unique, and the README's layout
    /// holds: opcode [31:24], PIXELMAP's count [20:8], BITMAP's moves [11:0] and [23:12].
    #[test]
    fn command_fields_are_well_formed() {
        for (i, (a, _, _)) in CMD_FIELDS.iter().enumerate() {
            assert!(a.width >= 1 && a.lsb + a.width <= 32, "{}", a.name);
            assert!(CMD_FIELDS[i + 1..].iter().all(|(b, _, _)| a.name != b.name));
        }
        let w = with(with(0, &CMD_OP, OP_PIXELMAP), &CMD_MAP_COUNT, 0x1fff);
        assert_eq!(w, 0x461f_ff00);
        assert_eq!(cmd_field(w, &CMD_OP), OP_PIXELMAP);
        assert_eq!(with(0, &CMD_XMOVE, 0xffff_ffff), 0xfff);
        assert_eq!(with(0, &CMD_YMOVE, 1), 1 << 12);
        assert_eq!(cmd_field(0xffff_ffff, &CMD_OP), 0xff);
        assert_eq!(with(0, &CMD_HI, 0x1_2345), 0x2345_0000);
    }

    /// The depth follows the clock: the short pipeline at 50 MHz, the products and the
    /// two-clock read registered and ready cut by skids at 200 MHz.
    #[test]
    fn the_pipe_follows_the_target() {
        use crate::config::{self, ClockSection, Family};
        let text = "[design]\nname = \"t\"\n[ipu]\nlanes = 1\nframebuffer = true\n\
                    [ipu.zoom]\nenabled = true\n\
                    [ipu.pixel_map]\nenabled = true\ntable_size = 256\nmaps = [\"r_to_r\"]\n";
        let ipu = config::parse(text, "t").expect("valid").ipu.expect("ipu");
        let at = |mhz| {
            Pipe::new(
                &ipu,
                &Timing::new(&ClockSection {
                    target_mhz: mhz,
                    family: Family::Ecp5,
                }),
            )
        };
        let (slow, mid, fast) = (at(50.0), at(100.0), at(200.0));
        assert_eq!(slow.map_stages(), 1);
        assert_eq!(
            (slow.map_register, slow.zoom_register),
            (StageKind::Bubble, StageKind::Bubble)
        );
        assert_eq!(
            (mid.map_prod, mid.map_scaled, mid.map_rdata),
            (true, false, true)
        );
        assert_eq!(mid.map_stages(), 3);
        // At 200 MHz a multiply alone overruns a stage: its operands get registers of
        // their own (the DSP's input registers), a fifth map stage.
        assert_eq!(
            (slow.mul_operands, mid.mul_operands, fast.mul_operands),
            (false, false, true)
        );
        assert_eq!(fast.map_stages(), 5);
        // The packer's rounding, drained from a flop, the fetch register: none at 50 MHz,
        // the rounding's two carries already at 100, all three at 200.
        let cuts = |p: &Pipe| (p.pack_narrow, p.drained_reg, p.unpack_fetch, p.bias_sum);
        assert_eq!(cuts(&slow), (false, false, false, false));
        assert_eq!(cuts(&mid), (true, false, false, false));
        assert_eq!(cuts(&fast), (true, true, true, true));
        assert_eq!(fast.map_register, StageKind::Skid);
        assert_eq!(fast.zoom_register, StageKind::Skid);
        assert!(
            fast.describe(&ipu).contains("5 stage(s)"),
            "{}",
            fast.describe(&ipu)
        );
        // A register the config asks for is kept.
        let mut fifo = ipu.clone();
        fifo.map_register = StageKind::Fifo { depth: 2 };
        let p = Pipe::new(
            &fifo,
            &Timing::new(&ClockSection {
                target_mhz: 200.0,
                family: Family::Ecp5,
            }),
        );
        assert_eq!(p.map_register, StageKind::Fifo { depth: 2 });
    }

    /// Names and values are unique within a table and fit its width.
    #[test]
    fn tables_are_well_formed() {
        for t in TABLES {
            for (i, a) in t.codes.iter().enumerate() {
                assert!(a.value < 1 << t.width, "{}", a.name);
                for b in &t.codes[i + 1..] {
                    assert_ne!(a.name, b.name);
                    assert_ne!(a.value, b.value, "{} {}", a.name, b.name);
                }
            }
        }
        for t in &TABLES[1..] {
            for c in t.codes {
                assert!(STATE_TABLE.codes.iter().all(|s| s.name != c.name));
            }
        }
    }
}
