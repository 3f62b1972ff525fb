#!/usr/bin/env bash
# Regenerates the simulator's NVRTC corpus from the CUDA C in ptx-sim/tests/corpus/*.cu with
# NVRTC (PyPI packages: the compiler and the runtime headers cuda_fp16.h/cuda_bf16.h,
# installed into the tools cache; no GPU needed), in three builds:
#
#   ptx-sim/tests/corpus/*.ptx          CUDA 13.5, sm_80 (the main build)
#   ptx-sim/tests/corpus/sm_90/*.ptx    CUDA 13.5, sm_90
#   ptx-sim/tests/corpus/cuda12/*.ptx   CUDA 12.9, sm_80
#
#   scripts/nvrtc-corpus.sh
#
# Environment: PTX_DSL_TOOLS_DIR (default $HOME/.cache/ptx-dsl/tools), PYTHON (python3).
set -euo pipefail
cd "$(dirname "$0")/.."
tools="${PTX_DSL_TOOLS_DIR:-${HOME:?set HOME or PTX_DSL_TOOLS_DIR}/.cache/ptx-dsl/tools}/nvrtc"
python="${PYTHON:-python3}"

# install PACKAGE VERSION: into its own folder (`pip install --target` into a folder that
# exists does not merge).
install() {
    if [[ ! -e "$tools/$1-$2/.installed" ]]; then
        echo "nvrtc-corpus: installing $1==$2 into $tools/$1-$2" >&2
        rm -rf "$tools/$1-$2"
        "$python" -m pip install --quiet --no-deps --target "$tools/$1-$2" "$1==$2" >&2
        touch "$tools/$1-$2/.installed"
    fi
}

# build NVRTC_LIB INCLUDE ARCH OUT_DIR
build() {
    mkdir -p "$4"
    NVRTC_LIB="$1" NVRTC_INCLUDE="$2" "$python" scripts/nvrtc_corpus.py --arch "$3" --out "$4" \
        ptx-sim/tests/corpus/*.cu
    echo "nvrtc-corpus: wrote $(ls "$4"/*.ptx | wc -l) PTX files in $4" >&2
}

v13=13.5.37
install nvidia-cuda-nvrtc "$v13"
install nvidia-cuda-runtime "$v13"
lib13="$tools/nvidia-cuda-nvrtc-$v13/nvidia/cu13/lib/libnvrtc.so.13"
inc13="$tools/nvidia-cuda-runtime-$v13/nvidia/cu13/include"
build "$lib13" "$inc13" sm_80 ptx-sim/tests/corpus
build "$lib13" "$inc13" sm_90 ptx-sim/tests/corpus/sm_90

install nvidia-cuda-nvrtc-cu12 12.9.86
install nvidia-cuda-runtime-cu12 12.9.79
build "$tools/nvidia-cuda-nvrtc-cu12-12.9.86/nvidia/cuda_nvrtc/lib/libnvrtc.so.12" \
    "$tools/nvidia-cuda-runtime-cu12-12.9.79/nvidia/cuda_runtime/include" sm_80 ptx-sim/tests/corpus/cuda12
