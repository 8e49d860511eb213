import pytest

from haygate.text.content_type import content_type


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A paragraph of plain explanation.\nAnother sentence follows here.", "prose"),
        ("```python\nfrom haystack import Pipeline\np = Pipeline()\n```", "code"),
        (
            "Install it first, then check the version of the package you got.\n```bash\npip install haygate\n```",
            "mixed",
        ),
        ("", "prose"),
    ],
)
def test_content_type(text: str, expected: str) -> None:
    assert content_type(text) == expected
