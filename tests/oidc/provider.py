"""A small OpenID Connect provider FOR THE TESTS ONLY, on 127.0.0.1 (Starlette + Authlib's JOSE library).

It speaks the authorization-code flow that Streamlit's `st.login` (Authlib's client) uses:
discovery, an HTML sign-in form that a browser fills, PKCE S256, client_secret_basic/post,
RS256 id tokens with nonce, a JWKS, userinfo and end_session. Users, passwords and groups come
from a JSON file. It keeps no sign-in session: every login shows the form (like prompt=login),
so "sign out, sign in as someone else" needs no provider-side logout.

Never use it for anything but tests: no persistence, no rate limits, secrets in a test file.

    python -m tests.oidc.provider --port 8765 --users users.json --client-id ID --client-secret S
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import html
import json
import secrets
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from joserfc import jwt  # Authlib's JOSE library (a dependency of Authlib >= 1.6)
from joserfc.jwk import RSAKey
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

FORM = """<!doctype html><html><head><title>Test OIDC provider: sign in</title></head><body>
<h1>Test OIDC provider</h1><p>Sign in to {client}</p>
<form method="post" action="/authorize">{hidden}
<label>Email <input name="username" id="username" autocomplete="off"></label>
<label>Password <input name="password" id="password" type="password"></label>
<button type="submit" id="submit">Sign in</button></form>{error}</body></html>"""
CARRIED = ("client_id", "redirect_uri", "state", "nonce", "scope", "code_challenge", "code_challenge_method")


def _s256(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def create_app(issuer: str, users: dict[str, dict[str, Any]], client_id: str, client_secret: str) -> Starlette:
    key = RSAKey.generate_key(2048, parameters={"kid": "test-key", "use": "sig", "alg": "RS256"})
    codes: dict[str, dict[str, Any]] = {}
    tokens: dict[str, str] = {}  # access token -> user

    def claims_of(user: str) -> dict[str, Any]:
        info = users[user]
        return {
            "sub": user,
            "email": user,
            "email_verified": True,
            "name": info.get("name", user),
            "groups": list(info.get("groups", [])),
        }

    async def discovery(request: Request) -> Response:
        return JSONResponse(
            {
                "issuer": issuer,
                "authorization_endpoint": f"{issuer}/authorize",
                "token_endpoint": f"{issuer}/token",
                "jwks_uri": f"{issuer}/jwks",
                "userinfo_endpoint": f"{issuer}/userinfo",
                "end_session_endpoint": f"{issuer}/end_session",
                "response_types_supported": ["code"],
                "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"],
                "scopes_supported": ["openid", "email", "profile"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
                "claims_supported": ["sub", "email", "name", "groups"],
            }
        )

    async def jwks(request: Request) -> Response:
        return JSONResponse({"keys": [key.as_dict(private=False)]})

    def form(params: dict[str, str], error: str = "") -> Response:
        hidden = "".join(f'<input type="hidden" name="{k}" value="{html.escape(params.get(k, ""))}">' for k in CARRIED)
        body = FORM.format(
            client=html.escape(params.get("client_id", "")),
            hidden=hidden,
            error=f'<p id="error">{html.escape(error)}</p>' if error else "",
        )
        return HTMLResponse(body, status_code=401 if error else 200)

    async def authorize(request: Request) -> Response:
        params = dict(request.query_params) if request.method == "GET" else dict(await request.form())
        if params.get("client_id") != client_id:
            return Response("unknown client", status_code=400)
        if request.method == "GET":
            if params.get("response_type") != "code":
                return Response("only response_type=code", status_code=400)
            return form(params)
        user = str(params.get("username", "")).strip()
        if user not in users or not secrets.compare_digest(str(params.get("password", "")), users[user]["password"]):
            return form(params, "Wrong email or password.")
        code = secrets.token_urlsafe(24)
        codes[code] = {"user": user, **{k: params.get(k, "") for k in CARRIED}, "at": time.time()}
        return RedirectResponse(
            f"{params['redirect_uri']}?{urlencode({'code': code, 'state': params.get('state', '')})}", status_code=302
        )

    def client_ok(request: Request, form_data: dict[str, str]) -> bool:
        auth = request.headers.get("authorization", "")
        if auth.lower().startswith("basic "):
            from urllib.parse import unquote

            cid, _, secret = base64.b64decode(auth[6:]).decode().partition(":")
            return unquote(cid) == client_id and secrets.compare_digest(unquote(secret), client_secret)
        return form_data.get("client_id") == client_id and secrets.compare_digest(
            form_data.get("client_secret", ""), client_secret
        )

    async def token(request: Request) -> Response:
        data = {k: str(v) for k, v in (await request.form()).items()}
        if not client_ok(request, data):
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        grant = codes.pop(data.get("code", ""), None)
        if grant is None or data.get("grant_type") != "authorization_code" or time.time() - grant["at"] > 120:
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        if data.get("redirect_uri") != grant["redirect_uri"]:
            return JSONResponse({"error": "invalid_grant", "error_description": "redirect_uri"}, status_code=400)
        if grant["code_challenge"] and _s256(data.get("code_verifier", "")) != grant["code_challenge"]:
            return JSONResponse({"error": "invalid_grant", "error_description": "PKCE"}, status_code=400)
        now = int(time.time())
        claims = {
            "iss": issuer,
            "aud": client_id,
            "iat": now,
            "exp": now + 600,
            "auth_time": now,
            **claims_of(grant["user"]),
        }
        if grant["nonce"]:
            claims["nonce"] = grant["nonce"]
        id_token = jwt.encode({"alg": "RS256", "kid": "test-key"}, claims, key)
        access = secrets.token_urlsafe(24)
        tokens[access] = grant["user"]
        return JSONResponse(
            {
                "access_token": access,
                "token_type": "Bearer",
                "expires_in": 600,
                "id_token": id_token,
                "scope": grant["scope"],
            }
        )

    async def userinfo(request: Request) -> Response:
        user = tokens.get(request.headers.get("authorization", "")[7:])
        return JSONResponse(claims_of(user)) if user else JSONResponse({"error": "invalid_token"}, status_code=401)

    async def end_session(request: Request) -> Response:
        target = request.query_params.get("post_logout_redirect_uri")
        return RedirectResponse(target, status_code=302) if target else HTMLResponse("<p>Signed out.</p>")

    async def health(request: Request) -> Response:
        return Response("ok")

    return Starlette(
        routes=[
            Route("/.well-known/openid-configuration", discovery),
            Route("/jwks", jwks),
            Route("/authorize", authorize, methods=["GET", "POST"]),
            Route("/token", token, methods=["POST"]),
            Route("/userinfo", userinfo),
            Route("/end_session", end_session),
            Route("/health", health),
        ]
    )


def main() -> None:
    import uvicorn  # comes with Streamlit

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--users", type=Path, required=True, help="JSON {email: {password, name, groups}}")
    parser.add_argument("--client-id", required=True)
    parser.add_argument("--client-secret", required=True)
    args = parser.parse_args()
    users = json.loads(args.users.read_text(encoding="utf-8"))
    app = create_app(f"http://127.0.0.1:{args.port}", users, args.client_id, args.client_secret)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
