"""The app's pages, one file each, run as scripts by `app.py`'s `st.navigation` (never imported by it).
A package so that the installed product holds them beside `ui`."""
