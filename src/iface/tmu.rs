//! The contract of the texture mapping unit: the command word, the descriptor registers
//! and the fields of the control register, which the RTL (tmu_lod) decodes and the model
//! (model::tmu::unit) encodes.

use super::StreamPort;
use super::field::{Field, pack, width};
use super::fifo::FifoStorage;
use super::tex_cache::WORD_ADDR_BITS;
use super::tex_filter::{BLEND_W, FORMAT_W, FilterLayout, PASS_W, WORD_W};
use super::timing::{Op, Timing};
use crate::config::Tmu;

/// Bits of one lane of a sample request: s, t (fp32) and the active bit.
pub const LANE_W: u32 = 65;
/// Descriptor registers: control, LOD bias, LOD limits, then one base per level.
pub const REG_CTRL: u32 = 0;
pub const REG_BIAS: u32 = 1;
pub const REG_LODS: u32 = 2;
pub const REG_BASE0: u32 = 3;
/// The descriptor registers by name (the RTL's localparams), in register order.
pub const REGS: [(&str, u32); 4] = [
    ("RegCtrl", REG_CTRL),
    ("RegBias", REG_BIAS),
    ("RegLods", REG_LODS),
    ("RegBase", REG_BASE0),
];
/// Bits of a level's log2 width or height, and of a level number.
pub const LOG_W: u32 = 4;
/// Bits of a texel coordinate in a level: levels are at most 2^(2^LOG_W - 1) texels wide.
pub const COORD_W: u32 = (1 << LOG_W) - 1;
/// Bits of a wrap mode code.
pub const WRAP_W: u32 = 2;
/// Fields of the control register: (name, lsb, bits), lowest first.
pub const CTRL_FIELDS: [(&str, u32, u32); 8] = [
    ("format", 0, FORMAT_W),
    ("min_filter", 3, 3),
    ("mag_linear", 6, 1),
    ("wrap_s", 7, WRAP_W),
    ("wrap_t", 9, WRAP_W),
    ("log2_width", 11, LOG_W),
    ("log2_height", 15, LOG_W),
    ("last_level", 19, LOG_W),
];

/// The datapath widths the TMU's modules name as localparams: (localparam, bits, what).
const WIDTHS: [(&str, u32, &str); 8] = [
    ("AddrW", WORD_ADDR_BITS, "a word address"),
    ("WordW", WORD_W, "a memory word"),
    ("LgW", LOG_W, "a level's log2 width or height"),
    ("CoordW", COORD_W, "a texel coordinate in a level"),
    ("WrapW", WRAP_W, "a wrap mode"),
    ("FormatW", FORMAT_W, "a format code"),
    ("BlendW", BLEND_W, "a quad's weight between two levels"),
    ("PassCodeW", PASS_W, "a pass code"),
];

/// The named widths a module uses, in the order asked (a module renders only the names
/// its body reads, so that lint sees no unused parameter).
pub fn widths(names: &[&str]) -> Vec<(&'static str, u32, &'static str)> {
    names
        .iter()
        .map(|n| {
            *WIDTHS
                .iter()
                .find(|w| w.0 == *n)
                .unwrap_or_else(|| panic!("no datapath width {n}"))
        })
        .collect()
}

/// A texture's descriptor as the RTL holds it, lowest first: control, LOD bias, and the
/// LOD limits register `{max_lod, min_lod}` (16-bit signed each).
pub fn desc_fields() -> Vec<Field> {
    pack(&[
        ("Ctrl", ctrl_w()),
        ("Bias", 16),
        ("MinLod", 16),
        ("MaxLod", 16),
    ])
}

/// Bits of one texture-space coordinate difference in the LOD: each is clamped to
/// 2^DIFF_W - 1 before it is squared (the model's `DIFF_MAX`).
pub const DIFF_W: u32 = 31;

/// Bits of the control register: the end of its last field.
pub fn ctrl_w() -> u32 {
    CTRL_FIELDS.iter().map(|f| f.1 + f.2).max().unwrap_or(0)
}

/// A control field's localparam in the RTL: `CtrlLog2WidthLsb` for `log2_width`.
pub fn ctrl_lsb_name(field: &str) -> String {
    let camel: String = field
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect();
    format!("Ctrl{camel}Lsb")
}

fn clog2(x: u32) -> u32 {
    32 - (x.max(1) - 1).leading_zeros()
}

/// The command and response words of the unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TmuLayout {
    pub lanes: u32,
    /// Bits of a texture id and of a register index.
    pub tex_w: u32,
    pub reg_w: u32,
    /// Registers per descriptor.
    pub regs: u32,
    pub req_w: u32,
    pub rsp_w: u32,
}

impl TmuLayout {
    pub fn new(tmu: &Tmu) -> Self {
        let tex_w = clog2(tmu.textures).max(1);
        let regs = REG_BASE0 + tmu.mip_levels;
        let reg_w = clog2(regs);
        let mut l = Self {
            lanes: tmu.lanes,
            tex_w,
            reg_w,
            regs,
            req_w: 0,
            rsp_w: FilterLayout::new(tmu).rsp_w,
        };
        // Either command, and its top bit: 1 for a write.
        l.req_w = width(&l.sample_fields()).max(width(&l.write_fields())) + 1;
        l
    }

    /// A sample command, lowest first: the lanes (`{active, t, s}` each, lane 0 lowest),
    /// the explicit LOD (fp32), whether it is given, the texture (the RTL's
    /// `Sample<Field>Lsb`).
    pub fn sample_fields(&self) -> Vec<Field> {
        pack(&[
            ("Lanes", self.lanes * LANE_W),
            ("Lod", 32),
            ("HasLod", 1),
            ("Tex", self.tex_w),
        ])
    }

    /// A register write command, lowest first: the data, the register, the texture (the
    /// RTL's `Write<Field>Lsb`).
    pub fn write_fields(&self) -> Vec<Field> {
        pack(&[("Data", 32), ("Reg", self.reg_w), ("Tex", self.tex_w)])
    }

    pub fn ports(&self) -> Vec<StreamPort> {
        StreamPort::req_rsp(self.req_w, self.rsp_w)
    }
}

/// The ops of the descriptor read (`desc_stage`): the texture id's fan-out to every
/// descriptor bit and the textures-to-1 select, then the LOD clamp's compare and select.
fn desc_ops(textures: u32) -> [Op; 4] {
    [
        Op::Fanout(textures * width(&desc_fields())),
        Op::Mux(textures),
        Op::Carry(16),
        Op::Lut(2),
    ]
}

/// Whether the descriptor read needs a register of its own: the texture id fans out to
/// every descriptor bit through a `textures`-to-1 select, and the LOD clamp after it
/// compares 16-bit values (`sel_hi`), picks one and goes through the next register's skid
/// select (nextpnr, fpga_small's TMU at 100 MHz without this register: 10.4 ns, 3 LUT
/// levels, the compare's chain, 2 LUT levels) or, with four lanes, converts coordinates.
pub fn desc_stage(timing: &Timing, textures: u32) -> bool {
    !timing.fits(&desc_ops(textures))
}

/// `tmu_lod` computes a LOD (more than one filter is enabled) ...
pub fn has_lod(tmu: &Tmu) -> bool {
    tmu.filters.len() > 1
}

/// ... and, with four lanes or more, each quad's from its lanes' differences.
pub fn quad_lod(tmu: &Tmu) -> bool {
    has_lod(tmu) && tmu.lanes >= 4
}

/// `tmu_lod`'s registers between its input and output skids, as its template renders
/// them: the descriptor read's, the quads' (four lanes or more) and the selection's (with
/// LOD hardware); and, like `AddrPipe`, whether they are pipeline registers with credits
/// (two or more) and the credits then: the registers plus two.
pub fn lod_inner_regs(timing: &Timing, tmu: &Tmu) -> u32 {
    let quad = quad_lod(tmu);
    let p = LodPipe::new(timing, tmu.textures, quad);
    let sel = if has_lod(tmu) {
        p.regs[..5].iter().filter(|&&r| r).count() as u32
    } else {
        0
    };
    let quads = if quad { p.quad_latency() } else { 0 };
    u32::from(desc_stage(timing, tmu.textures)) + sel + quads
}

pub fn lod_credits(timing: &Timing, tmu: &Tmu) -> Option<u32> {
    pipeline_credits(lod_inner_regs(timing, tmu))
}

/// The credit rule that `tmu_addr` and `tmu_lod` share. With two registered stages or
/// more they are plain pipeline registers (a full-rate skid per stage is two registers
/// and a select a bit, with an enable from the stage after it; a pipeline register is one
/// register and no enable, and the queue in LUT RAM and its count cost less than the
/// second register and the select of two stages). The credits are the items in the
/// registers, the one being written into the queue and the one leaving it while its
/// credit comes back, so one item a clock flows. `None`: skids, no credits.
pub fn pipeline_credits(inner_regs: u32) -> Option<u32> {
    (inner_regs >= 2).then_some(inner_regs + 2)
}

/// `tmu_lod`'s selection stages when it computes a LOD, in order: A0 takes the explicit
/// LOD's exponent apart (and the clamp's upper end), A shifts it, B biases and clamps
/// each quad's LOD, C1 compares it with magnification's switch-over and the last level,
/// C2 picks magnification or the level(s) and the blend, D (`out`) works out the levels'
/// sizes and bases into the output register.
pub const LOD_STAGES: [&str; 6] = ["exp", "lod", "lambda", "cmp", "level", "out"];

/// The logic of each of [`LOD_STAGES`] as the schedule sees it (ECP5: nextpnr's paths of
/// fpga_small's TMU, where C1 and C2 in one clock are the deepest, 9.8 ns at 100 MHz, and
/// of the default's at 200 MHz, 9.7-11.3 ns).
fn lod_stage_ops() -> [Vec<Op>; 6] {
    [
        // 142 - e1 and the clamp's max(min, max): 16-bit compares and a select.
        vec![Op::Carry(16), Op::Lut(1)],
        // The mantissa shifted by up to 31 places, then NaN, saturation and sign.
        vec![Op::Mux(32), Op::Lut(2)],
        // x or the differences' LOD, the 19-bit clamp compares and bias sum, the select.
        vec![Op::Lut(1), Op::Carry(19), Op::Lut(2)],
        // The filter codes, then lambda's 17-bit compares and the level's rounding sum.
        vec![Op::Lut(3), Op::Carry(17)],
        // The picks among the compares' results (and the level bases' read beside them).
        vec![Op::Lut(2)],
        // Each level's size (the level's decode, a 4-bit compare and subtract) and its
        // base's select. With the picks in front of it (level+out in one clock) this was
        // fpga_small's TMU path at 100 MHz: 9 levels, 10.6-14.2 ns.
        vec![Op::Lut(2), Op::Carry(4), Op::Mux(16)],
    ]
}

/// A four-lane TMU's LOD from its lanes' differences, before the selection stages: the
/// coordinates converted and differenced, rho^2, its normalisation, then four stages of
/// two squarings each (the log's fraction bits).
pub const QUAD_STAGES: [&str; 7] = ["diff", "rho", "norm", "sq0", "sq1", "sq2", "sq3"];

/// The logic of each of [`QUAD_STAGES`] as the schedule sees it.
fn quad_stage_ops() -> [Vec<Op>; 7] {
    let squarings = vec![Op::Mult, Op::Lut(1), Op::Mult, Op::Lut(1)];
    [
        // fp32 to 64-bit fixed point (a shift), the difference, its magnitude, the clamp.
        vec![Op::Mux(64), Op::Carry(64), Op::Carry(64), Op::Lut(2)],
        // The squares (DIFF_W bits: several multipliers and their sum), the two sums of
        // squares, the larger.
        vec![
            Op::Mult,
            Op::Carry(2 * DIFF_W),
            Op::Carry(2 * DIFF_W + 1),
            Op::Lut(1),
        ],
        // The leading one and the shift to a 17-bit mantissa.
        vec![Op::Lut(3), Op::Mux(64), Op::Lut(1)],
        squarings.clone(),
        squarings.clone(),
        squarings.clone(),
        squarings,
    ]
}

/// Which of `tmu_lod`'s stages end at a skid register (the last, at the output
/// register, always): as [`AddrPipe`] does for the addresses. The selection stages
/// follow the descriptor read (one or two lanes) or the quads' stages (four lanes or
/// more); the first stage after the descriptor read takes it into its clock when the read
/// has no register of its own (`desc_stage`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LodPipe {
    /// After each of [`LOD_STAGES`].
    pub regs: [bool; 6],
    /// After each of [`QUAD_STAGES`] (all set without them).
    pub quad: [bool; 7],
}

impl LodPipe {
    pub fn new(timing: &Timing, textures: u32, quad_lod: bool) -> Self {
        let mut ops: Vec<Vec<Op>> = Vec::new();
        if quad_lod {
            ops.extend(quad_stage_ops());
        }
        ops.extend(lod_stage_ops());
        if !desc_stage(timing, textures) {
            // The read's fan-out and select (the clamp compare after them is A0's own).
            let mut first = desc_ops(textures)[..2].to_vec();
            first.extend(ops[0].iter().copied());
            ops[0] = first;
        }
        let blocks: Vec<&[Op]> = ops.iter().map(Vec::as_slice).collect();
        let mut cuts = timing.cut_blocks(&blocks);
        cuts.push(true);
        let (mut regs, mut quad) = ([true; 6], [true; 7]);
        let sel = if quad_lod {
            quad.copy_from_slice(&cuts[..7]);
            &cuts[7..]
        } else {
            &cuts[..]
        };
        regs.copy_from_slice(sel);
        Self { regs, quad }
    }

    /// Clocks of the selection stages, and of the quads' stages before them.
    pub fn latency(&self) -> u32 {
        self.regs.iter().filter(|&&r| r).count() as u32
    }

    pub fn quad_latency(&self) -> u32 {
        self.quad.iter().filter(|&&r| r).count() as u32
    }

    pub fn describe(&self) -> String {
        describe_cuts(&LOD_STAGES, &self.regs)
    }

    pub fn describe_quad(&self) -> String {
        describe_cuts(&QUAD_STAGES, &self.quad)
    }

    /// The quads' stages (with `quad_lod`) and the selection's, as one pipeline.
    pub fn describe_all(&self, quad_lod: bool) -> String {
        if !quad_lod {
            return self.describe();
        }
        let names: Vec<&str> = QUAD_STAGES.iter().chain(&LOD_STAGES).copied().collect();
        let regs: Vec<bool> = self.quad.iter().chain(&self.regs).copied().collect();
        describe_cuts(&names, &regs)
    }
}

/// Stages that share a clock joined by `+`, clocks by ` | `.
fn describe_cuts(names: &[&str], regs: &[bool]) -> String {
    let mut out = String::new();
    for (i, (name, reg)) in names.iter().zip(regs).enumerate() {
        out.push_str(name);
        if i + 1 < names.len() {
            out.push_str(if *reg { " | " } else { "+" });
        }
    }
    out
}

/// Entries of the side FIFO beside the cache: every pass the cache can hold, plus its
/// stages (and the merge stage's skids, two requests each, where it has one).
pub fn side_depth(tmu: &Tmu) -> u32 {
    let merge = if tmu.cache.merges() {
        2 * super::tex_cache::MERGE_STAGES.len() as u32
    } else {
        0
    };
    tmu.cache.queue_depth + 8 + merge
}

/// Levels of the filter's input control behind its request data (nextpnr's path from
/// the side FIFO's pointers to `tex_filter`'s `used_q`, `room_q`: 11 levels, 5 of them
/// the FIFO's read).
const FILTER_TAKE_LEVELS: u32 = 6;

/// Whether the side FIFO's head needs a register before the join: its read is a select
/// among its entries (a deep queue's few head entries: `iface::fifo`), and the filter's
/// input control follows.
pub fn side_stage(timing: &Timing, depth: u32) -> bool {
    let mux = FifoStorage::of(depth).read_mux(depth);
    !timing.fits(&[Op::Mux(mux), Op::Lut(FILTER_TAKE_LEVELS)])
}

/// The join of a cache response with its side entry as the schedule sees it: the pair
/// flag's net (it selects every texel word of a DXT1 pair: 512 loads a lane), `complete`,
/// its net to the enables behind it, and the filter's input control (`take`, `used_q`,
/// `room_q`) or the cache's response queue (read pointer, credits). nextpnr's path on the
/// default TMU (200 MHz, seed 1): 9.5 ns, 8.0 of it routing.
fn join_ops(lanes: u32) -> [Op; 4] {
    [
        Op::Fanout(512 * lanes),
        Op::Lut(1),
        Op::Fanout(64),
        Op::Lut(3),
    ]
}

/// Whether the join gets a register on each side, so that its control starts and ends at
/// flops: the cache's response through a skid, the filter request through a bubble
/// register (whose ready is the filter's room flop), and a copy of the pair flag for the
/// control alone.
pub fn join_stage(timing: &Timing, lanes: u32) -> bool {
    !timing.fits(&join_ops(lanes))
}

/// Bits of the narrow fixed-point coordinate `tmu_addr` converts to, the weight's bits
/// below the texel index: the index's CoordW bits, one above them for mirrored repeat,
/// and a sign. Repeat and mirrored repeat read only these low bits of the exact value;
/// clamp to edge reads a saturated copy (`coord_sel`), so no wider value is needed.
pub fn narrow_bits(wbits: u32) -> u32 {
    COORD_W + 2 + wbits
}

/// `tmu_addr`'s stages, in order: each is the logic between two of its skid registers as
/// hand-written for a fast clock, and ends at the register after it unless
/// [`AddrPipe`] merges it with the next.
pub const ADDR_STAGES: [&str; 9] = [
    "level", "exp", "shift", "align", "sum", "fixed", "coord", "word", "addr",
];

/// The logic of each of [`ADDR_STAGES`] as the schedule sees it (ECP5: nextpnr's paths in
/// fpga_small's and the default's TMU, 2026-12-05, where every stage has its register).
fn addr_stage_ops(wbits: u32) -> [Vec<Op>; 9] {
    let nb = narrow_bits(wbits);
    // What the pass's level select drives in a quad: both coordinates' k terms (11 + 11
    // bits each) and the level's fields (lw, lh, base, the tile shift, grouped).
    let level_fanout = 44 + 3 * LOG_W + WORD_ADDR_BITS + 1;
    [
        // The pass: which level (the second of a trilinear plan, a flop and the quad's
        // flag), its net to every term and field of the quad, and the pick between both
        // levels' k terms and fields (tables of each level's log2 size, beside it). The
        // default TMU's path while it shared the exponent's clock: the flag's net 3.2 ns,
        // the plan's 3.0 (2026-12-06).
        vec![Op::Lut(1), Op::Fanout(level_fanout), Op::Lut(1)],
        // The exponent's 11-bit sums with the pass's k terms.
        vec![Op::Lut(1), Op::Carry(11)],
        // The shift's coarse half: the mantissa shifted by a multiple of 8 places (up to
        // 56 left, 24 right) and the direction's select; beside it, the compares that
        // mark the mantissa's bits shifted out below the binary point or past 2^NB. In
        // one clock with the fine half (a 64:1 select, then the zero select and the
        // flags' 24-bit ORs) it was the default TMU's path, 8.6 ns (2026-12-07).
        vec![Op::Mux(8), Op::Lut(1)],
        // The fine half: the rest of the shift (0..=7 places), the zero select, and the
        // ORs of the bits shifted out.
        vec![Op::Mux(8), Op::Lut(1)],
        // The addend's select and the sum (NB bits, sign and carry); the clamp's compares
        // beside it.
        vec![Op::Lut(1), Op::Carry(nb + 2)],
        // The sign's and the clamp's selects (the default TMU's deepest path, 9.8 ns,
        // while they shared the sum's clock).
        vec![Op::Lut(2)],
        // The wraps: the level's mask from its log2 size, the clamp's test, mirror and
        // the mode's select (the deepest path of fpga_small's wrap clock).
        vec![Op::Lut(6)],
        // The texel index: a row shifted by the level's (or its tiles') log2 width,
        // OR-ed with the column, DXT1's block pick.
        vec![Op::Mux(16), Op::Lut(2)],
        // The level's base plus the index shifted to words.
        vec![Op::Mux(4), Op::Carry(WORD_ADDR_BITS)],
    ]
}

/// Which of `tmu_addr`'s stage boundaries hold a skid register at the design's clock: at a
/// slow clock neighbouring stages share one (a shorter pipeline and fewer flops); at a
/// fast one each keeps its own. The last stage always ends at the output register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AddrPipe {
    /// Entry `i`: a register after stage `ADDR_STAGES[i]` (the last: the output's, always).
    pub regs: [bool; 9],
}

impl AddrPipe {
    pub fn new(timing: &Timing, tmu: &Tmu) -> Self {
        let ops = addr_stage_ops(tmu.weight_bits);
        let blocks: Vec<&[Op]> = ops.iter().map(Vec::as_slice).collect();
        let mut regs = [true; 9];
        for (r, cut) in regs.iter_mut().zip(timing.cut_blocks(&blocks)) {
            *r = cut;
        }
        Self { regs }
    }

    /// Clocks from a pass entering `tmu_addr` to its addresses at the output (with
    /// credits, one more: the output queue).
    pub fn latency(&self) -> u32 {
        self.regs.iter().filter(|&&r| r).count() as u32 + u32::from(self.credits())
    }

    /// Registers before the output's.
    fn inner(&self) -> u32 {
        self.regs[..8].iter().filter(|&&r| r).count() as u32
    }

    /// Whether the stages are plain registers that never stall, with credits at the entry
    /// and a queue before the output register ([`pipeline_credits`]).
    pub fn credits(&self) -> bool {
        pipeline_credits(self.inner()).is_some()
    }

    /// The credits, and so the queue's depth ([`pipeline_credits`]); 0 without.
    pub fn queue_depth(&self) -> u32 {
        pipeline_credits(self.inner()).unwrap_or(0)
    }

    /// The stages that share each clock, as `gpurtl check` prints them ("exp+shift | ...").
    pub fn describe(&self) -> String {
        describe_cuts(&ADDR_STAGES, &self.regs)
    }
}

/// `gpurtl check`'s words for a unit's credits, if it has them.
fn describe_queue(credits: Option<u32>) -> String {
    credits.map_or_else(String::new, |d| {
        format!(" (pipeline registers; credits for a queue of {d} before the output)")
    })
}

/// `gpurtl check`'s line for the TMU's front.
pub fn describe_front(timing: &Timing, tmu: &Tmu) -> String {
    let desc = if desc_stage(timing, tmu.textures) {
        "the descriptor read in a clock of its own"
    } else {
        "the descriptor read with the LOD clamp in one clock"
    };
    let side = if side_stage(timing, side_depth(tmu)) {
        "a register after the side FIFO's head"
    } else {
        "the side FIFO's head straight into the filter"
    };
    let join = if join_stage(timing, tmu.lanes) {
        "; the join registered on each side (a skid on the cache's response, a bubble before the filter)"
    } else {
        ""
    };
    let addr = AddrPipe::new(timing, tmu);
    let lod = if has_lod(tmu) {
        let quad = quad_lod(tmu);
        let p = LodPipe::new(timing, tmu.textures, quad);
        let credits = lod_credits(timing, tmu);
        // The queue is a clock of its own.
        let clocks =
            p.latency() + if quad { p.quad_latency() } else { 0 } + u32::from(credits.is_some());
        format!(
            "; the LOD in {clocks} clock(s): {}{}",
            p.describe_all(quad),
            describe_queue(credits)
        )
    } else {
        String::new()
    };
    let queue = describe_queue(pipeline_credits(addr.inner()));
    format!(
        "tmu: {desc} ({} textures); {side} ({} entries){join}; tmu_addr in {} clock(s): {}{queue}{lod}",
        tmu.textures,
        side_depth(tmu),
        addr.latency(),
        addr.describe()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ClockSection, Family};

    fn at(mhz: f64) -> Timing {
        Timing::new(&ClockSection {
            family: Family::Ecp5,
            target_mhz: mhz,
        })
    }

    #[test]
    fn the_descriptor_read_gets_its_own_clock_only_where_the_clock_is_short() {
        assert!(desc_stage(&at(200.0), 6));
        assert!(desc_stage(&at(100.0), 6));
        assert!(!desc_stage(&at(75.0), 6));
        // More textures: a wider select and a larger net.
        assert!(desc_stage(&at(75.0), 64));
    }

    #[test]
    fn the_address_stages_merge_only_at_a_slow_clock() {
        let tmu = crate::config::load(None)
            .expect("embedded default")
            .tmu
            .expect("tmu");
        // The fast presets' clocks keep every register; at fpga_small's 100 MHz the level
        // and the exponent share one, the shift's halves another, and the sums and their
        // selects a third.
        for mhz in [150.0, 200.0, 270.0] {
            let p = AddrPipe::new(&at(mhz), &tmu);
            assert_eq!(p.regs, [true; 9], "{mhz} MHz");
            // Eight pipeline registers, the queue and the output register.
            assert!(p.credits());
            assert_eq!((p.latency(), p.queue_depth()), (10, 10));
        }
        let p = AddrPipe::new(&at(100.0), &tmu);
        assert_eq!(
            p.regs,
            [false, true, false, true, false, true, true, true, true]
        );
        assert_eq!(
            p.describe(),
            "level+exp | shift+align | sum+fixed | coord | word | addr"
        );
        let p = AddrPipe::new(&at(75.0), &tmu);
        assert_eq!(
            p.regs,
            [false, false, true, false, false, true, true, false, true]
        );
        assert_eq!(
            p.describe(),
            "level+exp+shift | align+sum+fixed | coord | word+addr"
        );
        let p = AddrPipe::new(&at(50.0), &tmu);
        assert_eq!((p.credits(), p.latency(), p.queue_depth()), (true, 4, 4));
        assert_eq!(
            p.describe(),
            "level+exp+shift+align | sum+fixed+coord | word+addr"
        );
        // One register, the output's: skids, no queue.
        let p = AddrPipe::new(&at(10.0), &tmu);
        assert_eq!((p.credits(), p.latency()), (false, 1));
    }

    #[test]
    fn the_lod_takes_credits_from_two_registers_on() {
        let default = crate::config::load(None)
            .expect("embedded default")
            .tmu
            .expect("tmu");
        // 200 MHz: the descriptor read's register and five selection stages'.
        assert_eq!(lod_inner_regs(&at(200.0), &default), 6);
        assert_eq!(lod_credits(&at(200.0), &default), Some(8));
        // 50 MHz: two selection registers, the descriptor read in the first clock.
        assert_eq!(lod_inner_regs(&at(50.0), &default), 2);
        assert_eq!(lod_credits(&at(50.0), &default), Some(4));
        // One filter: no LOD, only the descriptor read's register, so skids.
        let one = Tmu {
            filters: vec![crate::config::Filter::Nearest],
            ..default.clone()
        };
        assert_eq!(lod_credits(&at(200.0), &one), None);
        // Four lanes: the quads' seven stages too.
        let quad = Tmu {
            lanes: 4,
            ..default
        };
        assert_eq!(lod_credits(&at(200.0), &quad), Some(15));
    }

    #[test]
    fn the_lod_selection_merges_only_at_a_slow_clock() {
        // At 100 MHz too: neither the compares and the picks nor the picks and the output
        // stage fit one clock.
        for mhz in [100.0, 200.0, 270.0] {
            assert_eq!(
                LodPipe::new(&at(mhz), 6, false).regs,
                [true; 6],
                "{mhz} MHz"
            );
            assert_eq!(LodPipe::new(&at(mhz), 6, true).regs, [true; 6], "{mhz} MHz");
        }
        // At 75 MHz the descriptor read joins the first stage, which then has no room
        // for the shift.
        assert_eq!(LodPipe::new(&at(75.0), 6, false).latency(), 5);
        // At 50 MHz, five stages in three clocks behind the descriptor read, in two
        // behind the differences' stages.
        let slow = LodPipe::new(&at(50.0), 6, false);
        assert_eq!(slow.describe(), "exp+lod | lambda+cmp+level | out");
        assert_eq!(slow.latency(), 3);
        // Four lanes: the quads' stages come first and set where the selection's start.
        // Their multiplies keep them apart: at 50 MHz only the last squarings share a
        // clock with the selection's first stage; at 25 with its first two.
        for mhz in [100.0, 200.0, 270.0] {
            assert_eq!(LodPipe::new(&at(mhz), 6, true).quad, [true; 7], "{mhz} MHz");
        }
        assert_eq!(LodPipe::new(&at(50.0), 6, true).quad_latency(), 6);
        let slow_quad = LodPipe::new(&at(25.0), 6, true);
        assert_eq!(
            slow_quad.describe_quad(),
            "diff+rho | norm+sq0+sq1 | sq2+sq3"
        );
        assert_eq!(
            slow_quad.quad,
            [false, true, false, false, true, false, false]
        );
        assert_eq!(slow_quad.describe(), "exp+lod | lambda+cmp+level+out");
        assert_eq!(slow_quad.quad_latency(), 2);
        assert_eq!(
            slow_quad.describe_all(true),
            "diff+rho | norm+sq0+sq1 | sq2+sq3+exp+lod | lambda+cmp+level+out"
        );
    }

    #[test]
    fn the_side_fifo_head_is_registered_where_its_read_and_the_filter_do_not_fit() {
        // The join: its own registers at the default's 200 MHz and at 150, not at 100
        // (fpga_small) at one lane.
        assert!(join_stage(&at(200.0), 1));
        assert!(join_stage(&at(150.0), 1));
        assert!(!join_stage(&at(100.0), 1));
        assert!(join_stage(&at(150.0), 4));
        assert!(side_stage(&at(200.0), 264));
        assert!(side_stage(&at(100.0), 16));
        assert!(!side_stage(&at(50.0), 16));
    }
}
