//! The contract of the memory arbiter: what its RTL and its model agree on.
