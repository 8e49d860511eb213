"""search_by_skills (spec 000) end to end: bundled CVs in a real store, the real FastMCP in-memory client."""

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from fastmcp import Client

from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from haygate.ingest.indexer import ingest_files
from haygate.settings import Settings
from tests.support.project import make_settings
from tests.support.serving import mcp_for

pytestmark = pytest.mark.integration

MESSAGE = "No candidates found with required skill combination. Try broadening criteria."
# From samples/candidates/cvs.jsonl, by reading the CVs: who has Python and Machine Learning (or "ML").
PYTHON_AND_ML = {f"fx-cv-{n:02d}" for n in (1, 2, 4, 7, 8, 9, 10, 12, 13, 21, 22, 23, 27, 32, 35)}
SENIOR = {f"fx-cv-{n:02d}" for n in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 36)}
K8S_ONLY = {"fx-cv-06", "fx-cv-10", "fx-cv-15", "fx-cv-34"}  # say "K8s", never "Kubernetes"
ORCHESTRATION_ONLY = "fx-cv-30"  # says only "container orchestration"


async def call(gateway: Gateway, arguments: dict[str, Any]) -> Any:
    async with Client(mcp_for(gateway)) as client:
        return await client.call_tool("search_by_skills", arguments, raise_on_error=False)


async def search(gateway: Gateway, **arguments: Any) -> dict[str, Any]:
    result = await call(gateway, arguments)
    assert result.is_error is False, result.content
    data: dict[str, Any] = result.structured_content
    return data


async def error_of(gateway: Gateway, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await call(gateway, arguments)
    assert result.is_error is True
    error: dict[str, Any] = json.loads(result.content[0].text)["error"]
    return error


async def test_schema_describes_every_parameter(gateway: Gateway) -> None:
    async with Client(mcp_for(gateway)) as client:
        [tool] = [t for t in await client.list_tools() if t.name == "search_by_skills"]
    schema = tool.input_schema
    assert schema["required"] == ["required_skills"] and schema["additionalProperties"] is False
    for name, prop in schema["properties"].items():
        assert prop.get("description") and prop.get("examples"), name
    assert schema["properties"]["required_skills"]["minItems"] == 1
    assert schema["properties"]["experience_level"]["enum"] == ["junior", "mid", "senior"]
    top_k = schema["properties"]["top_k"]
    assert (top_k["default"], top_k["minimum"], top_k["maximum"]) == (5, 1, 50)
    assert tool.annotations is not None and tool.annotations.read_only_hint is True


async def test_required_skills_match_and_result_has_the_spec_shape(gateway: Gateway) -> None:
    data = await search(gateway, required_skills=["Python", "Machine Learning"], top_k=50)
    async with Client(mcp_for(gateway)) as client:
        [tool] = [t for t in await client.list_tools() if t.name == "search_by_skills"]
    jsonschema.validate(data, tool.output_schema)
    complete = [c for c in data["candidates"] if not c["missing_skills"]]
    assert {c["candidate_id"] for c in complete} == PYTHON_AND_ML
    for candidate in complete:
        assert candidate["matched_required_skills"] == ["Python", "Machine Learning"]
    # Everyone with both skills ranks above everyone missing one, and the missing one is named.
    first_partial = next(i for i, c in enumerate(data["candidates"]) if c["missing_skills"])
    assert first_partial == len(complete)
    for candidate in data["candidates"][first_partial:]:
        assert len(candidate["missing_skills"]) == 1
        assert set(candidate["missing_skills"]) | set(candidate["matched_required_skills"]) == {
            "Python",
            "Machine Learning",
        }
    scores = [c["match_score"] for c in data["candidates"]]
    assert scores == sorted(scores, reverse=True) and all(0 <= s <= 1 for s in scores)
    assert data["metadata"]["query"] == "Find candidates with Python and Machine Learning experience"
    assert data["metadata"]["result_count"] == len(data["candidates"])


async def test_alias_matches_are_labelled(gateway: Gateway) -> None:
    data = await search(gateway, required_skills=["Machine Learning"], top_k=50)
    by_id = {c["candidate_id"]: c for c in data["candidates"]}
    [detail] = by_id["fx-cv-07"]["match_details"]  # says "ML" only
    assert (detail["method"], detail["evidence"]) == ("alias", "ml")
    [detail] = by_id["fx-cv-02"]["match_details"]
    assert detail["method"] == "exact"


async def test_kubernetes_finds_k8s_and_container_orchestration(gateway: Gateway) -> None:
    data = await search(gateway, required_skills=["Kubernetes"], top_k=50)
    by_id = {c["candidate_id"]: c for c in data["candidates"]}
    assert K8S_ONLY | {ORCHESTRATION_ONLY} <= set(by_id)
    for candidate_id in K8S_ONLY:
        [detail] = by_id[candidate_id]["match_details"]
        assert detail["method"] == "alias" and "k8s" in detail["evidence"]
    [detail] = by_id[ORCHESTRATION_ONLY]["match_details"]
    assert detail["method"] == "semantic" and "container orchestration" in detail["evidence"].lower()
    assert detail["similarity"] >= 0.7
    # "Containerised services" (fx-cv-14) and Docker-only CVs are not Kubernetes.
    assert not {"fx-cv-14", "fx-cv-18", "fx-cv-25", "fx-cv-31", "fx-cv-33"} & set(by_id)


async def test_a_skill_named_by_its_meaning_matches_semantically(gateway: Gateway) -> None:
    data = await search(gateway, required_skills=["container orchestration"], top_k=50)
    ids = {c["candidate_id"] for c in data["candidates"]}
    assert K8S_ONLY | {ORCHESTRATION_ONLY} <= ids
    assert {d["method"] for c in data["candidates"] for d in c["match_details"]} == {"semantic"}


async def test_a_wording_outside_the_vocabulary_matches_what_the_cv_says(gateway: Gateway) -> None:
    """No vocabulary skill means "recommender systems"; fx-cv-01's headline says "Recommendation Systems"."""
    data = await search(gateway, required_skills=["recommender systems"])
    first = data["candidates"][0]
    assert first["candidate_id"] == "fx-cv-01"
    [detail] = first["match_details"]
    assert detail["method"] == "semantic" and detail["evidence"] == "Recommendation Systems"
    assert detail["similarity"] >= 0.72


async def test_a_request_that_means_a_vocabulary_skill_finds_the_cvs_that_name_it(gateway: Gateway) -> None:
    data = await search(gateway, required_skills=["relational databases"], top_k=50)
    named = await search(gateway, required_skills=["SQL"], top_k=50)
    assert named["candidates"], "no sample CV names SQL: the check below would check nothing"
    assert {c["candidate_id"] for c in named["candidates"]} <= {c["candidate_id"] for c in data["candidates"]}
    for candidate in data["candidates"][: len(named["candidates"])]:  # the CVs that name SQL come first
        [detail] = candidate["match_details"]
        assert detail["method"] == "semantic" and detail["evidence"] == "SQL"


@pytest.mark.parametrize("nonsense", ["underwater basket weaving", "beekeeping", "Solidity smart contracts"])
async def test_a_skill_no_cv_has_still_gets_the_empty_result(gateway: Gateway, nonsense: str) -> None:
    data = await search(gateway, required_skills=[nonsense])
    assert data["candidates"] == [] and data["metadata"]["message"] == MESSAGE


def test_a_cvs_phrases_are_written_and_deleted_with_it(samples_copy: Path) -> None:
    """Each phrase is stored once and names its CVs: deleting a CV takes it off them, and deletes the phrases
    no other CV says."""
    from haygate.ingest.indexer import delete_records

    with Loader(make_settings(samples_copy)) as loader:
        store = loader.store("candidates")
        phrases = {"field": "meta.document_type", "operator": "==", "value": "phrase"}
        said_by = {"field": "meta.record_ids", "operator": "==", "value": "fx-cv-01"}
        before, its_own = store.count_documents(phrases), store.meta_by_filter(said_by)
        only_its = [d.id for d in its_own if d.meta["record_ids"] == ["fx-cv-01"]]
        assert len(its_own) > 20 and only_its and len(only_its) < len(its_own)  # some are shared
        with store.batch():
            delete_records(store, ["fx-cv-01"])
        assert store.count_documents(said_by) == 0
        assert store.count_documents(phrases) == before - len(only_its)  # the other CVs keep theirs
        assert store.get_documents_by_id(only_its) == []


async def test_experience_level_filters(gateway: Gateway) -> None:
    data = await search(gateway, required_skills=["Python", "Machine Learning"], experience_level="senior", top_k=50)
    assert data["candidates"]
    assert {c["candidate_id"] for c in data["candidates"]} <= SENIOR
    assert {c["experience_level"] for c in data["candidates"]} == {"senior"}
    assert data["metadata"]["query"] == "Find senior candidates with Python and Machine Learning experience"


async def test_each_candidate_says_what_its_level_rests_on(gateway: Gateway) -> None:
    data = await search(gateway, required_skills=["Python", "Machine Learning"], top_k=50)
    by_id = {c["candidate_id"]: c for c in data["candidates"]}
    # fx-cv-01 states "over 9 years of experience"; fx-cv-07 has "Present" ranges and as_of 2026-11-01.
    assert (by_id["fx-cv-01"]["experience_basis"], by_id["fx-cv-01"]["years_of_experience"]) == ("stated", 9.0)
    assert (by_id["fx-cv-07"]["experience_basis"], by_id["fx-cv-07"]["experience_level"]) == ("as_of", "senior")
    assert by_id["fx-cv-32"]["experience_basis"] == "none" and by_id["fx-cv-32"]["years_of_experience"] is None
    assert {c["experience_open_ended"] for c in data["candidates"]} == {False}  # every sample CV is dated


async def test_an_undated_open_range_is_flagged_not_measured_to_today(
    loader: Loader, settings: Settings, tmp_path: Path
) -> None:
    """Issue #13: "Nov 2017 to Present" with no other date was measured to today and labelled senior."""
    text = "Data analyst. Python, SQL.\n\nWORK EXPERIENCE\nData Analyst, Acme\nNov 2017 to Present\n"
    source = tmp_path / "cvs.jsonl"
    records = [
        {"id": "undated", "name": "Candidate U", "text": text},
        {"id": "dated", "name": "Candidate D", "text": text, "as_of": "2026-11-01"},
    ]
    source.write_text("".join(json.dumps(r) + "\n" for r in records))
    report = ingest_files(loader.collection("candidates"), [source], progress=False)
    assert not report.errors, report.errors
    tool_gateway = Gateway.load(loader, files=[settings.tools_dir / "search_by_skills.yaml"])
    async with Client(mcp_for(tool_gateway)) as client:
        [tool] = [t for t in await client.list_tools() if t.name == "search_by_skills"]
    data = await search(tool_gateway, required_skills=["Python"])
    jsonschema.validate(data, tool.output_schema)
    by_id = {c["candidate_id"]: c for c in data["candidates"]}
    undated, dated = by_id["undated"], by_id["dated"]
    assert (undated["experience_open_ended"], undated["experience_basis"]) == (True, "open_ended")
    assert (undated["experience_level"], undated["years_of_experience"]) == ("junior", 0.08)
    assert (dated["experience_open_ended"], dated["experience_basis"], dated["experience_level"]) == (
        False,
        "as_of",
        "senior",
    )
    seniors = await search(tool_gateway, required_skills=["Python"], experience_level="senior")
    assert [c["candidate_id"] for c in seniors["candidates"]] == ["dated"]


async def test_preferred_skills_rank_higher(gateway: Gateway) -> None:
    data = await search(gateway, required_skills=["Python", "Machine Learning"], preferred_skills=["AWS"], top_k=50)
    complete = [c for c in data["candidates"] if not c["missing_skills"]]
    with_aws = [i for i, c in enumerate(complete) if c["matched_preferred_skills"] == ["AWS"]]
    without = [i for i, c in enumerate(complete) if not c["matched_preferred_skills"]]
    assert with_aws and without and max(with_aws) < min(without)
    assert "nice to have: AWS" in data["metadata"]["query"]
    # fx-cv-08 says "Amazon Web Services" only: an alias match for AWS.
    [aws] = [d for c in complete if c["candidate_id"] == "fx-cv-08" for d in c["match_details"] if d["skill"] == "AWS"]
    assert aws["method"] == "alias" and aws["required"] is False


async def test_no_match_gives_empty_candidates_and_the_spec_message(gateway: Gateway) -> None:
    data = await search(gateway, required_skills=["NonexistentSkill123"])
    assert data["candidates"] == []
    assert data["metadata"] == {"query": data["metadata"]["query"], "result_count": 0, "message": MESSAGE}


async def test_top_k_limits_and_aggregates_chunks_per_candidate(gateway: Gateway) -> None:
    data = await search(gateway, required_skills=["Terraform"], top_k=50)
    ids = [c["candidate_id"] for c in data["candidates"]]
    assert len(ids) == len(set(ids))  # long CVs are several chunks, one entry each
    assert {"fx-cv-03", "fx-cv-17"} <= set(ids)  # Terraform only in the last chunk of these long CVs
    assert len((await search(gateway, required_skills=["Terraform"], top_k=2))["candidates"]) == 2


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({}, "required_skills"),
        ({"required_skills": []}, "required_skills"),
        ({"required_skills": ["Python", ""]}, "required_skills"),
        ({"required_skills": "Python"}, "required_skills"),
        ({"required_skills": ["Python"], "experience_level": "principal"}, "experience_level"),
        ({"required_skills": ["Python"], "top_k": 0}, "top_k"),
        ({"required_skills": ["Python"], "top_k": 51}, "top_k"),
        ({"required_skills": ["Python"], "location": "Pune"}, "location"),
    ],
)
async def test_invalid_arguments_get_validation_error(gateway: Gateway, arguments: dict[str, Any], field: str) -> None:
    error = await error_of(gateway, arguments)
    assert error["code"] == "VALIDATION_ERROR"
    [problem] = [p for p in error["details"]["errors"] if p["field"] == field]
    if field == "experience_level":
        assert problem["allowed"] == ["junior", "mid", "senior"]
