//! The texture mapping unit's arithmetic (seed 001), stage by stage as the hardware does
//! it: texel coordinates and weights from fp32 coordinates (`coord`), texel formats and
//! DXT1 decoding after the cache (`format`), the level of detail per quad (`lod`) and
//! the filter lanes (`filter`). Integer only, so the RTL can match it bit for bit.

pub mod coord;
pub mod filter;
pub mod format;
pub mod lod;
pub mod sampler;
pub mod unit;
