"""A second reading of a video's stream: the errors FFmpeg's decoder logs and OpenCV hides.

OpenCV's FFmpeg backend conceals damage inside a stream: an H.264 clip with 2,000 bytes
overwritten mid-stream still yields every frame its container declares, with smeared
macroblocks, and nothing tells the caller. FFmpeg's decoder logs each such error
("error while decoding MB 16 9, bytestream 5491"). `start` runs the ffmpeg binary that
imageio-ffmpeg ships (a pinned wheel, so the same build everywhere) over the video's
first video stream with `-v error`, in a child process alongside OpenCV's own decode;
`StreamCheck.result` says what it logged. The frames used are always OpenCV's: the check
only makes concealed damage visible, it never changes a number.
"""

import os
import re
import subprocess

# A check of a stream no longer than the clips scored here finishes in seconds; one that
# runs this long is stopped and reported as unfinished.
TIMEOUT_S = 600

# FFmpeg prefixes each message with its context and an address ("[h264 @ 0x55d4...] "):
# dropped, so that the same damage gives the same words on every run.
_CONTEXT = re.compile(r"^\[[^\]]*\] ")


def _ffmpeg():
    import imageio_ffmpeg  # pylint: disable=import-outside-toplevel
    return imageio_ffmpeg.get_ffmpeg_exe()


class StreamCheck:
    """FFmpeg decoding one video to nowhere, logging only errors; started by `start`."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self._process = None
        self._failed = None
        try:
            self._process = subprocess.Popen(
                [_ffmpeg(), "-nostdin", "-hide_banner", "-v", "error", "-i", self.path,
                 "-map", "0:v:0", "-f", "null", "-"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        except (OSError, RuntimeError, ImportError) as e:  # no runnable binary
            self._failed = f"{type(e).__name__}: {e}"

    def cancel(self):
        """Stops the check (the caller's own decode failed: nothing to compare)."""
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
        if self._process is not None:
            self._process.communicate()

    def result(self):
        """Waits for the check; returns None for a clean stream, else one line saying
        what FFmpeg found (or why the check could not be made)."""
        if self._failed is not None:
            return f"the stream check could not run ffmpeg ({self._failed})"
        try:
            _, stderr = self._process.communicate(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.communicate()
            return f"ffmpeg's stream check did not finish in {TIMEOUT_S} s"
        lines = [_CONTEXT.sub("", line).strip()
                 for line in stderr.decode("utf-8", "replace").splitlines()]
        lines = [line for line in lines if line]
        if not lines:
            return None
        return (f"ffmpeg's decoder reports {len(lines)} error line(s) that OpenCV "
                f"conceals (first: {lines[0]!r})")


def start(path):
    """Starts checking `path` in a child process; returns its StreamCheck."""
    return StreamCheck(path)
