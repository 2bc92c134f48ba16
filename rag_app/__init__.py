"""The Streamlit app, shipped as one package beside `rag_core`: the entry page (`rag_app/app.py`),
the pages (`rag_app/views/`), their helpers and strings (`rag_app/ui/`) and the static assets
(`rag_app/assets/`: logo, style sheet). `python -m rag_core serve` finds `app.py` through this
package's import spec, so an installed copy serves from any working directory.

The pages live in `views/`, never `pages/`: Streamlit runs a `pages/` folder beside the entry
script as bare pages, skipping the sign-in gate in `app.py`."""
