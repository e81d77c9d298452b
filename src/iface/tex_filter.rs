//! The contract of the texture filter: the request and response layouts and the fp32
//! encoding of a channel, which the RTL renders as a table and the model computes.

use super::field::{Field, pack, width};
use super::timing::{Op, Timing};
use crate::config::{FilterProducts, TexFormat, TexOutput, Tmu};

/// Pass codes: a single-level sample, the first level of a trilinear pair (no response),
/// and the second (blended with the first).
pub const PASS_SINGLE: u32 = 0;
pub const PASS_FIRST: u32 = 1;
pub const PASS_SECOND: u32 = 2;
/// Bits of a pass code.
pub const PASS_W: u32 = 2;
/// Bits of a format code (the position in `TexFormat::ALL`; the descriptor's `format`).
pub const FORMAT_W: u32 = 3;
/// Bits of a quad's trilinear weight f between its two levels (f / 256 of level 2).
pub const BLEND_W: u32 = 8;
/// Bits of a memory word: one RGBA8 texel, two 16-bit or four 8-bit ones, or half a DXT1
/// block.
pub const WORD_W: u32 = 32;

/// A channel as fp32 in [0, 1]: exactly c / 255 rounded to the nearest float, the
/// normalisation GL specifies for unsigned normalised 8-bit values.
pub fn unorm8_to_f32(c: u8) -> f32 {
    (f64::from(c) / 255.0) as f32
}

/// The request's fields, as the model and the vectors lay them out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FilterLayout {
    pub lanes: u32,
    /// Quads of 4 lanes (at least one), each with its own trilinear weight f.
    pub quads: u32,
    pub wbits: u32,
    pub sub_w: u32,
    pub dxt1: bool,
    pub tex_w: u32,
    pub lane_w: u32,
    pub req_w: u32,
    pub out_lane_w: u32,
    pub rsp_w: u32,
}

impl FilterLayout {
    pub fn new(tmu: &Tmu) -> Self {
        let dxt1 = tmu.has_format(TexFormat::Dxt1);
        let eight = tmu.has_format(TexFormat::L8) || tmu.has_format(TexFormat::A8);
        // The texel's index in its word: 0..16 in a DXT1 block, 0..4 bytes, 0..2 halves.
        let sub_w = if dxt1 {
            4
        } else if eight {
            2
        } else {
            1
        };
        let out_lane_w = match tmu.output {
            TexOutput::Rgba8 => WORD_W,
            TexOutput::Fp32 => 4 * 32,
        };
        let mut l = Self {
            lanes: tmu.lanes,
            quads: tmu.quads(),
            wbits: tmu.weight_bits,
            sub_w,
            dxt1,
            tex_w: 0,
            lane_w: 0,
            req_w: 0,
            out_lane_w,
            rsp_w: tmu.lanes * out_lane_w,
        };
        l.tex_w = width(&l.texel_fields());
        l.lane_w = width(&l.lane_fields());
        l.req_w = width(&l.req_fields());
        l
    }

    /// A request, lowest first: the lanes (lane 0 lowest), the format code, f per quad
    /// (quad 0 lowest), the pass code (the RTL's `Req<Field>Lsb`).
    pub fn req_fields(&self) -> Vec<Field> {
        pack(&[
            ("Lanes", self.lanes * self.lane_w),
            ("Format", FORMAT_W),
            ("Blends", self.quads * BLEND_W),
            ("Pass", PASS_W),
        ])
    }

    /// A lane of a request, lowest first: active, the weights a (along s) and b (along
    /// t), the four texels of its footprint (texel 0 lowest; the RTL's `Lane<Field>Lsb`).
    pub fn lane_fields(&self) -> Vec<Field> {
        pack(&[
            ("Active", 1),
            ("A", self.wbits),
            ("B", self.wbits),
            ("Texels", 4 * width(&self.texel_fields())),
        ])
    }

    /// A texel of a lane, lowest first: its index in the word, the word, and with DXT1
    /// the block's second word (the RTL's `Tex<Field>Lsb`).
    pub fn texel_fields(&self) -> Vec<Field> {
        let mut f = vec![("Sub", self.sub_w), ("Word", WORD_W)];
        if self.dxt1 {
            f.push(("Aux", WORD_W));
        }
        pack(&f)
    }
}

/// The shifts of x that sum to x * 683 (683 = 1 + 2 + 8 + 32 + 128 + 512).
pub const THIRD_ROWS: [u32; 6] = [0, 1, 3, 5, 7, 9];

/// The width of a third's sums: 765 * 683 < 2^20.
pub const THIRD_W: u32 = 20;

/// The adder tree over `rows` rows: at each level adjacent pairs add and an odd row
/// passes, so a tree of n rows is ceil(log2 n) levels deep.
pub fn tree_levels(rows: u32) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut n = rows;
    while n > 1 {
        out.push((n, n.div_ceil(2)));
        n = n.div_ceil(2);
    }
    out
}

/// With multiplier blocks, whether the level blend's difference (`9 + 2 * weight_bits`
/// bits, signed) is wider than a block's 18-bit input, and so is multiplied as its low 17
/// bits and the rest.
pub fn t_split(weight_bits: u32) -> bool {
    9 + 2 * weight_bits > 18
}

/// One step of the filter's datapath: logic the RTL keeps within one clock, with a
/// register after it where the schedule starts a new stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PipeStep {
    pub name: String,
    pub ops: Vec<Op>,
    /// The stage its inputs are in: registers between the input register and it.
    pub stage: u32,
    /// Whether a register follows it.
    pub reg_after: bool,
}

/// The filter's pipeline, scheduled against the config's clock. Products are sums of
/// shifted rows in adder trees, each tree level a step, so a fast target registers every
/// level and a slow one few; or (`filter_products = "dsp"`) multiplier blocks, each in a
/// stage of its own between its input and output registers, with a carry chain after.
/// The datapath never stalls: a response waits in the output FIFO, whose room the input
/// reserves (a credit per item in flight), so every stage register is a plain flop.
#[derive(Debug, Clone, PartialEq)]
pub struct FilterPipe {
    pub steps: Vec<PipeStep>,
    /// Registers between the input register and the output FIFO.
    pub stages: u32,
    /// Output FIFO entries: enough that the input never waits on an output that drains.
    pub fifo_depth: u32,
    /// The output FIFO gets a spare entry and is written every clock (`hs_fifo`'s
    /// `WriteAlways`) where its full flag's fan-out to every LUT RAM of its storage does
    /// not fit a stage: seed001's four lanes at 200 MHz and up (at 270 that net was the
    /// critical path, 6.95 ns). Not where it fits: on the one-lane filter the spare entry
    /// measured 8 MHz slower.
    pub fifo_write_always: bool,
    /// DXT1's index row (four of a block's sixteen 2-bit indices) is picked by the texel's
    /// sub as the request loads, beside the input register, so that the select step picks
    /// one of four: with more than one lane, where the input register's texel fields
    /// spread over the lanes' datapaths and a 16:1 select from it took most of a clock
    /// (seed001, 2026-12-07). One lane keeps the 16:1 select in its step: with the row
    /// picked at the load it placed about 5 MHz slower over seven seeds.
    pub row_at_load: bool,
    pub target_mhz: f64,
}

impl FilterPipe {
    pub fn new(tmu: &Tmu, timing: &Timing) -> Self {
        let l = FilterLayout::new(tmu);
        let w = l.wbits;
        let (hw, vw) = (8 + w, 8 + 2 * w);
        let tw = vw + 8;
        let mut steps: Vec<(String, Vec<Op>)> = Vec::new();
        let tree = |steps: &mut Vec<(String, Vec<Op>)>, name: &str, rows: u32, width| {
            for (i, _) in tree_levels(rows).iter().enumerate() {
                // The net from the level before costs about a LUT level of its own.
                steps.push((
                    format!("{name}_l{}", i + 1),
                    vec![Op::Lut(1), Op::Carry(width)],
                ));
            }
        };
        let row_at_load = l.dxt1 && tmu.lanes > 1;
        if l.dxt1 {
            // The texel's index bits (one of four where the input register's load picks
            // the row, else one of sixteen) and DXT1's mode compare; the format choice and
            // the colours a third or half blends; their sums; x * 683 for the thirds.
            let per_block = if row_at_load { 4 } else { 16 };
            steps.push(("select".into(), vec![Op::Mux(per_block)]));
            steps.push(("pick".into(), vec![Op::Lut(2)]));
            steps.push(("sum".into(), vec![Op::Carry(10), Op::Lut(1)]));
            tree(&mut steps, "third", THIRD_ROWS.len() as u32, THIRD_W);
            steps.push(("hdiff".into(), vec![Op::Lut(1), Op::Carry(9)]));
        } else {
            steps.push(("pick".into(), vec![Op::Mux(4), Op::Lut(2)]));
            steps.push(("hdiff".into(), vec![Op::Carry(9)]));
        }
        // With multiplier blocks a blend is the block (a stage of its own: its input and
        // output registers) and a carry chain adding the rest.
        let dsp = tmu.filter_products == FilterProducts::Dsp;
        // Where a carry chain and a net to or from a block do not fit the clock, the
        // block's operands come from fabric registers a stage before and its product goes
        // into fabric registers a stage after (the `_out` step): the blocks sit in their
        // own columns, and on seed001's filter at 200 MHz a carry chain's result into a
        // block, or a product into a carry chain, took a 2.7-3.6 ns net, about two LUT
        // levels of routing. A slow target takes neither.
        let block_nets = dsp && !timing.fits(&[Op::Carry(hw + 1), Op::Lut(2)]);
        let block = |steps: &mut Vec<(String, Vec<Op>)>, name: &str| {
            steps.push((format!("{name}_in"), Vec::new()));
            steps.push((format!("{name}_mul"), vec![Op::Mult]));
            if block_nets {
                steps.push((format!("{name}_out"), Vec::new()));
            }
        };
        if dsp {
            block(&mut steps, "h");
            steps.push(("h_add".into(), vec![Op::Carry(hw)]));
        } else {
            tree(&mut steps, "h", w + 1, hw);
        }
        steps.push(("vdiff".into(), vec![Op::Carry(hw + 1)]));
        if dsp {
            block(&mut steps, "v");
            steps.push(("v_add".into(), vec![Op::Carry(vw)]));
        } else {
            tree(&mut steps, "v", w + 1, vw);
        }
        steps.push(("tdiff".into(), vec![Op::Lut(1), Op::Carry(vw + 1)]));
        if dsp {
            // A difference wider than a block's input is two products (`t_split`), added
            // before base 256 and the rounding constant are.
            block(&mut steps, "t");
            if t_split(w) {
                steps.push(("t_add".into(), vec![Op::Carry(tw)]));
            }
            steps.push(("t_sum".into(), vec![Op::Carry(tw)]));
        } else {
            tree(&mut steps, "t", 10, tw);
        }
        steps.push(("round".into(), vec![Op::Lut(1)]));
        if tmu.output == TexOutput::Fp32 {
            // A quarter of the table a 6-input function, then the choice of quarter.
            steps.push(("fp32a".into(), vec![Op::Mux(64)]));
            steps.push(("fp32b".into(), vec![Op::Mux(4)]));
        }
        // Greedy over steps: a step joins the current stage while the stage still fits.
        let mut out: Vec<PipeStep> = Vec::with_capacity(steps.len());
        let mut used: Vec<Op> = Vec::new();
        let mut stage = 0;
        for (name, ops) in steps {
            // A block's operand registers end a stage, and start one where `block_nets`
            // asks for fabric registers before them; the block and the fabric registers
            // after it are stages of their own.
            let (before, after) = if !dsp {
                (false, false)
            } else if name.ends_with("_in") {
                (block_nets, true)
            } else if ops == [Op::Mult] || name.ends_with("_out") {
                (true, true)
            } else {
                (false, false)
            };
            let mut joined = used.clone();
            joined.extend(&ops);
            if !used.is_empty() && (before || !timing.fits(&joined)) {
                if let Some(prev) = out.last_mut() {
                    prev.reg_after = true;
                }
                stage += 1;
                joined = ops.clone();
            }
            used = joined;
            out.push(PipeStep {
                name,
                ops,
                stage,
                reg_after: after,
            });
            if after {
                stage += 1;
                used.clear();
            }
        }
        // At least one register, so the datapath has a stage to put its valid bit in.
        if stage == 0 {
            let n = out.len();
            out[n - 2].reg_after = true;
            out[n - 1].stage = 1;
            stage = 1;
        }
        Self {
            steps: out,
            stages: stage,
            // Taken at the input, a request holds its credit through the input register,
            // the stages and the FIFO, and the credit returns a clock after its pop.
            fifo_depth: stage + 3,
            // The flag reaches the write enable of every LUT RAM of the storage (one per 4
            // bits and 16 entries), and those sit with the lanes that fill them, apart on
            // the die: counted as that many loads again per lane. seed001's four lanes put
            // 4.3 ns on that one net at 270 MHz, where a local net to as many loads takes
            // 1.7 (BENCHMARKS.md).
            fifo_write_always: !timing.fits(&[
                Op::Lut(1),
                Op::Fanout(l.rsp_w * (stage + 3).div_ceil(16) * tmu.lanes),
            ]),
            row_at_load,
            target_mhz: 1000.0 / timing.period_ns,
        }
    }

    pub fn step(&self, name: &str) -> Option<&PipeStep> {
        self.steps.iter().find(|s| s.name == name)
    }

    /// Whether a register follows step `name` (false for a step the config lacks).
    pub fn reg_after(&self, name: &str) -> bool {
        self.step(name).is_some_and(|s| s.reg_after)
    }

    /// The stage of step `name`'s inputs.
    pub fn stage(&self, name: &str) -> u32 {
        self.step(name).map_or(0, |s| s.stage)
    }

    /// Clocks from a request into the unit to its response, with nothing waiting: the
    /// input register, the stages, the output FIFO.
    pub fn latency(&self) -> u32 {
        self.stages + 2
    }

    pub fn describe(&self) -> String {
        format!(
            "tex_filter: {} stages at {} MHz target; latency {} clocks; output FIFO of {}",
            self.stages,
            self.target_mhz,
            self.latency(),
            self.fifo_depth
        )
    }
}

/// Widens the `bits`-bit value `v` to 8 bits: round(v * 255 / (2^bits - 1)), ties up
/// (there are none: 2^bits - 1 is odd). The model converts with it and the RTL renders
/// its widening tables from it.
pub fn widen(v: u32, bits: u32) -> u8 {
    debug_assert!((1..=8).contains(&bits) && v < (1 << bits));
    let max = (1 << bits) - 1;
    ((v * 255 + max / 2) / max) as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ClockSection, Family};

    fn pipe(mhz: f64, tmu: &Tmu) -> FilterPipe {
        FilterPipe::new(
            tmu,
            &Timing::new(&ClockSection {
                target_mhz: mhz,
                family: Family::Ecp5,
            }),
        )
    }

    #[test]
    fn the_depth_follows_the_target() {
        let cfg = crate::config::load(None).expect("embedded default");
        let tmu = cfg.tmu.as_ref().expect("tmu");
        let depths: Vec<u32> = [20.0, 50.0, 100.0, 200.0, 300.0]
            .iter()
            .map(|&m| pipe(m, tmu).stages)
            .collect();
        assert!(depths.windows(2).all(|w| w[0] <= w[1]), "{depths:?}");
        assert!(depths[1] < depths[3], "{depths:?}");
        for m in [20.0, 50.0, 100.0, 200.0, 300.0] {
            let p = pipe(m, tmu);
            // Stages count the registers; the FIFO covers every request in flight.
            let regs = p.steps.iter().filter(|s| s.reg_after).count() as u32;
            assert_eq!(regs, p.stages);
            assert_eq!(p.steps.last().map(|s| s.stage), Some(p.stages));
            assert!(!p.steps.last().is_some_and(|s| s.reg_after));
            assert_eq!(p.fifo_depth, p.stages + 3);
            assert_eq!(p.latency(), p.stages + 2);
            assert!(p.stages >= 1);
            // A stage's steps fit the clock, unless a single step is longer on its own.
            let t = Timing::new(&ClockSection {
                target_mhz: m,
                family: Family::Ecp5,
            });
            for s in 0..=p.stages {
                let steps: Vec<&PipeStep> = p.steps.iter().filter(|x| x.stage == s).collect();
                let ops: Vec<Op> = steps.iter().flat_map(|x| x.ops.clone()).collect();
                assert!(
                    steps.len() == 1 || t.fits(&ops) || s == 1,
                    "{m} MHz stage {s}"
                );
            }
        }
    }

    /// With multiplier blocks each block is a stage of its own, its input and output
    /// registered, at any target; at a fast one its operands come from fabric registers a
    /// stage before and its product goes into fabric registers a stage after. No trees are
    /// left. Ten weight bits split the level blend's product.
    #[test]
    fn multiplier_blocks_have_their_registers_at_every_target() {
        let cfg = crate::config::load(None).expect("embedded default");
        let mut tmu = cfg.tmu.clone().expect("tmu");
        tmu.filter_products = FilterProducts::Dsp;
        for m in [20.0, 50.0, 100.0, 200.0, 300.0] {
            let p = pipe(m, &tmu);
            // The fabric registers around the blocks at 150 MHz and up, not at 100 or below.
            let nets = m > 120.0;
            for (before, blend) in [("hdiff", "h"), ("vdiff", "v"), ("tdiff", "t")] {
                let (input, mul, out) = (
                    format!("{blend}_in"),
                    format!("{blend}_mul"),
                    format!("{blend}_out"),
                );
                assert_eq!(p.reg_after(before), nets, "{m} MHz {before}");
                assert_eq!(p.stage(&input), p.stage(before) + u32::from(nets));
                assert!(p.reg_after(&input) && p.reg_after(&mul), "{m} MHz {blend}");
                assert_eq!(p.stage(&mul), p.stage(&input) + 1, "{m} MHz {blend}");
                assert_eq!(p.step(&out).is_some(), nets, "{m} MHz {out}");
                if nets {
                    assert!(p.reg_after(&out) && p.stage(&out) == p.stage(&mul) + 1);
                }
            }
            assert!(["h_l1", "v_l1", "t_l1"].iter().all(|n| p.step(n).is_none()));
            assert!(p.step("t_add").is_some() && p.step("t_sum").is_some());
        }
        // A slow target packs what the blocks leave; a fast one registers more.
        assert!(pipe(50.0, &tmu).stages < pipe(300.0, &tmu).stages);
    }

    /// The spare output entry only where the full flag's fan-out does not fit: seed001's
    /// four fp32 lanes at 200 MHz and up, not the default's one lane at 200 or slower.
    #[test]
    fn the_output_fifo_is_written_every_clock_only_where_it_pays() {
        let default = crate::config::load(None).expect("embedded default");
        let tmu = default.tmu.as_ref().expect("tmu");
        for m in [50.0, 100.0, 200.0] {
            assert!(!pipe(m, tmu).fifo_write_always, "default at {m} MHz");
        }
        let seed001 = crate::config::load(Some(std::path::Path::new("configs/seed001_tmu.toml")))
            .expect("seed001 preset");
        let tmu = seed001.tmu.as_ref().expect("tmu");
        // At 270 and at the preset's own 200 MHz: four lanes' 128 bits x 25 entries (at 270
        // the flag's net was the critical path, 6.95 ns).
        assert!(pipe(270.0, tmu).fifo_write_always);
        assert!(pipe(200.0, tmu).fifo_write_always);
        assert!(!pipe(100.0, tmu).fifo_write_always);
    }

    #[test]
    fn trees_are_balanced() {
        assert_eq!(tree_levels(11), vec![(11, 6), (6, 3), (3, 2), (2, 1)]);
        assert_eq!(tree_levels(6), vec![(6, 3), (3, 2), (2, 1)]);
        assert_eq!(tree_levels(1), vec![]);
        assert_eq!(THIRD_ROWS.iter().map(|s| 1u32 << s).sum::<u32>(), 683);
        const { assert!(765 * 683 < 1u32 << THIRD_W) };
    }
}
