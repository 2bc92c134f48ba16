"""`moto_server` whose conditional writes are atomic, as S3's are: run as `python tests/moto_atomic.py -H HOST -p PORT`.

moto checks `If-None-Match: *` and `If-Match` by reading the key, then writes it: two requests served on two of its
threads at once can both pass the check, and the second write replaces the first. LanceDB commits a table version
with `If-None-Match: *` on the version's manifest, so two commits racing for the same version both "succeed" and the
first is lost (a queued job vanished from the job table once, on a loaded machine, in the two-servers test). S3
itself decides such a request atomically. Here every conditional write (a put, or the completion of a multipart
upload, that carries either header) holds one lock from its check to its write; other requests run as before.

Environment, for this module's own test only (tests/integration/test_moto_atomic.py):
- `MOTO_TEST_WRITE_DELAY_S`: sleep that long inside each conditional write, between moto's check and its store,
  so that a race is certain instead of rare;
- `MOTO_TEST_UNLOCKED=1`: no lock, i.e. moto as released, to show that the race is real.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading
import time
from typing import Any

from moto.s3.models import S3Backend
from moto.s3.responses import S3Response
from moto.server import main

_LOCK = threading.Lock()
_DELAY_S = float(os.environ.get("MOTO_TEST_WRITE_DELAY_S") or 0)
_LOCKED = os.environ.get("MOTO_TEST_UNLOCKED") != "1"
_CONDITIONAL = threading.local()


def _conditional(response: S3Response) -> bool:
    headers = response.headers or {}
    return bool(headers.get("If-None-Match") or headers.get("If-Match"))


def _atomic(handler: Any) -> Any:
    @functools.wraps(handler)
    def run(self: S3Response, *args: Any, **kwargs: Any) -> Any:
        if not _conditional(self):
            return handler(self, *args, **kwargs)
        _CONDITIONAL.on = True
        try:
            with _LOCK if _LOCKED else contextlib.nullcontext():
                return handler(self, *args, **kwargs)
        finally:
            _CONDITIONAL.on = False

    return run


def _delayed(store: Any) -> Any:
    @functools.wraps(store)
    def run(*args: Any, **kwargs: Any) -> Any:
        if _DELAY_S and getattr(_CONDITIONAL, "on", False):
            time.sleep(_DELAY_S)  # after moto's check of the condition, before its write
        return store(*args, **kwargs)

    return run


S3Response.put_object = _atomic(S3Response.put_object)  # type: ignore[method-assign]
S3Response._key_response_post = _atomic(S3Response._key_response_post)  # type: ignore[method-assign]
S3Backend.put_object = _delayed(S3Backend.put_object)  # type: ignore[method-assign]

if __name__ == "__main__":
    main(sys.argv[1:])
