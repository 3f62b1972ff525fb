#!/usr/bin/env bash
# Regenerates ptx-sim/tests/corpus/ from CUDA C with NVRTC (the PyPI package
# nvidia-cuda-nvrtc, installed into the tools cache; no GPU needed):
#
#   scripts/nvrtc-corpus.sh
#
# Environment: PTX_DSL_TOOLS_DIR (default $HOME/.cache/ptx-dsl/tools), PYTHON (python3),
# PTX_DSL_NVRTC_VERSION (default 13.5.37, the version the checked-in files come from).
set -euo pipefail
cd "$(dirname "$0")/.."
tools="${PTX_DSL_TOOLS_DIR:-${HOME:?set HOME or PTX_DSL_TOOLS_DIR}/.cache/ptx-dsl/tools}/nvrtc"
version="${PTX_DSL_NVRTC_VERSION:-13.5.37}"
lib="$tools/nvidia/cu13/lib"
if [[ ! -e "$lib/libnvrtc.so.13" ]]; then
    echo "nvrtc-corpus: installing nvidia-cuda-nvrtc==$version into $tools" >&2
    "${PYTHON:-python3}" -m pip install --quiet --no-deps --target "$tools" "nvidia-cuda-nvrtc==$version" >&2
fi
LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    cargo run --release --example nvrtc_on_sim -- --emit ptx-sim/tests/corpus/saxpy.ptx
echo "nvrtc-corpus: wrote ptx-sim/tests/corpus/saxpy.ptx" >&2
