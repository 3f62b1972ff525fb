#!/usr/bin/env python3
"""Compiles CUDA C files to PTX with NVRTC (loaded with ctypes):

    scripts/nvrtc_corpus.py [--arch sm_80] [--out DIR] FILE.cu...
        # writes FILE.ptx beside each (or in DIR), for the architecture given (sm_80)

A file may ask for more options on its first line: `// nvrtc-options: --use_fast_math`.
NVRTC_LIB names libnvrtc (default: libnvrtc.so.13 from the library path); NVRTC_INCLUDE is
a ':'-separated list of include folders (cuda_fp16.h and cuda_bf16.h come from the PyPI
package nvidia-cuda-runtime). scripts/nvrtc-corpus.sh sets both."""
import ctypes
import os
import sys


def file_options(source):
    """Extra NVRTC options a file asks for on a first line `// nvrtc-options: ...`."""
    first = source.splitlines()[0] if source else ""
    prefix = "// nvrtc-options:"
    return first[len(prefix):].split() if first.startswith(prefix) else []


def compile_cu(lib, source, name, arch="sm_80"):
    prog = ctypes.c_void_p()
    status = lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(), 0, None, None)
    if status != 0:
        raise RuntimeError(f"nvrtcCreateProgram failed ({status})")
    includes = [d for d in os.environ.get("NVRTC_INCLUDE", "").split(":") if d]
    options = [f"--gpu-architecture={arch}".encode(), b"-default-device"] + [f"-I{d}".encode() for d in includes]
    options += [o.encode() for o in file_options(source)]
    status = lib.nvrtcCompileProgram(prog, len(options), (ctypes.c_char_p * len(options))(*options))
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    if status != 0:
        raise RuntimeError(log.value.decode())
    lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
    ptx = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetPTX(prog, ptx)
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return ptx.value.decode()


def main():
    import argparse

    parser = argparse.ArgumentParser(description="Compile CUDA C files to PTX with NVRTC.")
    parser.add_argument("--arch", default="sm_80")
    parser.add_argument("--out", help="folder for the .ptx files (default: beside each .cu)")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    lib = ctypes.CDLL(os.environ.get("NVRTC_LIB", "libnvrtc.so.13"))
    failed = False
    for path in args.files:
        with open(path) as f:
            source = f.read()
        try:
            ptx = compile_cu(lib, source, os.path.basename(path), args.arch)
        except RuntimeError as e:
            print(f"nvrtc_corpus: {path}: {e}", file=sys.stderr)
            failed = True
            continue
        stem = os.path.basename(path)[: -len(".cu")]
        folder = args.out if args.out else os.path.dirname(path)
        with open(os.path.join(folder, stem + ".ptx"), "w") as f:
            f.write(ptx)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
