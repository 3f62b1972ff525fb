//! Kernel headers the twenty-third round of probing found read wrongly, each module
//! assembled by ptxas first where it is installed: an `.entry` without a parameter list
//! (which the PTX ISA allows), `.entry` inside a `.file` string, and parameters that take
//! more `.param` space together than the module's PTX version allows (ptxas refuses them).

mod common;

use common::{download, geo, upload};
use ptx_sim::signature::entries;
use ptx_sim::{launch, Memory, Module};

const HEADER: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

/// Assembles `ptx` for sm_80 where ptxas is found: `Ok` when it takes it.
fn ptxas_takes(ptx: &str) -> Option<bool> {
    let ptxas = ptx_tools::ptxas::ptxas_or_skip("round23_entries")?;
    Some(ptx_tools::ptxas::assemble(&ptxas, ptx, "sm_80").is_ok())
}

#[test]
fn a_kernel_without_a_parameter_list_loads_and_runs() {
    let store = ".reg .b64 %rd<2>;\n mov.u64 %rd1, out;\n st.global.u32 [%rd1], 5;\n ret;";
    let alone = format!("{HEADER}.global .u32 out;\n.visible .entry k\n{{\n {store}\n}}\n");
    let before = format!(
        "{HEADER}.global .u32 out;\n.visible .entry k .maxntid 32, 1, 1\n{{\n {store}\n}}\n\
         .visible .entry j(.param .u32 n)\n{{\n ret;\n}}\n"
    );
    for ptx in [&alone, &before] {
        assert_ne!(ptxas_takes(ptx), Some(false), "ptxas refuses\n{ptx}");
        let e = entries(ptx).unwrap_or_else(|e| panic!("{e}\n{ptx}"));
        assert_eq!(e[0].name, "k");
        assert!(e[0].params.is_empty(), "{e:?}");
        let m = Module::parse(ptx).unwrap_or_else(|e| panic!("{e}\n{ptx}"));
        let names: Vec<&str> = m.kernel_names().collect();
        assert_eq!(names, if ptx == &alone { vec!["k"] } else { vec!["k", "j"] });
        let mem = Memory::new();
        launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [1, 1, 1]), &[], &mem, 1).unwrap();
    }
    assert_eq!(entries(&before).unwrap()[1].params.len(), 1);
}

#[test]
fn entry_inside_a_file_name_is_no_entry() {
    for file in ["/src/rope.entry.cu", "/src/a.entry(1).cu", "/src/\\\"q\\\".entry"] {
        let ptx = format!(
            "{HEADER}.file 1 \"{file}\"\n.visible .entry k(.param .u64 p)\n{{\n .reg .b64 %rd<3>;\n \
             ld.param.u64 %rd1, [p];\n cvta.to.global.u64 %rd2, %rd1;\n st.global.u32 [%rd2], 5;\n ret;\n}}\n"
        );
        let e = entries(&ptx).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!((e.len(), e[0].name.as_str(), e[0].params.len()), (1, "k", 1), "{file}");
        let m = Module::parse(&ptx).unwrap_or_else(|e| panic!("{e}\n{ptx}"));
        let mem = Memory::new();
        let out = upload(&mem, &[0], 4);
        launch(m.kernel("k").unwrap(), &geo([1, 1, 1], [1, 1, 1]), &[out], &mem, 1).unwrap();
        assert_eq!(download(&mem, out, 1, 4), [5]);
    }
}

#[test]
fn parameters_past_the_versions_param_space_are_refused_by_name() {
    let kernel = |version: &str, arrays: &[u32]| {
        let params: Vec<String> =
            arrays.iter().enumerate().map(|(i, n)| format!(".param .align 8 .b8 a{i}[{n}]")).collect();
        format!(
            ".version {version}\n.target sm_80\n.address_size 64\n.visible .entry big({})\n{{\n ret;\n}}\n",
            params.join(", ")
        )
    };
    // PTX 8.1 and later: 32 764 bytes; before, 4 352.
    let cases = [
        ("8.5", vec![30000, 30000], false),
        ("8.5", vec![16384, 16380], true),
        ("8.5", vec![16384, 16381], false),
        ("8.0", vec![4352], true),
        ("8.0", vec![4352, 1], false),
        ("7.0", vec![4000, 400], false),
    ];
    for (version, arrays, fits) in cases {
        let ptx = kernel(version, &arrays);
        // Too much is an error for the whole module, as ptxas refuses the whole module.
        match entries(&ptx) {
            Ok(e) => assert!(fits, "{version} {arrays:?} taken: {e:?}"),
            Err(why) => {
                assert!(!fits, "{version} {arrays:?}: {why}");
                assert!(why.contains("kernel `big`") && why.contains("bytes of parameter space"), "{why}");
            }
        }
        if let Some(takes) = ptxas_takes(&ptx) {
            assert_eq!(takes, fits, "ptxas and the simulator disagree on {version} {arrays:?}");
        }
    }
}

#[test]
fn a_pointers_alignment_is_not_the_parameters() {
    // `.ptr .global .align 16` aligns what `p` points to; `p` itself sits at offset 8, so
    // the parameters take 4 + 4 + 8 + 4 336 = 4 352 bytes: just within PTX 7.8's space.
    let ptx = ".version 7.8\n.target sm_90\n.address_size 64\n\
               .visible .entry k(.param .u32 a, .param .u64 .ptr .global .align 16 p, .param .align 8 .b8 s[4336])\n\
               {\n ret;\n}\n";
    let e = &entries(ptx).unwrap_or_else(|e| panic!("{e}"))[0];
    assert_eq!(e.params.len(), 3);
    if let Some(ptxas) = ptx_tools::ptxas::ptxas_or_skip("round23_entries") {
        ptx_tools::ptxas::assemble(&ptxas, ptx, "sm_90").unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn strings_may_hold_what_the_text_around_them_may_not() {
    // A control character inside a `.file` name, and a comma inside a `.pragma` string.
    let ptx = format!(
        "{HEADER}.file 1 \"a\u{1}b\u{7f}.cu\"\n.pragma \"nounroll\", \"a,b\";\n\
         .visible .entry k()\n{{\n .pragma \"x,y\";\n ret;\n}}\n"
    );
    let m = Module::parse(&ptx).unwrap_or_else(|e| panic!("{e}"));
    assert!(m.kernel("k").is_some());
    // Outside a string the same character is refused, naming it.
    let outside = format!("{HEADER}.visible .entry k()\n{{\n ret;\u{1}\n}}\n");
    let err = Module::parse(&outside).unwrap_err().to_string();
    assert!(err.contains("unexpected character `\\u{1}`") && err.contains("line 6"), "{err}");
}
