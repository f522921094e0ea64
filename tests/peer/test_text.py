"""Every user text and reference of the real eval files, and every distinct word in them,
tokenizes (and stems) as ADK's ROUGE-1 tokenizes it."""

from __future__ import annotations

import json

from google.adk.evaluation.final_response_match_v1 import _UnicodeAwareTokenizer

from tests.peer.material import PEER
from tracegrade.scoring.text import rouge_tokens

ADK_TOKENIZER = _UnicodeAwareTokenizer(use_stemmer=True)


def test_every_text_tokenizes_as_in_adk() -> None:
    texts: list[str] = json.loads((PEER / "corpus_texts.json").read_text())
    differ = {
        t: (rouge_tokens(t), ADK_TOKENIZER.tokenize(t))
        for t in texts
        if rouge_tokens(t) != ADK_TOKENIZER.tokenize(t)
    }
    assert len(texts) > 250
    assert differ == {}


def test_every_word_stems_as_in_adk() -> None:
    words = (PEER / "words.txt").read_text().split("\n")
    differ = {
        w: (rouge_tokens(w), ADK_TOKENIZER.tokenize(w))
        for w in words
        if rouge_tokens(w) != ADK_TOKENIZER.tokenize(w)
    }
    assert len(words) > 30_000
    assert differ == {}
