"""From files to a collection: collection schemas, record readers, record -> Document mapping, and the
idempotent ingest that runs a collection's indexing pipeline on new and changed records only."""
