//! The contract of the memory arbiter: what its RTL and its model agree on. The
//! requesters' stream ports, the layout of a request word, of a write beat (data and byte
//! strobes) and of a read tag, the read/write memory port the harness serves, and the
//! pipeline depth at the config's clock ([`Pipe`]).

use serde::Serialize;

pub use super::field::{Field, describe, get, lsb_params, pack, width};
use super::timing::{Op, Timing};
use super::{Dir, StreamPort};
use crate::config::{ADDR_BITS, Mem};

/// Write bursts sent to memory whose beats have not all been taken, in the write tag
/// FIFO (the head register holds one more): two keep back-to-back write bursts streaming,
/// one tag on its way to the head while the head's beats go.
pub const WRITE_TAGS: u32 = 2;

/// The arbiter's pipeline at the config's clock, decided from the delay table: the RTL
/// renders it and the unit's expectation (the beats it can hold) reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Pipe {
    /// A beat register between the granted writer and the write-data skid. Without it the
    /// skid's load enable and data depend on the burst state, the grant and the writers'
    /// valid bits in one clock; with it they come from flops, and write beats reach
    /// memory one clock later (still one a clock).
    pub wdata_stage: bool,
    /// A register after the read-tag FIFO holding the head tag decoded per reader. Without
    /// it a read beat's routing is the FIFO's LUT RAM read, the id compare and the reader's
    /// ready select before the read skid's load; with it the routing comes from flops (the
    /// tag arrives long before its beats, so no beat waits for it).
    pub rtag_stage: bool,
    /// A two-entry grant queue between the arbitration and the burst register. Without
    /// it the burst register loads this clock's winner in the clock the burst before ends,
    /// so the burst's end (the memory's ready, the writer's valid), the winner's pick and
    /// its request's select are one path; with it the two halves meet only at flops, and
    /// a request reaches memory a clock later (still one a clock).
    pub grant_queue: bool,
}

impl Pipe {
    pub fn new(mem: &Mem, t: &Timing) -> Self {
        Self {
            wdata_stage: !t.fits(&Self::wdata_path(mem)),
            rtag_stage: !t.fits(&Self::rtag_path(mem)),
            grant_queue: !t.fits(&Self::grant_path(mem)),
        }
    }

    /// The next burst in one clock: the burst's end from the state, the memory's ready
    /// and the granted writer's valid (three levels, beside the pick), the winner's
    /// request selected over the requesters, the burst register's load.
    pub fn grant_path(mem: &Mem) -> [Op; 3] {
        [Op::Lut(3), Op::Mux(mem.requesters.len() as u32), Op::Lut(1)]
    }

    /// Bursts the grant queue holds when full.
    pub fn queued_bursts(&self) -> u32 {
        if self.grant_queue { 2 } else { 0 }
    }

    /// A read beat's routing in one clock: the tag FIFO's LUT RAM read, the id compare,
    /// the ready select over the readers, the skid's load (two levels).
    pub fn rtag_path(mem: &Mem) -> [Op; 4] {
        let readers = mem.requesters.iter().filter(|r| r.access.reads()).count();
        [Op::Lut(1), Op::Lut(1), Op::Mux(readers as u32), Op::Lut(2)]
    }

    /// The write beat's way into the skid in one clock: the burst state and the skid's
    /// ready (two levels), the granted writer's valid and data (a mux over the writers),
    /// the skid's load (one level).
    pub fn wdata_path(mem: &Mem) -> [Op; 3] {
        let writers = mem.requesters.iter().filter(|r| r.access.writes()).count();
        [Op::Lut(2), Op::Mux(writers as u32), Op::Lut(1)]
    }

    /// Clocks from a write beat's transfer at its requester to its offer on `mem_wdata_*`.
    pub fn write_latency(&self) -> u32 {
        1 + u32::from(self.wdata_stage)
    }

    /// Write beats the arbiter holds when full: the beat register, if any (the skid's own
    /// two are in the unit's handshake stages).
    pub fn beats_held(&self) -> u64 {
        u64::from(self.wdata_stage)
    }

    /// The write path, as the header and `gpurtl check` say it.
    pub fn wdata_line(&self) -> String {
        format!(
            "write beats by write tag ({WRITE_TAGS} queued, one at the head), through {}: at memory {} clock(s) after they are taken",
            if self.wdata_stage {
                "a beat register and a skid"
            } else {
                "a skid"
            },
            self.write_latency()
        )
    }

    /// The read routing, as the header and `gpurtl check` say it.
    pub fn rtag_line(&self) -> String {
        if self.rtag_stage {
            "read beats routed by a head-tag register decoded per reader".into()
        } else {
            "read beats routed by the tag FIFO's head".into()
        }
    }

    /// The arbitration, as the header and `gpurtl check` say it.
    pub fn grant_line(&self) -> String {
        if self.grant_queue {
            "winners through a two-entry grant queue".into()
        } else {
            "winners straight into the burst register".into()
        }
    }

    /// The line `gpurtl check` prints.
    pub fn describe(&self) -> String {
        format!(
            "{}; {}; {}; one beat a clock",
            self.grant_line(),
            self.wdata_line(),
            self.rtag_line()
        )
    }
}

/// Requester `i`'s request word, lowest field first: `{write, len, addr}`, the byte
/// address, the burst length as beats - 1, and a write flag only when the requester both
/// reads and writes (otherwise its direction is fixed).
pub fn req_fields(mem: &Mem, i: usize) -> Vec<Field> {
    let r = &mem.requesters[i];
    let mut f = vec![("Addr", ADDR_BITS), ("Len", mem.len_bits())];
    if r.access.reads() && r.access.writes() {
        f.push(("Write", 1));
    }
    pack(&f)
}

/// Width of requester `i`'s request word.
pub fn req_width(mem: &Mem, i: usize) -> u32 {
    width(&req_fields(mem, i))
}

/// Byte strobes of a beat of `data_bits` (a power of two, at least 8): one per byte.
pub fn strb_bits(data_bits: u32) -> u32 {
    data_bits / 8
}

/// A write beat of `data_bits` data bits, lowest field first: `{strb, data}`. Strobe bit
/// `i` enables byte `i` of data (bits `8i+7:8i`); a byte whose strobe is low keeps what
/// memory held. Every writer's `<name>_wdata_data_i` and the memory's `mem_wdata_data_o`
/// carry this word; read beats are data alone.
pub fn wbeat_layout(data_bits: u32) -> Vec<Field> {
    pack(&[("Data", data_bits), ("Strb", strb_bits(data_bits))])
}

/// The config's write beat ([`wbeat_layout`] at `[mem] data_bits`).
pub fn wbeat_fields(mem: &Mem) -> Vec<Field> {
    wbeat_layout(mem.data_bits)
}

/// Width of a write beat: data bits plus one strobe per byte.
pub fn wbeat_width(mem: &Mem) -> u32 {
    width(&wbeat_fields(mem))
}

/// A burst's tag in the arbiter's read or write tag FIFO, lowest field first:
/// `{single, id, len}`, the burst's length as beats - 1, the requester that asked for it,
/// and whether it has one beat.
pub fn tag_fields(mem: &Mem) -> Vec<Field> {
    // Single: the burst has one beat (len = 0), so the head tag's last flag loads
    // without a compare behind the FIFO's read.
    pack(&[
        ("Len", mem.len_bits()),
        ("Id", mem.id_bits()),
        ("Single", 1),
    ])
}

/// The requesters' stream ports, in order: per requester its request, its write data (if
/// it writes) and its read data (if it reads).
pub fn unit_ports(mem: &Mem) -> Vec<StreamPort> {
    let mut ports = Vec::new();
    for (i, r) in mem.requesters.iter().enumerate() {
        ports.push(StreamPort {
            name: format!("{}_req", r.name),
            dir: Dir::In,
            width: req_width(mem, i),
        });
        if r.access.writes() {
            ports.push(StreamPort {
                name: format!("{}_wdata", r.name),
                dir: Dir::In,
                width: wbeat_width(mem),
            });
        }
        if r.access.reads() {
            ports.push(StreamPort {
                name: format!("{}_rdata", r.name),
                dir: Dir::Out,
                width: mem.data_bits,
            });
        }
    }
    ports
}

/// The memory side of `mem_arb`, served by the harness's read/write memory model: a
/// request per burst (`mem_req_*`: addr, len = beats - 1, write, id), write beats out
/// (`mem_wdata_*`, laid out by [`wbeat_layout`]), read beats in (`mem_rdata_*`).
#[derive(Debug, Clone, Serialize)]
pub struct RwMemPort {
    pub name: String,
    pub addr_width: u32,
    pub len_width: u32,
    pub id_width: u32,
    /// A read beat, and the data field of a write beat.
    pub data_width: u32,
    /// A write beat, and where its data and its strobes lie in it.
    pub wdata_width: u32,
    pub wdata_data_lsb: u32,
    pub wdata_strb_lsb: u32,
}

/// The read/write memory port of `mem_arb`.
pub fn rw_mem_port(mem: &Mem) -> RwMemPort {
    RwMemPort {
        name: "mem".into(),
        addr_width: ADDR_BITS,
        len_width: mem.len_bits(),
        id_width: mem.id_bits(),
        data_width: mem.data_bits,
        wdata_width: wbeat_width(mem),
        wdata_data_lsb: get(&wbeat_fields(mem), "Data").lsb,
        wdata_strb_lsb: get(&wbeat_fields(mem), "Strb").lsb,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(mhz: f64) -> Timing {
        Timing::new(&crate::config::ClockSection {
            target_mhz: mhz,
            family: crate::config::Family::Ecp5,
        })
    }

    #[test]
    fn the_beat_register_follows_the_target() {
        let cfg = crate::config::load(None).expect("default");
        let mem = cfg.mem.expect("mem");
        for slow in [50.0, 100.0] {
            let p = Pipe::new(&mem, &at(slow));
            assert!(!p.wdata_stage && !p.rtag_stage, "{slow} MHz");
        }
        let fast = Pipe::new(&mem, &at(200.0));
        assert!(fast.wdata_stage && fast.rtag_stage);
        assert_eq!((fast.write_latency(), fast.beats_held()), (2, 1));
        assert!(fast.describe().contains("2 clock(s)"));
    }

    #[test]
    fn fields_pack_from_bit_zero() {
        let f = pack(&[("A", 3), ("B", 1), ("C", 5)]);
        let lsbs: Vec<u32> = f.iter().map(|f| f.lsb).collect();
        assert_eq!(lsbs, [0, 3, 4]);
        assert_eq!(width(&f), 9);
        assert_eq!(width(&[]), 0);
        assert_eq!(describe(&f), "{c[5], b[1], a[3]}");
        assert_eq!(lsb_params("W", &f)[1], ("WBLsb".to_string(), 3));
    }

    #[test]
    fn a_write_beat_is_strobes_above_data() {
        for (data, strb) in [(8, 1), (32, 4), (64, 8), (512, 64)] {
            let f = wbeat_layout(data);
            assert_eq!(
                get(&f, "Data"),
                Field {
                    name: "Data",
                    lsb: 0,
                    width: data
                }
            );
            assert_eq!(
                get(&f, "Strb"),
                Field {
                    name: "Strb",
                    lsb: data,
                    width: strb
                }
            );
            assert_eq!(width(&f), data + strb);
        }
        let mem = crate::config::load(None)
            .expect("default")
            .mem
            .expect("mem");
        let p = rw_mem_port(&mem);
        assert_eq!(
            (
                p.data_width,
                p.wdata_width,
                p.wdata_data_lsb,
                p.wdata_strb_lsb
            ),
            (mem.data_bits, mem.data_bits * 9 / 8, 0, mem.data_bits)
        );
        assert_eq!(
            describe(&wbeat_fields(&mem)),
            format!("{{strb[{}], data[{}]}}", mem.data_bits / 8, mem.data_bits)
        );
    }
}
