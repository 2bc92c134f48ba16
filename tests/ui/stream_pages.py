"""The Ask and Evaluate pages driven over the raw websocket (tests/ui/stream_client.py), for the
access tests of their downloads: a question asked and one of its citations reported (the report is
what makes the Ask page draw its export button), and an evaluation run on the reported citations.
Each helper returns the client after the run that drew the download button."""

from __future__ import annotations

from pathlib import Path

from streamlit.proto.Common_pb2 import ChatInputValue
from streamlit.proto.WidgetStates_pb2 import WidgetState

from tests.ui.stream_client import StreamClient, text_value, trigger

ASK_EXPORT = "Exporter les signalements (JSONL)"
EVALUATE_DOWNLOAD = "Télécharger results.json"


def ask(client: StreamClient, question: str) -> StreamClient:
    """`question` sent through the Ask page's chat input; returns once the answer is drawn."""
    chat = next(e.chat_input for e in client.run("ask").elements if e.WhichOneof("type") == "chat_input")
    return client.run("ask", [WidgetState(id=chat.id, chat_input_value=ChatInputValue(data=question))])


def ask_and_report(client: StreamClient, question: str, comment: str = "wrong page") -> StreamClient:
    """`question` asked, then the answer's first citation reported with `comment` (the report form
    submitted as the browser submits it: its widgets' values and the submit button's trigger)."""
    ask(client, question)
    assert "Enregistrer le signalement" in client.text(), "the answer has no report form (no citation?)"
    comment_id = client.widget_id("text_area", "Commentaire")
    send = client.widget_id("button", "Enregistrer le signalement")
    client.run("ask", [text_value(comment_id, comment), trigger(send)])
    assert "Signalement enregistré." in client.text(), "the report was not saved"
    assert ASK_EXPORT in client.downloads(), "no export button after the report"
    return client


def evaluate_reported(client: StreamClient, pdf_dir: Path) -> StreamClient:
    """An administrator's evaluation of the reported citations over the PDFs of `pdf_dir` (those
    of the library: nothing to ingest); returns once the results and their download are drawn."""
    client.run("evaluate")
    source = WidgetState(id=client.widget_id("radio", "Jeu de questions"), string_value="Citations signalées")
    folder = next(w.id for w in client.of_kind("text_input") if w.label.startswith("Dossier des PDF"))
    run = client.widget_id("button", "Lancer")
    client.run("evaluate", [source])  # the reported set chosen: the run button is enabled
    client.run("evaluate", [source, text_value(folder, str(pdf_dir)), trigger(run)])
    assert EVALUATE_DOWNLOAD in client.downloads(), "no results to download"
    return client
