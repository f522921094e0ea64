"""Our Porter stemmer against nltk's, which ADK's ROUGE-1 uses through rouge-score."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st
from nltk.stem.porter import PorterStemmer

from tests.scoring.text_strategies import SUFFIXES
from tracegrade.scoring import porter

NLTK = PorterStemmer()  # the default NLTK_EXTENSIONS mode, as rouge-score builds it

# Stem shapes that decide Porter's conditions: measure 0/1/2+, *v*, *d, *o, y as vowel or
# consonant, NLTK's short-word and irregular-form cases, digits.
STEMS = (
    *("", "a", "b", "y", "ab", "ya", "oy", "by", "yy", "ay", "cat", "tree", "troubl", "hop"),
    *("fil", "plast", "sens", "formal", "control", "agr", "f", "sp", "d", "l", "t", "geo"),
    *("theo", "archaeo", "analog", "radic", "gener", "relat", "condit", "digit", "oper"),
    *("feud", "decis", "hope", "callous", "electr", "good", "reviv", "allow", "airlin"),
    *("adjust", "defens", "irrit", "replac", "depend", "adopt", "commun", "activ", "effect"),
    *("prob", "rat", "ceas", "roll", "yyyy", "syzyg", "2024", "x9", "sky", "die", "news"),
    *("inn", "out", "cann", "howe", "proc", "exc", "succ", "fizz", "hiss", "fall", "tann"),
)
INFLECTIONS = ("", "s", "es", "ed", "ing", "ly", "y", "ies", "ied", "e")


def test_every_stem_suffix_inflection_combination_stems_as_nltk() -> None:
    words = {"".join(parts) for parts in itertools.product(STEMS, SUFFIXES, INFLECTIONS)}
    mismatches = {
        w: (porter.stem(w), NLTK.stem(w)) for w in words if porter.stem(w) != NLTK.stem(w)
    }
    assert mismatches == {}


@given(st.from_regex(r"[a-z0-9]{0,9}", fullmatch=True), st.sampled_from(SUFFIXES))
def test_random_ascii_words_stem_as_nltk(base: str, suffix: str) -> None:
    assert porter.stem(base + suffix) == NLTK.stem(base + suffix)


@given(st.text(alphabet="aeiouybcdlstxwz", max_size=14))
def test_vowel_and_y_heavy_words_stem_as_nltk(word: str) -> None:
    assert porter.stem(word) == NLTK.stem(word)
