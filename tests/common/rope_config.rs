//! The library's RoPE configuration in the terms of the independent reference
//! (`rope_reference.rs`), and the storage types' conversions and rounding, shared by
//! `tests/rope_production.rs` and the main example.

#![allow(dead_code)]

use crate::rope_reference::{RefLayout, RefScaling};
use ptx_dsl::rope::{Dtype, Layout, Scaling};

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

/// `v` rounded to f16 or bf16 (nearest even), as bits.
pub fn half_bits(dtype: Dtype, v: f32) -> u16 {
    if dtype == Dtype::F16 {
        half::f16::from_f32(v).to_bits()
    } else {
        half::bf16::from_f32(v).to_bits()
    }
}

/// The value of f16 or bf16 bits (exact in f32).
pub fn half_value(dtype: Dtype, b: u16) -> f32 {
    if dtype == Dtype::F16 {
        half::f16::from_bits(b).to_f32()
    } else {
        half::bf16::from_bits(b).to_f32()
    }
}

/// The unit roundoff of the storage type: storing an f32 result adds at most this much,
/// relative (0 for f32, which stores the result as computed).
pub fn storage_roundoff(dtype: Dtype) -> f64 {
    match dtype {
        Dtype::F32 => 0.0,
        Dtype::F16 => 2f64.powi(-11),
        Dtype::Bf16 => 2f64.powi(-8),
    }
}
