"""proto_py_library: <name>_py_pb2, Python code generated at build time (never committed)."""

def proto_py_library(name, src, deps = [], visibility = None):
    """Generates `<stem>_pb2.py` from `src` and wraps it as `<name>_py_pb2`.

    Args:
      name: base name; the library is `<name>_py_pb2`.
      src: the .proto file in this package.
      deps: other `*_py_pb2` libraries whose protos `src` imports.
      visibility: of the library.
    """
    stem = src[:-len(".proto")]
    native.genrule(
        name = name + "_pb2_gen",
        srcs = [src] + [d.replace("_py_pb2", "_proto_srcs") for d in deps],
        outs = [stem + "_pb2.py"],
        cmd = "$(location //tools/protoc) -I. --python_out=$(GENDIR) $(location %s)" % src,
        tools = ["//tools/protoc"],
    )
    native.filegroup(name = name + "_proto_srcs", srcs = [src])
    native.py_library(
        name = name + "_py_pb2",
        srcs = [stem + "_pb2.py"],
        deps = deps + ["//third_party/py:protobuf"],
        visibility = visibility,
    )
