"""Triton kernels whose PTX is in this folder (Triton 3.9, CPython 3.11, no GPU).

Regenerate with `python kernels.py`: each kernel is compiled with `triton.compile` for
`GPUTarget("cuda", sm, 32)`, line info off (TRITON_DISABLE_LINE_INFO=1), pointers marked
16-byte aligned as Triton's JIT does for torch tensors, and written to `<name>_sm<sm>.ptx`
with the launch metadata (warps, shared bytes) in its first line.
`tests/triton_real.rs` runs them on the simulator against references computed in Rust.
"""
import os, sys, traceback
os.environ.setdefault("TRITON_DISABLE_LINE_INFO", "1")
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.language.extra import libdevice


@triton.jit
def softmax_f16(x_ptr, out_ptr, rows, cols, BM: tl.constexpr, BN: tl.constexpr):
    r = tl.program_id(0) * BM + tl.arange(0, BM)[:, None]
    c = tl.arange(0, BN)[None, :]
    mask = (r < rows) & (c < cols)
    x = tl.load(x_ptr + r * cols + c, mask=mask, other=-float("inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=1)[:, None])
    tl.store(out_ptr + r * cols + c, (e / tl.sum(e, axis=1)[:, None]).to(tl.float16), mask=mask)


@triton.jit
def _max_combine(a, b):
    return tl.maximum(a, b)


@triton.jit
def scans(x_ptr, sum_ptr, max_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(sum_ptr + offs, tl.cumsum(x, axis=0), mask=offs < n)
    tl.store(max_ptr + offs, tl.associative_scan(x, 0, _max_combine), mask=offs < n)


@triton.jit
def int_atomics(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(out_ptr + (x & 7), 1, mask=mask)
    tl.atomic_max(out_ptr + 8 + 0 * offs, x, mask=mask)
    tl.atomic_min(out_ptr + 9 + 0 * offs, x, mask=mask)
    tl.atomic_xor(out_ptr + 10 + 0 * offs, x, mask=mask)
    tl.atomic_or(out_ptr + 11 + 0 * offs, x, mask=mask)
    tl.atomic_and(out_ptr + 12 + 0 * offs, x, mask=mask)


@triton.jit
def float_atomics(x_ptr, out_ptr, h_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.atomic_min(out_ptr + 0 * offs, x, mask=mask)
    tl.atomic_max(out_ptr + 1 + 0 * offs, x, mask=mask)
    tl.atomic_add(h_ptr + (offs & 3), x.to(tl.float16), mask=mask)


@triton.jit
def cas_counter(lock_ptr, count_ptr, order_ptr):
    # One ticket per program through atomic_cas/atomic_xchg spin lock.
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    c = tl.load(count_ptr, volatile=True)
    tl.store(order_ptr + c, tl.program_id(0))
    tl.store(count_ptr, c + 1)
    tl.atomic_xchg(lock_ptr, 0)


@triton.jit
def rand_fns(out_ptr, n, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + 3 * offs, tl.randn(seed, offs), mask=mask)
    tl.store(out_ptr + 3 * offs + 1, tl.randint(seed, offs).to(tl.float32, bitcast=True), mask=mask)
    tl.store(out_ptr + 3 * offs + 2, tl.rand(seed, offs), mask=mask)


@triton.jit
def dot_f32(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, PREC: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    m = pm * BM + tl.arange(0, BM)
    n = pn * BN + tl.arange(0, BN)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        k = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + m[:, None] * K + k[None, :], mask=(m[:, None] < M) & (k[None, :] < K), other=0.0)
        b = tl.load(b_ptr + k[:, None] * N + n[None, :], mask=(k[:, None] < K) & (n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PREC)
    tl.store(c_ptr + m[:, None] * N + n[None, :], acc, mask=(m[:, None] < M) & (n[None, :] < N))


@triton.jit
def dot_f16(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    m = tl.arange(0, BM)
    n = tl.arange(0, BN)
    k = tl.arange(0, BK)
    a = tl.load(a_ptr + m[:, None] * BK + k[None, :])
    b = tl.load(b_ptr + k[:, None] * BN + n[None, :])
    tl.store(c_ptr + m[:, None] * BN + n[None, :], tl.dot(a, b))


@triton.jit
def dot_half(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
             ACC16: tl.constexpr):
    # C = A.B for f16 or bf16 A (M x K) and B (K x N), accumulated in f32 or (ACC16) f16.
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    m = pm * BM + tl.arange(0, BM)
    n = pn * BN + tl.arange(0, BN)
    if ACC16:
        acc = tl.zeros([BM, BN], dtype=tl.float16)
    else:
        acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        k = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + m[:, None] * K + k[None, :], mask=(m[:, None] < M) & (k[None, :] < K), other=0.0)
        b = tl.load(b_ptr + k[:, None] * N + n[None, :], mask=(k[:, None] < K) & (n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, out_dtype=acc.dtype)
    tl.store(c_ptr + m[:, None] * N + n[None, :], acc.to(tl.float32), mask=(m[:, None] < M) & (n[None, :] < N))


@triton.jit
def libdev(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    y = tl.load(y_ptr + offs, mask=mask, other=1.0)
    tl.store(out_ptr + 8 * offs, libdevice.tanh(x), mask=mask)
    tl.store(out_ptr + 8 * offs + 1, libdevice.pow(tl.abs(x), y), mask=mask)
    tl.store(out_ptr + 8 * offs + 2, libdevice.atan2(x, y), mask=mask)
    tl.store(out_ptr + 8 * offs + 3, tl.floor(x) + tl.ceil(y), mask=mask)
    tl.store(out_ptr + 8 * offs + 4, tl.fma(x, y, 1.0), mask=mask)
    tl.store(out_ptr + 8 * offs + 5, libdevice.exp(x), mask=mask)
    tl.store(out_ptr + 8 * offs + 6, libdevice.log1p(tl.abs(x)), mask=mask)
    tl.store(out_ptr + 8 * offs + 7, libdevice.rint(x * 3.0), mask=mask)


@triton.jit
def convert(x_ptr, i8_ptr, u8_ptr, i64_ptr, f_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(i8_ptr + offs, x.to(tl.int8), mask=mask)
    tl.store(u8_ptr + offs, x.to(tl.uint8), mask=mask)
    tl.store(i64_ptr + offs, x.to(tl.int64) * 3000000000 + offs.to(tl.int64), mask=mask)
    a = tl.load(i8_ptr + offs, mask=mask).to(tl.float32)
    b = tl.load(u8_ptr + offs, mask=mask).to(tl.float32)
    tl.store(f_ptr + offs, a + b + x.to(tl.int32).to(tl.uint32).to(tl.float32), mask=mask)


@triton.jit
def sort_flip(x_ptr, s_ptr, f_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(s_ptr + offs, tl.sort(x))
    tl.store(f_ptr + offs, tl.flip(x, 0))


@triton.jit
def gather_hist(x_ptr, idx_ptr, g_ptr, h_ptr, BLOCK: tl.constexpr, BINS: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    i = tl.load(idx_ptr + offs)
    tl.store(g_ptr + offs, tl.gather(x, i, 0))
    tl.store(h_ptr + tl.arange(0, BINS), tl.histogram(i % BINS, BINS))


@triton.jit
def nan_minmax(x_ptr, y_ptr, out_ptr, red_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(out_ptr + 4 * offs, tl.maximum(x, y), )
    tl.store(out_ptr + 4 * offs + 1, tl.minimum(x, y))
    tl.store(out_ptr + 4 * offs + 2, tl.maximum(x, y, tl.PropagateNan.ALL))
    tl.store(out_ptr + 4 * offs + 3, tl.minimum(x, y, tl.PropagateNan.ALL))
    tl.store(red_ptr, tl.max(x, axis=0))
    tl.store(red_ptr + 1, tl.min(y, axis=0, ))
    tl.store(red_ptr + 2, tl.max(tl.where(x == x, x, float('nan')), axis=0))


@triton.jit
def fp8_round(x_ptr, out_ptr, n, BLOCK: tl.constexpr, E4: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + 2 * offs, x.to(tl.float8e5).to(tl.float32), mask=mask)
    if E4:
        tl.store(out_ptr + 2 * offs + 1, x.to(tl.float8e4nv).to(tl.float32), mask=mask)


@triton.jit
def layer_norm_f16(x_ptr, w_ptr, b_ptr, out_ptr, rows, cols, eps, BM: tl.constexpr, BN: tl.constexpr):
    r = tl.program_id(0) * BM + tl.arange(0, BM)[:, None]
    c = tl.arange(0, BN)[None, :]
    mask = (r < rows) & (c < cols)
    x = tl.load(x_ptr + r * cols + c, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=1) / cols
    d = tl.where(mask, x - mean[:, None], 0.0)
    rstd = tl.rsqrt(tl.sum(d * d, axis=1) / cols + eps)
    w = tl.load(w_ptr + c, mask=c < cols, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + c, mask=c < cols, other=0.0).to(tl.float32)
    tl.store(out_ptr + r * cols + c, (d * rstd[:, None] * w + b).to(tl.float16), mask=mask)


@triton.jit
def vec_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def join_split(x_ptr, y_ptr, out_ptr, sw_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(out_ptr + tl.arange(0, 2 * BLOCK), tl.interleave(x, y))
    a, b = tl.split(tl.join(x, y))
    tl.store(sw_ptr + offs, b - a)


@triton.jit
def masked_other(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=2.5)
    i = tl.load((x_ptr + offs).to(tl.pointer_type(tl.int32)), mask=offs < n, other=-7)
    tl.store(out_ptr + offs, x * 2.0 + (i >> 31).to(tl.float32))


K = []
def k(fn, sig, consts, warps, sms=(80,), name=None):
    K.append((fn, sig, consts, warps, sms, name or fn.__name__))

@triton.jit
def dot_exact(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
              INT: tl.constexpr):
    # C = A.B for int8 A and B accumulated in int32 (INT), or f64 A and B accumulated in f64.
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    m = pm * BM + tl.arange(0, BM)
    n = pn * BN + tl.arange(0, BN)
    if INT:
        acc = tl.zeros([BM, BN], dtype=tl.int32)
    else:
        acc = tl.zeros([BM, BN], dtype=tl.float64)
    for k0 in range(0, K, BK):
        k = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + m[:, None] * K + k[None, :], mask=(m[:, None] < M) & (k[None, :] < K), other=0)
        b = tl.load(b_ptr + k[:, None] * N + n[None, :], mask=(k[:, None] < K) & (n[None, :] < N), other=0)
        acc = tl.dot(a, b, acc, out_dtype=acc.dtype)
    tl.store(c_ptr + m[:, None] * N + n[None, :], acc, mask=(m[:, None] < M) & (n[None, :] < N))


F, H, I = "*fp32", "*fp16", "*i32"
k(softmax_f16, {"x_ptr": H, "out_ptr": H, "rows": "i32", "cols": "i32"}, {"BM": 4, "BN": 128}, 8, (80, 90))
k(scans, {"x_ptr": F, "sum_ptr": F, "max_ptr": F, "n": "i32"}, {"BLOCK": 256}, 4)
k(int_atomics, {"x_ptr": I, "out_ptr": I, "n": "i32"}, {"BLOCK": 256}, 4)
k(float_atomics, {"x_ptr": F, "out_ptr": F, "h_ptr": H, "n": "i32"}, {"BLOCK": 128}, 4, (80, 90))
k(cas_counter, {"lock_ptr": I, "count_ptr": I, "order_ptr": I}, {}, 1)
k(rand_fns, {"out_ptr": F, "n": "i32", "seed": "i32"}, {"BLOCK": 128}, 4)
k(dot_f32, {"a_ptr": F, "b_ptr": F, "c_ptr": F, "M": "i32", "N": "i32", "K": "i32"},
  {"BM": 16, "BN": 16, "BK": 16, "PREC": "ieee"}, 4, (80,), "dot_ieee")
k(dot_f32, {"a_ptr": F, "b_ptr": F, "c_ptr": F, "M": "i32", "N": "i32", "K": "i32"},
  {"BM": 16, "BN": 16, "BK": 16, "PREC": "tf32"}, 4, (80,), "dot_tf32")
k(dot_f16, {"a_ptr": H, "b_ptr": H, "c_ptr": F}, {"BM": 64, "BN": 64, "BK": 16}, 4, (90,))
k(dot_half, {"a_ptr": H, "b_ptr": H, "c_ptr": F, "M": "i32", "N": "i32", "K": "i32"},
  {"BM": 32, "BN": 32, "BK": 32, "ACC16": False}, 4, (80,), "dot_f16acc32")
k(dot_half, {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": F, "M": "i32", "N": "i32", "K": "i32"},
  {"BM": 32, "BN": 32, "BK": 32, "ACC16": False}, 4, (80,), "dot_bf16")
k(dot_half, {"a_ptr": H, "b_ptr": H, "c_ptr": F, "M": "i32", "N": "i32", "K": "i32"},
  {"BM": 32, "BN": 32, "BK": 32, "ACC16": True}, 4, (80,), "dot_f16acc16")
k(dot_exact, {"a_ptr": "*i8", "b_ptr": "*i8", "c_ptr": I, "M": "i32", "N": "i32", "K": "i32"},
  {"BM": 32, "BN": 32, "BK": 32, "INT": True}, 4, (80,), "dot_int8")
k(dot_exact, {"a_ptr": "*fp64", "b_ptr": "*fp64", "c_ptr": "*fp64", "M": "i32", "N": "i32", "K": "i32"},
  {"BM": 32, "BN": 32, "BK": 16, "INT": False}, 4, (80,), "dot_f64")
k(libdev, {"x_ptr": F, "y_ptr": F, "out_ptr": F, "n": "i32"}, {"BLOCK": 128}, 4)
k(convert, {"x_ptr": F, "i8_ptr": "*i8", "u8_ptr": "*u8", "i64_ptr": "*i64", "f_ptr": F, "n": "i32"}, {"BLOCK": 128}, 4)
k(sort_flip, {"x_ptr": F, "s_ptr": F, "f_ptr": F}, {"BLOCK": 128}, 4)
k(gather_hist, {"x_ptr": F, "idx_ptr": I, "g_ptr": F, "h_ptr": I}, {"BLOCK": 128, "BINS": 16}, 4)
k(nan_minmax, {"x_ptr": F, "y_ptr": F, "out_ptr": F, "red_ptr": F}, {"BLOCK": 64}, 2)
k(fp8_round, {"x_ptr": F, "out_ptr": F, "n": "i32"}, {"BLOCK": 128, "E4": False}, 4, (80,))
k(fp8_round, {"x_ptr": F, "out_ptr": F, "n": "i32"}, {"BLOCK": 128, "E4": True}, 4, (90,))
k(layer_norm_f16, {"x_ptr": H, "w_ptr": H, "b_ptr": H, "out_ptr": H, "rows": "i32", "cols": "i32", "eps": "fp32"},
  {"BM": 2, "BN": 256}, 8, (80, 90))
k(vec_add, {"x_ptr": F, "y_ptr": F, "out_ptr": F, "n": "i32"}, {"BLOCK": 1024}, 4, (90,))
k(join_split, {"x_ptr": F, "y_ptr": F, "out_ptr": F, "sw_ptr": F}, {"BLOCK": 64}, 2)
k(masked_other, {"x_ptr": F, "out_ptr": F, "n": "i32"}, {"BLOCK": 128}, 4)


def portable(ptx, here):
    packages = os.path.dirname(os.path.dirname(os.path.abspath(triton.__file__)))
    return ptx.replace(here + os.sep, "").replace(packages + os.sep, "")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    only = sys.argv[1:]
    for fn, sig, consts, warps, sms, name in K:
        if only and name not in only:
            continue
        for sm in sms:
            attrs = {(i,): [["tt.divisibility", 16]] for i, t in enumerate(sig.values()) if t[0] == "*"}
            full = dict(sig, **{c: "constexpr" for c in consts})
            src = triton.compiler.ASTSource(fn=fn, signature=full, constexprs=consts, attrs=attrs)
            try:
                c = triton.compile(src, target=GPUTarget("cuda", sm, 32), options={"num_warps": warps})
            except Exception as e:
                print("FAIL", name, sm, repr(e)[:300])
                continue
            m = c.metadata
            head = (f"// Triton {triton.__version__}: {fn.__name__} from kernels.py, sm_{sm}, "
                    f"num_warps={m.num_warps} shared={m.shared} constexprs={consts}\n")
            with open(os.path.join(here, f"{name}_sm{sm}.ptx"), "w") as f:
                f.write(head + portable(c.asm["ptx"], here))
            print(name, sm, m.num_warps, m.shared)


if __name__ == "__main__":
    main()
