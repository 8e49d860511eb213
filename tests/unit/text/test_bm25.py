"""BM25 as Qdrant computes it."""

import pytest
import qdrant_edge as qe

from haygate.text.bm25 import Bm25Settings, Bm25Tokenizer, document_weights


def test_counts_use_qdrants_tokenizer() -> None:
    tokenizer = Bm25Tokenizer()
    counts = tokenizer.counts("Borders border the café cafe")
    assert sorted(counts.values()) == [2, 2]  # stemming and ASCII folding; "the" is a stopword
    assert tokenizer.token_ids("border") <= set(counts)


def test_document_weights_equal_qdrants() -> None:
    text = "Résumé of a café with borders " * 5
    settings = Bm25Settings(k=1.3, b=0.6, avg_len=7.0)
    ours = document_weights(Bm25Tokenizer().counts(text), settings.k, settings.b, 7.0)
    reference = settings.model().embed_document(text)
    assert ours == pytest.approx(dict(zip(reference.indices, reference.values, strict=True)), rel=1e-5)
    assert isinstance(settings.model(), qe.Bm25)


def test_bad_settings_are_named() -> None:
    with pytest.raises(ValueError, match="invalid BM25 settings"):
        Bm25Settings(b=2.0)
    with pytest.raises(ValueError, match="avg_len"):
        Bm25Settings(avg_len="mean")  # type: ignore[arg-type]


def test_a_stop_word_in_capitals_is_a_term() -> None:
    """'how do NOT filters work' asks about the NOT operator; lower-case 'not' stays filler."""
    tokenizer = Bm25Settings().tokenizer()
    unstopped = qe.Bm25(qe.Bm25Config(language="english", stopwords=qe.StopwordsSet())).embed_document("not")
    operator = int(unstopped.indices[0])  # the id Qdrant gives "not" when nothing is a stop word
    assert operator in tokenizer.counts("how do NOT filters work")
    assert operator not in tokenizer.counts("how do not filters work")
    assert tokenizer.counts("### NOT\n`NOT` negates; it does not match")[operator] == 2
    assert tokenizer.counts("NOTE") == Bm25Tokenizer().counts("NOTE")  # a word that is no stop word is as before
    assert operator not in Bm25Settings(capitalised_stopwords=False).tokenizer().counts("how do NOT filters work")
