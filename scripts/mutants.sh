#!/usr/bin/env bash
# Mutation testing with cargo-mutants (https://mutants.rs): changes one operator, constant
# or function body at a time in the files below and checks that some test fails.
# Results are summarised in docs/testing.md.
#
#   scripts/mutants.sh                  every file below, one cargo-mutants run each
#   scripts/mutants.sh FILE...          only these files (paths as listed below)
#   scripts/mutants.sh --in-diff REF    only the mutants on lines changed since REF, in
#                                       every file below (small enough for a pre-push check)
#   scripts/mutants.sh --iterate ...    skip the mutants an earlier run caught (after adding
#                                       tests for the missed ones)
#   scripts/mutants.sh --shuffle ...    test the mutants in random order (other --options
#                                       also pass through to cargo mutants): a run stopped
#                                       early is then a random sample of the file
#
# Each file is tested with the test targets that exercise it (the fast ones: the whole
# workspace suite per mutant would take days on 2 cores). Output: mutants.out/<file>/
# (caught.txt, missed.txt, unviable.txt, timeout.txt). Installs cargo-mutants if missing.
# Not part of .ci/run: the full set takes hours on the 2-core dev machine.
set -euo pipefail
cd "$(dirname "$0")/.."

# file | package tested | test targets (cargo test arguments)
FILES=(
  "ptx-core/src/verify.rs|ptx-core|--lib --test verifier --test verify_rules --test definitions --test range_facts --test source_notes"
  "ptx-core/src/eval/mod.rs|ptx-core,ptx-sim|--lib --test ops --test catalog_reference --test float_rem --test folding --test int_folding --test verify_rules --test properties --test fuzz_parse"
  "ptx-core/src/eval/convert.rs|ptx-core,ptx-sim|--lib --test ops --test catalog_reference --test float_rem --test folding --test int_folding --test verify_rules --test properties --test fuzz_parse"
  "ptx-core/src/print.rs|ptx-core,ptx-sim|--lib --test assemble --test source_notes --test verify_rules --test coverage --test catalog_reference --test launch --test ops"
  "ptx-core/src/builder.rs|ptx-core,ptx-sim|--lib --test builder_api --test verifier --test range_facts --test properties --test int_folding --test launch --test ops"
  "ptx-core/src/math/mod.rs|ptx-core|--lib --test math_accuracy --test math_f64 --test range_facts"
  "ptx-core/src/math/pow.rs|ptx-core|--lib --test math_accuracy --test math_f64"
  "ptx-core/src/math/inverse.rs|ptx-core|--lib --test math_accuracy"
  "ptx-core/src/math/wide.rs|ptx-core|--lib --test math_accuracy --test math_f64"
  "ptx-core/src/math/double.rs|ptx-core|--lib --test math_accuracy --test math_f64"
  "ptx-core/src/math/reduce.rs|ptx-core|--lib --test math_accuracy"
  "ptx-core/src/math/rem.rs|ptx-core,ptx-sim|--lib --test math_accuracy --test float_rem"
  "ptx-core/src/math/dd.rs|ptx-core|--lib --test math_f64"
  "ptx-core/src/math/trig64.rs|ptx-core|--lib --test math_f64"
  "ptx-core/src/math/explog64.rs|ptx-core|--lib --test math_f64"
  "ptx-core/src/math/pow64.rs|ptx-core|--lib --test math_f64 --test math_accuracy"
  "ptx-core/src/math/hyper64.rs|ptx-core|--lib --test math_f64"
  "ptx-core/src/math/inverse64.rs|ptx-core|--lib --test math_f64"
  "ptx-core/src/math/root64.rs|ptx-core|--lib --test math_f64"
  "ptx-core/src/softfloat.rs|ptx-core,ptx-sim|--lib --test ops --test folding --test half_ops --test catalog_reference --test float_rem --test int_folding"
  "ptx-sim/src/exec.rs|ptx-sim|--lib --test ops --test launch --test regressions --test nvrtc_dialect --test catalog_reference --test coverage --test half_ops --test float_rem --test folding --test interpreter_edges --test collectives"
  "ptx-sim/src/decode.rs|ptx-sim|--lib --test ops --test launch --test regressions --test nvrtc_dialect --test catalog_reference --test coverage --test half_ops --test float_rem --test folding --test fuzz_parse --test interpreter_edges --test collectives"
  "ptx-sim/src/bits.rs|ptx-sim|--lib --test ops --test nvrtc_dialect"
  "ptx-sim/src/half.rs|ptx-sim|--lib --test ops --test nvrtc_dialect --test half_ops"
  "ptx-macros/src/check.rs|ptx-dsl|--lib --test lang_ints --test lang_floats --test lang_flow --test lang_threads --test lang_vector --test kernels --test rope --test rope_production"
  "ptx-macros/src/lower.rs|ptx-dsl|--lib --test lang_ints --test lang_floats --test lang_flow --test lang_threads --test lang_vector --test kernels --test rope --test rope_production"
)

command -v cargo-mutants >/dev/null || cargo install cargo-mutants --locked
# Mutants need no debugger: without debug info each mutant's build links faster.
export CARGO_PROFILE_DEV_DEBUG=0

in_diff=()
extra=()
selected=()
while (($#)); do
  case "$1" in
    --in-diff)
      diff_file=$(mktemp)
      git diff "$2" >"$diff_file"
      in_diff=(--in-diff "$diff_file")
      shift 2
      ;;
    --iterate)
      extra+=(--iterate)
      shift
      ;;
    --*)
      extra+=("$1")
      shift
      ;;
    *)
      selected+=("$1")
      shift
      ;;
  esac
done

for entry in "${FILES[@]}"; do
  IFS='|' read -r file packages tests <<<"$entry"
  if ((${#selected[@]})) && ! printf '%s\n' "${selected[@]}" | grep -qxF "$file"; then
    continue
  fi
  test_args=()
  for t in $tests; do test_args+=("--cargo-test-arg=$t"); done
  # cargo-mutants tests the mutated package; the others join as cargo test arguments.
  for p in ${packages//,/ }; do test_args+=("--cargo-test-arg=--package=$p"); done
  out="mutants.out/${file//\//_}"
  mkdir -p "$out"
  echo "== $file (tests: $packages $tests)"
  # Results older than this run (cargo-mutants writes none when it finds no mutant, e.g.
  # with --in-diff) must not be reported as this run's.
  started="$out/.started"
  touch "$started"
  # Exit status 2 means "some mutants were missed": report, do not stop.
  cargo mutants --workspace --file "$file" --jobs 2 \
    --output "$out" "${in_diff[@]}" "${extra[@]}" "${test_args[@]}" || {
    rc=$?
    [[ $rc == 2 || $rc == 3 ]]
  }
  if [[ ! "$out/mutants.out/outcomes.json" -nt "$started" ]]; then
    echo "  no mutants to test"
    continue
  fi
  for kind in caught missed unviable timeout; do
    printf '  %-9s %s\n' "$kind" "$(wc -l <"$out/mutants.out/$kind.txt")"
  done
done
