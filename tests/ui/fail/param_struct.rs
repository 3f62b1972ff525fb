use ptx_dsl::prelude::*;

struct Point { x: f32 }

#[ptx_kernel]
fn k(p: Point) {}

fn main() {}
