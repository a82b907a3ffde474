"""Parameters, weight bytes and forward FLOPs per sample of the model stacks that VMBench
and MemoBench run on every sample; a benchmark script, never run in CI.

    bazel run //tools/bench:model_costs -- --output=/tmp/model_costs.json

Each model is built at its full official size with random weights, on the `meta` device
where its forward allows (nothing allocated), else on the CPU; FLOPs are those that
torch.utils.flop_counter.FlopCounterMode counts (matrix products, convolutions,
attention; element-wise ops, grid sampling, softmax and normalisation are not counted)
for the calls of one typical sample listed in model_cost_cases. A model that cannot be
built here gets a row with the reason, and no number.
"""

import json
import sys
import time

from absl import app
from absl import flags

from tools.bench import memobench_cost_cases
from tools.bench import model_cost_cases

_OUTPUT = flags.DEFINE_string("output", None, "Write the table as JSON to this path.")
_ONLY = flags.DEFINE_list("only", [], "Only the cases whose name contains one of these "
                          "strings (default: all).")
_CPU_MAX_PARAMS = flags.DEFINE_integer(
    "cpu_max_params", 300_000_000, "Largest model (parameters) that may be built on the CPU "
    "when its forward does not run on the meta device.", lower_bound=0)


def _count(case, device):
    import torch  # pylint: disable=import-outside-toplevel
    from torch.utils.flop_counter import FlopCounterMode  # pylint: disable=import-outside-toplevel
    if device != "meta":
        with torch.device("meta"):
            params = sum(p.numel() for p in case.build().parameters())
        if params > _CPU_MAX_PARAMS.value:
            raise RuntimeError(f"{params} parameters: too large for the CPU here")
    torch.manual_seed(0)
    with torch.device(device):
        model = case.build()
    # Tables some modules build on the CPU at construction follow the model; no grads.
    model = model.to(device).requires_grad_(False)
    params = sum(p.numel() for p in model.parameters())
    weight_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
    calls = []
    with torch.no_grad():
        for call in case.calls:
            counter = FlopCounterMode(display=False)
            with counter, model_cost_cases.meta_safe():
                call.run(model, device)
            calls.append({"label": call.label, "count": call.count,
                          "gflops_per_call": counter.get_total_flops() / 1e9})
    return params, weight_bytes, calls


def measure(case) -> dict:
    """One output row: sizes and FLOPs, or the reason there are none."""
    row = {"model": case.name, "benchmark": case.benchmark, "metrics": case.metrics,
           "official_precision": case.precision, "assumptions": case.assumptions}
    if case.build is None:
        return dict(row, available=False, reason=case.unavailable)
    errors = []
    for device in case.devices:
        started = time.monotonic()
        try:
            params, weight_bytes, calls = _count(case, device)
        except Exception as err:  # pylint: disable=broad-except
            errors.append(f"{device}: {type(err).__name__}: {str(err).splitlines()[0][:200]}")
            continue
        half = "16" in case.precision and "autocast" not in case.precision
        if errors:  # why an earlier device could not count it
            row["not_counted_on"] = errors
        return dict(row, available=True, counted_on=device, params=params,
                    weight_mb_fp32=weight_bytes / 1e6,
                    weight_mb_as_loaded=weight_bytes / (2e6 if half else 1e6),
                    calls=calls, calls_per_sample=sum(c["count"] for c in calls),
                    gflops_per_sample=sum(c["count"] * c["gflops_per_call"] for c in calls),
                    seconds_to_count=round(time.monotonic() - started, 1))
    return dict(row, available=False, reason="could not be built and run here: "
                + "; ".join(errors))


def _table(rows) -> str:
    lines = [f"{'model':44s} {'bench':9s} {'params (M)':>10s} {'weight MB':>9s} "
             f"{'GFLOPs/sample':>13s} {'calls':>6s}"]
    for r in rows:
        if not r["available"]:
            lines.append(f"{r['model']:44s} {r['benchmark']:9s} unavailable: {r['reason']}")
            continue
        lines.append(f"{r['model']:44s} {r['benchmark']:9s} {r['params'] / 1e6:10.1f} "
                     f"{r['weight_mb_as_loaded']:9.0f} {r['gflops_per_sample']:13.1f} "
                     f"{r['calls_per_sample']:6.0f}")
    return "\n".join(lines)


def main(argv):
    del argv
    import torch  # pylint: disable=import-outside-toplevel
    cases = model_cost_cases.vmbench_cases() + memobench_cost_cases.memobench_cases()
    if _ONLY.value:
        cases = tuple(c for c in cases if any(s in c.name for s in _ONLY.value))
    rows = []
    for case in cases:
        rows.append(measure(case))
        print(f"counted {case.name}", file=sys.stderr, flush=True)
    print(_table(rows))
    if _OUTPUT.value:
        with open(_OUTPUT.value, "w", encoding="utf-8") as f:
            json.dump({"torch": torch.__version__, "flop_counter": "FlopCounterMode",
                       "typical_samples": {"vmbench": model_cost_cases.TYPICAL,
                                           "memobench": memobench_cost_cases.TYPICAL},
                       "rows": rows}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    app.run(main)
