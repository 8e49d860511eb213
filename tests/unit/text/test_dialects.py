"""Markdown read in its authors' dialect: what a reader of the built site sees, and each heading's anchor."""

import pytest

from haygate.text.dialects import Heading, anchor_slug, html_text, read

MKDOCS = """# Request Files { #request-files }

Use <abbr title="Cross-Origin Resource Sharing">CORS</abbr> and {{ a_macro }} here.

/// info

Install <a href="https://example.org" class="external-link">`python-multipart`</a> first.

///

!!! tip "Pro tip"
    Indented **content**.

??? note
    Collapsed.

=== "Python 3.10+"

    ```python
    print("hi")
    ```

/// note | Technical Details

You could also use `FileResponse`.

///

*[HTML]: Hyper Text Markup Language

A footnote[^1].

[^1]: The note's text.

<div class="grid" markdown>
<img src="flow.png" alt="A diagram of the flow">
</div>

## Define `File` Parameters { #define-file-parameters .cls }

Text.
"""


def test_mkdocs_reads_as_its_site_shows_it() -> None:
    page = read(MKDOCS)
    assert page.dialects == ["mkdocs"]
    assert page.headings == [
        Heading(1, "Request Files", "request-files", True),
        Heading(2, "Define `File` Parameters", "define-file-parameters", True),
    ]
    body = page.body
    assert "Use CORS and  here." in body  # the tag's text stays, the macro goes
    assert "Info: Install `python-multipart` first." in body
    assert "Tip: Pro tip\n\nIndented **content**." in body
    assert "Note: Collapsed." in body
    assert 'Python 3.10+:\n\n```python\nprint("hi")\n```' in body
    assert "Note: Technical Details\n\nYou could also use `FileResponse`." in body
    assert "A footnote[1].\n\n[1]: The note's text." in body  # the note where it was written
    assert "A diagram of the flow" in body
    for raw in ("{ #", "///", "!!!", "???", "===", "*[HTML]", "<abbr", "<div", "<img", "{{", "}}"):
        assert raw not in body, raw


DOCUSAURUS = """import Tabs from '@theme/Tabs';
import TabItem from '@theme/TabItem';

# Installation {#install}

:::tip My tip

Use the `classic` template.

:::

:::warning[Careful]
Do not edit `build/`.
:::

<Tabs>
  <TabItem value="npm" label="npm">

```bash
npm install
```

  </TabItem>
</Tabs>

<details>
  <summary>Why Node 18?</summary>

  Because of fetch.
</details>
"""


def test_docusaurus_mdx_loses_its_statements_and_components_not_their_words() -> None:
    page = read(DOCUSAURUS)
    assert page.dialects == ["docusaurus"]
    assert page.headings == [Heading(1, "Installation", "install", True)]
    assert page.body.startswith("# Installation\n\nTip: My tip\n\nUse the `classic` template.")
    assert "Warning: Careful\n\nDo not edit `build/`." in page.body
    assert "npm:\n\n```bash\nnpm install\n```" in page.body
    assert "Why Node 18?" in page.body and "Because of fetch." in page.body
    for raw in ("import ", ":::", "<Tabs", "<TabItem", "<details", "{#"):
        assert raw not in page.body, raw


MYST = """(intro-label)=
# Introduction

See {ref}`the guide <guide>` and {py:func}`open`.

```{note}
A plain **note**.
```

```{warning} Mind this
:class: dropdown
Body of the warning.
```

```{code-block} python
:caption: an example
print(1)
```

```{literalinclude} ../src/app.py
:lines: 3-5
```

:::{tip}
Colon fence tip.
:::

% a comment
"""


def test_myst_directives_roles_and_targets() -> None:
    page = read(MYST)
    assert page.dialects == ["myst"]
    assert page.headings == [Heading(1, "Introduction", "intro-label", True)]
    assert "See the guide and `open`." in page.body
    assert "Note: A plain **note**." in page.body
    assert "Warning: Mind this\n\nBody of the warning." in page.body
    assert "```python\nprint(1)\n```" in page.body and ":caption:" not in page.body
    assert "Tip: Colon fence tip." in page.body
    assert page.missing == ["../src/app.py"] and page.included == []  # no folder to read it from
    assert "a comment" not in page.body and "{note}" not in page.body


def test_commonmark_keeps_its_code_tables_lists_and_links() -> None:
    body = (
        "# Guide\n\nSee [the docs](https://example.org/docs) and `x`.\n\n"
        "```bash\n# not a heading\n```\n\n| a | b |\n|:--|--:|\n| 1 \\| 2 | `3` |\n\n- one\n- two\n  - nested\n\n"
        "1. first\n2. second\n\n> quoted\n\n    indented code\n"
    )
    page = read(body)
    assert page.dialects == ["commonmark"] and [h.text for h in page.headings] == ["Guide"]
    assert "See [the docs](https://example.org/docs) and `x`." in page.body
    assert "```bash\n# not a heading\n```" in page.body
    assert "| a | b |\n| :--- | ---: |\n| 1 \\| 2 | `3` |" in page.body
    assert "- one\n- two\n  - nested" in page.body and "1. first\n2. second" in page.body
    assert "> quoted" in page.body and "```\nindented code\n```" in page.body
    assert read(body, "commonmark").body == page.body


def test_a_heading_without_an_anchor_gets_the_sites_slug() -> None:
    [heading] = read("## How `npm install` uses [`package-lock.json`](/lock)\n").headings
    assert heading == Heading(2, "How `npm install` uses `package-lock.json`", "how-npm-install-uses-package-lockjson")
    assert anchor_slug("What's new in 2.0?") == "whats-new-in-20"


def test_html_blocks_read_as_their_text() -> None:
    assert html_text('<p align="center"><img src="a.png" alt="Logo"> <b>Fast</b></p>') == "Logo Fast"
    assert html_text("<!-- hidden -->") == "" and html_text("<script>alert(1)</script>text") == "text"


def test_an_unknown_dialect_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown Markdown dialect 'rst'"):
        read("# x", "rst")  # type: ignore[arg-type]


def test_an_anchor_on_its_own_line_is_an_extra_name_and_api_injections_name_their_object() -> None:
    """As Pydantic's docs write them: `[](){#numeric-constraints}` above `## Field constraints` (an old name kept
    so old links land there: the heading keeps its own anchor, its slug), and mkdocstrings'
    `::: pydantic.BaseModel` (API docs made from code, which the file does not hold)."""
    source = "[](){#number-types}\n{#old-numbers}\n\n## Numbers\n\n{#lost}\n\nText.\n\n### Integers { #ints }\n\n"
    page = read(source + "::: pydantic.BaseModel\n    options:\n      x: 1\n")
    assert [(h.text, h.anchor, h.explicit) for h in page.headings] == [
        ("Numbers", "numbers", False),
        ("Integers", "ints", True),  # the heading's own attribute list is its anchor
    ]
    assert page.body == "## Numbers\n\nText.\n\n### Integers\n\nAPI reference: `pydantic.BaseModel`\n"
    assert read("::: tip\nA tip.\n:::\n").body == "Tip: A tip.\n"  # a spaced admonition stays one
    assert read("::: pydantic_core\n").body == "API reference: `pydantic_core`\n"
    linked = read("## Using the [`Field()`][pydantic.Field] function\n").headings  # mkdocs-autorefs' reference
    assert [h.text for h in linked] == ["Using the `Field()` function"]


def test_an_attribute_list_on_a_line_of_its_own_in_a_list_item_is_its_anchor_not_its_text() -> None:
    """Pydantic's `* ***Plain* serializers**: ...` item, followed by `{#model-plain-serializer}` and code."""
    page = read(
        "* **Plain** serializers: are called.\n  {#model-plain-serializer}\n\n    ```python\n    x = 1\n    ```\n"
    )
    assert "{#" not in page.body and "**Plain** serializers: are called." in page.body and "x = 1" in page.body
