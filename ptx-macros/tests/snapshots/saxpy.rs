/// y = a·x + y
#[derive(Clone, Copy, Debug, PartialEq)]
#[allow(non_snake_case)]
pub struct Saxpy {
    #[allow(missing_docs)]
    pub unroll: u32,
}
impl Saxpy {
    ///The kernel with its `#[comptime]` parameters, in declaration order.
    #[allow(clippy::new_without_default, non_snake_case)]
    pub const fn new(unroll: u32) -> Self {
        Self { unroll }
    }
    ///Launches `saxpy` on `device` over `config`, with the kernel's runtime parameters in declaration order (`&[T]` as `&DeviceBuffer<T>`, `&mut [T]` as `&mut DeviceBuffer<T>`, `f16` and `bf16` elements as `half::f16`/`half::bf16` or `u16` bits, scalars by value).
    ///
    /// Slice accesses are bounds-checked: an out-of-range load reads 0, an
    /// out-of-range store is dropped, and the first one of the launch is reported as
    /// `Error::OutOfBounds` naming the parameter, index, length and Rust line — by
    /// this call on the simulator, by the next synchronising call (`synchronize`,
    /// `to_vec`) on CUDA, so that a launch never waits for the kernel.
    #[allow(clippy::too_many_arguments, non_snake_case)]
    pub fn launch(
        &self,
        device: &::ptx_dsl::__private::Device,
        config: ::ptx_dsl::__private::LaunchConfig,
        a: f32,
        x: &::ptx_dsl::__private::DeviceBuffer<f32>,
        y: &mut ::ptx_dsl::__private::DeviceBuffer<f32>,
        n: u32,
    ) -> ::ptx_dsl::__private::Result<::ptx_dsl::__private::LaunchReport> {
        let x_len = x.len() as u64;
        let y_len = y.len() as u64;
        let kernel = *self;
        unsafe {
            device
                .launch_checked(
                    self,
                    config,
                    &mut [
                        ::ptx_dsl::__private::KernelArg::scalar(a),
                        ::ptx_dsl::__private::KernelArg::buffer(x),
                        ::ptx_dsl::__private::KernelArg::scalar(x_len),
                        ::ptx_dsl::__private::KernelArg::buffer_mut(y),
                        ::ptx_dsl::__private::KernelArg::scalar(y_len),
                        ::ptx_dsl::__private::KernelArg::scalar(n),
                    ],
                    ::std::boxed::Box::new(move || kernel.build_with_sites().1),
                )
        }
    }
    /// Builds the kernel's IR, with the table of the places where it can fault.
    #[allow(unused_braces, clippy::all)]
    pub fn build_with_sites(
        &self,
    ) -> (
        ::ptx_dsl::__private::KernelIr,
        ::std::vec::Vec<::ptx_dsl::__private::FaultSite>,
    ) {
        let mut __k = ::ptx_dsl::__private::KernelCtx::new("saxpy", true);
        let a = __k.scalar_param("a", ::ptx_dsl::__private::Scalar::F32);
        let x = __k.slice_param("x", ::ptx_dsl::__private::Scalar::F32, true);
        let y = __k.slice_param("y", ::ptx_dsl::__private::Scalar::F32, true);
        let n = __k.scalar_param("n", ::ptx_dsl::__private::Scalar::U32);
        let unroll: u32 = self.unroll;
        __k.begin_body();
        __k.note(
            ::ptx_dsl::__private::Site::at(
                ::core::file!(),
                ::core::line!(),
                ::core::column!(),
            ),
            "let i = block_idx().x * block_dim().x + thread_idx().x;",
        );
        let _ = block_idx;
        let __t1 = __k.index(::ptx_dsl::__private::Builtin::BlockIdx, 0usize);
        let _ = block_dim;
        let __t2 = __k.index(::ptx_dsl::__private::Builtin::BlockDim, 0usize);
        let _ = thread_idx;
        let __t3 = __k.index(::ptx_dsl::__private::Builtin::ThreadIdx, 0usize);
        let i = __k.mad(__t1, __t2, __t3);
        __k.note(
            ::ptx_dsl::__private::Site::at(
                ::core::file!(),
                ::core::line!(),
                ::core::column!(),
            ),
            "let mut acc = 0.0f32;",
        );
        let acc = __k.mutable_var(::ptx_dsl::__private::Value::from(0.0f32));
        __k.note(
            ::ptx_dsl::__private::Site::at(
                ::core::file!(),
                ::core::line!(),
                ::core::column!(),
            ),
            "for k in 0..unroll {",
        );
        let __i4 = __k.var(::ptx_dsl::__private::Value::from(0u32));
        let __end5 = ::ptx_dsl::__private::Value::from(unroll);
        let __for_next7 = __k.label();
        let __for_exit8 = __k.label();
        let __step6 = ::ptx_dsl::__private::Value::from(1u32);
        let __for_head9 = __k.label();
        __k.place(__for_head9);
        let __in_range10 = __k.lt(__i4, __end5);
        __k.jump_unless(__in_range10, __for_exit8);
        {
            let k = __i4;
            __k.note(
                ::ptx_dsl::__private::Site::at(
                    ::core::file!(),
                    ::core::line!(),
                    ::core::column!(),
                ),
                "acc += 1.0;",
            );
            let __t13 = __k.add(acc, ::ptx_dsl::__private::Value::from(1.0f32));
            __k.assign(acc, __t13);
        }
        __k.place(__for_next7);
        let __done11 = __k.range_done_after(__i4, __end5, __step6, false);
        __k.jump_if(__done11, __for_exit8);
        let __stepped12 = __k.add(__i4, __step6);
        __k.assign(__i4, __stepped12);
        __k.jump(__for_head9);
        __k.place(__for_exit8);
        __k.note(
            ::ptx_dsl::__private::Site::at(
                ::core::file!(),
                ::core::line!(),
                ::core::column!(),
            ),
            "if i < n {",
        );
        let __t14 = __k.lt(i, n);
        let __end_if15 = __k.label();
        __k.jump_unless(__t14, __end_if15);
        {
            __k.note(
                ::ptx_dsl::__private::Site::at(
                    ::core::file!(),
                    ::core::line!(),
                    ::core::column!(),
                ),
                "y[i] = a.mul_add(x[i], y[i]) + acc;",
            );
            let __t16 = __k
                .load(
                    &x,
                    i,
                    ::ptx_dsl::__private::Site::at(
                        ::core::file!(),
                        ::core::line!(),
                        ::core::column!(),
                    ),
                );
            let __t17 = __k
                .load(
                    &y,
                    i,
                    ::ptx_dsl::__private::Site::at(
                        ::core::file!(),
                        ::core::line!(),
                        ::core::column!(),
                    ),
                );
            let __t18 = __k.mul_add(a, __t16, __t17);
            let __t19 = __k.add(__t18, acc);
            __k.store(
                &y,
                i,
                __t19,
                ::ptx_dsl::__private::Site::at(
                    ::core::file!(),
                    ::core::line!(),
                    ::core::column!(),
                ),
            );
        }
        __k.place(__end_if15);
        __k.finish()
    }
}
impl ::ptx_dsl::__private::Kernel for Saxpy {
    fn name(&self) -> &str {
        "saxpy"
    }
    fn build(&self) -> ::ptx_dsl::__private::KernelIr {
        self.build_with_sites().0
    }
    fn cache_key(&self) -> ::std::string::String {
        {
            #[allow(unused_imports)]
            use ::ptx_dsl::__private::{ByDebug as _, NoKey as _};
            ::std::format!(
                "{}#{}{:?}{:?}", ::core::module_path!(), "236a669f364ec23c", & [& self
                .unroll as & dyn ::core::fmt::Debug] as & [& dyn ::core::fmt::Debug], {
                let keys : [::std::string::String; 0usize] = []; keys }
            )
        }
    }
    /// The slice accesses not proven in range by a dominating guard
    /// (`if i < x.len()`, `for i in 0..x.len()`).
    fn bounds_checks(&self) -> usize {
        self.build_with_sites()
            .1
            .iter()
            .filter(|s| ::ptx_dsl::__private::is_bounds_check(s))
            .count()
    }
}
