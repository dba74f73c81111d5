"""Validates provider-format documents with the providers' own SDK types.

Usage: validate.py FILE...

Each FILE is a JSON document for the provider its name ends with (`openai_chat.json`,
`x.openai_responses.json`, `anthropic.json`, `gemini.json`):

- `tools`, `items` and `results`: what skillbook sends, checked against the SDK's request types
  (unknown fields refused, as the APIs refuse them);
- `response`: an API response, checked against the SDK's response type;
- `calls`: the tool calls skillbook read from `response`, which must be the ones the SDK reads.

Prints `ok FILE` or `rejected FILE: why` for each file; exits 1 when any is rejected.
"""

import json
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import anthropic.types
import openai.types.chat
import openai.types.responses
import pydantic
from google.genai import types as gemini
from openai.types.responses.response_input_item_param import FunctionCallOutput

# The request types are TypedDicts, which accept unknown keys unless told otherwise: the APIs
# refuse them.
FORBID = pydantic.ConfigDict(extra="forbid")


def consume(value):
    """The value with every lazily validated iterable (the SDKs' `Iterable[...]` fields) read, so
    that its elements are validated too."""
    if isinstance(value, Mapping):
        return {key: consume(element) for key, element in value.items()}
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, (list, tuple, Iterator)):
        return [consume(element) for element in value]
    return value


def request(kind, values):
    """The values validated as a list of the request type `kind` (a TypedDict), strictly.
    (The configuration reaches a TypedDict only from a type around it.)"""
    adapter = pydantic.TypeAdapter(list[kind], config=FORBID)
    return consume(adapter.validate_python(values, strict=True))


def one(messages):
    """The results of one model turn, which the API takes in one message."""
    if len(messages) != 1:
        raise ValueError(f"one turn's results must be one message, not {len(messages)}")
    return messages


def same_calls(expected, actual):
    if expected != actual:
        raise ValueError(f"skillbook read the calls {expected}, the SDK reads {actual}")


def plain(calls):
    return [(call["id"], call["name"], call["arguments"]) for call in calls]


def openai_chat(document):
    request(openai.types.chat.ChatCompletionFunctionToolParam, document["tools"])
    request(openai.types.chat.ChatCompletionUserMessageParam, document["items"])
    request(openai.types.chat.ChatCompletionToolMessageParam, document["results"])
    completion = openai.types.chat.ChatCompletion.model_validate(document["response"])
    read = [
        (call.id, call.function.name, call.function.arguments)
        for call in completion.choices[0].message.tool_calls or []
        if call.type == "function"
    ]
    same_calls(plain(document["calls"]), read)


def openai_responses(document):
    request(openai.types.responses.FunctionToolParam, document["tools"])
    request(openai.types.responses.EasyInputMessageParam, document["items"])
    request(FunctionCallOutput, document["results"])
    response = openai.types.responses.Response.model_validate(document["response"])
    read = [
        (item.call_id, item.name, item.arguments)
        for item in response.output
        if item.type == "function_call"
    ]
    same_calls(plain(document["calls"]), read)


def anthropic_messages(document):
    request(anthropic.types.ToolParam, document["tools"])
    request(anthropic.types.MessageParam, document["items"])
    [message] = request(anthropic.types.MessageParam, one(document["results"]))
    if message["role"] != "user":
        raise ValueError("the results are not a user message")
    request(anthropic.types.ToolResultBlockParam, message["content"])
    response = anthropic.types.Message.model_validate(document["response"])
    read = [
        (block.id, block.name, block.input)
        for block in response.content
        if block.type == "tool_use"
    ]
    same_calls(plain(document["calls"]), read)


def gemini_content(document):
    for tool in document["tools"]:
        gemini.Tool.model_validate(tool)
    for item in document["items"]:
        gemini.Content.model_validate(item)
    content = gemini.Content.model_validate(one(document["results"])[0])
    if content.role != "user" or not all(part.function_response for part in content.parts):
        raise ValueError("the results are not one user content of function responses")
    response = gemini.GenerateContentResponse.model_validate(document["response"])
    # Gemini may leave a call's id out; skillbook then numbers the calls.
    read = [
        (call.id or f"gemini-call-{position}", call.name, call.args)
        for position, call in enumerate(response.function_calls or [])
    ]
    same_calls(plain(document["calls"]), read)


VALIDATORS = {
    "openai_chat": openai_chat,
    "openai_responses": openai_responses,
    "anthropic": anthropic_messages,
    "gemini": gemini_content,
}


def main(files):
    rejected = 0
    for file in map(Path, files):
        provider = file.name.removesuffix(".json").rsplit(".", 1)[-1]
        try:
            VALIDATORS[provider](json.loads(file.read_text()))
        except Exception as error:  # every rejection is reported, whatever raised it
            rejected += 1
            reason = " ".join(str(error).split())
            print(f"rejected {file.name}: {type(error).__name__}: {reason}")
        else:
            print(f"ok {file.name}")
    return 1 if rejected else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
