//! PTX generation speed: build + verify + print the batched RoPE kernel written directly
//! against the builder (the seed's instruction mix: thread/block indices, a u32 position
//! load, index math, exp2, sin, cos, two loads and two stores).
//!
//! Run with `cargo bench --bench ptx_generation`; results go in docs/performance.md.

use criterion::{criterion_group, criterion_main, Criterion};
use ptx_dsl::core::{print, verify};
use ptx_dsl::prelude::*;
use ptx_dsl::rope::BatchedRope;

fn rope_generation(c: &mut Criterion) {
    let kernel = BatchedRope::forward(32, 128, 10_000.0);
    c.bench_function("rope_forward/build+verify+print", |b| {
        b.iter(|| {
            let ir = kernel.build();
            verify::verify(&ir).expect("valid kernel");
            std::hint::black_box(print::kernel_ptx(&ir, Target::SM_80))
        })
    });
    c.bench_function("rope_forward/build", |b| b.iter(|| std::hint::black_box(kernel.build())));
    let ir = kernel.build();
    c.bench_function("rope_forward/verify", |b| b.iter(|| verify::verify(std::hint::black_box(&ir))));
    c.bench_function("rope_forward/print", |b| {
        b.iter(|| print::kernel_ptx(std::hint::black_box(&ir), Target::SM_80))
    });
}

criterion_group!(benches, rope_generation);
criterion_main!(benches);
