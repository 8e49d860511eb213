"""A Qdrant server or cluster, through qdrant-haystack's `QdrantDocumentStore`."""
