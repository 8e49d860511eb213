"""haygate's Haystack components, one per module, named after its class.

Components are thin: they take JSON-serialisable settings (and, where they read or write data, a document
store built by the loader) in `__init__`, load models in `warm_up`, and return new objects from `run`.
"""
