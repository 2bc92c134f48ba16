"""The Ray executor: a job's page batches and embedding run as tasks of a Ray cluster.

`RayStageRunner` is `LocalStageRunner` with a `RayExecutor` handed to `ingestion.ingest_one`: the
stages, the manifest, the chunking and the one batched write to the library stay in the
worker; only the parse's page batches (`parsing.page_batches`) and ranges of
`ingest.embed_batch` passages are Ray tasks, spread over the cluster's CPUs, their results
put back in order. The document built from them is therefore the one a local run builds.

A task does not assume it sees the worker's disk: the PDF travels through Ray's object store
(put once per document), a batch writes its picture crops into a temporary folder and returns
their bytes, which the worker writes into the document's folder under the names a local parse
gives. Ray reruns a task lost with its node (`ingest.max_retries`); a batch's output depends
only on the PDF and the batch, so a rerun gives the same. The job table stays the only record
of a job's state: the worker holds the lease while it waits for the tasks.

Ray is imported here only, inside functions, and only when `RAG_INGEST__EXECUTOR=ray`; the
worker connects to an existing cluster (`ingest.ray_address` or RAY_ADDRESS) and never
starts one of its own.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import tempfile
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from rag_core.config import EmbeddingSettings, ParsingSettings, Settings
from rag_core.embedding import resolve_backend, select_embedder
from rag_core.errors import BackendUnavailable, RagError
from rag_core.jobs.runner import LocalStageRunner
from rag_core.library import atomic_write_bytes
from rag_core.parsing.base import ParsedDocument
from rag_core.parsing.page_batches import Batch, BatchResult, PageBatchRunner

log = logging.getLogger(__name__)


def ray_address(settings: Settings) -> str:
    """The cluster to join; a clear refusal rather than a Ray started silently in this process."""
    address = settings.ingest.ray_address or os.environ.get("RAY_ADDRESS") or ""
    if not address.strip() or address.strip() == "local":
        raise BackendUnavailable.of("backend.ray_unnamed")
    return address.strip()


def connect(settings: Settings) -> None:
    """Join the cluster once per process (a second call is a no-op)."""
    address = ray_address(settings)
    import ray

    if ray.is_initialized():
        return
    try:
        ray.init(address=address, ignore_reinit_error=True, log_to_driver=False, logging_level=logging.WARNING)
    except (ConnectionError, RuntimeError) as err:
        raise BackendUnavailable.of("backend.ray_unreachable", address=address, detail=err) from err


def _node() -> str:
    import ray

    return ray.get_runtime_context().get_node_id()


def _parse_batch(pdf: bytes, batch: Batch) -> tuple[BatchResult, dict[str, bytes], str]:
    """A Ray task: one page batch on a private copy of the PDF; crops come back as bytes."""
    from rag_core.parsing.pymupdf_parser import analyse_batch_detached

    with tempfile.TemporaryDirectory(prefix="rag-pdf-") as tmp:
        path = Path(tmp) / "source.pdf"
        path.write_bytes(pdf)
        result, crops = analyse_batch_detached(path, batch)
    return result, crops, _node()


def _parse_whole(
    data: bytes, kind: str, parsing_settings: ParsingSettings, file_name: str
) -> tuple[ParsedDocument, dict[str, bytes], str]:
    """A Ray task: the whole parse of a file without page batches (Docling's backends), on a private copy;
    crops come back as bytes, as for a page batch. `kind` is the admitted one: the file is not checked again."""
    from rag_core import parsing

    settings = Settings.model_construct(parsing=parsing_settings)  # parsers read only the parsing section
    with tempfile.TemporaryDirectory(prefix="rag-file-") as tmp:
        path, artifacts = Path(tmp) / f"source.{kind}", Path(tmp) / "artifacts"
        path.write_bytes(data)
        artifacts.mkdir()
        parsed = parsing.parse(path, settings, artifacts, file_name=file_name, kind=kind)
        crops = {p.name: p.read_bytes() for p in sorted(artifacts.iterdir()) if p.is_file()}
    return parsed, crops, _node()


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """What must be equal on the worker and on every node for a task to give what a local run gives:
    the source of `rag_core` and the versions of the parsing libraries."""
    from rag_core.parsing.base import library_versions

    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256(json.dumps(library_versions(), sort_keys=True).encode())
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def _fingerprint_of_node() -> tuple[str, str]:
    """A Ray task: the code fingerprint of the node it runs on."""
    return code_fingerprint(), _node()


def check_nodes(settings: Settings, checked: set[str]) -> None:
    """Refuse a cluster whose nodes run other code than this worker: their batches would give another
    document than a local run, silently. Asked of each node not in `checked` yet (one task pinned to
    each; before every job, so a node that joined since is asked too); `checked` gets those that agree."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    mine = code_fingerprint()
    task = ray.remote(_fingerprint_of_node)
    new = [node["NodeID"] for node in ray.nodes() if node.get("Alive") and node["NodeID"] not in checked]
    refs = [
        task.options(num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False)).remote()
        for node in new
    ]
    answers = ray.get(refs)
    checked.update(node for fingerprint, node in answers if fingerprint == mine)
    other = sorted({node for fingerprint, node in answers if fingerprint != mine})
    if other:
        raise BackendUnavailable.of(
            "backend.ray_versions",
            address=ray_address(settings),
            count=len(other),
            nodes=", ".join(n[:12] for n in other),
            mine=mine,
        )


def _embed_range(embedding: EmbeddingSettings, texts: list[str]) -> tuple[np.ndarray, str]:
    """A Ray task: the vectors of consecutive passages, with the embedder the worker resolved."""
    settings = Settings.model_construct(embedding=embedding)  # only the embedding section is read
    return select_embedder(settings).embed_passages(texts), _node()


def cluster_cpus() -> int:
    """The CPUs of the cluster now (nodes may have joined or left since the last job)."""
    import ray

    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def embed_ranges(count: int, batch: int, cpus: int) -> list[tuple[int, int]]:
    """[start, end) ranges of `count` passages for the embedding tasks: about equal, at most `batch` each,
    and as many as a multiple of the cluster's CPUs, so that every CPU has one in each wave. A task embeds
    on one thread (one CPU), where the local executor embeds on all of the machine's: ranges of
    `batch` alone would leave a short document's single range on one core while the others wait
    (measured: a 21-page document's embedding 6.3 s locally, 10.5 s as one task)."""
    if count <= 0:
        return []
    tasks = min(count, cpus * math.ceil(count / (cpus * max(1, batch))))
    bounds = [round(i * count / tasks) for i in range(tasks + 1)]
    return list(zip(bounds, bounds[1:], strict=False))


@lru_cache(maxsize=4)
def _remote(fn: Callable[..., Any], max_retries: int) -> Any:
    import ray

    return ray.remote(fn).options(num_cpus=1, max_retries=max_retries)


def gather(refs: Sequence[Any], on_done: Callable[[int, Any], None]) -> list[Any]:
    """The tasks' results in task order; `on_done(index, result)` as each one ends, in this thread.
    What it raises (a cancelled job) cancels the tasks still running."""
    import ray

    index = {ref: i for i, ref in enumerate(refs)}
    results: list[Any] = [None] * len(refs)
    pending = list(refs)
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                results[index[ref]] = _get(ref)
                on_done(index[ref], results[index[ref]])
    except BaseException:
        for ref in pending:
            ray.cancel(ref)
        raise
    return results


def _get(ref: Any) -> Any:
    """A task's result; a `RagError` it raised comes back as itself, its message without Ray's traceback
    (the worker shows it to the user)."""
    import ray

    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as err:
        if isinstance(err.cause, RagError):
            raise err.cause from None
        raise


def _write_crops(folder: Path, crops: dict[str, bytes]) -> None:
    """The crops a task returned, written into the document's folder under the names a local parse gives."""
    for name, data in crops.items():
        atomic_write_bytes(folder / name, data)


class RayPageBatches:
    """The page batches of one PDF as Ray tasks (`parsing.page_batches.PageBatchRunner`)."""

    def __init__(self, settings: Settings, nodes: list[tuple[str, str]]) -> None:
        self.settings, self.nodes = settings, nodes

    def run(self, path: Path, batches: Sequence[Batch], on_done: Callable[[int], None]) -> list[BatchResult]:
        import ray

        pdf = ray.put(path.read_bytes())
        task = _remote(_parse_batch, self.settings.ingest.max_retries)
        refs = [task.remote(pdf, batch) for batch in batches]

        def arrived(index: int, out: tuple[BatchResult, dict[str, bytes], str]) -> None:
            _, crops, node = out
            _write_crops(Path(batches[index].artifacts_dir), crops)
            self.nodes.append(("parse", node))
            on_done(index)

        return [result for result, _, _ in gather(refs, arrived)]


class RayExecutor:
    """Page batches and embedding ranges as Ray tasks (`ingestion.StageExecutor`).
    `nodes` lists (stage, node id) per finished task: where the work ran."""

    def __init__(self, settings: Settings) -> None:
        self.nodes: list[tuple[str, str]] = []
        self.page_batches: PageBatchRunner | None = RayPageBatches(settings, self.nodes)

    def parse_whole(
        self, path: Path, settings: Settings, artifacts_dir: Path, file_name: str, kind: str
    ) -> ParsedDocument:
        """One task for the whole file; the PDF backend resolved here, so that a node without Docling's
        weights does not fall back to another parser."""
        from rag_core.parsing import resolve_pdf_backend

        parsing_settings = settings.parsing.model_copy(update={"backend": resolve_pdf_backend(settings)})
        task = _remote(_parse_whole, settings.ingest.max_retries)
        ref = task.remote(path.read_bytes(), kind, parsing_settings, file_name)
        parsed, crops, node = gather([ref], lambda index, out: None)[0]
        _write_crops(artifacts_dir, crops)
        self.nodes.append(("parse", node))
        return parsed

    def embed_passages(self, settings: Settings, texts: list[str], progress: Callable[[int, int], None]) -> np.ndarray:
        embedder = select_embedder(settings)
        if not texts:
            return np.zeros((0, embedder.dim), dtype=np.float32)
        ranges = [texts[a:b] for a, b in embed_ranges(len(texts), settings.ingest.embed_batch, cluster_cpus())]
        # resolved here: a node without the BGE-M3 weights must not fall back to another model
        embedding = settings.embedding.model_copy(update={"backend": resolve_backend(settings)})
        task = _remote(_embed_range, settings.ingest.max_retries)
        refs = [task.remote(embedding, part) for part in ranges]
        done = 0

        def arrived(index: int, out: tuple[np.ndarray, str]) -> None:
            nonlocal done
            done += len(ranges[index])
            self.nodes.append(("embed", out[1]))
            progress(done, len(texts))

        vectors = np.concatenate([v for v, _ in gather(refs, arrived)])
        if vectors.shape != (len(texts), embedder.dim):
            raise RuntimeError(f"Ray embedding gave {vectors.shape} for {len(texts)} passages of {embedder.name}")
        return vectors


class RayStageRunner(LocalStageRunner):
    """The stages of a job with a `RayExecutor`; joins the cluster when made (the worker starts)."""

    def __init__(self, settings: Settings) -> None:
        connect(settings)
        self.settings = settings
        self.last: RayExecutor | None = None
        self.checked: set[str] = set()  # nodes known to run this worker's code
        check_nodes(settings, self.checked)

    def executor(self) -> RayExecutor:
        check_nodes(self.settings, self.checked)
        self.last = RayExecutor(self.settings)
        return self.last
