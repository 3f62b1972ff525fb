#!/usr/bin/env bash
# Installs NVIDIA's ptxas (from the PyPI package `nvidia-cuda-nvcc`), or with the argument
# `nvdisasm` NVIDIA's disassembler (from `nvidia-cuda-nvdisasm`), into a cache folder and
# prints its absolute path as the last line of stdout; progress goes to stderr.
#
#   PTXAS="$(scripts/install-ptxas.sh)"
#   NVDISASM="$(scripts/install-ptxas.sh nvdisasm)"
#
# Needs only bash, coreutils and Python 3 with pip; no GPU, no CUDA toolkit, no root.
# Idempotent: when the wanted version is already installed and runs, it installs nothing.
#
# Environment:
#   PTX_DSL_TOOLS_DIR     cache folder (default: $HOME/.cache/ptx-dsl/tools); the tools end
#                         up in $PTX_DSL_TOOLS_DIR/nvidia/cu13/bin/, where
#                         ptx_tools::ptxas::find_ptxas looks for ptxas and
#                         ptx_tools::sass::find_nvdisasm for nvdisasm (beside it)
#   PTX_DSL_NVCC_VERSION  version of both packages (default: 13.5.37, the one tested)
#   PYTHON                interpreter to run pip with (default: python3)
#   PIP_*                 passed on to pip, e.g. PIP_INDEX_URL, or to install offline:
#                         PIP_NO_INDEX=1 PIP_FIND_LINKS=/folder/with/the/wheel
tool="${1:-ptxas}"
case "$tool" in
    ptxas) package=nvidia-cuda-nvcc ;;
    nvdisasm) package=nvidia-cuda-nvdisasm ;;
    *)
        echo "usage: install-ptxas.sh [ptxas|nvdisasm]" >&2
        exit 2
        ;;
esac
version="${PTX_DSL_NVCC_VERSION:-13.5.37}"
set -euo pipefail

tools_dir="${PTX_DSL_TOOLS_DIR:-${HOME:?set HOME or PTX_DSL_TOOLS_DIR}/.cache/ptx-dsl/tools}"
python="${PYTHON:-python3}"
rel_path="nvidia/cu13/bin/$tool"

log() { echo "install-$tool: $*" >&2; }
die() {
    log "error: $*"
    exit 1
}

# True when $1 is an executable that reports version $version.
works() {
    [[ -f "$1" && -x "$1" ]] || return 1
    local out
    out="$("$1" --version 2>&1)" || return 1
    [[ "$out" == *"V$version"* ]]
}

mkdir -p "$tools_dir"
tools_dir="$(cd "$tools_dir" && pwd -P)"
bin="$tools_dir/$rel_path"

if works "$bin"; then
    log "$tool $version already installed"
    echo "$bin"
    exit 0
fi

command -v "$python" >/dev/null 2>&1 || die "$python not found; install Python 3 with pip"
"$python" -m pip --version >/dev/null 2>&1 ||
    die "'$python -m pip' does not work; install pip (e.g. apt-get install python3-pip)"

# Serialise concurrent installs into the same folder when flock is available.
if command -v flock >/dev/null 2>&1; then
    exec 9>"$tools_dir/.install-$tool.lock"
    flock 9
    if works "$bin"; then
        log "$tool $version installed by another process"
        echo "$bin"
        exit 0
    fi
fi

# pip installs into a private staging folder, whose tree is then merged into $tools_dir.
# (Installing straight into $tools_dir with `pip --target --upgrade` would delete the whole
# shared `nvidia/` folder, and with it the other tools installed there.)
staging="$(mktemp -d "$tools_dir/.staging-$tool.XXXXXX")"
trap 'rm -rf "$staging"' EXIT

log "installing $package==$version into $tools_dir"
# --no-deps: the tool is self-contained (it links only libc and friends); the package's
# dependencies are not needed. --target also skips pip's PEP 668 "externally managed"
# check, so this works with a distribution's Python too.
PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_ROOT_USER_ACTION=ignore PIP_USER=0 \
    "$python" -m pip install --no-deps --target "$staging" "$package==$version" >&2 ||
    die "pip install $package==$version failed"

[[ -f "$staging/$rel_path" ]] || die "$package $version does not contain $rel_path"
chmod +x "$staging/$rel_path"
rm -rf "$staging/bin" # console scripts, if any: they would point into the staging folder
dist_name="${package//-/_}"
rm -rf "$tools_dir/$dist_name"-*.dist-info
# Item by item (copying "$staging/." would give $tools_dir the staging folder's mode 0700);
# --remove-destination replaces a binary that is running instead of failing with ETXTBSY.
for item in "$staging"/*; do
    cp -R --preserve=mode,timestamps --remove-destination "$item" "$tools_dir/"
done

works "$bin" || die "$bin does not run or is not version $version: $("$bin" --version 2>&1 || true)"
log "installed $("$bin" --version 2>&1 | grep -m1 -o 'release .*' || echo "$tool $version")"
echo "$bin"
