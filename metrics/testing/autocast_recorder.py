"""A stand-in for torch.autocast / torch.amp.autocast that records each call (testonly).

The CUDA autocast paths (SEA-RAFT fp16, SAM 2 bf16, DROID fp16) cannot run without a GPU;
their CPU-visible logic can: which device type and dtype they ask for, whether the
context is entered, and what runs inside it (`active`).
"""


class AutocastRecorder:
    """Records each autocast call's arguments in `calls`; `active` is True inside one."""

    def __init__(self):
        self.calls, self.active = [], False

    def __call__(self, device_type, dtype=None, enabled=True, **kwargs):
        self.calls.append({"device_type": device_type, "dtype": dtype, "enabled": enabled,
                           **kwargs})
        recorder = self

        class _Context:
            def __enter__(self):
                recorder.active = True

            def __exit__(self, *exc):
                recorder.active = False
        return _Context()
