use ptx_dsl::prelude::*;

macro_rules! fill {
    ($name:ident, $t:ty, $v:expr) => {
        #[ptx_kernel]
        fn $name(x: &mut [$t]) {
            let i = thread_idx().x;
            x[i] = $v;
        }
    };
}

fill!(fill_ok, f32, 1.5);
fill!(fill_bad, f32, 1u32 + 2);
fill!(fill_bad_method, u8, 3u8.sqrt());

fn main() {}
