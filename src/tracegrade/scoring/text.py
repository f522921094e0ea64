"""Tokenizers behind the response metrics, as ADK tokenizes.

`response_match_score` is ADK's ROUGE-1 F-measure over the tokens of
`google.adk.evaluation.final_response_match_v1._UnicodeAwareTokenizer`, which stems through
rouge-score and nltk; `rouge_tokens` reproduces those tokens exactly without either.
`response_unigram_f1` uses `unigram_tokens`, deliberately plainer.

SQL does the scoring (`queries/macros/10_text.sql`): the tokenizers reach it as
`tg_rouge_tokens` / `tg_unigram_tokens` (functions.py), and the token counting of the
scorers goes through overlap.py. The pure-Python F-measures the SQL is tested against live
with the tests (tests/scoring/reference.py).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from typing import TypeVar

from tracegrade.scoring import porter

_ASCII_ALNUM = re.compile(r"[A-Za-z0-9]+")
# ASCII letters lower-cased, digits kept, everything else a space: for an ASCII text,
# `_ascii_words(text)` is the regex [a-z0-9]+ over its lower case. Through bytes, because
# `bytes.translate` is a table lookup a byte where `str.translate` looks each character up
# in a dict: 1.6 against 10.9 µs for a 1.5 KB answer (measured).
_ASCII_WORDS = bytes(
    ord(chr(code).lower()) if chr(code).isalnum() else ord(" ") for code in range(128)
) + bytes(range(128, 256))


def _ascii_words(text: str) -> list[str]:
    return text.encode("ascii").translate(_ASCII_WORDS).decode("ascii").split()


_K = TypeVar("_K", str, int)


def rouge_tokens(text: str | None) -> list[str]:
    """The tokens ADK's `response_match_score` (ROUGE-1) compares for `text`.

    NFKC-normalised and lower-cased; every character that is not alphanumeric or a
    combining mark separates words; CJK characters are one token each; Thai, Lao, Khmer and
    Myanmar split into grapheme clusters; all-ASCII words longer than three characters are
    Porter-stemmed; other words are kept whole (accents and all). None (a turn without
    final text) is empty text, which ADK scores 0.0.
    """
    return [] if text is None else list(_rouge_tokens(text))


def unigram_tokens(text: str | None) -> list[str]:
    """Runs of ASCII letters and digits, lower-cased: `response_unigram_f1`'s tokens.

    Only ASCII is case-folded, so SQL's `lower()` would give the same tokens as Python's.
    None is empty text.
    """
    return [] if text is None else list(_unigram_tokens(text))


class _Memo(dict[_K, str]):
    """A dict that computes a missing value on lookup, and forgets everything past a bound.

    A hit through `map(memo.__getitem__, words)` or `str.translate(memo)` is a C-level dict
    lookup, where `lru_cache` costs a Python call: per-word and per-character work is most
    of a tokenizer's time.
    """

    def __init__(self, compute: Callable[[_K], str]) -> None:
        super().__init__()
        self._compute: Callable[[_K], str] = compute

    def __missing__(self, key: _K) -> str:
        if len(self) >= 1 << 16:  # a few MB at most
            self.clear()
        value = self._compute(key)
        self[key] = value
        return value


def _stem_word(word: str) -> str:
    # ADK hands only all-ASCII words to rouge-score, which stems those longer than three.
    return porter.stem(word) if len(word) > 3 and word.isascii() else word


def _spaced(char: str) -> str:
    """`char` as ADK's tokenizer rewrites it before splitting on whitespace."""
    code = ord(char)
    is_mark = unicodedata.category(char).startswith("M")
    if _is_cjk(code):
        return f" {char} "
    if _is_non_spaced(code):
        # A base letter opens a grapheme cluster; a vowel or tone mark joins the open one.
        return char if is_mark else f" {char}"
    return char if char.isalnum() or is_mark else " "


def _is_cjk(code: int) -> bool:
    # The ranges of ADK's `_is_cjk`: unified ideographs, hiragana, katakana, hangul.
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3040 <= code <= 0x309F
        or 0x30A0 <= code <= 0x30FF
        or 0xAC00 <= code <= 0xD7AF
    )


def _is_non_spaced(code: int) -> bool:
    # The ranges of ADK's `_is_non_spaced_script`: Thai, Lao, Khmer, Myanmar.
    return (
        0x0E00 <= code <= 0x0E7F
        or 0x0E80 <= code <= 0x0EFF
        or 0x1780 <= code <= 0x17FF
        or 0x1000 <= code <= 0x109F
    )


_STEMS: _Memo[str] = _Memo(_stem_word)
_SPACED: _Memo[int] = _Memo(lambda code: _spaced(chr(code)))  # str.translate passes ordinals


_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


def _spaced_run(found: re.Match[str]) -> str:
    return found.group().translate(_SPACED)


def _unicode_words(text: str) -> list[str]:
    """ADK's character walk over a lower-cased NFKC text: its ASCII characters through the
    byte table (an ASCII character is kept or spaced exactly as `_spaced` would), only the
    runs of other characters through `_spaced`; 36 against 63 µs for a 1.5 KB answer."""
    mixed = text.encode("utf-8", "surrogatepass").translate(_ASCII_WORDS)
    return _NON_ASCII.sub(_spaced_run, mixed.decode("utf-8", "surrogatepass")).split()


def rouge_words(text: str) -> tuple[str, ...]:
    """`rouge_tokens` as a tuple, uncached: for texts seen once, such as agents' answers."""
    if text.isascii():
        # NFKC leaves ASCII alone and ASCII has no CJK, clusters or combining marks, so
        # ADK's character walk reduces to a regex.
        words = _ascii_words(text)
    else:
        words = _unicode_words(unicodedata.normalize("NFKC", text).lower())
    return tuple(map(_STEMS.__getitem__, words))


def unigram_words(text: str) -> tuple[str, ...]:
    """`unigram_tokens` as a tuple, uncached: for texts seen once, such as agents' answers."""
    if text.isascii():
        return tuple(_ascii_words(text))
    # The words are ASCII, so lower-casing them joined is one C call instead of one per word.
    return tuple(" ".join(_ASCII_ALNUM.findall(text)).lower().split())


# Expected texts repeat across cases and repeats. Answers mostly do not, so the overlap
# counting (overlap.py) tokenizes them through the uncached forms above: a bounded cache
# filled with texts seen once only churns (~3 µs a turn, measured).
_rouge_tokens = lru_cache(maxsize=1 << 16)(rouge_words)
_unigram_tokens = lru_cache(maxsize=1 << 16)(unigram_words)
