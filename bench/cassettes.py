"""Convert public projects' recorded cassettes into traceview captures.

Test suites record their real OpenAI traffic as VCR cassettes (vcrpy YAML, pydantic-ai's
`parsed_body` variant, R vcr). Each cassette with at least one POST to api.openai.com
`/v1/responses` or `/v1/chat/completions` becomes one capture in the line format of
tests/fixtures/real/SOURCES.md, so the input account can be measured on traffic nobody here
wrote. Selection is by directory, not by outcome: every cassette under the given folders.

    python bench/cassettes.py OUT_DIR MIRROR_GIT_DIR:PREFIX:LICENCE:FOLDER[,FOLDER...] ...

MIRROR_GIT_DIR is a bare/mirror clone (read with `git cat-file`, no work tree needed).
Dev-only dependency: PyYAML (not a dependency of the package).
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

HOST = "api.openai.com"
KEPT_PATHS = ("/v1/responses", "/v1/chat/completions", "/v1/conversations")
MODEL_CALLS = ("/v1/responses", "/v1/chat/completions")
TERMINAL = ("response.completed", "response.incomplete", "response.failed")
# A provider id is long and random; hand-written cassettes use short invented ones
# (tests/fixtures/real/SOURCES.md, "Rejected as hand-written").
_REAL_ID = re.compile(r"^(resp|chatcmpl|msg|conv)[_-][A-Za-z0-9-]{16,}$")
_STATUSES = {"completed", "incomplete", "failed", "in_progress", "queued", "cancelled"}
# Base64 payloads (images sent or generated) longer than this are cut to KEEP characters:
# the header bytes that size an image survive, the megabytes of pixels do not.
LONG, KEEP = 32 * 1024, 8 * 1024
_BASE64 = re.compile(r"^(data:[^,;]*;base64,)?[A-Za-z0-9+/=]+$")


@dataclass
class Source:
    git: Path
    prefix: str
    licence: str
    folders: list[str]
    repo: str = ""
    commit: str = ""


@dataclass
class Result:
    lines: list[str] = field(default_factory=list)
    calls: int = 0
    rejected: str = ""
    cut: int = 0  # base64 payloads cut


def cut_base64(value: Any, result: Result) -> Any:
    """The value with every long base64 string cut to its first KEEP characters."""
    if isinstance(value, dict):
        return {k: cut_base64(v, result) for k, v in value.items()}
    if isinstance(value, list):
        return [cut_base64(v, result) for v in value]
    if isinstance(value, str) and len(value) > LONG and _BASE64.match(value[:LONG]):
        result.cut += 1
        head = value.find(",") + 1 if value.startswith("data:") else 0
        return value[:head + KEEP]
    return value


def git(source: Source, *args: str) -> str:
    return subprocess.run(["git", "-C", str(source.git), *args], check=True,
                          capture_output=True, text=True).stdout


def files(source: Source) -> Iterator[str]:
    listing = git(source, "ls-tree", "-r", "--name-only", "HEAD", "--", *source.folders)
    for path in sorted(listing.splitlines()):
        if path.endswith((".yaml", ".yml")):
            yield path


def blob(source: Source, path: str) -> str:
    return git(source, "show", f"HEAD:{path}")


def _bytes(value: object) -> bytes | None:
    if isinstance(value, bytes):
        return gzip.decompress(value) if value[:2] == b"\x1f\x8b" else value
    if isinstance(value, str):
        return value.encode("utf-8")
    return None


def _body_text(part: dict[str, Any]) -> tuple[Any, bytes | None]:
    """(parsed JSON body or None, raw bytes or None) of a recorded request/response."""
    if "parsed_body" in part:
        return part["parsed_body"], None
    body = part.get("body")
    if isinstance(body, dict):
        body = body.get("string", body.get("base64_string"))
    raw = _bytes(body)
    if raw is None or not raw.strip():
        return None, raw
    try:
        return json.loads(raw), raw
    except ValueError:
        return None, raw


def _status(response: dict[str, Any]) -> int:
    status = response.get("status")
    if isinstance(status, dict):
        status = status.get("code", status.get("status_code"))
    try:
        return int(status) if status is not None else 200
    except (TypeError, ValueError):
        return 200


def _header(part: dict[str, Any], name: str) -> str | None:
    for key, value in (part.get("headers") or {}).items():
        if str(key).lower() == name:
            return str(value[0] if isinstance(value, list) and value else value)
    return None


def _events(raw: bytes) -> list[Any]:
    events = []
    for line in raw.decode("utf-8", "replace").splitlines():
        if line.startswith("data:"):
            data = line[5:].strip()
            if data and data != "[DONE]":
                try:
                    events.append(json.loads(data))
                except ValueError:
                    continue
    return events


def exchange(interaction: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """One interaction as (req record, res record), or None when it is not kept."""
    request, response = interaction.get("request") or {}, interaction.get("response") or {}
    uri = str(request.get("uri") or "")
    match = re.match(r"https?://([^/]+)(/[^?#]*)(\?[^#]*)?", uri)
    if not match or match.group(1) != HOST or not match.group(2).startswith(KEPT_PATHS):
        return None
    method = str(request.get("method") or "POST").upper()
    path, query = match.group(2), match.group(3) or ""
    req_body, _ = _body_text(request)
    if method == "POST" and not isinstance(req_body, dict):
        return None
    req: dict[str, Any] = {"dir": "req", "body": req_body if method == "POST" else None}
    if not (method == "POST" and path == "/v1/responses"):
        req["endpoint"] = f"{method} {path}{query}"
    res_body, raw = _body_text(response)
    res: dict[str, Any] = {"dir": "res", "elapsed_ms": None, "body": None}
    status = _status(response)
    if status != 200:
        res["status"] = status
    if isinstance(res_body, str) or (res_body is None and raw and b"data:" in raw):
        events = _events(res_body.encode() if isinstance(res_body, str) else raw or b"")
        res["events"] = events
        ends = [e["response"] for e in events if isinstance(e, dict)
                and e.get("type") in TERMINAL and isinstance(e.get("response"), dict)]
        res["body"] = ends[-1] if ends else None
    else:
        res["body"] = res_body
        ms = _header(response, "openai-processing-ms")
        res["elapsed_ms"] = int(ms) if ms and ms.isdigit() else None
    return req, res


def hand_written(res: dict[str, Any]) -> str:
    """Why a response does not look like the provider's own, or ''."""
    body = res.get("body")
    if body is None and res.get("events"):
        body = res["events"][0]  # a streamed chat response: its first chunk
    if not isinstance(body, dict) or not isinstance(body.get("id"), str):
        return ""
    if "provider" in body or body["id"].startswith("gen-"):
        return f"another provider's response ({body.get('provider') or body['id'][:4]})" \
            " recorded under an api.openai.com URI"
    if body.get("object") not in ("response", "chat.completion", "chat.completion.chunk"):
        return ""
    if not _REAL_ID.match(body["id"]) and not body["id"].startswith(("resp_0100", "conv_0100")):
        return f"invented id {body['id']!r}"
    if body.get("object") == "response" and body.get("status") not in _STATUSES:
        return f"invalid status {body.get('status')!r}"
    return ""


def convert(text: str) -> Result:
    doc = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    result = Result()
    interactions = (doc or {}).get("interactions") or (doc or {}).get("http_interactions") or []
    for interaction in interactions:
        pair = exchange(interaction) if isinstance(interaction, dict) else None
        if pair is None:
            continue
        req, res = pair
        result.rejected = result.rejected or hand_written(res)
        if req.get("endpoint", "POST /v1/responses").split(" ")[1].startswith(MODEL_CALLS) \
                and req["body"] is not None:
            result.calls += 1
        for record in pair:
            record = cut_base64(record, result)
            result.lines.append(json.dumps(record, ensure_ascii=False, separators=(",", ":")))
    return result


def shared_paths() -> set[str]:
    """Cassette paths already converted into the shared real captures (not repeated)."""
    sources = Path(__file__).resolve().parent.parent / "tests/fixtures/real/SOURCES.md"
    return set(re.findall(r"`([^`\s]+\.ya?ml)`", sources.read_text(encoding="utf-8")))


def name_for(source: Source, path: str) -> str:
    parts = Path(path).with_suffix("").parts
    tail = "__".join(parts[-2:]) if len(parts) > 1 else parts[-1]
    return f"{source.prefix}__{re.sub(r'[^A-Za-z0-9_.-]+', '_', tail)}.jsonl.gz"


def run(out: Path, sources: list[Source]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    skip = shared_paths()
    rows, rejected, repeated = [], [], []
    for source in sources:
        # The fetch tool's mirrors live at .../owner+name/repo.
        source.repo = source.repo or source.git.resolve().parent.name.replace("+", "/")
        source.commit = git(source, "rev-parse", "HEAD").strip()
        for path in files(source):
            try:
                text = blob(source, path)
            except subprocess.CalledProcessError:  # files of 4 MiB and more are not mirrored
                if "openai" in path.lower():
                    rejected.append((source, path, "absent from the snapshot (4 MiB or more)"))
                continue
            try:
                result = convert(text)
            except (yaml.YAMLError, UnicodeDecodeError, ValueError, OSError) as exc:
                rejected.append((source, path, f"unreadable: {type(exc).__name__}"))
                continue
            if not result.calls:
                continue
            if path in skip:
                repeated.append((source, path))
                continue
            if result.rejected:
                rejected.append((source, path, f"not the provider's own: {result.rejected}"))
                continue
            name = name_for(source, path)
            data = ("\n".join(result.lines) + "\n").encode("utf-8")
            (out / name).write_bytes(gzip.compress(data, 9, mtime=0))  # reproducible bytes
            rows.append((name, source, path, result.calls, result.cut))
    (out / "SOURCES.md").write_text(sources_md(sources, rows, rejected, repeated),
                                    encoding="utf-8")
    print(f"{len(rows)} captures, {sum(r[3] for r in rows)} model calls; "
          f"{len(rejected)} rejected; {len(repeated)} already in tests/fixtures/real")


Row = tuple[str, Source, str, int, int]  # capture, source, path, model calls, cut payloads


def sources_md(sources: list[Source], rows: list[Row],
               rejected: list[tuple[Source, str, str]],
               repeated: list[tuple[Source, str]]) -> str:
    head = [
        "# Recorded cassettes of public projects, converted",
        "",
        "Generated by `bench/cassettes.py` (do not edit by hand; re-run it). Every cassette",
        "under the folders below that holds a POST to api.openai.com `/v1/responses` or",
        "`/v1/chat/completions` is converted, whatever its outcome; only its api.openai.com",
        "`/v1/responses*`, `/v1/chat/completions` and `/v1/conversations*` exchanges are kept.",
        "Line format and fidelity as in `tests/fixtures/real/SOURCES.md` (parsed bodies",
        "re-serialised compactly; SSE `data:` payloads kept in order as `events`, `body` the",
        "terminal event's response; `elapsed_ms` = `openai-processing-ms` where recorded).",
        "Cassettes already converted into `tests/fixtures/real` are not repeated. Nothing was",
        "redacted. One edit, for size: a base64 string (an image sent or generated) longer",
        f"than {LONG // 1024} KiB is cut to its first {KEEP // 1024} KiB, which keeps the header"
        " bytes that size an",
        "image (column `cut`: how many in that capture). Licence texts are in `licenses/`.",
        "",
        "| source | commit (snapshot) | licence | folders |",
        "|---|---|---|---|",
    ]
    for s in sources:
        head.append(f"| {s.repo} | {s.commit} | {s.licence} | {', '.join(s.folders)} |")
    head += ["", "| capture | repository | commit | path | licence | model calls | cut |",
             "|---|---|---|---|---|---|---|"]
    for name, s, path, calls, cut in rows:
        head.append(f"| `{name}` | {s.repo} | {s.commit[:10]} | `{path}` | {s.licence} |"
                    f" {calls} | {cut or ''} |")
    head += ["", "Not converted:", ""]
    for s, path, why in rejected:
        head.append(f"- {s.repo} `{path}`: {why}")
    for s, path in repeated:
        head.append(f"- {s.repo} `{path}`: already in tests/fixtures/real")
    return "\n".join(head) + "\n"


def parse_source(spec: str) -> Source:
    git_dir, prefix, licence, folders = spec.split(":", 3)
    return Source(Path(git_dir), prefix, licence, folders.split(","))


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__)
        return 2
    run(Path(argv[0]), [parse_source(s) for s in argv[1:]])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
