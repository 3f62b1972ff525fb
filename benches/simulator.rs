//! Simulator speed in simulated instructions per second, on one core and on every core,
//! for an element-wise kernel (saxpy: y = a·x + y over 2^20 elements) and for the RoPE
//! forward kernel. Criterion's throughput is in "elements": here, simulated instructions.
//!
//! Run with `cargo bench --bench simulator`; results go in docs/performance.md.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ptx_dsl::core::print;
use ptx_dsl::prelude::*;
use ptx_dsl::rope::seed::{launch_config, BatchedRope};
use ptx_sim::{launch, Geometry, Memory, Module};

/// The hello-world example, compiled in for its saxpy kernel.
#[path = "../examples/saxpy.rs"]
#[allow(dead_code)] // its `main` is not called here
mod saxpy_example;

fn bench(c: &mut Criterion) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut group = c.benchmark_group("simulator");
    group.sample_size(10);

    let module = Module::parse(&print::kernel_ptx(&saxpy_example::Saxpy::new().build(), Target::SM_80))
        .expect("parses");
    let kernel = module.kernel("saxpy").expect("kernel");
    let n = 1u32 << 20;
    let memory = Memory::new();
    let (x, y) = (memory.alloc(4 * n as usize), memory.alloc(4 * n as usize));
    let geometry = Geometry { grid: [n / 256, 1, 1], block: [256, 1, 1], dynamic_shared_bytes: 0 };
    // The macro kernel's parameters: a, x, x's length, y, y's length, n, the fault record.
    let fault = memory.alloc(24);
    let params = [2.0f32.to_bits() as u64, x, n as u64, y, n as u64, n as u64, fault];
    let per_launch = launch(kernel, &geometry, &params, &memory, 1).expect("runs").instructions;
    for workers in [1, cores] {
        group.throughput(Throughput::Elements(per_launch));
        group.bench_function(format!("saxpy_2^20/{workers}_worker"), |b| {
            b.iter(|| launch(kernel, &geometry, &params, &memory, workers).expect("runs"))
        });
    }

    let rope = BatchedRope::new(32, 128, 10_000.0);
    let module = Module::parse(&print::kernel_ptx(&rope.build(), Target::SM_80)).expect("parses");
    let kernel = module.kernel(rope.name()).expect("kernel");
    let batch = 64u32;
    let elems = (batch * 32 * 128) as usize;
    let (xr, out, pos) = (memory.alloc(4 * elems), memory.alloc(4 * elems), memory.alloc(4 * batch as usize));
    let cfg = launch_config(32, 128, batch);
    let (grid, block) = (cfg.grid, cfg.block);
    let geometry = Geometry { grid: [grid.0, grid.1, 1], block: [block.0, 1, 1], dynamic_shared_bytes: 0 };
    let params = [xr, elems as u64, out, elems as u64, pos, batch as u64, fault];
    let per_launch = launch(kernel, &geometry, &params, &memory, 1).expect("runs").instructions;
    for workers in [1, cores] {
        group.throughput(Throughput::Elements(per_launch));
        group.bench_function(format!("rope_64x32x128/{workers}_worker"), |b| {
            b.iter(|| launch(kernel, &geometry, &params, &memory, workers).expect("runs"))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
