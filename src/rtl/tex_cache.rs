//! `tex_cache`: the texture cache unit (seed 001), rendered from `[tmu.cache]`. Its
//! structure (ports, banks, field positions, the bank mapping) is decided here; the
//! template spells it out. The model is `model::tex_cache`.

use std::collections::BTreeMap;

use askama::Template;

use super::handshake::{module_for, ram_fifo_module};
use super::{Ctx, MemPort, Module, RenderError, Rst, StreamPort, Unit, render};
use crate::config::{Replacement, StageKind, TexCache, TexLayout};
use crate::iface::field::{Field, describe, get, lsb_params, pack, width};
use crate::iface::fifo::FifoStorage;
pub use crate::iface::tex_cache::WORD_ADDR_BITS;
use crate::iface::tex_cache::{COUNT_W, CacheLayout, CachePipe, MergePipe, bank_check, log2};

/// Groups of lines between the merge stage and the expand stage: the tag unit holds at
/// most five requests (L1's two, LA, L2, RUN), so its input never waits on this FIFO.
const SIDE_DEPTH: u32 = 8;

/// A slot's line generation: 2 bits let three fills of one slot be in flight, so a miss
/// whose victim is still being filled rarely waits (a wider count costs flops per slot).
const GEN_BITS: u32 = 2;

/// A queued pass, lowest field first; the template's localparams are `Pass<Field>Lsb`.
/// Texel `i` of `ports` sits at `(ports - 1 - i) * tex_w` in the texel field, as
/// `{slot, word offset}`. `Fills` counts the line fills allocated while the pass was
/// built (at most one per texel: the pass pins what it uses).
pub fn pass_fields(ports: u32, tex_w: u32) -> Vec<Field> {
    pack(&[
        ("Texels", ports * tex_w),
        ("Mask", ports),
        ("Fills", clog2(ports + 1)),
        ("Misses", COUNT_W),
        ("Hits", COUNT_W),
        ("Last", 1),
    ])
}

/// The tag unit's request behind a merge stage, lowest field first: `tag_ports` word
/// addresses (one per distinct line, any of its texels' words), their active bits and
/// the invalidate bit, laid out as the cache's own request (`CacheLayout`); then whether
/// this is the request's first group of lines, and the request's active texels, which
/// the first group's hit count starts from.
pub fn tag_req_fields(tag_ports: u32) -> Vec<Field> {
    pack(&[
        ("Addrs", tag_ports * WORD_ADDR_BITS),
        ("Act", tag_ports),
        ("Inv", 1),
        ("First", 1),
        ("Count", COUNT_W),
    ])
}

/// What the merge stage tells the expand stage about a texel of a group: its word offset
/// in its line, the tag port that looks its line up, and whether it is in the group.
pub fn side_texel_fields(tag_ports: u32, off_w: u32) -> Vec<Field> {
    pack(&[("Off", off_w), ("Lead", log2(tag_ports)), ("In", 1)])
}

/// The merge stage's side word for a group, texel `i` at `i * side_tex_w`; `Final`: the
/// request's last group.
pub fn side_fields(ports: u32, side_tex_w: u32) -> Vec<Field> {
    pack(&[("Texels", ports * side_tex_w), ("Final", 1)])
}

/// Bits of a texel's bank round (0..ports-1) in a planned pass.
pub fn round_w(ports: u32) -> u32 {
    clog2(ports).max(1)
}

/// A planned pass ([`TexCachePlan`]), lowest field first: the pass, texel `i`'s round at
/// `i * round_w` in the round field, and `More` (bit k: more than k + 1 rounds).
pub fn plan_fields(ports: u32, pass_w: u32) -> Vec<Field> {
    pack(&[
        ("Pass", pass_w),
        ("Round", ports * round_w(ports)),
        ("More", ports),
    ])
}

/// `c[lo] + ... + c[lo + n - 1]` as a balanced tree, so that synthesis builds log2(n)
/// levels of adders rather than a chain of n; every sum is as wide as its largest value,
/// its operands zero-extended to it. Returns the expression and its width.
fn sum_tree(var: &str, lo: u32, n: u32) -> (String, u32) {
    if n == 1 {
        return (format!("{var}[{lo}]"), 1);
    }
    let half = n / 2;
    let (a, aw) = sum_tree(var, lo, half);
    let (b, bw) = sum_tree(var, lo + half, n - half);
    let w = clog2(n + 1);
    let pad = |e: String, from: u32| {
        if from < w {
            format!("{{{}'b0, {e}}}", w - from)
        } else {
            e
        }
    };
    (format!("({} + {})", pad(a, aw), pad(b, bw)), w)
}

/// A bank's share of a fill beat: its word of the beat, and the word's offset in the line
/// as a Verilog expression of the beat counter.
pub struct FillBank {
    pub bank: u32,
    pub bank_lit: String,
    pub word: u32,
    pub off: String,
}

/// Each bank's word of a beat. A beat's words land in distinct banks (the config checks
/// it), so the offset bits that pick a word within a beat are all bank bits, and each
/// bank takes the same word of every beat it takes.
fn fill_banks(c: &TexCache, bank_w: u32) -> Vec<FillBank> {
    let wpb = c.words_per_beat;
    let beats = (c.words_per_line / wpb).max(1);
    (0..c.banks)
        .map(|bank| {
            let word = (0..wpb)
                .find(|&j| (0..beats).any(|beat| c.bank(u64::from(beat * wpb + j) * 4) == bank))
                .expect("every bank holds words of a line");
            let off = if wpb == 1 {
                "fill_beat_q".to_string()
            } else {
                format!("{{fill_beat_q, {}'d{word}}}", log2(wpb))
            };
            FillBank {
                bank,
                bank_lit: format!("{}'d{bank}", bank_w.max(1)),
                word,
                off,
            }
        })
        .collect()
}

/// Responses the output queue holds at the least; stage 1 issues a completing read only
/// with a credit.
const OUT_DEPTH: u32 = 4;

/// The output queue's depth: a credit is out from its issue to the clock after the
/// response leaves the queue, two clocks more than the read takes (`ram_clocks`), so the
/// queue holds that many for one request a clock.
fn out_depth(pipe: &CachePipe) -> u32 {
    OUT_DEPTH.max(2 + pipe.ram_clocks())
}

/// The groups of loads the tag unit's advance enables, each with its own copies of the
/// flags behind it, and how many copies each takes: L1's output register, L2, RUN, and
/// with the lookup's tag copies LA's request and each texel's tag copies.
fn adv_groups(tag_copies: bool, ports: u32) -> Vec<(&'static str, u32)> {
    let mut g = vec![("AdvL1", 1), ("AdvL2", 1), ("AdvRun", 1)];
    if tag_copies {
        g.extend([("AdvLa", 1), ("AdvLaTag", ports)]);
    }
    g
}

/// A node of a set's pseudo-LRU tree (`replacement = "plru"`; nodes numbered as the model
/// numbers them: root 1, children 2n and 2n + 1): its bit, and the ways under its lower
/// half (`lo..=mid_lo`) and its upper half (`mid..=hi`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlruNode {
    pub bit: u32,
    pub lo: u32,
    pub mid_lo: u32,
    pub mid: u32,
    pub hi: u32,
}

pub fn plru_nodes(ways: u32) -> Vec<PlruNode> {
    (1..ways)
        .map(|n| {
            let depth = 31 - n.leading_zeros();
            let size = ways >> depth;
            let lo = (n - (1 << depth)) * size;
            PlruNode {
                bit: n - 1,
                lo,
                mid_lo: lo + size / 2 - 1,
                mid: lo + size / 2,
                hi: lo + size - 1,
            }
        })
        .collect()
}

/// Per way, the victim walk's turns that lead to it from the root, ANDed (`go_hi[bit]`:
/// the walk takes the node's upper half).
pub fn plru_paths(ways: u32) -> Vec<(u32, String)> {
    (0..ways)
        .map(|w| {
            let (mut node, mut lo, mut size) = (1, 0, ways);
            let mut turns = Vec::new();
            while size > 1 {
                size /= 2;
                let upper = w >= lo + size;
                turns.push(format!(
                    "{}go_hi[{}]",
                    if upper { "" } else { "!" },
                    node - 1
                ));
                node = 2 * node + u32::from(upper);
                lo += if upper { size } else { 0 };
            }
            (w, turns.join(" && "))
        })
        .collect()
}

fn clog2(x: u32) -> u32 {
    32 - (x.max(1) - 1).leading_zeros()
}

/// `{off[a], off[b], ...}` for the given bit positions, most significant first.
fn bits_expr(bits: &[u32]) -> String {
    named_bits_expr("off", bits)
}

/// `{v[a], v[b], ...}` for the given bit positions of `v`, most significant first.
fn named_bits_expr(v: &str, bits: &[u32]) -> String {
    let parts: Vec<String> = bits.iter().map(|b| format!("{v}[{b}]")).collect();
    format!("{{{}}}", parts.join(", "))
}

/// Where the read's stage 2 takes its enables, addresses and texel fields from: the
/// stage A registers where the addresses are registered (`CachePipe::addr_reg`), else
/// stage 1's logic as the round issues.
#[derive(Debug, Clone)]
pub struct ReadSrc {
    pub valid: &'static str,
    pub en: &'static str,
    pub addr: &'static str,
    pub complete: &'static str,
    pub serve: &'static str,
    pub hits: &'static str,
    pub misses: &'static str,
    pub class: &'static str,
    pub pt: &'static str,
    pub bank: &'static str,
}

impl ReadSrc {
    fn new(addr_reg: bool) -> Self {
        if addr_reg {
            Self {
                valid: "sa_valid_q",
                en: "sa_rd_en_q",
                addr: "sa_rd_addr_q",
                complete: "sa_complete_q",
                serve: "sa_serve_q",
                hits: "sa_hits_q",
                misses: "sa_misses_q",
                class: "sa_class_q",
                pt: "sa_pt_q",
                bank: "sa_bank_q",
            }
        } else {
            Self {
                valid: "issue",
                en: "rd_en",
                addr: "rd_addr",
                complete: "complete",
                serve: "serve",
                hits: "s1_hits",
                misses: "s1_misses",
                class: "s1_class",
                pt: "pt_q",
                bank: "s1_bank",
            }
        }
    }
}

/// The bank classes as the templates use them (`tex_cache_class_of.v`): a bank number's
/// class and index, and the bank of a class and an index.
#[derive(Debug, Clone, Default)]
pub struct ClassExprs {
    pub on: bool,
    pub class_expr: String,
    pub index_expr: String,
    pub index_w: u32,
    /// `{...}` of `c` (the class) and `q` (the index) bits: the bank number.
    pub join_expr: String,
}

impl ClassExprs {
    fn new(c: &TexCache) -> Self {
        let Some(cl) = c.bank_classes() else {
            return Self::default();
        };
        let bank_w = log2(c.banks);
        let n = cl.index_bits.len();
        let join: Vec<String> = (0..bank_w)
            .rev()
            .map(|k| match cl.class_bits.iter().position(|b| *b == k) {
                Some(pos) => format!("c[{}]", cl.class_bits.len() - 1 - pos),
                None => {
                    let pos = cl
                        .index_bits
                        .iter()
                        .position(|b| *b == k)
                        .expect("a bank bit is a class or an index bit");
                    format!("q[{}]", n - 1 - pos)
                }
            })
            .collect();
        Self {
            on: true,
            class_expr: named_bits_expr("b", &cl.class_bits),
            index_expr: named_bits_expr("b", &cl.index_bits),
            index_w: n as u32,
            join_expr: format!("{{{}}}", join.join(", ")),
        }
    }
}

#[derive(Template)]
#[template(path = "rtl/tex_cache_bank.v")]
pub struct TexCacheBank {
    pub name: String,
    pub width: u32,
    pub depth: u32,
    pub addr_w: u32,
    pub stamp: String,
    /// A second read register (the RAM's output register).
    pub out_reg: bool,
}

/// The tag unit's states, in the order of their encodings; `MPick` only where the
/// victim's checks take a clock of their own (`CachePipe::victim_pick`).
pub const TAG_STATES: [&str; 5] = ["MRun", "MSet", "MVict", "MAct", "MPick"];

#[derive(Template)]
#[template(path = "rtl/tex_cache_tags.v")]
pub struct TexCacheTags {
    pub name: String,
    /// The handshake skid register (L1).
    pub skid: String,
    pub stamp: String,
    pub rst: Rst,
    pub sets: u32,
    pub ways: u32,
    pub lines: u32,
    pub ports: u32,
    /// A way's tag array is flops, not RAM: every texel reads it (see `logic_array`).
    pub tag_logic: bool,
    /// Behind a merge stage: the request says whether it is its request's first group
    /// and how many texels the whole request has (`tag_req_fields`).
    pub merged: bool,
    pub req_first_lsb: u32,
    pub req_count_lsb: u32,
    pub max_ram_reads: u32,
    pub replacement: &'static str,
    /// The age matrix's touches on hits (LRU), the tree's (PLRU), and hits that touch a
    /// way under either.
    pub lru: bool,
    pub plru: bool,
    pub touch_hits: bool,
    pub plru_nodes: Vec<PlruNode>,
    pub plru_paths: Vec<(u32, String)>,
    /// A set's replacement state: the tree's bits or the age matrix's (names and width
    /// in the template: `<order>_q`, `s_<order>`, ...).
    pub order: &'static str,
    pub order_w: &'static str,
    pub order_reset: &'static str,
    pub aw: u32,
    pub off_w: u32,
    pub line_addr_w: u32,
    /// Bits of a set index and of a way index: at least one, so one set or one way still
    /// has a port to name (the rendered functions ignore the bit).
    pub set_idx_w: u32,
    pub way_idx_w: u32,
    pub tag_w: u32,
    pub slot_w: u32,
    pub gen_w: u32,
    pub req_w: u32,
    pub req_act_lsb: u32,
    pub req_inv_lsb: u32,
    pub count_w: u32,
    /// Bits of a pass's fill count (`Fills` in [`pass_fields`]).
    pub fills_w: u32,
    pub pass_w: u32,
    pub pass_fields: Vec<(String, u32)>,
    /// The request's active bits summed as a balanced tree, `count_w` bits wide.
    pub nact_sum: String,
    /// Age bits of a set: one per pair of ways; tree bits (PLRU): one per node.
    pub pair_w: u32,
    pub tree_w: u32,
    pub states: Vec<(String, u32)>,
    pub state_w: u32,
    /// M_PICK between M_VICT and M_ACT (`CachePipe::victim_pick`).
    pub pick: bool,
    /// The lookup in two clocks through tag copies (`CachePipe::tag_copies`), and the stage
    /// whose request L2 compares.
    pub tag_copies: bool,
    pub look_src: &'static str,
    /// Copies of the tag unit's advance flags, one per group of loads it enables, and
    /// each group's index (`adv_groups`).
    pub adv_copies: u32,
    pub adv_groups: Vec<(String, u32)>,
}

/// The read plan of a pass: which bank round reads each texel's word, worked out in two
/// clocks between the tag unit and the pass queue.
#[derive(Template)]
#[template(path = "rtl/tex_cache_plan.v")]
pub struct TexCachePlan {
    pub name: String,
    pub stamp: String,
    pub rst: Rst,
    pub ports: u32,
    pub off_w: u32,
    pub slot_w: u32,
    pub bank_w: u32,
    pub idx_w: u32,
    pub bank_expr: String,
    pub pass_w: u32,
    pub pass_texels_lsb: u32,
    pub pass_mask_lsb: u32,
    pub round_w: u32,
    /// Candidate bits of a texel's round: every texel but the last.
    pub cand_w: u32,
    pub plan_w: u32,
    pub plan_fields: Vec<(String, u32)>,
    pub plan_layout: String,
    /// A texel's round: its candidate bits summed as a balanced tree.
    pub round_sum: String,
    /// The banks' parity classes, when a class holds several banks.
    pub cls: ClassExprs,
}

/// The merge stage: a request's texels folded onto their distinct lines, which leave
/// `tag_ports` at a time as the tag unit's requests, each with a side word for the
/// expand stage.
#[derive(Template)]
#[template(path = "rtl/tex_cache_merge.v")]
pub struct TexCacheMerge {
    pub name: String,
    pub skid: String,
    pub stamp: String,
    pub rst: Rst,
    pub target_mhz: String,
    pub ports: u32,
    pub tag_ports: u32,
    pub aw: u32,
    pub off_w: u32,
    pub line_addr_w: u32,
    pub count_w: u32,
    /// Bits of a line's rank among a request's lines (0..ports-1), of the tag port
    /// within a group, and of the group.
    pub rank_w: u32,
    pub lead_w: u32,
    pub group_w: u32,
    pub req_w: u32,
    pub req_act_lsb: u32,
    pub req_inv_lsb: u32,
    pub treq_w: u32,
    pub treq_fields: Vec<(String, u32)>,
    pub side_w: u32,
    pub side_tex_w: u32,
    pub side_fields: Vec<(String, u32)>,
    pub side_tex_fields: Vec<(String, u32)>,
    /// Pairs of texels (j < i): the compare words' width.
    pub pair_w: u32,
    /// Registers after the eq, lead and count stages (`MergePipe`).
    pub reg_eq: bool,
    pub reg_lead: bool,
    pub reg_count: bool,
    /// Per texel i > 0: i, the lsb of its row in the pair words, and the count of its
    /// row's bits (`c`) as an adder tree.
    pub rank_sums: Vec<(u32, u32, String)>,
    /// The request's active texels and its distinct lines, counted.
    pub nact_sum: String,
    pub ndist_sum: String,
    /// Never: the merge's stages are skids (the macro in `hs_stage.v` asks).
    pub credits: bool,
}

/// The expand stage: the tag unit's pass over a group's lines, back to the request's
/// texels (each takes its line's slot and its own offset).
#[derive(Template)]
#[template(path = "rtl/tex_cache_expand.v")]
pub struct TexCacheExpand {
    pub name: String,
    pub stamp: String,
    pub ports: u32,
    pub tag_ports: u32,
    pub off_w: u32,
    pub slot_w: u32,
    pub lead_w: u32,
    pub count_w: u32,
    pub kpass_w: u32,
    pub kpass_fields: Vec<(String, u32)>,
    pub kfills_w: u32,
    pub pass_w: u32,
    pub pass_fields: Vec<(String, u32)>,
    pub fills_w: u32,
    pub side_w: u32,
    pub side_tex_w: u32,
    pub side_fields: Vec<(String, u32)>,
    pub side_tex_fields: Vec<(String, u32)>,
}

#[derive(Template)]
#[template(path = "rtl/tex_cache.v")]
pub struct TexCacheTop {
    /// The design-wide naming and reset, for the handshake modules it renders.
    pub ctx: Ctx,
    /// The validated cache, for the merge and expand stages.
    pub cache: TexCache,
    pub name: String,
    pub stamp: String,
    pub rst: Rst,
    pub skid: String,
    pub fifo: String,
    /// The pass queue's block: `hs_ram_fifo` when it is deep (iface::fifo).
    pub queue_fifo: String,
    pub bank_module: String,
    pub tags_module: String,
    pub plan_module: String,
    /// A merge stage in front of the tag unit and an expand stage behind it
    /// (`TexCache::merges`), the tag unit's ports, and the words between them.
    pub merges: bool,
    pub tag_ports: u32,
    pub merge_module: String,
    pub expand_module: String,
    pub treq_w: u32,
    pub kpass_w: u32,
    pub side_w: u32,
    /// Groups in flight between the merge and expand stages: the side FIFO's depth.
    pub side_depth: u32,
    pub kpass_last_lsb: u32,
    /// Registers of the merge stage a request passes (without one: 1, the input
    /// register).
    pub merge_regs: u32,
    /// Registers a request passes on hits, from its input to its response queue.
    pub hit_regs: u32,
    /// Bits of a texel's bank round; a planned pass's width and fields.
    pub round_w: u32,
    pub plan_w: u32,
    pub plan_fields: Vec<(String, u32)>,
    /// The banks' output register, from the clock schedule; the stage that collects data.
    pub ram_out_reg: bool,
    /// The tag lookup's copies, from the clock schedule (`CachePipe::tag_copies`).
    pub tag_copies: bool,
    /// The victim's checks in M_PICK (`CachePipe::victim_pick`).
    pub victim_pick: bool,
    /// The banks' read addresses registered (`CachePipe::addr_reg`), and where stage 2
    /// takes its fields from.
    pub addr_reg: bool,
    pub rd: ReadSrc,
    pub ram_clocks: u32,
    pub collect: &'static str,
    pub data_stages: &'static str,
    pub target_mhz: String,
    pub size_bytes: u32,
    pub line_bytes: u32,
    pub sets: u32,
    pub ways: u32,
    pub lines: u32,
    pub banks: u32,
    pub ports: u32,
    pub mshr: u32,
    /// The MSHR slot array is flops, not RAM: read at the head and by every entry.
    pub mshr_slot_logic: bool,
    pub bus_bits: u32,
    pub beats: u32,
    pub queue_depth: u32,
    pub replacement: &'static str,
    pub layout: &'static str,
    pub lru: bool,
    pub plru: bool,
    pub aw: u32,
    pub off_w: u32,
    pub set_w: u32,
    pub line_addr_w: u32,
    pub tag_w: u32,
    pub slot_w: u32,
    pub bank_w: u32,
    pub idx_w: u32,
    pub bank_addr_w: u32,
    pub bank_depth: u32,
    /// A texel word.
    pub word_w: u32,
    pub beat_w: u32,
    pub pass_w: u32,
    /// Bits of the hit and miss counts ([`COUNT_W`]).
    pub count_w: u32,
    /// Bits of a slot's line generation, and the fills one slot may have in flight.
    pub gen_w: u32,
    pub max_pending: u32,
    /// Bits of a pass's fill count (`Fills` in [`pass_fields`]).
    pub fills_w: u32,
    pub req_w: u32,
    pub rsp_w: u32,
    /// Request fields: texel 0's active bit and the invalidate bit.
    pub req_act_lsb: u32,
    pub req_inv_lsb: u32,
    /// A queued pass's fields, lowest first: (localparam name, lsb).
    pub pass_fields: Vec<(String, u32)>,
    pub bank_expr: String,
    pub idx_expr: String,
    /// The banks' parity classes, when a class holds several banks: each lane reads a
    /// class through a port of its own.
    pub cls: ClassExprs,
    pub slot_base: String,
    pub slot_base_m: String,
    /// Which word of a beat each bank takes.
    pub fill_banks: Vec<FillBank>,
    /// Depth of the response queue, and the bits of stage 1's credit count for it.
    pub out_depth: u32,
    pub credit_w: u32,
    pub port_list: Vec<u32>,
    pub port_list_rev: Vec<u32>,
    /// The bank check's result: clocks of the worst 2x2 footprint, and the request bound.
    pub footprint_clocks: u32,
    pub request_bound: u32,
    pub footprints_checked: u64,
}

impl TexCacheTop {
    pub fn new(ctx: &Ctx, c: &TexCache) -> Self {
        let off_w = log2(c.words_per_line);
        let set_w = log2(c.sets);
        let slot_w = log2(c.lines);
        let bank_w = log2(c.banks);
        let idx_w = off_w - bank_w;
        let line_addr_w = WORD_ADDR_BITS - off_w;
        let pass = pass_fields(c.ports, slot_w + off_w);
        let plan = plan_fields(c.ports, width(&pass));
        // The fill count's width, as the pass layout gives it.
        let fills_w = pass
            .iter()
            .find(|f| f.name == "Fills")
            .expect("the pass layout has a fill count")
            .width;
        // Bank bits of a word offset, most significant first: the config's mapping.
        let bank_bits: Vec<u32> = (0..bank_w).rev().map(|k| c.bank_bit(k)).collect();
        let idx_bits: Vec<u32> = (0..off_w)
            .rev()
            .filter(|b| !bank_bits.contains(b))
            .collect();
        let slot_base = |v: &str| {
            if c.sets == 1 {
                "0".to_string()
            } else {
                format!("t_line[{v}][SetW-1:0] * Ways")
            }
        };
        let check = bank_check(c);
        let io = CacheLayout::new(c);
        let pipe = CachePipe::new(c, &ctx.timing);
        let merge = MergePipe::new(c, &ctx.timing);
        // With a merge stage its first register is the input register.
        let merge_regs = if c.merges() { merge.latency() } else { 1 };
        let kpass = pass_fields(c.tag_ports, slot_w + off_w);
        let side = side_fields(c.ports, width(&side_texel_fields(c.tag_ports, off_w)));
        Self {
            ctx: ctx.clone(),
            cache: c.clone(),
            footprint_clocks: check.footprint_clocks,
            request_bound: check.request_bound,
            footprints_checked: check.footprints,
            name: ctx.module_name("tex_cache"),
            stamp: ctx.stamp.clone(),
            rst: ctx.rst.clone(),
            skid: ctx.module_name("hs_skid"),
            fifo: ctx.module_name("hs_fifo"),
            queue_fifo: ctx.module_name(FifoStorage::of(c.queue_depth).block()),
            bank_module: ctx.module_name("tex_cache_bank"),
            tags_module: ctx.module_name("tex_cache_tags"),
            plan_module: ctx.module_name("tex_cache_plan"),
            merges: c.merges(),
            tag_ports: c.tag_ports,
            merge_module: ctx.module_name("tex_cache_merge"),
            expand_module: ctx.module_name("tex_cache_expand"),
            treq_w: width(&tag_req_fields(c.tag_ports)),
            kpass_w: width(&kpass),
            side_w: width(&side),
            side_depth: SIDE_DEPTH,
            kpass_last_lsb: get(&kpass, "Last").lsb,
            merge_regs,
            // input, L1, (LA,) L2, RUN, pass skid, plan A and B, queue, pass skid, s1, the
            // RAM's reads, the response queue.
            hit_regs: 9 + merge_regs + pipe.tag_clocks() + pipe.ram_clocks(),
            round_w: round_w(c.ports),
            plan_w: width(&plan),
            plan_fields: lsb_params("Plan", &plan),
            ram_out_reg: pipe.ram_out_reg,
            tag_copies: pipe.tag_copies,
            victim_pick: pipe.victim_pick,
            addr_reg: pipe.addr_reg,
            rd: ReadSrc::new(pipe.addr_reg),
            ram_clocks: pipe.ram_clocks(),
            collect: if pipe.ram_out_reg { "s3" } else { "s2" },
            data_stages: match (pipe.addr_reg, pipe.ram_out_reg) {
                (true, true) => "sA, s2, s3",
                (true, false) => "sA, s2",
                (false, true) => "s2, s3",
                (false, false) => "s2",
            },
            target_mhz: format!("{}", ctx.timing.target_mhz),
            size_bytes: c.size_bytes,
            line_bytes: c.line_bytes,
            sets: c.sets,
            ways: c.ways,
            lines: c.lines,
            banks: c.banks,
            ports: c.ports,
            mshr: c.mshr_entries,
            mshr_slot_logic: super::logic_array(c.mshr_entries + 1),
            bus_bits: c.bus_bits,
            beats: c.beats_per_line,
            queue_depth: c.queue_depth,
            replacement: match c.replacement {
                Replacement::Lru => "LRU",
                Replacement::Fifo => "FIFO",
                Replacement::Plru => "tree pseudo-LRU",
            },
            layout: match c.layout {
                TexLayout::Linear => "linear",
                TexLayout::Tiled4x4 => "4x4-tiled",
            },
            lru: c.replacement == Replacement::Lru,
            plru: c.replacement == Replacement::Plru,
            aw: WORD_ADDR_BITS,
            off_w,
            set_w,
            line_addr_w,
            tag_w: line_addr_w - set_w,
            slot_w,
            bank_w,
            idx_w,
            bank_addr_w: slot_w + idx_w,
            bank_depth: c.lines << idx_w,
            word_w: 32,
            beat_w: log2(c.beats_per_line),
            count_w: COUNT_W,
            pass_w: width(&pass),
            gen_w: GEN_BITS,
            max_pending: (1 << GEN_BITS) - 1,
            fills_w,
            req_w: io.req_w,
            rsp_w: io.rsp_w,
            req_act_lsb: io.act_lsb(0),
            req_inv_lsb: io.inv_lsb(),
            pass_fields: lsb_params("Pass", &pass),
            bank_expr: bits_expr(&bank_bits),
            idx_expr: bits_expr(&idx_bits),
            cls: ClassExprs::new(c),
            slot_base: slot_base("i"),
            slot_base_m: slot_base("m"),
            fill_banks: fill_banks(c, bank_w),
            out_depth: out_depth(&pipe),
            credit_w: clog2(out_depth(&pipe) + 1),
            port_list: (0..c.ports).collect(),
            port_list_rev: (0..c.ports).rev().collect(),
        }
    }

    /// The tag unit of this cache: `tag_ports` ports, behind the merge stage when there
    /// is one.
    fn tags(&self) -> TexCacheTags {
        let k = self.tag_ports;
        let pass = pass_fields(k, self.slot_w + self.off_w);
        let treq = tag_req_fields(k);
        let (req_w, act_lsb, inv_lsb) = if self.merges {
            (width(&treq), get(&treq, "Act").lsb, get(&treq, "Inv").lsb)
        } else {
            (self.req_w, self.req_act_lsb, self.req_inv_lsb)
        };
        TexCacheTags {
            name: self.tags_module.clone(),
            skid: self.skid.clone(),
            stamp: self.stamp.clone(),
            rst: self.rst.clone(),
            sets: self.sets,
            ways: self.ways,
            lines: self.lines,
            ports: k,
            tag_logic: super::logic_array(k),
            merged: self.merges,
            req_first_lsb: get(&treq, "First").lsb,
            req_count_lsb: get(&treq, "Count").lsb,
            max_ram_reads: super::MAX_RAM_READS,
            replacement: self.replacement,
            // One way has no order to keep.
            lru: self.lru && self.ways > 1,
            plru: self.plru && self.ways > 1,
            touch_hits: (self.lru || self.plru) && self.ways > 1,
            plru_nodes: plru_nodes(self.ways),
            plru_paths: plru_paths(self.ways),
            order: if self.plru { "tree" } else { "age" },
            order_w: if self.plru { "TreeW" } else { "PairW" },
            order_reset: if self.plru { "TreeReset" } else { "AgeReset" },
            aw: self.aw,
            off_w: self.off_w,
            line_addr_w: self.line_addr_w,
            set_idx_w: self.set_w.max(1),
            way_idx_w: log2(self.ways).max(1),
            tag_w: self.tag_w,
            slot_w: self.slot_w,
            gen_w: self.gen_w,
            req_w,
            req_act_lsb: act_lsb,
            req_inv_lsb: inv_lsb,
            count_w: self.count_w,
            fills_w: get(&pass, "Fills").width,
            pass_w: width(&pass),
            pass_fields: lsb_params("Pass", &pass),
            nact_sum: {
                let (sum, w) = sum_tree("src_data", act_lsb, k);
                format!("{{{}'b0, {sum}}}", self.count_w - w)
            },
            pair_w: (self.ways * (self.ways - 1) / 2).max(1),
            tree_w: (self.ways - 1).max(1),
            states: TAG_STATES
                .iter()
                .zip(0u32..)
                .filter(|(n, _)| self.victim_pick || **n != "MPick")
                .map(|(n, v)| (n.to_string(), v))
                .collect(),
            state_w: clog2(TAG_STATES.len() as u32 - u32::from(!self.victim_pick)),
            pick: self.victim_pick,
            tag_copies: self.tag_copies,
            look_src: if self.tag_copies { "LA" } else { "L1" },
            adv_copies: adv_groups(self.tag_copies, k).iter().map(|g| g.1).sum(),
            adv_groups: {
                let mut at = 0;
                adv_groups(self.tag_copies, k)
                    .into_iter()
                    .map(|(name, n)| {
                        at += n;
                        (name.to_string(), at - n)
                    })
                    .collect()
            },
        }
    }

    /// The merge stage in front of the tag unit.
    fn merge(&self, pipe: &MergePipe) -> TexCacheMerge {
        let c = &self.cache;
        let treq = tag_req_fields(c.tag_ports);
        let stex = side_texel_fields(c.tag_ports, self.off_w);
        let side = side_fields(c.ports, width(&stex));
        let rank_w = log2(c.ports);
        let lead_w = log2(c.tag_ports);
        let sum = |var: &str, lo: u32, n: u32, w: u32| {
            let (e, ew) = sum_tree(var, lo, n);
            if ew < w {
                format!("{{{}'b0, {e}}}", w - ew)
            } else {
                e
            }
        };
        TexCacheMerge {
            credits: false,
            name: self.merge_module.clone(),
            skid: self.skid.clone(),
            stamp: self.stamp.clone(),
            rst: self.rst.clone(),
            target_mhz: self.target_mhz.clone(),
            ports: c.ports,
            tag_ports: c.tag_ports,
            aw: self.aw,
            off_w: self.off_w,
            line_addr_w: self.line_addr_w,
            count_w: self.count_w,
            rank_w,
            lead_w,
            group_w: rank_w - lead_w,
            req_w: self.req_w,
            req_act_lsb: self.req_act_lsb,
            req_inv_lsb: self.req_inv_lsb,
            treq_w: width(&treq),
            treq_fields: lsb_params("TReq", &treq),
            side_w: width(&side),
            side_tex_w: width(&stex),
            side_fields: lsb_params("Side", &side),
            side_tex_fields: lsb_params("SideTex", &stex),
            pair_w: c.ports * (c.ports - 1) / 2,
            reg_eq: pipe.regs[0],
            reg_lead: pipe.regs[1],
            reg_count: pipe.regs[2],
            // Texel i's count has i bits (its row below the diagonal), as wide as a rank.
            rank_sums: (1..c.ports)
                .map(|i| (i, i * (i - 1) / 2, sum("c", 0, i, rank_w)))
                .collect(),
            nact_sum: sum("a", 0, c.ports, self.count_w),
            ndist_sum: sum("l", 0, c.ports, rank_w + 1),
        }
    }

    /// The expand stage behind the tag unit.
    fn expand(&self) -> TexCacheExpand {
        let c = &self.cache;
        let kpass = pass_fields(c.tag_ports, self.slot_w + self.off_w);
        let stex = side_texel_fields(c.tag_ports, self.off_w);
        let side = side_fields(c.ports, width(&stex));
        TexCacheExpand {
            name: self.expand_module.clone(),
            stamp: self.stamp.clone(),
            ports: c.ports,
            tag_ports: c.tag_ports,
            off_w: self.off_w,
            slot_w: self.slot_w,
            lead_w: log2(c.tag_ports),
            count_w: self.count_w,
            kpass_w: width(&kpass),
            kpass_fields: lsb_params("KPass", &kpass),
            kfills_w: get(&kpass, "Fills").width,
            pass_w: self.pass_w,
            pass_fields: self.pass_fields.clone(),
            fills_w: self.fills_w,
            side_w: width(&side),
            side_tex_w: width(&stex),
            side_fields: lsb_params("Side", &side),
            side_tex_fields: lsb_params("SideTex", &stex),
        }
    }

    /// The read plan of this cache's passes.
    fn plan(&self) -> TexCachePlan {
        let pass = pass_fields(self.ports, self.slot_w + self.off_w);
        let plan = plan_fields(self.ports, self.pass_w);
        TexCachePlan {
            name: self.plan_module.clone(),
            stamp: self.stamp.clone(),
            rst: self.rst.clone(),
            ports: self.ports,
            off_w: self.off_w,
            slot_w: self.slot_w,
            bank_w: self.bank_w,
            idx_w: self.idx_w,
            bank_expr: self.bank_expr.clone(),
            pass_w: self.pass_w,
            pass_texels_lsb: get(&pass, "Texels").lsb,
            pass_mask_lsb: get(&pass, "Mask").lsb,
            round_w: self.round_w,
            plan_w: self.plan_w,
            plan_fields: lsb_params("Plan", &plan),
            plan_layout: describe(&plan),
            cand_w: (self.ports - 1).max(1),
            round_sum: sum_tree("c", 0, (self.ports - 1).max(1)).0,
            cls: self.cls.clone(),
        }
    }

    /// Renders the cache, its bank RAM and the handshake modules it uses.
    pub fn elaborate(&self) -> Result<(Unit, Vec<Module>), RenderError> {
        let ctx = &self.ctx;
        let mut modules = Vec::new();
        for kind in [StageKind::Skid, StageKind::Fifo { depth: 4 }] {
            if let Some(m) = module_for(ctx, kind, 32)? {
                modules.push(m);
            }
        }
        if FifoStorage::of(self.queue_depth) == FifoStorage::Ram {
            modules.push(ram_fifo_module(ctx)?);
        }
        let bank = TexCacheBank {
            name: self.bank_module.clone(),
            width: 32,
            depth: self.bank_depth,
            addr_w: self.bank_addr_w,
            stamp: self.stamp.clone(),
            out_reg: self.ram_out_reg,
        };
        modules.push(Module {
            name: bank.name.clone(),
            kind: "tex_cache_bank",
            parameters: BTreeMap::from([
                ("Width".to_string(), 32),
                ("Depth".to_string(), u64::from(bank.depth)),
                ("AddrW".to_string(), u64::from(bank.addr_w)),
            ]),
            instantiates: Vec::new(),
            text: render(&bank.name, &bank)?,
        });
        let plan = self.plan();
        modules.push(Module {
            name: plan.name.clone(),
            kind: "tex_cache_plan",
            parameters: BTreeMap::from([
                ("PassW".to_string(), u64::from(plan.pass_w)),
                ("PlanW".to_string(), u64::from(plan.plan_w)),
            ]),
            instantiates: Vec::new(),
            text: render(&plan.name, &plan)?,
        });
        let tags = self.tags();
        modules.push(Module {
            name: tags.name.clone(),
            kind: "tex_cache_tags",
            parameters: BTreeMap::from([("GenW".to_string(), u64::from(tags.gen_w))]),
            instantiates: Vec::new(),
            text: render(&tags.name, &tags)?,
        });
        if self.merges {
            let merge = self.merge(&MergePipe::new(&self.cache, &ctx.timing));
            modules.push(Module {
                name: merge.name.clone(),
                kind: "tex_cache_merge",
                parameters: BTreeMap::new(),
                instantiates: Vec::new(),
                text: render(&merge.name, &merge)?,
            });
            let expand = self.expand();
            modules.push(Module {
                name: expand.name.clone(),
                kind: "tex_cache_expand",
                parameters: BTreeMap::new(),
                instantiates: Vec::new(),
                text: render(&expand.name, &expand)?,
            });
        }
        let mut instantiates: Vec<String> = modules.iter().map(|m| m.name.clone()).collect();
        instantiates.sort();
        modules.push(Module {
            name: self.name.clone(),
            kind: "tex_cache",
            parameters: BTreeMap::from([
                ("QueueDepth".to_string(), u64::from(self.queue_depth)),
                ("MshrEntries".to_string(), u64::from(self.mshr)),
            ]),
            instantiates,
            text: render(&self.name, self)?,
        });
        let unit = Unit {
            name: "tex_cache",
            top: self.name.clone(),
            modules: modules.iter().map(|m| m.name.clone()).collect(),
            ports: StreamPort::req_rsp(self.req_w, self.rsp_w),
            mem_ports: vec![MemPort {
                name: "mem".into(),
                addr_width: 32,
                data_width: self.bus_bits,
                beats: self.beats,
            }],
            // Filled in from the rendered hierarchy (rtl::stages) once the design is whole.
            stages: Vec::new(),
            probes: Vec::new(),
        };
        Ok((unit, modules))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Evaluates a rendered sum: `{k'b0, e}`, `(a + b)` and `c[i]` over the bits of `c`.
    fn eval(e: &str, c: u64) -> u64 {
        let e = e.trim();
        if let Some(inner) = e.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
            let (a, b) = split_top(inner, '+');
            return eval(a, c) + eval(b, c);
        }
        if let Some(inner) = e.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
            let (_, v) = split_top(inner, ',');
            return eval(v, c);
        }
        let i: u32 = e
            .strip_prefix("c[")
            .and_then(|r| r.strip_suffix(']'))
            .and_then(|r| r.parse().ok())
            .unwrap_or_else(|| panic!("not a bit: {e}"));
        (c >> i) & 1
    }

    /// `s` split at the first `sep` outside brackets.
    fn split_top(s: &str, sep: char) -> (&str, &str) {
        let mut depth = 0i32;
        for (k, ch) in s.char_indices() {
            match ch {
                '(' | '{' | '[' => depth += 1,
                ')' | '}' | ']' => depth -= 1,
                _ if ch == sep && depth == 0 => return (&s[..k], &s[k + 1..]),
                _ => {}
            }
        }
        panic!("no {sep} in {s}")
    }

    #[test]
    fn the_adder_tree_counts_every_input_and_is_as_wide_as_its_largest_sum() {
        for n in 1..=12u32 {
            let (e, w) = sum_tree("c", 0, n);
            assert_eq!(w, clog2(n + 1), "width of {n} bits");
            for c in 0..(1u64 << n) {
                assert_eq!(
                    eval(&e, c),
                    u64::from(c.count_ones()),
                    "{n} bits, {c:#b}: {e}"
                );
            }
            // Balanced: as many levels of adders as the bits need, not a chain of n.
            let nest = e
                .chars()
                .scan(0i32, |d, ch| {
                    *d += match ch {
                        '(' => 1,
                        ')' => -1,
                        _ => 0,
                    };
                    Some(*d)
                })
                .max()
                .unwrap_or(0);
            assert_eq!(nest as u32, clog2(n), "{n} bits nest {nest} deep: {e}");
        }
    }
}
