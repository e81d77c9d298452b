//! Which block holds a queue: `hs_fifo`'s flop array or `hs_ram_fifo`'s block RAM, and
//! what its output reads through (timing decisions behind a queue depend on that).

/// Shallowest queue kept in block RAM (`hs_ram_fifo`) rather than `hs_fifo`'s flop array.
/// An FPGA maps that array to LUT RAM of 16 entries a cell, read through a depth/16:1
/// multiplexer: from 64 entries that is 3 LUT levels or more on the output and a LUT-RAM
/// cell per 4 bits x 16 entries (the texture cache's 256 x 76-bit pass queue took 304),
/// where one block RAM, or an SRAM macro on an ASIC, holds it all.
pub const RAM_FIFO_MIN_DEPTH: u32 = 64;

/// `hs_ram_fifo`'s head entries: a pop's credit, the RAM's two read registers and the head
/// write are four clocks, so four entries keep a stream through the RAM at one a clock.
pub const RAM_FIFO_HEAD: u32 = 4;

/// The storage of a queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FifoStorage {
    /// `hs_fifo`: a flop array (LUT RAM on an FPGA) read through a depth:1 multiplexer.
    Flops,
    /// `hs_ram_fifo`: a block RAM read ahead into [`RAM_FIFO_HEAD`] flop entries.
    Ram,
}

impl FifoStorage {
    /// The storage of a queue `depth` deep.
    pub fn of(depth: u32) -> Self {
        if depth >= RAM_FIFO_MIN_DEPTH {
            Self::Ram
        } else {
            Self::Flops
        }
    }

    /// The block (template and module base name).
    pub fn block(self) -> &'static str {
        match self {
            Self::Flops => "hs_fifo",
            Self::Ram => "hs_ram_fifo",
        }
    }

    /// Entries the output multiplexer selects among, for a queue `depth` deep.
    pub fn read_mux(self, depth: u32) -> u32 {
        match self {
            Self::Flops => depth,
            Self::Ram => RAM_FIFO_HEAD,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_queues_go_to_block_ram_and_read_through_the_head() {
        assert_eq!(FifoStorage::of(RAM_FIFO_MIN_DEPTH - 1), FifoStorage::Flops);
        assert_eq!(FifoStorage::of(RAM_FIFO_MIN_DEPTH), FifoStorage::Ram);
        assert_eq!(FifoStorage::of(16).read_mux(16), 16);
        assert_eq!(FifoStorage::of(264).read_mux(264), RAM_FIFO_HEAD);
        assert_eq!(FifoStorage::of(264).block(), "hs_ram_fifo");
    }
}
