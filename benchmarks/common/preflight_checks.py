"""The single checks of a preflight: one requirement of a runtime profile each.

Each returns a `PreflightCheck` and never raises for a missing requirement. Nothing here
downloads, and no secret value is ever put in a check (not even its length).

Imports and the CUDA probe run in a child process of this same interpreter, with this
process's `sys.path` and `-S` flag, so they see exactly the packages this target can
import (under Bazel: its declared deps), and a hanging or crashing import cannot take
the preflight down (it is killed after its timeout, and the next module gets a fresh
child). WorldFoundry's `runtime_preflight.py` (read at bc062d7) does the
same with `required_imports` and `requires_cuda_visibility`.
"""

import json
import os
import queue
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Callable, Optional, Tuple

from metrics.checkpoints import resolver
from proto import preflight_pb2
from proto import runtime_profile_pb2

Check = preflight_pb2.PreflightCheck

# Names that are secrets whatever the profile says (WorldFoundry redacts the same way).
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL", re.IGNORECASE)

# The probe: one child process that imports the modules it is sent, one per stdin line,
# and answers one JSON line each; "<cuda>" asks torch about CUDA. Importing in one
# process, in order, is what a runner does (torch is imported once, not per module).
_PROBE_PROGRAM = r"""
import importlib, json, sys
for line in sys.stdin:
    name = line.strip()
    try:
        if name == "<cuda>":
            import torch
            out = {"ok": True, "available": bool(torch.cuda.is_available()),
                   "count": int(torch.cuda.device_count()), "torch": torch.__version__,
                   "cuda": str(torch.version.cuda)}
        else:
            m = importlib.import_module(name)
            out = {"ok": True, "version": str(getattr(m, "__version__", "") or ""),
                   "file": str(getattr(m, "__file__", "") or "")}
    except BaseException as e:  # an import may raise anything, SystemExit included
        out = {"ok": False, "error": f"{type(e).__name__}: {e}"}
    print(json.dumps(out), flush=True)
"""
CUDA_PROBE = "<cuda>"


def _python_command():
    """argv and env that start this interpreter with this process's import path."""
    flags = ["-S"] if sys.flags.no_site else []
    if sys.flags.no_user_site:
        flags.append("-s")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    return [sys.executable, *flags, "-c", _PROBE_PROGRAM], env


class ImportProbe:
    """Imports modules in a child process, each with a timeout. A child that hangs is
    killed and one that dies is replaced; the next module gets a fresh child."""

    def __init__(self, timeout_s: float):
        self._timeout_s = timeout_s
        self._child = None
        self._lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self._stderr = None

    def _start(self):
        argv, env = _python_command()
        self._stderr = tempfile.TemporaryFile(mode="w+")
        self._child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=self._stderr, text=True, env=env)
        self._lines = queue.Queue()
        threading.Thread(target=self._read, args=(self._child.stdout, self._lines),
                         daemon=True).start()

    @staticmethod
    def _read(stream, lines):
        for line in stream:
            lines.put(line)
        lines.put(None)

    def _stop(self) -> str:
        """Ends the child; returns the last line it wrote to stderr."""
        child, self._child = self._child, None
        if child is None:
            return ""
        if child.poll() is None:
            child.kill()
        child.wait()
        self._stderr.seek(0)
        lines = [l for l in self._stderr.read().splitlines() if l.strip()]
        self._stderr.close()
        return lines[-1] if lines else f"exit status {child.returncode}"

    def ask(self, name: str) -> Tuple[Optional[dict], str, float]:
        """(answer, why there is none, seconds) for one module (or CUDA_PROBE).

        A module this process has already imported is answered from it: it imports,
        and no child process is started for it (a runner's own modules, numpy, cv2).
        """
        loaded = sys.modules.get(name) if name != CUDA_PROBE else None
        if loaded is not None:
            return {"ok": True, "version": str(getattr(loaded, "__version__", "") or ""),
                    "file": str(getattr(loaded, "__file__", "") or "")}, "", 0.0
        if self._child is None:
            self._start()
        t0 = time.perf_counter()
        try:
            self._child.stdin.write(name + "\n")
            self._child.stdin.flush()
            line = self._lines.get(timeout=self._timeout_s)
        except queue.Empty:
            self._stop()
            return None, f"did not finish within {self._timeout_s:g} s", self._timeout_s
        except OSError:  # the child died before reading
            line = None
        seconds = round(time.perf_counter() - t0, 3)
        if line is None:
            return None, f"the importing process died: {self._stop()}", seconds
        try:
            return json.loads(line), "", seconds
        except ValueError:
            return None, f"unexpected output {line[-200:]!r}", seconds

    def close(self):
        if self._child is not None:
            self._child.stdin.close()
            self._stop()


def python_module(probe: ImportProbe, module: str, fix: str) -> Check:
    """Imports `module` in the probe's child process."""
    found, error, seconds = probe.ask(module)
    check = Check(kind=Check.PYTHON_MODULE, subject=module, blocking=True, seconds=seconds)
    if found is not None and found["ok"]:
        check.ok = True
        check.detail = (f"version {found['version']}, " if found["version"] else "") + found["file"]
    else:
        check.reason = f"import {module} failed: {error or found['error']}"
        check.fix = fix
    return check


def cuda(probe: ImportProbe) -> Check:
    """torch.cuda.is_available() in the probe's child; the caller sets `blocking`."""
    found, error, seconds = probe.ask(CUDA_PROBE)
    check = Check(kind=Check.CUDA, subject="cuda", seconds=seconds)
    if found is None or not found["ok"]:
        check.reason = f"could not ask torch about CUDA: {error or found['error']}"
        return check
    check.detail = (f"torch {found['torch']} (CUDA {found['cuda']}), "
                    f"{found['count']} device(s) visible")
    check.ok = found["available"]
    if not check.ok:
        check.reason = "no CUDA device visible"
    return check


def _timed(fn: Callable[[], Check]) -> Check:
    t0 = time.perf_counter()
    check = fn()
    check.seconds = round(time.perf_counter() - t0, 3)
    return check


def is_secret(var: runtime_profile_pb2.EnvVarRequirement) -> bool:
    return var.secret or bool(_SECRET_NAME.search(var.name))


def env_var(var: runtime_profile_pb2.EnvVarRequirement) -> Check:
    """Set and non-empty. A secret's value is not read beyond that test."""
    present = bool(os.environ.get(var.name))
    secret = is_secret(var)
    check = Check(kind=Check.ENV_VAR, subject=var.name, ok=present, blocking=var.required)
    if present:
        check.detail = "set (secret, value not shown)" if secret else (
            f"{var.name}={os.environ[var.name]}")
    else:
        check.reason = f"${var.name} is not set" + (f" ({var.purpose})" if var.purpose else "")
        check.fix = (f"export {var.name}=<{'your secret' if secret else 'value'}>"
                     + ("" if var.required else "  (optional)"))
    return check


def _expand_address(address: str) -> str:
    """$VAR and ${VAR} from the environment; unset ones are left as written."""
    return os.path.expandvars(address)


def service(req: runtime_profile_pb2.ServiceRequirement, timeout_s: float) -> Check:
    """An HTTP(S) address must answer a GET with a status below 500; `host:port` must
    accept a TCP connection."""
    def check():
        address = _expand_address(req.address)
        base = Check(kind=Check.SERVICE, subject=req.name or req.address, blocking=True,
                     fix=f"make {req.name or 'the service'} reachable at {req.address}"
                         + (f" ({req.purpose})" if req.purpose else ""))
        if not address or "$" in address:
            base.reason = f"no usable address ({req.address!r}: a variable is not set)"
            return base
        try:
            if "://" in address:
                status = _http_status(address, timeout_s)
                base.detail = f"HTTP {status} from {address}"
                base.ok = status < 500
                if not base.ok:
                    base.reason = f"{address} answered HTTP {status}"
            else:
                host, _, port = address.rpartition(":")
                with socket.create_connection((host, int(port)), timeout=timeout_s):
                    pass
                base.ok, base.detail = True, f"TCP connect to {address} succeeded"
        except (OSError, ValueError) as e:
            base.reason = f"{address} unreachable within {timeout_s:g} s: {e}"
        return base
    return _timed(check)


def _http_status(url: str, timeout_s: float) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="GET"),
                                    timeout=timeout_s) as response:
            return response.status
    except urllib.error.HTTPError as e:
        return e.code


def checkpoint(spec: resolver.CheckpointSpec, checkpoint_dir: Optional[str],
               explicit_path: Optional[str], fix: str) -> Check:
    """Found where the resolver looks (never downloading) and matching the pinned sha256."""
    def check():
        subject = spec.hf_repo or spec.url or spec.name
        base = Check(kind=Check.CHECKPOINT, subject=f"{subject} ({spec.filename})",
                     blocking=True)
        try:
            found = resolver.resolve(spec, explicit_path=explicit_path,
                                     checkpoint_dir=checkpoint_dir, offline=True)
        except resolver.CheckpointUnavailable as e:
            # The resolver's own words for a wrong file; for a missing one, say where
            # it was looked for (its message is about --offline, which does not apply).
            mismatch = "expected sha256" in str(e)
            if mismatch:
                base.reason = str(e).split("; fetch it with")[0]
            else:
                size = resolver.size_text(spec.size_bytes, spec.approx_size_bytes)
                base.reason = (f"checkpoint {spec.name} ({spec.filename}) not found ({size}, "
                               f"licence {spec.license or '?'})")
                base.detail = "looked in " + ", ".join(
                    _places(spec, checkpoint_dir, explicit_path))
            base.fix = fix
            return base
        base.ok = True
        base.detail = f"{found.path} (from {found.source}), sha256 {found.sha256}"
        if not spec.sha256:
            base.detail += "; no pinned digest in the profile to compare with"
        return base
    return _timed(check)


def _places(spec: resolver.CheckpointSpec, checkpoint_dir: Optional[str],
            explicit_path: Optional[str]):
    """Where metrics/checkpoints/resolver.py looks, in its order, for a message."""
    if explicit_path:
        yield explicit_path
    yield (f"{checkpoint_dir}/{spec.name}/" if checkpoint_dir
           else "--checkpoint_dir (none given)")
    if spec.hf_repo:
        from huggingface_hub import constants  # pylint: disable=import-outside-toplevel
        yield f"the Hugging Face cache {constants.HF_HUB_CACHE} ({spec.hf_repo}@{spec.hf_revision})"
    if spec.url:
        yield "torch's hub cache $TORCH_HOME/hub/checkpoints"
