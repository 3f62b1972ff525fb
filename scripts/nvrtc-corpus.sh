#!/usr/bin/env bash
# Regenerates ptx-sim/tests/corpus/*.ptx from the CUDA C beside them with NVRTC (PyPI
# packages nvidia-cuda-nvrtc for the compiler and nvidia-cuda-runtime for cuda_fp16.h and
# cuda_bf16.h, installed into the tools cache; no GPU needed):
#
#   scripts/nvrtc-corpus.sh
#
# Environment: PTX_DSL_TOOLS_DIR (default $HOME/.cache/ptx-dsl/tools), PYTHON (python3),
# PTX_DSL_NVRTC_VERSION (default 13.5.37, the version the checked-in files come from).
set -euo pipefail
cd "$(dirname "$0")/.."
tools="${PTX_DSL_TOOLS_DIR:-${HOME:?set HOME or PTX_DSL_TOOLS_DIR}/.cache/ptx-dsl/tools}/nvrtc"
version="${PTX_DSL_NVRTC_VERSION:-13.5.37}"
python="${PYTHON:-python3}"
# One folder per package: `pip install --target` into a folder that exists does not merge.
for package in nvidia-cuda-nvrtc nvidia-cuda-runtime; do
    if [[ ! -e "$tools/$package-$version/.installed" ]]; then
        echo "nvrtc-corpus: installing $package==$version into $tools/$package-$version" >&2
        rm -rf "$tools/$package-$version"
        "$python" -m pip install --quiet --no-deps --target "$tools/$package-$version" "$package==$version" >&2
        touch "$tools/$package-$version/.installed"
    fi
done
NVRTC_LIB="$tools/nvidia-cuda-nvrtc-$version/nvidia/cu13/lib/libnvrtc.so.13" \
NVRTC_INCLUDE="$tools/nvidia-cuda-runtime-$version/nvidia/cu13/include" \
    "$python" scripts/nvrtc_corpus.py ptx-sim/tests/corpus/*.cu
echo "nvrtc-corpus: wrote $(ls ptx-sim/tests/corpus/*.ptx | wc -l) PTX files in ptx-sim/tests/corpus" >&2
