"""Hypothesis strategies for response texts: the scripts and symbols ADK's tokenizer treats
differently (ASCII words that stem, numbers and times, CJK, Thai and its marks, accents
composed and decomposed, NFKC-folded forms, emoji), mixed with arbitrary Unicode.

Lone surrogates are left out: texts arrive as UTF-8 (OTLP, JSON), which cannot carry them,
and DuckDB refuses them."""

from __future__ import annotations

from hypothesis import strategies as st

# Porter suffixes, so generated words exercise every stemming step.
SUFFIXES = (
    *("", "s", "es", "ies", "sses", "ss", "ed", "ied", "eed", "ing", "y", "ly", "e", "ll"),
    *("ational", "tional", "enci", "anci", "izer", "bli", "alli", "entli", "eli", "ousli"),
    *("ization", "ation", "ator", "alism", "iveness", "fulness", "ousness", "aliti", "iviti"),
    *("biliti", "fulli", "logi", "icate", "ative", "alize", "iciti", "ical", "ful", "ness"),
    *("al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "sion"),
    *("tion", "ou", "ism", "ate", "iti", "ous", "ive", "ize", "at", "bl", "iz"),
)

SYMBOLS = (
    *("70.7", "14:00", "3.0", "°F", "—", "’", "...", "(", ")", "\n", "\t", "_", "-", "'s"),
    *("東京", "は", "晴れ", "です", "한국어", "カタカナ", "ภาษาไทย", "ก่", "ສະບາຍດີ", "ភាសាខ្មែរ"),
    *("မြန်မာ", "Café", "crème", "cafe\u0301", "naïve", "Straße", "İstanbul", "\u212a", "ﬁne"),
    *("ＡＢＣ", "①", "½", "x²", "😀", "👍🏽", "\u0301", "Ⅻ", "١٢٣", "हिन्दी", "русский", "Ελληνικά"),
    *("sunny", "Paris", "orders", "cancelled", "The", "It", "is", "dying", "skies", "news"),
)

ascii_words = st.builds(
    str.__add__,
    st.from_regex(r"[A-Za-z0-9]{0,7}", fullmatch=True),
    st.sampled_from(SUFFIXES),
)
numbers = st.builds(
    "{}{}{}".format, st.integers(0, 999), st.sampled_from(".:,/"), st.integers(0, 99)
)
characters = st.characters(exclude_categories=["Cs"])
unicode_texts = st.text(alphabet=characters)
fragments = st.one_of(
    st.sampled_from(SYMBOLS), ascii_words, numbers, st.text(characters, max_size=4), characters
)
separators = st.sampled_from(("", " ", " ", ", ", ". ", "\n", "\u3000"))


@st.composite
def texts(draw: st.DrawFn, pool: list[str] | None = None) -> str:
    """A response-like text, from `pool`'s fragments when given (so two texts overlap)."""
    parts = draw(st.lists(st.sampled_from(pool) if pool else fragments, max_size=25))
    return "".join(part + draw(separators) for part in parts)


@st.composite
def text_pairs(draw: st.DrawFn) -> tuple[str, str]:
    """(actual, reference) texts drawn from one pool of fragments, so they share words."""
    pool = draw(st.lists(fragments, min_size=1, max_size=12))
    return draw(texts(pool)), draw(texts(pool))
