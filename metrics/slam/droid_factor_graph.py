"""DROID-SLAM's factor graph (princeton-vl/DROID-SLAM droid_slam/factor_graph.py, monocular),
written for worldeval on metrics/slam's pieces.

Edges (i, j) of keyframes carry the GRU state `net`, the context `inp`, a correlation
block (the frontend's and filler's "volume" implementation; the backend's "alt" one is
built per step), the flow `target` and its `weight`. `update` runs the update operator
once on every edge and then dense BA; `update_lowmem` (the global backend) runs it in
chunks of 8 source frames per step and returns what the reprojection error needs.

Constants come from `consts`, any object with the fields `frontend_ba`, `backend_ba`
((lm, ep) pairs), `damping_scale` and `damping_eps` (eta = scale * damping + eps).
Kept from the official code: the factor limit removes edges by the position mask
`argsort(age)[k] >= max_factors - new` (stable sort here), duplicate edges are filtered
against active and inactive edges only (not bad ones), and `update` sets t0 to
max(1, min(ii) + 1) when not given.
"""

import torch

from metrics.slam import corr as corr_lib
from metrics.slam import droid_graph
from metrics.slam import projective

DAMPING_INIT = 1e-6
MOTION_CLAMP = 64.0
LOWMEM_CHUNK = 8
ALT_EDGES = 8  # memory bound of our AltCorrBlock (it builds each edge's volume)


class NoEdges(ValueError):
    """A proximity call found no edge at all (one keyframe); the official code fails too."""


def _empty(device):
    return torch.zeros(0, dtype=torch.long, device=device)


def _alt_corr(corr_op, coords, ii, jj):
    """AltCorrBlock over at most ALT_EDGES edges at a time (ours builds each edge's
    volume; edges are independent, so the result is the same as one call)."""
    parts = [corr_op(coords[:, k:k + ALT_EDGES], ii[k:k + ALT_EDGES], jj[k:k + ALT_EDGES])
             for k in range(0, len(ii), ALT_EDGES)]
    return torch.cat(parts, dim=1)


class FactorGraph:
    """One graph over a DepthVideo; `amp` is the autocast policy (droid_amp.Amp)."""

    def __init__(self, video, update_op, consts, amp, *, max_factors: int = -1,
                 corr_impl: str = "volume", upsample: bool = False):
        self.video, self.update_op, self.consts, self.amp = video, update_op, consts, amp
        self.max_factors, self.corr_impl, self.upsample = max_factors, corr_impl, upsample
        dev = self.device = video.device
        self.ht, self.wd = ht, wd = video.disps.shape[-2:]
        self.coords0 = projective.coords_grid(ht, wd, device=dev)
        self.ii, self.jj, self.age = _empty(dev), _empty(dev), _empty(dev)
        self.corr = self.net = self.inp = None
        self.damping = DAMPING_INIT * torch.ones_like(video.disps)
        self.target = torch.zeros(1, 0, ht, wd, 2, device=dev)
        self.weight = torch.zeros(1, 0, ht, wd, 2, device=dev)
        self.ii_inac, self.jj_inac = _empty(dev), _empty(dev)
        self.ii_bad, self.jj_bad = _empty(dev), _empty(dev)
        self.target_inac = torch.zeros(1, 0, ht, wd, 2, device=dev)
        self.weight_inac = torch.zeros(1, 0, ht, wd, 2, device=dev)

    def _filter_repeated(self, ii, jj):
        seen = set(zip(self.ii.tolist(), self.jj.tolist()))
        seen |= set(zip(self.ii_inac.tolist(), self.jj_inac.tolist()))
        keep = torch.tensor([(i, j) not in seen for i, j in zip(ii.tolist(), jj.tolist())],
                            dtype=torch.bool, device=ii.device)
        return ii[keep], jj[keep]

    def add_factors(self, ii, jj, remove: bool = False) -> None:
        """Adds the edges not already active or inactive (targets = current reprojection)."""
        ii = torch.as_tensor(ii, device=self.device).to(torch.long).reshape(-1)
        jj = torch.as_tensor(jj, device=self.device).to(torch.long).reshape(-1)
        ii, jj = self._filter_repeated(ii, jj)
        if ii.shape[0] == 0:
            return
        n_new = ii.shape[0]
        if (self.max_factors > 0 and self.ii.shape[0] + n_new > self.max_factors
                and self.corr is not None and remove):
            ix = torch.arange(len(self.age), device=self.device)[
                torch.argsort(self.age, stable=True)]
            self.rm_factors(ix >= self.max_factors - n_new, store=True)
        net = self.video.nets[ii].unsqueeze(0)
        if self.corr_impl == "volume":
            c = (ii == jj).long()
            with self.amp.autocast():
                corr = corr_lib.CorrBlock(self.video.fmaps[ii, 0].unsqueeze(0),
                                          self.video.fmaps[jj, c].unsqueeze(0))
            self.corr = corr if self.corr is None else self.corr.cat(corr)
            inp = self.video.inps[ii].unsqueeze(0)
            self.inp = inp if self.inp is None else torch.cat([self.inp, inp], 1)
        target, _ = self.video.reproject(ii, jj)
        self.ii, self.jj = torch.cat([self.ii, ii]), torch.cat([self.jj, jj])
        self.age = torch.cat([self.age, torch.zeros_like(ii)])
        self.net = net if self.net is None else torch.cat([self.net, net], 1)
        self.target = torch.cat([self.target, target], 1)
        self.weight = torch.cat([self.weight, torch.zeros_like(target)], 1)

    def rm_factors(self, mask, store: bool = False) -> None:
        """Drops the masked edges; with `store` they join the inactive set first."""
        if store:
            self.ii_inac = torch.cat([self.ii_inac, self.ii[mask]])
            self.jj_inac = torch.cat([self.jj_inac, self.jj[mask]])
            self.target_inac = torch.cat([self.target_inac, self.target[:, mask]], 1)
            self.weight_inac = torch.cat([self.weight_inac, self.weight[:, mask]], 1)
        keep = ~mask
        self.ii, self.jj, self.age = self.ii[keep], self.jj[keep], self.age[keep]
        if self.corr_impl == "volume" and self.corr is not None:
            self.corr = self.corr[keep]
        if self.net is not None:
            self.net = self.net[:, keep]
        if self.inp is not None:
            self.inp = self.inp[:, keep]
        self.target, self.weight = self.target[:, keep], self.weight[:, keep]

    def rm_keyframe(self, ix: int) -> None:
        """Removes keyframe ix: the video slot shifts down, edges touching it go."""
        self.video.copy_keyframe(ix)
        m = (self.ii_inac == ix) | (self.jj_inac == ix)
        self.ii_inac[self.ii_inac >= ix] -= 1
        self.jj_inac[self.jj_inac >= ix] -= 1
        if bool(m.any()):
            self.ii_inac, self.jj_inac = self.ii_inac[~m], self.jj_inac[~m]
            self.target_inac, self.weight_inac = self.target_inac[:, ~m], self.weight_inac[:, ~m]
        m = (self.ii == ix) | (self.jj == ix)
        self.ii[self.ii >= ix] -= 1
        self.jj[self.jj >= ix] -= 1
        self.rm_factors(m, store=False)

    def clear_edges(self) -> None:
        self.rm_factors(self.ii >= 0)
        self.net = self.inp = None

    def _motion(self):
        coords1, mask = self.video.reproject(self.ii, self.jj)
        motn = torch.cat([coords1 - self.coords0, self.target - coords1], dim=-1)
        return coords1, mask, motn.permute(0, 1, 4, 2, 3).clamp(-MOTION_CLAMP, MOTION_CLAMP)

    def _ba_layout(self, x):
        return x.reshape(-1, self.ht, self.wd, 2).permute(0, 3, 1, 2).contiguous()

    def _eta(self, ii):
        return self.consts.damping_scale * self.damping[torch.unique(ii)] + self.consts.damping_eps

    def update(self, t0=None, t1=None, itrs: int = 2, use_inactive: bool = False,
               motion_only: bool = False) -> None:
        """One update-operator pass over all edges, then `itrs` BA iterations."""
        coords1, _, motn = self._motion()
        with self.amp.autocast():
            corr = self.corr(coords1)
            self.net, delta, weight, damping, upmask = self.update_op(
                self.net, self.inp, corr, motn, self.ii, self.jj)
        if t0 is None:
            t0 = max(1, int(self.ii.min()) + 1)
        self.target = coords1 + delta.float()
        self.weight = weight.float()
        self.damping[torch.unique(self.ii)] = damping[0].float()
        ii, jj, target, weight = self.ii, self.jj, self.target, self.weight
        if use_inactive:
            m = (self.ii_inac >= t0 - 3) & (self.jj_inac >= t0 - 3)
            ii, jj = torch.cat([self.ii_inac[m], ii]), torch.cat([self.jj_inac[m], jj])
            target = torch.cat([self.target_inac[:, m], target], 1)
            weight = torch.cat([self.weight_inac[:, m], weight], 1)
        lm, ep = self.consts.frontend_ba
        self.video.ba(self._ba_layout(target), self._ba_layout(weight), self._eta(ii), ii, jj,
                      t0, t1, itrs=itrs, lm=lm, ep=ep, motion_only=motion_only)
        if self.upsample:
            self.video.upsample(torch.unique(self.ii), upmask)
        self.age += 1

    def update_lowmem(self, steps: int, itrs: int = 2):
        """The global backend's `steps` passes (alt correlation, chunks of 8 source frames,
        BA over poses [1, t)). Returns (coords1 [1, E, h, w, 2], valid [1, E, h, w, 1],
        target [E, 2, h, w]): the reprojection after the last BA and the last targets."""
        t = self.video.counter
        fm = self.video.fmaps[:t]
        corr_op = corr_lib.AltCorrBlock(fm.reshape(1, -1, *fm.shape[2:]))
        lm, ep = self.consts.backend_ba
        target = None
        for _ in range(steps):
            coords1, _, motn = self._motion()
            for i in range(0, int(self.jj.max()) + 1, LOWMEM_CHUNK):
                v = (self.ii >= i) & (self.ii < i + LOWMEM_CHUNK)
                if not bool(v.any()):
                    continue  # the official call on no edge changes nothing
                iis, jjs = self.ii[v], self.jj[v]
                with self.amp.autocast():
                    corr1 = _alt_corr(corr_op, coords1[:, v], iis, jjs + (iis == jjs).long())
                    net, delta, weight, damping, upmask = self.update_op(
                        self.net[:, v], self.video.inps[None, iis], corr1, motn[:, v], iis, jjs)
                    if self.upsample:
                        self.video.upsample(torch.unique(iis), upmask)
                self.net[:, v] = net.to(self.net.dtype)
                self.target[:, v] = coords1[:, v] + delta.float()
                self.weight[:, v] = weight.float()
                self.damping[torch.unique(iis)] = damping[0].float()
            target, weight = self._ba_layout(self.target), self._ba_layout(self.weight)
            self.video.ba(target, weight, self._eta(self.ii), self.ii, self.jj, 1, t,
                          itrs=itrs, lm=lm, ep=ep, motion_only=False)
        coords1, valid = self.video.reproject(self.ii, self.jj)
        return coords1, valid, target

    def add_neighborhood_factors(self, t0: int, t1: int, r: int = 3) -> None:
        edges = droid_graph.neighborhood_edges(t0, t1, r)
        if edges:
            self.add_factors(*zip(*edges))

    def add_proximity_factors(self, t0: int = 0, t1: int = 0, *, rad: int, nms: int,
                              beta: float, thresh: float, remove: bool = False) -> None:
        """Band plus distance-ranked edges (metrics/slam/droid_graph.py).

        Raises NoEdges when there is no edge at all (one keyframe), where the
        official code fails unpacking an empty edge list.
        """
        t = self.video.counter
        ii = torch.arange(t0, t).repeat_interleave(t - t1)
        jj = torch.arange(t1, t).repeat(t - t0)
        d = self.video.distance(ii, jj, beta=beta) if len(ii) else torch.zeros(0)
        existing = zip(torch.cat([self.ii, self.ii_bad, self.ii_inac]).tolist(),
                       torch.cat([self.jj, self.jj_bad, self.jj_inac]).tolist())
        edges = droid_graph.proximity_edges(d.cpu().double().numpy(), t, rad=rad, nms=nms,
                                            thresh=thresh, max_factors=self.max_factors,
                                            t0=t0, t1=t1, existing=existing)
        if not edges:
            raise NoEdges(f"no proximity edge over {t} keyframe(s): the official "
                             "add_proximity_factors fails on the empty edge list")
        ei, ej = zip(*edges)
        self.add_factors(ei, ej, remove)
