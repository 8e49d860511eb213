"""Pure text helpers, without Haystack: normalisation, query syntax, Markdown, templates, CV profiles."""
