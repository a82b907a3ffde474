"""The caption clean-up before BPE: the official basic_clean + whitespace_clean."""

from metrics.viclip import tokenizer


def test_mojibake_is_repaired_as_ftfy_does_in_the_official_clean_up():
    # "café" encoded as UTF-8 and read as Latin-1; ftfy.fix_text gives the word back.
    assert tokenizer.clean("a caf\u00c3\u00a9 at night") == "a café at night"


def test_html_entities_are_unescaped_twice_and_whitespace_collapsed():
    assert tokenizer.clean("  a &amp;amp; b\n\t c  ") == "a & b c"


def test_plain_captions_are_unchanged():
    caption = "A red car drives along a coastal road at sunset."
    assert tokenizer.clean(caption) == caption
