"""The core that turns YAML into running tools, used alike by the servers, ingest, evaluation and the CLI:
tool declarations and their schemas (`declarations`), the loader that builds stores and pipelines
(`loader`), the tools that run them (`runtime`, `catalog`) and the serialised writes (`writer`). Nothing here
speaks HTTP or MCP: that is `haygate.server`."""
