"""protoc, as bundled with grpcio-tools (pinned in the lock): used by proto_py_library."""

import sys

from grpc_tools import protoc

if __name__ == "__main__":
    sys.exit(protoc.main(["protoc"] + sys.argv[1:]))
