//! Traffic built against a cache's shape rather than from a picture, plus uniform noise.

use super::texture::{Layout, Texture, texel_address};
use super::{CacheShape, Request};
use crate::rng::Rng;

/// Requests per line in `same_line`: the first texel of a burst misses, the rest hit.
pub const SAME_LINE_BURST: usize = 8;

/// Random streams of the workload generators, clear of the harness's ports (16 + i).
pub const STREAM_SAME_LINE: u64 = 0x100;
pub const STREAM_RANDOM: u64 = 0x101;

/// `count` requests of `lanes * 4` texels; `addr(k)` gives texel k of the whole stream.
fn fill(lanes: usize, count: usize, mut addr: impl FnMut(u64) -> u64) -> Vec<Request> {
    let per = lanes * 4;
    if per == 0 {
        return Vec::new();
    }
    (0..count)
        .map(|r| Request {
            texels: (0..per).map(|j| Some(addr((r * per + j) as u64))).collect(),
        })
        .collect()
}

/// Texel offset `k` inside a line, wrapping at the line's end.
fn offset_in_line(shape: CacheShape, texel_bytes: u32, k: u64) -> u64 {
    let texel = u64::from(texel_bytes.max(1));
    let per_line = (shape.line() / texel).max(1);
    (k % per_line) * texel
}

/// Texel k uses line k mod (ways+1) of ways+1 lines that share one set, so an LRU set
/// that looks texels up in stream order always misses. A request with more than ways+1
/// texels repeats a line inside itself (a cache that merges those would hit them).
pub fn thrash(
    shape: CacheShape,
    base: u64,
    texel_bytes: u32,
    lanes: usize,
    count: usize,
) -> Vec<Request> {
    let first = base.next_multiple_of(shape.line());
    let ring = u64::from(shape.ways) + 1;
    // Lines one cache-way apart (sets * line_bytes) index the same set.
    let stride = shape.line() * shape.sets();
    fill(lanes, count, |k| {
        first + (k % ring) * stride + offset_in_line(shape, texel_bytes, k / ring)
    })
}

/// Every texel on a line never used before: consecutive lines, so all sets are visited.
pub fn all_miss(
    shape: CacheShape,
    base: u64,
    texel_bytes: u32,
    lanes: usize,
    count: usize,
) -> Vec<Request> {
    let first = base.next_multiple_of(shape.line());
    fill(lanes, count, |k| {
        first + k * shape.line() + offset_in_line(shape, texel_bytes, k)
    })
}

/// Bursts of `SAME_LINE_BURST` requests whose texels all lie in one line (random texels
/// of it); each burst moves to the next line.
pub fn same_line(
    shape: CacheShape,
    base: u64,
    texel_bytes: u32,
    lanes: usize,
    count: usize,
    seed: u64,
) -> Vec<Request> {
    let first = base.next_multiple_of(shape.line());
    let per_request = (lanes * 4).max(1) as u64;
    let burst_texels = SAME_LINE_BURST as u64 * per_request;
    let mut rng = Rng::stream(seed, STREAM_SAME_LINE);
    fill(lanes, count, |k| {
        let line = first + (k / burst_texels) * shape.line();
        line + offset_in_line(shape, texel_bytes, rng.next_u64())
    })
}

/// Uniform random texels of level 0 of `tex`, seeded.
pub fn random_uniform(
    tex: &Texture,
    layout: Layout,
    lanes: usize,
    count: usize,
    seed: u64,
) -> Vec<Request> {
    let mut rng = Rng::stream(seed, STREAM_RANDOM);
    let (w, h) = (
        u64::from(tex.level_width(0)),
        u64::from(tex.level_height(0)),
    );
    fill(lanes, count, |_| {
        // Powers of two, so the remainders are unbiased; both fit in u32.
        let u = (rng.next_u64() % w) as u32;
        let v = (rng.next_u64() % h) as u32;
        texel_address(tex, layout, 0, u, v)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// A set-associative LRU cache looked up texel by texel, as the reference.
    fn lru_hits(shape: CacheShape, reqs: &[Request]) -> usize {
        let mut sets: Vec<Vec<u64>> = vec![Vec::new(); shape.sets() as usize];
        let mut hits = 0;
        for addr in reqs.iter().flat_map(|r| r.texels.iter().flatten()) {
            let line = shape.line_of(*addr);
            let set = &mut sets[shape.set_of(*addr) as usize];
            if let Some(pos) = set.iter().position(|&l| l == line) {
                hits += 1;
                set.remove(pos);
            } else if set.len() == shape.ways as usize {
                set.remove(0);
            }
            set.push(line);
        }
        hits
    }

    const SHAPE: CacheShape = CacheShape {
        line_bytes: 64,
        sets: 16,
        ways: 4,
    };

    #[test]
    fn thrash_maps_to_one_set_and_always_misses() {
        for shape in [
            SHAPE,
            CacheShape {
                line_bytes: 256,
                sets: 1,
                ways: 64,
            },
        ] {
            let reqs = thrash(shape, 0x1234, 4, 4, 100);
            let addrs: Vec<u64> = reqs
                .iter()
                .flat_map(|r| r.texels.iter().flatten().copied())
                .collect();
            assert_eq!(addrs.len(), 1600);
            let sets: HashSet<u64> = addrs.iter().map(|&a| shape.set_of(a)).collect();
            assert_eq!(sets.len(), 1);
            let lines: HashSet<u64> = addrs.iter().map(|&a| shape.line_of(a)).collect();
            assert_eq!(lines.len(), shape.ways as usize + 1);
            assert_eq!(lru_hits(shape, &reqs), 0);
            assert!(addrs.iter().all(|a| a % 4 == 0 && *a >= 0x1234));
        }
    }

    #[test]
    fn all_miss_never_reuses_a_line() {
        let reqs = all_miss(SHAPE, 0, 4, 1, 500);
        let lines: HashSet<u64> = reqs
            .iter()
            .flat_map(|r| r.texels.iter().flatten())
            .map(|&a| SHAPE.line_of(a))
            .collect();
        assert_eq!(lines.len(), 2000);
        assert_eq!(lru_hits(SHAPE, &reqs), 0);
        let sets: HashSet<u64> = lines.iter().map(|l| l % 16).collect();
        assert_eq!(sets.len(), 16);
    }

    #[test]
    fn same_line_bursts_hit_one_line() {
        let reqs = same_line(SHAPE, 0, 4, 4, 40, 9);
        for burst in reqs.chunks(SAME_LINE_BURST) {
            let lines: HashSet<u64> = burst
                .iter()
                .flat_map(|r| r.texels.iter().flatten())
                .map(|&a| SHAPE.line_of(a))
                .collect();
            assert_eq!(lines.len(), 1);
        }
        // One miss per burst: 40 requests, 5 bursts, 16 texels each.
        assert_eq!(lru_hits(SHAPE, &reqs), 40 * 16 - 5);
        let offsets: HashSet<u64> = reqs
            .iter()
            .flat_map(|r| r.texels.iter().flatten())
            .map(|a| a % 64)
            .collect();
        assert!(offsets.len() > 8, "random texels inside the line");
        assert_eq!(reqs, same_line(SHAPE, 0, 4, 4, 40, 9));
    }

    #[test]
    fn random_is_seeded_and_inside_level_0() {
        let t = Texture::new(0x4000, 8, 8, 4);
        let a = random_uniform(&t, Layout::Tiled4x4, 4, 1000, 1);
        assert_eq!(a, random_uniform(&t, Layout::Tiled4x4, 4, 1000, 1));
        assert_ne!(a, random_uniform(&t, Layout::Tiled4x4, 4, 1000, 2));
        let addrs: Vec<u64> = a
            .iter()
            .flat_map(|r| r.texels.iter().flatten().copied())
            .collect();
        assert!(
            addrs
                .iter()
                .all(|&x| x >= t.level_base(0) && x < t.level_base(1) && x % 4 == 0)
        );
        // Both halves of the level are visited about equally.
        let low = addrs
            .iter()
            .filter(|&&x| x < t.level_base(0) + 128 * 1024)
            .count();
        assert!((7_500..8_500).contains(&low), "{low}");
    }

    #[test]
    fn zero_lanes_or_degenerate_shapes_do_not_panic() {
        assert!(thrash(SHAPE, 0, 4, 0, 10).is_empty());
        let zero = CacheShape {
            line_bytes: 0,
            sets: 0,
            ways: 0,
        };
        assert_eq!(thrash(zero, 0, 4, 1, 3).len(), 3);
        assert_eq!(all_miss(zero, 0, 0, 1, 3).len(), 3);
        assert_eq!(same_line(zero, 0, 4, 1, 3, 0).len(), 3);
    }
}
