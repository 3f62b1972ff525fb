use ptx_dsl::prelude::*;

#[ptx_kernel]
fn overflows(x: &mut [u32], y: &mut [i32]) {
    let a = 255u8;
    x[0] = (a + 1) as u32;
    y[0] = i32::MAX + 1;
    y[1] = -i32::MIN;
    x[1] = (200u8 as u32) * 30_000_000;
    x[2] = 3u32 - 4;
    y[2] = i32::MIN / -1;
    y[3] = i32::MIN % -1;
}

/// 255, which rustc does not see through at a call.
#[ptx_device]
fn full() -> u8 {
    255
}

/// None of these always overflows (or rustc does not see that it does).
#[ptx_kernel]
fn fine(x: &mut [u32], y: &mut [i32], n: u32, #[comptime] c: u8) {
    x[4] = full().wrapping_add(0) as u32 + (full() + 1) as u32;
    let mut m = 4_000_000_000u32;
    m += 1;
    x[0] = m + n;
    x[1] = (c + 200) as u32;
    x[2] = (u8::MAX as u32) + 1 + (1u32 << 31) + 255u8.wrapping_add(1) as u32;
    y[0] = (-128i8 as i32) + ((-1i32) as u32 as i32);
    y[1] = -2147483648 + 7 % -1 - i32::MIN / 2;
    x[3] = !0u32 ^ (u32::MAX >> 1) & 7;
}

fn main() {}
