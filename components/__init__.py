"""This project's own components: they serve its tools only, where `haygate`'s components are generic.

A pipeline names them as `components.<module>.<Class>`, and the loader imports them from the project home's
`components/` package, through the same allow-list as haygate's and Haystack's own (nothing else can be
named in YAML). `haygate init` writes this folder into every new project, for its own components.

Of haygate they import `haygate.api` alone, the surface kept stable for them; a component says which stage
of a call it is timed as with a `stage` class attribute (`haygate.api.Stage`).

- `cv_profile`, `cv_profiler`, `skill_coverage_ranker`, `skills`: CV profiles and skill coverage for
  `search_by_skills`;
- `linked_page`: the linked pages of `memory_search` and `memory_fulltext_search`.
"""
