"""The units an extractive answer quotes whole (`rag_core.answering.units`), on lines written here."""

from __future__ import annotations

from rag_core.answering.announcements import announced_count, announced_items, closing_announcement
from rag_core.answering.evidence import split_sentences
from rag_core.answering.units import CUT_MARK, unit_of, unit_text
from rag_core.models import Parent


def quoted(lines: list[str], line_no: int, sentence: str) -> str | None:
    unit = unit_of(lines, line_no, sentence, split_sentences)
    return None if unit is None else unit_text(lines, unit)


FRENCH = [
    "Provisions techniques",
    "Le calcul suit deux étapes. Les deux approches retenues sont :",
    "- la méthode des cadences de règlement ;",
    "- la méthode du coût moyen.",
    "Le choix dépend des données disponibles.",
]


def test_a_french_sentence_announcing_a_list_comes_with_its_items_only() -> None:
    assert quoted(FRENCH, 1, "Les deux approches retenues sont :") == "\n".join(
        ["Les deux approches retenues sont :", FRENCH[2], FRENCH[3]]
    )  # the sentence before it on the line and the prose after the list stay out


def test_a_chosen_item_is_quoted_with_the_sentence_that_announces_it() -> None:
    assert quoted(FRENCH, 3, FRENCH[3]) == quoted(FRENCH, 1, "Les deux approches retenues sont :")


def test_a_plain_sentence_stays_alone() -> None:
    assert quoted(FRENCH, 4, FRENCH[4]) is None
    assert quoted(FRENCH, 1, "Le calcul suit deux étapes.") is None


NUMBERED = [
    "12. Undertakings should document the method. The following steps apply:",
    "1. collect the data;",
    "2. check it against the accounts.",
    "The review is yearly and covers the",
    "whole portfolio.",
    "13. Undertakings should keep records.",
]


def test_a_numbered_paragraph_runs_to_the_next_number_with_its_numbered_items_and_cut_line() -> None:
    text = quoted(NUMBERED, 0, "Undertakings should document the method.")
    assert text is not None and text.splitlines() == [
        NUMBERED[0],
        NUMBERED[1],
        NUMBERED[2],
    ]  # a prose line after the items ends the paragraph's list


def test_a_line_cut_by_the_page_joins_its_paragraph() -> None:
    lines = ["7. Undertakings should pay attention to whether the", "assumptions hold.", "8. Next one."]
    assert quoted(lines, 0, lines[0]) == "7. Undertakings should pay attention to whether the assumptions hold."


def test_a_numbered_paragraph_the_layout_set_as_a_list_item_is_quoted_from_its_number() -> None:
    lines = [
        "- 144. Two possible methods are:",
        "- consideration of the number of claims;",
        "- case-by-case estimation.",
    ]
    assert quoted(lines, 0, "Two possible methods are:") == "\n".join(["144. Two possible methods are:", *lines[1:]])


def test_a_numbered_title_is_quoted_with_its_paragraphs() -> None:
    lines = ["Guideline 4 – Data quality", "- 20. First rule.", "- 21. Second rule.", "Guideline 5 – Other", "- 22. X."]
    assert quoted(lines, 0, lines[0]) == "\n".join(lines[:3])


def test_a_title_cut_past_its_length_says_so_and_one_quoted_whole_does_not() -> None:
    long = [f"- {n}. " + "Undertakings should assess the data used in the calculation. " * 8 for n in range(30, 36)]
    lines = ["Guideline 9 – Data quality", *long, "Guideline 10 – Other", "- 40. X."]
    text = quoted(lines, 0, lines[0])
    assert text is not None
    kept = text.splitlines()
    assert kept[0] == lines[0] and kept[-1] == CUT_MARK  # the reader is told that more follows
    assert 2 < len(kept) - 1 < len(long) + 1 and kept[1:-1] == [x.strip() for x in long[: len(kept) - 2]]
    short = ["Guideline 4 – Data quality", "- 20. First rule.", "- 21. Second rule.", "Guideline 5 – Other"]
    assert CUT_MARK not in (quoted(short, 0, short[0]) or "")


SLIDE = [
    "Le modèle est très précis. Deux problèmes se posent néanmoins",
    "- 1 La loi de la charge est inaccessible sauf par simulation",
    "- 2 La calibration demande un historique important.",
    "Les moments s'expriment simplement.",
]


def test_a_sentence_ending_without_punctuation_above_items_announces_them() -> None:
    assert quoted(SLIDE, 0, "Deux problèmes se posent néanmoins") == "\n".join(
        ["Deux problèmes se posent néanmoins", SLIDE[1], SLIDE[2]]
    )
    assert quoted(SLIDE, 2, SLIDE[2]) == quoted(SLIDE, 0, "Deux problèmes se posent néanmoins")
    assert quoted(SLIDE, 0, "Le modèle est très précis.") is None  # a finished sentence announces nothing


def test_a_formula_above_an_item_does_not_announce_it() -> None:
    lines = ["r = S'k / Zk ~ + l -- i", "- r 7 = selected premium factor for accident year i", "Next paragraph."]
    assert quoted(lines, 1, lines[1]) is None
    lines = ["1-797", "- 'Gross premium' is the amount before any cession.", "- 'Other' means other."]
    assert quoted(lines, 1, lines[1]) is None  # a page's furniture above a definition list announces nothing


def test_a_sentence_ending_with_a_colon_above_a_paragraph_is_quoted_with_it() -> None:
    lines = [
        "The simplification can be applied per module. With respect to level (3) of the hierarchy:",
        "The risk margin is approximated by the best estimate times a ratio.",
        "Another paragraph follows.",
    ]
    sentence = "With respect to level (3) of the hierarchy:"
    assert quoted(lines, 0, sentence) == "\n".join([sentence, lines[1]])
    # a sentence that only mentions "the following" and ends with a full stop announces nothing here
    plain = ["The following sections describe the method.", "It starts with data."]
    assert quoted(plain, 0, plain[0]) is None
    # what follows the colon is a table row or console output: the sentence is quoted alone
    for below in ("| > [1,] | data(x) state ratio.1 | 1 1738 1642 |", "> data(hachemeister) <- read.csv(f)"):
        assert quoted(["Columns 2-13 contain the claim averages:", below, "Text."], 0,
                      "Columns 2-13 contain the claim averages:") is None  # fmt: skip


def _parent(index: int, path: list[str], text: str = "Some text.") -> Parent:
    return Parent(id=f"d:p{index:04d}", doc_id="d", index=index, heading_path=path, text=text, tokens=3, pages=[1],
                  child_ids=[])  # fmt: skip


def test_the_items_of_a_list_announced_at_a_parent_end_are_its_subsections() -> None:
    annex = ["Annex IV - Simplifications"]
    announcing = _parent(1, annex, "Intro.\nWith respect to level (1) of the hierarchy:")
    sentence = closing_announcement(announcing.text, split_sentences)
    assert sentence == "With respect to level (1) of the hierarchy:"
    following = [_parent(2, [*annex, "Life risk"]), _parent(3, [*annex, "Non-life risk"]), _parent(4, ["Annex V"])]
    assert announced_items(announcing, following, sentence) == following[:2]


def test_a_counted_list_set_as_headings_beside_its_announcement_takes_that_many_parents() -> None:
    team = ["Assurance", "Teams you could join: Internal Audit"]
    announcing = _parent(1, team, "We look deeper.\nWe perform IA support across 4 areas:")
    sentence = closing_announcement(announcing.text, split_sentences)
    assert sentence is not None and announced_count(sentence) == 4
    areas = [_parent(i, ["Assurance", f"Area {i}"]) for i in range(2, 7)]  # a fifth heading: the next team
    assert announced_items(announcing, areas, sentence) == areas[:4]
    # without a count and without subsections, nothing is taken
    assert announced_items(announcing, areas, "We perform IA support across these areas:") == []
    assert announced_count("we begin with an eight year (96-month) triangle:") is None
    assert closing_announcement("A finished sentence.", split_sentences) is None
    assert closing_announcement("Items:\n- one", split_sentences) is None  # its items are in the parent


SCHEDULE = [
    "Leadership learning develops school leaders' capacity to meet the challenges of the system.",
    "Programme Full-Time",
    "Leaders in Education Programme 7 months",
    "Management and Leadership in",
    "Schools Programme 17 weeks",
    "Fees are set each year by the programme office.",
]


def test_a_fragment_of_a_table_set_as_lines_is_quoted_with_its_rows() -> None:
    rows = "\n".join(SCHEDULE[1:5])
    assert quoted(SCHEDULE, 1, SCHEDULE[1]) == rows  # the header row alone said nothing
    assert quoted(SCHEDULE, 3, SCHEDULE[3]) == rows  # a row cut in two: the header above it comes too
    assert quoted(SCHEDULE, 0, SCHEDULE[0]) is None  # a sentence is quoted alone, as before


def test_a_fragment_of_words_only_is_no_table_and_a_heading_comes_with_its_paragraph() -> None:
    slide = [
        "Introduction Analyse du provisionnement Méthodes Conclusion",  # a slide's navigation bar
        "Modèle de Mack",
        "Le modèle de Mack est basé sur les hypothèses d'indépendance des années de survenance.",
    ]
    assert quoted(slide, 1, slide[1]) == "\n".join(slide[1:])  # the heading with its paragraph, not the bar
    assert quoted(slide[:2], 1, slide[1]) is None  # nothing to quote it with: alone


def test_an_item_that_announces_a_formula_is_quoted_with_the_formula() -> None:
    """A quote never ends on an announcement: the display formula under « celle de Whitney : » comes too."""
    lines = [
        "La crédibilité partielle donne une prime linéaire de la forme π = zS + (1 − z)m",
        "- ∠ Plusieurs formules ont été proposées, on retient celle de Whitney :",
        "$$z = n n + K (5)$$",
        "- ∠ Dans l'approche de stabilité, on met de côté la précision.",
    ]
    text = quoted(lines, 1, "Plusieurs formules ont été proposées, on retient celle de Whitney :")
    assert text is not None and text.splitlines()[-1] == lines[2]
    assert not text.rstrip().endswith(":") and lines[3] not in text
    alone = ["Le facteur retenu est celui de Whitney :", "$$z = n n + K$$", "Suite du texte."]
    assert quoted(alone, 0, alone[0]) == "\n".join(alone[:2])  # a sentence alone on its line: the same


HIERARCHY = [
    "- 133. Undertakings should use the following hierarchy of methods:",
    "- Method 1) To approximate the individual risks.",
    "- Method 2) To approximate the whole requirement for each future year. This includes:",
    "- a) For all underwriting risks, to consider the composition;",
    "- b) For market risk, to consider the material risk.",
    "If some of these assumptions do not hold, a qualitative assessment should be carried out.",
    "- Method 3) To approximate the discounted sum in a single step.",
    "When deciding on this method, attention should be paid to the duration.",
    "- Method 4) To approximate the risk margin as a percentage of the best estimate.",
    "According to this method, the percentage is fixed.",
    "- 134. Undertakings may use the simplifications of the annex.",
]


def test_a_list_of_labelled_items_goes_on_after_an_aside_to_its_last_item() -> None:
    """Methods 3 and 4 of a hierarchy, set after explanatory paragraphs (a page break in the document),
    belong to the list paragraph 133 announces; the asides are quoted as a cut mark, never the next paragraph."""
    text = quoted(HIERARCHY, 0, "Undertakings should use the following hierarchy of methods:")
    assert text is not None
    kept = text.splitlines()
    assert kept[0] == "133. Undertakings should use the following hierarchy of methods:"
    assert [x for x in kept if x.startswith("- Method")] == [x for x in HIERARCHY if x.startswith("- Method")]
    assert kept.count(CUT_MARK) == 2 and HIERARCHY[5] not in kept and HIERARCHY[7] not in kept
    assert kept[-1] == HIERARCHY[8] and "134." not in text  # ends on the last item, not on an aside
    assert quoted(HIERARCHY, 6, HIERARCHY[6]) == text  # a later method is quoted with the whole list
    # an aside followed by an item that does not continue the count ends the list there
    other = [*HIERARCHY[:6], "- Method 7) Something else.", "- 134. Next."]
    assert quoted(other, 0, "Undertakings should use the following hierarchy of methods:") == "\n".join(
        ["133. Undertakings should use the following hierarchy of methods:", *[x.strip() for x in other[1:5]]]
    )


def test_a_labelled_line_that_is_no_item_ends_the_walk_back() -> None:
    lines = ["Step 2: check the data", "- Step 3) run the model.", "Done."]
    assert quoted(lines, 1, lines[1]) == "\n".join(lines[:2])  # the line above announces the item; no endless walk


def test_a_footnote_below_an_announcement_is_not_what_it_announces() -> None:
    lines = [
        "Supervisory authorities should allow undertakings to derive the requirement in the following way:",
        "4 An example of the concept can be found in an appendix to the explanatory text.",
        "The requirement is the sum of the modules.",
    ]
    assert quoted(lines, 0, lines[0]) is None  # the sentence alone: the footnote is no paragraph of it


def test_the_items_an_announcement_announces_come_past_the_page_s_footnotes() -> None:
    lines = [
        "- 2.4. In these recommendations one term is given a meaning of its own:",
        "1 Official Journal, volume 12, p. 4",
        "2 See the annex of the consultation paper.",
        "",
        "- 'Run-off margin' means the amount held above the best estimate until the last claim is settled.",
        "- 2.5. Terms not defined here keep the meaning they have in the directive.",
    ]
    sentence = "In these recommendations one term is given a meaning of its own:"
    # the notes are marked as left out, the definition quoted, the next numbered paragraph (2.5) not
    assert quoted(lines, 0, sentence) == "\n".join([sentence, CUT_MARK, lines[4]])


def test_blank_lines_between_an_announcement_and_its_items_are_no_cut() -> None:
    lines = ["The two methods are:", "", "- the chain ladder;", "- the Bornhuetter-Ferguson method.", "Next."]
    assert quoted(lines, 0, lines[0]) == "\n".join([lines[0], lines[2], lines[3]])
