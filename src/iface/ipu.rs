//! The contract of the image processing unit: what its RTL and its model agree on.
