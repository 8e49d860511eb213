"""Benchmarks: what a call, an ingest, a build or a served process costs. Each prints one JSON document.

`python -m scripts.bench` (also `make bench`) runs the core set; `python -m scripts.bench.<name> --help` the rest.
"""
