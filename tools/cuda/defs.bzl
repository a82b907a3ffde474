"""torch_cuda_extension: a PyTorch CUDA extension module built by nvcc and g++ actions.

The `.cu` sources are compiled by nvcc WITHOUT torch headers (plain CUDA C++ behind a small
header of launchers: fast to compile); the `.cc` binding sources include
`torch/extension.h` from the pinned `@pypi__torch` wheel (pybind11 ships inside it). The
module links against the wheel's libc10 / libtorch / libtorch_python / libc10_cuda /
libtorch_cuda and the toolkit's libcudart without an rpath: it is loaded after `import torch`,
which has those libraries loaded already.

Where `@local_cuda` found no nvcc, the macro declares a text file
`<module_name>.unavailable.txt` holding the reason instead, so that loaders can say why.
"""

load("@local_cuda//:defs.bzl", "CUDA_AVAILABLE", "CUDA_HOME", "NVCC", "PYTHON_INCLUDE", "UNAVAILABLE_REASON")

# sm_80 (A100) and sm_90 (H100/H200) machine code, plus compute_90 PTX for newer GPUs.
_GENCODE = [
    "-gencode=arch=compute_80,code=sm_80",
    "-gencode=arch=compute_90,code=sm_90",
    "-gencode=arch=compute_90,code=compute_90",
]
_TORCH_LIBS = ["c10", "torch", "torch_cpu", "torch_python", "c10_cuda", "torch_cuda"]

def _torch_paths(ctx):
    files = ctx.attr.torch[DefaultInfo].files.to_list()
    hdrs, libs, inc, libdir = [], [], None, None
    for f in files:
        if "/site/torch/include/" in f.path:
            hdrs.append(f)
            if f.path.endswith("/site/torch/include/torch/extension.h"):
                inc = f.path[:-len("/torch/extension.h")]
        elif "/site/torch/lib/lib" in f.path and f.path.endswith(".so"):
            libs.append(f)
            if f.path.endswith("/libtorch.so"):
                libdir = f.dirname
    if not inc or not libdir:
        fail("%s: no torch/include/torch/extension.h or lib/libtorch.so in %s" % (ctx.label, ctx.attr.torch.label))
    return hdrs, libs, inc, libdir

def _impl(ctx):
    hdrs, libs, inc, libdir = _torch_paths(ctx)
    own = ctx.files.hdrs
    includes = ["-I."] + ["-I" + d for d in depset([h.dirname for h in own]).to_list()]
    objs = []
    for src in ctx.files.cu_srcs:
        obj = ctx.actions.declare_file("_objs/%s/%s.o" % (ctx.label.name, src.basename))
        ctx.actions.run(
            executable = NVCC,
            arguments = ["-c", src.path, "-o", obj.path, "-O3", "-std=c++17", "-Xcompiler", "-fPIC", "--extended-lambda"] +
                        _GENCODE + includes,
            inputs = [src] + own,
            outputs = [obj],
            use_default_shell_env = True,
            mnemonic = "Nvcc",
            progress_message = "nvcc %s" % src.short_path,
        )
        objs.append(obj)
    for src in ctx.files.cc_srcs:
        obj = ctx.actions.declare_file("_objs/%s/%s.o" % (ctx.label.name, src.basename))
        ctx.actions.run(
            executable = "g++",
            arguments = [
                "-c", src.path, "-o", obj.path, "-O2", "-std=c++20", "-fPIC",
                "-D_GLIBCXX_USE_CXX11_ABI=1",
                "-DTORCH_EXTENSION_NAME=" + ctx.attr.module_name,
                "-DTORCH_API_INCLUDE_EXTENSION_H",
                "-isystem", inc,
                "-isystem", inc + "/torch/csrc/api/include",
                "-isystem", PYTHON_INCLUDE,
                "-isystem", CUDA_HOME + "/include",
            ] + includes,
            inputs = [src] + own + hdrs,
            outputs = [obj],
            use_default_shell_env = True,
            mnemonic = "TorchCxx",
            progress_message = "g++ (torch extension) %s" % src.short_path,
        )
        objs.append(obj)
    out = ctx.actions.declare_file(ctx.attr.module_name + ".so")
    ctx.actions.run(
        executable = "g++",
        arguments = ["-shared", "-o", out.path] + [o.path for o in objs] +
                    ["-L" + libdir] + ["-l" + l for l in _TORCH_LIBS] +
                    ["-L" + CUDA_HOME + "/lib64", "-lcudart"],
        inputs = objs + libs,
        outputs = [out],
        use_default_shell_env = True,
        mnemonic = "TorchLink",
        progress_message = "linking %s" % out.short_path,
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

_torch_cuda_extension = rule(
    implementation = _impl,
    attrs = {
        "module_name": attr.string(mandatory = True),
        "cu_srcs": attr.label_list(allow_files = [".cu"]),
        "cc_srcs": attr.label_list(allow_files = [".cc"]),
        "hdrs": attr.label_list(allow_files = [".h", ".cuh"]),
        "torch": attr.label(default = "@pypi__torch//:files"),
    },
)

def torch_cuda_extension(name, module_name, cu_srcs, cc_srcs, hdrs = [], **kwargs):
    """`:name` builds `<module_name>.so` in this package (or, without nvcc, the reason file).

    Args:
      name: target name; its output is data for a py_library that imports the module.
      module_name: the Python module name (PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)).
      cu_srcs: CUDA sources (no torch headers).
      cc_srcs: C++ binding sources (torch/extension.h).
      hdrs: headers shared by both.
      **kwargs: common attributes (visibility, tags).
    """
    if CUDA_AVAILABLE:
        _torch_cuda_extension(
            name = name,
            module_name = module_name,
            cu_srcs = cu_srcs,
            cc_srcs = cc_srcs,
            hdrs = hdrs,
            **kwargs
        )
    else:
        native.genrule(
            name = name,
            outs = [module_name + ".unavailable.txt"],
            cmd = "echo 'not built: %s' > $@" % UNAVAILABLE_REASON.replace("'", ""),
            **kwargs
        )
