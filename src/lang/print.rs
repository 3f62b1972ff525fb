//! `gpu_print!` in a kernel: the format's `{}`s become C `printf` conversions chosen by each
//! argument's Rust type, and the call is the CUDA runtime's `vprintf` (which the GPU's
//! driver prints at the next synchronising call, and the simulator prints as it runs).

use ptx_core::ir::PrintArg;
use ptx_core::PtxType;

use super::{KernelCtx, Scalar, Value};

impl KernelCtx {
    /// `gpu_print!` with the literal `pieces` around the values `args` (one fewer): each
    /// value is passed as C's varargs promote it (`f32` to `f64`), and printed as `{}` prints
    /// it in Rust for integers and `bool`s; floats print as C's `%g` (six significant digits).
    /// The line ends with `\n`, as `println!` ends it.
    pub fn print(&mut self, pieces: &[&str], args: &[Value]) {
        let mut format = String::new();
        let mut passed = Vec::with_capacity(args.len());
        let mut offset = 0u32;
        for (i, piece) in pieces.iter().enumerate() {
            format.push_str(&piece.replace('%', "%%"));
            let Some(&value) = args.get(i) else { continue };
            let (conversion, ty) = match value.ty() {
                Scalar::Bool => ("%s", PtxType::U64),
                Scalar::U8 | Scalar::U16 | Scalar::U32 => ("%u", PtxType::U32),
                Scalar::I8 | Scalar::I16 | Scalar::I32 => ("%d", PtxType::S32),
                Scalar::U64 | Scalar::Usize => ("%llu", PtxType::U64),
                Scalar::I64 | Scalar::Isize => ("%lld", PtxType::S64),
                Scalar::F32 | Scalar::F64 | Scalar::F16 | Scalar::Bf16 => ("%g", PtxType::F64),
            };
            format.push_str(conversion);
            let size = ty.bytes();
            offset = offset.next_multiple_of(size);
            passed.push(self.print_arg(value, ty, offset));
            offset += size;
        }
        // A line, as `println!` (what `gpu_print!` is on the host) ends it.
        format.push('\n');
        let format = self.b.string(format.as_bytes());
        self.b.printf(format, passed);
    }

    /// `value` as the `printf` argument of type `ty` at `offset`.
    fn print_arg(&mut self, value: Value, ty: PtxType, offset: u32) -> PrintArg {
        if value.ty() == Scalar::Bool {
            let pred = self.operand_register(value.operand());
            let (if_true, if_false) = (self.b.string(b"true"), self.b.string(b"false"));
            return PrintArg::Choice { offset, pred, if_true, if_false };
        }
        let value = match value.ty() {
            Scalar::F16 | Scalar::Bf16 => {
                let wide = self.cast(value, Scalar::F32);
                self.cast(wide, Scalar::F64)
            }
            Scalar::F32 => self.cast(value, Scalar::F64),
            _ => value,
        };
        PrintArg::Value { offset, ty, reg: self.operand_register(value.operand()) }
    }
}
