//! The pipeline schedule: how many register stages a path needs at the config's clock.
//!
//! Each family has a small delay table (one LUT level with its net, a carry chain, a
//! multiplier, a RAM read, the register overhead). A unit describes a path as the
//! operations on it, in order; [`Timing::schedule`] packs them greedily into stages no
//! longer than the period, as a scheduler such as Google XLS's does against a clock. The
//! RTL descriptions and the cycle models read the same schedule, so a deeper pipeline is
//! a longer latency in both.
//!
//! The figures are estimates for scheduling, not sign-off: `gpurtl synth` measures. ECP5
//! speed 6 is from Project Trellis's timing data as nextpnr reports it (a LUT4 and its net
//! about 1 ns, block RAM clock-to-out 5.6 ns without its output register); the others are
//! scaled from their vendors' data sheets.

use crate::config::{ClockSection, Family};

/// One family's delays, in ns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Delays {
    /// Clock-to-out plus setup plus the first net: what every stage pays.
    pub register: f64,
    /// One LUT level (or two gate levels) with its net.
    pub lut: f64,
    /// Into and out of a carry chain.
    pub carry_base: f64,
    /// Each bit of a carry chain.
    pub carry_bit: f64,
    /// A multiplier of up to 18x18 bits with no register inside it.
    pub mult: f64,
    /// A block RAM read with its output register off: clock to data.
    pub ram_read: f64,
    /// What a net's routing grows by each time its loads double past four (an enable
    /// reaching every bit of a wide register).
    pub fanout_doubling: f64,
    /// The fastest clock a registered block RAM or DSP takes (minimum pulse width), MHz.
    pub hard_block_mhz: f64,
    /// Entries of one block RAM in its deepest configuration (0: no limit). A deeper table
    /// is a column of RAMs whose outputs meet in a multiplexer.
    pub ram_depth: u64,
}

// Calibrated against nextpnr's critical paths of the generated units (2026-12-03): a
// register's clock-to-out and first net 1.9 ns; a LUT4 and its net 1.3; a carry chain's
// way in (0.45), first and last cells (0.4) and the net out (about 0.9) 1.75 ns, then
// 0.035 ns a bit (0.07 per CCU2C of two bits). The first table (1.6, 1.1, 0.6, 0.05)
// scheduled tex_filter's two chained adders into one 150 MHz stage that took 7.6 ns.
pub const ECP5: Delays = Delays {
    register: 1.9,
    lut: 1.3,
    carry_base: 1.75,
    carry_bit: 0.035,
    mult: 4.3,
    ram_read: 5.6,
    fanout_doubling: 0.25,
    hard_block_mhz: 212.0,
    ram_depth: 16384,
};

pub const ICE40: Delays = Delays {
    register: 2.2,
    lut: 1.8,
    carry_base: 0.9,
    carry_bit: 0.13,
    // No DSP on the HX parts: a product in LUTs.
    mult: 14.0,
    ram_read: 3.0,
    fanout_doubling: 0.35,
    hard_block_mhz: 256.0,
    ram_depth: 2048,
};

pub const XILINX7: Delays = Delays {
    register: 0.9,
    lut: 0.6,
    carry_base: 0.4,
    carry_bit: 0.02,
    mult: 3.4,
    ram_read: 2.5,
    fanout_doubling: 0.15,
    hard_block_mhz: 450.0,
    ram_depth: 32768,
};

pub const ASIC: Delays = Delays {
    register: 0.7,
    lut: 0.5,
    carry_base: 0.3,
    carry_bit: 0.1,
    mult: 6.0,
    ram_read: 2.0,
    fanout_doubling: 0.2,
    hard_block_mhz: 1000.0,
    ram_depth: 0,
};

/// An operation on a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `n` levels of LUTs.
    Lut(u32),
    /// An adder, subtractor or comparator of `n` bits (one carry chain).
    Carry(u32),
    /// An `n`-to-1 multiplexer.
    Mux(u32),
    /// A multiplier of up to 18x18 bits.
    Mult,
    /// A block RAM read (unregistered output).
    RamRead,
    /// A net to `n` loads: the routing beyond a typical net (which `Lut` counts).
    Fanout(u32),
}

/// The clock a design is scheduled for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    pub family: Family,
    pub target_mhz: f64,
    pub period_ns: f64,
    pub delays: Delays,
}

impl Timing {
    pub fn new(clock: &ClockSection) -> Self {
        let delays = match clock.family {
            Family::Ecp5 => ECP5,
            Family::Ice40 => ICE40,
            Family::Xilinx7 => XILINX7,
            Family::Asic => ASIC,
        };
        Self {
            family: clock.family,
            target_mhz: clock.target_mhz,
            period_ns: 1000.0 / clock.target_mhz,
            delays,
        }
    }

    /// The same delays at `mhz` where that is the faster clock: for logic built with
    /// margin over the target (the handshake chain's slices).
    pub fn at_least(&self, mhz: f64) -> Timing {
        let target_mhz = self.target_mhz.max(mhz);
        Timing {
            family: self.family,
            target_mhz,
            period_ns: 1000.0 / target_mhz,
            delays: self.delays,
        }
    }

    /// What logic between two registers may take.
    pub fn budget(&self) -> f64 {
        self.period_ns - self.delays.register
    }

    pub fn delay(&self, op: Op) -> f64 {
        let d = &self.delays;
        match op {
            Op::Lut(n) => f64::from(n) * d.lut,
            Op::Carry(n) => d.carry_base + f64::from(n) * d.carry_bit,
            // A LUT4 level is a 2:1 mux with room to spare; ECP5's PFU muxes make it about
            // two select bits a level.
            Op::Mux(n) => f64::from(clog2(n).div_ceil(2)) * d.lut,
            Op::Mult => d.mult,
            Op::RamRead => d.ram_read,
            // ECP5: an enable to 512 flops or 128 LUT-RAMs took 1.7 ns more routing than a
            // local net, to 32 flops 0.5 ns.
            Op::Fanout(n) => f64::from(clog2(n.div_ceil(4))) * d.fanout_doubling,
        }
    }

    pub fn path(&self, ops: &[Op]) -> f64 {
        ops.iter().map(|&o| self.delay(o)).sum()
    }

    /// Whether `ops` fit between two registers.
    pub fn fits(&self, ops: &[Op]) -> bool {
        self.path(ops) <= self.budget()
    }

    /// The stage of each op: greedy, in order, a new stage whenever the next op would
    /// overrun the budget. An op longer than the budget on its own gets a stage to itself
    /// (the schedule cannot split it; synthesis reports the miss).
    pub fn schedule(&self, ops: &[Op]) -> Vec<u32> {
        let mut stage = 0;
        let mut used = 0.0;
        ops.iter()
            .map(|&o| {
                let d = self.delay(o);
                if used > 0.0 && used + d > self.budget() {
                    stage += 1;
                    used = 0.0;
                }
                used += d;
                stage
            })
            .collect()
    }

    /// Where registers go between blocks of logic that each stay whole (a stage of a
    /// hand-written pipeline): greedy, in order, a register after block `i` (entry `i` of
    /// the result, one fewer than the blocks) whenever block `i + 1` would overrun what
    /// the stage since the last register has left. A block longer than the budget on its
    /// own still ends at a register.
    pub fn cut_blocks(&self, blocks: &[&[Op]]) -> Vec<bool> {
        let mut used = blocks.first().map_or(0.0, |b| self.path(b));
        blocks
            .iter()
            .skip(1)
            .map(|b| {
                let d = self.path(b);
                let cut = used + d > self.budget();
                used = if cut { d } else { used + d };
                cut
            })
            .collect()
    }

    /// Register stages `ops` take (at least one).
    pub fn stages(&self, ops: &[Op]) -> u32 {
        self.schedule(ops).last().map_or(1, |s| s + 1)
    }

    /// Whether a hard block (block RAM, DSP) may run with its registers at this clock.
    pub fn hard_blocks_ok(&self) -> bool {
        self.target_mhz <= self.delays.hard_block_mhz
    }
}

fn clog2(n: u32) -> u32 {
    if n <= 1 {
        0
    } else {
        32 - (n - 1).leading_zeros()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(mhz: f64, family: Family) -> Timing {
        Timing::new(&ClockSection {
            target_mhz: mhz,
            family,
        })
    }

    #[test]
    fn a_slower_clock_packs_more_into_a_stage() {
        let ops = [Op::Carry(16), Op::Mult, Op::Carry(24), Op::Lut(1)];
        let slow = at(50.0, Family::Ecp5);
        let fast = at(200.0, Family::Ecp5);
        assert_eq!(slow.stages(&ops), 1);
        assert_eq!(slow.schedule(&ops), vec![0, 0, 0, 0]);
        // 3.1 ns of budget at 200 MHz: the 16-bit add, then the multiplier alone, then
        // the 24-bit add, then the LUT level (2.6 + 1.3 ns would not fit).
        assert_eq!(fast.schedule(&ops), vec![0, 1, 2, 3]);
        assert_eq!(fast.stages(&ops), 4);
        // At 100 MHz (8.1 ns) the two adds around the LUT level share a stage.
        assert_eq!(at(100.0, Family::Ecp5).schedule(&ops), vec![0, 0, 1, 1]);
    }

    #[test]
    fn blocks_stay_whole_and_share_a_stage_only_when_both_fit() {
        let blocks: [&[Op]; 4] = [&[Op::Lut(2)], &[Op::Lut(3)], &[Op::Lut(4)], &[Op::Lut(1)]];
        // 18.1 ns of budget at 50 MHz: 2 + 3 + 4 + 1 levels = 13 ns fit in one stage.
        assert_eq!(at(50.0, Family::Ecp5).cut_blocks(&blocks), vec![false; 3]);
        // 8.1 ns at 100 MHz: 5 levels (6.5 ns), then 4 + 1 (6.5 ns).
        assert_eq!(
            at(100.0, Family::Ecp5).cut_blocks(&blocks),
            vec![false, true, false]
        );
        // 3.1 ns at 200 MHz: every block alone, the 3- and 4-level ones over budget.
        assert_eq!(at(200.0, Family::Ecp5).cut_blocks(&blocks), vec![true; 3]);
        assert!(at(200.0, Family::Ecp5).cut_blocks(&blocks[..1]).is_empty());
    }

    #[test]
    fn an_op_longer_than_the_period_gets_its_own_stage() {
        let t = at(400.0, Family::Ecp5);
        assert_eq!(
            t.schedule(&[Op::Lut(1), Op::RamRead, Op::Lut(1)]),
            vec![0, 1, 2]
        );
    }

    #[test]
    fn families_differ_and_delays_add_up() {
        let e = at(100.0, Family::Ecp5);
        let x = at(100.0, Family::Xilinx7);
        assert!(x.path(&[Op::Lut(4)]) < e.path(&[Op::Lut(4)]));
        assert!((e.delay(Op::Carry(20)) - (1.75 + 20.0 * 0.035)).abs() < 1e-9);
        assert_eq!(e.delay(Op::Mux(1)), 0.0);
        assert!((e.delay(Op::Mux(16)) - 2.0 * 1.3).abs() < 1e-9);
        assert!((e.delay(Op::Mux(64)) - 3.0 * 1.3).abs() < 1e-9);
        assert!(e.hard_blocks_ok());
        assert!(!at(250.0, Family::Ecp5).hard_blocks_ok());
        assert_eq!(e.stages(&[]), 1);
    }
}
