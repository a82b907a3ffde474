"""A checkpoint published only as a member of a zip archive (e.g. RAFT's models.zip).

The resolver downloads single files, so such a spec's fetch command downloads the
archive and unzips the one member into `<checkpoint_dir>/<name>/`.
"""

import dataclasses
from typing import Optional

from metrics.checkpoints import resolver


@dataclasses.dataclass(frozen=True)
class ZipMemberSpec(resolver.CheckpointSpec):
    """A checkpoint published only as a member of a zip archive."""

    archive_url: str = ""
    member: str = ""

    def fetch_command(self, checkpoint_dir: Optional[str] = None) -> str:
        target = checkpoint_dir or "<checkpoint_dir>"
        archive = f"/tmp/{self.name}.zip"
        return (f"mkdir -p {target}/{self.name} && curl -L {self.archive_url} -o {archive} && "
                f"unzip -j -o {archive} {self.member} -d {target}/{self.name}")
