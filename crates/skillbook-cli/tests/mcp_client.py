"""End-to-end check of `skillbook mcp` with the official MCP Python SDK (`pip install mcp`).

Usage: mcp_client.py SKILLBOOK WORKSPACE HOME

Starts `SKILLBOOK --workspace WORKSPACE --home HOME mcp` as a subprocess through the SDK's stdio
client, then: initializes; lists every skill (following `nextCursor`); gets each one; reads every
resource of every skill and checks its sha256 digest and size; lists the skill directory; reads a
segment through the `read_file` tool; and checks that an unknown skill URI is error -32602 and
that path attacks fail. The workspace must hold the skills `pdf` (with `refs/guide.md` of at
least three lines) and the manual-only `runbook`.

The SDK does not know the Skills extension's methods, so `skills/list`, `skills/get` and
`resources/directory/read` go through its generic `send_request` with a plain request type.
Prints `N passed, 0 failed` and exits 0 when every check holds; otherwise the first failed check
raises and the exit status is 1.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import sys
from typing import Any, Literal

from pydantic import TypeAdapter

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

EXTENSION = "io.modelcontextprotocol/skills"
ANY_RESULT = TypeAdapter(dict[str, Any])


class SkillsList(types.Request[dict[str, Any] | None, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: dict[str, Any] | None = None


class SkillsGet(types.Request[dict[str, Any], Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"


class DirectoryRead(types.Request[dict[str, Any], Literal["resources/directory/read"]]):
    method: Literal["resources/directory/read"] = "resources/directory/read"


class Checks:
    """Counts the checks that held; the first that fails raises."""

    def __init__(self) -> None:
        self.passed = 0

    def equal(self, actual: Any, expected: Any, what: str) -> None:
        if actual != expected:
            raise AssertionError(f"{what}: expected {expected!r}, got {actual!r}")
        self.passed += 1

    def true(self, condition: bool, what: str) -> None:
        self.equal(bool(condition), True, what)


async def expect_error(call: Any, code: int | None = None) -> MCPError:
    try:
        await call
    except MCPError as error:
        if code is not None and error.code != code:
            raise AssertionError(f"expected error {code}, got {error.code}: {error.message}")
        return error
    raise AssertionError("expected an error, got a result")


def contents_bytes(contents: Any) -> bytes:
    if isinstance(contents, types.TextResourceContents):
        return contents.text.encode("utf-8")
    return base64.b64decode(contents.blob)


async def list_skills(session: ClientSession) -> list[dict[str, Any]]:
    skills: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        params = {"cursor": cursor} if cursor is not None else None
        page = await session.send_request(SkillsList(params=params), ANY_RESULT)
        skills.extend(page["skills"])
        cursor = page.get("nextCursor")
        if cursor is None:
            return skills


async def check_skills(session: ClientSession, checks: Checks) -> list[dict[str, Any]]:
    skills = await list_skills(session)
    names = [skill["frontmatter"]["name"] for skill in skills]
    checks.true("pdf" in names and "runbook" in names, f"skills listed: {names}")
    for skill in skills:
        got = await session.send_request(SkillsGet(params={"uri": skill["uri"]}), ANY_RESULT)
        checks.equal(got["skill"], skill, f"skills/get {skill['uri']}")
        manual = skill["frontmatter"].get("disable-model-invocation") is True
        checks.equal(
            skill["_meta"]["skillbook/disableModelInvocation"], manual, f"flag of {skill['uri']}"
        )
    return skills


async def check_resources(session: ClientSession, skills: list[dict[str, Any]], checks: Checks) -> int:
    read = 0
    for skill in skills:
        uris = [resource["uri"] for resource in skill["resources"]]
        checks.true(skill["uri"] in uris, f"{skill['uri']} lists its SKILL.md")
        for resource in skill["resources"]:
            result = await session.read_resource(resource["uri"])
            data = contents_bytes(result.contents[0])
            checks.equal(len(data), resource["size"], f"size of {resource['uri']}")
            digest = "sha256:" + hashlib.sha256(data).hexdigest()
            checks.equal(digest, resource["digest"], f"digest of {resource['uri']}")
            read += 1
    listing = await session.send_request(DirectoryRead(params={"uri": "skill://pdf"}), ANY_RESULT)
    children = {entry["name"]: entry.get("mimeType") for entry in listing["resources"]}
    checks.equal(children.get("refs"), "inode/directory", "skill://pdf lists refs/")
    checks.equal(children.get("SKILL.md"), "text/markdown", "skill://pdf lists SKILL.md")
    return read


async def check_tool(session: ClientSession, workspace: str, checks: Checks) -> None:
    tools = await session.list_tools()
    checks.equal([tool.name for tool in tools.tools], ["read_file"], "tools offered")
    guide = f"{workspace}/.agents/skills/pdf/refs/guide.md"
    result = await session.call_tool("read_file", {"path": guide, "startLine": 2, "endLine": 3})
    checks.equal(result.is_error, False, "the segment read succeeds")
    structured = result.structured_content or {}
    checks.equal((structured.get("startLine"), structured.get("endLine")), (2, 3), "segment lines")
    with open(guide, encoding="utf-8") as file:
        expected = "\n".join(file.read().splitlines()[1:3])
    checks.equal(structured.get("content"), expected, "segment content")
    refused = await session.call_tool("read_file", {"path": "../../../etc/passwd"})
    checks.equal(refused.is_error, True, "a path outside is refused")
    checks.equal((refused.structured_content or {}).get("error"), "outside_boundary", "refusal code")


async def check_errors(session: ClientSession, checks: Checks) -> None:
    unknown = SkillsGet(params={"uri": "skill://no-such-skill/SKILL.md"})
    await expect_error(session.send_request(unknown, ANY_RESULT), -32602)
    checks.passed += 1
    for uri in ["skill://pdf/../../etc/passwd", "skill://pdf/%2e%2e%2fetc%2fpasswd", "file:///etc/passwd"]:
        error = await expect_error(session.read_resource(uri))
        checks.true("root:" not in error.message, f"{uri} leaks nothing")
    skills = await list_skills(session)
    checks.true(len(skills) >= 2, "the server keeps serving after errors")


async def main(skillbook: str, workspace: str, home: str) -> int:
    server = StdioServerParameters(
        command=skillbook, args=["--workspace", workspace, "--home", home, "mcp"]
    )
    checks = Checks()
    async with stdio_client(server) as (read_stream, write_stream):
        async with ClientSession(read_stream, write_stream) as session:
            initialized = await session.initialize()
            extensions = initialized.capabilities.extensions or {}
            checks.equal(extensions.get(EXTENSION), {"directoryRead": True}, "extension declared")
            instructions = initialized.instructions or ""
            checks.true("<available_skills>" in instructions, "the catalog is the instructions")
            checks.true("<name>runbook</name>" not in instructions, "manual-only stays out")
            skills = await check_skills(session, checks)
            read = await check_resources(session, skills, checks)
            await check_tool(session, workspace, checks)
            await check_errors(session, checks)
    print(f"read {read} resources of {len(skills)} skills")
    print(f"{checks.passed} passed, 0 failed")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(asyncio.run(main(*sys.argv[1:])))
