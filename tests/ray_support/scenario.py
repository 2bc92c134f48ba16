"""The Ray executor's scenarios on a real two-node cluster; run inside a loopback-only namespace
(`cluster.in_loopback_namespace`), prints one JSON object on its last line of stdout.

    python -m tests.ray_support.scenario PDF WORKDIR PORT

1. `same`: the PDF queued and run by a `Worker` with the local executor, then by one with the
   Ray executor, each into its own library; their chunks, vectors, document texts and crop
   files are compared, and the nodes that ran the Ray tasks are listed.
2. `task_error`: a task raising a `RagError` gives that error to the worker, as itself.
   `whole`: a Markdown file (no page batches) parsed as one task gives the local run's document.
   `other_code`: both nodes agree with the worker's code fingerprint; a worker with another is refused.
3. `node_lost`: the same with Ray into a third library, the second node killed (its process
   group) as soon as the first page batch is back; the job must still end with the document
   written once, as many children as the local run.
"""

from __future__ import annotations

import json
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

import numpy as np

from tests.ray_support.cluster import Cluster


def ingest(pdf: Path, data_dir: Path, address: str | None, on_event: Any = None, made: Any = None) -> tuple[Any, Any]:
    """Queue `pdf` through the façade and run the worker loop until the queue is empty."""
    from rag_core import pipeline
    from rag_core.access import Principal
    from rag_core.config import Settings
    from rag_core.jobs import Worker

    ingest_settings = {"executor": "ray", "ray_address": address} if address else {}
    settings = Settings(data_dir=data_dir, parsing={"workers": 1}, ingest=ingest_settings)
    job = pipeline.submit_upload(pdf.read_bytes(), pdf.name, settings, principal=Principal.local_operator())
    worker = Worker(settings, on_event=on_event)
    if made is not None:
        made(worker)
    runs = 0
    while worker.run_once():
        runs += 1
    return settings, {"job": worker.table.get(job.id), "runs": runs, "worker": worker}


def outputs(settings: Any, doc_id: str) -> dict[str, Any]:
    from rag_core.models import Chunked
    from rag_core.parsing.files import load_document
    from rag_core.storage import document_folder

    folder = document_folder(settings, doc_id)
    chunked = Chunked.model_validate_json(folder.chunks_json.read_text())
    doc = load_document(folder.document_json)
    crops = sorted(p.name for p in folder.artifacts.iterdir()) if folder.artifacts.is_dir() else []
    crop_bytes = {name: (folder.artifacts / name).read_bytes() for name in crops}
    return {
        "children": [c.model_dump_json() for c in chunked.children],
        "parents": [p.model_dump_json() for p in chunked.parents],
        "vectors": np.load(folder.vectors),
        "texts": [t.text for t in doc.texts],
        "crops": crop_bytes,
    }


def compare(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    return {
        "children": len(a["children"]),
        "same_children": a["children"] == b["children"],
        "same_parents": a["parents"] == b["parents"],
        "same_texts": a["texts"] == b["texts"],
        "texts": len(a["texts"]),
        "vectors_close": bool(
            a["vectors"].shape == b["vectors"].shape and np.allclose(a["vectors"], b["vectors"], atol=1e-5)
        ),
        "crops": sorted(a["crops"]),
        "same_crops": a["crops"] == b["crops"],
    }


def documents(settings: Any) -> list[dict[str, Any]]:
    from rag_core.services.connection import open_store

    return [{"doc_id": r.doc_id, "children": r.children} for r in open_store(settings).documents()]


def _refuse() -> None:
    from rag_core.errors import InputError

    raise InputError("Page 3 cannot be read.")


def task_error() -> dict[str, Any]:
    """What a task raising a `RagError` gives the worker: that error, with its own message."""
    import ray

    from rag_core.jobs.ray_runner import gather

    try:
        gather([ray.remote(_refuse).options(max_retries=0).remote()], lambda index, result: None)
    except Exception as err:
        return {"type": type(err).__name__, "message": str(err)}
    return {"type": None}


MARKDOWN = """# Provisions techniques

## Méthode Chain Ladder

Les facteurs de développement sont estimés sur le triangle des paiements cumulés.

## Tail factor

A tail factor of 1.05 extends the pattern beyond the last development year.
"""


def whole_file(work: Path, address: str) -> dict[str, Any]:
    """A file without page batches (Markdown, Docling's simple backend): one parse task on Ray gives the
    document the local run gives."""
    source = work / "provisions.md"
    source.write_text(MARKDOWN, encoding="utf-8")
    local, run = ingest(source, work / "md-local", None)
    doc_id = run["job"].doc_id
    on_ray, run = ingest(source, work / "md-ray", address)
    executor = run["worker"].runner.last
    done = run["job"].state == "done"
    return {
        "state": run["job"].state,
        "error": f"{run['job'].error} {run['job'].message}",
        "parse_tasks": sum(1 for stage, _ in executor.nodes if stage == "parse"),
        **(compare(outputs(local, doc_id), outputs(on_ray, doc_id)) if done else {}),
    }


def other_code(work: Path, address: str) -> dict[str, Any]:
    """A worker whose code differs from the nodes' is refused before a task runs (its fingerprint
    replaced here; the nodes compute theirs from their own files)."""
    from rag_core.config import Settings
    from rag_core.jobs import ray_runner

    settings = Settings(data_dir=work / "fingerprint", ingest={"executor": "ray", "ray_address": address})
    agreed: set[str] = set()
    ray_runner.check_nodes(settings, agreed)
    real = ray_runner.code_fingerprint
    ray_runner.code_fingerprint = lambda: "0" * 16  # type: ignore[assignment]
    try:
        ray_runner.check_nodes(settings, set())
        refused = ""
    except Exception as err:
        refused = f"{type(err).__name__}: {err}"
    finally:
        ray_runner.code_fingerprint = real  # type: ignore[assignment]
    return {"agreed": len(agreed), "refused": refused}


def scenario(pdf: Path, work: Path, cluster: Cluster) -> dict[str, Any]:
    result: dict[str, Any] = {}
    local, run = ingest(pdf, work / "local", None)
    doc_id = run["job"].doc_id
    result["local"] = {"state": run["job"].state, "documents": documents(local)}
    on_ray, run = ingest(pdf, work / "ray", cluster.address)
    executor = run["worker"].runner.last
    import ray

    result["cluster_nodes"] = sorted(n["NodeID"] for n in ray.nodes() if n["Alive"])
    result["same"] = {
        "state": run["job"].state,
        "documents": documents(on_ray),
        "parse_nodes": sorted({node for stage, node in executor.nodes if stage == "parse"}),
        "embed_nodes": sorted({node for stage, node in executor.nodes if stage == "embed"}),
        **compare(outputs(local, doc_id), outputs(on_ray, doc_id)),
    }

    result["task_error"] = task_error()
    result["whole"] = whole_file(work, cluster.address)
    result["other_code"] = other_code(work, cluster.address)
    killed: list[int] = []
    head = ray.get_runtime_context().get_node_id()  # the worker (a Ray driver) joined the head node

    def kill_other_node(job: Any, event: Any) -> None:
        # once a batch came back from the head, the other node still holds one (running or its output)
        nodes = lost_worker[0].runner.last.nodes if lost_worker else []
        if event.stage == "parse" and not killed and nodes and nodes[-1] == ("parse", head):
            Cluster.kill(cluster.other)
            killed.append(event.done)

    lost_worker: list[Any] = []
    lost, run = ingest(pdf, work / "lost", cluster.address, on_event=kill_other_node, made=lost_worker.append)
    result["node_lost"] = {
        "state": run["job"].state,
        "error": run["job"].error,
        "killed_after_pages": killed,
        "runs": run["runs"],
        "attempts": run["job"].attempts,
        "documents": documents(lost),
        "same_children": outputs(lost, doc_id)["children"] == outputs(local, doc_id)["children"]
        if run["job"].state == "done"
        else False,
    }
    return result


def main(pdf: str, workdir: str, port: str) -> int:
    work = Path(workdir)
    temp = Path(tempfile.mkdtemp(prefix="ray", dir="/tmp"))  # short: Ray's socket paths are limited
    cluster = None
    out: dict[str, Any] = {}
    try:
        cluster = Cluster(int(port), temp)
        out = scenario(Path(pdf), work, cluster)
    except Exception:
        out = {"error": traceback.format_exc()[-3000:]}
    finally:
        if cluster is not None:
            cluster.stop(keep_logs="error" in out)
    print(json.dumps(out, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
