//! The GPU subsystem's model: the IPU's and the TMU's models on one memory, their traffic
//! placed as the contract says (`iface::gpu`), and the host's requesters as the
//! arbiter's model runs them. Commands in; passed words, status, colours, the host's read
//! beats and the whole memory image out.
//!
//! The engines keep the orders that make this a sequential model: a region is read only
//! after every earlier pixel's write has gone to memory, one requester's bursts reach
//! memory in order, and the rest of the traffic lives in areas nothing else reads.

use std::collections::BTreeMap;

use super::ipu::{
    FORMAT_CI8, FbWord, Inputs, Stepper, ZOOMS, cmd_copy, cmd_copytex, cmd_draw, cmd_pop,
};
use super::ipu::{cmd_push, cmd_read, cmd_transfer, cmd_zoom, q16};
use super::mem_arb::{self, initial_beat};
use super::mem_mgr::{self, MemMgr, decode_cmd, encode_cmd, encode_rsp};
use super::tmu::unit::{Memory as TexMemory, TmuCmd, random_commands, vectors_for};
use crate::config::{Config, Gpu, Ipu, Mem, Tmu};
use crate::iface::gpu::{
    GpuMap, OP_MEM, OP_TMU, host_requesters, mem_command, mem_header_bits, ports, tmu_command,
};
use crate::iface::ipu::{OP_INDEX, OP_TRANSFER};
use crate::iface::mem_arb::req_width;
use crate::iface::mem_mgr::Encoding;
use crate::iface::tmu::REG_BASE0;
use crate::iface::tmu::TmuLayout;
use crate::rng::{Rng, memory_word};
use crate::vectors::{Bits, PortVectors, VectorSet};

/// The random stream of the GPU's IPU commands.
const STREAM_GPU: u64 = 4100;
/// The workload's largest region: width (at most an eighth of the framebuffer's) and
/// height; zoom factors reach 3 ([`ZOOMS`]).
const REGION_W: u64 = 24;
const REGION_H: u64 = 6;
const ZOOM_MAX: u64 = 3;

/// The longest the GPU may work on the workload's commands without memory traffic and
/// then make more: a region's zoomed pixels, one a clock, with room for stalls (8 clocks a
/// pixel) and a pipeline's drain.
pub fn quiet_clocks() -> u64 {
    8 * REGION_W * REGION_H * ZOOM_MAX * ZOOM_MAX + 1024
}

/// The shared memory as the model sees it: bytes written so far; every other byte is the
/// memory's initial content ([`memory_word`] of its word).
#[derive(Debug, Clone, Default)]
pub struct Image {
    written: BTreeMap<u64, u8>,
}

impl Image {
    pub fn byte(&self, a: u64) -> u8 {
        self.written
            .get(&a)
            .copied()
            .unwrap_or_else(|| (memory_word(a & !3) >> (8 * (a & 3))) as u8)
    }

    /// The little-endian 32-bit word at `a` (4-aligned).
    pub fn word(&self, a: u64) -> u32 {
        (0..4).fold(0, |w, k| w | u32::from(self.byte(a + k)) << (8 * k))
    }

    /// Writes `bytes` little endian from `a`.
    pub fn write(&mut self, a: u64, value: &Bits, bytes: u32) {
        for k in 0..bytes {
            self.written
                .insert(a + u64::from(k), value.field(8 * k, 8) as u8);
        }
    }

    /// Every beat with a written byte, as the memory holds it.
    pub fn beats(&self, data_bits: u32) -> BTreeMap<u64, Bits> {
        let bb = u64::from(data_bits / 8);
        let mut out: BTreeMap<u64, Bits> = BTreeMap::new();
        for (&a, &v) in &self.written {
            let beat = a & !(bb - 1);
            out.entry(beat)
                .or_insert_with(|| initial_beat(beat, data_bits))
                .set_field(8 * (a - beat) as u32, 8, u64::from(v));
        }
        out
    }
}

/// What the IPU reads, from memory: DMA words from the ring, regions from the
/// framebuffer, as `gpu_dma` and `gpu_fb` fetch them.
struct MemInputs<'a> {
    map: GpuMap,
    ipu: &'a Ipu,
    beat_bytes: u64,
    /// The ring's next beat.
    dma_beat: u64,
    image: Image,
}

impl Inputs for MemInputs<'_> {
    fn dma(&mut self, units: usize) -> Option<Vec<u32>> {
        let ring = self.map.dma;
        let start = self.dma_beat * self.beat_bytes;
        let words = (0..units as u64)
            .map(|k| self.image.word(ring.base | ((start + 4 * k) % ring.bytes)))
            .collect();
        // The request's DMA words, whole beats of them; the next request starts a beat.
        let dma_words = (4 * units as u64).div_ceil(u64::from(self.ipu.dma_word_bits / 8));
        let per_beat = self.beat_bytes * 8 / u64::from(self.ipu.dma_word_bits);
        self.dma_beat += dma_words.div_ceil(per_beat);
        Some(words)
    }

    fn fb(&mut self, region: u64, words: usize) -> Option<Vec<FbWord>> {
        let field = |k: u32| (region >> (16 * k)) & 0xffff;
        let (x, y, w, h) = (field(0), field(1), field(2), field(3));
        let width = u64::from(self.map.fb_width);
        let row_words = w.div_ceil(4);
        let mut out = Vec::with_capacity(words);
        for j in 0..h {
            let p0 = (y + j) * width + x;
            for k in 0..row_words {
                out.push(std::array::from_fn(|i| {
                    let p = p0 + 4 * k + i as u64;
                    self.image.word(self.map.read_pixel(p))
                }));
            }
        }
        Some(out)
    }
}

/// Runs the IPU's commands on memory `image`: the pixels of each command land before the
/// next; READ_PIXELS' and COPY_TEX_IMAGE's words, which nothing reads back, at the end.
/// Returns the passed words and the status events.
pub fn run_ipu(
    ipu: &Ipu,
    map: &GpuMap,
    mem: &Mem,
    cmds: &[u32],
    image: &mut Image,
) -> (Vec<u32>, Vec<u32>) {
    let inputs = MemInputs {
        map: *map,
        ipu,
        beat_bytes: mem.beat_bytes(),
        dma_beat: 0,
        image: std::mem::take(image),
    };
    let mut st = Stepper::new(ipu, inputs);
    let (mut i, mut seen) = (0, 0);
    while i < cmds.len() {
        let n = st.words(cmds[i]);
        let Some(c) = cmds.get(i..i + n) else { break };
        if !st.command(c) {
            break;
        }
        i += n;
        let px = st.out().written_since(ipu, seen);
        seen = st.out().pix.len();
        let img = &mut st.inputs_mut().image;
        for (x, y, rgba) in px {
            if let Some(a) = map.pixel(x, y) {
                img.write(a, &Bits::from_u64(32, u64::from(rgba)), 4);
            }
        }
    }
    let out = st.out().clone();
    *image = std::mem::take(&mut st.inputs_mut().image);
    let wb = ipu.dma_word_bits / 8;
    for (k, w) in out.dma_out_words(ipu).iter().enumerate() {
        let off = (k as u64 * u64::from(wb)) % map.read.bytes;
        image.write(map.read.base | off, w, wb);
    }
    for t in &out.tex {
        let a = t.field(ipu.dma_word_bits, 32);
        if a < map.tex_words {
            let mut w = Bits::zero(ipu.dma_word_bits);
            for k in 0..ipu.dma_word_bits / 32 {
                w.set_field(32 * k, 32, t.field(32 * k, 32));
            }
            image.write(map.tex_base + a * u64::from(wb), &w, wb);
        }
    }
    (out.pass, out.status)
}

/// A random mix of `count` IPU commands for the GPU: draws in and across the
/// framebuffer's edges (every enabled format, some disabled), scale, bias and zoom
/// changes, pushes and pops, reads, copies (source and destination apart, so a copy never
/// reads its own pixels) and texture copies into the first texture's partition, and
/// other units' words to pass on.
pub fn commands(
    ipu: &Ipu,
    map: &GpuMap,
    mem_cmds: &[[u32; 2]],
    count: usize,
    seed: u64,
) -> Vec<u32> {
    let mut mem_cmds = mem_cmds.iter();
    let mut rng = Rng::stream(seed, STREAM_GPU);
    let pick = |rng: &mut Rng, n: u64| rng.next_u64() % n.max(1);
    let (fw, fh) = (u64::from(map.fb_width), u64::from(map.fb_height));
    let wmax = (fw / 8).min(REGION_W);
    let mut cmds = Vec::new();
    let fmt = |rng: &mut Rng| {
        let enabled: Vec<u32> = (0..8u32)
            .filter(|&f| ipu.formats[f as usize] && f != FORMAT_CI8)
            .collect();
        if pick(rng, 12) == 0 || enabled.is_empty() {
            pick(rng, 8) as u32
        } else {
            enabled[pick(rng, enabled.len() as u64) as usize]
        }
    };
    for _ in 0..count {
        match pick(&mut rng, 20) {
            0..=6 => {
                let f = fmt(&mut rng);
                let (w, h) = (1 + pick(&mut rng, wmax), 1 + pick(&mut rng, REGION_H));
                let (x, y) = (pick(&mut rng, fw + 8), pick(&mut rng, fh + 4));
                cmds.extend(cmd_draw(f, w as u32, h as u32, x as u32, y as u32));
            }
            7 | 8 => {
                let bias = pick(&mut rng, 2) == 1;
                let v = q16(pick(&mut rng, 3000) as f64 / 1000.0 - 1.0);
                cmds.extend(cmd_transfer(bias, pick(&mut rng, 4) as u32, v));
            }
            9 => cmds.push(if pick(&mut rng, 2) == 0 {
                cmd_push()
            } else {
                cmd_pop()
            }),
            10 if ipu.zoom.is_some() => {
                let z = |rng: &mut Rng| q16(ZOOMS[pick(rng, ZOOMS.len() as u64) as usize]);
                let (zx, zy) = (z(&mut rng), z(&mut rng));
                cmds.extend(cmd_zoom(zx, zy));
            }
            11..=15 if ipu.framebuffer => {
                let (w, h) = (1 + pick(&mut rng, wmax), 1 + pick(&mut rng, REGION_H));
                let src = (pick(&mut rng, fw / 8), pick(&mut rng, fh));
                let (w, h, src) = (w as u32, h as u32, (src.0 as u32, src.1 as u32));
                match pick(&mut rng, 3) {
                    0 => cmds.extend(cmd_read(fmt(&mut rng), w, h, src.0, src.1)),
                    // Zoomed by at most 3, the destination stays right of x = fw / 4.
                    1 => {
                        let dest = (5 * fw / 8 + pick(&mut rng, fw / 8), pick(&mut rng, fh));
                        cmds.extend(cmd_copy(w, h, src, (dest.0 as u32, dest.1 as u32)));
                    }
                    _ => {
                        let base = pick(&mut rng, 4096) as u32;
                        cmds.extend(cmd_copytex(fmt(&mut rng), w, h, src, base));
                    }
                }
            }
            _ => match mem_cmds.next().filter(|_| pick(&mut rng, 2) == 0) {
                Some(words) => cmds.extend(words),
                None => {
                    let mut word = rng.next_u64() as u32;
                    while (OP_TRANSFER..=OP_INDEX).contains(&(word >> 24)) || word >> 24 == OP_MEM {
                        word = rng.next_u64() as u32;
                    }
                    cmds.push(word);
                }
            },
        }
    }
    cmds
}

/// The router behind the IPU: memory manager commands (`OP_MEM`) run on `mgr`, their
/// responses returned; TMU descriptor writes (`OP_TMU`) go to the TMU (its model runs
/// them ahead of the samples); every other passed word returned as passed on.
pub fn route(enc: &Encoding, mgr: &mut MemMgr, passed: &[u32]) -> (Vec<u32>, Vec<Bits>) {
    let hb = mem_header_bits(enc);
    let (mut pass, mut rsp) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < passed.len() {
        let w = passed[i];
        if w >> 24 == OP_TMU {
            i += 2;
            continue;
        }
        if w >> 24 != OP_MEM {
            pass.push(w);
            i += 1;
            continue;
        }
        // A command cut short waits for ever.
        let Some(&arg) = passed.get(i + 1) else { break };
        let req = (u64::from(arg) << hb) | u64::from(w & ((1u32 << hb) - 1));
        let cmd = decode_cmd(enc, &Bits::from_u64(enc.req_bits, req));
        rsp.push(encode_rsp(enc, &mgr.exec(&cmd)));
        i += 2;
    }
    (pass, rsp)
}

/// The TMU's random commands with every level's base moved into the texture partitions
/// after the first (COPY_TEX_IMAGE writes the first), so that no sample reads a word
/// another unit writes.
pub fn tmu_commands(tmu: &Tmu, mem: &Mem, count: usize, seed: u64) -> Vec<TmuCmd> {
    let map = mem.map.as_ref().expect("the gpu has a [mem.map]");
    let parts = u64::from(map.textures.max(2) - 1);
    random_commands(tmu, count, seed)
        .into_iter()
        .map(|c| match c {
            TmuCmd::Write { tex, reg, data } if reg >= REG_BASE0 => {
                let part = 1 + u64::from(tex) % parts;
                let base = (map.texture_base + part * map.bytes_per_texture) / 4;
                TmuCmd::Write {
                    tex,
                    reg,
                    data: (base + u64::from(data) % (1 << 16)) as u32,
                }
            }
            c => c,
        })
        .collect()
}

/// The traffic `--workload` picks: one source alone (the IPU's commands with the
/// router's, the TMU's samples, the host's bursts); without one, all three at once.
pub const WORKLOADS: &[&str] = &["ipu", "tmu", "host"];

/// The GPU's vectors: `count` IPU commands, `count` TMU samples and `count` bursts per
/// host requester, or one of them alone (`workload`, one of [`WORKLOADS`]).
pub fn vectors(cfg: &Config, count: usize, seed: u64, workload: Option<&str>) -> Option<VectorSet> {
    if workload.is_some_and(|w| !WORKLOADS.contains(&w)) {
        return None;
    }
    let (gpu, ipu, tmu, mem) = (
        cfg.gpu.as_ref()?,
        cfg.ipu.as_ref()?,
        cfg.tmu.as_ref()?,
        cfg.mem.as_ref()?,
    );
    let n = |w: &str| {
        if workload.is_none_or(|x| x == w) {
            count
        } else {
            0
        }
    };
    Some(encode(
        gpu,
        ipu,
        tmu,
        mem,
        [n("ipu"), n("tmu"), n("host")],
        seed,
    ))
}

/// The vectors of `counts`: IPU commands, TMU samples, bursts per host requester.
fn encode(gpu: &Gpu, ipu: &Ipu, tmu: &Tmu, mem: &Mem, counts: [usize; 3], seed: u64) -> VectorSet {
    let [count, samples, bursts] = counts;
    let mem_map = mem.map.as_ref().expect("the gpu has a [mem.map]");
    let map = GpuMap::new(gpu, ipu, mem_map);
    let enc = Encoding::new(mem_map);
    let mem_cmds: Vec<[u32; 2]> = mem_mgr::commands(mem_map, count, seed)
        .into_iter()
        .take(count)
        .map(|c| mem_command(&enc, encode_cmd(&enc, &c).field(0, enc.req_bits)))
        .collect();
    let tmu_cmds = if samples > 0 {
        tmu_commands(tmu, mem, samples, seed)
    } else {
        Vec::new()
    };
    // The descriptor writes before the first sample come through the command stream, then
    // a memory manager command whose answer lets the samples start (`starts_after`).
    let tl = TmuLayout::new(tmu);
    let lead = tmu_cmds
        .iter()
        .take_while(|c| matches!(c, TmuCmd::Write { .. }))
        .count();
    let mut cmds: Vec<u32> = tmu_cmds[..lead]
        .iter()
        .flat_map(|c| match *c {
            TmuCmd::Write { tex, reg, data } => tmu_command(&tl, tex, reg, data),
            TmuCmd::Sample { .. } => unreachable!("the lead is writes"),
        })
        .collect();
    if samples > 0 {
        let sync = mem_mgr::Cmd {
            op: crate::iface::mem_mgr::op::FREE_PAGES,
            ..mem_mgr::Cmd::default()
        };
        cmds.extend(mem_command(
            &enc,
            encode_cmd(&enc, &sync).field(0, enc.req_bits),
        ));
    }
    cmds.extend(commands(ipu, &map, &mem_cmds, count, seed));
    let mut image = Image::default();
    let (passed, status) = run_ipu(ipu, &map, mem, &cmds, &mut image);
    let (pass, mm_rsp) = route(&enc, &mut MemMgr::new(mem_map), &passed);
    let (mut tv, _) = vectors_for(tmu, &tmu_cmds, TexMemory::new(), seed);
    // The sample port carries what follows the lead.
    tv.ports[0].items.drain(..lead);

    // The host's requesters run alone in their windows (`mem_arb::window`, far above the
    // GPU's areas); the others idle in the arbiter's model.
    let host = host_requesters(gpu, mem);
    let mut streams = mem_arb::traffic(mem, bursts, seed, None).expect("the default mix");
    for (i, s) in streams.iter_mut().enumerate() {
        if !host.contains(&i) {
            *s = mem_arb::Stream::default();
        }
    }
    let (reads, host_image) = mem_arb::run(mem, &streams);
    let mut beats = image.beats(mem.data_bits);
    beats.extend(host_image);

    let word = |w: u32, width: u32| Bits::from_u64(width, u64::from(w));
    let defs = ports(
        gpu,
        mem,
        tv.ports[0].port.width,
        tv.ports[1].port.width,
        enc.rsp_bits,
    );
    let mut items: BTreeMap<String, Vec<Bits>> = BTreeMap::new();
    items.insert("cmd".into(), cmds.iter().map(|&c| word(c, 32)).collect());
    items.insert("sample".into(), tv.ports[0].items.clone());
    items.insert("pass".into(), pass.iter().map(|&c| word(c, 32)).collect());
    items.insert(
        "status".into(),
        status
            .iter()
            .map(|&s| word(s, crate::iface::ipu::STATUS_WIDTH))
            .collect(),
    );
    items.insert("color".into(), tv.ports[1].items.clone());
    items.insert("mm_rsp".into(), mm_rsp);
    for &i in &host {
        let r = &mem.requesters[i];
        let s = &streams[i];
        let width = req_width(mem, i);
        items.insert(
            format!("{}_req", r.name),
            s.bursts
                .iter()
                .map(|b| mem_arb::encode_request(mem, i, b, width))
                .collect(),
        );
        items.insert(format!("{}_wdata", r.name), s.wdata.clone());
        items.insert(format!("{}_rdata", r.name), reads[i].clone());
    }
    let mut out: Vec<PortVectors> = defs
        .into_iter()
        .map(|port| PortVectors {
            items: items.remove(&port.name).unwrap_or_default(),
            port,
        })
        .collect();
    out.push(mem_arb::image_port(mem, &beats));
    VectorSet {
        unit: "gpu".into(),
        seed,
        ports: out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quiet_period_covers_the_largest_zoom() {
        // The copies' placement and quiet_clocks() assume it.
        assert!(ZOOMS.iter().all(|z| z.abs() <= ZOOM_MAX as f64));
    }

    #[test]
    fn a_draw_lands_in_the_framebuffer_and_a_read_returns_it() {
        let cfg = crate::config::load(None).expect("default");
        let (gpu, ipu, mem) = (
            cfg.gpu.as_ref().expect("gpu"),
            cfg.ipu.as_ref().expect("ipu"),
            cfg.mem.as_ref().expect("mem"),
        );
        let map = GpuMap::new(gpu, ipu, mem.map.as_ref().expect("map"));
        // An rgba8888 draw of 3 x 2 at (10, 20), then READ_PIXELS of it.
        let mut cmds = cmd_draw(0, 3, 2, 10, 20).to_vec();
        cmds.extend(cmd_read(0, 3, 2, 10, 20));
        let mut image = Image::default();
        let (pass, status) = run_ipu(ipu, &map, mem, &cmds, &mut image);
        assert!(pass.is_empty() && status.is_empty());
        // Identity transfer: the pixels are the ring's words, row after row.
        for j in 0..2u32 {
            for i in 0..3u32 {
                let src = image.word(map.dma.base + 4 * u64::from(3 * j + i));
                let at = map.pixel(10 + i, 20 + j).expect("inside");
                assert_eq!(image.word(at), src, "pixel ({i}, {j})");
                // READ_PIXELS packed them in the same order into the read ring.
                assert_eq!(image.word(map.read.base + 4 * u64::from(3 * j + i)), src);
            }
        }
        // Outside the framebuffer nothing is written.
        let mut other = Image::default();
        run_ipu(ipu, &map, mem, &cmd_draw(0, 2, 1, 600, 0), &mut other);
        assert!(other.beats(mem.data_bits).is_empty());
    }
}
