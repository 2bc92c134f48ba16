"""Speed, memory and quality figures, each a script run as a module from the repository root
(`.venv/bin/python -m benchmarks.ingest`): `rag_core` as installed, the test helpers (`tests.`) and the
other benchmarks importable by name."""
