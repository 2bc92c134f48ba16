"""The command line's verbs, by group: `access` and `audit` in `cli.access`, `search` and `ask` in
`cli.questions`, what every command shares (settings, principal, progress) in `cli.common`.
`rag_core.__main__` builds the parser from them and holds the library's own verbs; the upload
queue's are in `rag_core.jobs.cli`.
"""
