"""Streamlit's AppTest runs a page as `sys.modules["__main__"]` and leaves it there when the run ends; a process
that a later test starts with multiprocessing's spawn method would then run that page again before its own work
(multiprocessing re-runs a script `__main__` in each child). tests/conftest.py puts the test process's own
`__main__` back after every test: the two tests below run in order in one process (a test file runs whole in one
process) and the second fails without it."""

from __future__ import annotations

import sys

from streamlit.testing.v1 import AppTest

OWN_MAIN = sys.modules["__main__"]  # read when the file is collected, before any test of this process runs


def test_an_app_run_leaves_its_page_as_main() -> None:
    AppTest.from_string("import streamlit as st\nst.write('a page')").run()
    assert sys.modules["__main__"] is not OWN_MAIN  # Streamlit's behaviour, which the fixture undoes
    assert getattr(sys.modules["__main__"], "__spec__", None) is None and sys.modules["__main__"].__file__


def test_the_next_test_has_the_test_process_main_again() -> None:
    assert sys.modules["__main__"] is OWN_MAIN
