use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [u32], b: &mut [u8], n: u32) {
    // Shift amounts and divisors that are constants, not literals: rustc rejects these
    // whatever the left operand (`arithmetic_overflow`, `unconditional_panic`).
    let s = 32u32;
    x[0] = n << s;
    x[1] = n >> (16 + 16);
    let e = 8u32;
    b[0] = b[0] << e;
    let z = 0u32;
    x[2] = n / z;
    x[3] %= z;
    let (a, c) = (255u8, 1u8);
    b[1] = a + c;
    let (p, q) = (7u32, 1u32);
    let (p, q) = (q, p);
    x[4] = p - q;
    // A compound shift's limit is its target's width, whatever the amount's type.
    let w = 8u64;
    b[2] <<= w;
    let mut m = n;
    m >>= s;
    x[5] = m;
}

/// None of these always fails: amounts inside the width, non-zero or mutable divisors.
#[ptx_kernel]
fn fine(x: &mut [u32], n: u32) {
    let s = 31u32;
    x[0] = n << s >> (15 + 16);
    let mut z = 0u32;
    z += n | 1;
    x[1] = n / z;
    let (a, c) = (254u8, 1u8);
    x[2] = (a + c) as u32;
    let (p, q) = (1u32, 7u32);
    let (p, q) = (q, p);
    x[3] = p - q;
    let mut m = n;
    m <<= 7u64;
    let w = 7u8;
    x[4] = m >> w;
    x[5] <<= 31i64;
}

fn main() {}
