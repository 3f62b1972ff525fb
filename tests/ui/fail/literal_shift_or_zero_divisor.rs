use ptx_dsl::prelude::*;

#[ptx_kernel]
fn k(x: &mut [u32], b: &mut [u8], n: i64) {
    // What rustc rejects as always overflowing or panicking (`arithmetic_overflow`,
    // `unconditional_panic`); amounts below the width and non-zero divisors are fine.
    x[0] = x[0] << 32;
    x[1] = x[1] >> 31 << 1;
    b[0] >>= 8;
    b[1] <<= 7;
    x[2] = (n / 0) as u32;
    x[3] %= 0;
    x[4] = (n >> -1) as u32;
    x[5] = (n % -1) as u32;
}

fn main() {}
