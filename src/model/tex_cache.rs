//! Model of the texture cache's tags: exact about hits, misses, replacement and the
//! splitting of a request into passes, so co-simulation can compare the hit and miss
//! counts of every request with the RTL.
//!
//! The rules, which the RTL follows (Igehy et al. 1998's prefetching organisation: tags
//! are checked when a request arrives, long before its data is read):
//! - A request's active texels are looked up in port order.
//! - A texel whose line is in the set is a hit (a line allocated earlier, even by the same
//!   request or still being filled, counts: its fill is already on its way). Under LRU the
//!   way becomes the most recently used; under FIFO the order does not change.
//! - A miss allocates a way: the lowest invalid way, else the first way in replacement
//!   order that the request's current pass does not use. Under tree pseudo-LRU that is
//!   the way the tree's bits lead to from its root, turning at a node to its other half
//!   when every way of the half it points at is in use by the pass. The victim does not depend on
//!   timing (the RTL delays the new line's fill until the victim's queued readers have
//!   read the old one, instead of picking another way), so this sequential model is exact.
//! - When every way of the set is used by the current pass, the pass ends and a new one
//!   starts at this texel (the RTL delivers the request in two or more passes).

use std::collections::VecDeque;

use crate::config::{Replacement, TexCache};
pub use crate::iface::tex_cache::{BankCheck, bank_check, bank_clocks};
use crate::iface::tex_cache::{COUNT_W, CacheLayout, WORD_ADDR_BITS as AW};

/// What one request did to the tags.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Active texels whose line was present when looked up.
    pub hits: u32,
    /// Lines allocated (each one a line fill).
    pub misses: u32,
    /// Passes the request needed (1 unless a set ran out of ways within it).
    pub passes: u32,
    /// Line addresses to fill, in allocation order.
    pub fills: Vec<u64>,
}

#[derive(Debug, Clone)]
struct Set {
    tags: Vec<Option<u64>>,
    /// Ways in replacement order: the front is the next victim (LRU and FIFO).
    order: VecDeque<usize>,
    /// Tree pseudo-LRU: bit n - 1 is node n's (root 1, children 2n and 2n + 1), true
    /// when its next victim is in its upper half of ways.
    tree: Vec<bool>,
}

/// The tag state of the whole cache.
#[derive(Debug, Clone)]
pub struct TagModel {
    cfg: TexCache,
    sets: Vec<Set>,
}

impl TagModel {
    pub fn new(cfg: &TexCache) -> Self {
        let set = Set {
            tags: vec![None; cfg.ways as usize],
            order: (0..cfg.ways as usize).collect(),
            tree: vec![false; cfg.ways as usize - 1],
        };
        Self {
            cfg: cfg.clone(),
            sets: vec![set; cfg.sets as usize],
        }
    }

    /// Forgets every line (the invalidate input, for texture reloads).
    pub fn invalidate(&mut self) {
        *self = Self::new(&self.cfg);
    }

    /// Looks up one request: its texel byte addresses, `None` for masked texels. With a
    /// merge stage (`TexCache::merges`) the tag unit sees the request's distinct lines in
    /// order of first use, `tag_ports` at a time, each group a request of its own (its
    /// own passes); every texel of a line but its first counts as a hit.
    pub fn access(&mut self, texels: &[Option<u64>]) -> Outcome {
        if !self.cfg.merges() {
            return self.lookup(texels);
        }
        let mut leaders: Vec<Option<u64>> = Vec::new();
        let mut lines: Vec<u64> = Vec::new();
        let mut active = 0;
        for addr in texels.iter().flatten() {
            active += 1;
            let line = self.cfg.line_of(*addr);
            if !lines.contains(&line) {
                lines.push(line);
                leaders.push(Some(*addr));
            }
        }
        let mut out = Outcome::default();
        for group in leaders.chunks(self.cfg.tag_ports as usize) {
            let o = self.lookup(group);
            out.misses += o.misses;
            out.passes += o.passes;
            out.fills.extend(o.fills);
        }
        out.passes = out.passes.max(1);
        out.hits = active - out.misses;
        out
    }

    /// Looks up texels one a port, in port order.
    fn lookup(&mut self, texels: &[Option<u64>]) -> Outcome {
        let mut out = Outcome {
            passes: 1,
            ..Outcome::default()
        };
        // (set, way) pairs the current pass uses.
        let mut pinned: Vec<(u32, usize)> = Vec::new();
        for addr in texels.iter().flatten() {
            let line = self.cfg.line_of(*addr);
            let set_idx = self.cfg.set_of(line);
            let tag = line / u64::from(self.cfg.sets);
            let set = &mut self.sets[set_idx as usize];
            let repl = self.cfg.replacement;
            if let Some(way) = set.tags.iter().position(|t| *t == Some(tag)) {
                out.hits += 1;
                match repl {
                    Replacement::Lru => touch(&mut set.order, way),
                    Replacement::Plru => plru_touch(&mut set.tree, way),
                    Replacement::Fifo => {}
                }
                if !pinned.contains(&(set_idx, way)) {
                    pinned.push((set_idx, way));
                }
                continue;
            }
            let victim = |set: &Set, pinned: &[(u32, usize)]| {
                let free = |w: usize| !pinned.contains(&(set_idx, w));
                match repl {
                    Replacement::Plru => plru_victim(&set.tree, free),
                    _ => set.order.iter().copied().find(|w| free(*w)),
                }
            };
            let way = match set.tags.iter().position(Option::is_none) {
                Some(w) => w,
                None => match victim(set, &pinned) {
                    Some(w) => w,
                    None => {
                        // Every way serves this pass: the rest of the request is a new
                        // pass, which uses none yet.
                        out.passes += 1;
                        pinned.clear();
                        victim(set, &pinned).unwrap_or(0)
                    }
                },
            };
            set.tags[way] = Some(tag);
            touch(&mut set.order, way);
            plru_touch(&mut set.tree, way);
            pinned.push((set_idx, way));
            out.misses += 1;
            out.fills.push(line);
        }
        out
    }
}

/// Moves `way` to the back of the replacement order (most recently used / newest).
fn touch(order: &mut VecDeque<usize>, way: usize) {
    if let Some(i) = order.iter().position(|w| *w == way) {
        order.remove(i);
    }
    order.push_back(way);
}

/// Points every node on `way`'s path at the other half: `way` becomes the last victim.
fn plru_touch(tree: &mut [bool], way: usize) {
    let (mut node, mut lo, mut size) = (1, 0, tree.len() + 1);
    while size > 1 {
        size /= 2;
        let upper = way >= lo + size;
        tree[node - 1] = !upper;
        node = 2 * node + usize::from(upper);
        lo += if upper { size } else { 0 };
    }
}

/// The way the tree leads to among those `free` allows: at each node, the half it
/// points at unless that half has no free way. None when no way is free.
fn plru_victim(tree: &[bool], free: impl Fn(usize) -> bool) -> Option<usize> {
    let ways = tree.len() + 1;
    if !(0..ways).any(&free) {
        return None;
    }
    let (mut node, mut lo, mut size) = (1, 0, ways);
    while size > 1 {
        size /= 2;
        let upper_free = (lo + size..lo + 2 * size).any(&free);
        let lower_free = (lo..lo + size).any(&free);
        let upper = if tree[node - 1] {
            upper_free
        } else {
            !lower_free
        };
        node = 2 * node + usize::from(upper);
        lo += if upper { size } else { 0 };
    }
    Some(lo)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{CacheSection, TexLayout};

    fn cache(size: u32, line: u32, ways: u32, replacement: Replacement) -> TexCache {
        merging(size, line, ways, replacement, 4, None)
    }

    /// A cache of `ports` texels a request whose tag unit looks up `tag_ports` lines.
    fn merging(
        size: u32,
        line: u32,
        ways: u32,
        replacement: Replacement,
        ports: u32,
        tag_ports: Option<u32>,
    ) -> TexCache {
        let section = CacheSection {
            size_bytes: size,
            line_bytes: line,
            ways,
            banks: 4,
            ports,
            mshr_entries: 4,
            replacement,
            bus_bits: 64,
            layout: TexLayout::Tiled4x4,
            queue_depth: 64,
            tag_ports,
        };
        let mut errs = Vec::new();
        let c = section.validate(&mut errs);
        assert!(errs.is_empty(), "{errs:?}");
        c.expect("valid cache")
    }

    fn req(addrs: &[u64]) -> Vec<Option<u64>> {
        addrs.iter().map(|a| Some(*a)).collect()
    }

    #[test]
    fn compulsory_misses_then_hits() {
        let mut m = TagModel::new(&cache(1024, 64, 16, Replacement::Lru));
        let o = m.access(&req(&[0, 4, 64, 68]));
        assert_eq!((o.hits, o.misses, o.fills.clone()), (2, 2, vec![0, 1]));
        let o = m.access(&req(&[8, 72]));
        assert_eq!((o.hits, o.misses), (2, 0));
    }

    #[test]
    fn masked_texels_do_nothing() {
        let mut m = TagModel::new(&cache(1024, 64, 16, Replacement::Lru));
        let o = m.access(&[None, Some(0), None, None]);
        assert_eq!((o.hits, o.misses), (0, 1));
    }

    #[test]
    fn lru_keeps_the_reused_line_fifo_does_not() {
        // Fully associative, 4 ways: lines 0..3, touch 0, then line 4 evicts line 1 (LRU)
        // or line 0 (FIFO, the oldest allocation). The tree (PLRU) has forgotten that
        // line 1 is older than lines 2 and 3: touching 0 pointed its root at ways 2 and
        // 3, and line 3's allocation pointed their node at way 2.
        let line = 64u64;
        for (repl, evicted) in [
            (Replacement::Lru, 1u64),
            (Replacement::Fifo, 0),
            (Replacement::Plru, 2),
        ] {
            let mut m = TagModel::new(&cache(256, 64, 4, repl));
            m.access(&req(&[0, line, 2 * line, 3 * line]));
            m.access(&req(&[0]));
            assert_eq!(m.access(&req(&[4 * line])).misses, 1);
            for l in 0..5 {
                let o = m.clone().access(&req(&[l * line]));
                assert_eq!(o.misses, u32::from(l == evicted), "{repl:?}: line {l}");
            }
        }
    }

    #[test]
    fn plru_turns_away_from_a_half_the_pass_uses() {
        // Lines 0..3 in ways 0..3; a request hits lines 2, 3 and 0, so the root points
        // at ways 2 and 3, which its pass uses: the miss turns to ways 0 and 1, and the
        // node there points away from way 0, to way 1.
        let line = 64u64;
        let mut m = TagModel::new(&cache(256, 64, 4, Replacement::Plru));
        m.access(&req(&[0, line, 2 * line, 3 * line]));
        let o = m.access(&req(&[2 * line, 3 * line, 0, 4 * line]));
        assert_eq!((o.hits, o.misses, o.passes), (3, 1, 1));
        for l in 0..5 {
            let o = m.clone().access(&req(&[l * line]));
            assert_eq!(o.misses, u32::from(l == 1), "line {l}");
        }
    }

    #[test]
    fn plru_touch_and_victim_walk_the_tree() {
        let mut tree = vec![false; 7];
        assert_eq!(plru_victim(&tree, |_| true), Some(0));
        for w in 0..8 {
            plru_touch(&mut tree, w);
        }
        // Every node points away from its last touch: the lower half each time.
        assert_eq!(tree, vec![false; 7]);
        plru_touch(&mut tree, 5);
        assert_eq!(tree, [false, false, true, false, false, false, false]);
        assert_eq!(plru_victim(&tree, |_| true), Some(0));
        assert_eq!(plru_victim(&tree, |w| w >= 2), Some(2));
        assert_eq!(plru_victim(&tree, |w| w == 5), Some(5));
        assert_eq!(plru_victim(&tree, |_| false), None);
        assert_eq!(plru_victim(&[], |_| true), Some(0));
    }

    #[test]
    fn direct_mapped_thrash_always_misses() {
        // 4 sets of 1 way: lines 0 and 4 share set 0.
        let mut m = TagModel::new(&cache(256, 64, 1, Replacement::Lru));
        for i in 0..10u64 {
            let o = m.access(&req(&[(i % 2) * 4 * 64]));
            assert_eq!(o.misses, 1);
        }
    }

    #[test]
    fn a_set_out_of_ways_within_a_request_splits_it() {
        // Direct mapped: lines 0 and 4 both need set 0's single way in one request, so
        // the request runs as [line 0], [line 4], [line 0 again].
        let mut m = TagModel::new(&cache(256, 64, 1, Replacement::Lru));
        let o = m.access(&req(&[0, 4 * 64, 4]));
        assert_eq!(o.passes, 3);
        assert_eq!(o.misses, 3, "line 0 is refetched for the third texel");
        assert_eq!(o.fills, vec![0, 4, 0]);
        // Two lines of different sets need no split.
        let o = m.access(&req(&[64, 128, 68]));
        assert_eq!((o.passes, o.misses, o.hits), (1, 2, 1));
    }

    #[test]
    fn a_merged_request_looks_up_each_line_once_in_groups() {
        // 16 texels on 5 lines, 4 lines a clock: groups of 4 and 1 lines, two passes; the
        // texels after a line's first are hits, misses are the lines.
        let mut m = TagModel::new(&merging(4096, 64, 64, Replacement::Lru, 16, Some(4)));
        let addrs: Vec<u64> = (0..16u64).map(|i| (i % 5) * 64 + 4 * (i / 5)).collect();
        let o = m.access(&req(&addrs));
        assert_eq!((o.hits, o.misses, o.passes), (11, 5, 2));
        assert_eq!(o.fills, vec![0, 1, 2, 3, 4]);
        let o = m.access(&req(&addrs));
        assert_eq!((o.hits, o.misses, o.passes), (16, 0, 2));
        // Without the merge: one pass, and the same counts (each texel once).
        let mut m = TagModel::new(&merging(4096, 64, 64, Replacement::Lru, 16, None));
        let o = m.access(&req(&addrs));
        assert_eq!((o.hits, o.misses, o.passes), (11, 5, 1));
    }

    #[test]
    fn a_merged_request_touches_its_lines_in_order_of_first_use() {
        // Four ways, texels on lines A, B, A: merged, B is the most recently used; texel
        // by texel, A is. Two new lines fill the ways; the next evicts A or B.
        let l = 64u64;
        for (tag_ports, evicted) in [(Some(4), 0u64), (None, 1)] {
            let mut m = TagModel::new(&merging(256, 64, 4, Replacement::Lru, 8, tag_ports));
            m.access(&req(&[0, l, 0]));
            m.access(&req(&[2 * l, 3 * l]));
            assert_eq!(m.access(&req(&[4 * l])).misses, 1);
            for line in 0..2 {
                let o = m.clone().access(&req(&[line * l]));
                assert_eq!(
                    o.misses,
                    u32::from(line == evicted),
                    "{tag_ports:?}: line {line}"
                );
            }
        }
    }

    #[test]
    fn invalidate_forgets_everything() {
        let mut m = TagModel::new(&cache(1024, 64, 4, Replacement::Fifo));
        m.access(&req(&[0, 64, 128]));
        m.invalidate();
        assert_eq!(m.access(&req(&[0])).misses, 1);
    }
}

/// What the model says a stream of requests does to the cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct TrafficStats {
    pub requests: u64,
    /// Active texels looked up.
    pub texels: u64,
    pub hits: u64,
    pub misses: u64,
    /// Requests that needed more than one pass.
    pub split_requests: u64,
    /// Data-stage clocks summed over requests (bank conflicts make it exceed `requests`).
    pub bank_clocks: u64,
    /// Bytes fetched from memory.
    pub fill_bytes: u64,
}

impl TrafficStats {
    /// Hits over texels looked up.
    pub fn hit_rate(&self) -> f64 {
        self.hits as f64 / self.texels.max(1) as f64
    }

    /// Memory bytes per texel delivered.
    pub fn bytes_per_texel(&self) -> f64 {
        self.fill_bytes as f64 / self.texels.max(1) as f64
    }

    /// Requests per clock if misses cost nothing: the bank-conflict bound.
    pub fn bank_rate(&self) -> f64 {
        self.requests as f64 / self.bank_clocks.max(1) as f64
    }
}

/// Runs cache operations (reads and invalidates) through a fresh tag model.
pub fn run_ops(cfg: &TexCache, ops: &[CacheOp]) -> TrafficStats {
    let mut tags = TagModel::new(cfg);
    let mut s = TrafficStats::default();
    for op in ops {
        s.requests += 1;
        match op {
            CacheOp::Invalidate => {
                tags.invalidate();
                s.bank_clocks += 1;
            }
            CacheOp::Read(texels) => {
                let o = tags.access(texels);
                s.texels += texels.iter().flatten().count() as u64;
                s.hits += u64::from(o.hits);
                s.misses += u64::from(o.misses);
                s.split_requests += u64::from(o.passes > 1);
                s.bank_clocks += u64::from(bank_clocks(cfg, texels));
                s.fill_bytes += u64::from(o.misses) * u64::from(cfg.line_bytes);
            }
        }
    }
    s
}

/// The operations a `tex_cache` request vector encodes (the inverse of [`encode`]).
pub fn decode_requests(cfg: &TexCache, reqs: &[crate::vectors::Bits]) -> Vec<CacheOp> {
    let l = CacheLayout::new(cfg);
    reqs.iter()
        .map(|r| {
            if r.field(l.inv_lsb(), 1) == 1 {
                CacheOp::Invalidate
            } else {
                CacheOp::Read(
                    (0..l.ports)
                        .map(|i| {
                            (r.field(l.act_lsb(i), 1) == 1).then(|| r.field(l.addr_lsb(i), AW) << 2)
                        })
                        .collect(),
                )
            }
        })
        .collect()
}

/// Runs `requests` through a fresh tag model.
pub fn run_traffic(cfg: &TexCache, requests: &[crate::workload::Request]) -> TrafficStats {
    let ops: Vec<CacheOp> = requests
        .iter()
        .map(|r| CacheOp::Read(r.texels.clone()))
        .collect();
    run_ops(cfg, &ops)
}

#[cfg(test)]
mod traffic_tests {
    use super::*;
    use crate::config::{CacheSection, TexLayout};
    use crate::workload::{Workload, generate};

    fn cache(ways: u32, banks: u32, ports: u32, layout: TexLayout) -> TexCache {
        let section = CacheSection {
            size_bytes: 16384,
            line_bytes: 256,
            ways,
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
    fn realistic_traffic_hits_and_adversarial_traffic_misses() {
        let c = cache(64, 16, 16, TexLayout::Tiled4x4);
        let run = |w: Workload| run_traffic(&c, &generate(w, 4, c.layout, c.shape(), 1, 4000));
        let one2one = run(Workload::from_name("one2one_256").expect("workload"));
        assert!(
            one2one.hit_rate() > 0.9,
            "1:1 hit rate {}",
            one2one.hit_rate()
        );
        let thrash = run(Workload::Thrash);
        assert_eq!(
            thrash.hits, 0,
            "LRU over ways + 1 lines of one set never hits"
        );
        let all_miss = run(Workload::AllMiss);
        assert_eq!(all_miss.hits, 0);
        assert_eq!(all_miss.misses, all_miss.texels);
        let same = run(Workload::SameLine);
        assert!(
            same.hit_rate() > 0.95,
            "same-line hit rate {}",
            same.hit_rate()
        );
    }
}

/// One request as the RTL takes it: texel byte addresses (None when masked) or an
/// invalidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheOp {
    Read(Vec<Option<u64>>),
    Invalidate,
}

/// The traffic `gpurtl sim --unit tex_cache` uses: `count` requests cycling through the
/// realistic and adversarial workloads in segments, with an invalidate between segments;
/// or, with `workload` (a `workload::Workload` name), that workload alone, from a cold
/// cache. `None` when the name is unknown.
pub fn sim_traffic(
    cfg: &TexCache,
    count: usize,
    seed: u64,
    workload: Option<&str>,
) -> Option<Vec<CacheOp>> {
    use crate::workload::{Workload, generate};
    const MIXED: [&str; 8] = [
        "rot30_256",
        "thrash",
        "one2one_256",
        "same_line",
        "random",
        "all_miss",
        "min2x_256",
        "mag2x_1024",
    ];
    let single;
    let order: &[&str] = match workload {
        Some(name) => {
            Workload::from_name(name)?;
            single = [name];
            &single
        }
        None => &MIXED,
    };
    let lanes = (cfg.ports / 4) as usize;
    let segment = count.div_ceil(order.len()).max(1);
    let mut ops = Vec::with_capacity(count);
    for (k, name) in order.iter().cycle().enumerate() {
        if ops.len() >= count {
            break;
        }
        if k > 0 {
            ops.push(CacheOp::Invalidate);
        }
        let Some(w) = Workload::from_name(name) else {
            continue;
        };
        let want = segment.min(count - ops.len());
        for r in generate(
            w,
            lanes,
            cfg.layout,
            cfg.shape(),
            seed.wrapping_add(k as u64),
            want,
        ) {
            // Byte addresses are 32 bits wide at the port.
            ops.push(CacheOp::Read(
                r.texels
                    .iter()
                    .map(|t| t.map(|a| a & 0xFFFF_FFFC))
                    .collect(),
            ));
        }
    }
    ops.truncate(count);
    Some(ops)
}

/// Request and response words of the `tex_cache` unit, as iface::tex_cache::CacheLayout lays them out.
pub fn encode(cfg: &TexCache, ops: &[CacheOp], seed: u64) -> crate::vectors::VectorSet {
    use crate::iface::{Dir, StreamPort};
    use crate::rng::memory_word;
    use crate::vectors::{Bits, PortVectors, VectorSet};
    let l = CacheLayout::new(cfg);
    let (p, req_w, rsp_w) = (l.ports, l.req_w, l.rsp_w);
    let mut tags = TagModel::new(cfg);
    let (mut reqs, mut rsps) = (Vec::new(), Vec::new());
    for op in ops {
        let mut req = Bits::zero(req_w);
        let mut rsp = Bits::zero(rsp_w);
        match op {
            CacheOp::Invalidate => {
                req.set_field(l.inv_lsb(), 1, 1);
                tags.invalidate();
            }
            CacheOp::Read(texels) => {
                for (i, t) in texels.iter().enumerate().take(p as usize) {
                    if let Some(a) = t {
                        let i = i as u32;
                        req.set_field(l.addr_lsb(i), AW, a >> 2);
                        req.set_field(l.act_lsb(i), 1, 1);
                        rsp.set_field(l.word_lsb(i), 32, u64::from(memory_word(*a)));
                    }
                }
                let o = tags.access(&texels[..texels.len().min(p as usize)]);
                rsp.set_field(l.hits_lsb(), COUNT_W, u64::from(o.hits));
                rsp.set_field(l.misses_lsb(), COUNT_W, u64::from(o.misses));
            }
        }
        reqs.push(req);
        rsps.push(rsp);
    }
    let port = |name: &str, dir, width| StreamPort {
        name: name.into(),
        dir,
        width,
    };
    VectorSet {
        unit: "tex_cache".into(),
        seed,
        ports: vec![
            PortVectors {
                port: port("req", Dir::In, req_w),
                items: reqs,
            },
            PortVectors {
                port: port("rsp", Dir::Out, rsp_w),
                items: rsps,
            },
        ],
    }
}
