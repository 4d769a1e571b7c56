"""Is a release on the package index? The Spaces `upload.py` pushes install `nycc-bench==X.Y.Z`, so pushing them
before that version is uploaded would publish Spaces that cannot start. Reads the index's simple page of the
project (PEP 691 JSON, else PEP 503 HTML) and looks for a wheel or sdist of the version."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from html.parser import HTMLParser

from packaging.utils import InvalidSdistFilename, InvalidWheelFilename, parse_sdist_filename, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from ..urls import redact_url
from . import PublishError

PYPI_SIMPLE = "https://pypi.org/simple"
JSON_TYPE = "application/vnd.pypi.simple.v1+json"


class _Links(HTMLParser):
    """The file names of a PEP 503 page's anchors."""

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            href = dict(attrs).get("href") or ""
            self.names.append(href.split("#")[0].rstrip("/").rsplit("/", 1)[-1])


def _file_version(name: str) -> Version | None:
    """The version of a wheel or sdist file name (None for anything else)."""
    try:
        if name.endswith(".whl"):
            return parse_wheel_filename(name)[1]
        return parse_sdist_filename(name)[1]
    except (InvalidWheelFilename, InvalidSdistFilename, InvalidVersion):
        return None


def released_versions(index_url: str, project: str = "nycc-bench", timeout: float = 20.0) -> set[Version]:
    """Every version the index holds a file of."""
    url = f"{index_url.rstrip('/')}/{project}/"
    request = urllib.request.Request(url, headers={"Accept": f"{JSON_TYPE}, text/html;q=0.5"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as page:
            body, kind = page.read(), page.headers.get("Content-Type", "")
    except urllib.error.HTTPError as err:
        if err.code == 404:
            return set()  # the project is not on the index at all
        raise PublishError(f"index-url: {redact_url(url)} answered HTTP {err.code}; check --index-url") from None
    except (urllib.error.URLError, OSError) as err:
        raise PublishError(f"index-url: cannot read {redact_url(url)} ({getattr(err, 'reason', err)}); check "
                           "the network, or pass --package-spec to say what the Spaces install") from None
    if JSON_TYPE in kind or body.lstrip().startswith(b"{"):
        names = [f.get("filename", "") for f in json.loads(body).get("files", [])]
    else:
        links = _Links()
        links.feed(body.decode("utf-8", errors="replace"))
        names = links.names
    return {v for v in map(_file_version, names) if v is not None}


def require_release(version: str, index_url: str = PYPI_SIMPLE, project: str = "nycc-bench") -> None:
    """Refuse (PublishError) unless the index holds `project==version`."""
    if Version(version) in released_versions(index_url, project):
        return
    raise PublishError(f"package-spec: the Spaces would install {project}=={version}, which {redact_url(index_url)} "
                       f"does not have; upload it first (RELEASING.md: build, twine check, upload), or pass "
                       f"--package-spec (e.g. a git URL pinned to the tag) to publish before the upload")
