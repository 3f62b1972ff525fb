//! The f32 routines' series coefficients against their definitions, computed here from
//! factorials, the atanh series and tanh's differential equation: a coefficient of the wrong
//! sign or value far down a series changes a result by less than the accuracy tests'
//! resolution (the last sine term is worth 0.08 ulp at π/4), so they are checked directly.

use super::{COS_POLY, LN_POLY, SIN_POLY, TANH_POLY};

/// n! in f64 (exact for the n used here, n ≤ 20 < 23).
fn factorial(n: u32) -> f64 {
    (1..=n).map(f64::from).product()
}

#[test]
fn sine_coefficients_are_the_taylor_series_of_sin_r_over_r_minus_1() {
    // sin r / r − 1 = Σ_{k≥0} (−1)^(k+1) r^(2k+2) / (2k+3)!
    for (k, &c) in SIN_POLY.iter().enumerate() {
        let sign = if k % 2 == 0 { -1.0 } else { 1.0 };
        assert_eq!(c, (sign / factorial(2 * k as u32 + 3)) as f32, "SIN_POLY[{k}]");
    }
}

#[test]
fn cosine_coefficients_are_the_taylor_series_beyond_r_squared() {
    // (cos r − 1 + r²/2) / r⁴ = Σ_{k≥0} (−1)^k r^(2k) / (2k+4)!
    for (k, &c) in COS_POLY.iter().enumerate() {
        let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
        assert_eq!(c, (sign / factorial(2 * k as u32 + 4)) as f32, "COS_POLY[{k}]");
    }
}

#[test]
fn logarithm_coefficients_are_the_atanh_series() {
    // ln m = 2s (1 + s²/3 + s⁴/5 + ...): LN_POLY[k] = 2/(2k+3) multiplies s^(2k+2)·s.
    for (k, &c) in LN_POLY.iter().enumerate() {
        assert_eq!(c, (2.0 / (2 * k + 3) as f64) as f32, "LN_POLY[{k}]");
    }
}

#[test]
fn tanh_coefficients_solve_its_differential_equation() {
    // tanh x = Σ a_n x^(2n+1) with tanh' = 1 − tanh²: a_0 = 1 and
    // (2n+1)·a_n = −Σ_{i+j=n−1} a_i a_j; TANH_POLY[k] = a_{k+1}. In f64 the recurrence
    // errs by a few 1e-16 relative, far inside the f32 rounding compared.
    let mut a = vec![1.0f64];
    for n in 1..=TANH_POLY.len() {
        let convolution: f64 = (0..n).map(|i| a[i] * a[n - 1 - i]).sum();
        a.push(-convolution / (2 * n + 1) as f64);
    }
    for (k, &c) in TANH_POLY.iter().enumerate() {
        assert_eq!(c, a[k + 1] as f32, "TANH_POLY[{k}]");
    }
}
