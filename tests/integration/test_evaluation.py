"""Evaluation end to end: two real corpus PDFs ingested into a temp library, dev questions about them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import EVAL_DIR, shared

PDFS = ("en_actuar_coverage_modifications.pdf", "fr_aide_memoire_ACT2008_credibilite_provisionnement.pdf")
PAGE_ONLY = {"pages", "bm25s-pages"}  # engines that rank pages, not parents


@pytest.fixture(scope="module")
def evaluated(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, str, Path]:
    from rag_core.cli.main import main
    from rag_core.config import Settings
    from rag_core.evaluation import load_rows

    questions_file = shared(EVAL_DIR / "dev_questions.jsonl", "the dev question set")
    root = tmp_path_factory.mktemp("evaluation")
    pdf_dir = root / "pdfs"
    pdf_dir.mkdir()
    for name in PDFS:
        shutil.copyfile(corpus_dir / name, pdf_dir / name)
    rows = load_rows(questions_file)
    chosen = [r for r in rows if r.get("pdf") == PDFS[0]][:3] + [r for r in rows if r.get("pdf") == PDFS[1]][:2]
    chosen += [r for r in rows if r.get("type") == "unanswerable"][:1]
    assert len(chosen) == 6
    subset = root / "subset.jsonl"
    subset.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in chosen), encoding="utf-8")
    out = root / "results.json"
    data_dir = root / "data"
    code = main(
        [
            "evaluate",
            "--questions",
            str(subset),
            "--pdf-dir",
            str(pdf_dir),
            "--data-dir",
            str(data_dir),
            "--out",
            str(out),
        ]
    )
    assert code == 0
    default = f"hybrid-{Settings(data_dir=data_dir).retrieval.fusion}"
    return json.loads(out.read_text(encoding="utf-8")), default, data_dir


def test_results_structure(evaluated: tuple[dict, str, Path]) -> None:
    results, default, _ = evaluated
    assert results["default_engine"] == default
    assert results["n_questions"] == 6 and results["n_answerable"] == 5
    assert set(results["engines"]) == {
        "lexical",
        "dense",
        "pages",
        "dense-other-language",
        "translated",
        "hybrid-parents",
        "hybrid-children",
        "answer-pages",
        "parent-pages",
        "bm25s-pages",
    }
    assert sorted(results["ingestion"]["pdfs"]) == sorted(PDFS)
    assert not results["ingestion"]["refused"]
    versions = results["versions"]
    assert versions["packages"]["lancedb"] != "absent" and versions["embedder"] and versions["settings_signature"]
    assert set(results["by_language"]) == {"en", "fr"}
    # the chosen questions are asked in their PDF's language: one group, with doc@3 among its measures
    assert {row["language_match"] for row in results["questions"]} == {"same language"}
    assert set(results["by_language_match"]) == {"same language"}
    assert results["by_language_match"]["same language"][default]["n"] == 5
    assert 0.0 <= results["by_language_match"]["same language"][default]["doc@3"]["mean"] <= 1.0
    assert default not in results["paired_vs_default"] and "lexical" in results["paired_vs_default"]
    for row in results["questions"]:
        for engine in results["engines"]:
            run = row["engines"][engine]
            assert len(run["ranked_pages"]) <= 100
            assert all(set(p) == {"pdf", "page"} and p["pdf"] in PDFS for p in run["ranked_pages"])
            if engine not in PAGE_ONLY:
                assert len(run["top_parents"]) <= 3
            if row["answerable"]:
                rank = run["first_relevant_rank"]
                assert rank is None or 1 <= rank <= 100
            else:
                assert run["metrics"] is None


def test_metrics_lie_in_unit_interval(evaluated: tuple[dict, str, Path]) -> None:
    results, default, _ = evaluated
    for engine, summary in results["summary"].items():
        for name in ("hit@1", "hit@3", "hit@5", "mrr", "ndcg@10", "recall@10", "recall@100"):
            ci = summary[name]
            assert 0.0 <= ci["low"] <= ci["mean"] <= ci["high"] <= 1.0, (engine, name, ci)
        if engine not in PAGE_ONLY:
            assert 0.0 <= summary["quote_in_top3"]["mean"] <= 1.0
            assert summary["context_tokens"]["mean"] > 0
    refusal = results["summary"][default]["refusal"]
    assert refusal["n_unanswerable"] == 1
    assert 0.0 <= refusal["false_refusals"] <= 1.0
    # a search space of two PDFs: the right document is easy, every engine should find the pages within 100
    assert results["summary"][default]["recall@100"]["mean"] > 0.5


def test_second_run_reuses_the_library(evaluated: tuple[dict, str, Path], corpus_dir: Path, tmp_path: Path) -> None:
    from rag_core.access import Principal
    from rag_core.config import Settings
    from rag_core.evaluation import ensure_ingested

    _, _, data_dir = evaluated
    pdf_dir = tmp_path / "pdfs"
    pdf_dir.mkdir()
    shutil.copyfile(corpus_dir / PDFS[0], pdf_dir / PDFS[0])
    info = ensure_ingested(pdf_dir, Settings(data_dir=data_dir), principal=Principal.local_operator())
    assert info["ingested_now"] == []


def test_evaluate_page_renders_results(evaluated: tuple[dict, str, Path]) -> None:
    from streamlit.testing.v1 import AppTest

    results, _, _ = evaluated
    app = (
        Path(__file__).resolve().parents[2] / "rag_app" / "app.py"
    )  # pages run through app.py's navigation and sign-in
    at = AppTest.from_file(str(app), default_timeout=60)
    at.session_state["evaluate_results"] = results
    at.run()
    at.radio(key="lang").set_value("en")
    at.switch_page("views/evaluate.py").run()
    assert not at.exception
    assert len(at.dataframe) == 2  # summary and per-question tables
    assert "Per question, engine" in [s.label for s in at.selectbox]
    assert any(m.value.startswith("**Same language / cross-lingual**") for m in at.markdown)
    assert any(
        c.value.startswith(f"{results['default_engine']}, same language (5 questions): hit@1") for c in at.caption
    )

    # in French (the default), the tables' columns named by rag_core (in English, for its CLI) are translated
    fr = AppTest.from_file(str(app), default_timeout=60)
    fr.session_state["evaluate_results"] = results
    fr.run()
    fr.switch_page("views/evaluate.py").run()
    assert not fr.exception
    summary, per_question = (list(frame.value.columns) for frame in fr.dataframe)
    assert "moteur" in summary and "hit@1 IC 95 %" in summary and "engine" not in summary
    assert "rang de la 1re page pertinente" in per_question and "first relevant rank" not in per_question


def test_summary_prints_the_language_breakdown(evaluated: tuple[dict, str, Path]) -> None:
    from rag_core.evaluation import summary_text

    results, default, _ = evaluated
    assert f"{default}, same language (5 questions): hit@1 " in summary_text(results)
