//! The library's RoPE configuration in the terms of the independent reference
//! (`rope_reference.rs`), shared by `tests/rope_production.rs` and the main example.

#![allow(dead_code)]

use crate::rope_reference::{RefLayout, RefScaling};
use ptx_dsl::rope::{Layout, Scaling};

/// The reference's description of a scaling.
pub fn ref_scaling(s: Scaling) -> RefScaling {
    match s {
        Scaling::None => RefScaling::None,
        Scaling::Linear { factor } => RefScaling::Linear(factor),
        Scaling::DynamicNtk { factor, original_max_position, seq_len } => RefScaling::DynamicNtk {
            factor,
            original_max_position: original_max_position as f64,
            seq_len: seq_len as f64,
        },
        Scaling::Yarn { factor, original_max_position, beta_fast, beta_slow, attention_factor } => {
            RefScaling::Yarn {
                factor,
                original_max_position: original_max_position as f64,
                beta_fast,
                beta_slow,
                attention_factor,
            }
        }
        Scaling::Llama3 { factor, low_freq_factor, high_freq_factor, original_max_position } => {
            RefScaling::Llama3 {
                factor,
                low_freq_factor,
                high_freq_factor,
                original_max_position: original_max_position as f64,
            }
        }
    }
}

/// The reference's name for a layout.
pub fn ref_layout(l: Layout) -> RefLayout {
    match l {
        Layout::Interleaved => RefLayout::Interleaved,
        Layout::HalfSplit => RefLayout::HalfSplit,
    }
}
