"""End-to-end check of `skillbook serve` with the official MCP Python SDK (`pip install mcp`).

Usage: serve_client.py URL ALPHA_TOKEN BETA_TOKEN FORBIDDEN...

URL is the server's `/mcp` endpoint. The server must serve two tenants with a page size of 1:
`alpha` (token ALPHA_TOKEN) with the skills `pdf` (with `refs/guide.md` of at least three lines)
and `xlsx`; `beta` (token BETA_TOKEN) with `memo` and `zipped` (from a zip archive). Neither
tenant is anonymous. FORBIDDEN are strings no answer may contain (the server's paths).

Through the SDK's streamable HTTP client, as each tenant: initializes; checks the catalog names
its own skills by `skill://` URI and nothing else; lists every skill following `nextCursor`;
reads every resource and checks its digest; reads through the `read_file` tool; then tries
every way to reach the other tenant's skills — `resources/read`, `skills/get`,
`resources/directory/read`, `read_file` with URIs and with paths, and the other tenant's
cursors — and checks each one fails or yields only its own skills. With plain HTTP it checks
that a missing or wrong token is HTTP 401 with a JSON-RPC error body that is the same either way,
and that a wrong `Host` or `Origin` is refused with 403 before the token is looked at.

Prints `N passed, 0 failed` and exits 0 when every check holds; otherwise the first failed
check raises and the exit status is 1.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import sys
from typing import Any, Literal

import httpx2
from pydantic import TypeAdapter

from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

ANY_RESULT = TypeAdapter(dict[str, Any])
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "serve-check", "version": "1"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


class SkillsList(types.Request[dict[str, Any] | None, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: dict[str, Any] | None = None


class SkillsGet(types.Request[dict[str, Any], Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"


class DirectoryRead(types.Request[dict[str, Any], Literal["resources/directory/read"]]):
    method: Literal["resources/directory/read"] = "resources/directory/read"


class Checks:
    """Counts the checks that held; the first that fails raises."""

    def __init__(self, forbidden: list[str]) -> None:
        self.passed = 0
        self.forbidden = forbidden

    def equal(self, actual: Any, expected: Any, what: str) -> None:
        if actual != expected:
            raise AssertionError(f"{what}: expected {expected!r}, got {actual!r}")
        self.passed += 1

    def true(self, condition: bool, what: str) -> None:
        self.equal(bool(condition), True, what)

    def clean(self, answer: Any, what: str) -> None:
        """No server path in anything the server said."""
        shown = repr(answer)
        for secret in self.forbidden:
            if secret in shown:
                raise AssertionError(f"{what} reveals `{secret}`: {shown}")
        self.passed += 1


async def expect_error(call: Any) -> MCPError:
    try:
        await call
    except MCPError as error:
        return error
    raise AssertionError("expected an error, got a result")


async def list_pages(session: ClientSession, cursor: str | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """Every skill from `cursor` on, and every cursor given on the way."""
    skills: list[dict[str, Any]] = []
    cursors: list[str] = []
    while True:
        params = {"cursor": cursor} if cursor is not None else None
        page = await session.send_request(SkillsList(params=params), ANY_RESULT)
        skills.extend(page["skills"])
        cursor = page.get("nextCursor")
        if cursor is None:
            return skills, cursors
        cursors.append(cursor)


def contents_bytes(contents: Any) -> bytes:
    if isinstance(contents, types.TextResourceContents):
        return contents.text.encode("utf-8")
    return base64.b64decode(contents.blob)


class Tenant:
    def __init__(self, name: str, token: str, skills: list[str]) -> None:
        self.name = name
        self.token = token
        self.skills = skills
        self.cursors: list[str] = []


async def check_own_skills(session: ClientSession, tenant: Tenant, checks: Checks) -> None:
    initialized = await session.initialize()
    instructions = initialized.instructions or ""
    for name in tenant.skills:
        checks.true(
            f"<location>skill://{name}/SKILL.md</location>" in instructions,
            f"{tenant.name}'s catalog locates {name} by URI",
        )
    checks.clean(initialized, f"{tenant.name}'s initialize")
    skills, cursors = await list_pages(session)
    tenant.cursors = cursors
    names = sorted(skill["frontmatter"]["name"] for skill in skills)
    checks.equal(names, sorted(tenant.skills), f"{tenant.name} lists only its skills")
    checks.equal(len(cursors), len(tenant.skills) - 1, f"{tenant.name} pages one skill at a time")
    for skill in skills:
        for resource in skill["resources"]:
            result = await session.read_resource(resource["uri"])
            data = contents_bytes(result.contents[0])
            digest = "sha256:" + hashlib.sha256(data).hexdigest()
            checks.equal(digest, resource["digest"], f"digest of {resource['uri']}")
    first = tenant.skills[0]
    read = await session.call_tool("read_file", {"path": f"skill://{first}/SKILL.md"})
    structured = read.structured_content or {}
    checks.equal((read.is_error, structured.get("skill")), (False, first), f"{tenant.name} reads {first}")
    checks.true(f'dir="skill://{first}"' in structured.get("content", ""), "the marker names a URI")
    checks.clean(read, f"{tenant.name}'s read")


async def check_isolation(session: ClientSession, tenant: Tenant, other: Tenant, checks: Checks, paths: list[str]) -> None:
    for name in other.skills:
        uri = f"skill://{name}/SKILL.md"
        error = await expect_error(session.read_resource(uri))
        checks.clean(error.message, f"{tenant.name} reading {uri}")
        await expect_error(session.send_request(SkillsGet(params={"uri": uri}), ANY_RESULT))
        await expect_error(session.send_request(DirectoryRead(params={"uri": f"skill://{name}"}), ANY_RESULT))
        checks.passed += 1
        refused = await session.call_tool("read_file", {"path": uri})
        checks.equal(
            (refused.is_error, (refused.structured_content or {}).get("error")),
            (True, "not_found"),
            f"{tenant.name} read_file {uri}",
        )
        checks.clean(refused, f"{tenant.name} read_file {uri}")
    for path in paths:
        refused = await session.call_tool("read_file", {"path": path})
        checks.equal(
            (refused.is_error, (refused.structured_content or {}).get("error")),
            (True, "outside_boundary"),
            f"{tenant.name} read_file {path}",
        )
        checks.clean(refused, f"{tenant.name} read_file {path}")
    for cursor in other.cursors:
        skills, _ = await list_pages(session, cursor)
        names = {skill["frontmatter"]["name"] for skill in skills}
        checks.true(names <= set(tenant.skills), f"{tenant.name} with {other.name}'s cursor sees {names}")


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def check_http(url: str, alpha: Tenant, checks: Checks) -> None:
    async with httpx2.AsyncClient(timeout=30) as client:
        missing = await client.post(url, json=INITIALIZE, headers=ACCEPT)
        wrong = await client.post(url, json=INITIALIZE, headers={**ACCEPT, **bearer("sbk_wrong")})
        for response, what in [(missing, "no token"), (wrong, "a wrong token")]:
            checks.equal(response.status_code, 401, f"{what} is 401")
            body = response.json()
            checks.equal((body["jsonrpc"], body["id"], body["error"]["code"]), ("2.0", None, -32001), f"{what}: JSON-RPC body")
            checks.true(response.headers.get("www-authenticate", "").startswith("Bearer"), f"{what}: WWW-Authenticate")
        checks.equal(missing.content, wrong.content, "the same 401 whatever the token")
        good = await client.post(url, json=INITIALIZE, headers={**ACCEPT, **bearer(alpha.token)})
        checks.equal(good.status_code, 200, "a valid token initializes")
        for headers, what in [
            ({"Host": "evil.example"}, "a foreign Host"),
            ({"Host": "localhost.evil.example:80"}, "a Host that starts like localhost"),
            ({"Origin": "http://evil.example"}, "a foreign Origin"),
            ({"Origin": "null"}, "the null Origin"),
        ]:
            for token in [alpha.token, "sbk_wrong", None]:
                sent = {**ACCEPT, **headers, **(bearer(token) if token else {})}
                response = await client.post(url, json=INITIALIZE, headers=sent)
                checks.equal(response.status_code, 403, f"{what} with token {token is not None} is 403")
        local = await client.post(url, json=INITIALIZE, headers={**ACCEPT, **bearer(alpha.token), "Origin": "http://localhost:5173"})
        checks.equal(local.status_code, 200, "a local Origin is accepted")


async def session_for(url: str, token: str) -> Any:
    return streamable_http_client(url, http_client=httpx2.AsyncClient(headers=bearer(token), timeout=30))


async def main(url: str, alpha_token: str, beta_token: str, forbidden: list[str]) -> int:
    checks = Checks(forbidden)
    alpha = Tenant("alpha", alpha_token, ["pdf", "xlsx"])
    beta = Tenant("beta", beta_token, ["memo", "zipped"])
    for tenant in [alpha, beta]:
        async with await session_for(url, tenant.token) as (read_stream, write_stream):
            async with ClientSession(read_stream, write_stream) as session:
                await check_own_skills(session, tenant, checks)
    for tenant, other in [(alpha, beta), (beta, alpha)]:
        async with await session_for(url, tenant.token) as (read_stream, write_stream):
            async with ClientSession(read_stream, write_stream) as session:
                await session.initialize()
                await check_isolation(session, tenant, other, checks, forbidden)
    await check_http(url, alpha, checks)
    print(f"{checks.passed} passed, 0 failed")
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:])))
