//! The macro's compile errors and accepted programs, as a user would see them: every
//! `tests/ui/fail` case must fail with exactly its reviewed `.stderr`, every `tests/ui/pass`
//! case must build and run. One `TestCases`, so the cases share one build.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
