use ptx_dsl::prelude::*;

// The last arm takes what the others leave, but its pattern is checked as rustc checks it:
// a float in a `u32` match, an integer in a `bool` one, a literal past a `u8`, a name bound
// at two types.
#[ptx_kernel]
fn last_arm_patterns(out: &mut [u32], x: u32, b: bool) {
    out[0] = match x {
        0 => 1,
        1.. | 2.5 => 2,
    };
    out[1] = match b {
        true => 1,
        false | 3 => 2,
    };
    out[2] = match x as u8 {
        0..=127 => 1,
        128..=256 => 2,
    };
    out[3] = match (x, x > 3) {
        (a, _) | (_, a) => a as u32,
    };
}

// `usize` and `isize` have no fixed ends for rustc: a range up to `usize::MAX` leaves
// `usize::MAX..`; a `match` without arms.
#[ptx_kernel]
fn pointer_sized(out: &mut [u32], x: u32) {
    out[0] = match x as usize {
        0..=usize::MAX => 1,
    };
    out[1] = match x as isize {
        isize::MIN..=-1 => 1,
        0.. => 2,
    };
    out[2] = match x {};
}

// A `max` of the module's own is not `std::cmp::max`, which a kernel's `max(a, b)` is:
// rustc's error at the call.
mod own_max {
    use ptx_dsl::prelude::*;

    fn max(a: u32, _b: u32) -> u32 {
        a
    }

    #[ptx_kernel]
    fn shadowed(out: &mut [u32], x: u32) {
        out[0] = max(x, 7) + max(1, x) * 0;
    }
}

fn main() {}
