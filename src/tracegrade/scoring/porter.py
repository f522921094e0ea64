"""The Porter stemmer exactly as ADK's ROUGE-1 uses it, without nltk at runtime.

ADK's `response_match_score` stems ASCII words through rouge-score, which calls
`nltk.stem.porter.PorterStemmer()` in its default NLTK_EXTENSIONS mode. That mode differs
from Porter's published algorithm in a dozen small places (an irregular-forms table,
`ies`/`ied` on four-letter words, `alli` before `bli`, `logi`, `fulli`, a two-letter
`*o`), and a stem differing by one letter changes a score. So this module re-implements
that mode rule for rule, in NLTK's rule order; `tests/scoring/test_porter.py` compares it
with nltk's own stemmer.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

_VOWELS = frozenset("aeiou")

# NLTK's table of irregular forms, looked up before any rule runs.
_IRREGULAR = {
    "sky": "sky",
    "skies": "sky",
    "dying": "die",
    "lying": "lie",
    "tying": "tie",
    "news": "news",
    "innings": "inning",
    "inning": "inning",
    "outings": "outing",
    "outing": "outing",
    "cannings": "canning",
    "canning": "canning",
    "howe": "howe",
    "proceed": "proceed",
    "exceed": "exceed",
    "succeed": "succeed",
}

Condition = Callable[[str], bool]
Rule = tuple[str, str, Condition]


def stem(word: str) -> str:
    """The stem of an ASCII `word`, as `nltk.stem.porter.PorterStemmer().stem(word)` gives it.

    (ADK stems only all-ASCII words; `str.lower` can change the length of others.)
    """
    word = word.lower()
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) <= 2:
        return word
    for step in (_step1a, _step1b, _step1c, _step2, _step3, _step4, _step5a, _step5b):
        word = step(word)
    return word


def _consonants(word: str) -> list[bool]:
    """Per letter: is it a consonant? `y` is one unless it follows a consonant."""
    flags: list[bool] = []
    for ch in word:
        if ch == "y":
            flags.append(not flags or not flags[-1])
        else:
            flags.append(ch not in _VOWELS)
    return flags


def _measure(word: str) -> int:
    """Porter's m: how many vowel-run→consonant-run transitions `word` has."""
    flags = _consonants(word)
    return sum(1 for prev, cur in pairwise(flags) if cur and not prev)


def _m_gt0(base: str) -> bool:
    return _measure(base) > 0


def _m_gt1(base: str) -> bool:
    return _measure(base) > 1


def _has_vowel(word: str) -> bool:
    return not all(_consonants(word))


def _ends_double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _consonants(word)[-1]


def _ends_cvc(word: str) -> bool:
    """Porter's *o, plus NLTK's extension that a two-letter vowel-consonant word counts."""
    flags = _consonants(word)
    if len(word) == 2:
        return not flags[0] and flags[1]
    return len(word) >= 3 and flags[-3] and not flags[-2] and flags[-1] and word[-1] not in "wxy"


def _apply(word: str, rules: tuple[Rule, ...]) -> str:
    """Apply the first rule whose suffix matches; if its condition fails, stop anyway."""
    for suffix, replacement, condition in rules:
        if word.endswith(suffix):
            base = word[: len(word) - len(suffix)]
            return base + replacement if condition(base) else word
    return word


def _always(base: str) -> bool:
    return True


_STEP1A: tuple[Rule, ...] = (
    ("sses", "ss", _always),
    ("ies", "i", _always),
    ("ss", "ss", _always),
    ("s", "", _always),
)


def _step1a(word: str) -> str:
    if word.endswith("ies") and len(word) == 4:  # NLTK: dies -> die, not di
        return word[:-3] + "ie"
    return _apply(word, _STEP1A)


def _step1b(word: str) -> str:
    if word.endswith("ied"):  # NLTK: died -> die, spied -> spi
        return word[:-3] + ("ie" if len(word) == 4 else "i")
    if word.endswith("eed"):
        return word[:-1] if _m_gt0(word[:-3]) else word
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and _has_vowel(word[: -len(suffix)]):
            return _restore_ending(word[: -len(suffix)])
    return word


def _restore_ending(base: str) -> str:
    """After -ed/-ing: put back the e of -ate/-ble/-ize, undouble, or add e to a short cvc."""
    if base.endswith(("at", "bl", "iz")):
        return base + "e"
    if _ends_double_consonant(base):
        return base if base[-1] in "lsz" else base[:-1]
    if _measure(base) == 1 and _ends_cvc(base):
        return base + "e"
    return base


def _step1c(word: str) -> str:
    # NLTK: y -> i only after a consonant that is not the whole stem (happy, not enjoy).
    if word.endswith("y") and len(word) > 2 and _consonants(word[:-1])[-1]:
        return word[:-1] + "i"
    return word


_STEP2: tuple[Rule, ...] = (
    *(
        (suffix, replacement, _m_gt0)
        for suffix, replacement in (
            ("ational", "ate"),
            ("tional", "tion"),
            ("enci", "ence"),
            ("anci", "ance"),
            ("izer", "ize"),
            ("bli", "ble"),
            ("alli", "al"),
            ("entli", "ent"),
            ("eli", "e"),
            ("ousli", "ous"),
            ("ization", "ize"),
            ("ation", "ate"),
            ("ator", "ate"),
            ("alism", "al"),
            ("iveness", "ive"),
            ("fulness", "ful"),
            ("ousness", "ous"),
            ("aliti", "al"),
            ("iviti", "ive"),
            ("biliti", "ble"),
            ("fulli", "ful"),
        )
    ),
    # NLTK keeps the l of -logi with the stem, so geology and theology stem alike.
    ("logi", "log", lambda base: _m_gt0(base + "l")),
)


def _step2(word: str) -> str:
    # NLTK applies alli -> al before everything else, then step 2 again on the result.
    if word.endswith("alli") and _m_gt0(word[:-4]):
        return _step2(word[:-4] + "al")
    return _apply(word, _STEP2)


_STEP3: tuple[Rule, ...] = tuple(
    (suffix, replacement, _m_gt0)
    for suffix, replacement in (
        ("icate", "ic"),
        ("ative", ""),
        ("alize", "al"),
        ("iciti", "ic"),
        ("ical", "ic"),
        ("ful", ""),
        ("ness", ""),
    )
)


def _step3(word: str) -> str:
    return _apply(word, _STEP3)


def _ion_base(base: str) -> bool:
    return _m_gt1(base) and base[-1] in "st"


_STEP4: tuple[Rule, ...] = tuple(
    (suffix, "", _ion_base if suffix == "ion" else _m_gt1)
    for suffix in (
        *("al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent"),
        *("ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize"),
    )
)


def _step4(word: str) -> str:
    return _apply(word, _STEP4)


def _step5a(word: str) -> str:
    if word.endswith("e"):
        base = word[:-1]
        m = _measure(base)
        if m > 1 or (m == 1 and not _ends_cvc(base)):
            return base
    return word


def _step5b(word: str) -> str:
    if word.endswith("ll") and _m_gt1(word[:-1]):
        return word[:-1]
    return word
