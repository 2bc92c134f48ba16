"""Two Ray nodes on 127.0.0.1, each in its own process group, for a process inside a loopback-only
network namespace (`in_loopback_namespace`).

Ray advertises the machine's network address instead of 127.0.0.1 when it has one; inside a
namespace that only has `lo`, it keeps 127.0.0.1, so nothing of the test is reachable from
outside and nothing outside is used. A node is stopped by killing its process group, never
with `ray stop` (which stops every Ray process of the machine).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RAY = Path(sys.executable).with_name("ray")
_NODE_FLAGS = ["--num-cpus", "1", "--disable-usage-stats", "--block"]


def namespace_problem() -> str | None:
    """Why the scenario cannot run in a loopback-only namespace here, or None when it can."""
    if os.geteuid() != 0:
        return "creating a network namespace (unshare -n) needs root"
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return "unshare or ip (iproute2) is not installed"
    probe = subprocess.run(["unshare", "-n", "ip", "link", "set", "lo", "up"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"unshare -n failed: {probe.stderr.strip()[:200]}"
    if not RAY.is_file():
        return f"no ray executable next to {sys.executable}"
    return None


def in_loopback_namespace(module: str, *args: str, timeout_s: float = 600) -> subprocess.CompletedProcess:
    """`python -m module args` inside a new network namespace with only loopback, from the repository."""
    command = f"ip link set lo up && exec {sys.executable} -m {module} {' '.join(args)}"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "RAY_USAGE_STATS_ENABLED": "0"}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    return subprocess.run(
        ["unshare", "-n", "bash", "-c", command], cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout_s
    )


class Cluster:
    """A head and one more node, one CPU each, on 127.0.0.1:`port`; `temp` holds their logs."""

    def __init__(self, port: int, temp: Path) -> None:
        self.address = f"127.0.0.1:{port}"
        self.temp = temp
        common = ["--object-store-memory", str(200 * 1024 * 1024)]
        self.procs: list[subprocess.Popen] = []
        try:
            self.head = self._start(
                ["start", "--head", "--node-ip-address", "127.0.0.1", "--port", str(port)]
                + ["--include-dashboard=false", "--temp-dir", str(temp)]
                + common,
                "head",
            )
            self._wait_for_nodes(1)
            other = ["start", "--address", self.address, "--node-ip-address", "127.0.0.1", *common]
            self.other = self._start(other, "other")
            self._wait_for_nodes(2)
        except BaseException:
            self.stop(keep_logs=True)  # no node left running after a failed start
            raise

    def _start(self, args: list[str], name: str) -> subprocess.Popen:
        log = (self.temp / f"node-{name}.log").open("w")
        env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
        proc = subprocess.Popen(
            [str(RAY), *args, *_NODE_FLAGS], stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
        self.procs.append(proc)
        return proc

    def _wait_for_nodes(self, count: int, timeout_s: float = 180) -> None:
        """Until the cluster's GCS lists `count` live nodes. Its node table is read in this process, as
        Ray's own `services.wait_for_node` does: `ray status` (a new process of a few seconds' CPU per
        call, reading the autoscaler's summary, which lags the node table by seconds) made the start
        take a minute on two cores."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._gcs_listening() and self._alive_nodes() >= count:
                return
            for proc in self.procs:
                if proc.poll() is not None:
                    raise RuntimeError(f"a Ray node exited ({proc.returncode}); see {self.temp}/node-*.log")
            time.sleep(0.3)
        raise RuntimeError(f"{count} Ray node(s) not up within {timeout_s} s")

    def _gcs_listening(self) -> bool:
        host, port = self.address.rsplit(":", 1)
        try:
            with socket.create_connection((host, int(port)), timeout=1):
                return True
        except OSError:
            return False

    def _alive_nodes(self) -> int:
        from ray._private.state import GlobalState
        from ray._raylet import GcsClientOptions

        state = GlobalState()
        state._initialize_global_state(
            GcsClientOptions.create(self.address, None, allow_cluster_id_nil=True, fetch_cluster_id_if_nil=False)
        )
        try:
            return sum(1 for node in state.node_table() if node["Alive"])
        finally:
            state.disconnect()

    @staticmethod
    def kill(proc: subprocess.Popen) -> None:
        """SIGKILL a node's whole process group (its raylet, object store and workers)."""
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=30)

    def stop(self, keep_logs: bool = False) -> None:
        """Kill both nodes; their session folder goes too unless `keep_logs` (to read why something failed)."""
        for proc in reversed(self.procs):
            self.kill(proc)
        if not keep_logs:
            shutil.rmtree(self.temp, ignore_errors=True)
