"""Cohen's kappa between a judged set's raters (`haygate.gateway.agreement`), on worked examples."""

import pytest

from haygate.gateway.agreement import agreement, cohen_kappa, raters_of, reading


def test_kappa_on_the_textbook_example() -> None:
    """Cohen (1960)'s layout, as Wikipedia works it: 50 items, 20 both yes, 15 both no, 5 and 10 split: 0.4."""
    first = [1] * 20 + [1] * 5 + [0] * 10 + [0] * 15
    second = [1] * 20 + [0] * 5 + [1] * 10 + [0] * 15
    assert cohen_kappa(first, second, 2) == pytest.approx(0.4)


def test_weighted_kappa_counts_near_grades_as_partial_agreement() -> None:
    first, near, far = [0, 1, 2, 3, 3, 2, 1, 0], [0, 1, 2, 2, 3, 2, 1, 1], [0, 1, 2, 0, 3, 2, 1, 3]
    assert cohen_kappa(first, near, 4) == cohen_kappa(first, far, 4)  # two disagreements each
    near_weighted, far_weighted = cohen_kappa(first, near, 4, True), cohen_kappa(first, far, 4, True)
    assert near_weighted is not None and far_weighted is not None and near_weighted > far_weighted
    assert cohen_kappa(first, first, 4, True) == 1.0
    assert cohen_kappa([2, 2, 2], [2, 2, 2], 4) is None  # one grade throughout: no agreement beyond chance to find


def test_each_pair_of_raters_over_the_results_both_graded() -> None:
    raters = {
        "q1": {"a": {"ann": 3, "bob": 3, "cy": 0}, "b": {"ann": 0, "bob": 1}},
        "q2": {"c": {"ann": 2, "bob": 2}, "d": {"cy": 1}},
    }
    pairs = {tuple(pair.raters): pair for pair in agreement(raters)}
    assert set(pairs) == {("ann", "bob"), ("ann", "cy"), ("bob", "cy")}
    ann_bob = pairs[("ann", "bob")]
    assert (ann_bob.results, ann_bob.agreed) == (3, round(2 / 3, 4))
    assert ann_bob.relevant_kappa == cohen_kappa([1, 0, 1], [1, 1, 1], 2)
    assert "only 3 results graded by both" in ann_bob.reading
    assert pairs[("ann", "cy")].results == 1


def test_readings_follow_landis_and_koch() -> None:
    assert reading(0.6, 40) == "moderate" and reading(0.61, 40) == "substantial"
    assert reading(0.95, 40) == "almost perfect" and reading(-0.1, 40).startswith("poor")
    assert reading(None, 40).startswith("undefined")


def test_raters_are_read_from_a_split_of_judging_json() -> None:
    split = {"q1": {"ranking": ["a"], "raters": {"a": {"ann": 1}}}, "q2": {"ranking": []}, "q3": "broken"}
    assert raters_of(split) == {"q1": {"a": {"ann": 1}}}
    assert raters_of(None) == {}
