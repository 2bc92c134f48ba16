"""A misspelt question word is read as a retrieved passage's word one edit away, never a short one."""

from rag_core.answering.typos import one_edit_apart, read_as


def test_one_edit_is_a_letter_added_dropped_changed_or_two_neighbours_swapped() -> None:
    assert one_edit_apart("demoncratic", "democratic")  # added
    assert one_edit_apart("tabular", "tabuluar")  # dropped, read the other way
    assert one_edit_apart("mortalty", "mortality")
    assert one_edit_apart("salse", "sales")  # neighbours swapped
    assert one_edit_apart("reserve", "reverse") is False  # two letters changed, not neighbours swapped
    assert one_edit_apart("claims", "claims") is False
    assert one_edit_apart("reserving", "reserve") is False


def test_the_most_frequent_near_passage_word_is_read() -> None:
    words = ["democratic", "party", "democratic", "democratia", "tabular"]
    assert read_as("demoncratic", words) == "democratic"
    assert read_as("tabuluar", words) == "tabular"
    assert read_as("republican", words) is None


def test_short_words_and_identifiers_are_never_corrected() -> None:
    assert read_as("mcr", ["scr", "scr"]) is None  # "SCR" and "MCR" are two things
    assert read_as("ifrs17", ["ifrs18"]) is None
    assert read_as("fisher", ["fish"]) is None  # a passage word too short to be the intended one
    assert read_as("hover", ["cover", "cover"]) is None  # a slip keeps the first letter: an acronym stays itself


def test_a_word_glued_to_a_function_word_is_read_as_the_word() -> None:
    words = ["current", "liabilities", "total", "liabilities"]
    assert read_as("liabilitiesfor", words) == "liabilities"  # "Current Liabilitiesfor COSTCO": a missing space
    assert read_as("provisionsdes", ["provisions"]) == "provisions"
    assert read_as("liabilitiesfor", ["assets"]) is None  # the word alone must be the passages'
    assert read_as("seafor", ["sea"]) is None  # too short alone to be read
