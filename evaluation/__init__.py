"""The judged sets of the served tools: data (`queries.jsonl`, `qrels/`), one README and one check per set.

A package only so that each set's `check.py` can share `judged_sets.py`: `python -m evaluation.<tool>.check`.
"""
