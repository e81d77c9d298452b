//! `tex_filter`: the texture mapping unit's format converters and filter lanes (seed 001),
//! after the texture cache. Which formats get a converter, the weight width, the lane
//! count and the output format are decided here; the template replicates lanes, texels
//! and channels.

use std::collections::BTreeMap;

use askama::Template;

use super::handshake::module_for;
use super::{Ctx, Module, RenderError, Rst, StreamPort, Unit};
use crate::config::{StageKind, TexFormat, TexOutput, Tmu};
pub use crate::iface::tex_filter::FilterLayout;
use crate::iface::tex_filter::{PASS_FIRST, PASS_SECOND, unorm8_to_f32};

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
    pub skid: String,
    pub lanes: u32,
    pub wbits: u32,
    pub dxt1: bool,
    pub fp32: bool,
    pub sub_w: u32,
    pub tex_w: u32,
    pub lane_w: u32,
    /// A lane's bits besides its two weights: the active bit and four texels.
    pub lane_fixed: u32,
    pub req_w: u32,
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
    /// (c, fp32 bits of c / 255 in hex) for the fp32 output table.
    pub fp32_table: Vec<(u32, String)>,
    pub pass_first: u32,
    pub pass_second: u32,
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
        TexFormat::Dxt1 => "dxt1(word, tex[SubW + 32 +: 32], sub)",
    }
}

impl TexFilter {
    pub fn new(ctx: &Ctx, tmu: &Tmu) -> Self {
        let l = FilterLayout::new(tmu);
        let has = |f| tmu.has_format(f);
        use TexFormat::*;
        let fp32 = tmu.output == TexOutput::Fp32;
        Self {
            ctx: ctx.clone(),
            name: ctx.module_name("tex_filter"),
            stamp: ctx.stamp.clone(),
            rst: ctx.rst.clone(),
            skid: ctx.module_name("hs_skid"),
            lanes: l.lanes,
            wbits: l.wbits,
            dxt1: l.dxt1,
            fp32,
            sub_w: l.sub_w,
            tex_w: l.tex_w,
            lane_w: l.lane_w,
            lane_fixed: 1 + 4 * l.tex_w,
            req_w: l.req_w,
            out_lane_w: l.out_lane_w,
            rsp_w: l.rsp_w,
            need_h: has(Rgb565) || has(Rgba4444) || has(Rgba5551) || has(La88),
            need_l: has(L8) || has(A8),
            need_w5: has(Rgb565) || has(Rgba5551),
            need_w6: has(Rgb565),
            need_565: has(Rgb565),
            formats: tmu
                .formats
                .iter()
                .map(|&f| FormatCase {
                    code: format!("3'd{}", f.code()),
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
            fp32_table: if fp32 {
                (0..=255u8)
                    .map(|c| (u32::from(c), format!("{:08x}", unorm8_to_f32(c).to_bits())))
                    .collect()
            } else {
                Vec::new()
            },
            pass_first: PASS_FIRST,
            pass_second: PASS_SECOND,
        }
    }

    pub fn elaborate(&self) -> Result<(Unit, Vec<Module>), RenderError> {
        let ctx = &self.ctx;
        let mut modules = Vec::new();
        if let Some(m) = module_for(ctx, StageKind::Skid, 32)? {
            modules.push(m);
        }
        let instantiates = modules.iter().map(|m| m.name.clone()).collect();
        modules.push(Module {
            name: self.name.clone(),
            kind: "tex_filter",
            parameters: BTreeMap::from([
                ("Lanes".to_string(), u64::from(self.lanes)),
                ("WBits".to_string(), u64::from(self.wbits)),
            ]),
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
