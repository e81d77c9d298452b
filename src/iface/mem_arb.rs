//! The contract of the memory arbiter: what its RTL and its model agree on. The
//! requesters' stream ports, the layout of a request word, the layout of a read tag, and
//! the read/write memory port the harness serves.

use serde::Serialize;

pub use super::field::{Field, describe, lsb_params, pack, width};
use super::{Dir, StreamPort};
use crate::config::{ADDR_BITS, Mem};

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

/// A read burst's tag in the arbiter's tag FIFO, lowest field first: `{id, len}`, the
/// requester that asked for it and its length as beats - 1.
pub fn tag_fields(mem: &Mem) -> Vec<Field> {
    pack(&[("Len", mem.len_bits()), ("Id", mem.id_bits())])
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
                width: mem.data_bits,
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
/// (`mem_wdata_*`), read beats in (`mem_rdata_*`).
#[derive(Debug, Clone, Serialize)]
pub struct RwMemPort {
    pub name: String,
    pub addr_width: u32,
    pub len_width: u32,
    pub id_width: u32,
    pub data_width: u32,
}

/// The read/write memory port of `mem_arb`.
pub fn rw_mem_port(mem: &Mem) -> RwMemPort {
    RwMemPort {
        name: "mem".into(),
        addr_width: ADDR_BITS,
        len_width: mem.len_bits(),
        id_width: mem.id_bits(),
        data_width: mem.data_bits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
