"""The executor setting without a cluster: a clear refusal for `ray` with no address, and the default
`local` executor never importing Ray (no Ray process is started here)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rag_core.config import Settings
from rag_core.errors import RagError

REPO = Path(__file__).resolve().parents[2]


def test_the_default_executor_is_local(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAG_INGEST__EXECUTOR", raising=False)
    assert Settings().ingest.executor == "local"
    monkeypatch.setenv("RAG_INGEST__EXECUTOR", "ray")
    monkeypatch.setenv("RAG_INGEST__EMBED_BATCH", "32")
    assert Settings().ingest.executor == "ray" and Settings().ingest.embed_batch == 32


def test_every_ingest_setting_is_described() -> None:
    from rag_core.config import IngestSettings

    assert all(field.description for field in IngestSettings.model_fields.values())
    assert Settings.model_fields["ingest"].description


@pytest.mark.parametrize("address", [None, "", "local"])
def test_ray_without_a_cluster_address_refuses_with_a_clear_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, address: str | None
) -> None:
    from rag_core.jobs import Worker

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    settings = Settings(data_dir=tmp_path, ingest={"executor": "ray", "ray_address": address})
    with pytest.raises(RagError, match="RAG_INGEST__RAY_ADDRESS") as refused:
        Worker(settings)
    assert "does not start a Ray cluster of its own" in str(refused.value)


def test_the_ray_address_falls_back_to_the_ray_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    from rag_core.jobs.ray_runner import ray_address

    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.5:6379")
    assert ray_address(Settings(ingest={"executor": "ray"})) == "10.0.0.5:6379"
    assert ray_address(Settings(ingest={"executor": "ray", "ray_address": "head:6379"})) == "head:6379"


_INGEST_WITHOUT_RAY = """
import sys
from pathlib import Path
from rag_core import pipeline
from rag_core.access import Principal
from rag_core.config import Settings
from rag_core.jobs import Worker
from tests.bad_files import make_pdf

data = Path(sys.argv[1])
settings = Settings(data_dir=data)
pdf = make_pdf(data / "report.pdf", "reserves", pages=2)
job = pipeline.submit_upload(pdf.read_bytes(), pdf.name, settings, principal=Principal.local_operator())
worker = Worker(settings)
assert worker.run_once()
print(worker.table.get(job.id).state, "ray" in sys.modules)
"""


def test_the_local_executor_never_imports_ray(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _INGEST_WITHOUT_RAY, str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": str(REPO)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-2:] == ["done", "False"]


@pytest.mark.parametrize(
    ("count", "batch", "cpus", "tasks"),
    [(1, 64, 2, 1), (30, 64, 2, 2), (60, 64, 4, 4), (128, 64, 2, 2), (129, 64, 2, 4), (1000, 64, 2, 16), (7, 64, 1, 1)],
)
def test_the_embedding_ranges_cover_every_passage_once_and_fill_every_cpu(
    count: int, batch: int, cpus: int, tasks: int
) -> None:
    from rag_core.jobs.ray_runner import embed_ranges

    ranges = embed_ranges(count, batch, cpus)
    assert len(ranges) == tasks
    assert [i for a, b in ranges for i in range(a, b)] == list(range(count))  # in order, none twice
    sizes = [b - a for a, b in ranges]
    assert max(sizes) <= batch and max(sizes) - min(sizes) <= 1


def test_no_passage_no_embedding_task() -> None:
    from rag_core.jobs.ray_runner import embed_ranges

    assert embed_ranges(0, 64, 2) == []
