//! Cycle model of the `ipu` unit with no input gaps and no output stalls: the clocks the
//! co-simulation takes for a vector set, from reset release to the last output transfer
//! (the harness's `cycles`).
//!
//! It mirrors `templates/rtl/ipu.v` register for register where timing depends on it: the
//! control FSM (`ipu_ctrl.v`: IDLE, RECEIVE_1/2, SEND_ONE_IDLE, SEND_PARA, PIPELINE/WAIT_FIFO, PIXELMAP,
//! BITMAP, FILTER, with the `drained` waits), the unpack stage's groups, the three
//! handshake registers, the map stage and the registers behind it and zoom
//! (`hs_*.v`), the filter (`ipu_conv.v`), zoom's FSM (`ipu_zoom.v`) and the packer
//! (`ipu_pack.v`). Beats carry only what timing reads (pixel count, last of the image);
//! pixel values never change timing once every output is always ready, except a bitmap's
//! bits (which ones make fragments), read from the DMA words.

use crate::config::StageKind;
use crate::config::ipu::{CI8, Ipu};
use crate::iface::ipu::{
    Act, CMD_FACTOR, CMD_KERNEL_H, CMD_KERNEL_W, CMD_MAP_COUNT, CMD_OP, CMD_SEL, Pipe, State,
    ZOOM_ACC_W, cmd_field, is_ipu_opcode,
};
use crate::model::handshake::Stage;
use crate::vectors::{Bits, VectorSet};

use super::ipu::{
    FB_COPY, FB_COPYTEX, FB_READ, OP_BITMAP, OP_CONV_FILTER, OP_CONVOLUTION, OP_COPY, OP_COPYTEX,
    OP_DRAW, OP_INDEX, OP_MAPCOLOR, OP_PIXELMAP, OP_POP, OP_PUSH, OP_RASTER, OP_RASTER_POS,
    OP_READ, OP_TRANSFER, OP_ZOOM, bytes_per_pixel, lo_hi, map_size_ok,
};

/// Output ports, in the order the model counts their transfers.
const OUT_PORTS: [&str; 7] = [
    "pass", "dma_req", "pix", "status", "fb_req", "dma_out", "tex",
];
const PASS: usize = 0;
const DMA_REQ: usize = 1;
const PIX: usize = 2;
const STATUS: usize = 3;
const FB_REQ: usize = 4;
const DMA_OUT: usize = 5;
const TEX: usize = 6;

/// Runs longer than this are not predicted.
const MAX_CLOCKS: u64 = 1 << 32;

/// Zoom factor 1.0 (Q7.16).
const ONE: u32 = 0x1_0000;

/// Clocks from reset release to the last output transfer when `v` runs through the unit
/// with every input offering its next item at once and every output always ready; `None`
/// if the stream leaves expected outputs undelivered (the model would wait forever).
pub fn clocks(ipu: &Ipu, pipe: &Pipe, v: &VectorSet) -> Option<u64> {
    let items = |p: &str| v.port(p).map_or(&[][..], |p| p.items.as_slice());
    let cmds: Vec<u32> = items("cmd").iter().map(|b| b.low_u64() as u32).collect();
    let mut expected = [0u64; 7];
    for (e, p) in expected.iter_mut().zip(OUT_PORTS) {
        *e = items(p).len() as u64;
    }
    let mut sim = Sim::new(Inputs {
        ipu,
        pipe: *pipe,
        cmds: &cmds,
        dma: items("dma"),
        fb_words: items("fb").len(),
    });
    let mut cycles = 0u64;
    while sim.sent.iter().zip(&expected).any(|(s, e)| s < e) {
        // A clock that changes nothing repeats forever: outputs would never come.
        if !sim.clock() || cycles > MAX_CLOCKS {
            return None;
        }
        cycles += 1;
    }
    Some(cycles)
}

/// What a beat carries for timing: its pixels, and whether it ends the image (the
/// packer's `in_last`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Beat {
    n: u32,
    last: bool,
}

impl Beat {
    /// The beat as the item of a handshake stage model: `{n, last}`.
    fn bits(self) -> Bits {
        Bits::from_u64(8, u64::from(self.n) << 1 | u64::from(self.last))
    }

    fn from_bits(b: &Bits) -> Self {
        let v = b.low_u64();
        Self {
            n: (v >> 1) as u32,
            last: v & 1 == 1,
        }
    }
}

/// A handshake register (`hs_bypass`, `hs_bubble`, `hs_skid`, `hs_fifo`): the handshake
/// stage model, carrying beats.
#[derive(Debug, Clone)]
struct Reg(Stage);

/// Equal when the stages hold the same items (`Stage` itself has no `PartialEq`).
impl PartialEq for Reg {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Stage::Bypass, Stage::Bypass) => true,
            (Stage::Bubble { item: a }, Stage::Bubble { item: b }) => a == b,
            (Stage::Skid { out: a, skid: s }, Stage::Skid { out: b, skid: t }) => a == b && s == t,
            (Stage::Fifo { depth: d, items: a }, Stage::Fifo { depth: e, items: b }) => {
                d == e && a == b
            }
            _ => false,
        }
    }
}

impl Reg {
    fn new(kind: StageKind) -> Self {
        Self(Stage::new(kind))
    }

    fn offer(&self, input: Option<Beat>) -> Option<Beat> {
        let input = input.map(Beat::bits);
        self.0.offer(input.as_ref()).map(Beat::from_bits)
    }

    fn ready(&self, out_ready: bool) -> bool {
        self.0.ready(out_ready)
    }

    fn clock(&mut self, accepted: Option<Beat>, taken: bool) {
        self.0.clock(accepted.map(Beat::bits), taken);
    }
}

/// The FSM's registers the stages read.
#[derive(Debug, Clone, Copy)]
struct Ctx {
    lanes: u32,
    width: u32,
    height: u32,
    conv_on: bool,
    kw: u32,
    kh: u32,
    zoom_on: bool,
    xmag: u64,
    ymag: u64,
}

impl Ctx {
    /// The image after the filter (GL_REDUCE), 16-bit as in the RTL.
    fn image(&self) -> (u32, u32) {
        if self.conv_on {
            (
                (self.width + 1).wrapping_sub(self.kw) & 0xffff,
                (self.height + 1).wrapping_sub(self.kh) & 0xffff,
            )
        } else {
            (self.width, self.height)
        }
    }
}

const OFF_MASK: u64 = (1 << (ZOOM_ACC_W - 16)) - 1;
const ACC_MASK: u64 = (1 << ZOOM_ACC_W) - 1;
const ACC_INIT: u64 = 0x7fff;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ZoomSt {
    Stream,
    Rewind,
    Replay,
}

/// `ipu_zoom.v`: a bubble register while both factors are 1.0, else its row FSM over
/// groups of a row's pixels: an input beat while streaming, `lanes` pixels of the line
/// buffer (fewer at the row's end) while replaying; a group's columns `lanes` a beat.
#[derive(Debug, Clone, PartialEq)]
struct Zoom {
    st: ZoomSt,
    i: u32,
    j: u32,
    ax: u64,
    ay: u64,
    ox: u64,
    oy: u64,
    out: Option<Beat>,
}

/// The current group as the RTL's combinational logic sees it.
struct Group {
    /// Its pixels.
    n: u32,
    /// The accumulator after it.
    ax_next: u64,
    want: bool,
    last_out: bool,
    cnt: u64,
}

impl Zoom {
    fn new() -> Self {
        Self {
            st: ZoomSt::Stream,
            i: 0,
            j: 0,
            ax: ACC_INIT,
            ay: ACC_INIT,
            ox: 0,
            oy: 0,
            out: None,
        }
    }

    fn busy(&self) -> bool {
        self.out.is_some() || self.st != ZoomSt::Stream || self.i != 0 || self.j != 0
    }

    fn group(&self, input: Option<Beat>, c: &Ctx) -> Group {
        let (w, _) = c.image();
        let n = if self.st == ZoomSt::Stream {
            input.map_or(1, |b| b.n)
        } else {
            c.lanes.min(w.wrapping_sub(self.i) & 0xffff)
        };
        let ax_next = (self.ax + u64::from(n) * c.xmag) & ACC_MASK;
        let x_end = ax_next >> 16;
        let y_end = ((self.ay + c.ymag) & ACC_MASK) >> 16;
        let want = self.oy != y_end && self.ox != x_end;
        let left = x_end.wrapping_sub(self.ox) & OFF_MASK;
        let lanes = u64::from(c.lanes);
        let last_out = left <= lanes;
        Group {
            n,
            ax_next,
            want,
            last_out,
            cnt: if last_out { left } else { lanes },
        }
    }

    fn ready(&self, input: Option<Beat>, out_ready: bool, c: &Ctx) -> bool {
        let out_free = self.out.is_none() || out_ready;
        if !c.zoom_on {
            return out_free;
        }
        let g = self.group(input, c);
        self.st == ZoomSt::Stream && (!g.want || (out_free && g.last_out))
    }

    fn clock(&mut self, input: Option<Beat>, out_ready: bool, c: &Ctx) {
        let out_free = self.out.is_none() || out_ready;
        let taken = self.out.is_some() && out_ready;
        if !c.zoom_on {
            if out_free {
                self.out = input;
            }
            return;
        }
        let (w, h) = c.image();
        let g = self.group(input, c);
        let streaming = self.st == ZoomSt::Stream;
        let src_valid = if streaming {
            input.is_some()
        } else {
            self.st == ZoomSt::Replay
        };
        let adv_ok = !g.want || (out_free && g.last_out);
        let advance = src_valid && adv_ok;
        let emit = src_valid && g.want && out_free;
        let y_end = ((self.ay + c.ymag) & ACC_MASK) >> 16;
        let row_live = self.oy != y_end;
        let mut next = self.clone();
        if emit {
            next.ox = (self.ox + g.cnt) & OFF_MASK;
        }
        if self.st == ZoomSt::Rewind {
            next.st = ZoomSt::Replay;
        }
        if advance {
            next.ax = g.ax_next;
            next.i = (self.i + g.n) & 0xffff;
            if next.i == w {
                next.i = 0;
                next.ax = ACC_INIT;
                next.ox = 0;
                if row_live && (self.oy + 1) & OFF_MASK != y_end {
                    next.oy = (self.oy + 1) & OFF_MASK;
                    next.st = if streaming {
                        ZoomSt::Rewind
                    } else {
                        ZoomSt::Replay
                    };
                } else {
                    next.oy = y_end;
                    next.st = ZoomSt::Stream;
                    next.j = (self.j + 1) & 0xffff;
                    next.ay = (self.ay + c.ymag) & ACC_MASK;
                    if self.j == h.wrapping_sub(1) & 0xffff {
                        next.j = 0;
                        next.ay = ACC_INIT;
                        next.oy = 0;
                    }
                }
            }
        }
        next.out = if emit {
            Some(Beat {
                n: g.cnt as u32,
                last: false,
            })
        } else if taken {
            None
        } else {
            self.out
        };
        *self = next;
    }
}

/// `ipu_conv.v`: a bubble register while CONVOLUTION is off, else a pixel a clock into
/// the window, then the row-sum register, then the output register.
#[derive(Debug, Clone, PartialEq)]
struct Conv {
    c: u32,
    r: u32,
    sub: u32,
    win: Option<Beat>,
    rs: Option<Beat>,
    out: Option<Beat>,
}

impl Conv {
    fn busy(&self) -> bool {
        self.out.is_some()
            || self.rs.is_some()
            || self.win.is_some()
            || self.c != 0
            || self.r != 0
            || self.sub != 0
    }

    fn ready(&self, input: Option<Beat>, out_ready: bool, c: &Ctx) -> bool {
        let out_free = self.out.is_none() || out_ready;
        if !c.conv_on {
            return out_free;
        }
        let rs_free = self.rs.is_none() || out_free;
        let win_free = self.win.is_none() || rs_free;
        win_free && input.is_none_or(|b| self.sub + 1 >= b.n)
    }

    fn clock(&mut self, input: Option<Beat>, out_ready: bool, c: &Ctx) {
        let out_free = self.out.is_none() || out_ready;
        let taken = self.out.is_some() && out_ready;
        if !c.conv_on {
            if out_free {
                self.out = input;
            }
            return;
        }
        let rs_free = self.rs.is_none() || out_free;
        let win_free = self.win.is_none() || rs_free;
        let mut out = if taken { None } else { self.out };
        if self.rs.is_some() && out_free {
            out = self.rs;
        }
        let mut rs = if out_free { None } else { self.rs };
        if self.win.is_some() && rs_free {
            rs = self.win;
        }
        let mut win = if rs_free { None } else { self.win };
        if let Some(b) = input.filter(|_| win_free) {
            let last_col = self.c == c.width.wrapping_sub(1) & 0xffff;
            let last_row = self.r == c.height.wrapping_sub(1) & 0xffff;
            let complete = self.c + 1 >= c.kw && self.r + 1 >= c.kh;
            win = complete.then_some(Beat {
                n: 1,
                last: last_col && last_row,
            });
            self.sub = if self.sub + 1 >= b.n { 0 } else { self.sub + 1 };
            self.c = (self.c + 1) & 0xffff;
            if last_col {
                self.c = 0;
                self.r = if last_row { 0 } else { (self.r + 1) & 0xffff };
            }
        }
        self.win = win;
        self.rs = rs;
        self.out = out;
    }
}

/// A stage after the bias register.
#[derive(Debug, Clone, PartialEq)]
enum Elem {
    Reg(Reg),
    Conv(Conv),
    Zoom(Zoom),
}

impl Elem {
    fn offer(&self, input: Option<Beat>) -> Option<Beat> {
        match self {
            Self::Reg(r) => r.offer(input),
            Self::Conv(c) => c.out,
            Self::Zoom(z) => z.out,
        }
    }

    fn ready(&self, input: Option<Beat>, out_ready: bool, c: &Ctx) -> bool {
        match self {
            Self::Reg(r) => r.ready(out_ready),
            Self::Conv(v) => v.ready(input, out_ready, c),
            Self::Zoom(z) => z.ready(input, out_ready, c),
        }
    }

    fn clock(&mut self, input: Option<Beat>, in_ready: bool, out_ready: bool, c: &Ctx) {
        let taken = self.offer(input).is_some() && out_ready;
        match self {
            Self::Reg(r) => r.clock(input.filter(|_| in_ready), taken),
            Self::Conv(v) => v.clock(input, out_ready, c),
            Self::Zoom(z) => z.clock(input, out_ready, c),
        }
    }

    /// The stage's part of `drained` (registers before bias count as `inflight`).
    fn busy(&self) -> bool {
        match self {
            Self::Reg(r) => r.offer(None).is_some(),
            Self::Conv(c) => c.busy(),
            Self::Zoom(z) => z.busy(),
        }
    }
}

/// `ipu_pack.v`: bytes of a held beat into words of `word` bytes (`dma_word_bits / 8`),
/// behind the rounding's own bubble register where the schedule gives it one.
#[derive(Debug, Clone, PartialEq)]
struct Pack {
    pre: Option<Reg>,
    full: bool,
    off: u32,
    len: u32,
    last: bool,
    n: u32,
    out: bool,
    word: u32,
}

impl Pack {
    fn busy(&self) -> bool {
        self.full
            || self.n != 0
            || self.out
            || self.pre.as_ref().is_some_and(|r| r.offer(None).is_some())
    }

    fn fits(&self) -> bool {
        self.len - self.off <= self.word - self.n
    }

    /// The beat register takes a beat.
    fn core_ready(&self) -> bool {
        !self.full || self.fits()
    }

    fn ready(&self) -> bool {
        match &self.pre {
            Some(r) => r.ready(self.core_ready()),
            None => self.core_ready(),
        }
    }

    /// A clock with the output always ready; `input` the beat taken, if any.
    fn clock(&mut self, input: Option<Beat>, bpp_log: u32) {
        let input = match self.pre.take() {
            Some(mut r) => {
                let core_ready = self.core_ready();
                let inner = r.offer(None).filter(|_| core_ready);
                r.clock(input, inner.is_some());
                self.pre = Some(r);
                inner
            }
            None => input,
        };
        let fits = self.fits();
        let mut next = self.clone();
        next.out = false;
        if self.full {
            let take = if fits {
                self.len - self.off
            } else {
                self.word - self.n
            };
            let total = self.n + take;
            let word_now = total == self.word || (fits && self.last);
            next.off = self.off + take;
            if fits {
                next.full = false;
            }
            if word_now {
                next.out = true;
                next.n = 0;
            } else {
                next.n = total;
            }
        }
        if let Some(b) = input {
            next.full = true;
            next.off = 0;
            next.len = b.n << bpp_log;
            next.last = b.last;
        }
        *self = next;
    }
}

/// What a run reads and never changes.
#[derive(Debug, Clone, Copy)]
struct Inputs<'a> {
    ipu: &'a Ipu,
    pipe: Pipe,
    cmds: &'a [u32],
    dma: &'a [Bits],
    fb_words: usize,
}

/// Equal within a run: a clock that changes nothing else changed nothing.
impl PartialEq for Inputs<'_> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// The unit, clock by clock.
#[derive(Debug, Clone, PartialEq)]
struct Sim<'a> {
    inp: Inputs<'a>,
    cmd_i: usize,
    dma_i: usize,
    fb_i: usize,
    sent: [u64; 7],
    state: State,
    act: Act,
    sel: u32,
    sp: u32,
    col: u32,
    row: u32,
    byte: u32,
    inflight: u32,
    pass_valid: bool,
    zx: u32,
    zy: u32,
    zx_new: u32,
    value: u32,
    stack: Vec<(u32, u32)>,
    width: u32,
    height: u32,
    fbop: u32,
    got: bool,
    to_pack: bool,
    to_tex: bool,
    pkfmt: u32,
    bm_valid: bool,
    /// `drained` as the FSM's flop holds it (`Pipe::drained_reg`).
    drained_q: bool,
    conv_on: bool,
    kw: u32,
    kh: u32,
    fclr: bool,
    fsel: (u32, u32),
    e: u32,
    mlast: u32,
    /// Registers after unpack, scale and bias, the fetch register before them and the
    /// bias's sum register before bias's where the schedule has them
    /// (`Pipe::unpack_fetch`, `Pipe::bias_sum`).
    regs: Vec<Reg>,
    /// Stages after bias: maps (and a register behind), filter, zoom (and a register).
    after: Vec<Elem>,
    pack: Pack,
}

impl<'a> Sim<'a> {
    fn new(inp: Inputs<'a>) -> Self {
        let ipu = inp.ipu;
        let kind = |i: usize| ipu.registers.get(i).copied().unwrap_or(StageKind::Bubble);
        let mut after = Vec::new();
        if ipu.pixel_map.is_some() {
            // The map stage's registers, as many as the clock's schedule gives it.
            for _ in 0..inp.pipe.map_stages() {
                after.push(Elem::Reg(Reg::new(StageKind::Bubble)));
            }
            if inp.pipe.map_register != StageKind::Bubble {
                after.push(Elem::Reg(Reg::new(inp.pipe.map_register)));
            }
        }
        if ipu.convolution.is_some() {
            after.push(Elem::Conv(Conv {
                c: 0,
                r: 0,
                sub: 0,
                win: None,
                rs: None,
                out: None,
            }));
        }
        if ipu.zoom.is_some() {
            after.push(Elem::Zoom(Zoom::new()));
            if inp.pipe.zoom_register != StageKind::Bubble {
                after.push(Elem::Reg(Reg::new(inp.pipe.zoom_register)));
            }
        }
        Self {
            inp,
            cmd_i: 0,
            dma_i: 0,
            fb_i: 0,
            sent: [0; 7],
            state: State::Idle,
            act: Act::Transfer,
            sel: 0,
            sp: 0,
            col: 0,
            row: 0,
            byte: 0,
            inflight: 0,
            pass_valid: false,
            zx: ONE,
            zy: ONE,
            zx_new: ONE,
            value: 0,
            stack: vec![(ONE, ONE); ipu.stack_depth as usize],
            width: 0,
            height: 0,
            fbop: 1,
            got: false,
            to_pack: false,
            to_tex: false,
            pkfmt: 0,
            bm_valid: false,
            drained_q: true,
            conv_on: false,
            kw: 1,
            kh: 1,
            fclr: false,
            fsel: (1, 1),
            e: 0,
            mlast: 0,
            regs: inp
                .pipe
                .unpack_fetch
                .then(|| Reg::new(StageKind::Bubble))
                .into_iter()
                .chain((0..2).map(|i| Reg::new(kind(i))))
                .chain(inp.pipe.bias_sum.then(|| Reg::new(StageKind::Skid)))
                .chain(std::iter::once(Reg::new(kind(2))))
                .collect(),
            after,
            pack: Pack {
                pre: inp.pipe.pack_narrow.then(|| Reg::new(StageKind::Bubble)),
                full: false,
                off: 0,
                len: 0,
                last: false,
                n: 0,
                out: false,
                word: ipu.dma_word_bits / 8,
            },
        }
    }

    /// Bytes a DMA word holds.
    fn wb(&self) -> u32 {
        self.inp.ipu.dma_word_bits / 8
    }

    /// (enabled, bytes per pixel log2) of the pending command's format.
    fn format(&self) -> (bool, u32) {
        let ok = self.inp.ipu.formats.get(self.sel as usize).copied() == Some(true);
        (
            ok,
            bytes_per_pixel(self.sel).max(1).trailing_zeros() * u32::from(ok),
        )
    }

    fn fb_act(&self) -> bool {
        self.act == Act::Fb
    }

    fn drained(&self) -> bool {
        self.inflight == 0
            && self.after.iter().all(|e| !e.busy())
            && !self.bm_valid
            && !self.pack.busy()
    }

    fn ctx(&self) -> Ctx {
        let pack = self.to_pack;
        let (zx, zy) = if pack { (ONE, ONE) } else { (self.zx, self.zy) };
        let mag = |z: u32| {
            let z = z & 0xff_ffff;
            u64::from(if z & 0x80_0000 != 0 {
                0x100_0000 - z
            } else {
                z
            })
        };
        Ctx {
            lanes: self.inp.ipu.lanes,
            width: self.width,
            height: self.height,
            conv_on: self.conv_on,
            kw: self.kw,
            kh: self.kh,
            zoom_on: zx & 0xff_ffff != ONE || zy & 0xff_ffff != ONE,
            xmag: mag(zx),
            ymag: mag(zy),
        }
    }

    /// The unpack stage's next group: (pixels, last of its row, last of the draw, the
    /// word done).
    fn group(&self) -> (u32, bool, bool, bool) {
        let fb = self.fb_act();
        let (_, bpp_log) = self.format();
        let step_log = if fb { 0 } else { bpp_log };
        let word = if fb { 4 } else { self.wb() };
        let slots = (word - self.byte) >> step_log;
        let left = self.width.wrapping_sub(self.col) & 0xffff;
        let cap = slots.min(self.inp.ipu.lanes);
        let group = left.min(cap);
        let byte_end = self.byte + (group << step_log);
        let last_col = left == group;
        let last_row = self.row == self.height.wrapping_sub(1) & 0xffff;
        let last_px = last_col && last_row;
        let word_done = byte_end == word || last_px || (fb && last_col);
        (group, last_col, last_px, word_done)
    }

    /// One clock; false when nothing changed (the unit waits for input that never comes).
    fn clock(&mut self) -> bool {
        let before = self.clone();
        let ctx = self.ctx();
        let drained_now = self.drained();
        let drained = if self.inp.pipe.drained_reg {
            self.drained_q
        } else {
            drained_now
        };
        let cmd = self.inp.cmds.get(self.cmd_i).copied();
        let unpack = self.clock_pipeline(&ctx);
        self.clock_outputs();
        let take_cmd = match self.state {
            State::Idle => self.idle(cmd),
            State::Receive1 => self.receive_1(cmd, drained),
            State::Receive2 => self.receive_2(cmd),
            State::SendOneIdle => {
                self.send_one_idle(drained);
                false
            }
            State::Bitmap => {
                self.bitmap();
                false
            }
            State::PixelMap => self.pixel_map(cmd, drained),
            State::Filter => self.filter(cmd, drained),
            State::SendPara => {
                self.send_para();
                false
            }
            State::Pipeline | State::WaitFifo => {
                self.issue(unpack);
                false
            }
        };
        if take_cmd {
            self.cmd_i += 1;
        }
        // The flop: drained now. A pixel issued or a fragment loaded in this clock needs no
        // term: only PIPELINE, WAIT_FIFO and BITMAP issue them, and the state after them
        // (IDLE, or one of them) never reads `drained`.
        self.drained_q = drained_now;
        *self != before
    }

    /// The pipeline's clock: offers forward, readies backward, then every stage's edge;
    /// returns the unpack stage's group and whether it issued.
    fn clock_pipeline(&mut self, ctx: &Ctx) -> Unpack {
        let in_pipe = self.state == State::Pipeline;
        let src_valid = if self.fb_act() {
            self.fb_i < self.inp.fb_words
        } else {
            self.dma_i < self.inp.dma.len()
        };
        let (group, last_col, last_px, word_done) = self.group();
        let unpack = (in_pipe && src_valid).then_some(Beat {
            n: group,
            last: last_px,
        });
        let mut offers = vec![unpack];
        for r in &self.regs {
            let o = r.offer(*offers.last().unwrap_or(&None));
            offers.push(o);
        }
        for e in &self.after {
            let o = e.offer(*offers.last().unwrap_or(&None));
            offers.push(o);
        }
        let n = offers.len() - 1;
        let tail_ready = if self.to_pack {
            self.pack.ready()
        } else {
            !self.bm_valid
        };
        // The registers up to bias: offers[nr] is the bias register's.
        let nr = self.regs.len();
        let mut readies = vec![false; n + 1];
        readies[n] = tail_ready;
        for k in (0..self.after.len()).rev() {
            readies[nr + k] = self.after[k].ready(offers[nr + k], readies[nr + k + 1], ctx);
        }
        for k in (0..nr).rev() {
            readies[k] = self.regs[k].ready(readies[k + 1]);
        }
        let issue = unpack.is_some() && readies[0];
        let bias_take = offers[nr].is_some() && readies[nr];
        let tail = offers[n].filter(|_| tail_ready);
        for k in 0..nr {
            let taken = offers[k + 1].is_some() && readies[k + 1];
            self.regs[k].clock(offers[k].filter(|_| readies[k]), taken);
        }
        for k in 0..self.after.len() {
            self.after[k].clock(offers[nr + k], readies[nr + k], readies[nr + k + 1], ctx);
        }
        if self.pack.out {
            self.sent[if self.to_tex { TEX } else { DMA_OUT }] += 1;
        }
        let pk_bpp_log = bytes_per_pixel(self.pkfmt).max(1).trailing_zeros();
        self.pack.clock(tail.filter(|_| self.to_pack), pk_bpp_log);
        if tail.is_some() && !self.to_pack {
            self.sent[PIX] += 1;
        }
        self.inflight = self.inflight + u32::from(issue) - u32::from(bias_take);
        Unpack {
            issue,
            group,
            last_col,
            last_px,
            word_done,
        }
    }

    /// The pass and bitmap registers: a word or fragment leaves the clock after it loads.
    fn clock_outputs(&mut self) {
        if self.pass_valid {
            self.sent[PASS] += 1;
        }
        self.pass_valid = false;
        if self.bm_valid {
            self.sent[PIX] += 1;
        }
        self.bm_valid = false;
    }

    /// IDLE: decodes a command word (taken at once); true as it takes it.
    fn idle(&mut self, cmd: Option<u32>) -> bool {
        let Some(w) = cmd else {
            return false;
        };
        let ipu = self.inp.ipu;
        let op = cmd_field(w, &CMD_OP);
        if is_ipu_opcode(ipu, op) {
            self.sel = cmd_field(w, &CMD_SEL);
        }
        let go = |s: &mut Self, act: Act, state: State| {
            s.act = act;
            s.state = state;
        };
        match op {
            OP_TRANSFER => go(self, Act::Transfer, State::Receive1),
            OP_PUSH => go(self, Act::Push, State::SendOneIdle),
            OP_POP => go(self, Act::Pop, State::SendOneIdle),
            OP_DRAW => go(self, Act::Draw, State::Receive1),
            OP_INDEX if ipu.formats[CI8] => go(self, Act::Index, State::Receive1),
            OP_ZOOM if ipu.zoom.is_some() => {
                self.zx_new = cmd_field(w, &CMD_FACTOR);
                go(self, Act::Zoom, State::Receive1);
            }
            OP_PIXELMAP if ipu.pixel_map.is_some() => {
                let size = ipu.pixel_map.map_or(0, |p| p.size);
                let entries = cmd_field(w, &CMD_MAP_COUNT);
                self.e = 0;
                self.mlast = entries.wrapping_sub(1) & 0x1fff;
                if map_size_ok(cmd_field(w, &CMD_SEL), entries, size) {
                    self.state = State::PixelMap;
                } else {
                    go(self, Act::MapSize, State::SendOneIdle);
                }
            }
            OP_MAPCOLOR if ipu.pixel_map.is_some() => {
                go(self, Act::MapColor, State::SendOneIdle);
            }
            OP_RASTER if ipu.bitmap => go(self, Act::Raster, State::Receive1),
            OP_BITMAP if ipu.bitmap => go(self, Act::Bitmap, State::Receive1),
            OP_RASTER_POS if ipu.bitmap => go(self, Act::RasterPos, State::Receive1),
            OP_READ | OP_COPY | OP_COPYTEX if ipu.framebuffer => {
                self.fbop = op & 3;
                go(self, Act::Fb, State::Receive1);
            }
            OP_CONV_FILTER if ipu.convolution.is_some() => {
                let k = ipu.convolution.map_or(0, |c| c.size);
                let (kw, kh) = (cmd_field(w, &CMD_KERNEL_W), cmd_field(w, &CMD_KERNEL_H));
                self.fsel = (kw, kh);
                if kw != 0 && kw <= k && kh != 0 && kh <= k {
                    self.fclr = true;
                    self.state = State::Filter;
                } else {
                    go(self, Act::FilterSize, State::SendOneIdle);
                }
            }
            OP_CONVOLUTION if ipu.convolution.is_some() => {
                go(self, Act::Conv, State::SendOneIdle);
            }
            _ => self.pass_valid = true,
        }
        true
    }

    /// RECEIVE_1: a value, or a size (a draw's waits for the unit to drain where the
    /// config makes draws wait).
    fn receive_1(&mut self, cmd: Option<u32>, drained: bool) -> bool {
        let ipu = self.inp.ipu;
        let waits = ipu.zoom.is_some()
            || ipu.convolution.is_some()
            || ipu.framebuffer
            || ipu.bitmap
            || ipu.formats[CI8];
        let ready = !waits || !self.act.size_waits() || drained;
        let Some(w) = cmd.filter(|_| ready) else {
            return false;
        };
        if self.act.takes_value() {
            self.value = w;
            self.state = State::SendOneIdle;
        } else {
            (self.width, self.height) = lo_hi(w);
            self.state = State::Receive2;
            self.got = false;
            self.to_pack = self.fb_act() && self.fbop != FB_COPY;
            self.to_tex = self.fb_act() && self.fbop == FB_COPYTEX;
            self.pkfmt = self.sel;
        }
        true
    }

    /// RECEIVE_2: a position (a copy's source first), then the checks before a transfer.
    fn receive_2(&mut self, cmd: Option<u32>) -> bool {
        if cmd.is_none() {
            return false;
        }
        if self.fb_act() && !self.got && self.fbop != FB_READ {
            self.got = true;
            return true;
        }
        self.got = false;
        self.col = 0;
        self.row = 0;
        self.byte = 0;
        let ipu = self.inp.ipu;
        let (fmt_ok, _) = self.format();
        // Colour indices are drawn only.
        let fmt_ok = fmt_ok && !(self.fb_act() && self.sel == CI8 as u32);
        let empty = self.width == 0 || self.height == 0;
        let conv_line = ipu.convolution.filter(|c| c.size > 1).map(|c| c.line);
        if self.act == Act::Bitmap {
            self.state = if empty { State::Idle } else { State::SendPara };
        } else if !(fmt_ok || (self.fb_act() && self.fbop == FB_COPY)) {
            self.act = Act::Format;
            self.state = State::SendOneIdle;
        } else if ipu
            .zoom
            .is_some_and(|line| !self.to_pack && self.width > line)
            || conv_line.is_some_and(|line| self.conv_on && self.width > line)
        {
            self.act = Act::Width;
            self.state = State::SendOneIdle;
        } else if empty {
            self.state = State::Idle;
        } else {
            self.state = State::SendPara;
        }
        true
    }

    /// SEND_ONE_IDLE: a status event, a push, or (once drained) the parameter change.
    fn send_one_idle(&mut self, drained: bool) {
        let full = self.sp == self.inp.ipu.stack_depth;
        let event = matches!(
            self.act,
            Act::Format | Act::Width | Act::FilterSize | Act::MapSize
        ) || (self.act == Act::Push && full)
            || (self.act == Act::Pop && self.sp == 0);
        if event {
            self.sent[STATUS] += 1;
            self.state = State::Idle;
        } else if self.act == Act::Push {
            self.stack[self.sp as usize] = (self.zx, self.zy);
            self.sp += 1;
            self.state = State::Idle;
        } else if drained {
            match self.act {
                Act::Pop => {
                    self.sp -= 1;
                    (self.zx, self.zy) = self.stack[self.sp as usize];
                }
                Act::Zoom => {
                    self.zx = self.zx_new;
                    self.zy = self.value & 0xff_ffff;
                }
                Act::Conv => self.conv_on = self.sel & 1 == 1,
                _ => {}
            }
            self.state = State::Idle;
        }
    }

    /// BITMAP: a bit a clock from the DMA word, a fragment for each set bit.
    fn bitmap(&mut self) {
        let Some(word) = self.inp.dma.get(self.dma_i) else {
            return;
        };
        let bit = word.field(self.byte * 8 + 7 - (self.col & 7), 1) == 1;
        let last_col = self.col == self.width.wrapping_sub(1) & 0xffff;
        let last_row = self.row == self.height.wrapping_sub(1) & 0xffff;
        let byte_end = self.col & 7 == 7 || last_col;
        let word_end = byte_end && (self.byte == self.wb() - 1 || (last_col && last_row));
        self.bm_valid = bit;
        if byte_end {
            self.byte = (self.byte + 1) % self.wb();
        }
        if word_end {
            self.dma_i += 1;
        }
        if last_col {
            self.col = 0;
            self.row += 1;
            if last_row {
                self.state = State::Idle;
            }
        } else {
            self.col += 1;
        }
    }

    /// PIXELMAP: an entry a clock once drained, a command word every fourth (or the last).
    fn pixel_map(&mut self, cmd: Option<u32>, drained: bool) -> bool {
        if cmd.is_none() || !drained {
            return false;
        }
        let take = self.e & 3 == 3 || self.e == self.mlast;
        if self.e == self.mlast {
            self.state = State::Idle;
        }
        self.e += 1;
        take
    }

    /// FILTER: the weights cleared once drained, then a weight a word.
    fn filter(&mut self, cmd: Option<u32>, drained: bool) -> bool {
        if self.fclr {
            if drained {
                self.fclr = false;
                (self.kw, self.kh) = self.fsel;
                self.col = 0;
                self.row = 0;
            }
            return false;
        }
        if cmd.is_none() {
            return false;
        }
        if (self.col & 7) == (self.kw.wrapping_sub(1) & 7) {
            self.col = 0;
            if (self.row & 7) == (self.kh.wrapping_sub(1) & 7) {
                self.state = State::Idle;
            }
            self.row += 1;
        } else {
            self.col += 1;
        }
        true
    }

    /// SEND_PARA: the DMA or framebuffer request, taken at once.
    fn send_para(&mut self) {
        self.sent[if self.fb_act() { FB_REQ } else { DMA_REQ }] += 1;
        self.state = if self.act == Act::Bitmap {
            State::Bitmap
        } else {
            State::Pipeline
        };
    }

    /// PIPELINE (and WAIT_FIFO): the unpack stage's group issued advances the position.
    fn issue(&mut self, u: Unpack) {
        if !u.issue {
            return;
        }
        if u.word_done {
            self.byte = 0;
            if self.fb_act() {
                self.fb_i += 1;
            } else {
                self.dma_i += 1;
            }
        } else {
            self.byte += u.group << if self.fb_act() { 0 } else { self.format().1 };
        }
        if u.last_col {
            self.col = 0;
            self.row = (self.row + 1) & 0xffff;
        } else {
            self.col += u.group;
        }
        if u.last_px {
            self.state = State::Idle;
        }
    }
}

/// The unpack stage this clock: the group it offered, whether it issued, and where the
/// group ends (its row, the draw, the source word).
#[derive(Debug, Clone, Copy)]
struct Unpack {
    issue: bool,
    group: u32,
    last_col: bool,
    last_px: bool,
    word_done: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config;
    use crate::iface::timing::Timing;
    use crate::model::ipu::{self as m, Stream};

    fn ipu(body: &str) -> Ipu {
        let text = format!("[design]\nname = \"t\"\n[ipu]\n{body}");
        config::parse(&text, "t").expect("valid").ipu.expect("ipu")
    }

    /// At a slow clock: the shortest pipeline (the figures below count its registers).
    fn model_clocks(ipu: &Ipu, s: &Stream) -> u64 {
        let (v, _) = m::encode(ipu, s, 1);
        let slow = Timing::new(&config::ClockSection {
            target_mhz: 50.0,
            family: config::Family::Ecp5,
        });
        clocks(ipu, &Pipe::new(ipu, &slow), &v).expect("finishes")
    }

    /// A stream of commands and 32-bit DMA units.
    fn stream(cmds: &[u32], dma: &[u32]) -> Stream {
        Stream {
            cmds: cmds.to_vec(),
            dma: dma.to_vec(),
            ..Stream::default()
        }
    }

    #[test]
    fn a_passed_word_takes_two_clocks() {
        // Taken in IDLE at clock 0, out of the pass register at clock 1.
        assert_eq!(
            model_clocks(&ipu("lanes = 1\n"), &stream(&[0x1000_0000], &[])),
            2
        );
    }

    #[test]
    fn draws_cost_their_words_request_beats_and_latency() {
        // Bubble x 3, nothing after bias, no drain wait: words at clocks 0, 1, 2, the
        // request at 3, a beat a clock from 4 (one rgba8888 pixel a 32-bit word), each
        // on pix 3 clocks after its issue: N pixels end at clock N + 7.
        let plain = ipu("lanes = 1\n");
        let draw = m::cmd_draw(0, 2, 2, 0, 0);
        assert_eq!(model_clocks(&plain, &stream(&draw, &[1, 2, 3, 4])), 11);
        // The next draw's first word is taken the clock after the last issue.
        let two: Vec<u32> = draw.iter().chain(&draw).copied().collect();
        assert_eq!(model_clocks(&plain, &stream(&two, &[7; 8])), 19);
        // 4 l8 pixels share a word but take a beat each at one lane.
        let l8 = m::cmd_draw(5, 4, 1, 0, 0);
        assert_eq!(model_clocks(&plain, &stream(&l8, &[0])), 11);
        // 4 lanes: one beat for the word's 4 pixels.
        let four = ipu("lanes = 4\n");
        assert_eq!(model_clocks(&four, &stream(&l8, &[0])), 8);
        // With zoom (a bubble register in bypass) and maps after bias, the next draw
        // waits in RECEIVE_1 for the pipeline to drain: 5 registers, so N + 8 a draw.
        let staged = ipu(
            "lanes = 1\n[ipu.zoom]\nenabled = true\n[ipu.pixel_map]\nenabled = true\nmaps = [\"r_to_r\"]\n",
        );
        assert_eq!(model_clocks(&staged, &stream(&draw, &[0; 4])), 4 + 4 + 5);
        assert_eq!(
            model_clocks(&staged, &stream(&two, &[0; 8])),
            12 + 4 + 4 + 5
        );
        // A one-deep FIFO after unpack takes a beat every other clock.
        let slow = ipu("lanes = 1\nregisters = [\"fifo:1\", \"bubble\", \"bubble\"]\n");
        assert_eq!(
            model_clocks(&slow, &stream(&draw, &[0; 4])),
            4 + 2 * 3 + 1 + 3
        );
    }

    #[test]
    fn stack_events_and_bitmaps() {
        // Two pushes on a one-deep stack: the second is status event 1 at clock 3.
        let one = ipu("lanes = 1\nstack_depth = 1\n");
        assert_eq!(
            model_clocks(&one, &stream(&[m::cmd_push(), m::cmd_push()], &[])),
            4
        );
        // RASTER_POS (clocks 0-2), BITMAP's words (3-5), its request (6), a bit a clock
        // from 7, a fragment on pix the clock after its bit.
        let bm = ipu("lanes = 1\nbitmap = true\n");
        let cmds = m::cmd_bitmap(8, 1, 0, 0);
        assert_eq!(model_clocks(&bm, &stream(&cmds, &[0xff])), 16);
        // Only the first bit (bit 7, the leftmost pixel) set: its fragment at clock 8.
        assert_eq!(model_clocks(&bm, &stream(&cmds, &[0x80])), 9);
    }

    #[test]
    fn zoom_replays_rows_and_takes_a_pixel_a_clock() {
        // 2x zoom at one lane of a 2 x 1 l8 draw (one DMA word): ZOOM (clocks 0-2), the
        // draw's words (3-5), the request (6), the pixels issued at 7 and 8. Zoom sees
        // pixel 0 after the 3 registers at 10 and sends its two copies at 10 and 11,
        // pixel 1's at 12 and 13; then a rewind clock (14) and the row replayed from the
        // line buffer, 15 to 18. Each copy is on pix a clock later: the last at 19.
        let z = ipu("lanes = 1\n[ipu.zoom]\nenabled = true\n");
        let mut cmds = m::cmd_zoom(m::q16(2.0), m::q16(2.0)).to_vec();
        cmds.extend(m::cmd_draw(5, 2, 1, 0, 0));
        assert_eq!(model_clocks(&z, &stream(&cmds, &[0])), 20);
    }

    #[test]
    fn zoom_sends_a_groups_columns_lanes_a_beat() {
        // The same at 4 lanes with a 4 x 1 l8 draw: one DMA word, one beat issued at 7,
        // one group at zoom at 10. Its 8 columns leave in two beats (10, 11), a rewind
        // (12), the replayed group's two beats (13, 14); the last on pix at 15.
        let z = ipu("lanes = 4\n[ipu.zoom]\nenabled = true\n");
        let mut cmds = m::cmd_zoom(m::q16(2.0), m::q16(2.0)).to_vec();
        cmds.extend(m::cmd_draw(5, 4, 1, 0, 0));
        assert_eq!(model_clocks(&z, &stream(&cmds, &[0])), 16);
        // Shrunk to 0.5 x 1.0, the group's 2 columns leave in one beat (10), on pix at 11.
        let mut cmds = m::cmd_zoom(m::q16(0.5), m::q16(1.0)).to_vec();
        cmds.extend(m::cmd_draw(5, 4, 1, 0, 0));
        assert_eq!(model_clocks(&z, &stream(&cmds, &[0])), 12);
    }
}
