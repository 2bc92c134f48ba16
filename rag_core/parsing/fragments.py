"""Lines the layout takes for headings that cannot name a section: pieces of sentences and bylines.

A section's name opens with a capital, a number or a label, and stands on its own. The layout
model boxes as "section-header" any short line set apart, so a sentence's continuation line
("puis on applique...", "Comme", "~ with"), a formula's tail or a paper's author line under its
title ("Thomas Mack") became section names that every passage below them was cited under. The
rules here follow from what a name is, not from those strings:

- it does not open with a lowercase letter (a sentence's next line does);
- it does not open with a symbol other than an opening quote or bracket, a bullet before a number
  or the section sign ("~ with", "= 0,5", "→ donc" are a formula's or a sentence's pieces);
- it is not one grammatical word alone (an article, a preposition, a conjunction, a pronoun, a
  connective adverb: closed classes of English and French), nor does it end with an article, a
  conjunction or a preposition that needs what follows ("Estimation de", "Results and"), nor with
  a comma;
- on the first page, under the title and before the first paragraph, a line of two to four
  name-shaped words ("Thomas Mack", "J. Smith", "Marie-Claire de Vries") is the author's byline.

A numbered or labelled line ("2.3 où l'on...", "Guideline 12 – ...") and a line that spells an
outline entry stay headings whatever they look like: the PDF itself declares them.
"""

from __future__ import annotations

import re

# closed classes: articles, prepositions, conjunctions, pronouns, connective adverbs (English, French)
FUNCTION_WORDS = frozenset(
    """
    a an the this that these those some any each every no
    of to in on at by for with from into onto upon about above below over under between among
    through during before after without within against towards toward via per than as like
    and or nor but so yet if then else when while where whereas whether because since although though
    unless until once hence thus therefore however moreover furthermore also too either neither
    i you he she it we they me him her us them my your his its our their which who whom whose what
    is are was were be been being has have had do does did not
    le la les l un une des du de d au aux ce cet cette ces
    à a en dans par pour sur sous avec sans chez entre vers depuis pendant avant après contre selon
    et ou ni mais donc or car puis ensuite alors ainsi comme si quand lorsque lorsqu puisque
    parce quoique bien cependant toutefois pourtant néanmoins sinon soit aussi encore déjà
    je tu il elle on nous vous ils elles me te se lui leur leurs y qui que qu quoi dont où
    son sa ses mon ma mes ton ta tes notre nos votre vos
    est sont était être été a ont avait avoir ne pas plus
    """.split()
)
# words a title cannot end with: an article, a conjunction or a preposition waiting for its noun (English
# titles may end with other prepositions: "What to rely on")
OPEN_ENDINGS = frozenset(
    """
    the a an of and or nor but
    le la les l un une des du de d au aux et ou ni mais à en par pour sur avec sans dans entre que qu
    """.split()
)
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_OPENERS = "«“‘\"'([{§"
_BULLETED_NUMBER = re.compile(r"^[•‣◦▪●○■□➢➤►▶]\s*\d")
_NAME_WORD = re.compile(r"^(?:[A-ZÀ-Ý][a-zà-ÿ]+(?:[-’'][A-ZÀ-Ý]?[a-zà-ÿ]+)*|[A-Z]\.(?:-?[A-Z]\.)?)$")
_NAME_PARTICLES = frozenset({"de", "du", "des", "van", "von", "der", "den", "da", "di", "le", "la", "del"})


def _words(text: str) -> list[str]:
    return [w.lower().replace("’", "'") for w in _WORD.findall(text)]


def sentence_fragment(text: str) -> bool:
    """The heading text is a piece of a sentence or formula, not a section's name (module docstring)."""
    text = text.strip()
    if not text:
        return True
    first = text[0]
    if first.islower():
        return True
    if not first.isalnum() and first not in _OPENERS and not _BULLETED_NUMBER.match(text):
        return True
    if text.endswith(","):
        return True
    words = _words(text)
    if not words:
        return False  # a number or a code alone: the numbering rules decide
    if len(words) == 1:  # one word: a grammatical one is no name ("A", "B" alone are an index's letters)
        bare = words[0].split("'")[-1]
        alone = not re.search(r"\d", text) and len(words[0]) > 1
        return alone and (words[0] in FUNCTION_WORDS or bare in FUNCTION_WORDS)
    printed = _WORD.findall(text)[-1]
    if not printed.islower():  # "Exhibit A", "Annexe A": a capital letter that labels, not the article
        return False
    last = words[-1].split("'")[0] if words[-1].endswith("'") else words[-1]
    return last in OPEN_ENDINGS and not re.search(r"[\d)\]]\W*$", text)


def byline(text: str) -> bool:
    """Two to four name-shaped words (capitalised, or initials; particles "de", "van" between them):
    an author's name as printed under a title."""
    words = text.strip().split()
    if not 2 <= len(words) <= 4:
        return False
    named = [w for w in words if w not in _NAME_PARTICLES]
    if len(named) < 2 or not _NAME_WORD.match(words[0]) or not _NAME_WORD.match(words[-1]):
        return False
    return all(_NAME_WORD.match(w) and w.lower() not in FUNCTION_WORDS for w in named)
