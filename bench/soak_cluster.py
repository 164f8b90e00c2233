"""The soak's own PostgreSQL cluster in a temporary folder: the outage phase stops and
starts it, which the shared server of the tests and the other benchmarks must never be
(``initdb`` and ``pg_ctl`` run as the ``postgres`` user when the soak runs as root)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.e2e.processes import free_port


class Cluster:
    """A PostgreSQL cluster of its own in a temporary folder (trust auth, loopback)."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="coyote-soak-pg-"))
        self.port = free_port()
        self.bindir = _pg_bindir()

    def _run(self, *args: str) -> None:
        cmd = [str(Path(self.bindir) / args[0]) if self.bindir else args[0], *args[1:]]
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def init(self) -> None:
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")
        self._run("initdb", "-D", str(self.dir / "data"), "-U", "postgres", "--auth=trust")

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.dir / "data"), "-l", str(self.dir / "server.log"),
                  "-w", "-o", f"-h 127.0.0.1 -p {self.port} -k {self.dir} -c max_connections=300",
                  "start")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.dir / "data"), "-m", "fast", "-w", "stop")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def remove(self) -> None:
        try:
            self.stop()
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.dir, ignore_errors=True)


def _pg_bindir() -> str:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: p.parent.name)
    return str(found[-1]) if found else ""
