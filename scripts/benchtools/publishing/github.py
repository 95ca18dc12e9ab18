"""GitHub's REST API for issues; and ``StandIn``, a local server that answers only what the client asks."""

import json
import re
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote

import requests
from urllib3.exceptions import MaxRetryError

from .. import util
from ..asvtools import shapes
from ..errors import BadInput, Failed

DEFAULT_API = "https://api.github.com"
TIMEOUT_S = 30
PER_PAGE = 100  # GitHub's largest
MAX_PAGES = 100


class Client:
    def __init__(self, api_url: str, repo: str, token: str):
        if not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", repo or ""):
            raise BadInput(f"repository {repo!r}: not OWNER/NAME (--repo or GITHUB_REPOSITORY)")
        try:
            parts = urllib.parse.urlsplit(api_url)
            parts.port  # noqa: B018 - raises ValueError for a port that is not a number
        except ValueError as error:
            raise BadInput(f"GITHUB_API_URL {api_url!r}: not a URL ({error})") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise BadInput(f"GITHUB_API_URL {api_url!r}: not an http(s) URL with a host")
        self.api_url, self.repo = api_url.rstrip("/"), repo
        self.session = util.http_session()
        self.session.headers.update({"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"})
        self.session.headers["Authorization"] = f"Bearer {token}"

    def request(self, method: str, path: str, query: dict | None = None, body: dict | None = None, landed=None):
        """The decoded JSON answer, None for 404 on a GET.  A rate limit and a write are asked again (util.RETRY); a
        POST answered with a 5xx may have landed all the same: LANDED returns what it made, or None."""
        where, retry = f"{method} /repos/{self.repo}{path}", util.RETRY
        while True:
            try:
                url = f"{self.api_url}/repos/{self.repo}{path}"
                answer = self.session.request(method, url, params=query, json=body, timeout=TIMEOUT_S)
            except requests.RequestException as error:
                reason = type(error).__name__
                raise Failed(f"GitHub API {where}: cannot reach {self.api_url} or read its answer ({reason})") from None
            if answer.status_code == 404 and method == "GET":
                return None
            if answer.ok:
                try:
                    return answer.json() if answer.content else {}
                except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
                    raise Failed(f"GitHub API {where}: the answer is not JSON in UTF-8") from None
            try:
                message = answer.json().get("message")
            except (ValueError, AttributeError):
                message = None
            message = " ".join(str(message or answer.reason).split())
            failure = f"GitHub API {where} failed: HTTP {answer.status_code} {message}"
            limited = answer.status_code in (403, 429) and (
                "rate limit" in message.lower()
                or "Retry-After" in answer.headers
                or answer.headers.get("X-RateLimit-Remaining") == "0"
            )
            transient = answer.status_code in retry.status_forcelist
            if transient and method in retry.allowed_methods or not (limited or transient):  # the session asked again
                raise Failed(failure)
            try:
                retry = retry.increment(method, answer.url, response=answer.raw)
            except MaxRetryError:
                raise Failed(failure) from None
            print(f"{failure}; asking again", flush=True)
            retry.sleep(answer.raw)
            if (made := landed and landed()) is not None:
                print(f"{where} was done before its error; not asked again", flush=True)
                return made

    def listing(self, path: str, shape: str, **query) -> list[dict]:
        """Every page of a list, each checked against schemas/github.schema.json's SHAPE."""
        found, where = [], f"GitHub API GET /repos/{self.repo}{path}"
        for page in range(1, MAX_PAGES + 1):
            items = self.request("GET", path, {**query, "per_page": PER_PAGE, "page": page})
            try:
                found += shapes.check(items, f"github#/definitions/{shape}", where, "GitHub's answer")
            except BadInput as error:
                raise Failed(str(error)) from None
            if len(items) < PER_PAGE:
                return found
        raise Failed(f"{where}: more than {MAX_PAGES} pages of {PER_PAGE}")

    def issues(self, label: str, state: str) -> list[dict]:
        """Issues (not pull requests) with LABEL in STATE, newest first by creation, not by update."""
        found = self.listing("/issues", "issues", labels=label, state=state, sort="created", direction="desc")
        return [issue for issue in found if "pull_request" not in issue]

    def comments(self, number: int) -> list[dict]:  # oldest first
        return self.listing(f"/issues/{int(number)}/comments", "comments")

    def ensure_label(self, name: str, color: str, description: str) -> None:
        path = f"/labels/{urllib.parse.quote(name, safe='')}"
        if self.request("GET", path) is None:
            fields = {"name": name, "color": color, "description": description}
            self.request("POST", "/labels", body=fields, landed=lambda: self.request("GET", path))

    def create_issue(self, title: str, body: str, label: str) -> dict:
        def landed():
            return next((issue for issue in self.issues(label, "open") if issue["body"] == body), None)

        return self.request("POST", "/issues", body={"title": title, "body": body, "labels": [label]}, landed=landed)

    def comment(self, number: int, body: str) -> dict:
        def landed():  # the newest comment: an older one may hold the same text, from an earlier night
            told = self.comments(number)
            return told[-1] if told and told[-1]["body"] == body else None

        return self.request("POST", f"/issues/{int(number)}/comments", body={"body": body}, landed=landed)


BOT = "github-actions[bot]"  # GITHUB_TOKEN's login
NOT_FOUND = 404, {"message": "Not Found"}


class StandIn:
    """GitHub's issues API on 127.0.0.1, in memory.  Each ``state["failures"]`` entry ([status, message]) answers one
    request; with "after", the write is done first.  An unknown label is refused, to test the client's own."""

    def __init__(self, repos=("owner/bench",), tokens: dict[str, bool] | None = None):
        self.repos = set(repos)
        self.tokens = dict(tokens if tokens is not None else {"fake": True})
        self.lock = threading.Lock()
        self._state = {"issues": [], "labels": [], "calls": [], "failures": []}
        self.clock = 0

    def state(self) -> dict:  # a copy: the issues, the labels, every call made
        with self.lock:
            return json.loads(json.dumps(self._state))

    def save(self, state: dict) -> None:
        with self.lock:
            self._state = json.loads(json.dumps(state))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self):
        handle = self.handle

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # the calls are in the state
                pass

            def answer(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                code, document = handle(self.command, self.path, self.headers.get("Authorization"), raw)
                data = json.dumps(document).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = answer

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self, *exc) -> None:  # a test may stop it inside its with
        self.server.shutdown()
        self.server.server_close()

    __exit__ = stop

    def add_issue(self, state: dict, title: str, body: str, labels: list[str], user: str = BOT) -> dict:
        """A new open issue in ``state``, as GitHub's POST makes it (or a maintainer, as ``user``)."""
        issue = {"number": len(state["issues"]) + 1, "title": title, "body": body, "labels": labels, "state": "open"}
        state["issues"].append(issue | {"updated_at": self.tick(), "user": user, "comments": []})
        return state["issues"][-1]

    def tick(self) -> str:
        self.clock += 1
        return f"2026-12-31T{self.clock // 3600 % 24:02d}:{self.clock // 60 % 60:02d}:{self.clock % 60:02d}Z"

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
                return NOT_FOUND
            if method != "GET" and not self.tokens[token]:
                return 403, {"message": "Resource not accessible by integration"}
            if (failures := self._state.get("failures")) and not (failures[0][2:] == ["after"] and method == "GET"):
                code, message, *when = failures.pop(0)
                if when == ["after"]:
                    self.route(found[1], method, found[2], query, body or {})
                return code, {"message": message}
            return self.route(found[1], method, found[2], query, body or {})

    def route(self, repo: str, method: str, path: str, query: dict, body: dict) -> tuple[int, object]:
        issues, labels = self._state["issues"], self._state["labels"]
        size, page = int(query.get("per_page", 30)), int(query.get("page", 1))  # GitHub's defaults
        pages = slice((page - 1) * size, page * size)

        def render(issue: dict) -> dict:
            return {
                **{k: issue[k] for k in ("number", "title", "body", "state", "updated_at")},
                "user": {"login": issue.get("user", BOT)},
                "labels": [{"name": name} for name in issue["labels"]],
                "html_url": f"https://github.com/{repo}/issues/{issue['number']}",
            }

        parts = path.strip("/").split("/")
        number = parts[1] if parts[0] == "issues" and len(parts) > 1 else None
        issue = next((i for i in issues if str(i["number"]) == number), None)
        match method, parts:
            case "GET", ["issues"]:
                label, wanted = query.get("labels"), query.get("state", "open")
                found = [i for i in issues if label in (None, *i["labels"]) and wanted in (i["state"], "all")]
                by = "number" if query.get("sort") == "created" else "updated_at"
                found.sort(key=lambda i: i[by], reverse=query.get("direction", "desc") == "desc")
                return 200, [render(i) for i in found[pages]]
            case "POST", ["issues"]:
                missing = [name for name in body.get("labels", []) if name not in labels]
                if missing or not body.get("title"):
                    return 422, {"message": "Validation Failed", "missing": missing}
                return 201, render(
                    self.add_issue(self._state, body["title"], body.get("body", ""), body.get("labels", []))
                )
            case ("GET" | "POST", ["issues", _, "comments"]) | ("PATCH", ["issues", _]) if issue is None:
                return NOT_FOUND
            case "GET", ["issues", _, "comments"]:
                return 200, issue.setdefault("comments", [])[pages]
            case "POST", ["issues", _, "comments"] if isinstance(body.get("body"), str):
                issue.setdefault("comments", []).append({"body": body["body"], "user": {"login": BOT}})
                issue["updated_at"] = self.tick()
                return 201, issue["comments"][-1]
            case "PATCH", ["issues", _]:
                issue.update({k: body[k] for k in ("body", "title", "state") if k in body}, updated_at=self.tick())
                return 200, render(issue)
            case "GET", ["labels", name]:
                return (200, {"name": unquote(name)}) if unquote(name) in labels else NOT_FOUND
            case "POST", ["labels"]:
                if not body.get("name") or body["name"] in labels:
                    return 422, {"message": "Validation Failed"}
                labels.append(body["name"])
                return 201, {"name": body["name"]}
        return 400, {"message": f"the stand-in does not answer {method} {path}"}
