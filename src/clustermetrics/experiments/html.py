"""One self-contained HTML page: inline CSS, every PNG embedded as a base64 data URI and
also written beside the page, so the page works alone and the images can be reused.

A page is a title plus sections; a section is a heading and blocks, each a paragraph
(``str``), a table (:class:`~clustermetrics.render.tables.ResultTable`, drawn by
:func:`clustermetrics.render.html.table_html`: it scrolls inside its own container, its
header stays in view, a click on a header sorts its column, by the page's one inline
script, so the page needs nothing beside it) or an image (:class:`Image`).

User text (labels, file and column names) reaches the page as the text tables and plots
show it: control characters, line separators and bidi controls as Python escapes and
backslashes doubled (:func:`clustermetrics.render.text.visible`), then HTML-escaped.
"""

from __future__ import annotations

import base64
import os
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from ..render.html import SORT_SCRIPT, TABLE_CSS, table_html
from ..render.html import escape as _escape
from ..render.html import text as _text
from ..render.tables import ResultTable

__all__ = ["Image", "Section", "css_size", "render_page", "write_report"]


class Image(NamedTuple):
    """A PNG: ``name`` is its file name without ``.png`` (letters, digits, - and _).

    A PNG that records its resolution (a pHYs chunk, as matplotlib writes) is shown at
    100 CSS pixels per inch of it: a figure laid out at 100 dpi and saved at 200 dpi
    for high-density screens is shown at its laid-out size, crisp rather than twice as
    large."""

    name: str
    png: bytes
    caption: str = ""


Block = str | ResultTable | Image


@dataclass
class Section:
    title: str
    blocks: list[Block] = field(default_factory=list)


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;
max-width:1200px;padding:0 1rem;color:#222;line-height:1.45}
h1{font-size:1.6rem;border-bottom:2px solid #ddd;padding-bottom:.3rem}
h2{font-size:1.25rem;margin-top:2.2rem;border-bottom:1px solid #eee}
p{overflow-wrap:anywhere}
figure{margin:1rem 0}img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.85rem;color:#555}nav a{margin-right:1rem}
"""


def _anchor(title: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in title.lower()).strip("-")


def _block(block: Block) -> str:
    if isinstance(block, ResultTable):
        return table_html(block)
    if isinstance(block, Image):
        data = base64.b64encode(block.png).decode("ascii")
        cap = _text(block.caption or block.name)
        size = css_size(block.png)
        dims = f'width="{size[0]}" height="{size[1]}" ' if size else ""
        return (f'<figure><img src="data:image/png;base64,{data}" alt="{cap}" {dims}'
                f'data-file="{_escape(block.name)}.png"><figcaption>{cap} '
                f'(<a href="{_escape(block.name)}.png">{_escape(block.name)}.png</a>)'
                f"</figcaption></figure>")
    return f"<p>{_text(block)}</p>"


def css_size(png: bytes) -> tuple[int, int] | None:
    """(width, height) in CSS pixels of a PNG, 100 to the inch of its recorded
    resolution; None when it records none (or is no PNG): it is shown as it is.

    >>> import struct, zlib
    >>> def chunk(kind, body):
    ...     return struct.pack(">I", len(body)) + kind + body + struct.pack(
    ...         ">I", zlib.crc32(kind + body))
    >>> ihdr = chunk(b"IHDR", struct.pack(">IIBBBBB", 2200, 840, 8, 6, 0, 0, 0))
    >>> phys = chunk(b"pHYs", struct.pack(">IIB", 7874, 7874, 1))  # 200 dpi
    >>> css_size(_PNG_SIGNATURE + ihdr + phys), css_size(_PNG_SIGNATURE + ihdr)
    ((1100, 420), None)
    """
    if not png.startswith(_PNG_SIGNATURE) or png[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", png[16:24])
    at = 8
    while at + 8 <= len(png):
        length, kind = struct.unpack(">I4s", png[at:at + 8])
        if kind == b"pHYs" and length == 9 and png[at + 16] == 1:  # unit: the metre
            per_metre = struct.unpack(">I", png[at + 8:at + 12])[0]
            inches = 100 / (per_metre * 0.0254) if per_metre else 0
            return (round(width * inches), round(height * inches)) if inches else None
        if kind in (b"IDAT", b"IEND"):  # pHYs comes before the image data
            return None
        at += 12 + length
    return None


def render_page(title: str, sections: Sequence[Section], intro: str = "") -> str:
    """The HTML text of the page.

    >>> page = render_page("T", [Section("A b", ["x < y", ResultTable(["n"], [[1]])])])
    >>> '<h2 id="a-b">A b</h2>' in page, "x &lt; y" in page, page.rstrip().endswith("</html>")
    (True, True, True)
    >>> '<td class="num" data-value="1">1</td>' in page, "<pre" in page
    (True, False)
    """
    nav = " ".join(f'<a href="#{_anchor(s.title)}">{_text(s.title)}</a>'
                   for s in sections)
    body = "\n".join(f'<section><h2 id="{_anchor(s.title)}">{_text(s.title)}</h2>\n'
                     + "\n".join(_block(b) for b in s.blocks) + "</section>"
                     for s in sections)
    intro_html = f"<p>{_text(intro)}</p>" if intro else ""
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{_text(title)}</title><style>{_CSS}{TABLE_CSS}</style></head>\n<body>"
            f"<h1>{_text(title)}</h1>{intro_html}<nav>{nav}</nav>\n{body}\n"
            f"<script>{SORT_SCRIPT}</script></body></html>\n")


def write_report(directory: str | os.PathLike, title: str, sections: Sequence[Section],
                 intro: str = "") -> Path:
    """Write ``index.html`` and every image as ``<name>.png`` into ``directory`` (created
    if needed); returns the page's path."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    names = [b.name for s in sections for b in s.blocks if isinstance(b, Image)]
    if len(set(names)) != len(names):
        raise ValueError(f"image names must be unique, got {names}")
    for s in sections:
        for b in s.blocks:
            if isinstance(b, Image):
                (out / f"{b.name}.png").write_bytes(b.png)
    page = out / "index.html"
    with page.open("w", encoding="utf-8", newline="") as fh:  # no newline translation
        fh.write(render_page(title, sections, intro))
    return page
