//! Model of the `hs_chain` unit: the transactions it must deliver, and a cycle model that
//! replays the harness's random gaps and stalls to predict the clocks a run takes.

use crate::config::HsChain;
use crate::iface::{Dir, StreamPort};
use crate::rng::{Rng, STREAM_DATA, STREAM_PORT_BASE};
use crate::vectors::{Bits, PortVectors, VectorSet};

use super::handshake::Stage;

/// What the chain delivers: every item, in order, unchanged.
pub fn transfer(inputs: &[Bits]) -> Vec<Bits> {
    inputs.to_vec()
}

/// Random stimulus for `count` items and the expected output.
pub fn vectors(chain: &HsChain, count: usize, seed: u64) -> VectorSet {
    let mut rng = Rng::stream(seed, STREAM_DATA);
    let inputs: Vec<Bits> = (0..count)
        .map(|_| Bits::random(chain.width, &mut rng))
        .collect();
    let outputs = transfer(&inputs);
    let port = |name: &str, dir| StreamPort {
        name: name.into(),
        dir,
        width: chain.width,
    };
    VectorSet {
        unit: "hs_chain".into(),
        seed,
        ports: vec![
            PortVectors {
                port: port("in", Dir::In),
                items: inputs,
            },
            PortVectors {
                port: port("out", Dir::Out),
                items: outputs,
            },
        ],
    }
}

/// The result of a cycle-model run.
#[derive(Debug, Clone, PartialEq)]
pub struct CycleRun {
    pub cycles: u64,
    pub outputs: Vec<Bits>,
}

/// Runs the chain clock by clock under the harness's traffic rules (sim/harness):
/// an idle input offers its next item unless a gap is drawn (probability `gap`), then
/// holds it until taken; the output is ready unless a stall is drawn (`stall`), every
/// clock. Port `i` draws from stream `STREAM_PORT_BASE + i` of `seed`, as the harness does.
pub fn run_cycles(chain: &HsChain, inputs: &[Bits], seed: u64, gap: f64, stall: f64) -> CycleRun {
    let mut stages: Vec<Stage> = chain.stages.iter().map(|k| Stage::new(*k)).collect();
    let mut in_rng = Rng::stream(seed, STREAM_PORT_BASE);
    let mut out_rng = Rng::stream(seed, STREAM_PORT_BASE + 1);
    let mut next_in = 0;
    let mut presenting = false;
    let mut outputs = Vec::with_capacity(inputs.len());
    let mut cycles = 0;
    let n = stages.len();
    while outputs.len() < inputs.len() {
        if !presenting && next_in < inputs.len() && !in_rng.chance(gap) {
            presenting = true;
        }
        let out_ready = !out_rng.chance(stall);

        // Forward: what each boundary offers (boundary 0 is the unit's input).
        let mut offers: Vec<Option<Bits>> = Vec::with_capacity(n + 1);
        offers.push(presenting.then(|| inputs[next_in].clone()));
        for (i, s) in stages.iter().enumerate() {
            let o = s.offer(offers[i].as_ref()).cloned();
            offers.push(o);
        }
        // Backward: ready at each boundary (boundary n is the unit's output).
        let mut readies = vec![false; n + 1];
        readies[n] = out_ready;
        for i in (0..n).rev() {
            readies[i] = stages[i].ready(readies[i + 1]);
        }
        // The edge.
        for (i, s) in stages.iter_mut().enumerate() {
            let accepted = if readies[i] { offers[i].clone() } else { None };
            s.clock(accepted, readies[i + 1] && offers[i + 1].is_some());
        }
        if presenting && readies[0] {
            presenting = false;
            next_in += 1;
        }
        if let (Some(item), true) = (offers[n].take(), out_ready) {
            outputs.push(item);
        }
        cycles += 1;
    }
    CycleRun { cycles, outputs }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::StageKind;

    fn chain(stages: &[StageKind]) -> HsChain {
        HsChain {
            width: 16,
            stages: stages.to_vec(),
        }
    }

    #[test]
    fn cycle_model_delivers_what_the_transaction_model_says() {
        use StageKind::*;
        let c = chain(&[
            Skid,
            Bubble,
            Fifo { depth: 3 },
            Bypass,
            Skid,
            Fifo { depth: 1 },
        ]);
        let v = vectors(&c, 500, 11);
        let inputs = &v.ports[0].items;
        for (gap, stall) in [(0.0, 0.0), (0.3, 0.3), (0.9, 0.1), (0.1, 0.9)] {
            let run = run_cycles(&c, inputs, 11, gap, stall);
            assert_eq!(run.outputs, transfer(inputs), "gap {gap} stall {stall}");
        }
    }

    #[test]
    fn full_rate_kinds_move_one_item_per_clock() {
        use StageKind::*;
        let n = 1000;
        for kinds in [
            vec![Bypass],
            vec![Bubble],
            vec![Skid],
            vec![Fifo { depth: 2 }],
            vec![Skid, Bubble, Fifo { depth: 4 }, Skid],
        ] {
            let c = chain(&kinds);
            let inputs = vectors(&c, n, 1).ports[0].items.clone();
            let run = run_cycles(&c, &inputs, 1, 0.0, 0.0);
            let latency = kinds.iter().filter(|k| **k != Bypass).count() as u64;
            assert_eq!(run.cycles, n as u64 + latency, "{kinds:?}");
        }
    }

    #[test]
    fn one_deep_fifo_is_half_rate() {
        let c = chain(&[StageKind::Fifo { depth: 1 }]);
        let inputs = vectors(&c, 100, 1).ports[0].items.clone();
        assert_eq!(run_cycles(&c, &inputs, 1, 0.0, 0.0).cycles, 200);
    }
}
