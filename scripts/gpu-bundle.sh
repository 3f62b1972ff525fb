#!/usr/bin/env bash
# Builds, on this machine, everything the GPU checks need into gpu-bundle/: the test
# executables that hold GPU tests (run with --ignored), the examples (rope_bench is the GPU
# throughput benchmark against a device-to-device copy), and run.sh, which
# runs them on a machine with an NVIDIA driver but no Rust toolchain and no network.
#
#   scripts/gpu-bundle.sh            # build gpu-bundle/
#   gpu-bundle/run.sh                # there: logs under $OUT (or ./gpu-results/), summary last
set -euo pipefail
cd "$(dirname "$0")/.."
bundle=gpu-bundle
rm -rf "$bundle"
mkdir -p "$bundle/bin"

echo "==> building GPU test executables (release)" >&2
cargo test --release --workspace --test gpu --no-run --message-format=json 2>/dev/null \
  | python3 -c '
import json, sys
for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if msg.get("reason") != "compiler-artifact" or not msg.get("executable"):
        continue
    target = msg["target"]
    if "test" in target["kind"] and target["name"] == "gpu":
        # package_id is "path+file:///dir#name@version", or "...#version" when the
        # directory has the package name.
        source, _, version = msg["package_id"].partition("#")
        package = version.split("@")[0] if "@" in version else source.rstrip("/").split("/")[-1]
        print(package + "\t" + msg["executable"])
' | while IFS=$'\t' read -r package exe; do
    cp "$exe" "$bundle/bin/${package}-gpu-tests"
    echo "    $package: $(basename "$exe")" >&2
  done

echo "==> building examples (release)" >&2
cargo build --release --examples
for example in rope rope_bench kernels_bench math_accuracy saxpy softmax; do
  cp "target/release/examples/$example" "$bundle/bin/$example"
done
if command -v strip >/dev/null 2>&1; then
  strip "$bundle"/bin/* 2>/dev/null || true
fi

cat > "$bundle/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs the bundled GPU checks; logs go to $OUT (or ./gpu-results/); the summary is last.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-$PWD/gpu-results}"
mkdir -p "$out"
if ! { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi >"$out/nvidia-smi.txt" 2>&1; }; then
  echo "no NVIDIA GPU or driver found (nvidia-smi failed): nothing to run" | tee "$out/summary.txt"
  exit 0
fi
summary=()
failed=0
# run NAME SECONDS COMMAND...: one check, its log in $out/NAME.log, killed after SECONDS.
run() {
  local name="$1" limit="$2"; shift 2
  local start=$SECONDS
  echo "--> $name" >&2
  if timeout "$limit" "$@" >"$out/$name.log" 2>&1; then
    summary+=("PASS  $name ($((SECONDS - start)) s)")
  else
    summary+=("FAIL  $name ($((SECONDS - start)) s, exit $?, see $name.log)")
    failed=1
  fi
}
# Correctness first (each compares the GPU with the simulator or a float64 reference), then
# the figures; the limits keep the whole run within about seven minutes.
for tests in "$here"/bin/*-gpu-tests; do
  run "$(basename "$tests")" 240 "$tests" --ignored --test-threads=1
done
run rope-cuda 60 "$here/bin/rope" --device cuda
run rope-cuda-half-bf16 60 "$here/bin/rope" --device cuda --layout half --dtype bf16 --rotary-dim 64
run rope-cuda-interleaved-f16 60 "$here/bin/rope" --device cuda --layout interleaved --dtype f16
run rope-cuda-seed-port 60 "$here/bin/rope" --device cuda --seed-port --layout interleaved --kv-heads 0
run rope-cuda-max-position 60 "$here/bin/rope" --device cuda --seed-port --layout interleaved --kv-heads 0 --max-position 4294967295
PTX_DSL_DEVICE=cuda run saxpy 30 "$here/bin/saxpy"
PTX_DSL_DEVICE=cuda run softmax 30 "$here/bin/softmax"
run math-accuracy-cuda 150 "$here/bin/math_accuracy" --on cuda --stride 97
run rope-bench 150 "$here/bin/rope_bench" --device cuda
run kernels-bench 90 "$here/bin/kernels_bench" --device cuda
{
  echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
  grep -hE "^(device|forward|round trip|time) " "$out/rope-cuda.log" 2>/dev/null
  grep -hE "^(x =|device-to-device|rope |seed port)" "$out/rope-bench.log" 2>/dev/null
  cat "$out/math-accuracy-cuda.log" 2>/dev/null
  grep -hE "^(x =|copy|softmax_rows|rms_norm|layer_norm) " "$out/kernels-bench.log" 2>/dev/null
  printf '%s\n' "${summary[@]}"
} | tee "$out/summary.txt"
exit $failed
RUN
chmod +x "$bundle/run.sh"
du -sh "$bundle" >&2
echo "$bundle/run.sh"
