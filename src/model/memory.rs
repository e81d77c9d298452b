//! The memory model, the same as the harness's (sim/harness/harness.h, `MemPort`): burst
//! reads answered after a latency plus jitter, in order, one beat per clock at most, a beat
//! slot lost with probability `gap` (bandwidth) and the request ready held low with
//! probability `stall` (backpressure). It draws from the same random stream as the
//! harness's port, so a Rust model of a unit can predict the clocks of a co-simulation.

use std::collections::VecDeque;

use crate::rng::{Rng, STREAM_PORT_BASE};

/// Memory timing; `sim::MemTiming` carries the same numbers to the harness.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Timing {
    pub latency: u64,
    pub jitter: u64,
    pub gap: f64,
    pub stall: f64,
}

#[derive(Debug, Clone, Copy)]
struct Burst {
    addr: u64,
    due: u64,
}

/// One memory read port.
#[derive(Debug, Clone)]
pub struct Memory {
    timing: Timing,
    beats: u32,
    rng: Rng,
    pending: VecDeque<Burst>,
    beat: u32,
    offering: bool,
    /// Burst requests accepted and beats delivered so far.
    pub requests: u64,
    pub beats_sent: u64,
}

/// What memory drives before a clock edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Drive {
    pub req_ready: bool,
    /// The beat offered: burst address and beat number.
    pub rsp: Option<(u64, u32)>,
}

impl Memory {
    /// Port `port_index` of the unit (its place among all ports, as the harness counts).
    pub fn new(timing: Timing, beats: u32, seed: u64, port_index: u64) -> Self {
        Self {
            timing,
            beats,
            rng: Rng::stream(seed, STREAM_PORT_BASE + port_index),
            pending: VecDeque::new(),
            beat: 0,
            offering: false,
            requests: 0,
            beats_sent: 0,
        }
    }

    /// Before the edge of clock `cycle`: ready for a request unless stalled; the head
    /// burst's next beat once due, unless its slot is lost.
    pub fn drive(&mut self, cycle: u64) -> Drive {
        let req_ready = !self.rng.chance(self.timing.stall);
        if !self.offering
            && self.pending.front().is_some_and(|b| b.due <= cycle)
            && !self.rng.chance(self.timing.gap)
        {
            self.offering = true;
        }
        Drive {
            req_ready,
            rsp: self
                .offering
                .then(|| self.pending.front().map(|b| (b.addr, self.beat)))
                .flatten(),
        }
    }

    /// At the edge: `req` is a request the unit offered while ready was high; `rsp_ready`
    /// whether the unit took the offered beat.
    pub fn edge(&mut self, cycle: u64, req: Option<u64>, rsp_ready: bool) {
        if let Some(addr) = req {
            let jitter = if self.timing.jitter > 0 {
                self.rng.next_u64() % (self.timing.jitter + 1)
            } else {
                0
            };
            self.pending.push_back(Burst {
                addr,
                due: cycle + 1 + self.timing.latency + jitter,
            });
            self.requests += 1;
        }
        if self.offering && rsp_ready {
            self.offering = false;
            self.beats_sent += 1;
            self.beat += 1;
            if self.beat == self.beats {
                self.beat = 0;
                self.pending.pop_front();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit that asks for `n` bursts back to back and takes every beat at once.
    fn run(timing: Timing, n: u64, beats: u32) -> (u64, Vec<(u64, u32)>) {
        let mut m = Memory::new(timing, beats, 1, 0);
        let (mut asked, mut got, mut cycle) = (0, Vec::new(), 0);
        while (got.len() as u64) < n * u64::from(beats) {
            let d = m.drive(cycle);
            let req = (asked < n && d.req_ready).then_some(asked * 64);
            asked += u64::from(req.is_some());
            if let Some(b) = d.rsp {
                got.push(b);
            }
            m.edge(cycle, req, true);
            cycle += 1;
        }
        (cycle, got)
    }

    #[test]
    fn first_beat_comes_one_clock_after_the_latency() {
        for latency in [0, 1, 100] {
            let (cycles, got) = run(
                Timing {
                    latency,
                    ..Timing::default()
                },
                10,
                4,
            );
            assert_eq!(cycles, latency + 1 + 40);
            assert_eq!(got[0], (0, 0));
            assert_eq!(got[39], (9 * 64, 3), "bursts and beats in order");
        }
    }

    #[test]
    fn lost_beat_slots_and_stalls_slow_it_down_but_keep_the_order() {
        let t = Timing {
            latency: 10,
            jitter: 20,
            gap: 0.5,
            stall: 0.5,
        };
        let (cycles, got) = run(t, 20, 4);
        assert!(cycles > 2 * 80, "half the beat slots lost: {cycles}");
        let expect: Vec<(u64, u32)> = (0..20)
            .flat_map(|b| (0..4).map(move |k| (b * 64, k)))
            .collect();
        assert_eq!(got, expect);
    }
}

/// The read/write memory of `mem_arb`'s port, the same as the harness's (`RwMem` in
/// sim/harness/harness.h): bursts {addr, beats, write, id} served in request order, one
/// beat per clock at most; a read's first beat is due `latency` (+ up to `jitter`) clocks
/// after its request, a write's beats are taken from the clock after; a burst whose row
/// (`addr >> row_bits`, `row_bits > 0`) differs from the previous burst's starts
/// `row_penalty` clocks after the previous burst's last beat at the earliest. A beat slot is lost with probability `gap` and the request
/// ready is low with probability `stall`, drawn from the same stream as the harness's.
/// Memory starts as [`crate::model::mem_arb::initial_beat`] and keeps what is written.
#[derive(Debug, Clone)]
pub struct RwMemory {
    timing: Timing,
    row_bits: u64,
    row_penalty: u64,
    data_bits: u32,
    rng: Rng,
    pending: VecDeque<RwBurst>,
    beat: u32,
    offering: bool,
    taking: bool,
    /// The row of the last burst completed and the clock of its last beat.
    last: Option<(u64, u64)>,
    /// Beat address -> data, for every beat written.
    pub image: std::collections::BTreeMap<u64, crate::vectors::Bits>,
    pub requests: u64,
    pub read_beats: u64,
    pub write_beats: u64,
}

/// One burst request on a read/write memory port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RwBurst {
    pub addr: u64,
    pub beats: u32,
    pub write: bool,
    pub id: u64,
    due: u64,
}

impl RwBurst {
    pub fn new(addr: u64, beats: u32, write: bool, id: u64) -> Self {
        Self {
            addr,
            beats,
            write,
            id,
            due: 0,
        }
    }
}

/// What a read/write memory drives before a clock edge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RwDrive {
    pub req_ready: bool,
    /// Write data taken this clock (the head burst is a write and due).
    pub wdata_ready: bool,
    /// The read beat offered.
    pub rdata: Option<crate::vectors::Bits>,
}

impl RwMemory {
    /// Port `port_index` of the unit (its place among all ports, as the harness counts).
    pub fn new(
        timing: Timing,
        row_bits: u64,
        row_penalty: u64,
        data_bits: u32,
        seed: u64,
        port_index: u64,
    ) -> Self {
        Self {
            timing,
            row_bits,
            row_penalty,
            data_bits,
            rng: Rng::stream(seed, STREAM_PORT_BASE + port_index),
            pending: VecDeque::new(),
            beat: 0,
            offering: false,
            taking: false,
            last: None,
            image: std::collections::BTreeMap::new(),
            requests: 0,
            read_beats: 0,
            write_beats: 0,
        }
    }

    fn beat_bytes(&self) -> u64 {
        u64::from(self.data_bits / 8)
    }

    /// The beat at beat address `addr` now.
    pub fn read_beat(&self, addr: u64) -> crate::vectors::Bits {
        self.image
            .get(&addr)
            .cloned()
            .unwrap_or_else(|| crate::model::mem_arb::initial_beat(addr, self.data_bits))
    }

    fn row(&self, addr: u64) -> u64 {
        if self.row_bits > 0 {
            addr >> self.row_bits
        } else {
            0
        }
    }

    /// The first clock the head burst may move a beat.
    fn head_due(&self, b: &RwBurst) -> u64 {
        match self.last {
            Some((row, end)) if self.row_bits > 0 && self.row(b.addr) != row => {
                b.due.max(end + 1 + self.row_penalty)
            }
            _ => b.due,
        }
    }

    /// Before the edge of clock `cycle`.
    pub fn drive(&mut self, cycle: u64) -> RwDrive {
        let req_ready = !self.rng.chance(self.timing.stall);
        self.taking = false;
        if !self.offering
            && self
                .pending
                .front()
                .is_some_and(|b| self.head_due(b) <= cycle)
            && !self.rng.chance(self.timing.gap)
        {
            if self.pending.front().is_some_and(|b| b.write) {
                self.taking = true;
            } else {
                self.offering = true;
            }
        }
        let rdata = match (self.offering, self.pending.front()) {
            (true, Some(b)) => {
                Some(self.read_beat(b.addr + u64::from(self.beat) * self.beat_bytes()))
            }
            _ => None,
        };
        RwDrive {
            req_ready,
            wdata_ready: self.taking,
            rdata,
        }
    }

    /// At the edge: `req` a request offered while ready was high, `wdata` a write beat
    /// offered (taken if `wdata_ready` was driven), `rdata_ready` whether the read beat
    /// was taken.
    pub fn edge(
        &mut self,
        cycle: u64,
        req: Option<RwBurst>,
        wdata: Option<&crate::vectors::Bits>,
        rdata_ready: bool,
    ) {
        if let Some(mut b) = req {
            let mut delay = 1;
            if !b.write {
                delay += self.timing.latency;
                if self.timing.jitter > 0 {
                    delay += self.rng.next_u64() % (self.timing.jitter + 1);
                }
            }
            b.due = cycle + delay;
            self.pending.push_back(b);
            self.requests += 1;
        }
        let bb = self.beat_bytes();
        let moved = match (self.taking, wdata, self.pending.front()) {
            (true, Some(d), Some(b)) => {
                self.image
                    .insert(b.addr + u64::from(self.beat) * bb, d.clone());
                self.write_beats += 1;
                true
            }
            _ if self.offering && rdata_ready => {
                self.offering = false;
                self.read_beats += 1;
                true
            }
            _ => false,
        };
        if moved {
            self.beat += 1;
            if let Some(b) = self.pending.front().copied()
                && self.beat == b.beats
            {
                self.beat = 0;
                self.last = Some((self.row(b.addr), cycle));
                self.pending.pop_front();
            }
        }
    }

    /// No burst pending.
    pub fn idle(&self) -> bool {
        self.pending.is_empty()
    }
}

#[cfg(test)]
mod rw_tests {
    use super::*;
    use crate::vectors::Bits;

    /// Writes `n` 4-beat bursts and reads them back, a unit that takes every beat at once.
    fn run(timing: Timing, rows: (u64, u64), n: u64) -> (u64, RwMemory, Vec<Bits>) {
        let mut m = RwMemory::new(timing, rows.0, rows.1, 64, 3, 0);
        let mut reqs: VecDeque<RwBurst> = (0..n)
            .map(|i| RwBurst::new(i * 4096, 4, true, 0))
            .chain((0..n).map(|i| RwBurst::new(i * 4096, 4, false, 1)))
            .collect();
        let mut wbeats: VecDeque<Bits> = (0..n * 4).map(|i| Bits::from_u64(64, 1000 + i)).collect();
        let (mut got, mut cycle) = (Vec::new(), 0);
        while got.len() < (n * 4) as usize {
            let d = m.drive(cycle);
            let req = if d.req_ready { reqs.pop_front() } else { None };
            let w = if d.wdata_ready {
                wbeats.pop_front()
            } else {
                None
            };
            if let Some(b) = &d.rdata {
                got.push(b.clone());
            }
            m.edge(cycle, req, w.as_ref(), true);
            cycle += 1;
            assert!(cycle < 100_000, "memory stuck");
        }
        (cycle, m, got)
    }

    #[test]
    fn reads_return_what_was_written_in_order() {
        let (_, m, got) = run(Timing::default(), (0, 0), 5);
        let want: Vec<Bits> = (0..20).map(|i| Bits::from_u64(64, 1000 + i)).collect();
        assert_eq!(got, want);
        assert_eq!((m.write_beats, m.read_beats, m.requests), (20, 20, 10));
        assert!(m.idle());
        assert_eq!(m.image.len(), 20);
    }

    #[test]
    fn ideal_memory_streams_one_beat_per_clock_and_rows_cost_clocks() {
        // 40 beats: with every request taken at once, writes stream from the clock after
        // the first request, reads follow with no gap when there is no latency.
        let (ideal, _, _) = run(Timing::default(), (0, 0), 5);
        assert_eq!(ideal, 1 + 40);
        // Every burst is in a new 4 KiB row, and reads go back to row 0: each burst but
        // the first opens its row 3 clocks after the previous burst's last beat.
        let (rows, _, _) = run(Timing::default(), (12, 3), 5);
        assert_eq!(rows, 1 + 40 + 9 * 3);
        // Latency delays reads; gaps and stalls slow everything, and order holds.
        let t = Timing {
            latency: 10,
            jitter: 5,
            gap: 0.3,
            stall: 0.3,
        };
        let (slow, _, got) = run(t, (0, 0), 5);
        assert!(slow > ideal + 10);
        let want: Vec<Bits> = (0..20).map(|i| Bits::from_u64(64, 1000 + i)).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn unwritten_memory_reads_the_shared_words() {
        let m = RwMemory::new(Timing::default(), 0, 0, 64, 1, 0);
        let b = m.read_beat(0x40);
        assert_eq!(b.field(0, 32), u64::from(crate::rng::memory_word(0x40)));
        assert_eq!(b.field(32, 32), u64::from(crate::rng::memory_word(0x44)));
    }
}
