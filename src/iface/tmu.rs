//! The contract of the texture mapping unit: what its RTL and its model agree on.
