//! Model of the memory arbiter `mem_arb`: the traffic each requester offers, what each
//! requester must read back (every beat, in order), and the memory contents at the end.
//!
//! Each requester works in its own window of memory (requester `i` at `(i + 1) << 24`),
//! reading and writing a handful of burst-sized slots so that reads often return what the
//! same requester wrote just before. The arbiter serves a requester's bursts in order and
//! the memory serves bursts in order, so what a requester reads depends on its own traffic
//! alone, whatever the interleaving with the others: the model is exact on every beat
//! without modelling timing. A beat routed to the wrong requester, lost, duplicated, or
//! written at the wrong place shows as a wrong read or a wrong word at the end.
//!
//! Write beats carry byte strobes (the contract's `wbeat_layout`): most enable every
//! byte, some a random set, some none, so a strobe dropped or moved in the RTL writes
//! bytes the model keeps.

use std::collections::BTreeMap;

use crate::config::Mem;
use crate::iface::mem_arb::{
    get, req_fields, req_width, rw_mem_port, strb_bits, unit_ports, wbeat_layout,
};
use crate::iface::{Dir, StreamPort};
use crate::rng::{Rng, memory_word};
use crate::vectors::{Bits, PortVectors, VectorSet};

/// Requester `i`'s traffic is drawn from random stream `STREAM_TRAFFIC + i` of the seed.
pub const STREAM_TRAFFIC: u64 = 2000;
/// Requester `i`'s write strobes are drawn from random stream `STREAM_STROBE + i`: a
/// stream of their own, so a seed's bursts and data are the same with or without them.
pub const STREAM_STROBE: u64 = 2100;
/// Slots (of a requester's longest burst) per requester window.
pub const SLOTS: u64 = 16;
/// Workloads `--workload` selects; without one, segments of each in turn.
pub const WORKLOADS: &[&str] = &["saturate", "single", "random", "reads"];
/// The workloads the mix takes segments of (`reads` leaves the writers idle).
const MIX: &[&str] = &["saturate", "single", "random"];

/// One burst as a requester asks for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Burst {
    pub write: bool,
    pub addr: u64,
    pub beats: u32,
}

/// Everything one requester does.
#[derive(Debug, Clone, Default)]
pub struct Stream {
    pub bursts: Vec<Burst>,
    /// Write beats, in order, for every write burst: `{strb, data}` ([`encode_wbeat`]).
    pub wdata: Vec<Bits>,
}

/// Byte strobes with every byte of a `data_bits` beat enabled.
pub fn all_strb(data_bits: u32) -> u64 {
    u64::MAX >> (64 - strb_bits(data_bits))
}

/// A write beat of `data` (`data_bits` wide) under byte strobes `strb`, laid out by the
/// contract's [`wbeat_layout`].
pub fn encode_wbeat(data: &Bits, strb: u64) -> Bits {
    let fields = wbeat_layout(data.width());
    let (d, s) = (get(&fields, "Data"), get(&fields, "Strb"));
    let mut w = Bits::zero(crate::iface::mem_arb::width(&fields));
    for k in 0..d.width.div_ceil(32) {
        let bits = (d.width - 32 * k).min(32);
        w.set_field(d.lsb + 32 * k, bits, data.field(32 * k, bits));
    }
    w.set_field(s.lsb, s.width, strb);
    w
}

/// The strobes of write beat `wbeat` of `data_bits` data bits.
pub fn wbeat_strb(wbeat: &Bits, data_bits: u32) -> u64 {
    let s = get(&wbeat_layout(data_bits), "Strb");
    wbeat.field(s.lsb, s.width)
}

/// The beat memory holds after write beat `wbeat` lands on `old`: each byte whose strobe
/// is set from the write, every other byte as it was.
pub fn merge_wbeat(old: &Bits, wbeat: &Bits) -> Bits {
    let data_bits = old.width();
    let d = get(&wbeat_layout(data_bits), "Data");
    let strb = wbeat_strb(wbeat, data_bits);
    let mut b = old.clone();
    for byte in 0..strb_bits(data_bits) {
        if (strb >> byte) & 1 == 1 {
            b.set_field(8 * byte, 8, wbeat.field(d.lsb + 8 * byte, 8));
        }
    }
    b
}

/// A write beat's strobes: all bytes three times in four, otherwise a random set (none
/// and all among them) or, one time in sixteen, none at all.
fn draw_strb(rng: &mut Rng, data_bits: u32) -> u64 {
    let all = all_strb(data_bits);
    match rng.next_u64() % 16 {
        0..=11 => all,
        12 => 0,
        _ => rng.next_u64() & all,
    }
}

/// The base address of requester `i`'s window.
pub fn window(i: usize) -> u64 {
    ((i as u64) + 1) << 24
}

/// The beat memory holds at beat address `addr` before anything is written (the
/// harness's `memory_beat(addr, 0, width)`).
pub fn initial_beat(addr: u64, data_bits: u32) -> Bits {
    let mut b = Bits::zero(data_bits);
    for k in 0..data_bits.div_ceil(32) {
        b.set_field(32 * k, 32, u64::from(memory_word(addr + 4 * u64::from(k))));
    }
    b
}

/// `count` bursts per requester of the named workload, or the mix.
pub fn traffic(mem: &Mem, count: usize, seed: u64, workload: Option<&str>) -> Option<Vec<Stream>> {
    if let Some(w) = workload
        && !WORKLOADS.contains(&w)
    {
        return None;
    }
    let bb = mem.beat_bytes();
    Some(
        mem.requesters
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let mut rng = Rng::stream(seed, STREAM_TRAFFIC + i as u64);
                let mut strb_rng = Rng::stream(seed, STREAM_STROBE + i as u64);
                let mut s = Stream::default();
                let slot_bytes = u64::from(r.max_burst) * bb;
                // Reads only: full read bursts, and writers send nothing.
                let reads_only = workload == Some("reads");
                let bursts = if reads_only && !r.access.reads() {
                    0
                } else {
                    count
                };
                for n in 0..bursts {
                    let kind = workload.unwrap_or(MIX[(n / 64) % MIX.len()]);
                    let write = match (r.access.reads(), r.access.writes()) {
                        _ if reads_only => false,
                        (true, true) => rng.next_u64().is_multiple_of(2),
                        (false, true) => true,
                        _ => false,
                    };
                    let beats = match kind {
                        "saturate" | "reads" => r.max_burst,
                        "single" => 1,
                        _ => 1 + (rng.next_u64() % u64::from(r.max_burst)) as u32,
                    };
                    let slot = rng.next_u64() % SLOTS;
                    let offset = rng.next_u64() % u64::from(r.max_burst - beats + 1);
                    let addr = window(i) + slot * slot_bytes + offset * bb;
                    s.bursts.push(Burst { write, addr, beats });
                    if write {
                        for _ in 0..beats {
                            let data = Bits::random(mem.data_bits, &mut rng);
                            let strb = draw_strb(&mut strb_rng, mem.data_bits);
                            s.wdata.push(encode_wbeat(&data, strb));
                        }
                    }
                }
                s
            })
            .collect(),
    )
}

/// What the requesters read, per requester in order, and the memory written at the end
/// (beat address -> data: every beat a write beat went to, its bytes never enabled as
/// memory started), running each requester's bursts in its own order.
pub fn run(mem: &Mem, streams: &[Stream]) -> (Vec<Vec<Bits>>, BTreeMap<u64, Bits>) {
    let bb = mem.beat_bytes();
    let mut image = BTreeMap::new();
    let reads = streams
        .iter()
        .map(|s| {
            let mut out = Vec::new();
            let mut w = s.wdata.iter();
            for b in &s.bursts {
                for k in 0..u64::from(b.beats) {
                    let a = b.addr + k * bb;
                    let now = image
                        .get(&a)
                        .cloned()
                        .unwrap_or_else(|| initial_beat(a, mem.data_bits));
                    if b.write {
                        // A stream short of write beats writes nothing to the rest.
                        let d = w
                            .next()
                            .map_or_else(|| now.clone(), |wb| merge_wbeat(&now, wb));
                        image.insert(a, d);
                    } else {
                        out.push(now);
                    }
                }
            }
            out
        })
        .collect();
    (reads, image)
}

/// A requester's request word, laid out by the contract's `req_fields`: {write (when it
/// both reads and writes), beats - 1, addr}.
pub fn encode_request(mem: &Mem, i: usize, b: &Burst, width: u32) -> Bits {
    let mut w = Bits::zero(width);
    for f in req_fields(mem, i) {
        let v = match f.name {
            "Addr" => b.addr,
            "Len" => u64::from(b.beats - 1),
            _ => u64::from(b.write),
        };
        w.set_field(f.lsb, f.width, v);
    }
    w
}

/// The width of an image line: {data, address}.
pub fn image_width(mem: &Mem) -> u32 {
    rw_mem_port(mem).addr_width + mem.data_bits
}

/// `mem_image`: the memory the harness must hold at the end, `{data, address}` per beat
/// (every beat written, as the model left it).
pub fn image_port(mem: &Mem, image: &BTreeMap<u64, Bits>) -> PortVectors {
    let aw = rw_mem_port(mem).addr_width;
    let width = image_width(mem);
    let items = image
        .iter()
        .map(|(a, d)| {
            let mut w = Bits::zero(width);
            w.set_field(0, aw, *a);
            for k in 0..mem.data_bits.div_ceil(32) {
                let bits = (mem.data_bits - 32 * k).min(32);
                w.set_field(aw + 32 * k, bits, d.field(32 * k, bits));
            }
            w
        })
        .collect();
    PortVectors {
        port: StreamPort {
            name: "mem_image".into(),
            dir: Dir::Out,
            width,
        },
        items,
    }
}

/// The vectors of a run: per requester its requests, write beats and expected read beats,
/// and `mem_image`, the memory contents the harness must hold at the end.
pub fn encode(mem: &Mem, streams: &[Stream], seed: u64) -> VectorSet {
    let (reads, image) = run(mem, streams);
    // unit_ports lists, per requester: its request, write data if it writes, read data
    // if it reads.
    let mut ports = Vec::new();
    let mut defs = unit_ports(mem).into_iter();
    for (i, r) in mem.requesters.iter().enumerate() {
        let s = &streams[i];
        let mut next = |items: Vec<Bits>| {
            if let Some(port) = defs.next() {
                ports.push(PortVectors { port, items });
            }
        };
        let width = req_width(mem, i);
        next(
            s.bursts
                .iter()
                .map(|b| encode_request(mem, i, b, width))
                .collect(),
        );
        if r.access.writes() {
            next(s.wdata.clone());
        }
        if r.access.reads() {
            next(reads[i].clone());
        }
    }
    ports.push(image_port(mem, &image));
    VectorSet {
        unit: "mem_arb".into(),
        seed,
        ports,
    }
}

/// The vectors of `count` bursts per requester.
pub fn vectors(mem: &Mem, count: usize, seed: u64, workload: Option<&str>) -> Option<VectorSet> {
    let streams = traffic(mem, count, seed, workload)?;
    Some(encode(mem, &streams, seed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config;

    fn mem(policy: &str) -> Mem {
        let toml = format!(
            "[design]\nname = \"t\"\n[hs_chain]\nwidth = 1\nstages = [\"skid\"]\n[mem]\ndata_bits = 64\n\
             max_burst = 8\npolicy = \"{policy}\"\n\
             [[mem.requesters]]\nname = \"a\"\naccess = \"both\"\nmax_burst = 8\n\
             [[mem.requesters]]\nname = \"b\"\naccess = \"read\"\nmax_burst = 4\n\
             [[mem.requesters]]\nname = \"c\"\naccess = \"write\"\nmax_burst = 2\n"
        );
        config::parse(&toml, "test")
            .expect("valid")
            .mem
            .expect("mem")
    }

    #[test]
    fn reads_see_the_requesters_own_earlier_writes() {
        let m = mem("round_robin");
        let a = Burst {
            write: true,
            addr: window(0),
            beats: 2,
        };
        let r = Burst {
            write: false,
            addr: window(0) + 8,
            beats: 2,
        };
        let d1 = Bits::from_u64(64, 0x1111);
        let d2 = Bits::from_u64(64, 0x2222);
        let s = vec![
            Stream {
                bursts: vec![a, r],
                wdata: vec![encode_wbeat(&d1, 0xff), encode_wbeat(&d2, 0xff)],
            },
            Stream::default(),
            Stream::default(),
        ];
        let (reads, image) = run(&m, &s);
        assert_eq!(reads[0][0], d2, "the second written beat");
        assert_eq!(
            reads[0][1],
            initial_beat(window(0) + 16, 64),
            "never written"
        );
        assert_eq!(image.len(), 2);
    }

    #[test]
    fn a_write_beat_changes_only_its_enabled_bytes() {
        let m = mem("round_robin");
        let at = window(0) + 8;
        let w = |beats| Burst {
            write: true,
            addr: at,
            beats,
        };
        let r = Burst {
            write: false,
            addr: at,
            beats: 1,
        };
        let old = initial_beat(at, 64);
        let d1 = Bits::from_u64(64, 0x1111_2222_3333_4444);
        let d2 = Bits::from_u64(64, 0xaaaa_bbbb_cccc_dddd);
        // Bytes 0 and 7 from the first write, the upper word from the second, none from
        // the third: what a read between them and the image at the end hold.
        let s = vec![
            Stream {
                bursts: vec![w(1), r, w(1), w(1), r],
                wdata: vec![
                    encode_wbeat(&d1, 0x81),
                    encode_wbeat(&d2, 0xf0),
                    encode_wbeat(&d2, 0x00),
                ],
            },
            Stream::default(),
            Stream::default(),
        ];
        let (reads, image) = run(&m, &s);
        let first = (old.low_u64() & 0x00ff_ffff_ffff_ff00) | 0x1100_0000_0000_0044;
        assert_eq!(reads[0][0], Bits::from_u64(64, first));
        let second = (first & 0xffff_ffff) | 0xaaaa_bbbb_0000_0000;
        assert_eq!(reads[0][1], Bits::from_u64(64, second));
        assert_eq!(image[&at], Bits::from_u64(64, second));
        // A write beat is {strb, data}.
        let wb = encode_wbeat(&d1, 0x81);
        assert_eq!(
            (wb.width(), wb.field(0, 64), wb.field(64, 8)),
            (72, d1.low_u64(), 0x81)
        );
        assert_eq!(wbeat_strb(&wb, 64), 0x81);
        assert_eq!(
            (all_strb(8), all_strb(64), all_strb(512)),
            (1, 0xff, u64::MAX)
        );
    }

    #[test]
    fn traffic_stays_in_each_window_and_fits_the_bursts() {
        let m = mem("fixed");
        for w in [None, Some("saturate"), Some("single"), Some("random")] {
            let t = traffic(&m, 300, 5, w).expect("known workload");
            for (i, s) in t.iter().enumerate() {
                let r = &m.requesters[i];
                let mut writes = 0;
                for b in &s.bursts {
                    assert!(b.beats >= 1 && b.beats <= r.max_burst);
                    assert!(
                        b.addr >= window(i) && b.addr + 8 * u64::from(b.beats) <= window(i + 1)
                    );
                    assert!(!b.write || r.access.writes());
                    assert!(b.write || r.access.reads());
                    writes += if b.write { b.beats } else { 0 };
                }
                assert_eq!(s.wdata.len(), writes as usize);
                assert!(s.wdata.iter().all(|w| w.width() == 72));
            }
        }
        assert!(traffic(&m, 1, 1, Some("nope")).is_none());
        // Strobes: mostly every byte, also none and partial sets.
        let strbs: Vec<u64> = traffic(&m, 300, 5, None).expect("mix")[0]
            .wdata
            .iter()
            .map(|w| wbeat_strb(w, 64))
            .collect();
        let all = strbs.iter().filter(|&&s| s == 0xff).count();
        assert!(
            all * 2 > strbs.len() && all < strbs.len(),
            "{all} of {}",
            strbs.len()
        );
        assert!(strbs.contains(&0));
        assert!(strbs.iter().any(|&s| s != 0 && s != 0xff));
    }

    #[test]
    fn request_words_carry_the_fields() {
        let m = mem("classes");
        let b = Burst {
            write: true,
            addr: 0x0100_0040,
            beats: 5,
        };
        let w = encode_request(&m, 0, &b, 36);
        assert_eq!(w.field(0, 32), 0x0100_0040);
        assert_eq!(w.field(32, 3), 4);
        assert_eq!(w.field(35, 1), 1);
        let v = vectors(&m, 10, 3, None).expect("vectors");
        let names: Vec<&str> = v.ports.iter().map(|p| p.port.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "a_req",
                "a_wdata",
                "a_rdata",
                "b_req",
                "b_rdata",
                "c_req",
                "c_wdata",
                "mem_image"
            ]
        );
    }
}
