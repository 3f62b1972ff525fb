use ptx_dsl::prelude::*;

// A constant of the surrounding code of a type kernels cannot use, where a scalar goes:
// rustc's type error at the constant, and nothing more (the module-cache key takes the
// `Debug` text only of constants that have one).
#[allow(dead_code)]
struct Config {
    n: u32,
}

const CONFIG: Config = Config { n: 4 };

#[ptx_kernel]
fn reads_a_struct(y: &mut [u32]) {
    y[0] = CONFIG;
}

fn main() {}
