"""metrics.tracking.online_tracks with a recording stand-in tracker: the calls upstream's
online demo makes, and each call's history kept as numpy."""

import numpy as np
import torch

from metrics.tracking import online_tracks


class _Recorder:
    """step 4; each call returns a history of (frames seen so far) rows of the first pixel."""

    step = 4
    device = torch.device("cpu")

    def __init__(self):
        self.calls, self.seen = [], 0

    def __call__(self, video_chunk, is_first_step=False, grid_size=None):
        self.calls.append((tuple(video_chunk.shape), is_first_step, grid_size,
                           video_chunk.dtype))
        if is_first_step:
            return None, None
        self.seen = min(self.seen + (8 if self.seen == 0 else 4), 11)
        value = float(video_chunk[0, 0, 0, 0, 0])
        return torch.full((1, self.seen, 3, 2), value), torch.ones(1, self.seen, 3)


def test_the_online_calls_and_their_histories():
    frames = np.random.default_rng(0).integers(0, 256, (11, 6, 7, 3), dtype=np.uint8)
    model = _Recorder()
    got = online_tracks.histories(frames, model, grid_size=3)
    assert model.calls == [((1, 11, 3, 6, 7), True, 3, torch.float32),
                           ((1, 8, 3, 6, 7), False, None, torch.float32),
                           ((1, 7, 3, 6, 7), False, None, torch.float32)]  # starts 0, 4
    assert [h.shape for h in got] == [(8, 3, 2), (11, 3, 2)]
    assert all(h.dtype == np.float32 for h in got)
    assert got[0][0, 0, 0] == frames[0, 0, 0, 0] and got[1][0, 0, 0] == frames[4, 0, 0, 0]
