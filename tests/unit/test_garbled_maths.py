"""`garbled_maths`: text whose mathematics the PDF's text layer garbled is recognised by the signs the
garbling leaves (not by a list of strings); prose, tables of figures and clean formulas never are."""

from __future__ import annotations

import pytest

from rag_core.text import garbled_maths

GARBLED = {
    "replacement character": "E \ufffdCij | Ci1, . . . , Ci(j−1)\ufffd = λj Ci(j−1)",
    "control code of a TeX delimiter": "(2) E \x02 Cij | Ci1, . . . , Ci(j−1) \x03 = λj",
    "negation slash split from its equals sign": "(Ci′j)j=1,...,J sont indépendants pour i\u0338 = i′",
    "negation slash, no space": "niqni −1 i pi Y k\u0338=i k=1,...,a qnk k",
    "placeholder boxes": "Model 4: □ w , d □ c",
    "raw display maths": "the mean $$S¯i = 1 ∑ Sit$$ over the periods",
    "a fraction read in a row": "the weight is given by\n$$w = m m + H (3)$$",
    "an index and a power read in a row": "$$Xt 2 = a + b Yt$$",
    "label printed over itself": "as shown by Mack [Mac99]Mac99]] the estimator is unbiased",
    "private-use delimiter pieces": "FYP(y) = \uf8f1 \uf8f4 \uf8f2 FX(d) , y = 0",
    "Symbol-font operators": "rows n w , ,2,1 \uf04b \uf03d . For each row w",
}

CLEAN = {
    "French prose": "Le provisionnement non-vie consiste à estimer les montants que l'assureur devra payer "
    "au titre des sinistres déjà survenus. Il y a à cela plusieurs méthodes : Chain Ladder, Mack, Bootstrap.",
    "English prose": "A claims reserving method estimates the outstanding liabilities; I think it is a good one.",
    "subscripted formula": "C_{i,j+1} = f_j C_{i,j}",
    "prediction error": "MSEP = Var + bias²",
    "a composed not-equal sign": "for all i \u2260 j and k = 1, ..., n",
    "a not-equal written as '=' and its slash": "for all i =\u0338 j",  # NFC composes it into '≠'
    "table of figures": "Année 2019 2020 2021\n1 200,5 1 310 2 900\n3 400 -12 -3.5%",
    "bullet glyph before an item": "\uf0b7 first item of the list\n\x88 a rich language for statistics",
    "check boxes of a form": "Options: □ yes □ no",
    "bullets of geometric shapes": "■ Item one\n▪ Item two\n◦ Item three",
    "dollar amounts": "the premium rose from $5 to $10 each",
    "references": "see [Mac99] and [Mac93], [1][2]",
    "an icon in a sentence": "Il est disponible dans le répertoire GitHub suivant \x87.",
    "an icon after a heading": "Crédibilité complète\n\x08\n",
    "LaTeX without operators": "$$x^2$$ is written as in the source",
    "a formula model's markup": "$$w = \\frac{m}{m + H}$$ and $$X_t^2 = a + b Y_t$$",
    "display maths of figures only": "$$1 200 + 300 = 1 500$$",
    "Greek and maths symbols": "Φ−1(p) ≤ α, σ² = E[(X − µ)²], ∑ x_i",
}


@pytest.mark.parametrize("text", GARBLED.values(), ids=GARBLED.keys())
def test_garbled_mathematics_is_recognised(text: str) -> None:
    assert garbled_maths(text)


@pytest.mark.parametrize("text", CLEAN.values(), ids=CLEAN.keys())
def test_prose_tables_and_clean_formulas_are_not(text: str) -> None:
    assert not garbled_maths(text)


def test_one_sign_is_enough_in_a_long_passage() -> None:
    """A passage of prose around one garbled formula is shown as printed: the sign is found anywhere."""
    prose = CLEAN["French prose"]
    assert garbled_maths(f"{prose}\n{GARBLED['negation slash split from its equals sign']}\n{prose}")
    assert not garbled_maths(f"{prose}\n{CLEAN['subscripted formula']}\n{prose}")


def test_an_unmapped_glyph_counts_among_mathematics_only() -> None:
    """The same control code is a garbled delimiter beside a formula and a stray icon in a sentence."""
    assert garbled_maths("la loi \x10 p+1")
    assert not garbled_maths("voir la page suivante \x10 pour le détail")
    assert garbled_maths("le texte r\ufffdsum\ufffd")  # a lost character: always, whatever is around it


def test_empty_text_is_not_garbled() -> None:
    assert not garbled_maths("")
