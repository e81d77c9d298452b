//! `mem_mgr`: the memory manager of seed 002 (HMGPU), rendered from `[mem.map]`. Rust
//! derives the command encoding, the field widths and every constant address; the
//! template spells out the FSM and the on-chip RAMs. The model is `model::mem_mgr`.
//!
//! # Command encoding
//!
//! One command per `req` transfer, one response per command on `rsp`, in order.
//!
//! `req_data_i = {arg[32], level[LevelW], id[IdW], kind[1], op[4]}` (op in the low bits);
//! `rsp_data_o = {data[32], code[4]}`. `IdW` fits the largest of the buffer-object,
//! display-list and texture counts and the four image slots; `LevelW` fits the mip levels
//! (both at least 1 bit). `kind` picks the index blocks of the paged ops: 0 buffer
//! objects, 1 display lists; other ops ignore it, as they ignore fields they do not name.
//!
//! | op  | name          | fields                | response data on success            |
//! |-----|---------------|-----------------------|-------------------------------------|
//! | 0x1 | TEX_SET       | id=texture, level, arg=byte address | the address stored    |
//! | 0x2 | TEX_GET       | id=texture, level     | the level's base address            |
//! | 0x3 | IMG_ADDR      | id=slot (0 source, 1 destination, 2 mask, 3 2D graphics), arg=byte offset | physical address |
//! | 0x4 | SHADER_LOAD   | id=program (0 vertex, 1 pixel) | base of the slot to load into; the program's slots flip |
//! | 0x5 | SHADER_ACTIVE | id=program            | base of the slot loaded last (slot 1 before any load) |
//! | 0x6 | ALLOC         | kind, id, arg=bytes   | physical address of the first page  |
//! | 0x7 | FREE          | kind, id              | pages returned to the free list     |
//! | 0x8 | TRANSLATE     | kind, id, arg=byte offset | physical address (page chain walked) |
//! | 0x9 | SET_PARAM     | kind, id, arg=value   | the value                           |
//! | 0xA | GET_PARAM     | kind, id              | the value (0 after ALLOC)           |
//! | 0xB | OBJ_SIZE      | kind, id              | the object's size in bytes          |
//! | 0xC | FREE_PAGES    | -                     | pages on the free list              |
//!
//! Response codes: 0 OK; 1 BAD_OPCODE (0x0, 0xD..0xF); 2 BAD_ID (id, texture, level, slot
//! or program out of range); 3 NOT_ALLOCATED (TEX_GET of a level never set, TRANSLATE or
//! a parameter op on a free id); 4 ALREADY_ALLOCATED (ALLOC of a live id); 5 DOUBLE_FREE
//! (FREE of an id that is not allocated); 6 NO_MEMORY (ALLOC of more pages than are free);
//! 7 RANGE (TEX_SET outside the texture's partition, IMG_ADDR past its slot, ALLOC of 0
//! bytes, TRANSLATE at or past the object's size). Checks go in that order of the list
//! per op (BAD_ID first); an error response carries data 0 and changes nothing.
//!
//! # Areas
//!
//! - Texture area: a fixed partition, texture `t` owns `bytes_per_texture` bytes from
//!   `texture_base + t * bytes_per_texture`; an on-chip table holds each (texture, level)'s
//!   base address, which TEX_SET must place inside the texture's partition.
//! - Image area: four equal fixed slots (source, destination, mask, 2D graphics), in that
//!   order; IMG_ADDR adds a byte offset to its slot's base.
//! - Shader area: four equal fixed slots, vertex 0, vertex 1, pixel 0, pixel 1; each
//!   program's two slots are used ping-pong.
//! - User area: `pages` pages of `page_bytes`; a free list threaded through an on-chip
//!   next-page table (head, tail, count), initialised after reset to 0 -> 1 -> ... -> P-1
//!   (with the index blocks and the texture table, in `init_clocks` clocks with the request
//!   port not ready). ALLOC takes N = ceil(bytes / page_bytes)
//!   pages from the head (walking N next pointers: the chain stays linked as the free list
//!   linked it), FREE appends the object's chain to the tail in one write, TRANSLATE walks
//!   offset / page_bytes next pointers from the object's first page. Index blocks (start
//!   page, end page, size, parameter) of the buffer objects then the display lists live in
//!   one on-chip RAM with a live bit each; the texture table has a set bit per level.

use std::collections::BTreeMap;

use askama::Template;
use serde::Serialize;

use super::{Ctx, Module, RenderError, Rst, StreamPort, Unit, render};
use crate::config::{ADDR_BITS, MemMap, clog2};

pub const OP_BITS: u32 = 4;
pub const CODE_BITS: u32 = 4;
pub const ARG_BITS: u32 = 32;

/// Opcodes of the command word.
pub mod op {
    pub const TEX_SET: u32 = 0x1;
    pub const TEX_GET: u32 = 0x2;
    pub const IMG_ADDR: u32 = 0x3;
    pub const SHADER_LOAD: u32 = 0x4;
    pub const SHADER_ACTIVE: u32 = 0x5;
    pub const ALLOC: u32 = 0x6;
    pub const FREE: u32 = 0x7;
    pub const TRANSLATE: u32 = 0x8;
    pub const SET_PARAM: u32 = 0x9;
    pub const GET_PARAM: u32 = 0xA;
    pub const OBJ_SIZE: u32 = 0xB;
    pub const FREE_PAGES: u32 = 0xC;
    /// Every opcode with its name, for the template and the docs.
    pub const ALL: &[(u32, &str)] = &[
        (TEX_SET, "TEX_SET"),
        (TEX_GET, "TEX_GET"),
        (IMG_ADDR, "IMG_ADDR"),
        (SHADER_LOAD, "SHADER_LOAD"),
        (SHADER_ACTIVE, "SHADER_ACTIVE"),
        (ALLOC, "ALLOC"),
        (FREE, "FREE"),
        (TRANSLATE, "TRANSLATE"),
        (SET_PARAM, "SET_PARAM"),
        (GET_PARAM, "GET_PARAM"),
        (OBJ_SIZE, "OBJ_SIZE"),
        (FREE_PAGES, "FREE_PAGES"),
    ];
}

/// Response codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[repr(u32)]
pub enum Code {
    Ok = 0,
    BadOpcode = 1,
    BadId = 2,
    NotAllocated = 3,
    AlreadyAllocated = 4,
    DoubleFree = 5,
    NoMemory = 6,
    Range = 7,
}

impl Code {
    pub const ALL: [Code; 8] = [
        Code::Ok,
        Code::BadOpcode,
        Code::BadId,
        Code::NotAllocated,
        Code::AlreadyAllocated,
        Code::DoubleFree,
        Code::NoMemory,
        Code::Range,
    ];

    pub fn from_bits(v: u64) -> Option<Code> {
        Code::ALL.into_iter().find(|c| *c as u64 == v)
    }

    /// The localparam name in the RTL.
    pub fn rtl_name(self) -> &'static str {
        match self {
            Code::Ok => "CodeOk",
            Code::BadOpcode => "CodeBadOpcode",
            Code::BadId => "CodeBadId",
            Code::NotAllocated => "CodeNotAllocated",
            Code::AlreadyAllocated => "CodeAlreadyAllocated",
            Code::DoubleFree => "CodeDoubleFree",
            Code::NoMemory => "CodeNoMemory",
            Code::Range => "CodeRange",
        }
    }
}

/// Image slots and shader slots: four each.
pub const IMAGE_SLOTS: u64 = 4;
pub const SHADER_SLOTS: u64 = 4;

/// The field widths and constants of a map's command encoding, shared by the RTL and the
/// model.
#[derive(Debug, Clone, Serialize)]
pub struct Encoding {
    pub id_bits: u32,
    pub level_bits: u32,
    pub req_bits: u32,
    pub rsp_bits: u32,
    pub page_log: u32,
    /// Bits of a page number, of a free-page count (0..=pages), of an index-block index.
    pub page_bits: u32,
    pub count_bits: u32,
    pub obj_bits: u32,
    pub tex_id_bits: u32,
    pub image_slot_bytes: u64,
    pub shader_slot_bytes: u64,
}

impl Encoding {
    pub fn new(map: &MemMap) -> Self {
        let id_bits = clog2(
            map.buffer_objects
                .max(map.display_lists)
                .max(map.textures)
                .max(IMAGE_SLOTS as u32),
        )
        .max(1);
        let level_bits = clog2(map.mip_levels).max(1);
        // pages <= 2^32 / 256 = 2^24, so the counts fit u32.
        let pages = map.pages as u32;
        Self {
            id_bits,
            level_bits,
            req_bits: OP_BITS + 1 + id_bits + level_bits + ARG_BITS,
            rsp_bits: CODE_BITS + ARG_BITS,
            page_log: map.page_bytes.trailing_zeros(),
            page_bits: clog2(pages).max(1),
            count_bits: clog2(pages + 1).max(1),
            obj_bits: clog2(map.buffer_objects + map.display_lists).max(1),
            tex_id_bits: clog2(map.textures).max(1),
            image_slot_bytes: map.image_bytes / IMAGE_SLOTS,
            shader_slot_bytes: map.shader_bytes / SHADER_SLOTS,
        }
    }

    /// Bit offsets of the request fields.
    pub fn kind_lsb(&self) -> u32 {
        OP_BITS
    }
    pub fn id_lsb(&self) -> u32 {
        OP_BITS + 1
    }
    pub fn level_lsb(&self) -> u32 {
        self.id_lsb() + self.id_bits
    }
    pub fn arg_lsb(&self) -> u32 {
        self.level_lsb() + self.level_bits
    }
}

/// The request and response layouts and the initialisation time, for `gpurtl units`.
pub fn describe(map: &MemMap) -> String {
    let e = Encoding::new(map);
    format!(
        "req = {{arg[32], level[{}], id[{}], kind[1], op[4]}}, rsp = {{data[32], code[4]}}; {} clocks of RAM initialisation after reset",
        e.level_bits,
        e.id_bits,
        init_clocks(map)
    )
}

/// A Verilog 32-bit hex literal.
fn addr_lit(v: u64) -> String {
    format!("{ADDR_BITS}'h{v:08x}")
}

/// One constant of an N-way mux: the select value and the address it picks.
pub struct Choice {
    pub sel: String,
    pub addr: String,
    pub label: String,
}

#[derive(Template)]
#[template(path = "rtl/mem_mgr.v")]
pub struct MemMgr {
    pub name: String,
    pub stamp: String,
    pub rst: Rst,
    pub enc: Encoding,
    pub pages: u64,
    pub page_bytes: u64,
    pub buffer_objects: u32,
    pub display_lists: u32,
    pub objs: u32,
    pub textures: u32,
    pub mip_levels: u32,
    /// Entries of the texture table: 2^(TexIdW + LevelW), as {texture, level} addresses it.
    pub tex_entries: u64,
    pub user_base: String,
    pub texture_base: String,
    pub image_base: String,
    pub shader_base: String,
    pub bytes_per_texture: String,
    pub image_slot_bytes: String,
    /// Partition base of each texture, image slot base, shader slot base.
    pub tex_parts: Vec<Choice>,
    pub image_slots: Vec<Choice>,
    pub shader_slots: Vec<Choice>,
    /// The RAMs, each with its port signals' prefix: one write and one registered read
    /// port, in the same always block shape.
    pub rams: Vec<(&'static str, &'static str)>,
    pub ops: Vec<(String, String)>,
    pub codes: Vec<(String, u32)>,
    /// Width of an id widened to compare with the counts and to index the index blocks.
    pub ix_bits: u32,
    /// Zero padding (`N'd0, ` or nothing) that widens an id to `ix_bits`, the free count
    /// and a {page, offset} address to 32 bits.
    pub ix_pad: String,
    pub free_pad: String,
    pub user_pad: String,
    /// Sized literals.
    pub last_page: String,
    pub page_one: String,
    pub pages_lit: String,
    pub count_one: String,
    pub bo_ix: String,
    pub dl_ix: String,
    pub tex_ix: String,
    pub image_slots_ix: String,
    pub programs_ix: String,
    pub levels_lit: String,
    /// `req_id` as an index-block number (`ObjW` bits): cut or padded; and the first
    /// display list's index block.
    pub req_id_obj: String,
    pub bo_obj: String,
    /// The initialisation after reset: clocks, counter bits and literals.
    pub init_clocks: u64,
    pub init_bits: u32,
    pub init_pages: String,
    pub init_objs: String,
    pub init_tex: String,
    pub init_last: String,
    pub init_one: String,
}

/// Clocks the RAMs' initialisation takes after reset, with the request port not ready:
/// one word of every RAM per clock, the deepest RAM's depth.
pub fn init_clocks(map: &MemMap) -> u64 {
    let enc = Encoding::new(map);
    map.pages
        .max(u64::from(map.buffer_objects + map.display_lists))
        .max(1 << (enc.tex_id_bits + enc.level_bits))
}

/// `N'd0, ` for `n > 0` pad bits, else nothing.
fn pad(n: u32) -> String {
    if n == 0 {
        String::new()
    } else {
        format!("{n}'d0, ")
    }
}

impl MemMgr {
    pub fn new(ctx: &Ctx, map: &MemMap) -> Self {
        let enc = Encoding::new(map);
        let choices = |n: u64, sel_bits: u32, base: u64, step: u64, labels: &[&str]| {
            (0..n)
                .map(|i| Choice {
                    sel: format!("{sel_bits}'d{i}"),
                    addr: addr_lit(base + i * step),
                    label: labels
                        .get(i as usize)
                        .map_or_else(|| format!("texture {i}"), |s| (*s).to_string()),
                })
                .collect::<Vec<_>>()
        };
        let ix_bits = enc.id_bits.max(enc.obj_bits) + 1;
        let ix = |v: u64| format!("{ix_bits}'d{v}");
        let init = init_clocks(map);
        // init <= 2^24 (pages) or 4352 (index blocks) or 1024 (texture levels).
        let init_bits = clog2(init as u32).max(1);
        Self {
            name: ctx.module_name("mem_mgr"),
            stamp: ctx.stamp.clone(),
            rst: ctx.rst.clone(),
            tex_parts: choices(
                u64::from(map.textures),
                enc.tex_id_bits,
                map.texture_base,
                map.bytes_per_texture,
                &[],
            ),
            image_slots: choices(
                IMAGE_SLOTS,
                2,
                map.image_base,
                enc.image_slot_bytes,
                &["source", "destination", "mask", "2D graphics"],
            ),
            shader_slots: choices(
                SHADER_SLOTS,
                2,
                map.shader_base,
                enc.shader_slot_bytes,
                &["vertex 0", "vertex 1", "pixel 0", "pixel 1"],
            ),
            pages: map.pages,
            page_bytes: map.page_bytes,
            buffer_objects: map.buffer_objects,
            display_lists: map.display_lists,
            objs: map.buffer_objects + map.display_lists,
            textures: map.textures,
            mip_levels: map.mip_levels,
            tex_entries: 1 << (enc.tex_id_bits + enc.level_bits),
            user_base: addr_lit(map.user_base),
            texture_base: addr_lit(map.texture_base),
            image_base: addr_lit(map.image_base),
            shader_base: addr_lit(map.shader_base),
            bytes_per_texture: addr_lit(map.bytes_per_texture),
            image_slot_bytes: addr_lit(enc.image_slot_bytes),
            rams: vec![("next_mem", "pt"), ("obj_mem", "obj"), ("tex_mem", "tex")],
            ops: op::ALL
                .iter()
                .map(|(v, n)| (op_param(n), format!("{OP_BITS}'h{v:x}")))
                .collect(),
            codes: Code::ALL
                .iter()
                .map(|c| (c.rtl_name().to_string(), *c as u32))
                .collect(),
            ix_bits,
            ix_pad: pad(ix_bits - enc.id_bits),
            free_pad: pad(32 - enc.count_bits),
            user_pad: pad(32 - enc.page_bits - enc.page_log),
            last_page: format!("{}'d{}", enc.page_bits, map.pages - 1),
            page_one: format!("{}'d1", enc.page_bits),
            pages_lit: format!("{}'d{}", enc.count_bits, map.pages),
            count_one: format!("{}'d1", enc.count_bits),
            bo_ix: ix(map.buffer_objects.into()),
            dl_ix: ix(map.display_lists.into()),
            tex_ix: ix(map.textures.into()),
            image_slots_ix: ix(IMAGE_SLOTS),
            programs_ix: ix(2),
            levels_lit: format!("{}'d{}", enc.level_bits + 1, map.mip_levels),
            req_id_obj: if enc.id_bits >= enc.obj_bits {
                format!("req_id[{}:0]", enc.obj_bits - 1)
            } else {
                format!("{{{}req_id}}", pad(enc.obj_bits - enc.id_bits))
            },
            bo_obj: format!("{}'d{}", enc.obj_bits, map.buffer_objects),
            init_clocks: init,
            init_bits,
            init_pages: format!("{}'d{}", init_bits + 1, map.pages),
            init_objs: format!(
                "{}'d{}",
                init_bits + 1,
                map.buffer_objects + map.display_lists
            ),
            init_tex: format!(
                "{}'d{}",
                init_bits + 1,
                1u64 << (enc.tex_id_bits + enc.level_bits)
            ),
            init_last: format!("{init_bits}'d{}", init - 1),
            init_one: format!("{init_bits}'d1"),
            enc,
        }
    }

    /// Renders the manager.
    pub fn elaborate(&self) -> Result<(Unit, Vec<Module>), RenderError> {
        let module = Module {
            name: self.name.clone(),
            kind: "mem_mgr",
            parameters: BTreeMap::from([
                ("Pages".to_string(), self.pages),
                ("Objs".to_string(), u64::from(self.objs)),
                ("TexEntries".to_string(), self.tex_entries),
            ]),
            instantiates: Vec::new(),
            text: render(&self.name, self)?,
        };
        let unit = Unit {
            name: "mem_mgr",
            top: self.name.clone(),
            modules: vec![self.name.clone()],
            ports: StreamPort::req_rsp(self.enc.req_bits, self.enc.rsp_bits),
            mem_ports: Vec::new(),
            probes: Vec::new(),
        };
        Ok((unit, vec![module]))
    }
}

/// `TEX_SET` -> `OpTexSet`.
fn op_param(name: &str) -> String {
    let mut s = String::from("Op");
    for word in name.split('_') {
        let mut c = word.chars();
        if let Some(f) = c.next() {
            s.push(f);
            s.extend(c.map(|x| x.to_ascii_lowercase()));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_names_are_upper_camel() {
        assert_eq!(op_param("TEX_SET"), "OpTexSet");
        assert_eq!(op_param("FREE_PAGES"), "OpFreePages");
    }

    #[test]
    fn seed_map_encoding() {
        let cfg = crate::config::load(None).expect("default");
        let map = cfg.mem.and_then(|m| m.map).expect("map");
        let e = Encoding::new(&map);
        // 256 display lists need 8 id bits; 12 levels 4 bits.
        assert_eq!((e.id_bits, e.level_bits), (8, 4));
        assert_eq!(e.req_bits, 4 + 1 + 8 + 4 + 32);
        assert_eq!(e.page_log, 10);
        assert_eq!(e.page_bits, 13);
        assert_eq!(e.count_bits, 14);
        assert_eq!(e.obj_bits, 9);
    }
}
