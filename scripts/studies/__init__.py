"""Studies: which setting or rule does best on a judged set, measured through haygate's own machinery.

Each prints one JSON document; `python -m scripts.studies.<name> --help` says what it compares.
"""
