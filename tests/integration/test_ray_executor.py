"""The Ray executor on a real two-node Ray cluster (one CPU each), inside a network namespace that only
has loopback: the scenario (`tests/ray_support/scenario.py`) starts the nodes, runs the jobs through a
real `Worker`, stops the nodes and prints what it found; these tests read it.

One cluster start serves every check (Ray's start-up is the slow part on two cores). Without root or
`unshare`, the tests are skipped with the reason (a failure under CI=true).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CI
from tests.ray_support.cluster import in_loopback_namespace, namespace_problem

# 12 pages (3 page batches) with one figure crop: the batches spread over both nodes
PDF = "en_EIOPA_guidelines_LAC_technical_provisions_deferred_taxes.pdf"


@pytest.fixture(scope="module")
def outcome(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    problem = namespace_problem()
    if problem is not None:
        if CI:
            pytest.fail(f"the Ray tests cannot run: {problem}", pytrace=False)
        pytest.skip(f"the Ray tests need a loopback-only network namespace: {problem}")
    work = tmp_path_factory.mktemp("ray")
    done = in_loopback_namespace("tests.ray_support.scenario", str(corpus_dir / PDF), str(work), "6380")
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0 and lines, done.stderr[-3000:]
    result = json.loads(lines[-1])
    assert "error" not in result, result["error"]
    result["stdout"] = done.stdout
    return result


def test_a_job_run_on_ray_gives_the_document_a_local_run_gives(outcome: dict[str, Any]) -> None:
    local, same = outcome["local"], outcome["same"]
    assert local["state"] == "done" and same["state"] == "done"
    assert same["documents"] == local["documents"] and len(local["documents"]) == 1
    assert same["children"] > 0 and same["same_children"] and same["same_parents"]
    assert same["same_texts"] and same["texts"] > 0
    assert same["vectors_close"]
    # the figure crop was written by the worker from the bytes a task returned, under the local name
    assert same["crops"] == ["page0001-picture01.png"] and same["same_crops"]


def test_the_page_batches_and_the_embedding_ran_on_both_nodes(outcome: dict[str, Any]) -> None:
    assert len(outcome["cluster_nodes"]) == 2
    assert outcome["same"]["parse_nodes"] == outcome["cluster_nodes"]
    # fewer passages than one embedding batch still keep both CPUs busy: one range per CPU
    assert outcome["same"]["embed_nodes"] == outcome["cluster_nodes"]


def test_a_node_lost_in_the_middle_of_a_job_still_gives_the_document_once(outcome: dict[str, Any]) -> None:
    lost = outcome["node_lost"]
    assert lost["killed_after_pages"], "the second node was never killed"
    assert lost["state"] == "done", lost["error"]
    assert lost["documents"] == outcome["local"]["documents"]  # one row, the local run's children count
    assert lost["same_children"]


def test_a_refusal_raised_in_a_task_reaches_the_worker_as_itself(outcome: dict[str, Any]) -> None:
    # the worker shows a RagError's message to the user: not Ray's wrapper with a traceback
    assert outcome["task_error"] == {"type": "InputError", "message": "Page 3 cannot be read."}


def test_a_file_without_page_batches_is_parsed_whole_in_one_task(outcome: dict[str, Any]) -> None:
    whole = outcome["whole"]
    assert whole["state"] == "done", whole["error"]
    assert whole["parse_tasks"] == 1
    assert whole["children"] > 0 and whole["same_children"] and whole["same_parents"] and whole["same_texts"]
    assert whole["vectors_close"]


def test_nodes_running_other_code_are_refused(outcome: dict[str, Any]) -> None:
    other = outcome["other_code"]
    assert other["agreed"] == 2  # the same checkout on both nodes: no refusal
    assert other["refused"].startswith("BackendUnavailable: The Ray cluster at 127.0.0.1:")
    assert "another version of the code on 2 node(s)" in other["refused"]
