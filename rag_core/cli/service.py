"""Command-line verbs of the library as a service: `api` (the REST, OpenAI-compatible and MCP
HTTP server, with uvicorn), `mcp` (the MCP server over stdio, as the token in RAG_API_TOKEN) and
`tokens create|list|revoke` (personal API tokens, as the app's page does, for `--as-user`)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rag_core.cli.common import principal_of, settings_of


def cmd_api(args: argparse.Namespace) -> int:
    import uvicorn

    from rag_core import storage
    from rag_core.access import exposure_refusal
    from rag_core.api import create_app

    settings = settings_of(args)
    address = args.address or settings.api.address
    port = args.port or settings.api.port
    if exposure_refusal(settings, address) == "local":
        print(
            f"refused: local mode makes the local operator's tokens administrators; the API listens on 127.0.0.1 "
            f"only in this mode, not on {address}.",
            file=sys.stderr,
        )
        return 2
    storage.require_available(settings)
    print(f"api: http://{address}:{port} (OpenAPI at /docs, MCP at /mcp)", flush=True)
    uvicorn.run(create_app(settings), host=address, port=port, log_level="warning", access_log=False)
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    from rag_core.api.mcp_server import run_stdio

    run_stdio(settings_of(args))
    return 0


def cmd_tokens(args: argparse.Namespace) -> int:
    from rag_core import pipeline

    settings = settings_of(args)
    principal = principal_of(args, settings)
    if args.action == "create":
        token, info = pipeline.create_api_token(settings, args.name or "", principal=principal, days=args.days)
        note = f"{token}\n(shown once; until {info['expires_at']})"
        shown = json.dumps({"token": token, **info}) if args.json else note
        print(shown)
    elif args.action == "revoke":
        pipeline.revoke_api_token(settings, args.id or "", principal=principal)
        print(f"{args.id}: revoked")
    else:
        rows = pipeline.list_api_tokens(settings, principal=principal)
        for row in rows:
            state = "expired" if row["expired"] else f"until {row['expires_at']}"
            print(f"{row['id']}  {row['user']:<28} {row['name']:<20} {state}")
    return 0


def add_service_commands(add: Any) -> None:
    p = add("api", cmd_api, "run the REST, OpenAI-compatible and MCP (HTTP) server")
    p.add_argument("--address", help="default: RAG_API__ADDRESS (127.0.0.1)")
    p.add_argument("--port", type=int, help="default: RAG_API__PORT (8502)")
    add("mcp", cmd_mcp, "run the MCP server over stdio, as the token in RAG_API_TOKEN")
    p = add("tokens", cmd_tokens, "personal API tokens: create NAME, list, revoke ID")
    p.add_argument("action", choices=["create", "list", "revoke"])
    p.add_argument("--name", help="what the new token is for")
    p.add_argument("--days", type=int, help="lifetime of the new token (default: RAG_API__TOKEN_DAYS)")
    p.add_argument("--id", help="the token to revoke")
    p.add_argument("--json", action="store_true")
