//! `gpu`: the GPU subsystem's top and its engines. `gpu_dma` (the IPU's DMA reads and
//! READ_PIXELS' writes), `gpu_fb` (the framebuffer: pixel writes, region reads) and
//! `gpu_texw` (COPY_TEX_IMAGE's writes) turn the IPU's streams into the arbiter's bursts;
//! the TMU's line fills go to their requester directly. Where things live is the
//! contract's (`iface::gpu`).

use askama::Template;

use super::handshake::{module_for, ram_fifo_module};
use super::{Ctx, Module, RenderError, Rst, Unit, render};
use crate::config::{Gpu, Ipu, Mem, Serves, StageKind, Tmu, clog2};
use crate::iface::field::lsb_params;
use crate::iface::gpu::{GpuMap, OP_MEM, OP_TMU, mem_header_bits, read_buffer_beats};
use crate::iface::ipu::{STATUS_WIDTH, pix_fields, tex_width};
use crate::iface::mem_arb::{req_fields, req_width, wbeat_width};
use crate::iface::timing::Timing;

/// `expr`, `from` bits wide, zero-extended or truncated to `to` bits.
fn zext(expr: &str, from: u32, to: u32) -> String {
    use std::cmp::Ordering::*;
    match to.cmp(&from) {
        Greater => format!("{{{{{}{{1'b0}}}}, {expr}}}", to - from),
        Equal => expr.to_string(),
        Less => format!("{expr}[{}:0]", to - 1),
    }
}

/// A constant as a 32-bit Verilog literal.
fn hex32(v: u64) -> String {
    format!("32'h{:08x}", v as u32)
}

/// A byte-enable constant: `bytes` ones in `strb_bits`.
fn strb_ones(bytes: u32, strb_bits: u32) -> String {
    format!("{strb_bits}'h{:x}", (1u128 << bytes) - 1)
}

/// The largest power of two up to `n` (at least 1): an engine's bursts, which must not
/// cross a boundary of their own size.
fn pow2_floor(n: u32) -> u32 {
    1 << (31 - n.max(1).leading_zeros())
}

/// Bits of an index into `n` things, at least one.
fn index_bits(n: u32) -> u32 {
    clog2(n).max(1)
}

#[derive(Template)]
#[template(path = "rtl/gpu_dma.v")]
pub struct GpuDma {
    pub name: String,
    pub stamp: String,
    pub rst: Rst,
    pub skid: String,
    pub fifo: String,
    pub rbuf: String,
    pub rbuf_pad: String,
    pub requester: String,
    pub writes: bool,
    pub data_bits: u32,
    pub dma_bits: u32,
    pub req_bits: u32,
    pub len_bits: u32,
    pub wbeat_bits: u32,
    pub strb_bits: u32,
    pub wpb: u32,
    pub wpb_bits: u32,
    pub word_bytes: u32,
    pub word_shift: u32,
    pub word_strb: String,
    pub burst: u32,
    pub burst_bits: u32,
    pub buf_depth: u32,
    pub cnt_bits: u32,
    pub beat_shift: u32,
    pub rd_base_hex: String,
    pub rd_ring_bytes: u64,
    pub rd_ring_beat_bits: u32,
    pub wr_base_hex: String,
    pub wr_ring_bytes: u64,
    pub wr_ring_word_bits: u32,
    pub beats_to_ring: String,
    pub req_lsbs: Vec<(String, u32)>,
}

#[derive(Template)]
#[template(path = "rtl/gpu_fb.v")]
pub struct GpuFb {
    pub name: String,
    pub stamp: String,
    pub rst: Rst,
    pub skid: String,
    pub fifo: String,
    pub rbuf: String,
    pub rbuf_pad: String,
    pub requester: String,
    pub reads: bool,
    pub lanes: u32,
    pub lane_bits: u32,
    pub data_bits: u32,
    pub req_bits: u32,
    pub len_bits: u32,
    pub wbeat_bits: u32,
    pub strb_bits: u32,
    pub pix_bits: u32,
    pub ppb: u32,
    pub ppb_bits: u32,
    pub fb_width: u32,
    pub fb_height: u32,
    pub fb_width_bits: u32,
    pub fb_height_bits: u32,
    pub fb_base_hex: String,
    pub fb_beat_bits: u32,
    pub row_beats: u32,
    pub beat_shift: u32,
    pub burst: u32,
    pub burst_bits: u32,
    pub buf_depth: u32,
    pub cnt_bits: u32,
    pub qx_to_pix: String,
    pub pidx_beat: String,
    pub rb_to_addr: String,
    pub beats_to_fb: String,
    pub pix_lsbs: Vec<(String, u32)>,
    pub req_lsbs: Vec<(String, u32)>,
    /// COPY_TEX_IMAGE's words share this engine's requester (no requester serves
    /// `ipu.tex` alone).
    pub tex: bool,
    pub tex_bits: u32,
    pub word_bits: u32,
    pub word_bytes: u32,
    pub word_strb: String,
    pub tex_wpb: u32,
    pub tex_wpb_bits: u32,
    pub tex_base_hex: String,
    pub tex_words: u64,
    pub tex_words_hex: String,
    pub twaddr_beat: String,
}

/// An engine's read buffer: a block-RAM FIFO and the credits its bursts are requested
/// against (the DMA and framebuffer engines each hold one).
#[derive(Template)]
#[template(path = "rtl/gpu_rbuf.v")]
pub struct GpuRbuf {
    pub name: String,
    pub stamp: String,
    pub rst: Rst,
    pub ram_fifo: String,
    pub width: u32,
    pub depth: u32,
    pub cnt_bits: u32,
}

#[derive(Template)]
#[template(path = "rtl/gpu_texw.v")]
pub struct GpuTexw {
    pub name: String,
    pub stamp: String,
    pub rst: Rst,
    pub skid: String,
    pub fifo: String,
    pub requester: String,
    pub word_bits: u32,
    pub word_bytes: u32,
    pub word_shift: u32,
    pub word_strb: String,
    pub wpb: u32,
    pub wpb_bits: u32,
    pub tex_bits: u32,
    pub req_bits: u32,
    pub len_bits: u32,
    pub wbeat_bits: u32,
    pub strb_bits: u32,
    pub beat_shift: u32,
    pub tex_base_hex: String,
    pub tex_words: u64,
    pub tex_words_hex: String,
    pub waddr_beat: String,
    pub req_lsbs: Vec<(String, u32)>,
}

#[derive(Template)]
#[template(path = "rtl/gpu_fill.v")]
pub struct GpuFill {
    pub name: String,
    pub stamp: String,
    pub rst: Rst,
    pub requester: String,
    pub req_bits: u32,
    pub len_bits: u32,
    pub cnt_bits: u32,
    pub line_beats: u32,
    pub burst: u32,
    pub bursts: u32,
    pub burst_bytes: u64,
    pub req_lsbs: Vec<(String, u32)>,
}

#[derive(Template)]
#[template(path = "rtl/gpu_route.v")]
pub struct GpuRoute {
    pub name: String,
    pub stamp: String,
    pub rst: Rst,
    pub op_hex: String,
    pub hdr_bits: u32,
    pub pad_bits: u32,
    pub hdr_desc: String,
    pub mm_bits: u32,
    pub tmu_op_hex: String,
    pub reg_bits: u32,
    pub tex_bits: u32,
    /// Word 0's fields: the larger of a MEM request's and a TMU write's.
    pub hdr_w: u32,
    pub tmu_bits: u32,
    /// The zeros between a TMU write's fields and its write flag, with a comma.
    pub tmu_pad: String,
    /// The input register's module.
    pub skid: String,
}

/// One requester as the top wires it.
pub struct TopReq {
    pub name: String,
    pub what: String,
    pub req_bits: u32,
    pub reads: bool,
    pub writes: bool,
    /// Driven from the top's ports: it serves no traffic.
    pub host: bool,
}

#[derive(Template)]
#[template(path = "rtl/gpu.v")]
pub struct GpuTopBlock {
    pub name: String,
    pub stamp: String,
    pub rst: Rst,
    pub rst_pad_long: String,
    pub rst_pad_route: String,
    pub rst_pad_mm: String,
    pub ipu: String,
    pub tmu: String,
    pub arb: String,
    pub dma: String,
    pub fb: String,
    pub texw: String,
    pub route: String,
    pub mm: String,
    pub mm_req_bits: u32,
    pub mm_rsp_bits: u32,
    pub framebuffer: bool,
    pub reqs: Vec<TopReq>,
    pub host_lines: Vec<String>,
    pub dma_req: String,
    pub fb_req: String,
    pub texw_req: String,
    /// COPY_TEX_IMAGE's words go to the framebuffer engine.
    pub tex_shared: bool,
    pub fill_req: String,
    pub fill_beats: u32,
    pub fill_len: String,
    /// The line fill's splitter (`gpu_fill`), when a line is longer than the requester's
    /// bursts, and its parameters.
    pub fill: String,
    pub fill_bursts: u32,
    pub fill_burst_bytes: u64,
    pub route_reg_bits: u32,
    pub route_tex_bits: u32,
    pub dma_buf: u32,
    pub fb_buf: u32,
    pub data_bits: u32,
    pub strb_bits: u32,
    pub wbeat_bits: u32,
    pub len_bits: u32,
    pub id_bits: u32,
    pub dma_bits: u32,
    pub pix_bits: u32,
    pub tex_bits: u32,
    pub sample_bits: u32,
    pub color_bits: u32,
    pub status_bits: u32,
    pub fb_width: u32,
    pub fb_height: u32,
    pub fb_base: String,
    pub dma_base: String,
    pub dma_ring: String,
    pub read_base: String,
    pub read_ring: String,
    pub tex_base: String,
}

/// A size in bytes as the header says it.
fn kib(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes}-byte")
    }
}

/// The GPU unit: the IPU, the TMU, the arbiter and the engines between them.
pub struct GpuUnit<'a> {
    pub ctx: &'a Ctx,
    pub gpu: &'a Gpu,
    pub ipu: &'a Ipu,
    pub tmu: &'a Tmu,
    pub mem: &'a Mem,
    pub ipu_pipe: crate::iface::ipu::Pipe,
    pub timing: &'a Timing,
}

impl GpuUnit<'_> {
    fn requester(&self, s: Serves) -> usize {
        // Validation binds every traffic this config makes (config::gpu).
        self.gpu
            .requester(s)
            .expect("config::gpu binds every traffic the units make")
    }

    pub fn elaborate(&self) -> Result<(Unit, Vec<Module>), RenderError> {
        let (ctx, mem, ipu) = (self.ctx, self.mem, self.ipu);
        let map = GpuMap::new(
            self.gpu,
            ipu,
            mem.map.as_ref().expect("config::gpu requires [mem.map]"),
        );
        let mut modules = Vec::new();
        let (ipu_unit, m) = super::ipu::IpuUnit::new(ctx, ipu, self.ipu_pipe).elaborate()?;
        modules.extend(m);
        let (tmu_unit, m) = super::tmu::TmuUnit::new(ctx, self.tmu).elaborate()?;
        modules.extend(m);
        let (arb_unit, m) = super::mem_arb::MemArb::new(ctx, mem, self.timing).elaborate()?;
        modules.extend(m);
        let mem_map = mem.map.as_ref().expect("config::gpu requires [mem.map]");
        let (mm_unit, m) = super::mem_mgr::MemMgr::new(ctx, mem_map, self.timing).elaborate()?;
        modules.extend(m);
        let skid = module_for(ctx, StageKind::Skid, 32)?.expect("a skid has a module");
        let fifo = module_for(ctx, StageKind::Fifo { depth: 2 }, 32)?.expect("a FIFO has a module");
        let ram = ram_fifo_module(ctx)?;
        let (skid_name, fifo_name, ram_name) =
            (skid.name.clone(), fifo.name.clone(), ram.name.clone());
        modules.extend([skid, fifo, ram]);

        let data_bits = mem.data_bits;
        let strb_bits = data_bits / 8;
        let beat_shift = clog2(strb_bits);
        let wbeat = wbeat_width(mem);
        let dma_bits = ipu.dma_word_bits;
        let word_bytes = dma_bits / 8;
        let wpb = data_bits / dma_bits;
        let lsbs = |i: usize| lsb_params("Req", &req_fields(mem, i));
        let cnt_bits = |buf: u32| clog2(buf + 1).max(mem.len_bits() + 1);
        let rbuf_name = ctx.module_name("gpu_rbuf");
        let rbuf_pad = " ".repeat("issue_beats_i".len().saturating_sub(ctx.rst.port.len()));

        // The DMA engine.
        let dr = self.requester(Serves::IpuDma);
        let dburst = pow2_floor(mem.requesters[dr].max_burst);
        let dbuf = read_buffer_beats(mem, dburst);
        let ring_beats = map.dma.bits() - beat_shift;
        let dma = GpuDma {
            name: ctx.module_name("gpu_dma"),
            stamp: ctx.stamp.clone(),
            rst: ctx.rst.clone(),
            skid: skid_name.clone(),
            fifo: fifo_name.clone(),
            rbuf: rbuf_name.clone(),
            rbuf_pad: rbuf_pad.clone(),
            requester: mem.requesters[dr].name.clone(),
            writes: ipu.framebuffer,
            data_bits,
            dma_bits,
            req_bits: req_width(mem, dr),
            len_bits: mem.len_bits(),
            wbeat_bits: wbeat,
            strb_bits,
            wpb,
            wpb_bits: index_bits(wpb),
            word_bytes,
            word_shift: clog2(word_bytes),
            word_strb: strb_ones(word_bytes, strb_bits),
            burst: dburst,
            burst_bits: clog2(dburst),
            buf_depth: dbuf,
            cnt_bits: cnt_bits(dbuf),
            beat_shift,
            rd_base_hex: hex32(map.dma.base),
            rd_ring_bytes: map.dma.bytes,
            rd_ring_beat_bits: ring_beats,
            wr_base_hex: hex32(map.read.base),
            wr_ring_bytes: map.read.bytes,
            wr_ring_word_bits: map.read.bits() - clog2(word_bytes),
            beats_to_ring: zext("rd_n", clog2(dburst) + 1, ring_beats),
            req_lsbs: lsbs(dr),
        };

        // The framebuffer engine.
        let fr = self.requester(Serves::IpuFb);
        let fburst = pow2_floor(mem.requesters[fr].max_burst);
        let fbuf = read_buffer_beats(mem, fburst);
        let ppb = data_bits / 32;
        let ppb_bits = clog2(ppb);
        let (wb, hb) = (clog2(map.fb_width), clog2(map.fb_height));
        let fb_beat_bits = wb + hb - ppb_bits;
        let pix = pix_fields(ipu);
        let pix_bits = crate::iface::field::width(&pix);
        let pidx = if ppb > 1 {
            format!("pidx[{}:{ppb_bits}]", wb + hb - 1)
        } else {
            "pidx".to_string()
        };
        // COPY_TEX_IMAGE's words: their own requester, or the framebuffer's.
        let tex_own = self.gpu.requester(Serves::IpuTex);
        let tex_shared = ipu.framebuffer && tex_own.is_none();
        let word_shift = clog2(word_bytes);
        let twaddr_beat = zext(
            &format!("twaddr[{}:{}]", 31 - word_shift, clog2(wpb)),
            32 - word_shift - clog2(wpb),
            32 - beat_shift,
        );
        let fb = GpuFb {
            name: ctx.module_name("gpu_fb"),
            stamp: ctx.stamp.clone(),
            rst: ctx.rst.clone(),
            skid: skid_name.clone(),
            fifo: fifo_name.clone(),
            rbuf: rbuf_name.clone(),
            rbuf_pad,
            requester: mem.requesters[fr].name.clone(),
            reads: ipu.framebuffer,
            lanes: ipu.lanes,
            lane_bits: index_bits(ipu.lanes),
            data_bits,
            req_bits: req_width(mem, fr),
            len_bits: mem.len_bits(),
            wbeat_bits: wbeat,
            strb_bits,
            pix_bits,
            ppb,
            ppb_bits,
            fb_width: map.fb_width,
            fb_height: map.fb_height,
            fb_width_bits: wb,
            fb_height_bits: hb,
            fb_base_hex: hex32(map.fb_base),
            fb_beat_bits,
            row_beats: map.fb_width / ppb,
            beat_shift,
            burst: fburst,
            burst_bits: clog2(fburst),
            buf_depth: fbuf,
            cnt_bits: cnt_bits(fbuf),
            qx_to_pix: zext("qx", 16, wb + hb),
            pidx_beat: zext(&pidx, fb_beat_bits, 32 - beat_shift),
            rb_to_addr: zext("rb_q", fb_beat_bits, 32 - beat_shift),
            beats_to_fb: zext("rd_n", clog2(fburst) + 1, fb_beat_bits),
            pix_lsbs: lsb_params("Pix", &pix),
            req_lsbs: lsbs(fr),
            tex: tex_shared,
            tex_bits: tex_width(ipu),
            word_bits: dma_bits,
            word_bytes,
            word_strb: strb_ones(word_bytes, strb_bits),
            tex_wpb: wpb,
            tex_wpb_bits: index_bits(wpb),
            tex_base_hex: hex32(map.tex_base),
            tex_words: map.tex_words,
            tex_words_hex: hex32(map.tex_words),
            twaddr_beat,
        };

        let texw = if let Some(tr) = tex_own.filter(|_| ipu.framebuffer) {
            let wpb_bits = clog2(wpb);
            let hi = 31 - clog2(word_bytes);
            Some(GpuTexw {
                name: ctx.module_name("gpu_texw"),
                stamp: ctx.stamp.clone(),
                rst: ctx.rst.clone(),
                skid: skid_name.clone(),
                fifo: fifo_name.clone(),
                requester: mem.requesters[tr].name.clone(),
                word_bits: dma_bits,
                word_bytes,
                word_shift: clog2(word_bytes),
                word_strb: strb_ones(word_bytes, strb_bits),
                wpb,
                wpb_bits: index_bits(wpb),
                tex_bits: tex_width(ipu),
                req_bits: req_width(mem, tr),
                len_bits: mem.len_bits(),
                wbeat_bits: wbeat,
                strb_bits,
                beat_shift,
                tex_base_hex: hex32(map.tex_base),
                tex_words: map.tex_words,
                tex_words_hex: hex32(map.tex_words),
                waddr_beat: zext(
                    &format!("waddr[{hi}:{wpb_bits}]"),
                    hi + 1 - wpb_bits,
                    32 - beat_shift,
                ),
                req_lsbs: lsbs(tr),
            })
        } else {
            None
        };

        let engine = |name: &str,
                      kind: &'static str,
                      text: String,
                      uses: Vec<String>,
                      params: &[(&str, u64)]| Module {
            name: name.to_string(),
            kind,
            parameters: params.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            instantiates: uses,
            text,
        };
        // The read buffer, at the DMA engine's depth (the framebuffer engine sets its own).
        let rbuf = GpuRbuf {
            name: rbuf_name.clone(),
            stamp: ctx.stamp.clone(),
            rst: ctx.rst.clone(),
            ram_fifo: ram_name.clone(),
            width: data_bits,
            depth: dbuf,
            cnt_bits: cnt_bits(dbuf),
        };
        let rbuf_m = engine(
            &rbuf.name,
            "gpu_rbuf",
            render(&rbuf.name, &rbuf)?,
            vec![ram_name.clone()],
            &[
                ("Width", data_bits.into()),
                ("Depth", dbuf.into()),
                ("CntW", cnt_bits(dbuf).into()),
            ],
        );
        let dma_m = engine(
            &dma.name,
            "gpu_dma",
            render(&dma.name, &dma)?,
            vec![skid_name.clone(), rbuf_name.clone()]
                .into_iter()
                .chain(ipu.framebuffer.then(|| fifo_name.clone()))
                .collect(),
            &[("BufDepth", dbuf.into()), ("WFifoDepth", 2)][..if ipu.framebuffer { 2 } else { 1 }],
        );
        let fb_m = engine(
            &fb.name,
            "gpu_fb",
            render(&fb.name, &fb)?,
            vec![skid_name.clone(), fifo_name.clone()]
                .into_iter()
                .chain(ipu.framebuffer.then(|| rbuf_name.clone()))
                .collect(),
            &[("WFifoDepth", 2), ("BufDepth", fbuf.into())][..if ipu.framebuffer { 2 } else { 1 }],
        );
        let texw_m = match &texw {
            Some(t) => Some(engine(
                &t.name,
                "gpu_texw",
                render(&t.name, t)?,
                vec![skid_name.clone(), fifo_name.clone()],
                &[("WFifoDepth", 2)],
            )),
            None => None,
        };

        let enc = crate::iface::mem_mgr::Encoding::new(mem_map);
        let tl = crate::iface::tmu::TmuLayout::new(self.tmu);
        let hdr_bits = mem_header_bits(&enc);
        let route = GpuRoute {
            name: ctx.module_name("gpu_route"),
            stamp: ctx.stamp.clone(),
            rst: ctx.rst.clone(),
            op_hex: format!("8'h{OP_MEM:02x}"),
            hdr_bits,
            pad_bits: 24 - hdr_bits,
            hdr_desc: crate::iface::field::describe(
                &enc.req_fields()
                    .into_iter()
                    .filter(|f| f.name != "Arg")
                    .collect::<Vec<_>>(),
            )
            .trim_matches(|c| c == '{' || c == '}')
            .to_string(),
            mm_bits: enc.req_bits,
            tmu_op_hex: format!("8'h{OP_TMU:02x}"),
            reg_bits: tl.reg_w,
            tex_bits: tl.tex_w,
            hdr_w: hdr_bits.max(tl.reg_w + tl.tex_w),
            tmu_bits: tl.req_w,
            tmu_pad: match tl.req_w - 1 - 32 - tl.reg_w - tl.tex_w {
                0 => String::new(),
                n => format!("{n}'d0, "),
            },
            skid: skid_name.clone(),
        };
        let route_m = engine(
            &route.name,
            "gpu_route",
            render(&route.name, &route)?,
            vec![skid_name.clone()],
            &[("RegW", tl.reg_w.into()), ("TexW", tl.tex_w.into())],
        );
        let fill = self.requester(Serves::TmuMem);
        let fill_beats = self.tmu.cache.beats_per_line;
        // A line in bursts of the largest power of two the requester takes (lines are a
        // power of two of beats).
        let fill_burst = pow2_floor(mem.requesters[fill].max_burst).min(fill_beats);
        let fill_m = if fill_burst < fill_beats {
            let f = GpuFill {
                name: ctx.module_name("gpu_fill"),
                stamp: ctx.stamp.clone(),
                rst: ctx.rst.clone(),
                requester: mem.requesters[fill].name.clone(),
                req_bits: req_width(mem, fill),
                len_bits: mem.len_bits(),
                cnt_bits: index_bits(fill_beats / fill_burst),
                line_beats: fill_beats,
                burst: fill_burst,
                bursts: fill_beats / fill_burst,
                burst_bytes: u64::from(fill_burst) * mem.beat_bytes(),
                req_lsbs: lsbs(fill),
            };
            Some(engine(
                &f.name,
                "gpu_fill",
                render(&f.name, &f)?,
                Vec::new(),
                &[("Bursts", f.bursts.into()), ("BurstBytes", f.burst_bytes)],
            ))
        } else {
            None
        };
        let reqs: Vec<TopReq> = mem
            .requesters
            .iter()
            .enumerate()
            .map(|(i, r)| TopReq {
                name: r.name.clone(),
                what: match r.serves {
                    Some(Serves::IpuFb) if tex_shared => format!(
                        "{} ({}), and {} ({})",
                        Serves::IpuFb.key(),
                        Serves::IpuFb.what(),
                        Serves::IpuTex.key(),
                        Serves::IpuTex.what()
                    ),
                    Some(s) => format!("{} ({})", s.key(), s.what()),
                    None => "the host's: the top's ports".to_string(),
                },
                req_bits: req_width(mem, i),
                reads: r.access.reads(),
                writes: r.access.writes(),
                host: r.serves.is_none(),
            })
            .collect();
        let host_lines = reqs
            .iter()
            .filter(|r| r.host)
            .map(|r| {
                format!(
                    "{}_*: the host's requester \"{}\" of the arbiter, passed through.",
                    r.name, r.name
                )
            })
            .collect();
        let name = ctx.module_name("gpu");
        let top = GpuTopBlock {
            name: name.clone(),
            stamp: ctx.stamp.clone(),
            rst: ctx.rst.clone(),
            rst_pad_long: " ".repeat("dma_req_valid_o".len().saturating_sub(ctx.rst.port.len())),
            rst_pad_route: " ".repeat("pass_valid_o".len().saturating_sub(ctx.rst.port.len())),
            rst_pad_mm: " ".repeat("req_valid_i".len().saturating_sub(ctx.rst.port.len())),
            ipu: ipu_unit.top.clone(),
            tmu: tmu_unit.top.clone(),
            arb: arb_unit.top.clone(),
            dma: dma.name.clone(),
            fb: fb.name.clone(),
            texw: texw.as_ref().map_or_else(String::new, |t| t.name.clone()),
            route: route.name.clone(),
            mm: mm_unit.top.clone(),
            mm_req_bits: mm_unit.ports[0].width,
            mm_rsp_bits: mm_unit.ports[1].width,
            framebuffer: ipu.framebuffer,
            host_lines,
            dma_req: mem.requesters[dr].name.clone(),
            fb_req: mem.requesters[fr].name.clone(),
            texw_req: texw
                .as_ref()
                .map_or_else(String::new, |t| t.requester.clone()),
            tex_shared,
            fill_req: mem.requesters[fill].name.clone(),
            fill_beats,
            fill_len: format!("{}'d{}", mem.len_bits(), fill_beats - 1),
            fill: fill_m.as_ref().map_or_else(String::new, |m| m.name.clone()),
            fill_bursts: fill_beats / fill_burst,
            fill_burst_bytes: u64::from(fill_burst) * mem.beat_bytes(),
            route_reg_bits: tl.reg_w,
            route_tex_bits: tl.tex_w,
            dma_buf: dbuf,
            fb_buf: fbuf,
            data_bits,
            strb_bits,
            wbeat_bits: wbeat,
            len_bits: mem.len_bits(),
            id_bits: mem.id_bits(),
            dma_bits,
            pix_bits,
            tex_bits: tex_width(ipu),
            sample_bits: tmu_unit.ports[0].width,
            color_bits: tmu_unit.ports[1].width,
            status_bits: STATUS_WIDTH,
            fb_width: map.fb_width,
            fb_height: map.fb_height,
            fb_base: hex32(map.fb_base),
            dma_base: hex32(map.dma.base),
            dma_ring: kib(map.dma.bytes),
            read_base: hex32(map.read.base),
            read_ring: kib(map.read.bytes),
            tex_base: hex32(map.tex_base),
            reqs,
        };
        let mut uses = vec![
            ipu_unit.top.clone(),
            tmu_unit.top.clone(),
            arb_unit.top.clone(),
            mm_unit.top.clone(),
            route.name.clone(),
            dma.name.clone(),
            fb.name.clone(),
        ];
        modules.push(route_m);
        modules.push(rbuf_m);
        modules.push(dma_m);
        modules.push(fb_m);
        for m in [texw_m, fill_m].into_iter().flatten() {
            uses.push(m.name.clone());
            modules.push(m);
        }
        modules.push(Module {
            text: render(&name, &top)?,
            name: name.clone(),
            kind: "gpu",
            parameters: [("DmaBufDepth", dbuf), ("FbBufDepth", fbuf)]
                [..if ipu.framebuffer { 2 } else { 1 }]
                .iter()
                .map(|(k, v)| (k.to_string(), u64::from(*v)))
                .collect(),
            instantiates: uses,
        });
        // Each module once, leaves first (a module two units share was rendered twice).
        let mut seen = std::collections::BTreeSet::new();
        modules.retain(|m| seen.insert(m.name.clone()));
        let ports = crate::iface::gpu::ports(
            self.gpu,
            mem,
            tmu_unit.ports[0].width,
            tmu_unit.ports[1].width,
            mm_unit.ports[1].width,
        );
        let unit = Unit {
            name: "gpu",
            top: name,
            modules: modules.iter().map(|m| m.name.clone()).collect(),
            ports,
            mem_ports: Vec::new(),
            stages: Vec::new(),
            probes: Vec::new(),
        };
        Ok((unit, modules))
    }
}
