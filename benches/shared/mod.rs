//! Pieces the benches share: the synthesis flow's progress lines and the TMU benches'
//! sampler.

use gpurtl::config::{Filter, Tmu, Wrap};
use gpurtl::model::tmu::lod::LOD_FRAC;
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
    Sampler {
        min_filter: min,
        mag_filter: mag,
        wrap_s: Wrap::Repeat,
        wrap_t: Wrap::Repeat,
        lod_bias: 0,
        min_lod: -100 << LOD_FRAC,
        max_lod: 100 << LOD_FRAC,
        weight_bits: tmu.weight_bits,
    }
}
