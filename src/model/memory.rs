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
/// sim/harness/harness.h): bursts {addr, beats, write, id}, one beat per clock at most on
/// one data bus; reads in request order among reads, writes among writes. A read's first
/// beat is due `latency` (+ up to `jitter`) clocks after its request; a write is posted,
/// its beats taken from the clock after its request even while earlier reads wait. A
/// burst holds the bus from its first beat to its last; when both a read and a write may
/// start, the older request goes first. A read returns every earlier write and no later
/// one: it waits for earlier writes to its beats, and later writes that finish first do
/// not show in it. A burst whose row (`addr >> row_bits`, `row_bits > 0`) differs from the
/// previous burst's starts `row_penalty` clocks after the previous burst's last beat at
/// the earliest. A beat slot is lost with probability `gap` and the request ready is low
/// with probability `stall`, drawn from the same stream as the harness's. Memory starts as
/// [`crate::model::mem_arb::initial_beat`] and keeps what is written. A write beat is
/// `{strb, data}` (the contract's `wbeat_layout`): it changes only the bytes its strobes
/// enable.
#[derive(Debug, Clone)]
pub struct RwMemory {
    timing: Timing,
    row_bits: u64,
    row_penalty: u64,
    data_bits: u32,
    rng: Rng,
    reads: VecDeque<RwBurst>,
    writes: VecDeque<RwBurst>,
    next_seq: u64,
    /// The burst holding the bus (its first beat has moved).
    bus: Bus,
    /// The burst offered or taken this clock.
    next: Bus,
    beat: u32,
    offering: bool,
    taking: bool,
    /// The row of the last burst completed and the clock of its last beat.
    last: Option<(u64, u64)>,
    /// Beat address -> data, for every beat a write beat went to (bytes never enabled as
    /// memory started).
    pub image: std::collections::BTreeMap<u64, crate::vectors::Bits>,
    /// Beat address -> (request number, data) of the writes a pending read may still see.
    history: std::collections::BTreeMap<u64, Vec<(u64, crate::vectors::Bits)>>,
    pub requests: u64,
    pub read_beats: u64,
    pub write_beats: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bus {
    Free,
    Read,
    Write,
}

/// One burst request on a read/write memory port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RwBurst {
    pub addr: u64,
    pub beats: u32,
    pub write: bool,
    pub id: u64,
    due: u64,
    seq: u64,
}

impl RwBurst {
    pub fn new(addr: u64, beats: u32, write: bool, id: u64) -> Self {
        Self {
            addr,
            beats,
            write,
            id,
            due: 0,
            seq: 0,
        }
    }
}

/// What a read/write memory drives before a clock edge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RwDrive {
    pub req_ready: bool,
    /// Write data taken this clock.
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
            reads: VecDeque::new(),
            writes: VecDeque::new(),
            next_seq: 0,
            bus: Bus::Free,
            next: Bus::Free,
            beat: 0,
            offering: false,
            taking: false,
            last: None,
            image: std::collections::BTreeMap::new(),
            history: std::collections::BTreeMap::new(),
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

    /// The beat at `addr` as request number `seq` sees it: the last earlier write.
    fn read_beat_at(&self, addr: u64, seq: u64) -> crate::vectors::Bits {
        self.history
            .get(&addr)
            .and_then(|h| h.iter().rev().find(|(s, _)| *s < seq))
            .map(|(_, d)| d.clone())
            .unwrap_or_else(|| crate::model::mem_arb::initial_beat(addr, self.data_bits))
    }

    /// A write beat `{strb, data}` lands on its enabled bytes: keep only what a pending
    /// read can still see.
    fn write_beat(&mut self, addr: u64, seq: u64, wbeat: &crate::vectors::Bits) {
        // Writes land in request order, so the beat now is what this write merges with.
        let data = crate::model::mem_arb::merge_wbeat(&self.read_beat(addr), wbeat);
        self.image.insert(addr, data.clone());
        let oldest = self.reads.front().map_or(self.next_seq, |r| r.seq);
        let h = self.history.entry(addr).or_default();
        h.push((seq, data));
        let keep = h.iter().rposition(|(s, _)| *s < oldest).unwrap_or(0);
        h.drain(..keep);
    }

    fn row(&self, addr: u64) -> u64 {
        if self.row_bits > 0 {
            addr >> self.row_bits
        } else {
            0
        }
    }

    /// The first clock `b` may move its first beat.
    fn start_due(&self, b: &RwBurst) -> u64 {
        match self.last {
            Some((row, end)) if self.row_bits > 0 && self.row(b.addr) != row => {
                b.due.max(end + 1 + self.row_penalty)
            }
            _ => b.due,
        }
    }

    /// The head read may start: due, and no earlier write to its beats pending.
    fn read_may_start(&self, cycle: u64) -> bool {
        let Some(r) = self.reads.front() else {
            return false;
        };
        let bb = self.beat_bytes();
        let (lo, hi) = (r.addr, r.addr + u64::from(r.beats) * bb);
        self.start_due(r) <= cycle
            && !self
                .writes
                .iter()
                .take_while(|w| w.seq < r.seq)
                .any(|w| w.addr < hi && lo < w.addr + u64::from(w.beats) * bb)
    }

    /// Which burst moves a beat this clock, before the lost-slot draw.
    fn choose(&self, cycle: u64) -> Bus {
        if self.bus != Bus::Free {
            return self.bus;
        }
        let r = self.read_may_start(cycle);
        let w = self
            .writes
            .front()
            .is_some_and(|b| self.start_due(b) <= cycle);
        match (self.reads.front(), self.writes.front()) {
            (Some(rb), Some(wb)) if r && w => {
                if rb.seq < wb.seq {
                    Bus::Read
                } else {
                    Bus::Write
                }
            }
            _ if r => Bus::Read,
            _ if w => Bus::Write,
            _ => Bus::Free,
        }
    }

    /// Before the edge of clock `cycle`.
    pub fn drive(&mut self, cycle: u64) -> RwDrive {
        let req_ready = !self.rng.chance(self.timing.stall);
        self.taking = false;
        if !self.offering {
            self.next = self.choose(cycle);
            if self.next != Bus::Free && !self.rng.chance(self.timing.gap) {
                if self.next == Bus::Write {
                    self.taking = true;
                } else {
                    self.offering = true;
                }
            }
        }
        let rdata = match (self.offering, self.reads.front()) {
            (true, Some(b)) => {
                Some(self.read_beat_at(b.addr + u64::from(self.beat) * self.beat_bytes(), b.seq))
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
    /// `{strb, data}` offered (taken if `wdata_ready` was driven), `rdata_ready` whether
    /// the read beat was taken.
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
            b.seq = self.next_seq;
            self.next_seq += 1;
            if b.write {
                self.writes.push_back(b);
            } else {
                self.reads.push_back(b);
            }
            self.requests += 1;
        }
        let bb = self.beat_bytes();
        let moved = match (self.taking, wdata, self.writes.front().copied()) {
            (true, Some(d), Some(b)) => {
                self.write_beat(b.addr + u64::from(self.beat) * bb, b.seq, d);
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
            self.bus = self.next;
            let queue = if self.bus == Bus::Read {
                &mut self.reads
            } else {
                &mut self.writes
            };
            self.beat += 1;
            if let Some(b) = queue.front().copied()
                && self.beat == b.beats
            {
                queue.pop_front();
                self.beat = 0;
                self.bus = Bus::Free;
                self.last = Some((self.row(b.addr), cycle));
            }
        }
    }

    /// No burst pending.
    pub fn idle(&self) -> bool {
        self.reads.is_empty() && self.writes.is_empty()
    }
}

#[cfg(test)]
mod rw_tests {
    use super::*;
    use crate::model::mem_arb::encode_wbeat;
    use crate::vectors::Bits;

    /// A write beat of `value` with every byte enabled.
    fn full(value: u64) -> Bits {
        encode_wbeat(&Bits::from_u64(64, value), 0xff)
    }

    /// Writes `n` 4-beat bursts and reads them back, a unit that takes every beat at once.
    fn run(timing: Timing, rows: (u64, u64), n: u64) -> (u64, RwMemory, Vec<Bits>) {
        let mut m = RwMemory::new(timing, rows.0, rows.1, 64, 3, 0);
        let mut reqs: VecDeque<RwBurst> = (0..n)
            .map(|i| RwBurst::new(i * 4096, 4, true, 0))
            .chain((0..n).map(|i| RwBurst::new(i * 4096, 4, false, 1)))
            .collect();
        let mut wbeats: VecDeque<Bits> = (0..n * 4).map(|i| full(1000 + i)).collect();
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
        // Writes each in a new 4 KiB row: each burst but the first opens its row 3 clocks
        // after the previous burst's last beat.
        let reqs: Vec<RwBurst> = (0..3).map(|i| RwBurst::new(i * 4096, 2, true, 0)).collect();
        let (_, _, writes) = timeline(0, (12, 3), &reqs, 0);
        assert_eq!(writes, vec![1, 2, 6, 7, 11, 12]);
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

    /// Runs `reqs` (requested one a clock, in order) with write beats offered from clock
    /// `wdata_from` on; returns the clock each read beat came and each write beat went.
    fn timeline(
        latency: u64,
        rows: (u64, u64),
        reqs: &[RwBurst],
        wdata_from: u64,
    ) -> (RwMemory, Vec<(u64, Bits)>, Vec<u64>) {
        let mut m = RwMemory::new(
            Timing {
                latency,
                ..Timing::default()
            },
            rows.0,
            rows.1,
            64,
            3,
            0,
        );
        let mut reqs: VecDeque<RwBurst> = reqs.iter().copied().collect();
        let (mut reads, mut writes, mut n) = (Vec::new(), Vec::new(), 0u64);
        for cycle in 0..1000 {
            let d = m.drive(cycle);
            let req = if d.req_ready { reqs.pop_front() } else { None };
            let beat = full(7000 + n);
            let w = (d.wdata_ready && cycle >= wdata_from).then_some(&beat);
            if w.is_some() {
                writes.push(cycle);
                n += 1;
            }
            if let Some(b) = &d.rdata {
                reads.push((cycle, b.clone()));
            }
            m.edge(cycle, req, w, true);
        }
        assert!(m.idle());
        (m, reads, writes)
    }

    #[test]
    fn writes_are_posted_past_reads_waiting_for_their_latency() {
        // A read, then a write elsewhere: the write's beats go while the read waits.
        let (_, reads, writes) = timeline(
            100,
            (0, 0),
            &[RwBurst::new(0, 4, false, 0), RwBurst::new(4096, 4, true, 1)],
            0,
        );
        assert_eq!(writes, vec![2, 3, 4, 5]);
        let clocks: Vec<u64> = reads.iter().map(|r| r.0).collect();
        assert_eq!(clocks, vec![101, 102, 103, 104]);
    }

    #[test]
    fn a_read_sees_earlier_writes_and_not_later_ones() {
        // Read A, write A, read A: the write lands first, yet the first read returns what
        // was there before it and the second read what it wrote.
        let (m, reads, writes) = timeline(
            50,
            (0, 0),
            &[
                RwBurst::new(0, 2, false, 0),
                RwBurst::new(0, 2, true, 1),
                RwBurst::new(0, 2, false, 2),
            ],
            0,
        );
        assert_eq!(writes, vec![2, 3]);
        let old: Vec<Bits> = (0..2).map(|k| m.read_beat(8 * k)).collect();
        assert_ne!(old[0], initial_beat(0));
        let got: Vec<Bits> = reads.iter().map(|r| r.1.clone()).collect();
        assert_eq!(got[..2], [initial_beat(0), initial_beat(8)]);
        assert_eq!(got[2..], old[..]);
        // Write data that comes late holds back a later read of the same beats, and the
        // read then returns it.
        let (_, reads, writes) = timeline(
            0,
            (0, 0),
            &[RwBurst::new(64, 2, true, 0), RwBurst::new(64, 2, false, 1)],
            40,
        );
        assert_eq!(writes, vec![40, 41]);
        assert_eq!(reads[0].0, 42);
        assert_eq!(reads[0].1, Bits::from_u64(64, 7000));
    }

    fn initial_beat(addr: u64) -> Bits {
        crate::model::mem_arb::initial_beat(addr, 64)
    }

    #[test]
    fn strobes_pick_the_bytes_a_write_changes() {
        // Two one-beat writes to beat 0 (low half, then byte 5 and none), then a read.
        let mut m = RwMemory::new(Timing::default(), 0, 0, 64, 3, 0);
        let mut reqs: VecDeque<RwBurst> = [true, true, true, false]
            .iter()
            .map(|&w| RwBurst::new(0, 1, w, 0))
            .collect();
        let mut wbeats: VecDeque<Bits> = [(0x0f, u64::MAX), (0x20, 0), (0x00, 0)]
            .iter()
            .map(|&(s, v)| encode_wbeat(&Bits::from_u64(64, v), s))
            .collect();
        let mut got = None;
        for cycle in 0..100 {
            let d = m.drive(cycle);
            let req = if d.req_ready { reqs.pop_front() } else { None };
            let w = if d.wdata_ready {
                wbeats.pop_front()
            } else {
                None
            };
            got = got.or(d.rdata.clone());
            m.edge(cycle, req, w.as_ref(), true);
        }
        let old = initial_beat(0).low_u64();
        let want = Bits::from_u64(64, (old & 0xffff_00ff_0000_0000) | 0x0000_0000_ffff_ffff);
        assert_eq!(got, Some(want.clone()));
        assert_eq!(m.image[&0], want);
        assert_eq!(m.write_beats, 3);
    }

    #[test]
    fn unwritten_memory_reads_the_shared_words() {
        let m = RwMemory::new(Timing::default(), 0, 0, 64, 1, 0);
        let b = m.read_beat(0x40);
        assert_eq!(b.field(0, 32), u64::from(crate::rng::memory_word(0x40)));
        assert_eq!(b.field(32, 32), u64::from(crate::rng::memory_word(0x44)));
    }
}
