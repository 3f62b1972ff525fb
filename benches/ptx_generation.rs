//! PTX generation speed: build + verify + print the batched RoPE kernel (the seed's
//! instruction mix: thread/block indices, a u32 position load, index math, exp2, sin, cos,
//! two loads and two stores), written with `#[ptx_kernel]` (bounds-checked, the seed port
//! `rope::seed::BatchedRope`, and unchecked) and directly against the builder (the
//! baseline, `benches/baseline`); each production RoPE kernel (`rope::Rope`); and each
//! kernel of the library (`ptx_dsl::kernels`).
//!
//! Side by side: NVRTC compiling the same kernel from CUDA C, when libnvrtc can be loaded
//! (`pip install nvidia-cuda-nvrtc`, then point `LD_LIBRARY_PATH` at its `nvidia/cu13/lib`).
//!
//! Run with `cargo bench --bench ptx_generation`; results go in docs/performance.md.

use criterion::{criterion_group, criterion_main, Criterion};
use ptx_dsl::core::{print, verify};
use ptx_dsl::prelude::*;
use ptx_dsl::rope::seed::BatchedRope;
use ptx_dsl::rope::{Direction, Dtype, Layout, Rope, RopeConfig};

mod baseline;
use baseline::{BatchedRopeUnchecked, BuilderRope};

/// Build + verify + print of one kernel: the whole path a launch pays on a cache miss.
fn generate(kernel: &(impl Kernel + ?Sized)) -> String {
    let ir = kernel.build();
    verify::verify(&ir).expect("valid kernel");
    print::kernel_ptx(&ir, Target::SM_80)
}

fn macro_vs_builder(c: &mut Criterion) {
    let rope = BatchedRope::new(32, 128, 10_000.0);
    let unchecked = BatchedRopeUnchecked::new(32, 128, 10_000.0);
    let builder = BuilderRope { num_heads: 32, head_dim: 128, theta: 10_000.0 };
    let mut group = c.benchmark_group("rope_forward_generation");
    group.bench_function("builder", |b| b.iter(|| std::hint::black_box(generate(&builder))));
    group.bench_function("macro_unchecked", |b| b.iter(|| std::hint::black_box(generate(&unchecked))));
    group.bench_function("macro_checked", |b| b.iter(|| std::hint::black_box(generate(&rope))));
    group.finish();
}

fn rope_generation(c: &mut Criterion) {
    let kernel = BuilderRope { num_heads: 32, head_dim: 128, theta: 10_000.0 };
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

/// The seed's batched RoPE forward in CUDA C, with the same shape baked in as constants.
fn rope_cuda_c(kernel: &BatchedRope) -> String {
    format!(
        r#"extern "C" __global__ void batched_rope(const float* x, float* out, const unsigned* positions) {{
    const unsigned num_heads = {heads}u, head_dim = {dim}u;
    unsigned pair = threadIdx.x, head = blockIdx.x, seq = blockIdx.y;
    if (pair >= head_dim / 2) return;
    unsigned pos = positions[seq];
    unsigned elem = (seq * num_heads + head) * head_dim + 2 * pair;
    float freq = exp2f((float)pair * {scale:e}f);
    float angle = (float)pos * freq;
    float s, c;
    sincosf(angle, &s, &c);
    float x0 = x[elem], x1 = x[elem + 1];
    out[elem] = x0 * c - x1 * s;
    out[elem + 1] = x0 * s + x1 * c;
}}
"#,
        heads = kernel.num_heads,
        dim = kernel.head_dim,
        scale = -2.0 * kernel.theta.log2() / kernel.head_dim as f32,
    )
}

fn nvrtc_comparison(c: &mut Criterion) {
    // SAFETY: only tries to load libnvrtc by its usual names.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        eprintln!("nvrtc: libnvrtc not found (pip install nvidia-cuda-nvrtc; set LD_LIBRARY_PATH): skipped");
        return;
    }
    let source = rope_cuda_c(&BatchedRope::new(32, 128, 10_000.0));
    let options = || cudarc::nvrtc::CompileOptions { arch: Some("sm_80"), ..Default::default() };
    if let Err(e) = cudarc::nvrtc::compile_ptx_with_opts(&source, options()) {
        eprintln!("nvrtc: the CUDA C version does not compile ({e:?}): skipped");
        return;
    }
    let mut group = c.benchmark_group("nvrtc");
    group.sample_size(10);
    group.bench_function("rope_forward/compile_cuda_c", |b| {
        b.iter(|| cudarc::nvrtc::compile_ptx_with_opts(&source, options()).expect("compiles"))
    });
    group.finish();
}

/// Each production kernel at Llama's shape (head_dim 128), every storage type, layout and
/// form, forward (backward differs in two lines).
fn production_generation(c: &mut Criterion) {
    let mut group = c.benchmark_group("rope_production_generation");
    for dtype in [Dtype::F32, Dtype::F16, Dtype::Bf16] {
        for layout in [Layout::HalfSplit, Layout::Interleaved] {
            let rope = Rope::new(RopeConfig { dtype, layout, ..RopeConfig::new(128) }).expect("valid");
            for in_place in [false, true] {
                let kernel = rope.kernel(Direction::Forward, in_place);
                let name =
                    format!("{}/{layout:?}/{}", dtype.name(), if in_place { "in_place" } else { "out" });
                group.bench_function(name, |b| b.iter(|| std::hint::black_box(generate(kernel.as_ref()))));
            }
        }
    }
    group.finish();
}

/// Each kernel of `ptx_dsl::kernels`.
fn library_generation(c: &mut Criterion) {
    use ptx_dsl::kernels;
    let mut group = c.benchmark_group("library_generation");
    let all: [(&str, Box<dyn Kernel>); 8] = [
        ("sum_f32", Box::new(kernels::SumF32::new())),
        ("max_f64", Box::new(kernels::MaxF64::new())),
        ("softmax_rows_f32", Box::new(kernels::SoftmaxRowsF32::new())),
        ("rms_norm_f32", Box::new(kernels::RmsNormF32::new())),
        ("layer_norm_f32", Box::new(kernels::LayerNormF32::new())),
        ("transpose_f32", Box::new(kernels::TransposeF32::new())),
        ("scan_blocks_f32", Box::new(kernels::ScanBlocksF32::new())),
        ("add_offsets_f32", Box::new(kernels::AddOffsetsF32::new())),
    ];
    for (name, kernel) in &all {
        group.bench_function(*name, |b| b.iter(|| std::hint::black_box(generate(kernel.as_ref()))));
    }
    group.finish();
}

criterion_group!(
    benches,
    macro_vs_builder,
    rope_generation,
    nvrtc_comparison,
    production_generation,
    library_generation
);
criterion_main!(benches);
