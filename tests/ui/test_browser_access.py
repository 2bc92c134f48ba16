"""Sign-in and per-collection scope in a real headless Chromium, in each auth mode.

- OIDC: a test OpenID Connect provider (tests/oidc/provider.py) on 127.0.0.1 and `streamlit run
  app.py` with RAG_AUTH__MODE=oidc. Before anyone signs in, every page opened by its address on
  the freshly started server shows only the sign-in screen. Alice (group "reserving", read on
  the "reserving" collection) and Bob (manager of "solvency") sign in through the provider's
  form; each sees only their collection on Library, Inspect, Ask (citations and viewer), Search
  and Evaluate; Alice cannot upload into nor delete from a collection she only reads; Bob cannot
  grant Alice's group "reserving" (he is not in it), grants the group "solvency-readers" they
  share read on "solvency" on the Access page, Alice's next question cites it, Bob revokes, it is
  gone; signing out ends Alice's access.
- header: identity from request headers, honoured with RAG_AUTH__TRUST_PROXY_HEADERS and
  ignored without it.
- local: every page opened by its address on a fresh server runs through the navigation
  (translated names, language switch), as the local operator.

The two documents are ingested before the app starts, as the local operator, and the grants
are set through the façade: the browser checks what the pages show, not the ingestion.
Screenshots go to test-artifacts/access/ (gitignored).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import nullcontext
from pathlib import Path

import pytest

from tests.ui import browser_support
from tests.ui.browser_support import CHROMIUM, REPO, VIEWER_IFRAME, launch, rerun, start_app, stop_app

ARTIFACTS = REPO / "test-artifacts" / "access"
USERS = {
    "alice@example.com": {"password": "alice-pw", "name": "Alice", "groups": ["reserving", "solvency-readers"]},
    "bob@example.com": {"password": "bob-pw", "name": "Bob", "groups": ["risk", "solvency-readers"]},
}
DOCS = {  # file name -> (collection, title, paragraphs)
    "reserving_note.pdf": (
        "reserving",
        "Claims reserving note",
        [
            "The chain ladder method projects cumulative paid claims with age-to-age development factors.",
            "The Mack model gives the standard error of the outstanding claims reserve estimated by chain ladder.",
        ],
    ),
    "solvency_note.pdf": (
        "solvency",
        "Solvency capital note",
        [
            "The solvency capital requirement is calibrated to the value-at-risk of basic own funds.",
            "The confidence level of that value-at-risk is 99.5 percent over a one-year period.",
        ],
    ),
}
RESERVING_Q = "What does the Mack model give?"
SOLVENCY_Q = "How is the solvency capital requirement calibrated?"
PAGES = ["", "library", "inspect", "ask", "search", "evaluate", "access"]
NAV_FR = ["Accueil", "Bibliothèque", "Inspection", "Questions", "Test de recherche", "Évaluation"]

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is absent (apt-get install chromium)")


def _make_pdf(path: Path, title: str, paragraphs: list[str]) -> Path:
    import pymupdf

    with pymupdf.open() as doc:
        page = doc.new_page()
        page.insert_text((72, 90), title, fontsize=18)
        y = 130
        for text in paragraphs:
            page.insert_textbox(pymupdf.Rect(72, y, 520, y + 60), text, fontsize=11)
            y += 70
        doc.set_metadata({"title": title})
        doc.save(path)
    return path


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir with one document in each collection; Alice's group reads "reserving", Bob manages "solvency"."""
    from rag_core import pipeline
    from rag_core.access import Principal
    from rag_core.config import Settings

    root = tmp_path_factory.mktemp("access")
    settings = Settings(data_dir=root / "data")
    admin = Principal.local_operator()
    for name, (collection, title, paragraphs) in DOCS.items():
        pdf = _make_pdf(root / name, title, paragraphs)
        [result] = pipeline.ingest([pdf], settings, collection=collection, principal=admin)
        assert result.status == "ingested", result.message
    pipeline.grant(settings, "reserving", principal=admin, group="reserving", role="read")
    pipeline.grant(settings, "solvency", principal=admin, user="bob@example.com", role="manage")
    return root / "data"


@pytest.fixture
def new_page():
    """Pages in separate browser contexts (separate cookies: separate people)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch(pw)

        def make(headers: dict[str, str] | None = None):
            context = browser.new_context(viewport={"width": 1500, "height": 1000}, extra_http_headers=headers or {})
            return context.new_page()

        yield make
        browser.close()


def shot(page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def goto(page, url: str, heading: str) -> None:
    """Open `url`, wait for the script run of that page load, then for its heading. Every
    Streamlit page goes through here: `rerun` counts the runs of the websockets opened after it
    first saw the page."""
    browser_support.goto(page, url)
    page.get_by_role("heading", name=heading).first.wait_for(timeout=30_000)


def grid_cell(page, text: str, timeout_ms: int = 30_000) -> None:
    """Until a dataframe grid or a table (the Library's documents) holds a cell reading `text`: the grid
    mirrors its cells in an accessible table that it keeps out of sight, hence "attached" rather than visible."""
    cells = page.locator('[data-testid="stDataFrame"] [data-testid^="glide-cell-"], [data-testid="stTable"] td')
    cells.filter(has_text=text).first.wait_for(state="attached", timeout=timeout_ms)


def main_text(page) -> str:
    return page.locator('[data-testid="stMain"]').inner_text()


def nav_text(page) -> str:
    nav = page.locator('[data-testid="stSidebarNav"]')
    return nav.inner_text() if nav.count() else ""


def selectbox_options(page, label: str) -> list[str]:
    """The options of a selectbox, read from its open list (called once the page's run is over)."""
    page.get_by_role("combobox", name=label, exact=True).click()
    listbox = page.get_by_role("listbox")
    listbox.get_by_role("option").first.wait_for(timeout=10_000)
    found: list[str] = []
    for _ in range(300):  # a busy machine renders the list's texts after its first option (over 10 s once, in a full
        # run on two cores): read until they are there, within the minute the page's other waits allow
        found = [text.strip() for text in listbox.get_by_role("option").all_inner_texts() if text.strip()]
        if found:
            break
        page.wait_for_timeout(200)
    page.keyboard.press("Escape")
    listbox.wait_for(state="detached", timeout=10_000)
    return found


def pick(page, label: str, option: str) -> None:
    """Choose `option` in a selectbox outside a form. A new value runs the script, which is waited
    for; picking the value already shown runs nothing."""
    from playwright.sync_api import expect

    combobox = page.get_by_role("combobox", name=label, exact=True)  # its input holds the value shown
    changes = combobox.input_value() != option
    combobox.click()
    with rerun(page) if changes else nullcontext():
        page.get_by_role("option", name=option).click()
    expect(combobox).to_have_value(option, timeout=10_000)


def ask(page, question: str) -> list[str]:
    """Ask on the Ask page; returns the labels of the citation cards of the new answer."""
    before = page.locator('[data-testid="stChatMessage"]').count()
    chat = page.locator('[data-testid="stChatInputTextArea"]')
    chat.fill(question)
    with rerun(page, 180_000):
        chat.press("Enter")
    answer = page.locator('[data-testid="stChatMessage"]').nth(before + 1)
    # the answer is done when it shows its citation cards, or says that nothing answers
    answer.locator("button").or_(answer.get_by_text("Aucun passage des documents")).first.wait_for(timeout=10_000)
    return [b.inner_text() for b in answer.locator("button").all()]


def sign_in(page, url: str, user: str, screenshot: str = "") -> None:
    goto(page, url, "Connexion")
    page.get_by_role("button", name="Se connecter").click()  # st.login: off to the provider's own form
    page.locator("#username").wait_for(timeout=30_000)
    page.fill("#username", user)
    page.fill("#password", USERS[user]["password"])
    if screenshot:
        shot(page, screenshot)
    # The provider's pages are not Streamlit: back at the app (its callback redirects to the home
    # page, on a new websocket), the run to wait for is the home page's.
    with rerun(page):
        page.click("#submit")
        page.wait_for_url(lambda address: address.startswith(url) and "oauth2callback" not in address, timeout=60_000)
    page.get_by_text(f"Connecté : {user}").wait_for(timeout=10_000)


# ---------------------------------------------------------------- OIDC


@pytest.fixture
def oidc_app(library: Path, tmp_path: Path) -> Iterator[str]:
    from tests.oidc.harness import start_provider, write_secrets

    provider, issuer, client_secret = start_provider(USERS, tmp_path / "oidc")
    secrets_file = write_secrets(tmp_path / "secrets.toml", issuer, client_secret)
    try:
        proc, url = start_app(
            library,
            ARTIFACTS / "streamlit-oidc.log",
            env={"RAG_AUTH__MODE": "oidc"},
            args=["--secrets.files", str(secrets_file)],
        )
        yield url
        stop_app(proc)
    finally:
        provider.kill()
        provider.wait(timeout=10)


def test_oidc_users_see_only_their_collections_and_grants_change_that(oidc_app: str, new_page) -> None:
    pages: list = []

    def opened(headers: dict[str, str] | None = None):
        pages.append(new_page(headers))
        return pages[-1]

    try:
        _oidc_journey(oidc_app, opened)
    except Exception:
        for n, page in enumerate(pages):
            shot(page, f"99_failure_{n}")
        raise


def _oidc_journey(url: str, new_page) -> None:
    anonymous = new_page()
    # A fresh server, every address first: nothing but the sign-in screen, no navigation, no data.
    for path in PAGES:
        goto(anonymous, f"{url}/{path}", "Connexion")
        anonymous.get_by_role("button", name="Se connecter").wait_for(timeout=30_000)
        text = main_text(anonymous)
        assert "Se connecter" in text and not nav_text(anonymous), path
        assert "reserving_note" not in text and "solvency_note" not in text, path
    shot(anonymous, "00_sign_in")

    alice = new_page()
    sign_in(alice, url, "alice@example.com", "00_provider_form")
    assert all(name in nav_text(alice) for name in NAV_FR) and "Accès" not in nav_text(alice)

    # Library: her document only; no upload into nor delete from a collection she only reads.
    goto(alice, f"{url}/library", "Bibliothèque")
    grid_cell(alice, "reserving_note.pdf")
    shot(alice, "01_alice_library")
    assert selectbox_options(alice, "Collection") == ["Nouvelle collection…"]
    assert "Vous ne gérez aucune de ces collections" in main_text(alice)
    assert not alice.get_by_text("Supprimer un document").count()

    # Inspect: only her document can be picked.
    goto(alice, f"{url}/inspect", "Inspection d'un document")
    assert [o.split(" (")[0] for o in selectbox_options(alice, "Document")] == ["reserving_note.pdf"]

    # Ask: her document is cited and opens in the viewer; the other collection is never cited.
    goto(alice, f"{url}/ask", "Poser une question")
    cards = ask(alice, RESERVING_Q)
    assert any("Claims reserving note" in c for c in cards), cards
    with rerun(alice):
        alice.locator('[data-testid="stChatMessage"] button').filter(has_text="Claims reserving note").first.click()
    alice.frame_locator(VIEWER_IFRAME).locator("canvas").first.wait_for(timeout=60_000)
    cards = ask(alice, SOLVENCY_Q)
    assert not any("Solvency" in c for c in cards), cards

    # Search and Evaluate: nothing of the other collection.
    goto(alice, f"{url}/search", "Test de la recherche")
    alice.get_by_label("Question").fill("solvency capital requirement value-at-risk")  # a form field: no run yet
    with rerun(alice):
        alice.get_by_role("button", name="Rechercher").click()
    alice.get_by_text(" sections en ").first.wait_for(timeout=10_000)  # the search's result is shown
    assert "solvency_note" not in main_text(alice)
    goto(alice, f"{url}/evaluate", "Évaluation de la recherche")
    assert "solvency_note" not in main_text(alice)

    # Bob manages "solvency": he sees it (and can delete from it), and shares it with Alice's group.
    bob = new_page()
    sign_in(bob, url, "bob@example.com")
    goto(bob, f"{url}/library", "Bibliothèque")
    assert "solvency" in selectbox_options(bob, "Collection")
    assert bob.get_by_text("Supprimer un document").count() == 1
    goto(bob, f"{url}/access", "Accès")
    bob.get_by_text("groupe", exact=True).first.click()  # form fields: no run until the form is submitted
    bob.get_by_label("E-mail de l'utilisateur ou nom du groupe").fill("reserving")  # a group he is not in
    with rerun(bob):
        bob.get_by_role("button", name="Accorder").click()
    bob.get_by_text("membre du groupe « reserving »").wait_for(timeout=10_000)  # the library's refusal, in French
    bob.get_by_text("groupe", exact=True).first.click()
    bob.get_by_label("E-mail de l'utilisateur ou nom du groupe").fill("solvency-readers")  # his own
    with rerun(bob):
        bob.get_by_role("button", name="Accorder").click()
    bob.get_by_text("accordé à solvency-readers sur solvency").wait_for(timeout=10_000)
    grid_cell(bob, "solvency-readers")  # the collection's grants list the new one
    shot(bob, "02_bob_access")

    goto(alice, f"{url}/ask", "Poser une question")
    cards = ask(alice, SOLVENCY_Q)
    assert any("Solvency capital note" in c for c in cards), cards

    goto(bob, f"{url}/access", "Accès")
    pick(bob, "Droit à retirer", "groupe solvency-readers (lecture)")
    with rerun(bob):
        bob.get_by_role("button", name="Retirer").click()
    bob.get_by_text("retiré").wait_for(timeout=10_000)
    cards = ask(alice, SOLVENCY_Q + " Again?")
    assert not any("Solvency" in c for c in cards), cards

    # Sign-out ends access: every address is the sign-in screen again.
    alice.get_by_role("button", name="Se déconnecter").click()
    alice.get_by_role("heading", name="Connexion").wait_for(timeout=60_000)
    goto(alice, f"{url}/library", "Connexion")
    assert "reserving_note" not in main_text(alice)


# ---------------------------------------------------------------- header and local


def test_header_mode_trusts_the_proxy_headers_only_when_told(library: Path, new_page, tmp_path: Path) -> None:
    env = {"RAG_AUTH__MODE": "header", "RAG_AUTH__TRUST_PROXY_HEADERS": "true"}
    proc, url = start_app(library, ARTIFACTS / "streamlit-header.log", env=env)
    try:
        bob = new_page({"X-Forwarded-Email": "bob@example.com", "X-Forwarded-Groups": "risk"})
        for path, heading in [
            ("library", "Bibliothèque"),
            ("ask", "Poser une question"),
            ("", "Questions-réponses sur vos documents"),
        ]:
            goto(bob, f"{url}/{path}", heading)  # fresh server, the page's own address first
            assert "Connecté : bob@example.com" in bob.locator('[data-testid="stSidebar"]').inner_text()
        goto(bob, f"{url}/inspect", "Inspection d'un document")
        assert [o.split(" (")[0] for o in selectbox_options(bob, "Document")] == ["solvency_note.pdf"]
        nobody = new_page()
        browser_support.goto(nobody, f"{url}/library")
        nobody.get_by_text("Le proxy n'a pas indiqué qui vous êtes").wait_for(timeout=60_000)
        assert "solvency_note" not in main_text(nobody) and not nav_text(nobody)
    finally:
        stop_app(proc)

    proc, url = start_app(library, ARTIFACTS / "streamlit-header-untrusted.log", env={"RAG_AUTH__MODE": "header"})
    try:
        forged = new_page({"X-Forwarded-Email": "bob@example.com", "X-Forwarded-Groups": "risk"})
        browser_support.goto(forged, f"{url}/library")
        forged.get_by_text("les en-têtes d'identité sont ignorés").wait_for(timeout=120_000)
        assert "solvency_note" not in main_text(forged) and not nav_text(forged)
    finally:
        stop_app(proc)


def test_local_mode_every_page_by_its_address_on_a_fresh_server(library: Path, new_page) -> None:
    proc, url = start_app(library, ARTIFACTS / "streamlit-local.log")
    try:
        page = new_page()
        headings = {
            "": "Questions-réponses sur vos documents",
            "library": "Bibliothèque",
            "inspect": "Inspection d'un document",
            "ask": "Poser une question",
            "search": "Test de la recherche",
            "evaluate": "Évaluation de la recherche",
            "access": "Accès",
        }
        for path in [*PAGES[1:], ""]:  # "/" last: each page is opened by its own address first
            goto(page, f"{url}/{path}", headings[path])
            nav = nav_text(page)
            assert all(name in nav for name in NAV_FR + ["Accès"]), (path, nav)
            assert (
                "mode local : vous voyez tous les documents" in page.locator('[data-testid="stSidebar"]').inner_text()
            )
        with rerun(page):
            page.get_by_text("English").click()
        page.get_by_role("heading", name="Question answering on your documents").wait_for(timeout=30_000)
        assert "Evaluate" in nav_text(page) and "Library" in nav_text(page)
        with rerun(page):
            page.locator('[data-testid="stSidebarNav"]').get_by_text("Evaluate").click()  # same session: still English
        page.get_by_role("heading", name="Evaluate retrieval").wait_for(timeout=60_000)
    finally:
        stop_app(proc)
