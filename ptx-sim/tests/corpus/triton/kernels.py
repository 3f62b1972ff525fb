"""Triton kernels whose PTX (compiled for sm_80, no GPU needed) is in this folder.

Regenerate with `python kernels.py` (Triton 3.9, CPython 3.11): each kernel below is
compiled with `triton.compile` for `GPUTarget("cuda", 80, 32)` and its PTX written to
`<name>.ptx`, with the launch metadata (warps, shared memory bytes) in the first lines.
`tests/triton_dialect.rs` runs them on the simulator against f64 references.
"""

import os

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget


@triton.jit
def vec_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def scale_bias_relu(x_ptr, bias_ptr, out_ptr, rows, cols, scale, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid = tl.program_id(0)
    r = pid * BLOCK_R + tl.arange(0, BLOCK_R)[:, None]
    c = tl.arange(0, BLOCK_C)[None, :]
    mask = (r < rows) & (c < cols)
    x = tl.load(x_ptr + r * cols + c, mask=mask, other=0.0)
    b = tl.load(bias_ptr + c, mask=c < cols, other=0.0, eviction_policy="evict_last")
    y = tl.maximum(x * scale + b, 0.0)
    tl.store(out_ptr + r * cols + c, y, mask=mask)


@triton.jit
def softmax(x_ptr, out_ptr, stride, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * stride + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    y = e / tl.sum(e, axis=0)
    tl.store(out_ptr + row * stride + offs, y, mask=mask)


@triton.jit
def layer_norm(x_ptr, w_ptr, b_ptr, out_ptr, mean_ptr, rstd_ptr, cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / cols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / cols
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + row * cols + offs, d * rstd * w + b, mask=mask)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)


@triton.jit
def rope(x_ptr, pos_ptr, out_ptr, heads, HALF: tl.constexpr, BASE: tl.constexpr):
    # One program per (token, head); x is [tokens, heads, 2*HALF], rotate-half convention.
    pid = tl.program_id(0)
    tok = pid // heads
    i = tl.arange(0, HALF)
    pos = tl.load(pos_ptr + tok).to(tl.float32)
    inv_freq = tl.exp2(-(i.to(tl.float32) * 2.0 / (2 * HALF)) * tl.log2(BASE))
    theta = pos * inv_freq
    c = tl.cos(theta)
    s = tl.sin(theta)
    base = pid * 2 * HALF
    x1 = tl.load(x_ptr + base + i)
    x2 = tl.load(x_ptr + base + HALF + i)
    tl.store(out_ptr + base + i, x1 * c - x2 * s)
    tl.store(out_ptr + base + HALF + i, x2 * c + x1 * s)


@triton.jit
def sum_atomic(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))
    tl.atomic_max(out_ptr + 1, tl.max(tl.where(offs < n, x, -float("inf")), axis=0))


@triton.jit
def where_clamp(x_ptr, out_ptr, n, alpha, lo, hi, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.where(x > 0, x, alpha * x)
    y = tl.where(y < lo, lo, tl.where(y > hi, hi, y))
    tl.store(out_ptr + offs, y, mask=mask)


@triton.jit
def int_ops(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=1)
    b = tl.load(b_ptr + offs, mask=mask, other=1)
    h = (a * -1640531535) ^ (a >> 7)
    q = a // b
    r = a % b
    u = (a.to(tl.uint32, bitcast=True) >> 3).to(tl.int32, bitcast=True)
    m = tl.minimum(a, b) + tl.maximum(h, q)
    tl.store(out_ptr + 4 * offs, h, mask=mask)
    tl.store(out_ptr + 4 * offs + 1, q, mask=mask)
    tl.store(out_ptr + 4 * offs + 2, r + u, mask=mask)
    tl.store(out_ptr + 4 * offs + 3, m, mask=mask)


@triton.jit
def half_scale(x_ptr, y_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x * scale + y).to(tl.float16), mask=mask)


@triton.jit
def math_fns(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    tl.store(out_ptr + 6 * offs, tl.exp(x), mask=mask)
    tl.store(out_ptr + 6 * offs + 1, tl.log(x), mask=mask)
    tl.store(out_ptr + 6 * offs + 2, tl.sqrt(x), mask=mask)
    tl.store(out_ptr + 6 * offs + 3, tl.math.rsqrt(x), mask=mask)
    tl.store(out_ptr + 6 * offs + 4, tl.exp2(x) + tl.log2(x), mask=mask)
    tl.store(out_ptr + 6 * offs + 5, tl.sqrt_rn(x) + tl.math.div_rn(x, 3.0), mask=mask)


@triton.jit
def transpose(x_ptr, out_ptr, rows, cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pr = tl.program_id(0)
    pc = tl.program_id(1)
    r = pr * BLOCK_R + tl.arange(0, BLOCK_R)
    c = pc * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (r[:, None] < rows) & (c[None, :] < cols)
    tile = tl.load(x_ptr + r[:, None] * cols + c[None, :], mask=mask)
    tl.store(out_ptr + c[:, None] * rows + r[None, :], tl.trans(tile), mask=tl.trans(mask))


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    m = tl.arange(0, BM)
    n = tl.arange(0, BN)
    k = tl.arange(0, BK)
    a = tl.load(a_ptr + m[:, None] * BK + k[None, :])
    b = tl.load(b_ptr + k[:, None] * BN + n[None, :])
    tl.store(c_ptr + m[:, None] * BN + n[None, :], tl.dot(a, b))


@triton.jit
def row_sum_loop(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, cols, BLOCK):
        offs = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * cols + offs, mask=offs < cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def cumsum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + offs, tl.cumsum(x, axis=0), mask=offs < n)


@triton.jit
def argmax(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * cols + offs, mask=offs < cols, other=-float("inf"))
    tl.store(out_ptr + row, tl.argmax(x, axis=0))


@triton.jit
def gelu_bf16(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n).to(tl.float32)
    y = 0.5 * x * (1 + tl.erf(x * 0.7071067811865476)) + tl.sigmoid(x)
    tl.store(out_ptr + offs, y.to(tl.bfloat16), mask=offs < n)


@triton.jit
def dropout(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    r = tl.rand(seed, offs)
    tl.store(out_ptr + offs, tl.where(r > p, x / (1 - p), 0.0), mask=offs < n)


@triton.jit
def copy_pipelined(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in tl.range(0, n, BLOCK, num_stages=3):
        acc += tl.load(x_ptr + i + tl.arange(0, BLOCK))
    tl.store(out_ptr + tl.arange(0, BLOCK), acc)


KERNELS = [
    # (kernel, signature, constexprs, num_warps, integer arguments the launch keeps
    # divisible by 16); compiled as Triton's JIT compiles for 16-byte aligned tensors (the
    # pointers, and those integers, marked divisible by 16: vector loads and stores), vec_add
    # once more without any of that (`vec_add_unaligned.ptx`, one element per access).
    (vec_add, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}, {"BLOCK": 1024}, 4, ["n"]),
    (scale_bias_relu,
     {"x_ptr": "*fp32", "bias_ptr": "*fp32", "out_ptr": "*fp32", "rows": "i32", "cols": "i32", "scale": "fp32"},
     {"BLOCK_R": 4, "BLOCK_C": 64}, 2),
    (softmax, {"x_ptr": "*fp32", "out_ptr": "*fp32", "stride": "i32", "cols": "i32"}, {"BLOCK": 512}, 4),
    (layer_norm,
     {"x_ptr": "*fp32", "w_ptr": "*fp32", "b_ptr": "*fp32", "out_ptr": "*fp32", "mean_ptr": "*fp32",
      "rstd_ptr": "*fp32", "cols": "i32", "eps": "fp32"}, {"BLOCK": 256}, 4),
    (rope, {"x_ptr": "*fp32", "pos_ptr": "*i32", "out_ptr": "*fp32", "heads": "i32"}, {"HALF": 32, "BASE": 10000.0}, 1),
    (sum_atomic, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}, {"BLOCK": 512}, 4),
    (where_clamp,
     {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "alpha": "fp32", "lo": "fp32", "hi": "fp32"},
     {"BLOCK": 128}, 4),
    (int_ops, {"a_ptr": "*i32", "b_ptr": "*i32", "out_ptr": "*i32", "n": "i32"}, {"BLOCK": 128}, 4),
    (half_scale, {"x_ptr": "*fp16", "y_ptr": "*fp16", "out_ptr": "*fp16", "n": "i32", "scale": "fp32"},
     {"BLOCK": 512}, 4, ["n"]),
    (math_fns, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}, {"BLOCK": 128}, 4),
    (transpose, {"x_ptr": "*fp32", "out_ptr": "*fp32", "rows": "i32", "cols": "i32"},
     {"BLOCK_R": 32, "BLOCK_C": 32}, 4),
    (row_sum_loop, {"x_ptr": "*fp32", "out_ptr": "*fp32", "cols": "i32"}, {"BLOCK": 256}, 4),
    (cumsum, {"x_ptr": "*i32", "out_ptr": "*i32", "n": "i32"}, {"BLOCK": 256}, 4),
    (argmax, {"x_ptr": "*fp32", "out_ptr": "*i32", "cols": "i32"}, {"BLOCK": 256}, 4),
    (gelu_bf16, {"x_ptr": "*bf16", "out_ptr": "*bf16", "n": "i32"}, {"BLOCK": 1024}, 4),
    (dropout, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "p": "fp32", "seed": "i32"}, {"BLOCK": 256}, 4),
    # A pipelined loop (cp.async); tensor cores (ldmatrix, mma), which the simulator does not run yet.
    (copy_pipelined, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}, {"BLOCK": 256}, 4),
    (matmul, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32"}, {"BM": 16, "BN": 16, "BK": 16}, 1),
]


def portable(ptx, here):
    """The PTX with its `.file` paths relative to this folder and to Triton's package
    directory, so that the checked-in text names no path of the machine that made it."""
    packages = os.path.dirname(os.path.dirname(os.path.abspath(triton.__file__)))
    return ptx.replace(here + os.sep, "").replace(packages + os.sep, "")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    target = GPUTarget("cuda", 80, 32)
    builds = [(k, True, "") for k in KERNELS] + [(KERNELS[0], False, "_unaligned")]
    for (fn, sig, consts, warps, *div16), aligned, suffix in builds:
        div16 = div16[0] if div16 else []
        attrs = {(i, ): [["tt.divisibility", 16]]
                 for i, (name, t) in enumerate(sig.items()) if aligned and (t[0] == "*" or name in div16)}
        sig = dict(sig, **{k: "constexpr" for k in consts})
        src = triton.compiler.ASTSource(fn=fn, signature=sig, constexprs=consts, attrs=attrs)
        compiled = triton.compile(src, target=target, options={"num_warps": warps})
        meta = compiled.metadata
        header = (f"// Triton {triton.__version__}: {fn.__name__} from kernels.py, sm_80, "
                  f"num_warps={meta.num_warps} shared={meta.shared} aligned={aligned} divisible_by_16={div16 if aligned else []} constexprs={consts}\n")
        with open(os.path.join(here, f"{fn.__name__}{suffix}.ptx"), "w") as f:
            f.write(header + portable(compiled.asm["ptx"], here))
        print(fn.__name__, suffix, meta.num_warps, meta.shared)


if __name__ == "__main__":
    main()
