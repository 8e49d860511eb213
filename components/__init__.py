"""haygate's Haystack components: store, embedders, query builder, retriever, ranker, formatter."""

import haygate._env  # noqa: F401  (offline defaults before Haystack and transformers load)
