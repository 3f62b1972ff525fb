#![allow(dead_code, uncommon_codepoints, mixed_script_confusables)]
use ptx_dsl::prelude::*;

// Names the PTX carries must be ASCII; comptime parameters and locals may be anything
// Rust accepts.
#[ptx_kernel]
fn échelle(x: &mut [f32]) {
    x[0] = 1.0;
}

#[ptx_kernel]
fn scale(données: &mut [f32], #[comptime] facteur_é: f32) {
    let π = 3.25f32;
    données[0] = π * facteur_é;
}

fn main() {}
