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

use std::collections::BTreeMap;

use crate::config::Mem;
use crate::iface::mem_arb::{req_fields, req_width, rw_mem_port, unit_ports};
use crate::iface::{Dir, StreamPort};
use crate::rng::{Rng, memory_word};
use crate::vectors::{Bits, PortVectors, VectorSet};

/// Requester `i`'s traffic is drawn from random stream `STREAM_TRAFFIC + i` of the seed.
pub const STREAM_TRAFFIC: u64 = 2000;
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
    /// Write beats, in order, for every write burst.
    pub wdata: Vec<Bits>,
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
                            s.wdata.push(Bits::random(mem.data_bits, &mut rng));
                        }
                    }
                }
                s
            })
            .collect(),
    )
}

/// What the requesters read, per requester in order, and the memory written at the end
/// (beat address -> data), running each requester's bursts in its own order.
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
                    if b.write {
                        let d = w
                            .next()
                            .cloned()
                            .unwrap_or_else(|| Bits::zero(mem.data_bits));
                        image.insert(a, d);
                    } else {
                        let d = image
                            .get(&a)
                            .cloned()
                            .unwrap_or_else(|| initial_beat(a, mem.data_bits));
                        out.push(d);
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
    ports.push(PortVectors {
        port: StreamPort {
            name: "mem_image".into(),
            dir: Dir::Out,
            width,
        },
        items,
    });
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
                wdata: vec![d1, d2.clone()],
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
            }
        }
        assert!(traffic(&m, 1, 1, Some("nope")).is_none());
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
