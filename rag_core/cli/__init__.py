"""The command line, one package: `main` (the parser and the exit codes) and one module per group of
commands (see `rag_core.cli.main`); what every command shares in `common`. `python -m rag_core`
(`rag_core/__main__.py`) only calls `rag_core.cli.main.main`.
"""
