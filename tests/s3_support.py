"""A real S3 API on 127.0.0.1 for the shared-library tests: `moto_server` (moto[server] from PyPI;
no MinIO server package exists here), which honours `If-None-Match` and `If-Match`, run through
`tests/moto_atomic.py` so that it decides them atomically, as S3 does. Each library gets its own
bucket; the `AWS_*` variables below are what obstore, LanceDB and the worker processes read."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

MOTO_ATOMIC = Path(__file__).resolve().parent / "moto_atomic.py"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def moto_server(log: Path, env: dict[str, str] | None = None) -> Iterator[str]:
    """Start `moto_server` (its conditional writes made atomic) on a free loopback port; its endpoint URL.
    Stopped with its process group. `env`: variables added to its environment."""
    port = _free_port()
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, str(MOTO_ATOMIC), "-H", "127.0.0.1", "-p", str(port)],
            env={**os.environ, **(env or {})},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    endpoint = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(endpoint + "/", timeout=2).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"moto_server did not start: {log.read_text()[-2000:]}") from None
                time.sleep(0.2)
        yield endpoint
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        proc.wait(timeout=30)


def s3_env(endpoint: str) -> dict[str, str]:
    return {
        "AWS_ENDPOINT": endpoint,
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
        "AWS_REGION": "us-east-1",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ALLOW_HTTP": "true",
    }


def s3_client(endpoint: str, connections: int = 10, attempts: int | None = None):
    """A boto3 client of the server: `connections` requests open at once, `attempts` per request (None: boto3's)."""
    import boto3
    from botocore.config import Config

    retries = {"max_attempts": attempts} if attempts else None
    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id="test",
        aws_secret_access_key="test",
        region_name="us-east-1",
        config=Config(max_pool_connections=connections, retries=retries),
    )


def new_bucket(endpoint: str) -> str:
    """A fresh bucket; its name."""
    name = "lib-" + uuid.uuid4().hex[:12]
    s3_client(endpoint).create_bucket(Bucket=name)
    return name
