//! `tex_filter`: the texture mapping unit's format converters and filter lanes (seed 001),
//! after the texture cache. Which formats get a converter, the weight width, the lane
//! count and the output format are decided here; the template replicates lanes, texels
//! and channels.

use std::collections::BTreeMap;

use askama::Template;

use super::handshake::module_for;
use super::{Ctx, Module, RenderError, Rst, StreamPort, Unit};
use crate::config::{FilterProducts, StageKind, TexFormat, TexOutput, Tmu};
use crate::iface::field::{Field, describe, get, lsb_exprs, lsb_params, pack, width};
use crate::iface::tex_filter::widen;
use crate::iface::tex_filter::{
    BLEND_W, FORMAT_W, PASS_FIRST, PASS_SECOND, PASS_W, THIRD_ROWS, THIRD_W, WORD_W, t_split,
    tree_levels, unorm8_to_f32,
};
pub use crate::iface::tex_filter::{FilterLayout, FilterPipe};
use crate::iface::tmu::widths;

/// The control word that travels beside the datapath: the request with each lane cut to
/// its head (`{b, a, active}`, the bits below its texels), the same fields in the same
/// order.
pub fn ctl_fields(l: &FilterLayout) -> Vec<Field> {
    let head = get(&l.lane_fields(), "Texels").lsb;
    let fields: Vec<(&'static str, u32)> = l
        .req_fields()
        .iter()
        .map(|f| match f.name {
            "Lanes" => (f.name, l.lanes * head),
            _ => (f.name, f.width),
        })
        .collect();
    pack(&fields)
}

/// A request-shaped word's field offsets as expressions of `Lanes` (the module's real
/// parameter) and the body's localparams; `lane` names a lane's localparam width.
fn word_exprs(word: &str, fields: &[Field], l: &FilterLayout, lane: &str) -> Vec<(String, String)> {
    lsb_exprs(word, fields, |f| match f.name {
        "Lanes" => (format!("Lanes * {lane}"), f.width),
        "Format" => ("FormatW".into(), FORMAT_W),
        "Blends" => ("Quads * BlendW".into(), l.quads * BLEND_W),
        "Pass" => ("PassCodeW".into(), PASS_W),
        other => panic!("no expression for the filter word's field {other}"),
    })
}

/// The request's width as the port list writes it, where only `Lanes` is declared.
fn req_port_w(l: &FilterLayout) -> String {
    format!(
        "Lanes * {} + ((Lanes + 3) / 4) * {BLEND_W} + {}",
        l.lane_w,
        FORMAT_W + PASS_W
    )
}

/// The DXT1 converter's select step word, lowest first: the colour word, the 16-bit and
/// 8-bit texels when a format needs them, the texel's 2-bit index, the block's mode and
/// the index's low bit again, inverted (the endpoints' swap, so that the pick's two
/// selects each have a flop of their own; the RTL's `Sel<Field>Lsb`).
fn select_fields(need_h: bool, need_l: bool) -> Vec<Field> {
    let mut f = vec![("Word", WORD_W)];
    if need_h {
        f.push(("H", 16));
    }
    if need_l {
        f.push(("L", 8));
    }
    f.extend([("Idx", 2), ("Four", 1), ("SwapN", 1)]);
    pack(&f)
}

/// The pick step word: the format's texel, the endpoint weighted double (`Pa`) and the
/// other (`Pb`), 24 bits each, and whether the texel is a third or a half of their sum
/// (the RTL's `Pick<Field>Lsb`).
fn pick_fields() -> Vec<Field> {
    pack(&[
        ("Texel", WORD_W),
        ("Pa", 24),
        ("Pb", 24),
        ("Third", 1),
        ("Half", 1),
    ])
}

/// The sum step word: the texel (or the halves), 2 pa + pb per channel (10 bits each),
/// and whether the texel is a third (the RTL's `Sum<Field>Lsb`).
fn sum_fields() -> Vec<Field> {
    pack(&[("Texel", WORD_W), ("X", 30), ("Third", 1)])
}

/// One enabled format's converter: its code and the Verilog expression of its texel.
pub struct FormatCase {
    pub code: String,
    pub name: &'static str,
    pub expr: &'static str,
}

#[derive(Template)]
#[template(path = "rtl/tex_filter.v")]
pub struct TexFilter {
    /// The design-wide naming and reset, for the handshake modules it renders.
    pub ctx: Ctx,
    pub name: String,
    pub stamp: String,
    pub rst: Rst,
    pub fifo: String,
    pub pipe: FilterPipe,
    pub lanes: u32,
    pub wbits: u32,
    pub dxt1: bool,
    pub fp32: bool,
    pub sub_w: u32,
    pub tex_w: u32,
    pub lane_w: u32,
    pub req_w: u32,
    /// The request's width in the port list, an expression of `Lanes`.
    pub req_port_w: String,
    /// `Req<Field>Lsb` and `Ctl<Field>Lsb` as expressions of `Lanes` (then `ReqW`,
    /// `CtlW`), `Lane<Field>Lsb`, `Tex<Field>Lsb` and the DXT1 steps' `Sel`, `Pick` and
    /// `Sum` offsets, from the tables.
    pub word_exprs: Vec<(String, String)>,
    pub lsbs: Vec<(String, u32)>,
    /// The request, a lane and a texel as the header describes them (from the tables).
    pub req_desc: String,
    pub lane_desc: String,
    pub tex_desc: String,
    /// Named datapath widths (iface::tmu).
    pub widths: Vec<(&'static str, u32, &'static str)>,
    pub pick_w: u32,
    pub sum_w: u32,
    pub out_lane_w: u32,
    pub rsp_w: u32,
    pub need_h: bool,
    pub need_l: bool,
    pub need_w5: bool,
    pub need_w6: bool,
    pub need_565: bool,
    pub formats: Vec<FormatCase>,
    pub format_list: String,
    pub format_codes: String,
    /// (quarter, its entries (c mod 64, fp32 bits of c / 255 in hex)).
    /// c / 255 as fp32 for each quarter of c (c[7:6]): the 64 entries as one hex
    /// constant, entry 0 lowest.
    pub fp32_quarters: Vec<(u32, String)>,
    /// Sized literals of the pass codes and DXT1's format code.
    pub pass_first: String,
    pub pass_second: String,
    pub dxt1_code: String,
    pub w5_table: Vec<(u32, u8)>,
    pub w6_table: Vec<(u32, u8)>,
    // The pipeline, rendered from `pipe`.
    pub target_mhz: f64,
    pub stages: u32,
    pub latency: u32,
    pub fifo_depth: u32,
    /// The output FIFO's entries, and whether it is written every clock: one more than
    /// the credits let in where the schedule asks for `WriteAlways`.
    pub fifo_entries: u32,
    pub fifo_write_always: bool,
    pub used_w: u32,
    /// The credit count one request short of a full FIFO, as a sized literal.
    pub last_free: String,
    pub pipe_desc: String,
    pub valid_shift: String,
    pub ctl_shift: String,
    /// (step, the control word of its stage).
    pub ctl_views: Vec<(&'static str, String)>,
    /// The control word a clock before the pick step, which the pick step's own format
    /// register loads from (`None`: pick is in the first stage, and reads `s0_ctl`).
    pub pick_fmt_src: Option<String>,
    pub valid_tdiff: String,
    /// The stage before tdiff's valid and control word, when there is one and more than
    /// one lane: each channel's accumulator enable and second-pass select are registered
    /// from them, a kept copy a channel.
    pub tdiff_en_src: Option<(String, String)>,
    /// More than one lane: the pick step's format register is copied into each texel.
    pub lane_copies: bool,
    /// DXT1's index row picked as the request loads (`FilterPipe::row_at_load`).
    pub row_at_load: bool,
    /// More than one lane, and a stage before each of the h, v and t blends: each channel
    /// registers its own copy of its lane's weights a, b and f from those stages' control
    /// words (`ctl_pre_h`, `ctl_pre_v`, `ctl_pre_t`).
    pub chan_copies: bool,
    pub valid_last: String,
    pub select_w: u32,
    pub third_rows: Vec<u32>,
    pub third_w: u32,
    pub third_rows_w: u32,
    pub hop_select: String,
    pub hop_pick: String,
    pub hop_sum: String,
    pub hop_hdiff: String,
    pub hop_vdiff: String,
    pub hop_tdiff: String,
    pub hop_round: String,
    /// The fp32 tables' index from a copy of the round register per quarter (fp32 output
    /// and a register after round).
    pub round_copies: bool,
    pub hop_fp32a: String,
    pub tree_third: String,
    pub delay_side: String,
    pub tree_h0: String,
    pub tree_h1: String,
    pub tree_v: String,
    pub tree_t: String,
    /// The h and v blends in multiplier blocks (`filter_products = "dsp"`): the sums
    /// after them, through a register where the schedule puts one; the trees are empty.
    pub dsp: bool,
    pub hop_h0_add: String,
    pub hop_h1_add: String,
    pub hop_v_add: String,
    /// Fabric registers after the blocks' products (`FilterPipe`'s `_out` steps): the
    /// products and what passes beside them, through a register or a wire.
    pub block_nets: bool,
    pub hop_h_out: String,
    pub hop_v_out: String,
    pub hop_t_out: String,
    /// The level blend's product as two blocks (`iface::tex_filter::t_split`).
    pub t_split: bool,
    pub t_lo_ext: String,
    pub hop_t_add: String,
    pub hop_t_sum: String,
}

/// A step's output `name`: `name_d` through a register where the schedule puts one, the
/// same wire otherwise.
fn hop(indent: &str, name: &str, width: u32, reg: bool) -> String {
    let top = width - 1;
    if reg {
        format!(
            "{indent}wire [{top}:0] {name};\n{indent}reg [{top}:0] {name}_q;\n\
             {indent}always @(posedge clk_i) begin\n{indent}  {name}_q <= {name}_d;\n{indent}end\n\
             {indent}assign {name} = {name}_q;"
        )
    } else {
        format!("{indent}wire [{top}:0] {name};\n{indent}assign {name} = {name}_d;")
    }
}

/// The adder tree over `rows` rows of `width` bits in `{name}_rows`, into `{name}_sum`:
/// adjacent pairs add at each level, an odd row passes; a register after each level the
/// schedule marks (`regs`, one flag a level).
fn tree(indent: &str, name: &str, width: u32, rows: u32, regs: &[bool]) -> String {
    let mut out = Vec::new();
    let mut src = format!("{name}_rows");
    for (i, (n_in, n_out)) in tree_levels(rows).into_iter().enumerate() {
        let lv = format!("{name}_l{}", i + 1);
        out.push(format!("{indent}wire [{}:0] {lv}_d;", n_out * width - 1));
        for j in 0..n_out {
            let (a, b) = (2 * j, 2 * j + 1);
            let rhs = if b < n_in {
                format!(
                    "{src}[{} +: {width}] + {src}[{} +: {width}]",
                    a * width,
                    b * width
                )
            } else {
                format!("{src}[{} +: {width}]", a * width)
            };
            out.push(format!(
                "{indent}assign {lv}_d[{} +: {width}] = {rhs};",
                j * width
            ));
        }
        out.push(hop(
            indent,
            &lv,
            n_out * width,
            regs.get(i).copied().unwrap_or(false),
        ));
        src = lv;
    }
    out.push(format!(
        "{indent}wire [{}:0] {name}_sum = {src};",
        width - 1
    ));
    out.join("\n")
}

/// `{name}_d` delayed as the levels of a tree beside it, into `name`.
fn delay(indent: &str, name: &str, width: u32, regs: &[bool]) -> String {
    let mut out = Vec::new();
    let mut src = format!("{name}_d");
    for (i, &reg) in regs.iter().enumerate() {
        let lv = format!("{name}_l{}", i + 1);
        out.push(format!("{indent}wire [{}:0] {lv}_d = {src};", width - 1));
        out.push(hop(indent, &lv, width, reg));
        src = lv;
    }
    out.push(format!("{indent}wire [{}:0] {name} = {src};", width - 1));
    out.join("\n")
}

fn format_expr(f: TexFormat) -> &'static str {
    match f {
        TexFormat::Rgba8888 => "word",
        TexFormat::Rgb565 => "{8'hff, rgb565(h)}",
        TexFormat::Rgba4444 => {
            "{h[3:0], h[3:0], h[7:4], h[7:4], h[11:8], h[11:8], h[15:12], h[15:12]}"
        }
        TexFormat::Rgba5551 => "{{8{h[0]}}, w5(h[5:1]), w5(h[10:6]), w5(h[15:11])}",
        TexFormat::L8 => "{8'hff, l, l, l}",
        TexFormat::La88 => "{h[15:8], h[7:0], h[7:0], h[7:0]}",
        TexFormat::A8 => "{l, 24'd0}",
        TexFormat::Dxt1 => "dxt1(word, idx)",
    }
}

impl TexFilter {
    /// Scheduled for the design's clock (`ctx.timing`).
    pub fn new(ctx: &Ctx, tmu: &Tmu) -> Self {
        let timing = &ctx.timing;
        let l = FilterLayout::new(tmu);
        let pipe = FilterPipe::new(tmu, timing);
        let w = l.wbits;
        let dsp = tmu.filter_products == FilterProducts::Dsp;
        // The first step of a blend: its block's input registers, or its tree's first level.
        let blend = |name: &str| pipe.stage(&format!("{name}_{}", if dsp { "in" } else { "l1" }));
        let regs = |name: &str| -> Vec<bool> {
            (1..)
                .map_while(|i| pipe.step(&format!("{name}_l{i}")).map(|s| s.reg_after))
                .collect()
        };
        let ctl_at = |stage: u32| {
            if stage == 0 {
                "s0_ctl".to_string()
            } else {
                format!("ctl_q[{}*CtlW +: CtlW]", stage - 1)
            }
        };
        let valid_at = |stage: u32| {
            if stage == 0 {
                "accept".to_string()
            } else {
                format!("valid_q[{}]", stage - 1)
            }
        };
        let need_h = tmu.has_format(TexFormat::Rgb565)
            || tmu.has_format(TexFormat::Rgba4444)
            || tmu.has_format(TexFormat::Rgba5551)
            || tmu.has_format(TexFormat::La88);
        let need_l = tmu.has_format(TexFormat::L8) || tmu.has_format(TexFormat::A8);
        let third_regs = regs("third");
        let tree_or_none = |name: &str, width: u32, regs: &[bool]| {
            if dsp {
                String::new()
            } else {
                tree("        ", name, width, w + 1, regs)
            }
        };
        let add_hop = |name: &str, width: u32, step: &str| {
            if dsp {
                hop(
                    "        ",
                    &format!("{name}_add"),
                    width,
                    pipe.reg_after(step),
                )
            } else {
                String::new()
            }
        };
        let pipe_desc = {
            let mut groups: Vec<Vec<&str>> = vec![Vec::new()];
            for s in &pipe.steps {
                groups.last_mut().expect("a group").push(&s.name);
                if s.reg_after {
                    groups.push(Vec::new());
                }
            }
            groups
                .iter()
                .map(|g| g.join(" "))
                .collect::<Vec<_>>()
                .join(" | ")
        };
        let has = |f| tmu.has_format(f);
        use TexFormat::*;
        let fp32 = tmu.output == TexOutput::Fp32;
        // The stages before the h, v and t blends, when each has one and there is more
        // than one lane: the channels' copies of the weights load from them.
        let chan_srcs = match (
            blend("h").checked_sub(1),
            blend("v").checked_sub(1),
            blend("t").checked_sub(1),
        ) {
            (Some(h), Some(v), Some(t)) if l.lanes > 1 => Some((h, v, t)),
            _ => None,
        };
        Self {
            ctx: ctx.clone(),
            name: ctx.module_name("tex_filter"),
            stamp: ctx.stamp.clone(),
            rst: ctx.rst.clone(),
            fifo: ctx.module_name("hs_fifo"),
            lanes: l.lanes,
            wbits: l.wbits,
            dxt1: l.dxt1,
            fp32,
            sub_w: l.sub_w,
            tex_w: l.tex_w,
            lane_w: l.lane_w,
            req_w: l.req_w,
            req_port_w: req_port_w(&l),
            word_exprs: {
                let mut v = word_exprs("Req", &l.req_fields(), &l, "LaneW");
                v.extend(word_exprs("Ctl", &ctl_fields(&l), &l, "CLaneW"));
                v
            },
            lsbs: {
                let mut v = lsb_params("Lane", &l.lane_fields());
                v.extend(lsb_params("Tex", &l.texel_fields()));
                if l.dxt1 {
                    v.extend(lsb_params("Sel", &select_fields(need_h, need_l)));
                    v.extend(lsb_params("Pick", &pick_fields()));
                    v.extend(lsb_params("Sum", &sum_fields()));
                }
                v
            },
            req_desc: describe(&l.req_fields()),
            lane_desc: describe(&l.lane_fields()),
            tex_desc: describe(&l.texel_fields()),
            widths: widths(&["WordW", "FormatW", "BlendW", "PassCodeW"]),
            pick_w: width(&pick_fields()),
            sum_w: width(&sum_fields()),
            out_lane_w: l.out_lane_w,
            rsp_w: l.rsp_w,
            need_h,
            need_l,
            need_w5: has(Rgb565) || has(Rgba5551),
            need_w6: has(Rgb565),
            need_565: has(Rgb565),
            formats: tmu
                .formats
                .iter()
                .map(|&f| FormatCase {
                    code: format!("{FORMAT_W}'d{}", f.code()),
                    name: f.name(),
                    expr: format_expr(f),
                })
                .collect(),
            format_list: tmu
                .formats
                .iter()
                .map(|f| f.name())
                .collect::<Vec<_>>()
                .join(", "),
            format_codes: tmu
                .formats
                .iter()
                .map(|f| format!("{} = {}", f.name(), f.code()))
                .collect::<Vec<_>>()
                .join(", "),
            fp32_quarters: if fp32 {
                (0..4u8)
                    .map(|q| {
                        let hex: String = (0..64u8)
                            .rev()
                            .map(|c| format!("{:08x}", unorm8_to_f32(q * 64 + c).to_bits()))
                            .collect();
                        (u32::from(q), hex)
                    })
                    .collect()
            } else {
                Vec::new()
            },
            pass_first: format!("{PASS_W}'d{PASS_FIRST}"),
            pass_second: format!("{PASS_W}'d{PASS_SECOND}"),
            dxt1_code: format!("{FORMAT_W}'d{}", Dxt1.code()),
            w5_table: (0..32).map(|v| (v, widen(v, 5))).collect(),
            w6_table: (0..64).map(|v| (v, widen(v, 6))).collect(),
            target_mhz: pipe.target_mhz,
            stages: pipe.stages,
            latency: pipe.latency(),
            fifo_depth: pipe.fifo_depth,
            fifo_entries: pipe.fifo_depth + u32::from(pipe.fifo_write_always),
            fifo_write_always: pipe.fifo_write_always,
            used_w: 32 - pipe.fifo_depth.leading_zeros(),
            last_free: format!(
                "{}'d{}",
                32 - pipe.fifo_depth.leading_zeros(),
                pipe.fifo_depth - 1
            ),
            pipe_desc,
            valid_shift: if pipe.stages > 1 {
                "{valid_q[Stages-2:0], accept}".into()
            } else {
                "accept".into()
            },
            ctl_shift: if pipe.stages > 1 {
                "{ctl_q[(Stages-1)*CtlW-1:0], s0_ctl}".into()
            } else {
                "s0_ctl".into()
            },
            // The pick step's format gets a register of its own, loaded from the stage
            // before it, when there is one.
            pick_fmt_src: pipe.stage("pick").checked_sub(1).map(ctl_at),
            ctl_views: [
                ("pick", ctl_at(pipe.stage("pick"))),
                ("h", ctl_at(blend("h"))),
                ("v", ctl_at(blend("v"))),
                ("tdiff", ctl_at(pipe.stage("tdiff"))),
                ("t", ctl_at(blend("t"))),
                ("round", ctl_at(pipe.stage("round"))),
                ("last", ctl_at(pipe.stages)),
            ]
            .into_iter()
            .chain(
                pipe.stage("tdiff")
                    .checked_sub(1)
                    .filter(|_| l.lanes > 1)
                    .map(|s| ("pre_tdiff", ctl_at(s))),
            )
            .chain(chan_srcs.into_iter().flat_map(|(h, v, t)| {
                [
                    ("pre_h", ctl_at(h)),
                    ("pre_v", ctl_at(v)),
                    ("pre_t", ctl_at(t)),
                ]
            }))
            .collect(),
            valid_tdiff: valid_at(pipe.stage("tdiff")),
            tdiff_en_src: pipe
                .stage("tdiff")
                .checked_sub(1)
                .filter(|_| l.lanes > 1)
                .map(|s| (valid_at(s), ctl_at(s))),
            lane_copies: l.lanes > 1,
            row_at_load: pipe.row_at_load,
            chan_copies: chan_srcs.is_some(),
            valid_last: valid_at(pipe.stages),
            select_w: width(&select_fields(need_h, need_l)),
            third_rows: THIRD_ROWS.to_vec(),
            third_w: THIRD_W,
            third_rows_w: THIRD_ROWS.len() as u32 * THIRD_W,
            hop_select: hop(
                "        ",
                "select",
                width(&select_fields(need_h, need_l)),
                pipe.reg_after("select"),
            ),
            hop_pick: hop(
                "        ",
                "pick",
                if l.dxt1 {
                    width(&pick_fields())
                } else {
                    WORD_W
                },
                pipe.reg_after("pick"),
            ),
            hop_sum: hop(
                "        ",
                "sum",
                width(&sum_fields()),
                pipe.reg_after("sum"),
            ),
            hop_hdiff: hop("        ", "hdiff", 34, pipe.reg_after("hdiff")),
            hop_vdiff: hop(
                "        ",
                "vdiff",
                2 * (8 + w) + 1,
                pipe.reg_after("vdiff"),
            ),
            hop_tdiff: hop(
                "        ",
                "tdiff",
                2 * (8 + 2 * w) + 1,
                pipe.reg_after("tdiff"),
            ),
            hop_round: hop("        ", "round", 8, pipe.reg_after("round")),
            round_copies: fp32 && pipe.reg_after("round"),
            hop_fp32a: hop("        ", "fp32a", 130, pipe.reg_after("fp32a")),
            tree_third: tree(
                "          ",
                "third",
                THIRD_W,
                THIRD_ROWS.len() as u32,
                &third_regs,
            ),
            delay_side: delay("        ", "side", 33, &third_regs),
            tree_h0: tree_or_none("h0", 8 + w, &regs("h")),
            tree_h1: tree_or_none("h1", 8 + w, &regs("h")),
            tree_v: tree_or_none("v", 8 + 2 * w, &regs("v")),
            tree_t: if dsp {
                String::new()
            } else {
                tree("        ", "t", 16 + 2 * w, 10, &regs("t"))
            },
            t_split: t_split(w),
            // The low product (17 x 8 bits: 25) zero-extended to the sum's width.
            t_lo_ext: if 16 + 2 * w > 25 {
                format!("{{{}'d0, tlo_o}}", 16 + 2 * w - 25)
            } else {
                "tlo_o".into()
            },
            hop_t_add: add_hop("t", 2 * (16 + 2 * w), "t_add"),
            hop_t_sum: if dsp {
                hop("        ", "t_sum", 16 + 2 * w, pipe.reg_after("t_sum"))
            } else {
                String::new()
            },
            dsp,
            block_nets: pipe.step("h_out").is_some(),
            hop_h_out: hop(
                "        ",
                "h_out",
                2 * (8 + w) + 16,
                pipe.reg_after("h_out"),
            ),
            hop_v_out: hop(
                "        ",
                "v_out",
                2 * (8 + 2 * w) - 1,
                pipe.reg_after("v_out"),
            ),
            // The level blend's products: its halves (25 and TW - 17 bits) or the whole.
            hop_t_out: hop(
                "        ",
                "t_out",
                if t_split(w) {
                    2 * (16 + 2 * w) + 8
                } else {
                    2 * (16 + 2 * w)
                },
                pipe.reg_after("t_out"),
            ),
            hop_h0_add: add_hop("h0", 8 + w, "h_add"),
            hop_h1_add: add_hop("h1", 8 + w, "h_add"),
            hop_v_add: add_hop("v", 8 + 2 * w, "v_add"),
            pipe,
        }
    }

    pub fn elaborate(&self) -> Result<(Unit, Vec<Module>), RenderError> {
        let ctx = &self.ctx;
        let mut modules = Vec::new();
        if let Some(m) = module_for(ctx, StageKind::Fifo { depth: 4 }, 32)? {
            modules.push(m);
        }
        let instantiates = modules.iter().map(|m| m.name.clone()).collect();
        modules.push(Module {
            name: self.name.clone(),
            kind: "tex_filter",
            parameters: BTreeMap::from([("Lanes".to_string(), u64::from(self.lanes))]),
            instantiates,
            text: super::render(&self.name, self)?,
        });
        let unit = Unit {
            name: "tex_filter",
            top: self.name.clone(),
            modules: modules.iter().map(|m| m.name.clone()).collect(),
            ports: StreamPort::req_rsp(self.req_w, self.rsp_w),
            mem_ports: Vec::new(),
            // Filled in from the rendered hierarchy (rtl::stages) once the design is whole.
            stages: Vec::new(),
            probes: Vec::new(),
        };
        Ok((unit, modules))
    }
}
