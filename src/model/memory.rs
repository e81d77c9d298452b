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
