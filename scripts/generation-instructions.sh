#!/usr/bin/env bash
# Instructions executed per PTX generation (build + verify + print) of the RoPE forward
# kernel, for each version (builder-written, #[ptx_kernel] unchecked and checked), counted
# with valgrind's callgrind: deterministic, unlike a clock on a shared machine. Runs the
# example twice per version (1000 and 3000 generations) and divides the difference by
# 2000, so that process start-up cancels out.
#
#   scripts/generation-instructions.sh
#
# Needs valgrind (apt install valgrind).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "generation-instructions: valgrind not found (apt install valgrind)" >&2; exit 1; }
cargo build --release --example generation_cost >&2
bin=target/release/examples/generation_cost
count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$1" "$2" 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
base=""
for version in builder unchecked checked production; do
    a=$(count "$version" 1000)
    b=$(count "$version" 3000)
    per=$(( (b - a) / 2000 ))
    [ -z "$base" ] && base=$per
    echo "$version: $per instructions per generation ($(awk -v p="$per" -v b="$base" 'BEGIN { printf "%.3f", p / b }') x builder)"
done
