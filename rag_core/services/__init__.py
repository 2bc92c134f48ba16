"""The library as one principal may use it: what the flows above share, below all of them.

`connection` (one LanceDB connection per library and process, its schema checked once), `permissions`
(the access rules: readable scope, the checks before bytes, grants, the audit trail), `scoping` (a
question's or a search's scope and what the audit records of it), `rechecks` (scope checked again on
what was produced earlier), `conversations` (a user's stored answers) and `documents` (the document
verbs: list, read, open, export, delete). The question flow (`rag_core.question`), the ingestion
verbs, the upload queue's worker (`rag_core.jobs`), the evaluation and the façade (`rag_core.pipeline`)
call these modules; none of them imports any of those (the import-direction test holds it). This
`__init__` imports nothing, so importing one module loads only what that module needs.
"""
