//! Placeholder: finding and running NVIDIA's ptxas (filled in by a later commit).
