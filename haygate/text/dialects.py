"""Markdown as its authors wrote it: MkDocs (Python-Markdown, Material, pymdownx), Docusaurus MDX and MyST read
the way a reader of the built site reads them, into plain CommonMark with GitHub's tables.

A documentation site's source is not CommonMark: headings carry attribute lists (`## Files { #files }`), notes
are fenced (`!!! tip "Title"`, `/// note | Title`, `:::tip Title`, ```` ```{note} ````), examples sit in
tabs (`=== "Python"`, `<TabItem label="Python">`), roles and inline HTML wrap words (`{ref}`label``,
`<abbr title="...">CORS</abbr>`). Read raw, all of it reaches titles, ids, the index and the agent. So a file
is parsed by markdown-it-py with the plugins for each dialect (mdit-py-plugins; mdformat-mkdocs' parser
plugins for MkDocs' syntax) and written back as the Markdown a reader would have seen:

- headings as their text, the author's explicit anchor (`{ #id }`, MyST's `(label)=`) kept apart;
- admonitions, blocks, containers and directives as prose led by a label (`Tip: Title`), tabs by theirs;
- roles as their text, inline HTML as its text (`<img>` as its alt text), HTML blocks and JSX as their text
  and labels; MDX's `import`/`export` lines, abbreviation definitions and `{{ macros }}` left out;
- code fences, tables, lists, quotes and links as CommonMark.

The heading splitter, the chunker and the embedder then read clean text. A file in no dialect reads as
CommonMark with GitHub's tables, as before.
"""

import functools
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Literal

from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode

from haygate.text.includes import MARKDOWN, SNIPPET, Includes, language_of, line_ranges

Dialect = Literal["auto", "commonmark", "mkdocs", "docusaurus", "myst"]
DIALECTS: tuple[Dialect, ...] = ("auto", "commonmark", "mkdocs", "docusaurus", "myst")

# Which dialect a piece of syntax belongs to: what a page reports it was written in.
_SYNTAX_DIALECT = {
    "admonition": "mkdocs",
    "admonition_mkdocs": "mkdocs",
    "content_tab_mkdocs": "mkdocs",
    "container_slash": "mkdocs",
    "mkdocs_abbreviation": "mkdocs",
    "pymd_snippet": "mkdocs",
    "python_markdown_attr_list": "mkdocs",
    "mkdocstrings_injection": "mkdocs",
    "container_colon": "docusaurus",
    "myst_role": "myst",
    "myst_target": "myst",
    "myst_line_comment": "myst",
    "myst_block_break": "myst",
}
# MyST directives whose body is prose under a label, and those that are code.
_PROSE_DIRECTIVES = frozenset(
    [
        "note",
        "tip",
        "hint",
        "important",
        "warning",
        "caution",
        "attention",
        "danger",
        "error",
        "seealso",
        "admonition",
        "todo",
        "versionadded",
        "versionchanged",
        "deprecated",
        "topic",
        "sidebar",
        "margin",
        "dropdown",
        "card",
        "tab-item",
        "grid-item-card",
        "figure",
    ]
)
_CODE_DIRECTIVES = frozenset({"code-block", "code", "sourcecode", "code-cell"})
_INCLUDE_DIRECTIVES = frozenset({"literalinclude", "include"})
_OPTION_LINE = re.compile(r"^:[\w-]+:(?:\s.*)?$")  # a MyST directive's `:caption: ...` line
_MDX_STATEMENT = re.compile(r"^(?:import|export)\s")
_HEADING_ID = re.compile(r"\s*\{:?\s*#([\w.:-]+)(?:\s[^}]*)?\}$")  # a heading's own anchor, `{#id .class}`
_INJECTION = re.compile(r"^\s+([\w.-]+)\s*$")  # mkdocstrings' `::: package.module.Name`, if no admonition's
_ADMONITIONS = frozenset(
    ["note", "tip", "info", "caution", "danger", "warning", "important", "success", "secondary", "hint"]
)
_BLOCK_ID = re.compile(r"^(?:\[\]\(\))?\{:?\s*#([\w.:-]+)\s*\}$")  # a paragraph that is only an anchor
_UNRESOLVED_REFERENCE = re.compile(r"\[((?:[^\[\]\n]|\[[^\[\]\n]*\])+)\]\[[^\]\n]*\]")  # `[text][ref]`, never defined
_ATTRIBUTE_LINE = re.compile(r"^[ \t]*\{:?[ \t]*#[\w.:-]+[^{}\n]*\}[ \t]*(?:\n|$)", re.MULTILINE)
_BLOCK_INFO = re.compile(r"^\s*\{?([\w-]+)\}?(?:\[([^\]]*)\])?\s*(?:\|\s*)?(.*?)\s*$")


@dataclass(frozen=True)
class Heading:
    """A heading as a reader sees it: its level, its text, and the anchor a link to it uses (the author's own
    where one is written, else the slug a site generator makes of the text)."""

    level: int
    text: str
    anchor: str
    explicit: bool = False


@dataclass
class Page:
    """A Markdown file read in its dialect: the clean body, its headings in order, and what was found."""

    body: str
    headings: list[Heading] = field(default_factory=list)
    dialects: list[str] = field(default_factory=list)  # the dialects whose syntax the file used
    included: list[str] = field(default_factory=list)  # files read in, by their path inside the ingested folder
    missing: list[str] = field(default_factory=list)  # includes that could not be read, as written (left out)


def anchor_slug(text: str) -> str:
    """The anchor Python-Markdown's toc (MkDocs) and most generators give a heading: 'Request `File`s!' ->
    'request-files'."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", folded).strip().lower())


@functools.cache
def parser(dialect: Dialect) -> MarkdownIt:
    """markdown-it with the plugins of `dialect` ("auto": all of them; "commonmark": GitHub's tables only).
    The plugins load here, on the first file read: a server that reads no Markdown never waits for them."""
    from mdformat_mkdocs.mdit_plugins import (  # a seventh of a second of imports (mdformat's renderer)
        material_admon_plugin,
        material_content_tabs_plugin,
        mkdocstrings_injection_plugin,
        pymd_abbreviations_plugin,
        pymd_snippet_plugin,
        python_markdown_attr_list_plugin,
    )
    from mdit_py_plugins.container import container_plugin
    from mdit_py_plugins.footnote import footnote_plugin
    from mdit_py_plugins.myst_blocks import myst_block_plugin
    from mdit_py_plugins.myst_role import myst_role_plugin

    md = MarkdownIt("commonmark").enable("table")
    if dialect == "commonmark":
        return md
    md.use(footnote_plugin)
    if dialect in ("auto", "mkdocs"):
        md.use(material_admon_plugin).use(material_content_tabs_plugin).use(pymd_abbreviations_plugin)
        md.use(pymd_snippet_plugin).use(python_markdown_attr_list_plugin).use(mkdocstrings_injection_plugin)
        md.use(container_plugin, "slash", marker="/", validate=lambda *_: True)
    if dialect in ("auto", "docusaurus", "myst"):
        injections = dialect == "auto"  # `::: package.Name` is mkdocstrings', not an admonition
        md.use(container_plugin, "colon", marker=":", validate=lambda info, _: not (injections and _is_injection(info)))
    if dialect == "docusaurus":
        md.use(python_markdown_attr_list_plugin)  # `## Title {#custom-id}`
    if dialect in ("auto", "myst"):
        md.use(myst_role_plugin).use(myst_block_plugin)
    return md


def read(body: str, dialect: Dialect = "auto", includes: Includes | None = None) -> Page:
    """The body of a Markdown file (front matter already taken off) as a reader of its site reads it; its code
    includes read in by `includes` (none given: each is left out, and counted missing)."""
    if dialect not in DIALECTS:
        raise ValueError(f"unknown Markdown dialect '{dialect}'; use one of {', '.join(DIALECTS)}")
    reader = includes if includes is not None else Includes(None, None)
    renderer = _Renderer(parser(dialect), reader, body, snippets=dialect in ("auto", "mkdocs"))
    tree = SyntaxTreeNode(renderer.md.parse(body))
    text = "\n\n".join(part for _, part in sorted(renderer.top(tree.children), key=lambda item: item[0]))
    dialects = sorted(renderer.syntax) or ["commonmark"]
    body = text.strip() + "\n" if text.strip() else ""
    return Page(body, renderer.headings, dialects, list(reader.resolved), list(reader.missing))


class _Renderer:
    """Walks markdown-it's syntax tree and writes each node back as the CommonMark a reader sees."""

    def __init__(self, md: MarkdownIt, includes: Includes, source: str, snippets: bool) -> None:
        self.md = md
        self.headings: list[Heading] = []
        self.syntax: set[str] = set()
        self.includes = includes  # reads the files the page includes; the one of an included page inside it
        self.lines = source.splitlines()  # the source being walked: a declared include is matched on it
        self.snippets = snippets  # pymdownx.snippets' `--8<--` is read (MkDocs), not left as text
        self.target: str | None = None  # a MyST `(label)=` waiting for the heading it names

    # -- includes -------------------------------------------------------------------------------------------

    def included(self, target: str, text: str | None, language: str | None = None) -> str:
        """What an include shows: a Markdown file read as part of the page, anything else as a code block in
        its language; nothing where the file could not be read."""
        if text is None:
            return ""
        if Path(target).suffix.lower() in MARKDOWN and language is None:
            outer, self.includes, lines = self.includes, self.includes.nested(target), self.lines
            try:
                self.lines = text.splitlines()
                return self.blocks(SyntaxTreeNode(self.md.parse(text)).children)
            finally:
                self.includes, self.lines = outer, lines
        return _fenced(language if language is not None else language_of(target), text + "\n")

    def snippet_block(self, content: str) -> str:
        """pymdownx.snippets' `--8<-- "path"`, or a block of paths between two `--8<--` lines."""
        lines = [line.strip() for line in content.splitlines()]
        targets = [line for line in lines[1:-1] if line and not line.startswith(";")] if len(lines) > 1 else []
        if not targets:
            found = SNIPPET.match(lines[0]) if lines else None
            targets = [next((g for g in found.groups() if g), "")] if found else []
        parts = []
        for spec in filter(None, targets):
            path, text = self.includes.snippet(spec.strip("\"'"))
            parts.append(self.included(path, text))
        return "\n\n".join(part for part in parts if part)

    def declared_includes(self, node: SyntaxTreeNode) -> str | None:
        """A paragraph whose every line is an include in the project's declared syntax, read in; None: not one."""
        if not self.includes.patterns or not node.map:
            return None
        source = [line for line in self.lines[node.map[0] : node.map[1]] if line.strip()]
        found = [self.includes.declared(line) for line in source]
        if not source or any(item is None for item in found):
            return None
        return "\n\n".join(self.included(path, text) for path, text in filter(None, found) if text is not None)

    def code_with_snippets(self, code: str) -> str:
        """A code block's `--8<--` lines replaced by the lines they name (snippets runs before the page is
        parsed, so a fence is where sites put them)."""
        if not self.snippets or "--8<--" not in code:
            return code
        out = []
        for line in code.splitlines():
            found = SNIPPET.match(line)
            target = next((g for g in found.groups() if g), None) if found else None
            if target is None:
                out.append(line)
                continue
            self.syntax.add("mkdocs")
            _, text = self.includes.snippet(target)
            if text is not None:
                out.append(text)
        return "\n".join(out) + ("\n" if code.endswith("\n") else "")

    # -- blocks ---------------------------------------------------------------------------------------------

    def top(self, nodes: list[SyntaxTreeNode]) -> Iterator[tuple[int, str]]:
        """(source line, text) of each top-level block; footnotes go back where they were written (a block
        without a line, such as a snippet's, stays after the one before it)."""
        line = 0
        for node in nodes:
            if node.type == "footnote_block":
                for note in node.children:
                    line = next((n.map[0] for n in note.walk() if n.map), 10**9)
                    yield line, f"[{note.meta.get('label', '')}]: " + self.blocks(note.children, "\n")
                continue
            text = self.block(node)
            line = node.map[0] if node.map else line
            if text.strip():
                yield line, text

    def blocks(self, nodes: list[SyntaxTreeNode], joiner: str = "\n\n") -> str:
        return joiner.join(text for text in (self.block(node) for node in nodes) if text.strip())

    def block(self, node: SyntaxTreeNode) -> str:
        kind = node.type
        if kind in _SYNTAX_DIALECT and not (kind == "container_colon" and node.info.lstrip().startswith("{")):
            self.syntax.add(_SYNTAX_DIALECT[kind])
        if kind == "heading":
            return self.heading(node)
        if kind not in ("paragraph", "myst_target"):
            self.target = None  # an anchor names the heading right after it, or nothing
        if kind == "paragraph":
            declared = self.declared_includes(node)
            if declared is not None:
                self.target = None
                return declared
            text = self.inline(node.children[0]) if node.children else ""
            if _BLOCK_ID.match(text.strip()):  # `{#id}` or `[](){#id}` alone: an extra anchor (an old name, most
                self.syntax.add("mkdocs")  # often), not the heading's own, which keeps its slug
                self.target = None
                return ""
            self.target = None
            if _ATTRIBUTE_LINE.search(text):  # `{#id}` on a line of its own in a list item: its anchor, unread
                self.syntax.add("mkdocs")
                text = _ATTRIBUTE_LINE.sub("", text).strip()
            if all(_MDX_STATEMENT.match(line) for line in text.splitlines()) and text.strip():
                self.syntax.add("docusaurus")
                return ""
            return text
        if kind == "fence":
            return self.fence(node)
        if kind == "code_block":
            return _fenced("", node.content)
        if kind in ("bullet_list", "ordered_list"):
            return self.listing(node)
        if kind == "blockquote":
            return "\n".join(f"> {line}".rstrip() for line in self.blocks(node.children).splitlines())
        if kind == "table":
            return self.table(node)
        if kind == "html_block":
            return html_text(node.content)
        if kind == "myst_target":
            self.target = node.content.strip()
            return ""
        if kind in ("admonition", "admonition_mkdocs"):
            title = next((c for c in node.children if c.type.endswith("_title")), None)
            heading = self.inline(title.children[0], plain=True) if title and title.children else ""
            body = [c for c in node.children if c is not title]
            return self.labelled(str(node.meta.get("tag") or "note"), heading, body)
        if kind == "content_tab_mkdocs":
            title = next((c for c in node.children if c.type.endswith("_title")), None)
            label = self.inline(title.children[0], plain=True) if title and title.children else ""
            return self.labelled("tab", label, [c for c in node.children if c is not title])
        if kind in ("container_slash", "container_colon"):
            if node.info.lstrip().startswith("{"):  # MyST's colon fence, `:::{note}`
                self.syntax.add("myst")
            name, bracketed, rest = _block_info(node.info)
            return self.labelled(name, bracketed or rest, node.children)
        if kind == "mkdocstrings_injection":  # `::: package.Name`: API docs made from code, not in this file
            identifier = node.content.splitlines()[0].removeprefix(":::").strip() if node.content else ""
            return f"API reference: `{identifier}`" if identifier else ""
        if kind == "pymd_snippet":
            return self.snippet_block(node.children[0].content if node.children else node.content)
        if kind in ("hr", "front_matter", "mkdocs_abbreviation", "myst_line_comment", "myst_block_break"):
            return ""
        return self.blocks(node.children) if node.children else node.content

    def heading(self, node: SyntaxTreeNode) -> str:
        anchors: list[str] = []
        text = self.inline(node.children[0], plain=True, anchors=anchors) if node.children else ""
        text = _UNRESOLVED_REFERENCE.sub(r"\1", " ".join(text.split()))  # mkdocs-autorefs' [`Field()`][pydantic.Field]
        if unspaced := _HEADING_ID.search(text):  # `{#id}`, which the attr_list plugin reads only spaced
            anchors.append(unspaced.group(1))
            text = text[: unspaced.start()].rstrip()
        explicit = anchors[0] if anchors else self.target
        self.target = None
        level = int(node.tag[1])
        self.headings.append(Heading(level, text, explicit or anchor_slug(text), explicit is not None))
        return f"{'#' * level} {text}" if text else ""

    def labelled(self, kind: str, title: str, children: list[SyntaxTreeNode]) -> str:
        """An admonition, block or tab as prose: 'Tip: Title' before its content, or 'Tip:' leading its first
        paragraph; a tab by its own label ('Python:')."""
        kind = kind.lower()
        title = "" if title.lower() == kind else title  # `??? note` is titled "Note" by its plugin
        body = self.blocks(children)
        if kind in ("tab", "tab-item", "tabitem"):
            label = f"{title}:" if title else ""
        elif kind in ("html", "div", "span", "grid", "tab-set", "tabs"):
            label = ""
        elif title and (kind == "admonition" or title.lower().startswith(kind)):  # `??? api "API Documentation"`
            label = f"{title}:"
        else:
            name = kind.replace("-", " ").replace("_", " ").capitalize()
            label = f"{name}: {title}" if title else f"{name}:"
        if not label:
            return body
        if title or not body or body.startswith(("```", "|", "- ", "> ", "#")):
            return f"{label}\n\n{body}".strip()
        return f"{label} {body}"

    def fence(self, node: SyntaxTreeNode) -> str:
        info = node.info.strip()
        if not info.startswith("{"):
            return _fenced(info.split()[0] if info else "", self.code_with_snippets(node.content))
        self.syntax.add("myst")
        name, _, argument = _block_info(info)
        lines = node.content.splitlines()
        options = [line for line in lines if _OPTION_LINE.match(line)]
        content = "\n".join(line for line in lines if not _OPTION_LINE.match(line)).strip("\n")
        if name in _CODE_DIRECTIVES:
            return _fenced(argument.split()[0] if argument else "", content + "\n")
        if name in _INCLUDE_DIRECTIVES:
            return self.directive_include(name, argument.strip(), options)
        if name in ("toctree", "contents", "eval-rst", "raw", "only", "autosummary", "automodule"):
            return ""
        inner = SyntaxTreeNode(self.md.parse(content)).children
        if name in _PROSE_DIRECTIVES:
            return self.labelled(name, argument, inner)
        return self.blocks(inner)

    def directive_include(self, name: str, target: str, options: list[str]) -> str:
        """MyST's `{literalinclude}` (code) and `{include}` (Markdown), with their line options."""
        values = {key.strip(":"): value.strip() for key, _, value in (o.partition(" ") for o in options)}
        text = self.includes.read(target, line_ranges(values.get("lines", "")))
        if text is not None and (values.get("start-after") or values.get("end-before")):
            text = _between(text, values.get("start-after"), values.get("end-before"))
        if name == "include" and not values.get("code") and not values.get("literal"):
            return self.included(target, text)
        language = values.get("language") or values.get("code") or language_of(target)
        return self.included(target, text, language)

    def listing(self, node: SyntaxTreeNode) -> str:
        ordered = node.type == "ordered_list"
        number = int(node.attrs.get("start", 1) or 1)
        items = []
        for offset, item in enumerate(node.children):
            marker = f"{number + offset}. " if ordered else "- "
            text = self.blocks(item.children, "\n")
            lines = text.splitlines() or [""]
            indent = " " * len(marker)
            items.append("\n".join([marker + lines[0], *(indent + line if line else "" for line in lines[1:])]))
        return "\n".join(items)

    def table(self, node: SyntaxTreeNode) -> str:
        rows: list[list[str]] = []
        aligns: list[str] = []
        for part in node.children:  # thead, tbody
            for row in part.children:
                cells = []
                for cell in row.children:
                    text = self.inline(cell.children[0]) if cell.children else ""
                    cells.append(" ".join(text.split()).replace("|", "\\|"))
                    if part.type == "thead":
                        aligns.append(str(cell.attrs.get("style", "")))
                rows.append(cells)
        if not rows:
            return ""
        separator = ["---" if "left" not in a and "right" not in a and "center" not in a else _align(a) for a in aligns]
        lines = [rows[0], separator or ["---"] * len(rows[0]), *rows[1:]]
        return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)

    # -- inline ---------------------------------------------------------------------------------------------

    def inline(self, node: SyntaxTreeNode, plain: bool = False, anchors: list[str] | None = None) -> str:
        """An inline run as Markdown; `plain` for a title: one line, links as their text, no footnote marks (code
        keeps its backticks, as the heading splitter always read them); `anchors` collects `{ #id }`s."""
        out: list[str] = []
        children = node.children
        macro_closing = False  # the `}` that ends a `{{ macro }}` starts the next text
        for index, child in enumerate(children):
            kind = child.type
            if kind in _SYNTAX_DIALECT:
                self.syntax.add(_SYNTAX_DIALECT[kind])
            if kind == "text":
                out.append(child.content[1:] if macro_closing else child.content)
                macro_closing = False
            elif kind == "code_inline":
                out.append(_code_span(child.content))
            elif kind in ("softbreak", "hardbreak"):
                out.append(" " if plain else "\n")
            elif kind in ("strong", "em", "s"):
                inner = self.inline(child, plain, anchors)
                out.append(f"{child.markup}{inner}{child.markup}")
            elif kind == "link":
                inner = self.inline(child, plain, anchors)
                href = str(child.attrs.get("href", ""))
                out.append(inner if plain or not href or not inner else f"[{inner}]({href})")
            elif kind == "image":
                out.append(self.inline(child, plain=True) or child.content)
            elif kind == "html_inline":
                out.append(_inline_tag_text(child.content))
            elif kind == "myst_role":
                out.append(_role_text(child))
            elif kind == "footnote_ref":
                out.append("" if plain else f"[{child.meta.get('label', '')}]")
            elif kind == "python_markdown_attr_list":
                words = "".join(c.content for c in child.children).split()
                following = children[index + 1] if index + 1 < len(children) else None
                if out and out[-1].endswith("{") and following is not None and following.content.startswith("}"):
                    out[-1] = out[-1][:-1]  # `{{ macro }}`: a template's, not the reader's
                    macro_closing = True
                elif anchors is not None:
                    anchors += [word[1:] for word in words if word.startswith("#") and len(word) > 1]
            elif child.children:
                out.append(self.inline(child, plain, anchors))
            else:
                out.append(child.content)
        text = "".join(out)
        return text.strip() if plain else text


def _between(text: str, after: str | None, before: str | None) -> str:
    """The lines after the first holding `after` and before the next holding `before` (MyST's options)."""
    lines = text.splitlines()
    start = next((i + 1 for i, line in enumerate(lines) if after and after in line), 0)
    end = next((i for i in range(start, len(lines)) if before and before in lines[i]), len(lines))
    return "\n".join(lines[start:end])


def _is_injection(info: str) -> bool:
    found = _INJECTION.match(info)
    return found is not None and found.group(1).lower() not in _ADMONITIONS


def _block_info(info: str) -> tuple[str, str, str]:
    """(name, bracketed title, the rest) of a block's opening: 'note | Title', 'tip[Title]', '{note} Title'."""
    match = _BLOCK_INFO.match(info)
    if not match:
        return "note", "", info.strip()
    name, bracketed, rest = match.groups()
    return name.lower(), (bracketed or "").strip(), rest.strip().strip('"')


def _fenced(language: str, code: str) -> str:
    fence = "````" if "```" in code else "```"
    return f"{fence}{language}\n{code.rstrip()}\n{fence}"


def _code_span(code: str) -> str:
    ticks = "``" if "`" in code else "`"
    pad = " " if code.startswith("`") or code.endswith("`") else ""
    return f"{ticks}{pad}{code}{pad}{ticks}"


def _align(style: str) -> str:
    return {"left": ":---", "right": "---:", "center": ":---:"}[style.split(":")[-1].strip().rstrip(";")]


def _role_text(node: SyntaxTreeNode) -> str:
    """A MyST role as its text: {ref}`the intro <intro>` -> 'the intro', {py:func}`open` -> '`open`'."""
    content = node.content
    if "<" in content and content.rstrip().endswith(">"):
        content = content[: content.rindex("<")].strip() or content
    content = content.lstrip("~!")
    name = str(node.meta.get("name", ""))
    return _code_span(content) if name.startswith(("py:", "func", "class", "meth", "attr", "mod", "obj")) else content


_IMG_ALT = re.compile(r"""\balt\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)


def _inline_tag_text(tag: str) -> str:
    """An inline HTML tag's share of the text: an image's alt text, a line break's space, otherwise nothing
    (an element's text is the text between its tags)."""
    lowered = tag.lower()
    if lowered.startswith("<img"):
        found = _IMG_ALT.search(tag)
        return (found.group(1) or found.group(2) or "") if found else ""
    return " " if lowered.startswith("<br") else ""


class _TextOfHtml(HTMLParser):
    """An HTML or JSX block's text: its words, an image's alt text, a tab's label, nothing of scripts."""

    BLOCKS = frozenset(
        [
            "p",
            "div",
            "li",
            "tr",
            "br",
            "h1",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "summary",
            "details",
            "section",
            "table",
            "ul",
            "ol",
            "pre",
            "blockquote",
        ]
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name.lower(): value or "" for name, value in attrs}
        if tag in ("script", "style"):
            self.skipping += 1
        elif tag == "img" and values.get("alt"):
            self.parts.append(values["alt"])
        elif tag == "tabitem" and (values.get("label") or values.get("value")):
            self.parts.append(f"\n\n{values.get('label') or values.get('value')}:\n\n")
        elif values.get("title") and tag not in ("abbr", "a", "img", "iframe", "span"):  # <DetailedExplanation title>
            self.parts.append(f"\n\n{values['title']}:\n\n")
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self.skipping = max(0, self.skipping - 1)
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(data)


def html_text(html: str) -> str:
    """An HTML (or JSX) block as the text it shows: tags gone, images by their alt text, blank lines kept."""
    if html.lstrip().startswith("<!--"):
        return ""
    reader = _TextOfHtml()
    reader.feed(html)
    reader.close()
    lines = [" ".join(line.split()) for line in "".join(reader.parts).splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
