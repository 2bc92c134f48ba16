"""The term check and the extractive evidence, the parts that need no library: the terms of a
question, phrase mentions, the messages, code and console detection, and the choice of evidence sentences."""

from __future__ import annotations

from rag_core.answering.coverage import coverage_notes, mentions, missing_message, question_terms
from rag_core.answering.evidence import Candidate, candidates, is_code_like, select
from rag_core.understanding.thesaurus import BUNDLED, Thesaurus
from tests.answering_support import retrieved


def kinds(question: str) -> dict[str, str]:
    return {t.text: t.kind for t in question_terms(question)}


def test_acronyms_names_and_identifiers_carry_the_question() -> None:
    terms = kinds("Quel est le rôle du SCR et de l'IBNER dans la méthode de Mack-Schnieper selon l'Article 77 ?")
    assert terms["IBNER"] == "identifier"
    assert terms["SCR"] == "abbreviation"  # three letters: the documents may spell it out instead
    assert terms["Mack-Schnieper"] == "name"
    assert terms["Article 77"] == "identifier"
    assert "Quel" not in terms and "le" not in terms  # the opening capital and function words are not terms


def test_roman_numerals_years_elisions_and_possessives_are_not_terms_of_their_own() -> None:
    terms = kinds("Does Solvency II require Wüthrich's 2008 method for the insurer's reserves?")
    assert terms["Solvency"] == "name" and "II" not in terms
    assert terms["Wüthrich"] == "name" and "Wüthrich 2008" not in terms  # a year after a name is a citation
    assert "s" not in terms and terms["reserves"] == "word"
    assert "Poisson 10" not in kinds("With a Poisson 10 frequency, what is the VaR?")  # a parameter, not a reference
    assert "VaR" in kinds("Is the CTE equal to VaR/(1 - p) for every loss?")  # a number joins only across a space
    assert kinds("What is the symmetric adjustment (equity dampener)?")["dampener"] == "alias"
    assert "assurance" in {t.words[0] for t in question_terms("Le taux de l'assurance auto ?")}


def test_thesaurus_labels_count_as_mentions_of_the_words_they_cover() -> None:
    thesaurus = Thesaurus.from_json(BUNDLED.read_bytes())
    term = next(t for t in question_terms("Comment estimer les IBNR ?", thesaurus) if t.text == "IBNR")
    assert any(len(v) > 1 for v in term.variants)  # its English and French labels


def test_a_phrase_is_mentioned_only_with_its_words_in_order_and_close() -> None:
    assert mentions(("smith", "wilson"), ["la methode de smith wilson extrapole"]) == 1
    assert mentions(("taxe", "conventions"), ["la taxe sur les conventions d assurance"]) == 1
    assert mentions(("smith", "wilson"), ["wilson cite smith", "smith a ecrit un long texte avec wilson"]) == 0
    assert mentions(("provision",), ["les provisions techniques"]) == 1  # Snowball stems, as the index
    assert mentions(("var",), ["la mesure varκ(x) est un quantile"]) == 1  # VaR_κ as a PDF's text layer glues it
    assert mentions(("var",), ["la variance"]) == 0


def test_messages_name_the_terms_in_the_question_language() -> None:
    assert missing_message(["TSCA"], "en") == "None of the documents you can access mentions 'TSCA'."
    assert missing_message(["IFRS 17", "CSM"], "fr") == (
        "Aucun des documents auxquels vous avez accès ne mentionne « IFRS 17 » ni « CSM »."
    )
    assert coverage_notes(["Bondy"], ["Bondy"], "en") == [
        "The search was repeated requiring 'Bondy'.",
        "The passages used do not mention 'Bondy', although the library does.",
    ]


def test_code_console_output_and_formula_text_are_not_answer_sentences() -> None:
    for line in [
        "> data(hachemeister)",
        'R> fit <- MackChainLadder(RAA, est.sigma = "Mack")',
        "[1,] 1738 1642 1794 2051 2079",
        "11343397 1.2 4.5 6.7 8.9",
        "𝑌𝑃= 𝛼((1 + 𝑟)𝑋−𝑑)",
        "summary(fit)$Totals",
        "6 100.43 99.66 100.03 7 103.53 99.76 Total 105.2 98.1",
        "F(x) = 1 - exp(-x / θ), x > 0, θ > 0 {",
    ]:
        assert is_code_like(line), line
    for line in [
        "The data set is included in the package in the form of a matrix with 5 rows and 25 columns.",
        "La provision pour sinistres à payer est estimée à 12,5 M€ au 31 décembre 2023.",
        "Mack (1993) shows that the chain ladder estimator is unbiased.",
        "Let 𝑅(𝑡) denote the reserve held by the insurer at time 𝑡 and 𝑃(𝑡) the premiums received by then",
        "2. the development factors of distinct accident years are independent;",
    ]:
        assert not is_code_like(line), line


def test_a_run_of_figures_glued_to_prose_is_a_piece_of_its_own() -> None:
    from rag_core.answering.evidence import split_sentences

    glued = "1998 1.22 1.05 1.01 1999 1.31 1.08 Total 3.2 Tail methods Several authors fit a curve to the factors"
    pieces = split_sentences(glued)
    assert pieces[0] == "1998 1.22 1.05 1.01 1999 1.31 1.08" and is_code_like(pieces[0])
    assert pieces[1] == "Total 3.2 Tail methods Several authors fit a curve to the factors"
    assert not is_code_like(pieces[1])
    grew = "Reserves grew by 4 % in 2021 and 5 % in 2022."
    assert split_sentences(grew) == [grew]


def _c(parent: int, pos: int, text: str, relevance: float) -> Candidate:
    return Candidate(parent, (parent, pos), text, frozenset(text.lower().split()), relevance)


def test_evidence_drops_what_is_below_the_floor_and_what_repeats_a_chosen_sentence() -> None:
    chosen = select(
        [
            _c(0, 0, "mack model gives the msep of reserves", 0.9),
            _c(0, 1, "mack model gives the msep of the reserves", 0.88),  # a near copy of the first
            _c(1, 0, "the msep is a variance of prediction", 0.6),
            _c(2, 0, "mortality tables for life contracts", 0.1),  # under the floor
        ],
        limit=2,
    )
    assert [c.text for c in chosen] == ["mack model gives the msep of reserves", "the msep is a variance of prediction"]


def test_a_library_that_cannot_tell_refuses_nothing() -> None:
    from rag_core.answering.coverage import check_coverage

    unindexed = check_coverage("What is the TSCA rate?", lambda words, limit: None, [], "en", {"en"})
    assert not unindexed.refuses and unindexed.not_retrieved == ()
    empty = check_coverage("What is the TSCA rate?", lambda words, limit: [], [], "en", {"en"})
    assert empty.missing == ("TSCA",)


def test_a_glossary_translation_counts_as_a_mention_of_the_whole_term_it_covers() -> None:
    """With the bilingual glossary: a French question about an English text is not refused because
    its French words are absent; a translation covering only half of a name does not vouch for the name."""
    from rag_core.answering.coverage import check_coverage
    from rag_core.understanding.glossary import BUNDLED as GLOSSARY
    from rag_core.understanding.glossary import Glossary

    glossary = Glossary.from_json(GLOSSARY.read_bytes())
    english = [
        "the tail factor extends development beyond the last age of the triangle",
        "the benktander method credibility weights the chain ladder and the expected losses",
    ]

    def lookup(words: tuple[str, ...], limit: int) -> list[str]:
        return [t for t in english if all(w in t.split() for w in words)][:limit]

    both = {"fr", "en"}
    question = "Comment choisir le coefficient (facteur de queue) du triangle ?"
    alone = check_coverage(question, lookup, [], "fr", both, scope_passages=1000)
    assert alone.missing == ("facteur", "queue")  # no French passage says it: refused without the glossary
    translated = check_coverage(question, lookup, [], "fr", both, scope_passages=1000, glossary=glossary)
    assert not translated.refuses and translated.passages["facteur"] == 1
    half = check_coverage(
        "Que donne la méthode de Benktander-Hovinen ?", lookup, [], "fr", both, scope_passages=1000, glossary=glossary
    )
    assert half.missing == ("Benktander-Hovinen",)  # "méthode de Benktander" covers Benktander, not Hovinen


def test_a_retry_that_costs_the_passages_another_term_is_not_kept() -> None:
    """The retry brings passages that mention a term the first ones lack; when the passages it brings lose
    a term the first ones mentioned, the first search stands (and the note still says it was retried)."""
    import re

    from rag_core.answering.coverage import CoverageScope, coverage_retry, use_retry
    from rag_core.models import SearchResult
    from rag_core.text import fold
    from tests.answering_support import retrieved

    panjer = retrieved(
        1,
        ["Panjer's recursion holds for the Poisson, binomial and negative binomial laws."],
        ["Counting laws"],
        [4],
        rank=1,
    )
    footer = retrieved(2, ["Université de Lyon 1, ISFA: slides of the collective model."], ["Title"], [1], rank=1)
    both = retrieved(3, ["ISFA slides: the Panjer family of counting distributions."], ["Panjer family"], [36], rank=1)
    texts = [fold(h.parent.text) for h in (panjer, footer, both)]

    def lookup(words: tuple[str, ...], limit: int) -> list[str]:
        return [t for t in texts if all(w in re.findall(r"\w+", t) for w in words)][:limit]

    library = CoverageScope(lookup, frozenset({"en"}), None, 1000)
    question = "Which laws allow Panjer's recursion in the ISFA slides?"
    first = SearchResult(query=question, parents=[panjer])
    checked = library.check(question, first.parents, "en")
    retry = coverage_retry(question, checked, 1)
    assert retry is not None and retry.query == f"{question} ISFA" and retry.k == 10  # the caller searches
    kept, coverage, retried = use_retry(
        question, first, checked, retry, SearchResult(query=retry.query, parents=[footer]), 1, library, "en"
    )
    assert kept.parents == first.parents and coverage.not_retrieved == ("ISFA",) and retried == ("ISFA",)
    better, coverage, retried = use_retry(
        question, first, checked, retry, SearchResult(query=retry.query, parents=[both, panjer]), 1, library, "en"
    )
    assert better.parents[0].parent.id == both.parent.id and coverage.not_retrieved == () and retried == ("ISFA",)
    assert coverage_retry(question, coverage, 1) is None  # nothing left to search for


def test_a_fiscal_period_is_one_term_whose_variants_are_its_written_forms() -> None:
    terms = {t.text: t for t in question_terms("What was COGS in the fourth quarter of fiscal 2023 and in FY22?")}
    quarter, year = terms["fourth quarter of fiscal 2023"], terms["FY22"]
    assert quarter.kind == "period" and year.kind == "period"
    assert ("4q23",) in quarter.variants and ("t4", "2023") in quarter.variants
    assert ("fiscal", "2022") in year.variants and ("2022",) in year.variants
    assert not {"fourth", "quarter", "fiscal"} & set(terms)  # its words are not terms of their own
    assert kinds("Revenue in Q4?")["Q4"] == "word"  # a part without its year never refuses on its own
    assert kinds("How to prepare the skills for QUARTER 3?")["QUARTER 3"] == "word"  # not an identifier
    assert kinds("What were sales in Quarter 3 2023?")["Quarter 3 2023"] == "period"
    assert "2008" not in kinds("Does Wüthrich's 2008 method apply?")  # a bare year stays a citation's


def test_a_page_locator_is_no_term_and_abbreviations_reach_their_spelled_out_forms() -> None:
    assert "Page" not in kinds("On Page 12, what does the Mack model assume?")
    assert kinds("On which Page is the Mack model?")["Page"] == "name"  # without a number it is a word like any
    thesaurus = Thesaurus.from_json(BUNDLED.read_bytes())
    variants = {t.text: t.variants for t in question_terms("How did COGS and EBITDA evolve?", thesaurus)}
    assert ("cost", "sales") in variants["COGS"]
    assert any(v[0] == "earnings" and "amortization" in v for v in variants["EBITDA"])
    # a currency named in words is found where a filing writes its symbol or code
    variants = {
        t.text: t.variants for t in question_terms("Total dividend (in Rupee) and capital in euros?", thesaurus)
    }
    assert ("rs",) in variants["Rupee"] and ("inr",) in variants["Rupee"]
    assert ("eur",) in variants["euros"]


def test_the_verb_that_asks_what_a_text_says_is_no_term() -> None:
    assert kinds("Que dit la ligne directrice 37C ?") == {"ligne": "word", "directrice": "word", "37C": "word"}
    assert kinds("What does Guideline 37C say?") == {"Guideline": "word", "37C": "word"}
    assert "says" not in kinds("What the report says about the loss ratio of 2021")
    # nor a sentence's evidence: a note that the variable "est dite tronquée" answers nothing of it
    hits = [
        retrieved(1, ["Note : cette variable est dite tronquée à gauche."], ["Moments"], [9], rank=1),
        retrieved(2, ["89. Les entreprises modélisent les options contractuelles."], ["Ligne directrice 37C"], [14], 2),
    ]
    relevance = {c.text: c.relevance for c in candidates(hits, "Que dit la ligne directrice 37C ?", "fr")}
    assert relevance["Note : cette variable est dite tronquée à gauche."] == 0.0


def test_a_name_the_question_gives_is_held_by_every_sentence_under_a_heading_that_holds_it() -> None:
    whitney = "La prime partielle retenue est celle de Whitney."
    premium = "La prime pondère l'expérience du contrat et la prime collective."
    hits = [
        retrieved(1, [whitney], ["Crédibilité partielle"], [2], rank=1),
        retrieved(2, [premium], ["Modèle de Gauss-Markov", "Prime"], [4], rank=2),
    ]
    relevance = {c.text: c.relevance for c in candidates(hits, "Quelle est la prime du modèle de Gauss-Markov ?", "fr")}
    # the sentence under the named model's heading answers; the other only shares a word of the topic
    assert relevance[premium] > relevance[whitney]
    # a heading that does not hold the name adds nothing: both sentences hold "prime" alone
    relevance = {c.text: c.relevance for c in candidates(hits, "Quelle est la prime du modèle de Poisson ?", "fr")}
    assert len(set(relevance.values())) == 1, relevance


def test_a_shouted_function_word_is_no_acronym() -> None:
    terms = kinds("WHAT IS THE ROLE OF THE TSCA?")
    assert "WHAT" not in terms and "THE" not in terms and "IS" not in terms
    # in a question written in capitals every word is: an abbreviation maybe, never an identifier
    assert terms["TSCA"] == "abbreviation" and terms["ROLE"] == "abbreviation"
    assert kinds("What is the role of the TSCA?")["TSCA"] == "identifier"


def test_a_year_asked_about_is_a_period_term_and_a_cited_year_is_not() -> None:
    assert kinds("What was the BF reserve for accident year 2005?")["2005"] == "period"
    assert kinds("Quel est le S/P de la survenance 2014 ?")["2014"] == "period"
    assert kinds("What did the company report in 2010?")["2010"] == "period"
    for cited in ("Selon Mack (2006), quel est le principe ?", "According to Mack's 2006 paper, why?"):
        assert "2006" not in kinds(cited)
    assert "2015" not in kinds("Which articles of Delegated Regulation (EU) 2015/35 apply?")  # an identifier's
    assert "2008" not in kinds("Que retient l'aide-mémoire ACT-2008 ?")


def test_constraints_are_apart_when_no_one_passage_holds_them_all() -> None:
    from rag_core.answering.coverage_joint import apart

    terms = question_terms("Which centre did Northwind open in Ohio in 2022?")
    counts = {t.text: 3 for t in terms}
    lacking, together = apart(terms, counts, [{"Northwind", "2022"}, {"Ohio", "centre"}])
    assert lacking == ("Ohio",) and together == ("Northwind", "2022")
    assert apart(terms, counts, [{"Northwind", "Ohio", "2022"}, set()]) == ((), ())
    # a constraint the library never mentions is the term check's (refused as missing), not this one's
    assert apart(terms, {**counts, "Ohio": 0}, [{"Northwind", "2022"}]) == ((), ())
    symbols = question_terms("How is F_S defined for Northwind?")
    assert apart(symbols, {t.text: 3 for t in symbols}, [{"Northwind"}]) == ((), ())  # a formula symbol


def test_the_conjuncts_of_a_question_may_be_held_by_two_passages_each_by_one() -> None:
    from rag_core.answering.coverage_joint import apart

    question = "How many people are in the Northwind Executive Team and the Prosecution Services Staff?"
    terms = question_terms(question)
    counts = {t.text: 3 for t in terms}
    two = [{"Northwind", "Executive"}, {"Prosecution", "Services"}]  # each group listed on its own page
    assert apart(terms, counts, two, question) == ((), ())
    assert apart(terms, counts, two)[0]  # read as one conjunct, no passage holds both
    french = "Quel était le ratio de Northwind en 2019 et celui de Southwind en 2020 ?"
    terms = question_terms(french)
    counts = {t.text: 3 for t in terms}
    # within a conjunct the constraints still go together: Southwind's passage lacks 2020
    lacking, _ = apart(terms, counts, [{"Northwind", "2019"}, {"Southwind", "2019"}, {"2020"}], french)
    assert lacking == ("2020",)
    assert apart(terms, counts, [{"Northwind", "2019"}, {"Southwind", "2020"}], french) == ((), ())
    neither = "Did neither Northwind in 2019 nor Southwind in 2020 report a loss?"
    terms = question_terms(neither)
    counts = {t.text: 3 for t in terms}
    assert apart(terms, counts, [{"Northwind", "2019"}, {"Southwind", "2020"}], neither) == ((), ())


def test_two_parts_of_a_document_a_question_names_may_be_held_by_two_passages() -> None:
    from rag_core.answering.coverage_joint import apart

    question = "Which papers of Table 2 adopt the Northwind strategy but are not mentioned in Section 3.4?"
    terms = question_terms(question)
    counts = {t.text: 3 for t in terms}
    two = [{"Northwind", "Table 2"}, {"Section 3"}]  # the table lists it; the section is another place
    assert apart(terms, counts, two, question) == ((), ())
    # what is asked of one part still goes together: the passage of Table 2 must name Northwind
    lacking, _ = apart(terms, counts, [{"Table 2"}, {"Northwind"}, {"Section 3"}], question)
    assert lacking == ("Northwind",)
    one = "Which papers of Table 2 adopt the Northwind strategy?"  # one part named: as before
    terms = question_terms(one)
    assert apart(terms, {t.text: 3 for t in terms}, [{"Table 2"}, {"Northwind"}], one)[0]


def test_only_a_word_whose_absence_would_refuse_is_read_as_a_typo() -> None:
    from rag_core.answering.coverage import check_coverage

    def empty_index(words: tuple[str, ...], limit: int) -> list[str]:
        return []  # an index that holds none of the question's words

    named = check_coverage("What does Fischer propose?", empty_index, ["The method of Fisher."], "en", {"en"})
    assert named.read_as == (("Fischer", "Fisher"),) and not named.refuses
    plain = check_coverage("What are its quartiles?", empty_index, ["Its quantiles are given."], "en", {"en"})
    assert plain.read_as == ()  # a paraphrase's word, never a reason to refuse, is not "read as" another


def test_a_sentence_on_how_to_write_the_answer_is_no_part_of_what_is_asked() -> None:
    terms = question_terms("What is the date of the filing? Format your answer as YYYY-MM-DD.")
    assert [t.text for t in terms] == ["date", "filing"]
    terms = question_terms("Is market CA03 part of the Bay Area? Answer 'yes' or 'no'.")
    assert "CA03" in [t.text for t in terms] and not {"yes", "no", "Answer"} & {t.text for t in terms}
    terms = question_terms("Quel est le taux de la TSCA ? Répondez en pourcentage, format 0,0 %.")
    assert "TSCA" in [t.text for t in terms] and "format" not in [t.text for t in terms]
    # a question that is itself an imperative keeps its words
    assert "ProgramFC" in [t.text for t in question_terms("Please list the F1 scores for ProgramFC in order.")]


def test_a_question_written_in_capitals_has_no_identifier_or_name_by_its_capitals() -> None:
    terms = question_terms("WHAT IS THE USCA CASE NUMBER OF THE COURT-APPEAL?")
    assert {t.kind for t in terms} == {"abbreviation", "word"}
    assert "usca" in [t.words[0] for t in terms]
    # one shouted word in a written question is still an acronym
    assert ("TSCA", "identifier") in [(t.text, t.kind) for t in question_terms("What is the TSCA rate in France?")]


def test_a_reference_word_without_its_number_says_where_and_is_no_name() -> None:
    terms = question_terms("In the Section Warnings and Cautions, which subsection shows a screen?")
    assert ("Section", "word") in [(t.text, t.kind) for t in terms]
    assert ("Warnings", "name") in [(t.text, t.kind) for t in terms]
    assert ("Section 4", "identifier") in [(t.text, t.kind) for t in question_terms("What does Section 4 require?")]


def test_the_head_of_a_long_name_carries_the_question_like_a_plain_word() -> None:
    found = kinds("Is market CA03 part of the College Board Search Platform in the San Francisco Bay Area?")
    assert found["Platform"] == "word" and found["Area"] == "word"  # "the College Board Search" names it too
    assert found["College"] == found["Board"] == found["Search"] == found["San"] == "name"
    assert kinds("Who are the bankers of Apple Inc?")["Inc"] == "name"  # a name of two words keeps both


def test_the_numbers_of_a_split_fiscal_year_are_mentioned_only_next_to_each_other() -> None:
    assert mentions(("2018", "19"), ["dividends paid in 2018-19 rose"]) == 1
    assert mentions(("2018", "19"), ["the survey of may 2018: 19 % said so"]) == 0
    assert mentions(("taxe", "conventions"), ["la taxe sur les conventions"]) == 1  # words keep their gap


def test_a_date_format_placeholder_is_no_term_of_the_question() -> None:
    # the placeholder says how to write the answer; a library never writes "YYYY-MM-DD"
    for question in (
        "Format the date mentioned on page 14 as YYYY-MM-DD.",
        "What date is mentioned on the second page? Format the date as YYYY-MM",
        "Donnez la date du rapport au format JJ/MM/AAAA.",
    ):
        texts = [t.text for t in question_terms(question)]
        assert texts and not any(part in " ".join(texts) for part in ("YYYY", "MM", "DD", "JJ", "AAAA")), texts
    # letters that are no date placeholder stay terms: a rating, an abbreviation beside a year
    assert [t.text for t in question_terms("What does the AAA rating mean?")][0] == "AAA"
    assert "SCR" in [t.text for t in question_terms("What is the SCR ratio in 2023?")]
