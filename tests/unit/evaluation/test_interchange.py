"""Judgments in TREC's and Quepid's files: read into a judged set's queries and grades, or written as TREC qrels;
every refusal names the file and the line."""

import math
import re
from pathlib import Path

import pytest
from ranx import Qrels

from haygate.errors import DatasetError
from haygate.evaluation.interchange import (
    counted,
    from_trec_id,
    import_quepid,
    import_trec,
    quepid_query_id,
    read_qrels,
    trec_id,
    trec_qrels,
)
from haygate.gateway.judged_sets import QUERY_ID, read_all_grades, read_set_queries, write_split

PROJECT = Path(__file__).resolve().parents[3]
SETS = sorted(p.parent for p in (PROJECT / "evaluation").glob("*/eval.yaml"))
SECTION = "3.0/concepts/components.mdx#Components/Warming Up Components#4"  # an id with spaces


def written(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


class TestTrecIds:
    def test_whitespace_and_percent_are_encoded_and_read_back(self) -> None:
        odd = "a b\u00a0c%20d"
        assert trec_id(SECTION) == "3.0/concepts/components.mdx#Components/Warming%20Up%20Components#4"
        assert trec_id(odd) == "a%20b%C2%A0c%2520d" and len(trec_id(odd).split()) == 1
        assert from_trec_id(trec_id(odd)) == odd and from_trec_id(trec_id(SECTION)) == SECTION

    def test_plain_ids_are_written_as_they_are(self) -> None:
        assert trec_id("doc-1/x#y") == "doc-1/x#y"


class TestReadQrels:
    def test_trec_lines(self, tmp_path: Path) -> None:
        path = written(tmp_path / "q.txt", "q1 0 d1 2\nq1 0 a%20b 0\n\nq2 Q0 d1 3\n")
        grades, first = read_qrels(path)
        assert grades == {"q1": {"d1": 2, "a b": 0}, "q2": {"d1": 3}} and first == {"q1": 1, "q2": 4}

    def test_beir_tsv_by_its_header(self, tmp_path: Path) -> None:
        path = written(tmp_path / "test.tsv", f"query-id\tcorpus-id\tscore\nq1\t{SECTION}\t1\n")
        assert read_qrels(path)[0] == {"q1": {SECTION: 1}}

    def test_the_same_judgment_twice_is_one(self, tmp_path: Path) -> None:
        assert read_qrels(written(tmp_path / "q", "q1 0 d1 2\nq1 0 d1 2\n"))[0] == {"q1": {"d1": 2}}

    @pytest.mark.parametrize(
        ("text", "refusal"),
        [
            ("q1 0 d1 2\nq1 0 Warming Up 2\n", r"q:2: expected 4 fields 'query-id iteration doc-id grade', got 5 \("),
            ("q1 0 d1\n", "q:1: expected 4 fields .* got 3$"),
            ("q1 0 d1 4\n", r"q:1: grade 4 is outside haygate's scale, 0 \(not relevant\) to 3"),
            ("q1 0 d1 -1\n", "q:1: grade -1 is outside"),
            ("q1 0 d1 1.5\n", "q:1: grade '1.5' is not a whole number"),
            ("q1 0 d1 1\nq1 0 d1 3\n", "q:2: query 'q1' judges 'd1' 3, but line 1 judged it 1"),
            ("q/1 0 d1 1\n", "q:1: query id 'q/1' is not one a judged set can hold"),
            ("query-id\tcorpus-id\tscore\nq1\td1\n", "q:2: expected 3 tab-separated columns"),
            ("\n\n", "q: no judgments in it"),
        ],
    )
    def test_refusals_name_the_line(self, tmp_path: Path, text: str, refusal: str) -> None:
        with pytest.raises(DatasetError, match=re.escape(str(tmp_path / "q")) + refusal[1:]):
            read_qrels(written(tmp_path / "q", text))


class TestImportTrec:
    def test_queries_come_from_beir_jsonl_with_their_arguments(self, tmp_path: Path) -> None:
        qrels = written(tmp_path / "qrels.txt", "d1 0 a 2\n")
        topics = written(
            tmp_path / "queries.jsonl",
            '{"_id": "d0", "text": "unjudged"}\n'
            '{"_id": "d1", "text": "warm up", "metadata": {"arguments": {"version": "3.0"}}}\n',
        )
        imported = import_trec(qrels, topics)
        assert [(q.id, q.text, q.arguments) for q in imported.queries] == [("d1", "warm up", {"version": "3.0"})]
        assert imported.grades == {"d1": {"a": 2}}
        assert imported.notes == [
            f"left out 1 query of {topics} that {qrels} does not judge (in a judged set they would be queries that "
            "should find nothing), e.g. d0"
        ]

    def test_queries_come_from_a_tsv_with_or_without_a_header(self, tmp_path: Path) -> None:
        qrels = written(tmp_path / "qrels.txt", "1 0 a 1\n2 0 b 3\n")
        for header in ("", "qid\tquery\n"):
            topics = written(tmp_path / "topics.tsv", f"{header}1\tfirst query\n2\tsecond\tquery\n")
            imported = import_trec(qrels, topics)
            assert [(q.id, q.text) for q in imported.queries] == [("1", "first query"), ("2", "second\tquery")]

    @pytest.mark.parametrize(
        ("topics", "refusal"),
        [
            ("1\tfirst\n", "qrels.txt:2: query '2' is judged, but .*topics.tsv has no query with that id"),
            ("1\tfirst\n2\n", "topics.tsv:2: expected 'query-id<TAB>text'"),
            ("1\tfirst\n1\tagain\n", r"topics.tsv:2: query '1' again \(first on line 1\)"),
            ("1\tfirst\n2\t \n", "topics.tsv:2: query '2': text: String should have at least 1 character"),
        ],
    )
    def test_refusals_name_the_line(self, tmp_path: Path, topics: str, refusal: str) -> None:
        qrels = written(tmp_path / "qrels.txt", "1 0 a 1\n2 0 b 3\n")
        with pytest.raises(DatasetError, match=refusal):
            import_trec(qrels, written(tmp_path / "topics.tsv", topics))


@pytest.mark.parametrize("folder", SETS, ids=lambda folder: folder.name)
def test_every_example_set_round_trips_through_trec(tmp_path: Path, folder: Path) -> None:
    """Each split of each judged set of the example project, exported as TREC qrels and imported back into a
    new set: the same grades and the same queries (text and arguments), read by the set format's own readers;
    ranx reads the export as four fields a line."""
    original = read_all_grades(folder, set(read_set_queries(folder)))
    entries = read_set_queries(folder)
    topics = written(tmp_path / "queries.jsonl", (folder / "queries.jsonl").read_text())
    copy = tmp_path / "copy"
    for split in original:
        text, _ = trec_qrels(folder, split)
        exported = written(tmp_path / f"{split}.trec", text)
        assert Qrels.from_file(str(exported), kind="trec").to_dict() == {
            q: docs
            for q, docs in ((q, {trec_id(d): g for d, g in docs.items()}) for q, docs in original[split].items())
        }
        imported = import_trec(exported, topics)
        write_split(copy, "search_docs", split, imported.queries, imported.grades)
    assert read_all_grades(copy, set(read_set_queries(copy))) == original
    for query_id, entry in read_set_queries(copy).items():
        assert (entry["text"], entry["arguments"], entry["split"]) == (
            entries[query_id]["text"],
            entries[query_id]["arguments"],
            entries[query_id]["split"],
        )


def test_export_says_what_trec_qrels_cannot_hold(tmp_path: Path) -> None:
    folder = tmp_path / "set"
    written_queries = {"a": "judged", "b": "should find nothing"}
    (folder / "qrels").mkdir(parents=True)
    written(folder / "queries.jsonl", "".join(f'{{"_id": "{q}", "text": "{t}"}}\n' for q, t in written_queries.items()))
    written(folder / "qrels" / "test.tsv", f"query-id\tcorpus-id\tscore\na\t{SECTION}\t2\na\td2\t0\n")
    text, notes = trec_qrels(folder, "test")
    assert text == f"a 0 {trec_id(SECTION)} 2\na 0 d2 0\n"
    assert notes == [
        f"2 judgments of 1 query (test split of {folder})",
        "1 query with no judgment (they should find nothing) left out: TREC qrels hold judgments only, e.g. b",
        "1 judged id with a space or '%': written percent-encoded (%20, %25)",
    ]
    with pytest.raises(DatasetError, match=r"dev.tsv: no such split in .*set; its splits: test"):
        trec_qrels(folder, "dev")


class TestImportQuepid:
    BASIC = "query,docid,rating\nbearer token,d1,3\nbearer token,d2,0\n -negated filters,d3,1\nno ratings yet,,\n"

    def test_basic_export(self, tmp_path: Path) -> None:
        imported = import_quepid(written(tmp_path / "case.csv", self.BASIC))
        ids = [quepid_query_id("bearer token"), quepid_query_id("-negated filters")]
        assert [(q.id, q.text) for q in imported.queries] == [(ids[0], "bearer token"), (ids[1], "-negated filters")]
        assert imported.grades == {ids[0]: {"d1": 3, "d2": 0}, ids[1]: {"d3": 1}}
        assert imported.notes == [
            "ratings read on the 0-3 scale (the smallest that holds the highest rating, 3), mapped to grades 0-3: "
            "as they are",
            "left out 1 query with no rating, e.g. 'no ratings yet'",
        ]

    def test_detailed_export_reads_past_the_case_and_its_fields(self, tmp_path: Path) -> None:
        csv = (
            "Team Name,Case Name,Case ID,Query Text,Doc ID,Doc Position,Title,Rating,year,author\n"
            'Docs,"Case, one",8,bearer token,d1,1,Auth,10,2024,x\n'
            'Docs,"Case, one",8,bearer token,d2,2,Other,4.0,2023,y\n'
            'Docs,"Case, one",8,bearer token,d3,3,Unrated,,2023,y\n'
        )
        imported = import_quepid(written(tmp_path / "case.csv", csv))
        assert imported.grades == {quepid_query_id("bearer token"): {"d1": 3, "d2": 2}}
        assert imported.notes == [
            "ratings read on the 0-10 scale (the smallest that holds the highest rating, 10), mapped to grades 0-3: "
            "0 -> 0, 1-3 -> 1, 4-6 -> 2, 7-10 -> 3",
            "left out 1 document listed without a rating",
        ]

    @pytest.mark.parametrize(
        ("scale", "ratings", "grades"),
        [
            ("0-1", [0, 1], [0, 2]),
            ("0-3", [0, 1, 2, 3], [0, 1, 2, 3]),
            ("0-10", list(range(11)), [0, *(math.ceil(r * 3 / 10) for r in range(1, 11))]),
        ],
    )
    def test_each_scale_maps_onto_0_to_3(
        self, tmp_path: Path, scale: str, ratings: list[int], grades: list[int]
    ) -> None:
        csv = "Query Text,Doc ID,Rating\n" + "".join(f"q,d{r},{r}\n" for r in ratings)
        imported = import_quepid(written(tmp_path / "case.csv", csv), scale)
        assert imported.grades[quepid_query_id("q")] == {f"d{r}": g for r, g in zip(ratings, grades, strict=True)}
        assert "given with --scale" in imported.notes[0]

    def test_a_binary_guess_says_how_to_choose_another_scale(self, tmp_path: Path) -> None:
        imported = import_quepid(written(tmp_path / "case.csv", "query,docid,rating\nq,d1,1\nq,d2,0\n"))
        assert imported.grades == {quepid_query_id("q"): {"d1": 2, "d2": 0}}
        assert imported.notes[0].endswith(
            "0 -> 0, 1 -> 2 (relevant); if the case was rated 0-3, import again with --scale 0-3"
        )

    @pytest.mark.parametrize(
        ("text", "scale", "refusal"),
        [
            ("query,docid,grade\nq,d1,1\n", None, "case.csv:1: expected one rating or Rating column; Quepid's layouts"),
            ("query,docid,rating,notes\nq,d1,1,x\n", None, r"case.csv:1: unknown columns \['notes'\]"),
            ("query,docid,rating\nq,d1,2.5\n", None, "case.csv:2: rating 2.5 is not a whole number from 0"),
            ("query,docid,rating\nq,d1,-1\n", None, "case.csv:2: rating -1 is not a whole number from 0"),
            ("query,docid,rating\nq,d1,high\n", None, "case.csv:2: rating 'high' is not a number"),
            ("query,docid,rating\nq,d1,1\nq,d2,12\n", None, "case.csv:3: rating 12 is on none of the scales"),
            ("query,docid,rating\nq,d1,1\nq,d2,4\n", "0-3", "case.csv:3: rating 4 is above the 0-3 scale"),
            ("query,docid,rating\nq,,2\n", None, "case.csv:2: a rating with no doc id"),
            ("query,docid,rating\n,d1,2\n", None, "case.csv:2: no query text"),
            ("query,docid,rating\nq,d1,1\nq,d1,2\n", None, "case.csv:3: query '.*' judges 'd1' 2, but line 2"),
            ("query,docid,rating\nq,,\n", None, "case.csv: no rated documents in it"),
            (
                "Team Name,Case Name,Case ID,Query Text,Doc ID,Rating\nT,A,8,q,d1,1\nT,B,9,q,d2,1\n",
                None,
                r"case.csv: ratings of 2 cases, '8' \(line 2\), '9' \(line 3\): import one case per judged set",
            ),
        ],
    )
    def test_refusals_name_the_line(self, tmp_path: Path, text: str, scale: str | None, refusal: str) -> None:
        with pytest.raises(DatasetError, match=refusal):
            import_quepid(written(tmp_path / "case.csv", text), scale)


def test_quepid_query_ids_are_stable_readable_and_distinct() -> None:
    first = quepid_query_id("How do NOT filters work?")
    assert first == quepid_query_id("How do NOT filters work?") and first.startswith("how-do-not-filters-work-")
    assert first != quepid_query_id("How do NOT filters work")
    for text in ("Überblick", "日本語のクエリ", "x" * 300, "-= @"):
        assert re.match(QUERY_ID, quepid_query_id(text)), text


def test_counted() -> None:
    assert [counted(1, "query"), counted(2, "query"), counted(1200, "judgment")] == [
        "1 query",
        "2 queries",
        "1,200 judgments",
    ]
