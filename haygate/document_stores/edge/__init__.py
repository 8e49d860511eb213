"""Qdrant Edge: Qdrant's own engine in-process, one shard folder per collection."""
