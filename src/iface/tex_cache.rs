//! The contract of the texture cache: what its RTL and its model agree on.
