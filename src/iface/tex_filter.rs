//! The contract of the texture filter: what its RTL and its model agree on.
