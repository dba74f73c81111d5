"""An S3 client (boto3) and an MCP client (the official Python SDK) for the object-store tests
of `skillbook serve` (crates/skillbook-cli/tests/serve.rs, module `store`).

Usage:
  store_client.py s3 ENDPOINT create BUCKET
  store_client.py s3 ENDPOINT put BUCKET KEY TEXT [KEY TEXT]...
  store_client.py s3 ENDPOINT delete BUCKET KEY
  store_client.py s3 ENDPOINT putdir BUCKET PREFIX DIRECTORY
  store_client.py s3 ENDPOINT getall BUCKET PREFIX
  store_client.py read URL TOKEN

`s3` talks to the S3-compatible server at ENDPOINT with the test credentials (`test`/`test`,
us-east-1). KEY is stored exactly as given. `read` connects to a `skillbook serve` endpoint as
the tenant of TOKEN, lists every skill following `nextCursor`, reads every resource, and prints
one JSON object: the catalog (the `initialize` instructions) and each resource's text by URI.
"""

from __future__ import annotations

import asyncio
import base64
import json
import sys
from typing import Any, Literal

from pydantic import TypeAdapter

ANY_RESULT = TypeAdapter(dict[str, Any])


def s3(endpoint: str, command: str, arguments: list[str]) -> None:
    import boto3
    from botocore.config import Config

    client = boto3.client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id="test",
        aws_secret_access_key="test",
        region_name="us-east-1",
        config=Config(s3={"addressing_style": "path"}),
    )
    if command == "create":
        client.create_bucket(Bucket=arguments[0])
    elif command == "put":
        bucket, pairs = arguments[0], arguments[1:]
        for key, text in zip(pairs[::2], pairs[1::2], strict=True):
            client.put_object(Bucket=bucket, Key=key, Body=text.encode("utf-8"))
    elif command == "putdir":
        import os
        from concurrent.futures import ThreadPoolExecutor

        bucket, prefix, directory = arguments
        files = [
            os.path.join(folder, name)
            for folder, _, names in os.walk(directory)
            for name in names
        ]

        def upload(path: str) -> None:
            key = prefix + os.path.relpath(path, directory).replace(os.sep, "/")
            with open(path, "rb") as file:
                client.put_object(Bucket=bucket, Key=key, Body=file.read())

        with ThreadPoolExecutor(16) as pool:
            list(pool.map(upload, files))
    elif command == "getall":
        # The floor for loading a prefix: list it and fetch every object, 16 at a time, as a
        # plain S3 client does; prints the milliseconds it took.
        import time
        from concurrent.futures import ThreadPoolExecutor

        bucket, prefix = arguments
        started = time.perf_counter()
        keys = [
            item["Key"]
            for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
            for item in page.get("Contents", [])
        ]
        with ThreadPoolExecutor(16) as pool:
            list(pool.map(lambda key: client.get_object(Bucket=bucket, Key=key)["Body"].read(), keys))
        print(f"{(time.perf_counter() - started) * 1000:.0f}")
    elif command == "delete":
        bucket, key = arguments
        client.delete_object(Bucket=bucket, Key=key)
    else:
        raise SystemExit(f"unknown s3 command {command!r}")


async def read(url: str, token: str) -> None:
    import httpx2
    from mcp import ClientSession, types
    from mcp.client.streamable_http import streamable_http_client

    class SkillsList(types.Request[dict[str, Any] | None, Literal["skills/list"]]):
        method: Literal["skills/list"] = "skills/list"
        params: dict[str, Any] | None = None

    client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    async with streamable_http_client(url, http_client=client) as (read_stream, write_stream, *_):
        async with ClientSession(read_stream, write_stream) as session:
            initialized = await session.initialize()
            resources: dict[str, str] = {}
            cursor = None
            while True:
                params = {"cursor": cursor} if cursor is not None else None
                page = await session.send_request(SkillsList(params=params), ANY_RESULT)
                for skill in page["skills"]:
                    for resource in skill["resources"]:
                        result = await session.read_resource(resource["uri"])
                        contents = result.contents[0]
                        if isinstance(contents, types.TextResourceContents):
                            resources[resource["uri"]] = contents.text
                        else:
                            resources[resource["uri"]] = base64.b64decode(contents.blob).decode("utf-8", "replace")
                cursor = page.get("nextCursor")
                if cursor is None:
                    break
    print(json.dumps({"catalog": initialized.instructions, "resources": resources}, sort_keys=True))


def main(arguments: list[str]) -> None:
    if len(arguments) >= 3 and arguments[0] == "s3":
        s3(arguments[1], arguments[2], arguments[3:])
    elif len(arguments) == 3 and arguments[0] == "read":
        asyncio.run(read(arguments[1], arguments[2]))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
