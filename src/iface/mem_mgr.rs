//! The contract of the memory manager: what its RTL and its model agree on.
