"""Server-rendered pages: the report, the dashboard of recent checks and the methodology.

Rendering functions take plain data and return one self-contained HTML document each (styles inline, no
external asset, no framework; the dashboard carries one small script for live updates).
``create_web_router`` wraps them as a FastAPI router for the API to mount; ``store_report_loader`` reads
report pages from the store.
"""

from icarus.web.dashboard import EVENT_NAMES, render_dashboard
from icarus.web.graph import GraphView, graph_from_provenance, graph_from_trace, render_graph_svg
from icarus.web.methodology import render_methodology_page
from icarus.web.model import Links, RecentCheck, ReportPage, VersionLike
from icarus.web.report import render_report_page, report_context
from icarus.web.routes import create_web_router, render_error_page
from icarus.web.store_source import store_report_loader

__all__ = [
    "EVENT_NAMES",
    "GraphView",
    "Links",
    "RecentCheck",
    "ReportPage",
    "VersionLike",
    "create_web_router",
    "graph_from_provenance",
    "graph_from_trace",
    "render_dashboard",
    "render_error_page",
    "render_graph_svg",
    "render_methodology_page",
    "render_report_page",
    "report_context",
    "store_report_loader",
]
