"""GitHub's REST API for issues, with urllib: the client the alert uses, and a local stand-in of it.

``Client`` speaks to GITHUB_API_URL (https://api.github.com by default, which
GitHub Actions sets), with the token in the Authorization header only (never
logged, never on a command line).  ``StandIn`` is a small HTTP server on
127.0.0.1 that answers the same requests as GitHub does, keeping its issues
in memory: scripts/replay starts one for each replay, and the tests start
one per test.  It answers only the requests the client makes, and refuses
any other (400), so that what the alert asks of GitHub is what is tested.
"""

import json
import re
import threading
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from ..errors import BadInput, Failed

DEFAULT_API = "https://api.github.com"
TIMEOUT_S = 30


def token_from(env) -> str:
    """The token from GH_TOKEN or GITHUB_TOKEN (as gh reads them); BadInput when there is none."""
    token = env.get("GH_TOKEN") or env.get("GITHUB_TOKEN")
    if not token:
        raise BadInput("no token: set GH_TOKEN or GITHUB_TOKEN (in GitHub Actions: ${{ github.token }})")
    return token


class Client:
    """One repository's issues and labels, through the REST API."""

    def __init__(self, api_url: str, repo: str, token: str):
        if not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", repo or ""):
            raise BadInput(f"repository {repo!r}: not OWNER/NAME (--repo or GITHUB_REPOSITORY)")
        self.api_url, self.repo, self._token = api_url.rstrip("/"), repo, token

    def request(self, method: str, path: str, query: dict | None = None, body: dict | None = None):
        """The decoded JSON answer; None for 404 on a GET (absent); Failed (one line) for anything else."""
        url = f"{self.api_url}/repos/{self.repo}{path}"
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Accept", "application/vnd.github+json")
        request.add_header("X-GitHub-Api-Version", "2022-11-28")
        request.add_header("Authorization", f"Bearer {self._token}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        where = f"{method} /repos/{self.repo}{path}"
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:
                text = answer.read().decode()
        except urllib.error.HTTPError as error:
            if error.code == 404 and method == "GET":
                return None
            raise Failed(f"GitHub API {where} failed: HTTP {error.code} {message_of(error)}") from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise Failed(f"GitHub API {where}: cannot reach {self.api_url} ({reason})") from None
        try:
            return json.loads(text) if text else {}
        except ValueError:
            raise Failed(f"GitHub API {where}: the answer is not JSON") from None

    def issues(self, label: str, state: str) -> list[dict]:
        """Issues (not pull requests) with LABEL in STATE, most recently updated first (100 at most)."""
        found = self.request(
            "GET",
            "/issues",
            {"labels": label, "state": state, "sort": "updated", "direction": "desc", "per_page": 100},
        )
        if not isinstance(found, list):
            raise Failed(f"GitHub API GET /repos/{self.repo}/issues: the answer is not a list")
        found = [issue for issue in found if "pull_request" not in issue]
        return sorted(found, key=lambda issue: issue.get("updated_at") or "", reverse=True)

    def ensure_label(self, name: str, color: str, description: str) -> None:
        if self.request("GET", f"/labels/{urllib.parse.quote(name, safe='')}") is None:
            self.request("POST", "/labels", body={"name": name, "color": color, "description": description})

    def create_issue(self, title: str, body: str, label: str) -> dict:
        return self.request("POST", "/issues", body={"title": title, "body": body, "labels": [label]})

    def edit_body(self, number: int, body: str) -> dict:
        return self.request("PATCH", f"/issues/{int(number)}", body={"body": body})


def message_of(error: urllib.error.HTTPError) -> str:
    """GitHub's one-line message of an error answer, or the HTTP reason."""
    try:
        message = json.loads(error.read().decode()).get("message")
    except (ValueError, AttributeError, OSError):
        message = None
    return " ".join(str(message or error.reason).split())


# The stand-in.


class StandIn:
    """GitHub's issues API for some repositories, on 127.0.0.1, in memory; ``with StandIn(...) as api``.

    ``tokens`` maps each accepted token to whether it may write issues (a
    job's ``permissions: issues: write``): any other token is refused (401),
    and a write with a read-only token too (403), as GitHub does.  Creating
    an issue with a label the repository lacks is refused (422), where GitHub
    would create the label silently, so that the client's own label creation
    is tested.  ``state`` holds the issues, the labels and every call made
    (method, path, and the JSON body); ``save`` replaces it.
    """

    def __init__(self, repos=("owner/bench",), tokens: dict[str, bool] | None = None):
        self.repos = set(repos)
        self.tokens = dict(tokens if tokens is not None else {"fake": True})
        self.lock = threading.Lock()
        self._state = {"issues": [], "labels": [], "calls": []}
        self.clock = 0
        self.server = None

    # State, for tests and for the replay's record.
    def state(self) -> dict:
        with self.lock:
            return json.loads(json.dumps(self._state))

    def save(self, state: dict) -> None:
        with self.lock:
            self._state = json.loads(json.dumps(state))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def start(self) -> None:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet: the calls are in the state
                pass

            def answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                code, document = owner.handle(self.command, self.path, self.headers.get("Authorization"), raw)
                data = json.dumps(document).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = answer

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def tick(self) -> str:
        self.clock += 1
        return f"2026-12-31T{self.clock // 3600 % 24:02d}:{self.clock // 60 % 60:02d}:{self.clock % 60:02d}Z"

    def render(self, repo: str, issue: dict) -> dict:
        return {
            **{k: issue[k] for k in ("number", "title", "body", "state", "updated_at")},
            "labels": [{"name": name} for name in issue["labels"]],
            "html_url": f"https://github.com/{repo}/issues/{issue['number']}",
        }

    def handle(self, method: str, target: str, authorization: str | None, raw: bytes) -> tuple[int, object]:
        url = urllib.parse.urlsplit(target)
        query = dict(urllib.parse.parse_qsl(url.query))
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            return 400, {"message": "Problems parsing JSON"}
        with self.lock:
            self._state["calls"].append({"method": method, "path": url.path, "query": query, "body": body})
            scheme, _, token = (authorization or "").partition(" ")
            if scheme.lower() not in ("bearer", "token") or token not in self.tokens:
                return 401, {"message": "Bad credentials"}
            found = re.fullmatch(r"/repos/([^/]+/[^/]+)(/.*)", url.path)
            if not found or found[1] not in self.repos:
                return 404, {"message": "Not Found"}
            repo, path = found[1], found[2]
            if method != "GET" and not self.tokens[token]:
                return 403, {"message": "Resource not accessible by integration"}
            return self.route(repo, method, path, query, body or {})

    def route(self, repo, method, path, query, body) -> tuple[int, object]:
        state = self._state
        if (method, path) == ("GET", "/issues"):
            label, wanted = query.get("labels"), query.get("state", "open")
            found = [
                i for i in state["issues"] if (label is None or label in i["labels"]) and wanted in (i["state"], "all")
            ]
            found.sort(key=lambda i: i["updated_at"], reverse=query.get("direction", "desc") == "desc")
            return 200, [self.render(repo, i) for i in found[: int(query.get("per_page", 30))]]
        if (method, path) == ("POST", "/issues"):
            missing = [name for name in body.get("labels", []) if name not in state["labels"]]
            if missing or not body.get("title"):
                return 422, {"message": "Validation Failed", "missing": missing}
            issue = {
                "number": len(state["issues"]) + 1,
                "title": body["title"],
                "body": body.get("body", ""),
                "labels": list(body.get("labels", [])),
                "state": "open",
                "updated_at": self.tick(),
            }
            state["issues"].append(issue)
            return 201, self.render(repo, issue)
        number = re.fullmatch(r"/issues/(\d+)", path)
        if method == "PATCH" and number:
            issue = next((i for i in state["issues"] if i["number"] == int(number[1])), None)
            if issue is None:
                return 404, {"message": "Not Found"}
            issue.update({k: body[k] for k in ("body", "title", "state") if k in body}, updated_at=self.tick())
            return 200, self.render(repo, issue)
        label = re.fullmatch(r"/labels/([^/]+)", path)
        if method == "GET" and label:
            name = urllib.parse.unquote(label[1])
            return (200, {"name": name}) if name in state["labels"] else (404, {"message": "Not Found"})
        if (method, path) == ("POST", "/labels"):
            if not body.get("name") or body["name"] in state["labels"]:
                return 422, {"message": "Validation Failed"}
            state["labels"].append(body["name"])
            return 201, {"name": body["name"]}
        return 400, {"message": f"the stand-in does not answer {method} {path}"}
