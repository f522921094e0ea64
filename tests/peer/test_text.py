"""Every user text and reference of the real eval files, and every distinct word in them,
tokenizes (and stems) as ADK's ROUGE-1 tokenizes it."""

from __future__ import annotations

import json

from google.adk.evaluation.final_response_match_v1 import _UnicodeAwareTokenizer

from tests.peer.material import PEER
from tracegrade.scoring.text import rouge_tokens

ADK_TOKENIZER = _UnicodeAwareTokenizer(use_stemmer=True)


def _differ(texts: list[str]) -> dict[str, tuple[list[str], list[str]]]:
    ours = {text: rouge_tokens(text) for text in texts}
    return {
        t: (ours[t], ADK_TOKENIZER.tokenize(t))
        for t in texts
        if ours[t] != ADK_TOKENIZER.tokenize(t)
    }


def test_every_text_tokenizes_as_in_adk() -> None:
    texts: list[str] = json.loads((PEER / "corpus_texts.json").read_text())
    assert len(texts) > 250
    assert _differ(texts) == {}


def test_every_word_stems_as_in_adk() -> None:
    words = (PEER / "words.txt").read_text().split("\n")
    assert len(words) > 30_000
    assert _differ(words) == {}
