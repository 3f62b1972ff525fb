//! Source notes in the printed PTX: each statement as a one-line comment, a `.loc` for
//! each new position (not repeated while statements share one), `.file` per source file;
//! and ptxas accepts the result.

use ptx_core::{KernelBuilder, Target, U32};
use ptx_tools::ptxas;

#[test]
fn notes_print_as_comments_and_deduplicated_locs() {
    let mut b = KernelBuilder::new("k");
    let p = b.global_pointer("p");
    b.note_source("src/a.rs", 3, 5, "let x = 1;");
    let x = b.ld_global::<U32>(p, 0);
    // Same position (as every statement of a `macro_rules!` expansion has): no new `.loc`.
    b.note_source("src/a.rs", 3, 5, "let y = x\n    + 2;");
    let y = b.add(x, 2u32);
    b.note_source("src/b.rs", 9, 1, "out = y;");
    b.st_global::<U32>(p, 4, y);
    let ir = b.finish();
    let ptx = ptx_core::print::kernel_ptx(&ir, Target::SM_80);
    assert!(ptx.contains(".file 1 \"src/a.rs\"\n.file 2 \"src/b.rs\""), "{ptx}");
    assert_eq!(ptx.matches(".loc 1 3 5").count(), 1, "a repeated position prints once:\n{ptx}");
    assert!(ptx.contains(".loc 2 9 1"), "{ptx}");
    assert!(ptx.contains("// let y = x     + 2;"), "a line break in a statement prints as a space:\n{ptx}");
    assert!(ptx.contains("// out = y;"), "{ptx}");
    let Some(path) = ptxas::ptxas_or_skip("notes_print_as_comments_and_deduplicated_locs") else { return };
    for target in [Target::SM_80, Target::SM_90] {
        let ptx = ptx_core::print::kernel_ptx(&ir, target);
        if let Err(e) = ptxas::assemble(&path, &ptx, &target.to_string()) {
            panic!("ptxas rejects the notes for {target}: {e}\n{ptx}");
        }
    }
}
