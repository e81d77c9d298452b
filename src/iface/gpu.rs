//! The contract of the GPU top (`gpu`): where its units' traffic lives in the shared
//! memory (the memory manager's areas), the engines that turn the IPU's and the TMU's
//! streams into the arbiter's bursts, and the top's ports. The RTL (`rtl::gpu`) and the
//! model (`model::gpu`) both read it.

use serde::Serialize;

use super::mem_arb::unit_ports;
use super::{Dir, StreamPort};
use crate::config::{Gpu, Ipu, Mem, MemMap, Serves, Tmu};

/// The router's opcode (word 0's `[31:24]`) for a memory manager command: word 0 holds
/// the request's fields below its argument (`mem_mgr`'s `{level, id, kind, op}`), word 1
/// the argument. Every other word the IPU passes on leaves the GPU on `pass`.
pub const OP_MEM: u32 = 0x60;

/// The router's opcode for a TMU descriptor write: word 0 `{0x61, 0, tex, reg}` (the
/// register in the low `reg` bits of the TMU's write command, the texture above it),
/// word 1 the data. The write reaches the TMU's request port ahead of `sample`'s requests.
pub const OP_TMU: u32 = 0x61;

/// The two command words of a descriptor write of register `reg` of texture `tex`.
pub fn tmu_command(l: &crate::iface::tmu::TmuLayout, tex: u32, reg: u32, data: u32) -> [u32; 2] {
    [(OP_TMU << 24) | (tex << l.reg_w) | reg, data]
}

/// Bits of a memory manager request below its 32-bit argument: what word 0 carries.
pub fn mem_header_bits(enc: &crate::iface::mem_mgr::Encoding) -> u32 {
    enc.req_bits - 32
}

/// The two command words of a memory manager request (`req`, as the manager's request
/// port takes it).
pub fn mem_command(enc: &crate::iface::mem_mgr::Encoding, req: u64) -> [u32; 2] {
    let hb = mem_header_bits(enc);
    [
        (OP_MEM << 24) | (req & ((1u64 << hb) - 1)) as u32,
        (req >> hb) as u32,
    ]
}

/// A ring of `bytes` (a power of two) at `base`, aligned to its size so that an address is
/// `base | offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Ring {
    pub base: u64,
    pub bytes: u64,
}

impl Ring {
    /// The largest ring in `bytes` from `base` whose size aligns `base`.
    fn within(base: u64, bytes: u64) -> Self {
        let mut size = 1u64 << (63 - bytes.max(1).leading_zeros());
        if base != 0 {
            size = size.min(base & base.wrapping_neg());
        }
        Ring { base, bytes: size }
    }

    /// Address bits of an offset in the ring.
    pub fn bits(&self) -> u32 {
        self.bytes.trailing_zeros()
    }
}

/// Where the GPU's traffic lives. The image area's four slots (source, destination, mask,
/// 2D graphics) hold the DMA words drawn from, the framebuffer, nothing yet, and
/// READ_PIXELS' words; COPY_TEX_IMAGE writes the texture area.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct GpuMap {
    /// DRAW_PIXELS' and BITMAP's words, read in order; each request starts a beat.
    pub dma: Ring,
    /// READ_PIXELS' words, written in order, a word after the last.
    pub read: Ring,
    /// The framebuffer's first byte: pixel (x, y) at `fb_base + 4 * (y * width + x)`.
    pub fb_base: u64,
    pub fb_width: u32,
    pub fb_height: u32,
    /// COPY_TEX_IMAGE's word addresses count from here, in words of `dma_word_bits`;
    /// words at or past `tex_words` are dropped.
    pub tex_base: u64,
    pub tex_words: u64,
}

impl GpuMap {
    pub fn new(gpu: &Gpu, ipu: &Ipu, map: &MemMap) -> Self {
        let slot = map.image_bytes / 4;
        GpuMap {
            dma: Ring::within(map.image_base, slot),
            read: Ring::within(map.image_base + 3 * slot, slot),
            fb_base: map.image_base + slot,
            fb_width: gpu.fb_width,
            fb_height: gpu.fb_height,
            tex_base: map.texture_base,
            tex_words: map.texture_bytes / u64::from(ipu.dma_word_bits / 8),
        }
    }

    /// The framebuffer's bytes (a power of two).
    pub fn fb_bytes(&self) -> u64 {
        4 * u64::from(self.fb_width) * u64::from(self.fb_height)
    }

    /// The byte address of pixel (x, y), `None` outside the framebuffer (the pixel is
    /// dropped, as GL's pixel ownership test drops it).
    pub fn pixel(&self, x: u32, y: u32) -> Option<u64> {
        (x < self.fb_width && y < self.fb_height)
            .then(|| self.fb_base + 4 * (u64::from(y) * u64::from(self.fb_width) + u64::from(x)))
    }

    /// The byte address of a region read's pixel `p` (row-major index from the
    /// framebuffer's first pixel): reads wrap at the framebuffer's end.
    pub fn read_pixel(&self, p: u64) -> u64 {
        self.fb_base + 4 * (p % (u64::from(self.fb_width) * u64::from(self.fb_height)))
    }
}

/// Beats a read engine's buffer holds: its reads are issued only against room there, so
/// read data never waits in the arbiter and holds up another reader's beats. Enough to
/// cover the memory's latency, the arbiter's clocks and two bursts, so that one engine
/// alone streams.
pub fn read_buffer_beats(mem: &Mem, burst: u32) -> u32 {
    (mem.latency + 2 + 2 * burst).next_power_of_two().max(4)
}

/// The requester `s` is bound to, and its max burst.
pub fn binding(gpu: &Gpu, mem: &Mem, s: Serves) -> Option<(usize, u32)> {
    gpu.requester(s).map(|i| (i, mem.requesters[i].max_burst))
}

/// The top's stream ports: commands in, the TMU's samples in, passed commands, status,
/// colours and the memory manager's responses out, the host's requesters (every requester
/// that serves no traffic) in and out.
pub fn ports(gpu: &Gpu, mem: &Mem, tmu_req: u32, tmu_rsp: u32, mm_rsp: u32) -> Vec<StreamPort> {
    let port = |name: &str, dir, width| StreamPort {
        name: name.into(),
        dir,
        width,
    };
    let mut p = vec![
        port("cmd", Dir::In, 32),
        port("sample", Dir::In, tmu_req),
        port("pass", Dir::Out, 32),
        port("status", Dir::Out, super::ipu::STATUS_WIDTH),
        port("color", Dir::Out, tmu_rsp),
        port("mm_rsp", Dir::Out, mm_rsp),
    ];
    let host: Vec<String> = host_requesters(gpu, mem)
        .into_iter()
        .flat_map(|i| {
            let r = &mem.requesters[i].name;
            ["req", "wdata", "rdata"].map(|k| format!("{r}_{k}"))
        })
        .collect();
    p.extend(
        unit_ports(mem)
            .into_iter()
            .filter(|s| host.contains(&s.name)),
    );
    p
}

/// The requesters the host drives (serving no traffic), by index.
pub fn host_requesters(gpu: &Gpu, mem: &Mem) -> Vec<usize> {
    (0..mem.requesters.len())
        .filter(|i| !gpu.requester.contains(&Some(*i)))
        .collect()
}

/// Whether the config has the gpu top.
pub fn has_gpu(ipu: Option<&Ipu>, tmu: Option<&Tmu>, gpu: Option<&Gpu>) -> bool {
    ipu.is_some() && tmu.is_some() && gpu.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rings_align_their_base() {
        let r = Ring::within(0x1_0000, 0x10_0000);
        assert_eq!(
            r,
            Ring {
                base: 0x1_0000,
                bytes: 0x1_0000
            }
        );
        let r = Ring::within(0x40_0000, 0x30_0000);
        assert_eq!(r.bytes, 0x20_0000);
        assert_eq!(r.bits(), 21);
    }

    #[test]
    fn the_default_map() {
        let cfg = crate::config::load(None).expect("default");
        let (gpu, ipu, mem) = (
            cfg.gpu.as_ref().expect("gpu"),
            cfg.ipu.as_ref().expect("ipu"),
            cfg.mem.as_ref().expect("mem"),
        );
        let m = GpuMap::new(gpu, ipu, mem.map.as_ref().expect("map"));
        assert_eq!(m.fb_base, 0x11_0000);
        assert_eq!(m.pixel(1, 2), Some(0x11_0000 + 4 * (2 * 512 + 1)));
        assert_eq!(m.pixel(512, 0), None);
        assert_eq!(m.read.base, 0x31_0000);
        assert_eq!(read_buffer_beats(mem, 8), 128);
    }
}
