//! `mem_mgr`: the memory manager of seed 002 (HMGPU), rendered from `[mem.map]`. Rust
//! derives the command encoding, the field widths and every constant address; the
//! template spells out the FSM and the on-chip RAMs. The model is `model::mem_mgr`.
//!
//! The command encoding, the opcodes, the response codes, the FSM states and the RAM
//! entry layouts are the contract in `iface::mem_mgr`; this file renders them.

use std::collections::BTreeMap;

use askama::Template;

use super::{Ctx, Module, RenderError, Rst, StreamPort, Unit, render};
use crate::config::{ADDR_BITS, MemMap, clog2};
use crate::iface::mem_arb::{describe as describe_fields, lsb_params, width};
use crate::iface::mem_mgr::{OPS, STATE_BITS, Schedule, tex_fields};
use crate::iface::timing::Timing;
// Callers outside rtl (the CLI, the benches, the tests) reach the contract here too.
pub use crate::iface::mem_mgr::{
    ARG_BITS, CODE_BITS, Code, Encoding, IMAGE_SLOTS, OP_BITS, SHADER_SLOTS, SLOT_BITS,
    init_clocks, op,
};

/// The request and response layouts and the initialisation time, for `gpurtl units`.
pub fn describe(map: &MemMap) -> String {
    let e = Encoding::new(map);
    format!(
        "req = {}, rsp = {}; {} clocks of RAM initialisation after reset",
        describe_fields(&e.req_fields()),
        describe_fields(&e.rsp_fields()),
        init_clocks(map)
    )
}

/// A Verilog 32-bit hex literal.
fn addr_lit(v: u64) -> String {
    format!("{ADDR_BITS}'h{v:08x}")
}

/// One constant of an N-way mux: the select value and the address it picks (and, for a
/// texture partition, its last byte).
pub struct Choice {
    pub sel: String,
    pub addr: String,
    pub last: String,
    pub label: String,
}

/// TEX_SET's range check when every texture owns a power of two of bytes (2^log): an
/// address is in texture t's [base, base + 2^log) exactly when its bits above log are
/// base's and its low bits reach base's, or are base's plus one and stay below them. The
/// template builds that from equalities and a compare with a constant, with no carry
/// chain after the texture's select.
pub struct TexSplit {
    pub log: u32,
    /// The bases' low bits (the same for every texture), as a `log`-bit literal.
    pub low: String,
    /// The bases are aligned: the low compare always holds and the second term is dead.
    pub aligned: bool,
    /// Per texture: select, and the base's high bits and those plus one, `32 - log` bits.
    pub highs: Vec<(String, String, String)>,
}

impl TexSplit {
    fn new(map: &MemMap, tex_id_bits: u32) -> Option<Self> {
        let size = map.bytes_per_texture;
        if !size.is_power_of_two() || !(2..1 << ADDR_BITS).contains(&size) {
            return None;
        }
        let log = size.trailing_zeros();
        let low = map.texture_base & (size - 1);
        let hi_bits = ADDR_BITS - log;
        let highs = (0..u64::from(map.textures))
            .map(|t| {
                let hi = (map.texture_base + t * size) >> log;
                (
                    format!("{tex_id_bits}'d{t}"),
                    format!("{hi_bits}'h{hi:x}"),
                    format!("{hi_bits}'h{:x}", hi + 1),
                )
            })
            .collect();
        Some(Self {
            log,
            low: format!("{log}'h{low:x}"),
            aligned: low == 0,
            highs,
        })
    }
}

/// A RAM's word as the logic reads it: the port prefix and its range.
pub struct RamWord {
    pub port: &'static str,
    pub range: &'static str,
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
    pub tex_split: Option<TexSplit>,
    pub image_slots: Vec<Choice>,
    pub shader_slots: Vec<Choice>,
    /// The RAMs, each with its port signals' prefix: one write and one registered read
    /// port, in the same always block shape.
    pub rams: Vec<(&'static str, &'static str)>,
    /// The contract's tables as localparams: (name, value) each, opcodes as hex literals.
    pub ops: Vec<(String, String)>,
    pub codes: Vec<(String, u32)>,
    pub states: Vec<(String, u32)>,
    pub state_bits: u32,
    pub slot_bits: u32,
    pub op_bits: u32,
    pub code_bits: u32,
    pub arg_bits: u32,
    /// Field offsets of the command word, an index block and a texture-table entry.
    pub lsbs: Vec<(String, u32)>,
    /// Widths of an index block and a texture-table entry.
    pub obj_entry_bits: u32,
    pub tex_entry_bits: u32,
    /// The header's lines: the word layouts, the opcodes, the codes and the states.
    pub req_layout: String,
    pub rsp_layout: String,
    pub obj_layout: String,
    pub tex_layout: String,
    pub op_lines: Vec<String>,
    pub code_lines: Vec<String>,
    pub state_lines: Vec<String>,
    /// Width of an id widened to compare with the counts and to index the index blocks.
    pub ix_bits: u32,
    /// Zero padding (`N'd0, ` or nothing) that widens an id to `ix_bits`, the free count
    /// and a {page, offset} address to 32 bits.
    pub ix_pad: String,
    pub free_pad: String,
    pub user_pad: String,
    /// Sized literals.
    pub page_one: String,
    pub count_one: String,
    pub count_two: String,
    /// The map's counts and limits the checks compare with, as localparams: (range,
    /// name, sized literal).
    pub limits: Vec<(String, &'static str, String)>,
    /// `req_id` as an index-block number (`ObjW` bits): cut or padded.
    pub req_id_obj: String,
    /// The initialisation after reset: clocks, counter bits and a literal.
    pub init_clocks: u64,
    pub init_bits: u32,
    pub init_one: String,
    /// The pipeline at the config's clock, its header line and clock counts.
    pub sched: Schedule,
    pub sched_line: String,
    pub command_clocks: u64,
    pub hop_clocks: u64,
    /// The page table in tiles of one block RAM's depth, each with its own output
    /// register, when it is deeper than one RAM and reads take two clocks (else `None`).
    pub pt_tiles: Option<PtTiles>,
    /// The RAMs' words, the command's operands and the verdict's signals, each with its
    /// range (registered or wires as the schedule says).
    pub ram_words: Vec<RamWord>,
    pub operands: Vec<(&'static str, &'static str)>,
    pub words: Vec<(&'static str, &'static str)>,
    pub verdict: Vec<(&'static str, &'static str)>,
    /// The state after the take, after StRead, and after a next pointer's address.
    pub after_take: &'static str,
    pub after_read: &'static str,
    pub after_hop_read: &'static str,
}

/// The page table's tiles: `count` RAMs of `2^bits` pages, the last of `last_pages`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PtTiles {
    pub count: u64,
    pub bits: u32,
    pub last_pages: u64,
}

impl PtTiles {
    /// Tiles for `pages` next pointers on a family whose block RAM goes `ram_depth` deep
    /// (a power of two; 0: no limit), when the reads are two-clock: the register after each
    /// tile can then go into its RAM, and the select across tiles comes after it.
    pub fn new(pages: u64, ram_depth: u64, two_clock_reads: bool) -> Option<Self> {
        let count = crate::iface::mem_mgr::page_table_tiles(pages, ram_depth);
        if !two_clock_reads || count <= 1 {
            return None;
        }
        Some(Self {
            count,
            bits: ram_depth.trailing_zeros(),
            last_pages: pages - (count - 1) * ram_depth,
        })
    }
}

/// `N'd0, ` for `n > 0` pad bits, else nothing.
fn pad(n: u32) -> String {
    if n == 0 {
        String::new()
    } else {
        format!("{n}'d0, ")
    }
}

/// One choice per slot: its select value, its first and last byte, its label (`texture i`
/// past the labels given).
fn choices(n: u64, sel_bits: u32, base: u64, step: u64, labels: &[&str]) -> Vec<Choice> {
    (0..n)
        .map(|i| Choice {
            sel: format!("{sel_bits}'d{i}"),
            addr: addr_lit(base + i * step),
            last: addr_lit(base + i * step + step - 1),
            label: labels
                .get(i as usize)
                .map_or_else(|| format!("texture {i}"), |s| (*s).to_string()),
        })
        .collect()
}

/// Width of an id widened to compare with the counts and to index the index blocks.
fn ix_bits(enc: &Encoding) -> u32 {
    enc.id_bits.max(enc.obj_bits) + 1
}

/// Bits of the initialisation counter: init <= 2^24 (pages) or 4352 (index blocks) or
/// 1024 (texture levels).
fn init_bits(map: &MemMap) -> u32 {
    clog2(init_clocks(map) as u32).max(1)
}

/// The counts an id or a level is checked against, the first display list's index block,
/// an image slot's size and the initialisation's last clock: (range, name, literal).
fn limits(map: &MemMap, enc: &Encoding) -> Vec<(String, &'static str, String)> {
    let ix = ix_bits(enc);
    let ix_lit = |name: &'static str, v: u64| ("[IxW-1:0]".to_string(), name, format!("{ix}'d{v}"));
    let init_w = init_bits(map);
    vec![
        ix_lit("NumBufferObjects", map.buffer_objects.into()),
        ix_lit("NumDisplayLists", map.display_lists.into()),
        ix_lit("NumTextures", map.textures.into()),
        ix_lit("NumImageSlots", IMAGE_SLOTS),
        // Two programs (vertex, pixel), each with its ping-pong pair of shader slots.
        ix_lit("NumPrograms", SHADER_SLOTS / 2),
        (
            "[LevelW:0]".into(),
            "NumMipLevels",
            format!("{}'d{}", enc.level_bits + 1, map.mip_levels),
        ),
        (
            "[ObjW-1:0]".into(),
            "FirstListObj",
            format!("{}'d{}", enc.obj_bits, map.buffer_objects),
        ),
        (
            "[31:0]".into(),
            "ImageSlotBytes",
            addr_lit(enc.image_slot_bytes),
        ),
        (
            "[InitW-1:0]".into(),
            "InitBeforeLast",
            // At least 2 init clocks: every map has a buffer object and a display list.
            format!("{init_w}'d{}", init_clocks(map) - 2),
        ),
    ]
}

/// Localparams as (name, value).
type Params<T> = Vec<(String, T)>;

/// The contract's opcodes (hex literals), codes and states, as localparams.
fn tables(sched: &Schedule) -> (Params<String>, Params<u32>, Params<u32>) {
    let ops = OPS
        .iter()
        .map(|o| (o.rtl_name(), format!("{OP_BITS}'h{:x}", o.code)))
        .collect();
    let codes = Code::ALL
        .iter()
        .map(|c| (c.rtl_name(), *c as u32))
        .collect();
    let states = sched
        .states()
        .iter()
        .map(|(v, n, _)| ((*n).to_string(), *v))
        .collect();
    (ops, codes, states)
}

/// The header's lines: the opcodes, the codes and the states.
fn header_lines(sched: &Schedule) -> (Vec<String>, Vec<String>, Vec<String>) {
    let ops = OPS
        .iter()
        .map(|o| format!("0x{:X} {}({}): {}", o.code, o.name, o.fields, o.response))
        .collect();
    let codes = Code::ALL
        .iter()
        .map(|c| format!("{} {}: {}", *c as u32, c.name(), c.meaning()))
        .collect();
    let states = sched
        .states()
        .iter()
        .map(|(_, n, what)| format!("{n}: {what}"))
        .collect();
    (ops, codes, states)
}

/// The field offsets of the command word, an index block and a texture-table entry.
fn field_lsbs(enc: &Encoding) -> Vec<(String, u32)> {
    [
        lsb_params("Req", &enc.req_fields()),
        lsb_params("Obj", &enc.obj_fields()),
        lsb_params("Tex", &tex_fields()),
    ]
    .concat()
}

/// `req_id` as an index-block number (`ObjW` bits): cut or padded.
fn req_id_obj(enc: &Encoding) -> String {
    if enc.id_bits >= enc.obj_bits {
        format!("req_id[{}:0]", enc.obj_bits - 1)
    } else {
        format!("{{{}req_id}}", pad(enc.obj_bits - enc.id_bits))
    }
}

/// The RAMs' words as the logic reads them.
fn ram_words() -> Vec<RamWord> {
    vec![
        RamWord {
            port: "pt",
            range: "[PageW-1:0] ",
        },
        RamWord {
            port: "obj",
            range: "[EntryW-1:0] ",
        },
        RamWord {
            port: "tex",
            range: "[TexEntryW-1:0] ",
        },
    ]
}

/// The command's operands and the verdict's signals, each with its range.
const OPERANDS: [(&str, &str); 11] = [
    ("img_addr", "[31:0] "),
    ("shader_slot_base", "[31:0] "),
    ("arg_pages", "[31:0] "),
    ("tex_range_bad", ""),
    ("img_range_bad", ""),
    ("img_id_bad", ""),
    ("prog_id_bad", ""),
    ("arg_zero", ""),
    ("hops_zero", ""),
    ("pages_one", ""),
    ("hops_one", ""),
];
/// The sums and compares of the RAMs' words the verdict reads, and the ALLOC's check of
/// its pages against the free count (held from the take to the decide clock).
const WORDS: [(&str, &str); 10] = [
    ("size_pages", "[31:0] "),
    ("arg_ge_size", ""),
    ("translate_addr", "[31:0] "),
    ("no_memory", ""),
    ("live", ""),
    // The RAMs' fields the verdict passes on, registered with the rest so that the
    // verdict's selects start from flops beside it and not from a block RAM's output.
    ("obj_size", "[31:0] "),
    ("obj_param", "[31:0] "),
    ("obj_start", "[PageW-1:0] "),
    ("tex_base", "[ArgW-1:0] "),
    ("tex_set", ""),
];
const VERDICT: [(&str, &str); 13] = [
    ("code", "[CodeW-1:0] "),
    ("data", "[ArgW-1:0] "),
    ("walk", ""),
    ("from", "[PageW-1:0] "),
    ("hops", "[CountW-1:0] "),
    ("ok", ""),
    ("free_empty", ""),
    ("tex_we", ""),
    ("obj_we", ""),
    ("pt_we", ""),
    ("free_ok", ""),
    ("shader_ok", ""),
    ("one_hop", ""),
];

/// The state after the take, after StRead, and after a next pointer's address is chosen.
fn next_states(sched: &Schedule) -> (&'static str, &'static str, &'static str) {
    let after_take = match (sched.ram_reg, sched.check_reg) {
        (true, _) => "StRead",
        (false, true) => "StCheck",
        _ => "StDecide",
    };
    let after_read = match (sched.word_reg, sched.check_reg) {
        (true, _) => "StWord",
        (false, true) => "StCheck",
        _ => "StDecide",
    };
    let after_hop_read = match (sched.addr_reg, sched.ram_reg) {
        (true, _) => "StAddr",
        (false, true) => "StHop",
        _ => "StWalk",
    };
    (after_take, after_read, after_hop_read)
}

impl MemMgr {
    pub fn new(ctx: &Ctx, map: &MemMap, timing: &Timing) -> Self {
        let enc = Encoding::new(map);
        let sched = Schedule::for_map(timing, map);
        let ix_bits = ix_bits(&enc);
        let (ops, codes, states) = tables(&sched);
        let (op_lines, code_lines, state_lines) = header_lines(&sched);
        let (after_take, after_read, after_hop_read) = next_states(&sched);
        let init_bits = init_bits(map);
        let pt_tiles = PtTiles::new(map.pages, timing.delays.ram_depth, sched.ram_reg);
        let mut rams = vec![("next_mem", "pt"), ("obj_mem", "obj"), ("tex_mem", "tex")];
        let mut words = ram_words();
        if pt_tiles.is_some() {
            // The tiles have their own read and output registers.
            rams.retain(|(_, port)| *port != "pt");
            words.retain(|w| w.port != "pt");
        }
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
            tex_split: TexSplit::new(map, enc.tex_id_bits),
            image_slots: choices(
                IMAGE_SLOTS,
                SLOT_BITS,
                map.image_base,
                enc.image_slot_bytes,
                &["source", "destination", "mask", "2D graphics"],
            ),
            shader_slots: choices(
                SHADER_SLOTS,
                SLOT_BITS,
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
            rams,
            pt_tiles,
            ops,
            codes,
            states,
            state_bits: STATE_BITS,
            slot_bits: SLOT_BITS,
            op_bits: OP_BITS,
            code_bits: CODE_BITS,
            arg_bits: ARG_BITS,
            lsbs: field_lsbs(&enc),
            obj_entry_bits: width(&enc.obj_fields()),
            tex_entry_bits: width(&tex_fields()),
            req_layout: describe_fields(&enc.req_fields()),
            rsp_layout: describe_fields(&enc.rsp_fields()),
            obj_layout: describe_fields(&enc.obj_fields()),
            tex_layout: describe_fields(&tex_fields()),
            op_lines,
            code_lines,
            state_lines,
            ix_bits,
            ix_pad: pad(ix_bits - enc.id_bits),
            free_pad: pad(32 - enc.count_bits),
            user_pad: pad(32 - enc.page_bits - enc.page_log),
            page_one: format!("{}'d1", enc.page_bits),
            count_one: format!("{}'d1", enc.count_bits),
            // Two in the count's width: one more than one, modulo 2^bits as the count's
            // decrement wraps (a one-bit count's two is zero).
            count_two: format!("{}'d{}", enc.count_bits, 2 % (1u64 << enc.count_bits)),
            limits: limits(map, &enc),
            req_id_obj: req_id_obj(&enc),
            init_clocks: init_clocks(map),
            init_bits,
            init_one: format!("{init_bits}'d1"),
            sched_line: sched.describe(),
            command_clocks: sched.command_clocks(),
            hop_clocks: sched.hop_clocks(),
            ram_words: words,
            operands: OPERANDS.to_vec(),
            words: WORDS.to_vec(),
            verdict: VERDICT.to_vec(),
            after_take,
            after_read,
            after_hop_read,
            sched,
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
            // Filled in from the rendered hierarchy (rtl::stages) once the design is whole.
            stages: Vec::new(),
            probes: Vec::new(),
        };
        Ok((unit, vec![module]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The opcodes, codes, states, field offsets and entry widths the manager declares
    /// are the contract's tables.
    #[test]
    fn rendered_localparams_are_the_contracts_tables() {
        for file in ["configs/default.toml", "configs/seed002_hmgpu.toml"] {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
            let cfg = crate::config::load(Some(&path)).expect("preset");
            let map = cfg.mem.as_ref().and_then(|m| m.map.clone()).expect("map");
            let timing = Timing::new(&cfg.clock);
            let mgr = MemMgr::new(&Ctx::new(&cfg), &map, &timing);
            let declared =
                crate::rtl::align::localparams(&render(&mgr.name, &mgr).expect("renders"));
            let mut want: Vec<(String, u64)> = Vec::new();
            want.extend(OPS.iter().map(|o| (o.rtl_name(), u64::from(o.code))));
            want.extend(Code::ALL.iter().map(|c| (c.rtl_name(), *c as u64)));
            want.extend(
                Schedule::for_map(&timing, &map)
                    .states()
                    .iter()
                    .map(|(v, n, _)| ((*n).to_string(), u64::from(*v))),
            );
            let enc = Encoding::new(&map);
            for (word, fields) in [
                ("Req", enc.req_fields()),
                ("Obj", enc.obj_fields()),
                ("Tex", tex_fields()),
            ] {
                want.extend(
                    lsb_params(word, &fields)
                        .into_iter()
                        .map(|(n, v)| (n, u64::from(v))),
                );
            }
            want.push(("EntryW".into(), width(&enc.obj_fields()).into()));
            want.push(("TexEntryW".into(), width(&tex_fields()).into()));
            want.push(("IdW".into(), enc.id_bits.into()));
            want.push(("LevelW".into(), enc.level_bits.into()));
            want.push(("OpW".into(), OP_BITS.into()));
            want.push(("CodeW".into(), CODE_BITS.into()));
            want.push(("ArgW".into(), ARG_BITS.into()));
            want.push(("StateW".into(), STATE_BITS.into()));
            want.push(("SlotW".into(), SLOT_BITS.into()));
            want.push(("NumBufferObjects".into(), map.buffer_objects.into()));
            want.push(("NumDisplayLists".into(), map.display_lists.into()));
            want.push(("NumTextures".into(), map.textures.into()));
            want.push(("NumImageSlots".into(), IMAGE_SLOTS));
            want.push(("NumPrograms".into(), SHADER_SLOTS / 2));
            want.push(("NumMipLevels".into(), map.mip_levels.into()));
            want.push(("FirstListObj".into(), map.buffer_objects.into()));
            want.push(("ImageSlotBytes".into(), enc.image_slot_bytes));
            want.push(("InitBeforeLast".into(), init_clocks(&map) - 2));
            for (name, v) in want {
                assert_eq!(declared.get(&name), Some(&v), "{file}: {name}");
            }
        }
    }
}
