"""Three tiny CVs: a senior naming Kubernetes by alias, a junior in Java, and one saying only
"container orchestration"."""

from pathlib import Path

from haystack import Document

VOCABULARY = Path(__file__).resolve().parents[2] / "configs" / "skills.yaml"
CVS = [
    Document(
        id="cv1",
        content="Senior engineer, 9 years of experience. Python, ML and K8s.",
        meta={"record_id": "cv1", "name": "Ada", "as_of": "2026-01-01"},
    ),
    Document(
        id="cv2", content="Junior developer with 1 year of experience in Java.", meta={"record_id": "cv2", "name": "Bo"}
    ),
    Document(
        id="cv3",
        content="Designed container orchestration for 40 services. 4 years of experience with Python.",
        meta={"record_id": "cv3", "name": "Cy"},
    ),
]
