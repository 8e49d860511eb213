"""The lines that go with a parameter, found in YAML as written (comments, flow and block styles kept)."""

from pathlib import Path

from haygate.gateway.fixes import cut, parameter_cuts, span_of

DECLARATION = """\
name: t
parameters:
  query: {type: string, required: true}
  version:
    type: string
    description: >-
      A folded
      description.
    examples:
    - '1.1'
  # the next parameter keeps its comment
  top_k:
    type: integer
"""
PIPELINE = """\
components:
  builder:
    type: x.QueryBuilder
    init_parameters:
      filters:
        version: {field: meta.version}
        source:
          field: meta.source
inputs:
  query: builder.query
  version: [builder.version]
"""


def test_a_span_ends_on_its_own_last_line_not_at_the_next_key() -> None:
    assert span_of(DECLARATION, ("parameters", "version")) == (4, 10)
    assert span_of(DECLARATION, ("parameters", "query")) == (3, 3)
    assert span_of(PIPELINE, ("components", "builder", "init_parameters", "filters", "source")) == (7, 8)
    assert span_of(PIPELINE, ("inputs", "nothing")) is None and span_of("a: [", ("a",)) is None


def test_the_cut_takes_the_parameter_its_input_and_its_filter_and_nothing_else(tmp_path: Path) -> None:
    declaration, pipeline = tmp_path / "t.yaml", tmp_path / "p.yaml"
    declaration.write_text(DECLARATION)
    pipeline.write_text(PIPELINE)
    cuts = parameter_cuts(declaration, pipeline, "version")
    assert [(c.path.name, c.first, c.last, c.what) for c in cuts] == [
        ("t.yaml", 4, 10, "the parameter"),
        ("p.yaml", 11, 11, "its pipeline input"),
        ("p.yaml", 6, 6, "the filter it fed"),
    ]
    after = {path.name: new for path, (_, new) in cut(cuts).items()}
    assert "version" not in after["t.yaml"] and "# the next parameter keeps its comment" in after["t.yaml"]
    assert "version" not in after["p.yaml"] and "source:\n          field: meta.source" in after["p.yaml"]
