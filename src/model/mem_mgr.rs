//! Model of the memory manager `mem_mgr` (seed 002): the same state as the RTL (texture
//! table, shader ping-pong bits, the next-page table with the free list threaded through
//! it, the index blocks) and the same answer to every command, error codes included. The
//! command encoding is the contract in `iface::mem_mgr`. The responses are compared in
//! order; [`clocks`] predicts the RTL's clock count from the same `Schedule` the RTL is
//! rendered with.

use crate::config::MemMap;
use crate::iface::StreamPort;
use crate::iface::mem_mgr::{Code, Encoding, IMAGE_SLOTS, Schedule, op};
use crate::rng::Rng;
use crate::vectors::{Bits, PortVectors, VectorSet};

/// Commands are drawn from random stream `STREAM_CMDS` of the seed.
pub const STREAM_CMDS: u64 = 3000;

/// One command as the request word carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cmd {
    pub op: u32,
    /// 0 buffer objects, 1 display lists.
    pub kind: u32,
    pub id: u32,
    pub level: u32,
    pub arg: u32,
}

/// One response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rsp {
    pub code: Code,
    pub data: u32,
}

impl Rsp {
    fn ok(data: u64) -> Self {
        Self {
            code: Code::Ok,
            data: data as u32,
        }
    }
    fn err(code: Code) -> Self {
        Self { code, data: 0 }
    }
}

/// A live buffer object or display list: its index block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Obj {
    pub start: u32,
    pub end: u32,
    pub size: u32,
    pub param: u32,
}

/// The manager's state.
#[derive(Debug, Clone)]
pub struct MemMgr {
    pub map: MemMap,
    pub enc: Encoding,
    /// The next-page table: the free list and every object's chain.
    pub next: Vec<u32>,
    pub head: u32,
    pub tail: u32,
    pub free: u32,
    /// Index blocks: buffer objects, then display lists.
    pub objs: Vec<Option<Obj>>,
    /// Level base addresses, by texture * mip_levels + level.
    pub tex: Vec<Option<u32>>,
    /// Per program (vertex, pixel): the slot the next SHADER_LOAD returns.
    pub shader_next: [u32; 2],
}

impl MemMgr {
    /// The state after reset and the next-page table's initialisation.
    pub fn new(map: &MemMap) -> Self {
        let pages = map.pages as u32;
        Self {
            enc: Encoding::new(map),
            next: (0..pages).map(|p| (p + 1) % pages).collect(),
            head: 0,
            tail: pages - 1,
            free: pages,
            objs: vec![None; (map.buffer_objects + map.display_lists) as usize],
            tex: vec![None; (map.textures * map.mip_levels) as usize],
            shader_next: [0; 2],
            map: map.clone(),
        }
    }

    /// Pages an object of `bytes` bytes takes.
    pub fn pages_for(&self, bytes: u32) -> u64 {
        u64::from(bytes).div_ceil(self.map.page_bytes)
    }

    fn page_addr(&self, page: u32, offset: u64) -> u64 {
        self.map.user_base + u64::from(page) * self.map.page_bytes + offset
    }

    /// The index block of (kind, id), if the id is in range.
    fn obj_index(&self, kind: u32, id: u32) -> Option<usize> {
        let (limit, base) = if kind == 0 {
            (self.map.buffer_objects, 0)
        } else {
            (self.map.display_lists, self.map.buffer_objects)
        };
        (id < limit).then_some((base + id) as usize)
    }

    /// Executes one command.
    pub fn exec(&mut self, c: &Cmd) -> Rsp {
        match c.op {
            op::TEX_SET | op::TEX_GET => self.texture(c),
            op::IMG_ADDR => self.image(c),
            op::SHADER_LOAD | op::SHADER_ACTIVE => self.shader(c),
            op::FREE_PAGES => Rsp::ok(self.free.into()),
            op::ALLOC => self.alloc(c),
            op::FREE | op::TRANSLATE | op::SET_PARAM | op::GET_PARAM | op::OBJ_SIZE => {
                self.object(c)
            }
            _ => Rsp::err(Code::BadOpcode),
        }
    }

    /// TEX_SET and TEX_GET: the texture table.
    fn texture(&mut self, c: &Cmd) -> Rsp {
        let m = &self.map;
        if c.id >= m.textures || c.level >= m.mip_levels {
            return Rsp::err(Code::BadId);
        }
        let i = (c.id * m.mip_levels + c.level) as usize;
        if c.op == op::TEX_GET {
            return self.tex[i].map_or(Rsp::err(Code::NotAllocated), |a| Rsp::ok(a.into()));
        }
        let base = m.texture_base + u64::from(c.id) * m.bytes_per_texture;
        let a = u64::from(c.arg);
        if a < base || a >= base + m.bytes_per_texture {
            return Rsp::err(Code::Range);
        }
        self.tex[i] = Some(c.arg);
        Rsp::ok(a)
    }

    /// IMG_ADDR: a fixed slot's base plus the offset.
    fn image(&self, c: &Cmd) -> Rsp {
        if u64::from(c.id) >= IMAGE_SLOTS {
            return Rsp::err(Code::BadId);
        }
        if u64::from(c.arg) >= self.enc.image_slot_bytes {
            return Rsp::err(Code::Range);
        }
        Rsp::ok(
            self.map.image_base + u64::from(c.id) * self.enc.image_slot_bytes + u64::from(c.arg),
        )
    }

    /// SHADER_LOAD and SHADER_ACTIVE: a program's two slots, ping-pong.
    fn shader(&mut self, c: &Cmd) -> Rsp {
        if c.id >= 2 {
            return Rsp::err(Code::BadId);
        }
        let p = c.id as usize;
        let slot = if c.op == op::SHADER_LOAD {
            let s = self.shader_next[p];
            self.shader_next[p] ^= 1;
            s
        } else {
            self.shader_next[p] ^ 1
        };
        Rsp::ok(self.map.shader_base + u64::from(2 * c.id + slot) * self.enc.shader_slot_bytes)
    }

    /// ALLOC: pages from the head of the free list.
    fn alloc(&mut self, c: &Cmd) -> Rsp {
        let Some(i) = self.obj_index(c.kind, c.id) else {
            return Rsp::err(Code::BadId);
        };
        if self.objs[i].is_some() {
            return Rsp::err(Code::AlreadyAllocated);
        }
        if c.arg == 0 {
            return Rsp::err(Code::Range);
        }
        let n = self.pages_for(c.arg);
        if n > u64::from(self.free) {
            return Rsp::err(Code::NoMemory);
        }
        // Walk n next pointers from the head: the last page taken ends the chain,
        // the page after it is the new head (any page once the list is empty).
        let start = self.head;
        let mut prev = start;
        let mut cur = start;
        for _ in 0..n {
            prev = cur;
            cur = self.next[cur as usize];
        }
        self.head = cur;
        self.free -= n as u32;
        self.objs[i] = Some(Obj {
            start,
            end: prev,
            size: c.arg,
            param: 0,
        });
        Rsp::ok(self.page_addr(start, 0))
    }

    /// FREE, TRANSLATE and the parameter ops: a live object's index block.
    fn object(&mut self, c: &Cmd) -> Rsp {
        let Some(i) = self.obj_index(c.kind, c.id) else {
            return Rsp::err(Code::BadId);
        };
        let Some(o) = self.objs[i] else {
            return Rsp::err(if c.op == op::FREE {
                Code::DoubleFree
            } else {
                Code::NotAllocated
            });
        };
        match c.op {
            op::FREE => {
                // Append the chain to the tail of the free list.
                if self.free == 0 {
                    self.head = o.start;
                } else {
                    self.next[self.tail as usize] = o.start;
                }
                self.tail = o.end;
                let n = self.pages_for(o.size);
                self.free += n as u32;
                self.objs[i] = None;
                Rsp::ok(n)
            }
            op::TRANSLATE => {
                if c.arg >= o.size {
                    return Rsp::err(Code::Range);
                }
                let off = u64::from(c.arg);
                let mut page = o.start;
                for _ in 0..off >> self.enc.page_log {
                    page = self.next[page as usize];
                }
                Rsp::ok(self.page_addr(page, off & (self.map.page_bytes - 1)))
            }
            op::SET_PARAM => {
                self.objs[i] = Some(Obj { param: c.arg, ..o });
                Rsp::ok(c.arg.into())
            }
            op::GET_PARAM => Rsp::ok(o.param.into()),
            _ => Rsp::ok(o.size.into()),
        }
    }

    /// The page chain of a live object, first page first.
    pub fn chain(&self, o: &Obj) -> Vec<u32> {
        let mut pages = vec![o.start];
        for _ in 1..self.pages_for(o.size) {
            let last = pages[pages.len() - 1];
            pages.push(self.next[last as usize]);
        }
        pages
    }

    /// The free list, head first.
    pub fn free_list(&self) -> Vec<u32> {
        let mut pages = Vec::with_capacity(self.free as usize);
        let mut p = self.head;
        for _ in 0..self.free {
            pages.push(p);
            p = self.next[p as usize];
        }
        pages
    }
}

/// The request word of a command, laid out by the contract's `req_fields`.
pub fn encode_cmd(enc: &Encoding, c: &Cmd) -> Bits {
    let mut w = Bits::zero(enc.req_bits);
    for f in enc.req_fields() {
        let v = match f.name {
            "Op" => c.op,
            "Kind" => c.kind,
            "Id" => c.id,
            "Level" => c.level,
            _ => c.arg,
        };
        w.set_field(f.lsb, f.width, v.into());
    }
    w
}

/// The command a request word carries: the inverse of [`encode_cmd`].
pub fn decode_cmd(enc: &Encoding, w: &Bits) -> Cmd {
    let mut c = Cmd::default();
    for f in enc.req_fields() {
        let v = w.field(f.lsb, f.width) as u32;
        match f.name {
            "Op" => c.op = v,
            "Kind" => c.kind = v,
            "Id" => c.id = v,
            "Level" => c.level = v,
            _ => c.arg = v,
        }
    }
    c
}

/// The response word, laid out by the contract's `rsp_fields`.
pub fn encode_rsp(enc: &Encoding, r: &Rsp) -> Bits {
    let mut w = Bits::zero(enc.rsp_bits);
    for f in enc.rsp_fields() {
        let v = if f.name == "Code" {
            r.code as u32
        } else {
            r.data
        };
        w.set_field(f.lsb, f.width, v.into());
    }
    w
}

/// Commands that hit every error code and every op once, on a fresh manager.
pub fn directed(map: &MemMap, enc: &Encoding) -> Vec<Cmd> {
    let pages = map.pages as u32;
    let pb = map.page_bytes as u32;
    let ids = (1u32 << enc.id_bits) - 1;
    let levels = (1u32 << enc.level_bits) - 1;
    let tex0 = map.texture_base as u32;
    let c = |op, kind, id, level, arg| Cmd {
        op,
        kind,
        id,
        level,
        arg,
    };
    let mut v = vec![
        c(0x0, 0, 0, 0, 0),
        c(0xD, 0, 0, 0, 0),
        c(0xF, 1, 3, 1, 7),
        c(op::FREE_PAGES, 0, 0, 0, 0),
        // Textures: unset, set, get, out of partition, bad texture and level.
        c(op::TEX_GET, 0, 0, 0, 0),
        c(op::TEX_SET, 0, 0, 1, tex0 + 64),
        c(op::TEX_GET, 0, 0, 1, 0),
        c(op::TEX_SET, 0, 0, 2, tex0 + map.bytes_per_texture as u32),
        c(op::TEX_SET, 0, map.textures - 1, 0, tex0.wrapping_sub(1)),
        c(op::TEX_SET, 0, map.textures.min(ids), 0, tex0),
        c(op::TEX_GET, 0, 0, map.mip_levels.min(levels), 0),
        // Images and shaders.
        c(op::IMG_ADDR, 0, 3, 0, 12),
        c(op::IMG_ADDR, 0, 1, 0, enc.image_slot_bytes as u32),
        c(op::IMG_ADDR, 0, 4, 0, 0),
        c(op::SHADER_ACTIVE, 0, 0, 0, 0),
        c(op::SHADER_LOAD, 0, 0, 0, 0),
        c(op::SHADER_LOAD, 0, 0, 0, 0),
        c(op::SHADER_LOAD, 0, 1, 0, 0),
        c(op::SHADER_ACTIVE, 0, 1, 0, 0),
        c(op::SHADER_LOAD, 0, 2, 0, 0),
        // Paged area: bad ids of both kinds, unallocated, allocate, twice, zero bytes.
        c(op::ALLOC, 0, map.buffer_objects.min(ids), 0, 1),
        c(op::ALLOC, 1, map.display_lists.min(ids), 0, 1),
        c(op::TRANSLATE, 0, 0, 0, 0),
        c(op::GET_PARAM, 1, 0, 0, 0),
        c(op::FREE, 0, 0, 0, 0),
        c(op::ALLOC, 0, 0, 0, 0),
        c(op::ALLOC, 0, 0, 0, 3 * pb + 1),
        c(op::ALLOC, 0, 0, 0, 5),
        c(op::OBJ_SIZE, 0, 0, 0, 0),
        c(op::TRANSLATE, 0, 0, 0, 3 * pb + 7),
        c(op::TRANSLATE, 0, 0, 0, 3 * pb + 1),
        c(op::SET_PARAM, 0, 0, 0, 0xdead_beef),
        c(op::GET_PARAM, 0, 0, 0, 0),
        // Out of memory, then free, then double free.
        c(op::ALLOC, 1, 0, 0, u32::MAX),
        c(op::ALLOC, 1, 1, 0, pages.saturating_mul(pb)),
        c(op::FREE, 0, 0, 0, 0),
        c(op::FREE, 0, 0, 0, 0),
        c(op::FREE_PAGES, 0, 0, 0, 0),
    ];
    // Fill the whole area and overflow it by one page, then give it back.
    if pages <= 64 {
        v.push(c(op::ALLOC, 1, 2, 0, pages * pb));
        v.push(c(op::ALLOC, 1, 3, 0, 1));
        v.push(c(op::FREE_PAGES, 0, 0, 0, 0));
        v.push(c(op::FREE, 1, 2, 0, 0));
    }
    v
}

/// A random id of a kind: mostly live ones and small ones, now and then out of range.
fn pick_id(rng: &mut Rng, m: &MgrView, kind: u32) -> u32 {
    let limit = if kind == 0 { m.bo } else { m.dl };
    let r = rng.next_u64() % 100;
    if r < 3 {
        // Out of range (when the field has room for it).
        limit + (rng.next_u64() % 4) as u32
    } else if r < 60 {
        (rng.next_u64() % u64::from(limit.min(12))) as u32
    } else {
        (rng.next_u64() % u64::from(limit)) as u32
    }
}

struct MgrView {
    bo: u32,
    dl: u32,
}

/// A random ALLOC size: now and then zero or huge, else up to `max_pages` pages.
fn random_size(rng: &mut Rng, max_pages: u64, pb: u64) -> u32 {
    match rng.next_u64() % 20 {
        0 => 0,
        1 => rng.next_u64() as u32,
        2 | 3 => ((1 + rng.next_u64() % max_pages) * pb) as u32,
        _ => (1 + rng.next_u64() % (max_pages * pb)) as u32,
    }
}

/// What the phases of `commands` draw before choosing the op.
struct Shape {
    kind: u32,
    id: u32,
    /// A percentage drawn for the op's choices.
    r: u64,
    max_pages: u64,
}

/// One command of the random mix: any op, bad opcodes included.
fn mix_cmd(rng: &mut Rng, map: &MemMap, enc: &Encoding, sh: Shape) -> Cmd {
    let Shape {
        kind,
        id,
        r,
        max_pages,
    } = sh;
    let pb = map.page_bytes;
    let id_max = (1u32 << enc.id_bits) - 1;
    let size = |rng: &mut Rng| random_size(rng, max_pages, pb);
    let ops = [
        op::ALLOC,
        op::ALLOC,
        op::FREE,
        op::FREE,
        op::TRANSLATE,
        op::TRANSLATE,
        op::TRANSLATE,
        op::SET_PARAM,
        op::GET_PARAM,
        op::OBJ_SIZE,
        op::FREE_PAGES,
        op::TEX_SET,
        op::TEX_GET,
        op::IMG_ADDR,
        op::SHADER_LOAD,
        op::SHADER_ACTIVE,
        0,
        0xE,
    ];
    let o = ops[(rng.next_u64() % ops.len() as u64) as usize];
    match o {
        op::TEX_SET | op::TEX_GET | op::IMG_ADDR | op::SHADER_LOAD | op::SHADER_ACTIVE => {
            let t = (rng.next_u64() % u64::from(map.textures + 1)) as u32;
            let level = (rng.next_u64() % u64::from(map.mip_levels + 1)) as u32;
            let level = level.min((1 << enc.level_bits) - 1);
            // Half inside the texture's partition, half within 4 bytes of one of its
            // ends (either side), where the range check decides.
            let base = map.texture_base + u64::from(t) * map.bytes_per_texture;
            let near = rng.next_u64() % 4;
            let tex_addr = match rng.next_u64() % 8 {
                0 => base.saturating_sub(1 + near),
                1 => base + near,
                2 => (base + map.bytes_per_texture).saturating_sub(1 + near),
                3 => base + map.bytes_per_texture + near,
                _ => base + rng.next_u64() % map.bytes_per_texture,
            };
            let arg = match o {
                op::TEX_SET if r < 10 => rng.next_u64() as u32,
                op::TEX_SET => tex_addr as u32,
                op::IMG_ADDR => {
                    (rng.next_u64() % (enc.image_slot_bytes + enc.image_slot_bytes / 8)) as u32
                }
                _ => rng.next_u64() as u32,
            };
            let id = match o {
                op::IMG_ADDR => (rng.next_u64() % 5) as u32,
                op::SHADER_LOAD | op::SHADER_ACTIVE => (rng.next_u64() % 3) as u32,
                _ => t,
            };
            Cmd {
                op: o,
                kind,
                id: id.min(id_max),
                level,
                arg,
            }
        }
        op::ALLOC => Cmd {
            op: o,
            kind,
            id,
            level: 0,
            arg: size(rng),
        },
        _ => Cmd {
            op: o,
            kind,
            id,
            level: 0,
            arg: if rng.chance(0.8) {
                (rng.next_u64() % (max_pages * pb)) as u32
            } else {
                rng.next_u64() as u32
            },
        },
    }
}

/// `count` commands: the directed ones, then phases of allocation that fill the area,
/// frees of every other object (fragmenting the free list), and random mixes.
pub fn commands(map: &MemMap, count: usize, seed: u64) -> Vec<Cmd> {
    let enc = Encoding::new(map);
    let mut rng = Rng::stream(seed, STREAM_CMDS);
    let mut cmds = directed(map, &enc);
    let view = MgrView {
        bo: map.buffer_objects,
        dl: map.display_lists,
    };
    let id_max = (1u32 << enc.id_bits) - 1;
    let pb = map.page_bytes;
    // Object sizes scale with the area so that a small map runs out of memory often and a
    // big one fragments: up to a 16th of the area per object, at most 16 pages.
    let max_pages = (map.pages / 16).clamp(1, 16);
    let size = |rng: &mut Rng| random_size(rng, max_pages, pb);
    let mut n = 0usize;
    while cmds.len() < count {
        let phase = (n / 48) % 3;
        n += 1;
        let kind = (rng.next_u64() % 2) as u32;
        let id = pick_id(&mut rng, &view, kind).min(id_max);
        let r = rng.next_u64() % 100;
        let cmd = match phase {
            // Fill: allocations, with a translate now and then.
            0 => {
                if r < 75 {
                    Cmd {
                        op: op::ALLOC,
                        kind,
                        id,
                        level: 0,
                        arg: size(&mut rng),
                    }
                } else {
                    Cmd {
                        op: op::TRANSLATE,
                        kind,
                        id,
                        level: 0,
                        arg: (rng.next_u64() % (max_pages * pb)) as u32,
                    }
                }
            }
            // Fragment: free every other id, translate the rest.
            1 => {
                if r < 50 {
                    Cmd {
                        op: op::FREE,
                        kind,
                        id: id & !1,
                        level: 0,
                        arg: 0,
                    }
                } else {
                    Cmd {
                        op: op::TRANSLATE,
                        kind,
                        id: id | 1,
                        level: 0,
                        arg: (rng.next_u64() % (max_pages * pb)) as u32,
                    }
                }
            }
            // Random mix of every op.
            _ => mix_cmd(
                &mut rng,
                map,
                &enc,
                Shape {
                    kind,
                    id,
                    r,
                    max_pages,
                },
            ),
        };
        cmds.push(cmd);
    }
    cmds.truncate(count.max(1));
    cmds
}

/// The responses to a command sequence from a fresh manager.
pub fn run(map: &MemMap, cmds: &[Cmd]) -> Vec<Rsp> {
    let mut m = MemMgr::new(map);
    cmds.iter().map(|c| m.exec(c)).collect()
}

/// The vectors of a command sequence: `req` in, `rsp` expected.
pub fn encode(map: &MemMap, cmds: &[Cmd], seed: u64) -> VectorSet {
    let enc = Encoding::new(map);
    let rsps = run(map, cmds);
    let ports = StreamPort::req_rsp(enc.req_bits, enc.rsp_bits);
    let items = [
        cmds.iter().map(|c| encode_cmd(&enc, c)).collect(),
        rsps.iter().map(|r| encode_rsp(&enc, r)).collect(),
    ];
    VectorSet {
        unit: "mem_mgr".into(),
        seed,
        ports: ports
            .into_iter()
            .zip(items)
            .map(|(port, items)| PortVectors { port, items })
            .collect(),
    }
}

/// The vectors of `count` commands.
pub fn vectors(map: &MemMap, count: usize, seed: u64) -> VectorSet {
    encode(map, &commands(map, count, seed), seed)
}

/// Clocks the RTL takes for commands with no gaps and no stalls, on the schedule the RTL
/// was rendered for: the schedule's clocks per command (the next command is taken as the
/// response leaves), plus its clocks per page hop of an ALLOC or TRANSLATE walk and the
/// answer's clock after a TRANSLATE's walk; the last response adds one clock more,
/// which the harness counts.
pub fn clocks(map: &MemMap, sched: &Schedule, cmds: &[Cmd]) -> u64 {
    let mut m = MemMgr::new(map);
    let last = u64::from(!cmds.is_empty());
    last + cmds
        .iter()
        .map(|c| {
            let r = m.exec(c);
            let (hops, answer) = match (c.op, r.code) {
                (op::ALLOC, Code::Ok) => (m.pages_for(c.arg), 0),
                (op::TRANSLATE, Code::Ok) => {
                    let hops = u64::from(c.arg) >> m.enc.page_log;
                    (hops, if hops > 0 { sched.answer_clocks() } else { 0 })
                }
                _ => (0, 0),
            };
            sched.command_clocks() + hops * sched.hop_clocks() + answer
        })
        .sum::<u64>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config;

    fn small_map(pages: u64) -> MemMap {
        let toml = format!(
            "[design]\nname = \"t\"\n[mem]\ndata_bits = 64\nmax_burst = 4\npolicy = \"fixed\"\n\
             [[mem.requesters]]\nname = \"a\"\naccess = \"both\"\nmax_burst = 4\n\
             [mem.map]\nshader_bytes = 4096\nimage_bytes = 4096\ntexture_bytes = 6144\n\
             user_bytes = {}\npage_bytes = 256\nbuffer_objects = 2\ndisplay_lists = 5\n\
             textures = 3\nmip_levels = 3\n",
            pages * 256
        );
        config::parse(&toml, "test")
            .expect("valid")
            .mem
            .and_then(|m| m.map)
            .expect("map")
    }

    fn cmd(op: u32, kind: u32, id: u32, arg: u32) -> Cmd {
        Cmd {
            op,
            kind,
            id,
            level: 0,
            arg,
        }
    }

    #[test]
    fn alloc_takes_from_the_head_and_free_appends_to_the_tail() {
        let map = small_map(8);
        let mut m = MemMgr::new(&map);
        let ub = map.user_base as u32;
        assert_eq!(m.exec(&cmd(op::ALLOC, 0, 0, 600)), Rsp::ok(ub.into()));
        assert_eq!(m.exec(&cmd(op::ALLOC, 1, 0, 256)).data, ub + 3 * 256);
        assert_eq!(m.free_list(), vec![4, 5, 6, 7]);
        assert_eq!(m.exec(&cmd(op::FREE, 0, 0, 0)), Rsp::ok(3));
        assert_eq!(m.free_list(), vec![4, 5, 6, 7, 0, 1, 2]);
        // Six pages: 4..7 then 0, 1: a fragmented chain, translated page by page.
        assert_eq!(m.exec(&cmd(op::ALLOC, 1, 4, 6 * 256)).data, ub + 4 * 256);
        let o = m.objs[2 + 4].expect("live");
        assert_eq!(m.chain(&o), vec![4, 5, 6, 7, 0, 1]);
        assert_eq!(
            m.exec(&cmd(op::TRANSLATE, 1, 4, 4 * 256 + 9)).data,
            ub + 9,
            "fifth page is page 0"
        );
        assert_eq!(
            m.exec(&cmd(op::TRANSLATE, 1, 4, 5 * 256 + 255)).data,
            ub + 511
        );
        assert_eq!(m.free_list(), vec![2]);
    }

    #[test]
    fn errors_change_nothing() {
        let map = small_map(4);
        let mut m = MemMgr::new(&map);
        assert_eq!(m.exec(&cmd(op::ALLOC, 0, 1, 3 * 256)).code, Code::Ok);
        let cases = [
            (cmd(op::ALLOC, 0, 1, 1), Code::AlreadyAllocated),
            (cmd(op::ALLOC, 0, 0, 2 * 256), Code::NoMemory),
            (cmd(op::ALLOC, 0, 0, 0), Code::Range),
            (cmd(op::ALLOC, 0, 2, 1), Code::BadId),
            (cmd(op::ALLOC, 1, 5, 1), Code::BadId),
            (cmd(op::FREE, 0, 0, 0), Code::DoubleFree),
            (cmd(op::TRANSLATE, 0, 0, 0), Code::NotAllocated),
            (cmd(op::TRANSLATE, 0, 1, 3 * 256), Code::Range),
            (cmd(op::GET_PARAM, 1, 0, 0), Code::NotAllocated),
            (cmd(op::IMG_ADDR, 0, 4, 0), Code::BadId),
            (cmd(op::IMG_ADDR, 0, 0, 1024), Code::Range),
            (cmd(op::SHADER_LOAD, 0, 2, 0), Code::BadId),
            (cmd(op::TEX_GET, 0, 0, 0), Code::NotAllocated),
            (cmd(op::TEX_SET, 0, 1, 0), Code::Range),
            (cmd(op::TEX_SET, 0, 3, 0), Code::BadId),
            (cmd(0, 0, 0, 0), Code::BadOpcode),
            (cmd(0xD, 0, 0, 0), Code::BadOpcode),
        ];
        for (c, code) in cases {
            let (next, free, objs, tex) =
                (m.next.clone(), m.free_list(), m.objs.clone(), m.tex.clone());
            assert_eq!(m.exec(&c), Rsp::err(code), "{c:?}");
            assert_eq!(
                (next, free, objs, tex),
                (m.next.clone(), m.free_list(), m.objs.clone(), m.tex.clone())
            );
        }
    }

    #[test]
    fn textures_shaders_and_images() {
        let map = small_map(4);
        let mut m = MemMgr::new(&map);
        let part = map.texture_base as u32 + 2048;
        let set = Cmd {
            op: op::TEX_SET,
            kind: 0,
            id: 1,
            level: 2,
            arg: part + 2047,
        };
        assert_eq!(m.exec(&set), Rsp::ok((part + 2047).into()));
        assert_eq!(
            m.exec(&Cmd {
                op: op::TEX_GET,
                ..set
            })
            .data,
            part + 2047
        );
        assert_eq!(
            m.exec(&Cmd {
                arg: part + 2048,
                ..set
            })
            .code,
            Code::Range
        );
        assert_eq!(m.exec(&Cmd { level: 3, ..set }).code, Code::BadId);
        // Ping-pong: vertex slots 0, 1, 0; the active slot is the last loaded.
        let slot = |s: u64| (map.shader_base + s * 1024) as u32;
        assert_eq!(m.exec(&cmd(op::SHADER_ACTIVE, 0, 0, 0)).data, slot(1));
        assert_eq!(m.exec(&cmd(op::SHADER_LOAD, 0, 0, 0)).data, slot(0));
        assert_eq!(m.exec(&cmd(op::SHADER_ACTIVE, 0, 0, 0)).data, slot(0));
        assert_eq!(m.exec(&cmd(op::SHADER_LOAD, 0, 0, 0)).data, slot(1));
        assert_eq!(m.exec(&cmd(op::SHADER_LOAD, 0, 1, 0)).data, slot(2));
        assert_eq!(
            m.exec(&cmd(op::IMG_ADDR, 0, 2, 5)).data,
            map.image_base as u32 + 2048 + 5
        );
    }

    #[test]
    fn vectors_cover_every_code_and_fragment_the_free_list() {
        for pages in [6, 64, 4096] {
            let map = small_map(pages);
            let cmds = commands(&map, 3000, 7);
            assert_eq!(cmds.len(), 3000);
            let mut m = MemMgr::new(&map);
            let mut seen = std::collections::BTreeSet::new();
            let mut fragmented = false;
            for c in &cmds {
                seen.insert(m.exec(c).code as u32);
                let list = m.free_list();
                fragmented |= list.windows(2).any(|w| w[1] != w[0] + 1);
                // The free list and the live chains partition the pages.
                let mut all: Vec<u32> = list;
                for o in m.objs.iter().flatten() {
                    all.extend(m.chain(o));
                }
                all.sort_unstable();
                assert_eq!(all, (0..pages as u32).collect::<Vec<_>>());
            }
            assert_eq!(seen.len(), Code::ALL.len(), "{pages} pages: {seen:?}");
            assert!(fragmented, "{pages} pages");
            let v = vectors(&map, 100, 3);
            assert_eq!(v.ports[0].items.len(), 100);
            assert_eq!(v.ports[1].items.len(), 100);
        }
    }

    #[test]
    fn words_carry_the_fields() {
        let map = small_map(4);
        let enc = Encoding::new(&map);
        let c = Cmd {
            op: op::TRANSLATE,
            kind: 1,
            id: 4,
            level: 2,
            arg: 0x8000_0001,
        };
        let w = encode_cmd(&enc, &c);
        assert_eq!(w.field(0, 4), 8);
        assert_eq!(w.field(enc.kind_lsb(), 1), 1);
        assert_eq!(w.field(enc.id_lsb(), enc.id_bits), 4);
        assert_eq!(w.field(enc.level_lsb(), enc.level_bits), 2);
        assert_eq!(w.field(enc.arg_lsb(), 32), 0x8000_0001);
        let r = encode_rsp(&enc, &Rsp::err(Code::Range));
        assert_eq!(r.field(0, 4), 7);
        assert_eq!(Code::from_bits(7), Some(Code::Range));
    }
}
