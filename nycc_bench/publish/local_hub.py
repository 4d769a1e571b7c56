"""A local stand-in for the Hugging Face Hub (stdlib only) that `huggingface_hub.HfApi` can publish to.

It implements what `create_repo`, `list_repo_tree`, `get_paths_info`, `create_commit` (validate-yaml, preupload,
commit), `repo_info` and file downloads (`resolve`) request, with git blob ids as file oids, so the push path of
`upload.py` runs end to end offline:

    with LocalHub(token="hf_test...") as hub:
        HfApi(endpoint=hub.base_url, token=...).create_repo("ns/name", repo_type="dataset")
        hub.commits("dataset", "ns/name")      # every commit made: oid, message, paths
        hub.requests                           # every request: method, path, status, auth (never the token)

Every file is stored as a regular (non-LFS) blob; only the `main` revision exists. `nycc-bench hub serve --token
T` serves one for rehearsing a push (`HF_TOKEN=T nycc-bench push RUN_DIR USER/REPO --endpoint URL`, or
`upload.py --endpoint URL`); the tests publish to it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

import yaml
from huggingface_hub.utils.sha import git_hash

TYPES = {"models": "model", "datasets": "dataset", "spaces": "space"}
URL_PREFIX = {"model": "", "dataset": "datasets/", "space": "spaces/"}
GITATTRIBUTES = b"*.parquet filter=lfs diff=lfs merge=lfs -text\n"
_REPO = r"(models|datasets|spaces)/([^/]+/[^/]+)"


@dataclass(frozen=True)
class Commit:
    """One commit of a repo."""

    oid: str
    message: str
    description: str
    paths: tuple[str, ...]  # added, changed or deleted


@dataclass
class Repo:
    """One repo's main branch: its files and history."""

    repo_type: str
    repo_id: str
    private: bool
    sdk: str | None
    files: dict[str, bytes] = field(default_factory=dict)
    history: list[Commit] = field(default_factory=list)

    def commit(self, message: str, description: str, files: dict[str, bytes | None]) -> Commit:
        for path, data in files.items():
            if data is None:
                self.files = {p: d for p, d in self.files.items() if p != path and not p.startswith(path + "/")}
            else:
                self.files[path] = data
        parent = self.history[-1].oid if self.history else ""
        state = json.dumps([parent, message, sorted((p, git_hash(d)) for p, d in self.files.items())])
        commit = Commit(hashlib.sha1(state.encode()).hexdigest(), message, description, tuple(sorted(files)))
        self.history.append(commit)
        return commit


@dataclass(frozen=True)
class Request:
    """What the server saw of one request (the Authorization header only as ok / missing / wrong)."""

    method: str
    path: str
    status: int
    auth: str


class HubError(Exception):
    """An error reply: status, message, the Hub's X-Error-Code, and extra body fields."""

    def __init__(self, status: int, message: str, code: str | None = None, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.code, self.extra = status, code, extra


class LocalHub:
    """The server; use as a context manager. Requests need `Authorization: Bearer <token>`."""

    def __init__(self, token: str, host: str = "127.0.0.1", port: int = 0, page_size: int = 1000) -> None:
        self._token_sha = hashlib.sha256(token.encode()).hexdigest()
        self.repos: dict[tuple[str, str], Repo] = {}
        self.requests: list[Request] = []
        self.page_size = page_size
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer((host, port), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> LocalHub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def commits(self, repo_type: str, repo_id: str) -> list[Commit]:
        """The history of a repo, oldest first (the Hub's initial commit included)."""
        return list(self.repos[repo_type, repo_id].history)

    def files(self, repo_type: str, repo_id: str) -> dict[str, bytes]:
        """The files on a repo's main branch."""
        return dict(self.repos[repo_type, repo_id].files)

    # --- endpoints -------------------------------------------------------------------------------------------

    def auth(self, header: str | None) -> str:
        if not header:
            return "missing"
        token = header.removeprefix("Bearer ").strip()
        return "ok" if hashlib.sha256(token.encode()).hexdigest() == self._token_sha else "wrong"

    def repo(self, kind: str, repo_id: str, revision: str | None = "main") -> Repo:
        repo = self.repos.get((TYPES[kind], repo_id))
        if repo is None:
            raise HubError(404, f"Repository {repo_id} not found", "RepoNotFound")
        if revision not in (None, "main"):
            raise HubError(404, f"Revision {revision} not found", "RevisionNotFound")
        return repo

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        repo_type = body.get("type") or "model"
        repo_id = f"{body.get('organization') or 'user'}/{body['name']}"
        if repo_type == "space" and not body.get("sdk"):
            raise HubError(400, "a Space needs an sdk")
        url = f"{self.base_url}/{URL_PREFIX[repo_type]}{repo_id}"
        if (repo_type, repo_id) in self.repos:
            raise HubError(409, "You already created this repo", None, url=url)  # the Hub answers with the url
        repo = Repo(repo_type, repo_id, body.get("visibility") == "private", body.get("sdk"))
        repo.commit("initial commit", "", {".gitattributes": GITATTRIBUTES})
        self.repos[repo_type, repo_id] = repo
        return {"url": url, "name": repo_id}

    def entries(self, repo: Repo, paths: list[str]) -> list[dict[str, Any]]:
        """Tree entries of files and folders, as the Hub returns them."""
        out = []
        for path in paths:
            if path in repo.files:
                data = repo.files[path]
                out.append({"type": "file", "path": path, "size": len(data), "oid": git_hash(data)})
            else:
                out.append({"type": "directory", "path": path, "size": 0,
                            "oid": hashlib.sha1(path.encode()).hexdigest()})
        return out

    def tree(self, repo: Repo, folder: str, recursive: bool) -> list[dict[str, Any]]:
        prefix = folder.strip("/") + "/" if folder.strip("/") else ""
        below = [p[len(prefix):] for p in repo.files if p.startswith(prefix)]
        if folder and not below:
            raise HubError(404, f"{folder} not found", "EntryNotFound")
        names: set[str] = set()
        for rel in below:
            parts = rel.split("/")
            stop = len(parts) if recursive else 1
            names.update(prefix + "/".join(parts[:i]) for i in range(1, stop + 1))
        return self.entries(repo, sorted(names))

    def preupload(self, repo: Repo, body: dict[str, Any]) -> dict[str, Any]:
        files = []
        for f in body["files"]:
            existing = repo.files.get(f["path"])
            files.append({"path": f["path"], "uploadMode": "regular", "shouldIgnore": False,
                          "oid": git_hash(existing) if existing is not None else None})
        return {"files": files, "commitOid": repo.history[-1].oid}

    def commit(self, repo: Repo, lines: list[dict[str, Any]]) -> dict[str, Any]:
        header = next((item["value"] for item in lines if item["key"] == "header"), None)
        if header is None or not header.get("summary"):
            raise HubError(400, "a commit needs a header with a summary")
        changes: dict[str, bytes | None] = {}
        for item in lines:
            key, value = item["key"], item["value"]
            if key == "file":
                changes[value["path"]] = base64.b64decode(value["content"])
            elif key in ("deletedFile", "deletedFolder"):
                if key == "deletedFile" and value["path"] not in repo.files:
                    raise HubError(404, "A file with this name doesn't exist", "EntryNotFound")
                changes[value["path"].rstrip("/")] = None
            elif key != "header":
                raise HubError(400, f"the local Hub does not store {key} operations (no LFS)")
        commit = repo.commit(header["summary"], header.get("description", ""), changes)
        prefix = URL_PREFIX[repo.repo_type]
        return {"commitUrl": f"{self.base_url}/{prefix}{repo.repo_id}/commit/{commit.oid}",
                "commitOid": commit.oid, "success": True}

    def info(self, repo: Repo) -> dict[str, Any]:
        return {"id": repo.repo_id, "sha": repo.history[-1].oid, "private": repo.private,
                "siblings": [{"rfilename": p} for p in sorted(repo.files)], "sdk": repo.sdk}


def validate_yaml(body: dict[str, Any]) -> dict[str, Any]:
    """The Hub's metadata check, reduced to what can be checked without it: the front matter is a mapping."""
    content = body.get("content", "")
    if not content.startswith("---"):
        return {"warnings": [{"message": "empty or missing yaml metadata in repo card"}]}
    try:
        meta = yaml.safe_load(content.split("---", 2)[1])
    except yaml.YAMLError as err:
        raise HubError(400, f"invalid YAML: {err}") from err
    if not isinstance(meta, dict):
        raise HubError(400, "the YAML metadata must be a mapping")
    return {"warnings": []}


def _handler(hub: LocalHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # quiet: the hub keeps its own request log
            pass

        def _body(self) -> bytes:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                data = b""
                while (size := int(self.rfile.readline().strip() or b"0", 16)) > 0:
                    data += self.rfile.read(size)
                    self.rfile.readline()
                self.rfile.readline()
                return data
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def _send(self, status: int, payload: Any = None, raw: bytes | None = None,
                  headers: dict[str, str] | None = None) -> None:
            body = raw if raw is not None else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/octet-stream" if raw is not None else "application/json")
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _route(self) -> tuple[int, Any, bytes | None, dict[str, str]]:
            url = urlparse(self.path)
            path, query = unquote(url.path), parse_qs(url.query)
            body = self._body() if self.command == "POST" else b""
            if hub.auth(self.headers.get("Authorization")) != "ok":
                raise HubError(401, "Invalid credentials in Authorization header")
            m = re.fullmatch(r"/(?:datasets/|spaces/)?([^/]+/[^/]+)/resolve/([^/]+)/(.+)", path)
            if m and self.command in ("GET", "HEAD") and not path.startswith("/api/"):
                kind = "datasets" if path.startswith("/datasets/") else "spaces" if path.startswith("/spaces/") \
                    else "models"
                repo = hub.repo(kind, m[1], m[2])
                if m[3] not in repo.files:
                    raise HubError(404, f"{m[3]} not found", "EntryNotFound")
                data = repo.files[m[3]]
                return 200, None, data, {"ETag": f'"{git_hash(data)}"', "X-Repo-Commit": repo.history[-1].oid}
            with hub._lock:
                if path == "/api/repos/create" and self.command == "POST":
                    return 200, hub.create(json.loads(body)), None, {}
                if path == "/api/validate-yaml" and self.command == "POST":
                    return 200, validate_yaml(json.loads(body)), None, {}
                if m := re.fullmatch(rf"/api/{_REPO}(?:/revision/([^/]+))?", path):
                    return 200, hub.info(hub.repo(m[1], m[2], m[3])), None, {}
                if m := re.fullmatch(rf"/api/{_REPO}/tree/([^/]+)(?:/(.*))?", path):
                    entries = hub.tree(hub.repo(m[1], m[2], m[3]), m[4] or "",
                                       query.get("recursive", ["False"])[0].lower() == "true")
                    return self._page(entries, query)
                if m := re.fullmatch(rf"/api/{_REPO}/paths-info/([^/]+)", path):
                    repo = hub.repo(m[1], m[2], m[3])
                    asked = parse_qs(body.decode()).get("paths", [])
                    present = [p for p in asked if p in repo.files or any(f.startswith(p + "/") for f in repo.files)]
                    return 200, hub.entries(repo, present), None, {}
                if m := re.fullmatch(rf"/api/{_REPO}/preupload/([^/]+)", path):
                    return 200, hub.preupload(hub.repo(m[1], m[2], m[3]), json.loads(body)), None, {}
                if m := re.fullmatch(rf"/api/{_REPO}/commit/([^/]+)", path):
                    lines = [json.loads(line) for line in body.splitlines() if line.strip()]
                    return 200, hub.commit(hub.repo(m[1], m[2], m[3]), lines), None, {}
            raise HubError(404, f"the local Hub does not implement {self.command} {url.path}")

        def _page(self, entries: list[dict[str, Any]], query: dict[str, list[str]]) -> tuple:
            start = int(query.get("cursor", ["0"])[0])
            page = entries[start:start + hub.page_size]
            headers = {}
            if start + hub.page_size < len(entries):
                url = urlparse(self.path)
                rest = "&".join(f"{k}={v[0]}" for k, v in query.items() if k != "cursor")
                host = self.headers.get("Host")
                headers["Link"] = f'<http://{host}{url.path}?{rest}&cursor={start + hub.page_size}>; rel="next"'
            return 200, page, None, headers

        def _serve(self) -> None:
            auth = hub.auth(self.headers.get("Authorization"))
            try:
                status, payload, raw, headers = self._route()
            except HubError as err:
                status, payload, raw = err.status, {"error": str(err), **err.extra}, None
                headers = {"X-Error-Message": str(err), **({"X-Error-Code": err.code} if err.code else {})}
            except (ValueError, KeyError) as err:
                status, payload, raw, headers = 400, {"error": f"bad request: {err}"}, None, {}
            hub.requests.append(Request(self.command, self.path, status, auth))
            self._send(status, payload, raw, headers)

        do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = _serve

    return Handler
