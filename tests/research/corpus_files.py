"""Builders for the small files the corpus tests index: HTML, PDF, text, Markdown, JSON Lines and WARC."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter


def html_page(
    title: str, paragraphs: list[str], *, canonical: str = "", published: str = "", site: str = ""
) -> bytes:
    head = [f"<title>{title}</title>"]
    if canonical:
        head.append(f'<link rel="canonical" href="{canonical}">')
    if published:
        head.append(f'<meta property="article:published_time" content="{published}">')
    if site:
        head.append(f'<meta property="og:site_name" content="{site}">')
    body = "".join(f"<p>{paragraph}</p>" for paragraph in paragraphs)
    return (
        f"<!doctype html><html><head>{''.join(head)}</head><body><nav>Home | News | Sport</nav>"
        f"<article><h1>{title}</h1>{body}</article><footer>© Example</footer></body></html>"
    ).encode()


def pdf_bytes(lines: list[str], *, title: str = "", created: str = "D:20240305120000Z") -> bytes:
    """A one-page PDF with Helvetica text, built by hand so pypdf has real text to extract."""
    escaped = [line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") for line in lines]
    content = "BT /F1 12 Tf 72 720 Td " + " ".join(f"({line}) Tj 0 -16 Td" for line in escaped) + " ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        "/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        f"<< /Length {len(content)} >>\nstream\n{content}\nendstream",
        f"<< /Title ({title}) /CreationDate ({created}) >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1"))
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for offset in offsets:
        out.write(f"{offset:010d} 00000 n \n".encode())
    out.write(
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info {len(objects)} 0 R >>\n"
        f"startxref\n{xref}\n%%EOF\n".encode()
    )
    return out.getvalue()


def jsonl(records: list[Any]) -> bytes:
    lines = [record if isinstance(record, str) else json.dumps(record) for record in records]
    return ("\n".join(lines) + "\n").encode()


def warc(path: Path, records: list[tuple[str, str, str, bytes]], *, gzip: bool = True) -> None:
    """Write (uri, status line, content type, body) HTTP response records, plus one request record."""
    with path.open("wb") as stream:
        writer = WARCWriter(stream, gzip=gzip)
        for uri, status, content_type, body in records:
            headers = StatusAndHeaders(status, [("Content-Type", content_type)], protocol="HTTP/1.1")
            record = writer.create_warc_record(
                uri, "response", payload=io.BytesIO(body), http_headers=headers
            )
            writer.write_record(record)
        request = StatusAndHeaders("GET / HTTP/1.1", [("Host", "example.net")], is_http_request=True)
        writer.write_record(
            writer.create_warc_record("https://example.net/", "request", http_headers=request)
        )
