"""The API's contract as a generated client reads it, and its browsable page.

`/openapi.json` says what the server does: every route of `/api` and `/v1` needs a bearer token
(the `bearerAuth` security scheme), every refusal is `{"error": {"message", "type", "status"}}`
with its real status (400 for a body that is not valid, never FastAPI's 422 `{detail}`), and the
main routes' answers are typed (`rag_core.api.schemas`). `/docs` is Swagger UI served from the
`fastapi-offline` package's copy of its script and style: it works on a machine without internet.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.openapi.utils import get_openapi
from fastapi.staticfiles import StaticFiles
from starlette.requests import Request
from starlette.responses import HTMLResponse

from rag_core.api.schemas import ErrorBody

ASSETS = "/docs-assets"
SCHEME = "bearerAuth"
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "The request is not valid (body, parameters, names)"},
    401: {"model": ErrorBody, "description": "No valid personal token (`Authorization: Bearer <token>`)"},
    403: {"model": ErrorBody, "description": "The token's user may not do this"},
    404: {"model": ErrorBody, "description": "Nothing you may read has this name or id"},
    413: {"model": ErrorBody, "description": "The body is larger than this route accepts"},
    429: {"model": ErrorBody, "description": "Too many requests with this token (see Retry-After)"},
    503: {"model": ErrorBody, "description": "The model endpoint or the library is unavailable"},
}


def _assets_dir() -> Path:
    import fastapi_offline

    return Path(fastapi_offline.__file__).parent / "static"


def _contract(app: FastAPI) -> dict[str, Any]:
    """The generated document, made truthful: bearer scheme, no 422, the error schema kept."""
    if app.openapi_schema is not None:
        return app.openapi_schema
    doc = get_openapi(
        title=app.title, version=app.version, summary=app.summary, description=app.description, routes=app.routes
    )
    components = doc.setdefault("components", {})
    components.setdefault("securitySchemes", {})[SCHEME] = {
        "type": "http",
        "scheme": "bearer",
        "description": "A personal API token (`rag_...`), created on the app's API tokens page.",
    }
    for path, item in doc.get("paths", {}).items():
        for operation in item.values():
            operation.get("responses", {}).pop("422", None)
            for response in operation.get("responses", {}).values():
                for media in response.get("content", {}).values():
                    schema = media.get("schema", {})
                    if "$ref" in schema:  # the documented model, not merged with the handler's `dict`
                        media["schema"] = {"$ref": schema["$ref"]}
            if path.startswith(("/api/", "/v1/")):
                operation["security"] = [{SCHEME: []}]
    schemas = components.get("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        schemas.pop(name, None)
    app.openapi_schema = doc
    return doc


def install(app: FastAPI) -> None:
    """The truthful `/openapi.json` and the offline `/docs` (create the app with `docs_url=None`)."""
    app.openapi = lambda: _contract(app)  # type: ignore[method-assign]
    app.mount(ASSETS, StaticFiles(directory=_assets_dir()), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def docs(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_swagger_ui_html(
            openapi_url=f"{root}{app.openapi_url}",
            title=f"{app.title} - Swagger UI",
            swagger_js_url=f"{root}{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{root}{ASSETS}/favicon.png",
            swagger_ui_parameters={"persistAuthorization": True, "validatorUrl": None},
        )
