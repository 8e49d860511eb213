"""This project's own components: they serve its tools only, where `haygate`'s components are generic.

A pipeline names them as `components.<module>.<Class>`, and the loader imports them from the project home's
`components/` package, through the same allow-list as haygate's and Haystack's own (nothing else can be
named in YAML). `haygate init` writes this folder into every new project, for its own components.

- `cv_profile`, `cv_profiler`, `skill_coverage_ranker`, `skills`: CV profiles and skill coverage for
  `search_by_skills` (spec 000);
- `linked_page`: the linked pages of `memory_search` and `memory_fulltext_search` (spec 004).
"""
