"""The viewer and the words of the pages, in a real headless Chromium against one real app process.

A generated three-page report (`quote_pages_pdf.py`): its section 2 runs over pages 1 and 2 and the
sentence that answers QUESTION is printed low on page 2; page 3 holds a payments table. The tests run
in file order on one app: the first sees the library empty; the report is then ingested by the real
pipeline into the app's data dir. Checked: a citation opens the quote's own page and lands on its
first highlighted box (in the viewer's viewport), drawn in one style; a figure's cell is drawn within
its table in a second style under a legend; a new answer closes the previous citation; the French
page shows no English (refusal, details, forms, audit table, date field) and the English page no
French, whatever the question's language. Screenshots go to test-artifacts/quote_viewer/ (gitignored).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ui.browser_support import (
    CHROMIUM,
    REPO,
    VIEWER_IFRAME,
    ask,
    goto,
    launch,
    open_expander,
    open_home,
    rerun,
    start_app,
    stop_app,
    viewer_settled,
)
from tests.ui.quote_pages_pdf import NUMBER, QUESTION, TABLE_QUESTION, make_pdf

ARTIFACTS = REPO / "test-artifacts" / "quote_viewer"
REFUSED = "How does the report treat French business?"  # English, with an explanation's cue ("how")
REFUSED_FR = "Pourquoi le rapport ne parle-t-il pas de la TSCA ?"  # French, with an explanation's cue
# Never on a French page: rag_core's English sentences, Streamlit's English hints, stored audit values.
ENGLISH = (
    r"None of the documents",
    r"you can access",
    r"explanation:",
    r"the question contains",
    r"\bPress\b",
    r"submit form",
    r"\byyyy\b",
    r"\bTrue\b",
    r"\bFalse\b",
    r"\[\]",
    r"\bchannel\b",
    r"\bgroups\b",
    r"\bevent\b",
    r"\bsign_in\b",
    r"candidate_k\)",
    r"\bParents\b",
)
# Never on an English page: the French of the same places.
FRENCH = (
    r"Aucun des documents",
    r"explication",
    r"la question contient",
    r"Réponse cherchée",
    r"Méthode :",
    r"Signaler",
    r"Commentaire",
    r"Cadre rouge",
    r"événement",
    r"\boui\b",
)

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is absent (apt-get install chromium)")


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    root = tmp_path_factory.mktemp("quote-viewer")
    proc, url = start_app(root / "data", ARTIFACTS / "streamlit.log")
    yield url, root
    stop_app(proc)


@pytest.fixture(scope="module")
def library(app: tuple[str, Path]) -> str:
    """The app once the report is ingested into its data dir (the real pipeline, as the local operator)."""
    from rag_core import pipeline
    from rag_core.access import Principal
    from rag_core.config import Settings

    url, root = app
    pdf = make_pdf(root / "valuation_report.pdf")
    (result,) = pipeline.ingest([pdf], Settings(data_dir=root / "data"), principal=Principal.local_operator())
    assert result.status == "ingested", result.message
    return url


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = launch(pw)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1500, "height": 1000})
    yield context.new_page()
    context.close()


def shot(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def found(patterns: tuple[str, ...], text: str) -> list[str]:
    return [p for p in patterns if re.search(p, text)]


# The box lies inside the viewer's window and inside every scrolling box around it.
IN_VIEW = """e => {
  const r = e.getBoundingClientRect();
  if (!(r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight)) return false;
  for (let p = e.parentElement; p; p = p.parentElement) {
    if (/(auto|scroll)/.test(getComputedStyle(p).overflowY)) {
      const q = p.getBoundingClientRect();
      if (r.top < q.top || r.bottom > q.bottom) return false;
    }
  }
  return true;
}"""


# What the page shows: its text nodes drawn with a size (Streamlit's English texts that a style hides
# and replaces with our own, as the date field's empty parts in French, are not shown).
VISIBLE_TEXT = """root => {
  const out = [];
  const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const p = n.parentElement;
    const s = p && getComputedStyle(p);
    if (!p || !p.getClientRects().length || s.fontSize === "0px" || s.visibility === "hidden") continue;
    out.push(n.textContent);
  }
  return out.join(" ");
}"""
# The date field as shown: each empty part's replacement text where a style hides Streamlit's own.
SHOWN_DATE = """e => [...e.querySelectorAll('[role="spinbutton"]')].map(s =>
  getComputedStyle(s).fontSize === "0px" ? getComputedStyle(s, "::after").content.replaceAll('"', "") : s.textContent
).join("/")"""


def shown(page) -> str:  # type: ignore[no-untyped-def]
    return page.locator('[data-testid="stApp"]').evaluate(VISIBLE_TEXT)


def outlines(frame, prefix: str) -> set[str]:
    return set(frame.locator(f'[id^="annotation-{prefix}"]').evaluate_all("els => els.map(e => e.style.outline)"))


def test_search_on_an_empty_library_says_so_and_points_to_the_library(app: tuple[str, Path], page) -> None:
    url, _ = app
    open_home(page, url)
    goto(page, f"{url}/search")
    page.get_by_text("il n'y a rien à rechercher").wait_for(timeout=10_000)
    page.get_by_role("link", name="Aller à la Bibliothèque").wait_for(timeout=10_000)
    # the method's words are folded: the sliders' labels are the user's
    assert "candidate_k" not in shown(page)


def test_a_citation_lands_on_its_quote_in_one_style_and_a_new_answer_closes_it(library: str, page) -> None:
    try:
        _citations(library, page)
    except Exception:
        shot(page, "99_citations_failure")
        raise


def _citations(url: str, page) -> None:
    open_home(page, url)
    goto(page, f"{url}/ask")
    answer = ask(page, QUESTION)
    card = answer.locator("button").filter(has_text="p.").first
    card.wait_for(timeout=10_000)
    label = card.inner_text().strip()
    # the section runs over p. 1-2, the quote is on p. 2: the card names the quote's own page, whole
    assert label.endswith("p. 2"), label
    clipped = card.locator("p").first.evaluate(
        "e => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1"
    )
    assert not clipped, f"the card's label is cut: {label!r}"
    with rerun(page):
        card.click()
    frame = viewer_settled(page, '[id^="annotation-cite-"]')
    # the viewer lands on the quote: its first box is in view, though it is printed low on the page
    first = frame.locator('[id^="annotation-cite-"]').first
    first.wait_for(timeout=10_000)
    frame_handle = page.locator(VIEWER_IFRAME).first.element_handle().content_frame()
    frame_handle.wait_for_function(
        f"() => ({IN_VIEW})(document.querySelector('[id^=\"annotation-cite-\"]'))", timeout=20_000
    )
    assert page.get_by_text("Page(s) affichée(s) : 2").count() == 1
    # the quote alone is tinted, in one style
    assert frame.locator('[id^="annotation-"]').count() == frame.locator('[id^="annotation-cite-"]').count() >= 1
    assert len(outlines(frame, "cite-")) == 1
    shot(page, "01_quote_in_view")

    # a new answer closes the citation opened under the previous one
    answer = ask(page, TABLE_QUESTION)
    assert page.locator(VIEWER_IFRAME).count() == 0, "the previous citation's page is still open"
    # a figure's cell: drawn within its table, in a second style, named by a legend
    chip = answer.locator("button").filter(has_text=re.compile(rf"^{NUMBER}$")).first
    with rerun(page):
        chip.click()
    frame = viewer_settled(page, '[id^="annotation-cite-"]')
    cell, table = outlines(frame, "cite-"), outlines(frame, "ctx-")
    assert len(cell) == 1 and len(table) == 1 and cell != table, (cell, table)
    assert frame.locator('[id^="annotation-cite-"]').count() == 1  # the cell alone in the first style
    assert page.get_by_text("Cadre rouge : la cellule d'où vient le chiffre").count() == 1
    shot(page, "02_cell_with_legend")


def test_the_page_language_decides_every_message(library: str, page) -> None:
    try:
        _words(library, page)
    except Exception:
        shot(page, "99_words_failure")
        raise


def _details(message) -> str:  # type: ignore[no-untyped-def]
    """The text of a chat message with its search details unfolded."""
    message.get_by_text(re.compile("^(Détails de la recherche|Search details)$")).click()
    message.get_by_text(re.compile("^(Méthode :|Method:)")).wait_for(timeout=10_000)
    return message.inner_text()


def _words(url: str, page) -> None:
    open_home(page, url)
    goto(page, f"{url}/ask")
    with rerun(page):
        page.get_by_role("button", name="Nouvelle conversation").click()
    ask(page, QUESTION)  # an answer with citations, hence a report form
    # a question written in English, refused on the French page: said in French, details included
    refusal = ask(page, REFUSED)
    text = _details(refusal)
    assert "ne mentionne « French »" in text and "explication : la question contient « how »" in text, text
    assert "sections les plus proches" in text and not found(ENGLISH, text), found(ENGLISH, text)
    # the report form of an earlier answer, written in: no English keyboard hint
    open_expander(page.get_by_text("Signaler une citation erronée").first, page.get_by_label("Commentaire").first)
    page.get_by_label("Commentaire").first.fill("La page citée ne correspond pas.")
    assert "provisions · p. 2" in shown(page)  # the citation to report is named by its quote's page too
    page.wait_for_timeout(300)  # the field's hint, if any, is drawn as one types
    assert not found(ENGLISH, shown(page)), found(ENGLISH, shown(page))
    shot(page, "03_french_ask")

    goto(page, f"{url}/search")
    page.get_by_label("Question").fill("risk margin")
    page.wait_for_timeout(300)
    assert not found(ENGLISH, shown(page)), found(ENGLISH, shown(page))

    goto(page, f"{url}/access")
    grid = page.locator('[data-testid="stDataFrame"]').last
    cells = grid.locator('[data-testid^="glide-cell-"]')  # the grid's accessible mirror of its cells
    cells.filter(has_text="question posée").first.wait_for(state="attached", timeout=30_000)
    audit = " | ".join(cells.all_text_contents())
    assert "application" in audit and "oui" in audit and "(opérateur local)" in audit, audit[:400]
    assert not found(ENGLISH, audit), found(ENGLISH, audit)
    assert page.locator('[data-testid="stDateInput"]').first.evaluate(SHOWN_DATE) == "jj/mm/aaaa"
    assert not found(ENGLISH, shown(page)), found(ENGLISH, shown(page))
    page.get_by_label("Utilisateur").fill("alice")  # a text field outside a form, being written in
    page.wait_for_timeout(300)
    assert not found(ENGLISH, shown(page)), found(ENGLISH, shown(page))
    shot(page, "04_french_access")

    # the English page: the same answers (a French-written reason included) in English, nothing French
    # the language is the session's: chosen in the sidebar, the pages reached through the navigation
    with rerun(page):
        page.locator('[data-testid="stSidebar"]').get_by_text("English").click()
    nav = page.locator('[data-testid="stSidebarNav"]')
    with rerun(page):
        nav.get_by_role("link", name="Ask").click()
    messages = page.locator('[data-testid="stChatMessage"]')
    messages.last.wait_for(timeout=30_000)
    text = _details(messages.last)
    assert "mentions 'French'" in text and "explanation: the question contains “how”" in text, text
    # a question written in French, refused on the English page: rag_core writes French, the page English
    text = _details(ask(page, REFUSED_FR))
    assert "mentions 'TSCA'" in text and "explanation: the question contains “pourquoi”" in text, text
    assert not found(FRENCH, shown(page)), found(FRENCH, shown(page))
    with rerun(page):
        nav.get_by_role("link", name="Access").click()
    cells = page.locator('[data-testid="stDataFrame"]').last.locator('[data-testid^="glide-cell-"]')
    cells.filter(has_text="question asked").first.wait_for(state="attached", timeout=30_000)
    audit = " | ".join(cells.all_text_contents())
    assert not found(FRENCH, audit + shown(page)), found(FRENCH, audit + shown(page))
    shot(page, "05_english_access")
