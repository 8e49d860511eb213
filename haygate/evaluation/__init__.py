"""Batch evaluation and tuning of the served pipelines on judged (BEIR-layout) datasets."""
