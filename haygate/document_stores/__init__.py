"""The fat stores: one backend-neutral hybrid query plan (`hybrid.py`), executed in-process on Qdrant
Edge (`edge/`) or on a Qdrant server or cluster through qdrant-haystack (`server/`), with the same
collection layout, so the same pipelines run on either."""
