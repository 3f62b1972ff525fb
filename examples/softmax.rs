//! Row-wise softmax with the kernel library on `Device::auto()` (a CUDA GPU, or the CPU
//! simulator), checked against float64: `cargo run --release --example softmax`.
//!
//! The kernel (`ptx_dsl::kernels::softmax_rows`) is one `#[ptx_kernel]` function: one
//! block per row, an online max and sum per thread, `block_max` / `block_sum` to combine
//! them, then `exp(x - max) / sum`. Logits of ±1e30 are there to show it does not overflow.

use ptx_dsl::kernels;
use ptx_dsl::runtime::{Device, Error};

fn main() -> Result<(), Error> {
    let device = Device::auto();
    let (rows, cols) = (64usize, 3000usize);
    // Deterministic, varied logits: moderate rows and rows of huge magnitude.
    let x: Vec<f32> = (0..rows * cols)
        .map(|i| {
            let v = ((i * 7919 % 10007) as f32 / 10007.0 - 0.5) * 20.0;
            if i / cols % 8 == 7 {
                v * 1e29
            } else {
                v
            }
        })
        .collect();
    let xd = device.upload(&x)?;
    let mut out = device.zeroed::<f32>(rows * cols)?;
    kernels::softmax_rows(&device, &xd, rows, cols, &mut out)?;
    let got = out.to_vec()?;
    let (mut worst_rel, mut worst_sum) = (0.0f64, 0.0f64);
    for r in 0..rows {
        let row = &x[r * cols..(r + 1) * cols];
        let max = row.iter().map(|&v| v as f64).fold(f64::NEG_INFINITY, f64::max);
        let exps: Vec<f64> = row.iter().map(|&v| (v as f64 - max).exp()).collect();
        let total: f64 = exps.iter().sum();
        let mut sum = 0.0f64;
        for (j, e) in exps.iter().enumerate() {
            let want = e / total;
            let g = got[r * cols + j] as f64;
            sum += g;
            if want > 1e-30 {
                worst_rel = worst_rel.max((g - want).abs() / want);
            }
        }
        worst_sum = worst_sum.max((sum - 1.0).abs());
    }
    println!("softmax_rows on {}: {rows} rows x {cols}", device.name());
    println!("max relative error vs float64: {worst_rel:.2e}");
    println!("max |row sum - 1|:             {worst_sum:.2e}");
    // The documented bound for a row's range of up to 104: (104 + 3000/256 + 24) · 2^-24.
    let bound = (104.0 + cols as f64 / 256.0 + 24.0) / (1u64 << 24) as f64;
    if worst_rel > bound {
        println!("FAIL: above the bound {bound:.2e}");
        std::process::exit(1);
    }
    println!("PASS (bound {bound:.2e})");
    Ok(())
}
