"""The HTTP API (FastAPI): checks under ``/v1``, OpenAPI at ``/openapi.json``, the pages at ``/``."""

from icarus.api.app import create_app

__all__ = ["create_app"]
