//! The contract of the texture cache: what its RTL and its model agree on. The request
//! and response words, the width of a texel address, and the bank check that both the
//! header comment and `gpurtl` report. The bank mapping itself is
//! [`TexCache::bank_bit`] in the config, since validation needs it; the RTL renders its
//! `bank_of` from that function and tests/tex_cache.rs runs both over every word offset.

use crate::config::TexCache;
use crate::iface::timing::{Op, Timing};

/// Texel addresses in a request are word addresses of this many bits (32-bit bytes >> 2).
pub const WORD_ADDR_BITS: u32 = 30;

/// A hit or miss count in a response: 8 bits each.
pub const COUNT_W: u32 = 8;

/// Where the fields of a request and a response lie (texel 0 lowest):
/// request `{inv, active[ports], word address[ports] x WORD_ADDR_BITS}`,
/// response `{misses[8], hits[8], texel word[ports] x 32}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheLayout {
    pub ports: u32,
    pub req_w: u32,
    pub rsp_w: u32,
}

impl CacheLayout {
    pub fn new(cfg: &TexCache) -> Self {
        let p = cfg.ports;
        Self {
            ports: p,
            req_w: p * WORD_ADDR_BITS + p + 1,
            rsp_w: p * 32 + 2 * COUNT_W,
        }
    }

    /// Texel `i`'s word address.
    pub fn addr_lsb(&self, i: u32) -> u32 {
        i * WORD_ADDR_BITS
    }

    /// Texel `i`'s active bit.
    pub fn act_lsb(&self, i: u32) -> u32 {
        self.ports * WORD_ADDR_BITS + i
    }

    /// The invalidate bit (the request's top bit).
    pub fn inv_lsb(&self) -> u32 {
        self.req_w - 1
    }

    /// Texel `i`'s word in a response.
    pub fn word_lsb(&self, i: u32) -> u32 {
        i * 32
    }

    pub fn hits_lsb(&self) -> u32 {
        self.ports * 32
    }

    pub fn misses_lsb(&self) -> u32 {
        self.ports * 32 + COUNT_W
    }
}

/// Data-stage clocks for one request's texels: the most distinct words any bank holds
/// (at least one clock). With bank classes ([`TexCache::bank_classes`]) a request whose
/// lane of four texels asks two banks of one class is read a class at a time: the most
/// distinct words any class holds.
pub fn bank_clocks(cfg: &TexCache, texels: &[Option<u64>]) -> u32 {
    let mut words: Vec<u64> = texels.iter().flatten().map(|a| a >> 2).collect();
    words.sort_unstable();
    words.dedup();
    let by_class = class_conflict(cfg, texels);
    let mut per_key = vec![0u32; cfg.banks as usize];
    for w in words {
        let key = match cfg.bank_class(w << 2) {
            Some((class, _)) if by_class => class,
            _ => cfg.bank(w << 2),
        };
        per_key[key as usize] += 1;
    }
    per_key.into_iter().max().unwrap_or(0).max(1)
}

/// Whether some lane of four texels asks two banks of one parity class (the RTL's plan
/// then counts rounds per class, not per bank). Never without bank classes.
pub fn class_conflict(cfg: &TexCache, texels: &[Option<u64>]) -> bool {
    texels.chunks(4).any(|lane| {
        let classes: Vec<(u32, u32)> = lane
            .iter()
            .flatten()
            .filter_map(|a| cfg.bank_class(*a))
            .collect();
        classes
            .iter()
            .enumerate()
            .any(|(i, a)| classes[..i].iter().any(|b| a.0 == b.0 && a.1 != b.1))
    })
}

/// The result of checking the bank mapping against every 2x2 footprint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BankCheck {
    /// Worst data-stage clocks of a single 2x2 footprint (1 means conflict free).
    pub footprint_clocks: u32,
    /// Upper bound on the clocks of a full request: its `ports / 4` footprints, each
    /// adding at most `footprint_clocks` words to any bank.
    pub request_bound: u32,
    /// Footprints examined.
    pub footprints: u64,
}

/// Checks every 2x2 footprint, at every position, with every wrap mode, on every mip
/// level of square and oblong textures, against the configured bank mapping.
pub fn bank_check(cfg: &TexCache) -> BankCheck {
    use crate::workload::{Texture, Wrap, texel_address, wrap};
    let wraps = [Wrap::Repeat, Wrap::ClampToEdge, Wrap::MirroredRepeat];
    let mut worst = 0;
    let mut footprints = 0;
    for (lw, lh) in [(5, 5), (5, 1), (1, 5), (3, 0), (0, 0)] {
        let tex = Texture::new(crate::workload::TEXTURE_BASE, lw, lh, 4);
        for level in 0..tex.levels {
            let (w, h) = (tex.level_width(level), tex.level_height(level));
            for ws in wraps {
                for wt in wraps {
                    // i0 runs one past each edge, so i0 + 1 wraps at both ends.
                    for j in -1..=i64::from(h) {
                        for i in -1..=i64::from(w) {
                            let us = [wrap(i, w, ws), wrap(i + 1, w, ws)];
                            let vs = [wrap(j, h, wt), wrap(j + 1, h, wt)];
                            let texels: Vec<Option<u64>> = vs
                                .iter()
                                .flat_map(|v| us.iter().map(move |u| (*u, *v)))
                                .map(|(u, v)| Some(texel_address(&tex, cfg.layout, level, u, v)))
                                .collect();
                            worst = worst.max(bank_clocks(cfg, &texels));
                            footprints += 1;
                        }
                    }
                }
            }
        }
    }
    BankCheck {
        footprint_clocks: worst,
        request_bound: worst * (cfg.ports / 4),
        footprints,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{CacheSection, Replacement, TexLayout};

    fn cache(banks: u32, ports: u32, layout: TexLayout) -> TexCache {
        let section = CacheSection {
            size_bytes: 16384,
            line_bytes: 256,
            ways: 64,
            banks,
            ports,
            mshr_entries: 8,
            replacement: Replacement::Lru,
            bus_bits: if banks == 4 { 64 } else { 128 },
            layout,
            queue_depth: 64,
            tag_ports: None,
        };
        section.validate(&mut Vec::new()).expect("valid cache")
    }

    #[test]
    fn tiled_layout_makes_every_footprint_conflict_free() {
        for banks in [4, 16] {
            let c = bank_check(&cache(banks, 16, TexLayout::Tiled4x4));
            assert_eq!(c.footprint_clocks, 1, "{banks} banks");
            assert!(c.footprints > 10_000);
        }
    }

    #[test]
    fn linear_layout_can_put_vertical_neighbours_in_one_bank() {
        let c = bank_check(&cache(4, 4, TexLayout::Linear));
        assert_eq!(c.footprint_clocks, 2);
    }

    #[test]
    fn bank_clocks_count_distinct_words_per_bank() {
        let c = cache(4, 4, TexLayout::Linear);
        // Words 0 and 4 share bank 0 in the linear mapping; a repeated word costs nothing.
        assert_eq!(bank_clocks(&c, &[Some(0), Some(16), Some(0), None]), 2);
        assert_eq!(bank_clocks(&c, &[Some(0), Some(4), Some(8), Some(12)]), 1);
    }

    #[test]
    fn a_lane_asking_two_banks_of_one_class_is_read_a_class_at_a_time() {
        let c = cache(16, 8, TexLayout::Tiled4x4);
        assert!(c.bank_classes().is_some());
        assert!(cache(4, 8, TexLayout::Tiled4x4).bank_classes().is_none());
        assert!(cache(16, 8, TexLayout::Linear).bank_classes().is_none());
        // In a 4x4 tile, word v * 4 + u is bank v * 4 + u; its class is (v & 1, u & 1).
        let w = |u: u64, v: u64| Some((v * 4 + u) * 4);
        let foot = [w(1, 1), w(2, 1), w(1, 2), w(2, 2)];
        assert_eq!(c.bank_class(6 * 4), Some((0b10, 0b01)));
        assert!(!class_conflict(&c, &foot));
        // Two footprints in two lanes: each bank holds one word, one clock.
        let two = [foot, [w(0, 0), w(1, 0), w(0, 1), w(1, 1)]].concat();
        assert!(!class_conflict(&c, &two));
        assert_eq!(bank_clocks(&c, &two), 1);
        // Lane 1 asks banks 0 and 2, both of class (0, 0): the pass is read a class at a
        // time, and class (0, 0) holds three words (lane 0's (2, 2) and lane 1's two).
        let split = [foot, [w(0, 0), w(2, 0), None, None]].concat();
        assert!(class_conflict(&c, &split));
        assert_eq!(bank_clocks(&c, &split), 3);
        // The same texels in different lanes are no conflict: one word a bank.
        let apart = [
            foot,
            [w(0, 0), None, None, None],
            [w(2, 0), None, None, None],
        ]
        .concat();
        assert!(!class_conflict(&c, &apart));
        assert_eq!(bank_clocks(&c, &apart), 1);
    }

    #[test]
    fn the_tag_lookup_takes_two_clocks_only_at_a_fast_clock_with_a_ram_and_small_copies() {
        use crate::config::{ClockSection, Family};
        let at = |mhz: f64| {
            Timing::new(&ClockSection {
                family: Family::Ecp5,
                target_mhz: mhz,
            })
        };
        // 22-bit tags: eleven pair compares, then three and one four-input ANDs.
        assert_eq!(eq_levels(22), 3);
        assert_eq!(eq_levels(2), 1);
        // The embedded default: 16 sets of 4 ways, 4 texels, 368 copy bits.
        let default = crate::config::load(None)
            .expect("embedded default")
            .tmu
            .expect("tmu")
            .cache;
        assert!(CachePipe::new(&default, &at(200.0)).tag_copies);
        assert_eq!(CachePipe::new(&default, &at(200.0)).tag_clocks(), 2);
        assert!(!CachePipe::new(&default, &at(100.0)).tag_copies);
        // Fully associative (one set): no RAM to read, so no copies at any clock.
        let fa = cache(16, 16, TexLayout::Tiled4x4);
        assert_eq!(fa.sets, 1);
        assert!(!CachePipe::new(&fa, &at(300.0)).tag_copies);
        // Copies past the budget: 16 texels x 8 ways x 24 bits.
        let mut wide = default.clone();
        wide.ports = 16;
        wide.tag_ports = 16;
        wide.ways = 8;
        wide.sets = 8;
        assert!(!CachePipe::new(&wide, &at(200.0)).tag_copies);
        // The copies are per tag port: behind a merge stage, four lines a clock.
        wide.tag_ports = 4;
        assert!(CachePipe::new(&wide, &at(200.0)).tag_copies);
    }

    #[test]
    fn the_merge_stage_takes_fewer_clocks_at_a_slow_clock() {
        use crate::config::{ClockSection, Family};
        let at = |mhz: f64| {
            Timing::new(&ClockSection {
                family: Family::Ecp5,
                target_mhz: mhz,
            })
        };
        let mut c = cache(16, 16, TexLayout::Tiled4x4);
        c.tag_ports = 4;
        assert!(c.merges());
        let fast = MergePipe::new(&c, &at(200.0));
        assert_eq!(fast.regs, [true; 4]);
        assert_eq!(fast.describe(), "eq | lead | count | emit");
        // At 50 MHz the compares and the first uses share a clock; at 10 the counts join
        // them. The counts always end at a register: the emit's group loop reads them.
        let slow = MergePipe::new(&c, &at(50.0));
        assert_eq!(slow.regs, [false, true, true, true]);
        assert_eq!(slow.latency(), 3);
        let slower = MergePipe::new(&c, &at(10.0));
        assert_eq!(slower.regs, [false, false, true, true]);
        assert_eq!(slower.describe(), "eq+lead+count | emit");
        assert_eq!(or_levels(15), 2);
        assert_eq!(or_levels(3), 1);
    }

    #[test]
    fn request_and_response_fields_tile_their_words() {
        let l = CacheLayout::new(&cache(16, 16, TexLayout::Tiled4x4));
        assert_eq!(l.act_lsb(0), l.addr_lsb(15) + WORD_ADDR_BITS);
        assert_eq!(l.inv_lsb(), l.act_lsb(15) + 1);
        assert_eq!(l.hits_lsb(), l.word_lsb(15) + 32);
        assert_eq!(l.misses_lsb() + COUNT_W, l.rsp_w);
    }
}

/// The cache's clock-dependent structure, scheduled against the target clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CachePipe {
    /// The banks' RAM output register: a two-clock read, when the RAM's clock-to-out and
    /// the bank select after it do not fit in one period.
    pub ram_out_reg: bool,
    /// The tag lookup in two clocks: the tag RAMs read into per-texel copies (stage LA),
    /// then compared, when the read, the compare and L2's select do not fit in one
    /// period. Only where there is a RAM to read (more than one set) and the copies stay
    /// small (`TAG_COPY_BITS`).
    pub tag_copies: bool,
    /// The victim's checks in a clock of their own (M_PICK, between M_VICT and M_ACT):
    /// where the victim and the checks on it do not fit one period and are longer than
    /// the lookup (splitting a shorter path would not raise the clock), which is many
    /// ways.
    pub victim_pick: bool,
    /// The banks' read enables and addresses registered (the read's stage A, a clock of
    /// latency): where the round compare and the selects of a bank's address from the
    /// texels (through the ports with bank classes) do not fit one period and are longer
    /// than the lookup. The texels' serve flags then come from shifted one-hot rounds, not
    /// from the compare, so the registered clock starts at flops.
    pub addr_reg: bool,
}

/// The tag unit's M_VICT, as one clock: the victim (the lowest invalid way, or the
/// replacement's choice: an OR or AND tree over the ways, then a way's one-hot), the
/// allocation's check on it (its slot not full: an AND-OR tree over the ways) and the
/// flags it sets.
fn victim_ops(ways: u32) -> [Op; 3] {
    let tree = log2(ways).div_ceil(2);
    [Op::Lut(tree + 1), Op::Lut(tree + 1), Op::Lut(1)]
}

/// Flops the tag unit may spend on copies of its tags (texels x ways x (tag + valid)): the
/// embedded default's 4 x 4 x 23 is 368; seed 001's 16 texels x 64 ways would be 24,576.
pub const TAG_COPY_BITS: u32 = 2048;

impl CachePipe {
    pub fn new(cfg: &TexCache, timing: &Timing) -> Self {
        let after_read = [Op::RamRead, Op::Mux(cfg.banks), Op::Lut(1)];
        let tag_w = WORD_ADDR_BITS - log2(cfg.words_per_line) - log2(cfg.sets);
        // A LUT-RAM read, the equality of two tags (a LUT per two bits, then an AND tree
        // of four-input LUTs), the valid bit and L2's select.
        let lookup = [Op::Lut(1), Op::Lut(eq_levels(tag_w)), Op::Lut(1)];
        let copy_bits = cfg.tag_ports * cfg.ways * (tag_w + 1);
        let victim = victim_ops(cfg.ways);
        // The round compare (serve), then a bank's address: with bank classes an AND-OR
        // over a lane's texels into its ports, then over the lanes' ports; else over every
        // texel.
        let sel = if cfg.bank_classes().is_some() {
            4
        } else {
            1 + log2(cfg.ports).div_ceil(2)
        };
        let read = [Op::Lut(eq_levels(log2(cfg.ports))), Op::Lut(sel)];
        Self {
            ram_out_reg: !timing.fits(&after_read),
            tag_copies: cfg.sets > 1 && copy_bits <= TAG_COPY_BITS && !timing.fits(&lookup),
            victim_pick: !timing.fits(&victim) && timing.path(&victim) > timing.path(&lookup),
            addr_reg: !timing.fits(&read) && timing.path(&read) > timing.path(&lookup),
        }
    }

    /// Clocks from a miss's first in RUN to its allocation in M_ACT.
    pub fn miss_clocks(&self) -> u32 {
        3 + u32::from(self.victim_pick)
    }

    /// Clocks from a request entering the tag unit to its lookup in L2.
    pub fn tag_clocks(&self) -> u32 {
        1 + u32::from(self.tag_copies)
    }

    /// Clocks from a round's issue to its data.
    pub fn ram_clocks(&self) -> u32 {
        1 + u32::from(self.ram_out_reg) + u32::from(self.addr_reg)
    }

    /// What `gpurtl check` says about it.
    pub fn describe(&self) -> String {
        let note = |parts: &[(bool, &str)]| {
            let on: Vec<&str> = parts.iter().filter(|p| p.0).map(|p| p.1).collect();
            if on.is_empty() {
                String::new()
            } else {
                format!(" ({})", on.join(", "))
            }
        };
        format!(
            "tag lookup in {} clock(s){}; a miss allocates {} clocks after RUN{}; bank reads in {} clock(s){}",
            self.tag_clocks(),
            note(&[(self.tag_copies, "tag RAMs read into copies, then compared"),]),
            self.miss_clocks(),
            note(&[(self.victim_pick, "the victim's checks in M_PICK")]),
            self.ram_clocks(),
            note(&[
                (self.addr_reg, "addresses registered"),
                (self.ram_out_reg, "RAM output register on"),
            ]),
        )
    }
}

/// The merge stage's blocks of logic, in order (`tex_cache_merge`): the compares of every
/// pair of texels' lines; each texel's first use of its line and the earlier first uses
/// it counts; their counts (a texel's line's rank among the request's distinct lines);
/// and the emit, which picks each tag port's line and ends at the output register.
pub const MERGE_STAGES: [&str; 4] = ["eq", "lead", "count", "emit"];

/// Where the merge stage holds registers at the design's clock (the emit always ends at
/// its output register).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MergePipe {
    /// Entry `i`: a register after `MERGE_STAGES[i]`.
    pub regs: [bool; 4],
}

impl MergePipe {
    pub fn new(cfg: &TexCache, timing: &Timing) -> Self {
        let line_w = WORD_ADDR_BITS - log2(cfg.words_per_line);
        let row_levels = or_levels(cfg.ports - 1);
        let tree = log2(cfg.ports.next_power_of_two());
        let blocks: [Vec<Op>; 4] = [
            // A line compare and the earlier texel's active bit.
            vec![Op::Lut(eq_levels(line_w)), Op::Lut(1)],
            // A row of compares ORed (first use), then the same for each earlier texel's
            // row, ANDed.
            vec![Op::Lut(row_levels), Op::Lut(1), Op::Lut(row_levels)],
            // A balanced adder tree of up to ports - 1 bits.
            (1..=tree).map(|k| Op::Carry(k + 1)).collect(),
            // A rank compare, then each tag port's line from the texels (an AND-OR).
            vec![Op::Lut(1), Op::Mux(cfg.ports)],
        ];
        let slices: Vec<&[Op]> = blocks.iter().map(Vec::as_slice).collect();
        let mut regs = [true; 4];
        for (r, cut) in regs.iter_mut().zip(timing.cut_blocks(&slices)) {
            *r = cut;
        }
        // The emit's loop over a request's groups decides when the request moves on from
        // its count of lines: that comes from a register at every clock, so that no ready
        // depends on the request's data (no combinational path from the cache's request
        // to its ready).
        regs[2] = true;
        Self { regs }
    }

    /// Clocks from a request entering the merge stage to its first group at the output.
    pub fn latency(&self) -> u32 {
        self.regs.iter().filter(|&&r| r).count() as u32
    }

    /// The stages that share each clock, as `gpurtl check` prints them.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for (i, (name, reg)) in MERGE_STAGES.iter().zip(self.regs).enumerate() {
            out.push_str(name);
            if i + 1 < MERGE_STAGES.len() {
                out.push_str(if reg { " | " } else { "+" });
            }
        }
        out
    }
}

/// LUT levels of an OR of `bits` bits (four-input LUTs).
fn or_levels(bits: u32) -> u32 {
    let mut n = bits.max(1);
    let mut levels = 0;
    while n > 1 {
        n = n.div_ceil(4);
        levels += 1;
    }
    levels.max(1)
}

/// LUT levels of an equality compare of `bits` bits: two bits a LUT, then four-input ANDs.
fn eq_levels(bits: u32) -> u32 {
    let mut n = bits.div_ceil(2);
    let mut levels = 1;
    while n > 1 {
        n = n.div_ceil(4);
        levels += 1;
    }
    levels
}

/// Log2 of a power of two.
pub fn log2(n: u32) -> u32 {
    n.max(1).trailing_zeros()
}
