//! The contract of the memory manager: what its RTL and its model agree on. The command
//! and response words, the opcodes and their fields, the response codes, the FSM's
//! states, the on-chip RAMs' entry layouts, and the initialisation time.
//!
//! # Command encoding
//!
//! One command per `req` transfer, one response per command on `rsp`, in order.
//! [`Encoding::req_fields`] and [`Encoding::rsp_fields`] are the layouts:
//! `req_data_i = {arg[32], level[LevelW], id[IdW], kind[1], op[4]}` (op in the low bits);
//! `rsp_data_o = {data[32], code[4]}`. `IdW` fits the largest of the buffer-object,
//! display-list and texture counts and the four image slots; `LevelW` fits the mip levels
//! (both at least 1 bit). `kind` picks the index blocks of the paged ops: 0 buffer
//! objects, 1 display lists; other ops ignore it, as they ignore fields they do not name.
//!
//! [`OPS`] lists the opcodes, their fields and their response on success; [`Code`] the
//! response codes. Checks go in the order of `Code` per op (BAD_ID first); an error
//! response carries data 0 and changes nothing.
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
//!   (with the index blocks and the texture table, in [`init_clocks`] clocks with the
//!   request port not ready). ALLOC takes N = ceil(bytes / page_bytes) pages from the head
//!   (walking N next pointers: the chain stays linked as the free list linked it), FREE
//!   appends the object's chain to the tail in one write, TRANSLATE walks
//!   offset / page_bytes next pointers from the object's first page. Index blocks
//!   ([`Encoding::obj_fields`]) of the buffer objects then the display lists live in one
//!   on-chip RAM with a live bit each; the texture table ([`tex_fields`]) has a set bit
//!   per level.

use serde::Serialize;

pub use super::Field;
use super::timing::{Op as T, Timing};
use crate::config::{MemMap, clog2};

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
}

/// An opcode: its value, name, the fields it reads and its response data on success.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Op {
    pub code: u32,
    pub name: &'static str,
    pub fields: &'static str,
    pub response: &'static str,
}

impl Op {
    /// The localparam name in the RTL: `TEX_SET` -> `OpTexSet`.
    pub fn rtl_name(&self) -> String {
        upper_camel("Op", self.name)
    }
}

/// Every opcode; values not listed (0x0, 0xD..0xF) answer BAD_OPCODE.
pub const OPS: &[Op] = &[
    Op {
        code: op::TEX_SET,
        name: "TEX_SET",
        fields: "id=texture, level, arg=byte address",
        response: "the address stored",
    },
    Op {
        code: op::TEX_GET,
        name: "TEX_GET",
        fields: "id=texture, level",
        response: "the level's base address",
    },
    Op {
        code: op::IMG_ADDR,
        name: "IMG_ADDR",
        fields: "id=slot (0 source, 1 destination, 2 mask, 3 2D graphics), arg=byte offset",
        response: "physical address",
    },
    Op {
        code: op::SHADER_LOAD,
        name: "SHADER_LOAD",
        fields: "id=program (0 vertex, 1 pixel)",
        response: "base of the slot to load into; the program's slots flip",
    },
    Op {
        code: op::SHADER_ACTIVE,
        name: "SHADER_ACTIVE",
        fields: "id=program",
        response: "base of the slot loaded last (slot 1 before any load)",
    },
    Op {
        code: op::ALLOC,
        name: "ALLOC",
        fields: "kind, id, arg=bytes",
        response: "physical address of the first page",
    },
    Op {
        code: op::FREE,
        name: "FREE",
        fields: "kind, id",
        response: "pages returned to the free list",
    },
    Op {
        code: op::TRANSLATE,
        name: "TRANSLATE",
        fields: "kind, id, arg=byte offset",
        response: "physical address (page chain walked)",
    },
    Op {
        code: op::SET_PARAM,
        name: "SET_PARAM",
        fields: "kind, id, arg=value",
        response: "the value",
    },
    Op {
        code: op::GET_PARAM,
        name: "GET_PARAM",
        fields: "kind, id",
        response: "the value (0 after ALLOC)",
    },
    Op {
        code: op::OBJ_SIZE,
        name: "OBJ_SIZE",
        fields: "kind, id",
        response: "the object's size in bytes",
    },
    Op {
        code: op::FREE_PAGES,
        name: "FREE_PAGES",
        fields: "-",
        response: "pages on the free list",
    },
];

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

    /// The name in the docs and the header: `BAD_OPCODE`.
    pub fn name(self) -> &'static str {
        self.info().0
    }

    /// When the code is answered.
    pub fn meaning(self) -> &'static str {
        self.info().1
    }

    fn info(self) -> (&'static str, &'static str) {
        match self {
            Code::Ok => ("OK", "success"),
            Code::BadOpcode => ("BAD_OPCODE", "an opcode not in OPS (0x0, 0xD..0xF)"),
            Code::BadId => ("BAD_ID", "id, texture, level, slot or program out of range"),
            Code::NotAllocated => (
                "NOT_ALLOCATED",
                "TEX_GET of a level never set, TRANSLATE or a parameter op on a free id",
            ),
            Code::AlreadyAllocated => ("ALREADY_ALLOCATED", "ALLOC of a live id"),
            Code::DoubleFree => ("DOUBLE_FREE", "FREE of an id that is not allocated"),
            Code::NoMemory => ("NO_MEMORY", "ALLOC of more pages than are free"),
            Code::Range => (
                "RANGE",
                "TEX_SET outside the texture's partition, IMG_ADDR past its slot, ALLOC of 0 bytes, TRANSLATE at or past the object's size",
            ),
        }
    }

    /// The localparam name in the RTL: `CodeBadOpcode`.
    pub fn rtl_name(self) -> String {
        upper_camel("Code", self.name())
    }
}

/// `prefix` + `TEX_SET` -> `<prefix>TexSet`.
pub fn upper_camel(prefix: &str, name: &str) -> String {
    let mut s = String::from(prefix);
    for word in name.split('_') {
        let mut c = word.chars();
        if let Some(f) = c.next() {
            s.push(f.to_ascii_uppercase());
            s.extend(c.map(|x| x.to_ascii_lowercase()));
        }
    }
    s
}

/// Bits of the FSM's state register.
pub const STATE_BITS: u32 = 4;

/// The FSM's states: code, localparam name and what it does. The RTL declares the ones
/// its [`Schedule`] uses as localparams; the model's clock count ([`init_clocks`] in
/// `Init`, then [`Schedule::command_clocks`] per command, [`Schedule::hop_clocks`] per
/// page hop) follows them.
pub const STATES: &[(u32, &str, &str)] = &[
    (
        0,
        "StInit",
        "initialise the RAMs after reset, request port not ready",
    ),
    (1, "StIdle", "take a command (the RAMs are read for it)"),
    (
        2,
        "StDecide",
        "apply the verdict: answer, write the RAMs or start a walk",
    ),
    (3, "StWalk", "a page's next pointer is here: hop, or answer"),
    (
        4,
        "StRead",
        "the RAMs' words into their output registers, the command's operands registered",
    ),
    (5, "StCheck", "the verdict (code, data, walk) registered"),
    (
        6,
        "StHop",
        "the next pointer into the RAM's output register",
    ),
    (
        7,
        "StWord",
        "the sums and compares of the RAMs' words registered",
    ),
    (
        8,
        "StAddr",
        "the next pointer's address into the page table's address registers",
    ),
    (
        9,
        "StAnswer",
        "the translate's answer from the walk's last page (registered)",
    ),
    (
        10,
        "StSelect",
        "the next pointer selected across the page table's tiles (registered)",
    ),
];

/// The pipeline of the manager at the config's clock: where the command path and the
/// page walk are cut by registers. Decided from the delay table; the RTL renders it and
/// the model's clock count reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Schedule {
    /// The RAMs' words registered before any logic uses them (two-clock reads), and the
    /// command's operands registered in the same clock: a command takes a clock more and
    /// a page hop two clocks.
    pub ram_reg: bool,
    /// The verdict (response code and data, the walk to start) registered a clock before
    /// the decide clock applies it: a command takes a clock more.
    pub check_reg: bool,
    /// The sums and compares of the RAMs' words (the pages of an object's size, the
    /// translate's range check and address) registered a clock before the verdict: a
    /// command takes a clock more.
    pub word_reg: bool,
    /// The page table's read address registered (a copy per block-RAM tile) before the
    /// RAMs: the word, the tile select, the address select and the net to every block RAM
    /// of a deep table do not fit one clock. A page hop takes a clock more.
    pub addr_reg: bool,
    /// The next pointer registered after the select across the tiles (`StSelect`), with
    /// the address: measured on seed 002's 64 RAMs, 2.6 ns of routing from a tile's word
    /// to the select and 4.1 ns from there to the address copies. A page hop takes a
    /// clock more.
    pub select_reg: bool,
    /// A TRANSLATE's answer (the user area's base plus the walk's last page and the
    /// offset) computed a clock after that page arrives (`StAnswer`): the tile select
    /// and the 32-bit sum do not fit behind a deep table's word. A TRANSLATE that walks
    /// takes a clock more.
    pub answer_reg: bool,
    pub target_mhz: u32,
}

impl Schedule {
    /// The schedule at `t` for a page table of `pages` next pointers of `page_bits` each.
    pub fn new(t: &Timing, pages: u64, page_bits: u32) -> Self {
        // A registered verdict implies registered RAM words (the decide clock reads them
        // after the RAMs have moved on), and a verdict that does not fit behind the RAM's
        // read does not fit without it either.
        let mut after_ram = vec![T::RamRead];
        after_ram.extend(VERDICT_PATH);
        let check_reg = !t.fits(&VERDICT_PATH);
        let ram_reg = !t.fits(&HOP_PATH) || !t.fits(&RAM_CHECK_PATH) || !t.fits(&after_ram);
        Self {
            ram_reg,
            check_reg,
            word_reg: check_reg && !t.fits(&WORD_VERDICT_PATH),
            // Only a table deeper than one RAM: its RAMs spread over the device's RAM rows
            // (measured: 2.8 ns from a tile's word to the select, 3.9 ns to 64 RAMs'
            // address pins), where one RAM's column stays local.
            addr_reg: ram_reg
                && page_table_rams(t, pages, page_bits).1 > 1
                && !t.fits(&registered_hop_path(t, pages, page_bits)),
            select_reg: ram_reg
                && page_table_rams(t, pages, page_bits).1 > 1
                && !t.fits(&registered_hop_path(t, pages, page_bits)),
            answer_reg: ram_reg
                && page_table_rams(t, pages, page_bits).1 > 1
                && !t.fits(&answer_path(t, pages, page_bits)),
            target_mhz: (1000.0 / t.period_ns).round() as u32,
        }
    }

    /// The schedule at `t` for the page table of `map`.
    pub fn for_map(t: &Timing, map: &MemMap) -> Self {
        Self::new(t, map.pages, Encoding::new(map).page_bits)
    }

    /// Clocks from taking a command to offering its response, walks aside (the next
    /// command is taken in the clock the response leaves).
    pub fn command_clocks(&self) -> u64 {
        2 + u64::from(self.ram_reg) + u64::from(self.check_reg) + u64::from(self.word_reg)
    }

    /// Clocks per page hop of a walk.
    pub fn hop_clocks(&self) -> u64 {
        1 + u64::from(self.ram_reg) + u64::from(self.addr_reg) + u64::from(self.select_reg)
    }

    /// Clocks a TRANSLATE's walk adds after its last hop.
    pub fn answer_clocks(&self) -> u64 {
        u64::from(self.answer_reg)
    }

    /// The FSM states this schedule uses.
    pub fn states(&self) -> Vec<(u32, &'static str, &'static str)> {
        STATES
            .iter()
            .copied()
            .filter(|(_, n, _)| match *n {
                "StRead" => self.ram_reg,
                "StCheck" => self.check_reg,
                "StHop" => self.ram_reg,
                "StWord" => self.word_reg,
                "StAddr" => self.addr_reg,
                "StAnswer" => self.answer_reg,
                "StSelect" => self.select_reg,
                _ => true,
            })
            .collect()
    }

    /// The line `gpurtl check` prints (and the RTL header).
    pub fn describe(&self) -> String {
        let reg = |on: bool| if on { "registered" } else { "combinational" };
        format!(
            "{} MHz: {} RAM reads, {} word sums, {} verdict, {} page-table address and {} tile select, {} translate answer; {} clocks a command, {} a page hop{}",
            self.target_mhz,
            if self.ram_reg {
                "two-clock"
            } else {
                "one-clock"
            },
            reg(self.word_reg),
            reg(self.check_reg),
            reg(self.addr_reg),
            reg(self.select_reg),
            reg(self.answer_reg),
            self.command_clocks(),
            self.hop_clocks(),
            if self.answer_reg {
                ", a clock more after a translate's walk"
            } else {
                ""
            }
        )
    }
}

/// Tiles of one block RAM's depth (`ram_depth`, 0: no limit) that `pages` words take.
pub fn page_table_tiles(pages: u64, ram_depth: u64) -> u64 {
    if ram_depth == 0 {
        1
    } else {
        pages.div_ceil(ram_depth)
    }
}

/// Block RAMs a page table of `pages` words of `bits` takes, and the tiles of one RAM's
/// depth it is cut into (1 when it fits one RAM's depth or the family has no limit).
pub fn page_table_rams(t: &Timing, pages: u64, bits: u32) -> (u64, u64) {
    let tiles = page_table_tiles(pages, t.delays.ram_depth);
    // At its deepest a RAM is one bit wide: a word is `bits` RAMs side by side.
    (tiles * u64::from(bits), tiles)
}

/// A hop with two-clock reads: the tile's registered word, the select across tiles, the
/// address select, and the net to every block RAM's address pins.
pub fn registered_hop_path(t: &Timing, pages: u64, bits: u32) -> [T; 4] {
    let (rams, tiles) = page_table_rams(t, pages, bits);
    [
        T::Lut(1),
        T::Mux(tiles.min(u64::from(u32::MAX)) as u32),
        T::Lut(1),
        T::Fanout(rams.min(u64::from(u32::MAX)) as u32),
    ]
}

/// A TRANSLATE's answer behind the walk's last word: the tile's registered word, the
/// select across tiles, the 32-bit sum with the user area's base, the answer's select.
pub fn answer_path(t: &Timing, pages: u64, bits: u32) -> [T; 4] {
    let (_, tiles) = page_table_rams(t, pages, bits);
    [
        T::Lut(1),
        T::Mux(tiles.min(u64::from(u32::MAX)) as u32),
        T::Carry(32),
        T::Lut(2),
    ]
}

/// A page hop in one clock: the RAM's unregistered word through the address mux into
/// the same RAM's address.
pub const HOP_PATH: [T; 2] = [T::RamRead, T::Mux(4)];
/// The RAM's unregistered word into a 32-bit compare (the size and range checks).
pub const RAM_CHECK_PATH: [T; 3] = [T::RamRead, T::Carry(32), T::Lut(1)];
/// The verdict into its register from the RAMs' registered words: a 32-bit compare or
/// sum on the word, the code's priority, the data select.
pub const WORD_VERDICT_PATH: [T; 3] = [T::Carry(32), T::Lut(2), T::Lut(2)];
/// The verdict and its application in one clock, from registered operands: a 32-bit
/// compare, the code's priority, the decide clock's write enables, the RAM address mux.
pub const VERDICT_PATH: [T; 4] = [T::Carry(32), T::Lut(2), T::Lut(2), T::Mux(4)];

/// Image slots and shader slots: four each.
pub const IMAGE_SLOTS: u64 = 4;
pub const SHADER_SLOTS: u64 = 4;
/// Bits of an image or shader slot number.
pub const SLOT_BITS: u32 = 2;

/// A texture-table entry, lowest field first: `{set, base address}`.
pub fn tex_fields() -> Vec<Field> {
    super::field::pack(&[("Base", 32), ("Set", 1)])
}

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
        let mut e = Self {
            id_bits,
            level_bits,
            req_bits: 0,
            rsp_bits: 0,
            page_log: map.page_bytes.trailing_zeros(),
            page_bits: clog2(pages).max(1),
            count_bits: clog2(pages + 1).max(1),
            obj_bits: clog2(map.buffer_objects + map.display_lists).max(1),
            tex_id_bits: clog2(map.textures).max(1),
            image_slot_bytes: map.image_bytes / IMAGE_SLOTS,
            shader_slot_bytes: map.shader_bytes / SHADER_SLOTS,
        };
        e.req_bits = super::field::width(&e.req_fields());
        e.rsp_bits = super::field::width(&e.rsp_fields());
        e
    }

    /// The command word, lowest field first: `{arg, level, id, kind, op}`.
    pub fn req_fields(&self) -> Vec<Field> {
        super::field::pack(&[
            ("Op", OP_BITS),
            ("Kind", 1),
            ("Id", self.id_bits),
            ("Level", self.level_bits),
            ("Arg", ARG_BITS),
        ])
    }

    /// The response word, lowest field first: `{data, code}`.
    pub fn rsp_fields(&self) -> Vec<Field> {
        super::field::pack(&[("Code", CODE_BITS), ("Data", ARG_BITS)])
    }

    /// An index block, lowest field first: `{live, param, size, end page, start page}`.
    pub fn obj_fields(&self) -> Vec<Field> {
        super::field::pack(&[
            ("Start", self.page_bits),
            ("End", self.page_bits),
            ("Size", 32),
            ("Param", 32),
            ("Live", 1),
        ])
    }

    fn req_lsb(&self, name: &str) -> u32 {
        self.req_fields()
            .iter()
            .find(|f| f.name == name)
            .map_or(0, |f| f.lsb)
    }

    /// Bit offsets of the request fields.
    pub fn kind_lsb(&self) -> u32 {
        self.req_lsb("Kind")
    }
    pub fn id_lsb(&self) -> u32 {
        self.req_lsb("Id")
    }
    pub fn level_lsb(&self) -> u32 {
        self.req_lsb("Level")
    }
    pub fn arg_lsb(&self) -> u32 {
        self.req_lsb("Arg")
    }
}

/// Clocks the RAMs' initialisation takes after reset, with the request port not ready:
/// one word of every RAM per clock, the deepest RAM's depth.
pub fn init_clocks(map: &MemMap) -> u64 {
    let enc = Encoding::new(map);
    map.pages
        .max(u64::from(map.buffer_objects + map.display_lists))
        .max(1 << (enc.tex_id_bits + enc.level_bits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_upper_camel() {
        assert_eq!(OPS[0].rtl_name(), "OpTexSet");
        assert_eq!(upper_camel("Op", "FREE_PAGES"), "OpFreePages");
        assert_eq!(Code::BadOpcode.rtl_name(), "CodeBadOpcode");
    }

    #[test]
    fn codes_and_ops_are_distinct_and_fit() {
        for (i, c) in Code::ALL.iter().enumerate() {
            assert_eq!(*c as usize, i);
            assert!((*c as u32) < 1 << CODE_BITS);
        }
        let mut seen = std::collections::BTreeSet::new();
        for o in OPS {
            assert!(o.code != 0 && o.code < 1 << OP_BITS, "{o:?}");
            assert!(seen.insert(o.code), "{o:?}");
        }
        assert_eq!(1 << SLOT_BITS, IMAGE_SLOTS);
        assert_eq!(1 << SLOT_BITS, SHADER_SLOTS);
        for (i, (code, _, _)) in STATES.iter().enumerate() {
            assert_eq!(*code as usize, i);
            assert!(*code < 1 << STATE_BITS);
        }
    }

    #[test]
    fn the_schedule_follows_the_target() {
        let timing = |mhz: f64| {
            Timing::new(&crate::config::ClockSection {
                target_mhz: mhz,
                family: crate::config::Family::Ecp5,
            })
        };
        // The default's table: 8192 pages of 13 bits, one RAM deep.
        let at = |mhz: f64| Schedule::new(&timing(mhz), 8192, 13);
        let (slow, mid, fast) = (at(50.0), at(70.0), at(200.0));
        assert_eq!(
            (slow.ram_reg, slow.check_reg, slow.word_reg),
            (false, false, false)
        );
        assert_eq!((slow.command_clocks(), slow.hop_clocks()), (2, 1));
        assert_eq!(
            (mid.ram_reg, mid.check_reg, mid.word_reg),
            (true, false, false)
        );
        assert_eq!((mid.command_clocks(), mid.hop_clocks()), (3, 2));
        assert_eq!(
            (fast.ram_reg, fast.check_reg, fast.word_reg),
            (true, true, true)
        );
        assert_eq!((fast.command_clocks(), fast.hop_clocks()), (5, 2));
        assert_eq!(slow.states().len(), 4);
        assert_eq!(fast.states().len(), STATES.len() - 3);
        assert!(fast.describe().contains("5 clocks a command, 2 a page hop"));
        // Between them, a registered verdict whose word sums still fit before it.
        let t = at(100.0);
        assert_eq!((t.ram_reg, t.check_reg, t.word_reg), (true, true, false));
        // One RAM deep, the hop's address stays combinational even at 200 MHz; seed 002's
        // 65536 pages (four RAM tiles, 64 RAMs) get a registered address at 167 MHz and a
        // four-clock hop (address and select registered), and none at 100 MHz.
        assert!(!fast.addr_reg);
        let deep = Schedule::new(&timing(167.0), 65536, 16);
        assert!(deep.addr_reg);
        assert_eq!(deep.hop_clocks(), 4);
        assert!(deep.states().iter().any(|(_, n, _)| *n == "StAddr"));
        // Its translate answer (tile select and base sum behind the last word) gets a
        // clock of its own there too; one RAM deep it does not.
        assert!(deep.answer_reg && !fast.answer_reg);
        assert_eq!(deep.answer_clocks(), 1);
        assert_eq!(deep.states().len(), STATES.len());
        assert!(!Schedule::new(&timing(100.0), 65536, 16).addr_reg);
        assert_eq!(t.command_clocks(), 4);
    }

    #[test]
    fn seed_map_encoding() {
        let cfg = crate::config::load(None).expect("default");
        let map = cfg.mem.and_then(|m| m.map).expect("map");
        let e = Encoding::new(&map);
        // 256 display lists need 8 id bits; 12 levels 4 bits.
        assert_eq!((e.id_bits, e.level_bits), (8, 4));
        assert_eq!(e.req_bits, 4 + 1 + 8 + 4 + 32);
        assert_eq!(e.rsp_bits, 36);
        assert_eq!(
            (e.kind_lsb(), e.id_lsb(), e.level_lsb(), e.arg_lsb()),
            (4, 5, 13, 17)
        );
        assert_eq!(e.page_log, 10);
        assert_eq!(e.page_bits, 13);
        assert_eq!(e.count_bits, 14);
        assert_eq!(e.obj_bits, 9);
        assert_eq!(super::super::field::width(&e.obj_fields()), 2 * 13 + 65);
    }
}
