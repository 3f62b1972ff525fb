//! Raw PTX kernels taking `bool`, `int8_t`, `uint8_t`, `int16_t`, `uint16_t` scalars (`.u8`
//! and `.u16` parameters) and values passed by value as byte arrays (`__half`, a struct):
//! NVRTC's PTX (`ptx-sim/tests/data/by_value_params.cu`) launched by name with the matching
//! [`KernelArg`]s, their signatures as `PtxModule::params` describes them, and every wrong
//! argument an `Err` naming the kernel and the parameter.

use ptx_core::PtxType;
use ptx_runtime::{Device, Error, KernelArg, LaunchConfig, PtxModule, Scalar};

const NVRTC: &str = include_str!("../../ptx-sim/tests/data/by_value_params.ptx");
const AXPB_I8: &str = "_Z4axpbIaEvPKT_PS0_S0_S0_i";
const AXPB_U16: &str = "_Z4axpbItEvPKT_PS0_S0_S0_i";

fn module() -> PtxModule {
    Device::sim().load_ptx(NVRTC).unwrap()
}

/// `struct { int a; double b; short c; }` as C lays it out: a at 0, b at 8, c at 16, 24
/// bytes; the padding holds garbage no field may pick up.
fn mixed(a: i32, b: f64, c: i16) -> [u8; 24] {
    let mut s = [0x5au8; 24];
    s[0..4].copy_from_slice(&a.to_le_bytes());
    s[8..16].copy_from_slice(&b.to_le_bytes());
    s[16..18].copy_from_slice(&c.to_le_bytes());
    s
}

#[test]
fn bool_and_narrow_integer_scalars_launch() {
    let module = module();
    let device = module.device().clone();
    let n = 4;
    for neg in [true, false] {
        let (a, b, c, d) = (-3i8, 200u8, -1234i16, 60000u16);
        let mut out = device.zeroed::<i64>(5 * n).unwrap();
        let mut args = [
            KernelArg::from(&mut out),
            neg.into(),
            a.into(),
            b.into(),
            c.into(),
            d.into(),
            (n as i32).into(),
        ];
        // SAFETY: thread i writes out[5i..5i+5], inside the 5n elements.
        unsafe { module.launch("small_scalars", LaunchConfig::linear(1, n as u32), &mut args) }.unwrap();
        let want: Vec<i64> = (0..n as i64)
            .flat_map(|i| {
                let v = i64::from(a) * (i + 1) + i64::from(b);
                let prod = i64::from(i32::from(d) + i32::from(c) * i as i32);
                [if neg { -v } else { v }, i64::from(a), i64::from(b), i64::from(c), prod]
            })
            .collect();
        assert_eq!(out.to_vec().unwrap(), want, "neg = {neg}");
    }
}

#[test]
fn templated_int8_and_uint16_kernels_launch() {
    let module = module();
    let device = module.device().clone();
    let x: Vec<i8> = vec![-128, -7, -1, 0, 1, 5, 100, 127];
    let (xd, mut yd) = (device.upload(&x).unwrap(), device.zeroed::<i8>(8).unwrap());
    let mut args = [(&xd).into(), (&mut yd).into(), (-3i8).into(), (-100i8).into(), 8i32.into()];
    // SAFETY: 8 threads, each touching element i < 8 of 8-element buffers.
    unsafe { module.launch(AXPB_I8, LaunchConfig::linear(1, 8), &mut args) }.unwrap();
    let want: Vec<i8> = x.iter().map(|&v| (-3i8).wrapping_mul(v).wrapping_add(-100)).collect();
    assert_eq!(yd.to_vec().unwrap(), want);

    let x: Vec<u16> = vec![0, 1, 2, 300, 40000, 65535];
    let (xd, mut yd) = (device.upload(&x).unwrap(), device.zeroed::<u16>(6).unwrap());
    let mut args = [(&xd).into(), (&mut yd).into(), 65533u16.into(), 7u16.into(), 6i32.into()];
    // SAFETY: as above, 6 elements.
    unsafe { module.launch(AXPB_U16, LaunchConfig::linear(1, 6), &mut args) }.unwrap();
    let want: Vec<u16> = x.iter().map(|&v| 65533u16.wrapping_mul(v).wrapping_add(7)).collect();
    assert_eq!(yd.to_vec().unwrap(), want);
}

#[test]
fn a_half_and_a_struct_by_value_launch_as_their_bytes() {
    let module = module();
    let device = module.device().clone();
    // f16 bits of 1.5, -2, 0.25, 3, times 2.5 (exact): 3.75, -5, 0.625, 7.5.
    let mut x = device.upload(&[0x3e00u16, 0xc000, 0x3400, 0x4200]).unwrap();
    let mut args = [(&mut x).into(), KernelArg::bytes(&0x4100u16.to_le_bytes()), 4i32.into()];
    // SAFETY: 4 threads, element i < 4 each.
    unsafe { module.launch("half_scale", LaunchConfig::linear(1, 4), &mut args) }.unwrap();
    assert_eq!(x.to_vec().unwrap(), [0x4380, 0xc500, 0x3900, 0x4780]);

    let mut out = device.zeroed::<f64>(8).unwrap();
    let (a, b, c) = (-7i32, 0.375f64, -2i16);
    let mut args = [(&mut out).into(), KernelArg::bytes(&mixed(a, b, c))];
    // SAFETY: 8 threads, element i < 8 each.
    unsafe { module.launch("by_struct", LaunchConfig::linear(1, 8), &mut args) }.unwrap();
    let want: Vec<f64> = (0..8).map(|i| f64::from(a * i) + b + f64::from(c)).collect();
    assert_eq!(out.to_vec().unwrap(), want);
}

#[test]
fn params_describes_narrow_scalars_and_byte_arrays() {
    let module = module();
    let describe = |kernel: &str| -> Vec<String> {
        module.params(kernel).unwrap().iter().map(|p| p.to_string()).collect()
    };
    assert_eq!(
        describe("small_scalars"),
        (0..7)
            .map(|i| format!(
                ".{} small_scalars_param_{i}",
                ["u64", "u8", "u8", "u8", "u16", "u16", "u32"][i]
            ))
            .collect::<Vec<_>>()
    );
    assert_eq!(describe("half_scale")[1], ".b8 half_scale_param_1[2]");
    let s = &module.params("by_struct").unwrap()[1];
    assert_eq!((s.ty, s.array, s.size_bytes()), (PtxType::U8, Some(24), 24));
    assert_eq!(module.params("by_int4").unwrap()[1].size_bytes(), 16);
    assert!(module.kernel_names().all(|k| module.unsupported(k).is_none()));
}

/// The launch's error, which must be an argument mismatch at `index`.
fn mismatch(module: &PtxModule, kernel: &str, index: usize, args: &mut [KernelArg<'_>]) -> String {
    // SAFETY: every launch here is refused before anything runs.
    let err = unsafe { module.launch(kernel, LaunchConfig::linear(1, 1), args) }.unwrap_err();
    match &err {
        Error::ArgumentMismatch { index: i, .. } if *i == index => err.to_string(),
        other => panic!("{kernel}: expected a mismatch at argument {index}, got {other}"),
    }
}

#[test]
fn wrong_kinds_and_byte_counts_are_errors_naming_kernel_and_parameter() {
    let module = module();
    let device = module.device().clone();
    let mut out = device.zeroed::<i64>(5).unwrap();
    let mut f64s = device.zeroed::<f64>(1).unwrap();
    let mut halves = device.zeroed::<u16>(1).unwrap();
    // small_scalars(out, bool, i8, u8, i16, u16, int) with one argument replaced (a scalar,
    // or bytes for `None`).
    for (at, replaced, want) in [
        (1, Some(Scalar::U32(1)), "a u8, an i8 or a bool (parameter `.u8 small_scalars_param_1`)"),
        (2, Some(Scalar::I16(1)), "a u8, an i8 or a bool"),
        (3, None, "found 1 bytes by value"),
        (4, Some(Scalar::U8(1)), "a 16-bit integer (u16 or i16) (parameter `.u16 small_scalars_param_4`)"),
        (5, Some(Scalar::Bool(true)), "found scalar bool (.u8)"),
        (6, Some(Scalar::Bool(false)), "a 32-bit integer (u32 or i32)"),
    ] {
        let mut args: Vec<KernelArg<'_>> = vec![
            KernelArg::from(&mut out),
            true.into(),
            1i8.into(),
            1u8.into(),
            1i16.into(),
            1u16.into(),
            1i32.into(),
        ];
        args[at] = replaced.map_or_else(|| KernelArg::bytes(&[1]), KernelArg::scalar);
        let err = mismatch(&module, "small_scalars", at, &mut args);
        assert!(err.contains("kernel `small_scalars`") && err.contains(want), "{at}: {err}");
    }
    // A struct's bytes: exactly 24.
    for bytes in [0usize, 8, 23, 25, 32] {
        let mut args = [(&mut f64s).into(), KernelArg::bytes(&vec![0; bytes])];
        let err = mismatch(&module, "by_struct", 1, &mut args);
        assert!(
            err.contains("kernel `by_struct`")
                && err.contains("`.b8 by_struct_param_1[24]`")
                && err.contains(&format!("found {bytes} bytes by value, not the 24 it has"))
                && err.contains("KernelArg::bytes"),
            "{bytes}: {err}"
        );
    }
    // A scalar or a buffer where bytes go, and bytes where a pointer goes.
    for scalar in [Scalar::U16(1), Scalar::I16(0x3c00)] {
        let mut args = [(&mut halves).into(), KernelArg::scalar(scalar), 1i32.into()];
        let err = mismatch(&module, "half_scale", 1, &mut args);
        assert!(err.contains("2 bytes passed by value (parameter `.b8 half_scale_param_1[2]`)"), "{err}");
    }
    let xs = device.upload(&[0u16; 2]).unwrap();
    let mut args = [(&mut halves).into(), (&xs).into(), 1i32.into()];
    mismatch(&module, "half_scale", 1, &mut args);
    let mut args = [KernelArg::bytes(&[0; 8]), KernelArg::bytes(&mixed(1, 1.0, 1))];
    let err = mismatch(&module, "by_struct", 0, &mut args);
    assert!(err.contains("a buffer or a 64-bit integer"), "{err}");
}

#[test]
fn conversions_give_the_narrow_scalars() {
    assert_eq!(Scalar::from(true), Scalar::Bool(true));
    assert_eq!(Scalar::from(5u8), Scalar::U8(5));
    assert_eq!(Scalar::from(-3i16), Scalar::I16(-3));
    assert_eq!(Scalar::Bool(true).to_le_bytes(), [1]);
    assert_eq!(Scalar::Bool(false).to_le_bytes(), [0]);
    assert_eq!(Scalar::I8(-1).to_le_bytes(), [0xff]);
    assert_eq!(Scalar::I16(-2).to_le_bytes(), [0xfe, 0xff]);
    assert_eq!(Scalar::U16(0x1234).to_bits(), 0x1234);
    assert_eq!(Scalar::F64(1.0).to_le_bytes(), 1.0f64.to_le_bytes());
    assert_eq!(KernelArg::from(-3i16).describe(), "scalar s16");
    assert!(!KernelArg::bytes(&[1, 2]).is_buffer());
}
