//! Pieces the benches share: the synthesis flow's progress lines and the TMU benches'
//! sampler.

use gpurtl::config::{Filter, Tmu};
use gpurtl::model::tmu::sampler::Sampler;
use gpurtl::synth::Event;

/// One line on stderr per finished step of `synth::run` (the flow takes minutes).
#[allow(dead_code)] // not every bench that includes this module synthesizes
pub fn synth_progress(e: Event) {
    if let Event::Done {
        unit,
        step,
        seconds,
        cached,
    } = e
    {
        eprintln!(
            "  {unit} {step}: {seconds:.1} s{}",
            if cached { " (cached)" } else { "" }
        );
    }
}

/// Repeat wrap, no LOD clamp or bias, the config's weight bits.
#[allow(dead_code)] // not every bench that includes this module samples
pub fn sampler(min: Filter, mag: Filter, tmu: &Tmu) -> Sampler {
    Sampler::repeat(min, mag, tmu.weight_bits)
}
