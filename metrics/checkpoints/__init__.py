"""Checkpoints: the resolver, the one reader (state_dict) and the convention for pins.

Where pins live: every `resolver.CheckpointSpec` is defined once, beside its model
family, in `metrics/<family>/pins.py` (torch-free: only this package is imported), and
nowhere under benchmarks/. A benchmark imports the pins its metrics load and says which
metric loads which; a spec two benchmarks share is one object. Every runtime profile's
checkpoint blocks are checked against these specs by //tests:runtime_profiles_test.
(metrics/clip and metrics/lpips still define theirs in their model modules.)
"""
