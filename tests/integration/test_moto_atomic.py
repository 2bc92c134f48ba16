"""The S3 API of the tests decides a conditional write atomically, as S3 does (tests/moto_atomic.py): with a
delay between moto's check and its write that makes every race certain, eight writers of one new key get one
success, and two LanceDB commits racing for the same table version both keep their rows. moto as released,
under the same delay, lets several writers "win": the race the two-servers test met once on a loaded machine."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import botocore.exceptions
import pyarrow as pa
import pytest

from tests.s3_support import moto_server, new_bucket, s3_client, s3_env

DELAY = {"MOTO_TEST_WRITE_DELAY_S": "0.3"}


def _together(actions: list[Callable[[], None]]) -> None:
    start = threading.Barrier(len(actions))

    def run(action: Callable[[], None]) -> None:
        start.wait()
        action()

    threads = [threading.Thread(target=run, args=(a,)) for a in actions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _winners_of_one_new_key(endpoint: str) -> tuple[list[int], bytes]:
    client = s3_client(endpoint, connections=16, attempts=1)  # no retry: a retried put would be counted twice
    bucket = new_bucket(endpoint)
    winners: list[int] = []

    def put(n: int) -> Callable[[], None]:
        def action() -> None:
            try:
                client.put_object(Bucket=bucket, Key="manifest", Body=f"writer {n}".encode(), IfNoneMatch="*")
                winners.append(n)
            except botocore.exceptions.ClientError as err:
                assert err.response["Error"]["Code"] == "PreconditionFailed"

        return action

    _together([put(n) for n in range(8)])
    return winners, client.get_object(Bucket=bucket, Key="manifest")["Body"].read()


def test_one_writer_of_a_new_key_wins_and_its_bytes_stay(tmp_path: Path) -> None:
    with moto_server(tmp_path / "moto.log", DELAY) as endpoint:
        winners, stored = _winners_of_one_new_key(endpoint)
    assert len(winners) == 1
    assert stored == f"writer {winners[0]}".encode()


def test_moto_as_released_lets_several_writers_win_the_same_race(tmp_path: Path) -> None:
    with moto_server(tmp_path / "moto.log", {**DELAY, "MOTO_TEST_UNLOCKED": "1"}) as endpoint:
        winners, _ = _winners_of_one_new_key(endpoint)
    assert len(winners) > 1  # what the lock of tests/moto_atomic.py prevents


def test_two_lancedb_commits_racing_for_one_version_both_keep_their_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import lancedb

    with moto_server(tmp_path / "moto.log", DELAY) as endpoint:
        for name, value in s3_env(endpoint).items():
            monkeypatch.setenv(name, value)
        db = lancedb.connect(f"s3://{new_bucket(endpoint)}/library")
        schema = pa.schema([("id", pa.string())])
        db.create_table("jobs", schema=schema)
        tables = [lancedb.connect(db.uri).open_table("jobs") for _ in range(2)]  # two servers' handles

        def add(n: int) -> Callable[[], None]:
            return lambda: tables[n].add(pa.Table.from_pylist([{"id": f"job {n}"}], schema=schema))

        _together([add(0), add(1)])
        rows = db.open_table("jobs").to_arrow().column("id").to_pylist()
    assert sorted(rows) == ["job 0", "job 1"]
