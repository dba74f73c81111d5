use super::*;
use crate::runtime::{
    READ_FILE, READ_SKILL_FILE, Resolver, RunRequest, SEARCH_SKILL_CATALOG, SEARCH_SKILLS, Scope,
    SkillRuntime,
};
use crate::sources::ProvidedSkill;
use proptest::prelude::*;

fn weather() -> ToolDefinition {
    ToolDefinition::new(
        "get_weather",
        "The weather in a city.",
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    )
}

fn schema() -> Value {
    weather().parameters
}

/// A runtime with one provided skill, `haiku`, and the fallback tool and search on.
fn runtime() -> (tempfile::TempDir, SkillRuntime) {
    let workspace = tempfile::tempdir().unwrap();
    let skill = ProvidedSkill::parse(
        "---\nname: haiku\ndescription: Answer in a haiku.\n---\nWrite 5-7-5 syllables.\n",
    )
    .unwrap();
    let mut runtime = SkillRuntime::new(Resolver::fixed(
        Scope::workspace(workspace.path()).with_provided([skill]),
    ));
    runtime = runtime.activate_tool(true).catalog_budget(1);
    (workspace, runtime)
}

#[test]
fn a_definition_renders_in_each_providers_shape() {
    let parameters = schema();
    assert_eq!(
        weather().render(Provider::OpenAiChat),
        json!({"type": "function", "function": {
            "name": "get_weather", "description": "The weather in a city.", "parameters": parameters
        }})
    );
    assert_eq!(
        weather().render(Provider::OpenAiResponses),
        json!({"type": "function", "name": "get_weather", "description": "The weather in a city.",
               "parameters": parameters, "strict": false})
    );
    assert_eq!(
        weather().render(Provider::Anthropic),
        json!({"name": "get_weather", "description": "The weather in a city.",
               "input_schema": parameters})
    );
    assert_eq!(
        weather().render(Provider::Gemini),
        json!({"name": "get_weather", "description": "The weather in a city.",
               "parametersJsonSchema": parameters})
    );
    let strict = ToolDefinition {
        strict: true,
        description: String::new(),
        ..weather()
    };
    assert_eq!(
        strict.render(Provider::OpenAiChat),
        json!({"type": "function", "function": {
            "name": "get_weather", "parameters": parameters, "strict": true
        }})
    );
    assert_eq!(
        strict.render(Provider::Anthropic),
        json!({"name": "get_weather", "input_schema": parameters, "strict": true})
    );
    assert_eq!(
        strict.render(Provider::Gemini),
        json!({"name": "get_weather", "parametersJsonSchema": parameters})
    );
}

#[test]
fn every_rendered_definition_reads_back_the_same() {
    for strict in [false, true] {
        let definition = ToolDefinition {
            strict,
            ..weather()
        };
        for provider in Provider::ALL {
            let rendered = definition.render(provider);
            let expected = ToolDefinition {
                // Gemini has no strict mode.
                strict: strict && provider != Provider::Gemini,
                ..weather()
            };
            assert_eq!(
                ToolDefinition::from_tool(&rendered),
                Some(expected),
                "{provider}"
            );
        }
    }
}

#[test]
fn host_tools_in_other_shapes_are_read_and_built_in_tools_are_not() {
    let parameters = schema();
    // A Responses tool without `strict` is strict, as the API takes it.
    let responses = json!({"type": "function", "name": "get_weather",
                           "description": "The weather in a city.", "parameters": parameters});
    assert_eq!(
        ToolDefinition::from_tool(&responses).map(|tool| tool.strict),
        Some(true)
    );
    let declaration = json!({"name": "get_weather", "description": "The weather in a city.",
                             "parameters": parameters});
    assert_eq!(ToolDefinition::from_tool(&declaration), Some(weather()));
    let no_parameters = ToolDefinition::from_tool(&json!({"name": "ping"})).unwrap();
    assert_eq!(
        no_parameters.parameters,
        json!({"type": "object", "properties": {}})
    );
    for other in [
        json!({"type": "web_search_20250305", "name": "web_search", "max_uses": 5}),
        json!({"type": "web_search"}),
        json!({"googleSearch": {}}),
        json!({"functionDeclarations": [declaration]}),
        json!({"type": "function", "function": {"description": "no name"}}),
        json!("read_file"),
        json!(null),
    ] {
        assert_eq!(ToolDefinition::from_tool(&other), None, "{other}");
    }
}

#[test]
fn host_tools_are_converted_to_the_target_shape_and_the_runs_follow() {
    let parameters = schema();
    let chat = weather().render(Provider::OpenAiChat);
    let anthropic_search = json!({"type": "web_search_20250305", "name": "web_search"});
    let gemini_tool = json!({"functionDeclarations": [weather().render(Provider::Gemini)],
                             "googleSearch": {}});
    let own = [ToolDefinition::new(
        "read_file",
        "Read.",
        json!({"type": "object"}),
    )];
    let host = [chat.clone(), anthropic_search.clone()];
    assert_eq!(
        Provider::Anthropic.tools_with_host(&host, &own).unwrap(),
        [
            weather().render(Provider::Anthropic),
            anthropic_search.clone(),
            own[0].render(Provider::Anthropic),
        ]
    );
    // Already in the target shape: untouched, whatever it holds.
    let cached = json!({"name": "get_weather", "description": "The weather in a city.",
                        "input_schema": parameters, "cache_control": {"type": "ephemeral"}});
    assert_eq!(
        Provider::Anthropic
            .tools_with_host(std::slice::from_ref(&cached), &[])
            .unwrap(),
        std::slice::from_ref(&cached)
    );
    let declarations_only = json!({"functionDeclarations": [weather().render(Provider::Gemini)]});
    assert_eq!(
        Provider::OpenAiChat
            .tools_with_host(&[cached, declarations_only], &own)
            .unwrap(),
        [
            weather().render(Provider::OpenAiChat),
            weather().render(Provider::OpenAiChat),
            own[0].render(Provider::OpenAiChat),
        ]
    );
    // Gemini: every declaration in one leading Tool, the host's other tools after it.
    assert_eq!(
        Provider::Gemini
            .tools_with_host(&[chat, gemini_tool, json!({"codeExecution": {}})], &own)
            .unwrap(),
        [
            json!({"functionDeclarations": [
                weather().render(Provider::Gemini),
                weather().render(Provider::Gemini),
                own[0].render(Provider::Gemini),
            ]}),
            json!({"googleSearch": {}}),
            json!({"codeExecution": {}}),
        ]
    );
    assert_eq!(Provider::Gemini.tools(&[]), Vec::<Value>::new());
    assert_eq!(
        Provider::Gemini.tools(&own),
        [json!({"functionDeclarations": [own[0].render(Provider::Gemini)]})]
    );
}

#[test]
fn a_built_in_tool_goes_only_to_its_own_provider() {
    let refused =
        |provider: Provider, tool: Value| match provider.tools_with_host(&[tool], &[]).unwrap_err()
        {
            RuntimeError::ForeignTool {
                tool,
                owner,
                provider,
            } => format!("{tool} {owner} {provider}"),
            other => panic!("{other}"),
        };
    let gemini = json!({"functionDeclarations": [weather().render(Provider::Gemini)],
                        "googleSearch": {}});
    assert_eq!(
        refused(Provider::OpenAiChat, gemini.clone()),
        "googleSearch Gemini OpenAI Chat Completions"
    );
    assert_eq!(
        refused(Provider::Anthropic, json!({"codeExecution": {}})),
        "codeExecution Gemini Anthropic Messages"
    );
    let anthropic = json!({"type": "web_search_20250305", "name": "web_search", "max_uses": 3});
    assert_eq!(
        refused(Provider::OpenAiResponses, anthropic.clone()),
        "web_search_20250305 Anthropic OpenAI Responses"
    );
    let openai = json!({"type": "web_search"});
    assert_eq!(
        refused(Provider::Gemini, openai.clone()),
        "web_search OpenAI Responses Gemini"
    );
    assert_eq!(
        refused(Provider::Anthropic, openai.clone()),
        "web_search OpenAI Responses Anthropic Messages"
    );
    // Chat Completions offers no built-in tool as a tool.
    assert_eq!(
        refused(Provider::OpenAiChat, openai.clone()),
        "web_search OpenAI Responses OpenAI Chat Completions"
    );
    // Anthropic's undated MCP toolset is Anthropic's; a type nobody knows is left to the API.
    assert_eq!(
        refused(
            Provider::OpenAiResponses,
            json!({"type": "mcp_toolset", "mcp_server_name": "x"})
        ),
        "mcp_toolset Anthropic OpenAI Responses"
    );
    let unknown = json!({"type": "a_tool_from_next_year"});
    for provider in Provider::ALL {
        assert_eq!(
            provider
                .tools_with_host(std::slice::from_ref(&unknown), &[])
                .unwrap(),
            std::slice::from_ref(&unknown)
        );
    }
    // Each is kept, as it is, for its own provider.
    for (provider, tool) in [
        (Provider::OpenAiResponses, openai),
        (Provider::Anthropic, anthropic),
    ] {
        assert_eq!(
            provider
                .tools_with_host(std::slice::from_ref(&tool), &[])
                .unwrap(),
            [tool]
        );
    }
    let message = RuntimeError::ForeignTool {
        tool: "googleSearch".into(),
        owner: "Gemini",
        provider: "OpenAI Chat Completions",
    }
    .to_string();
    assert!(message.contains("send it only to Gemini"), "{message}");
}

#[test]
fn a_gemini_schema_becomes_json_schema_for_the_other_providers() {
    let declaration = json!({"name": "book", "description": "Book a table.", "parameters": {
        "type": "OBJECT",
        "propertyOrdering": ["when", "guests"],
        "properties": {
            "when": {"type": "STRING", "format": "date-time"},
            "guests": {"type": "INTEGER", "nullable": true},
            "size": {"type": "STRING", "enum": ["S", "L"], "nullable": true},
            "seating": {"type": "STRING", "format": "enum", "enum": ["inside", "outside"]},
            "notes": {"type": "ARRAY", "items": {"type": "STRING"}, "nullable": true},
            "either": {"anyOf": [{"type": "STRING"}, {"type": "NUMBER"}], "nullable": true}
        },
        "required": ["when"]
    }});
    let expected = json!({
        "type": "object",
        "properties": {
            "when": {"type": "string", "format": "date-time"},
            "guests": {"type": ["integer", "null"]},
            "size": {"type": ["string", "null"], "enum": ["S", "L", null]},
            "seating": {"type": "string", "enum": ["inside", "outside"]},
            "notes": {"type": ["array", "null"], "items": {"type": "string"}},
            "either": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "null"}]}
        },
        "required": ["when"]
    });
    let definition = ToolDefinition::from_tool(&declaration).unwrap();
    assert_eq!(definition.parameters, expected);
    let tools = Provider::Anthropic
        .tools_with_host(
            &[json!({"functionDeclarations": [declaration.clone()]})],
            &[],
        )
        .unwrap();
    assert_eq!(tools[0]["input_schema"], expected);
    // To Gemini it goes as the host wrote it; a JSON Schema (`parametersJsonSchema`, or another
    // provider's tool) is never touched.
    assert_eq!(
        Provider::Gemini
            .tools_with_host(std::slice::from_ref(&declaration), &[])
            .unwrap()[0]["functionDeclarations"][0],
        declaration
    );
    let json_schema = json!({"name": "book", "parametersJsonSchema": {"type": "object",
                             "properties": {"x": {"type": ["string", "null"]}}}});
    assert_eq!(
        ToolDefinition::from_tool(&json_schema).unwrap().parameters,
        json_schema["parametersJsonSchema"]
    );
}

#[test]
fn host_tool_names_are_read_in_every_shape() {
    assert_eq!(
        tool_names(&json!({"function_declarations": [{"name": "a"}, {"name": "b"}, {}]})),
        ["a", "b"]
    );
    assert_eq!(
        tool_names(&json!({"type": "function", "function": {"name": "a"}})),
        ["a"]
    );
    assert_eq!(tool_names(&json!({"name": "a", "input_schema": {}})), ["a"]);
    assert_eq!(tool_names(&json!({"googleSearch": {}})), Vec::<&str>::new());
}

#[test]
fn a_host_read_file_in_any_shape_aliases_the_reader() {
    let (_workspace, runtime) = runtime();
    let read_file = ToolDefinition::new(READ_FILE, "The host's reader.", Value::Null);
    let search = ToolDefinition::new(SEARCH_SKILLS, "The host's search.", Value::Null);
    for provider in Provider::ALL {
        let host = provider.tools(&[read_file.clone(), search.clone()]);
        let run = runtime
            .prepare(RunRequest::new("Host.").with_tools(host.clone()))
            .unwrap();
        assert_eq!(run.reader_name(), Some(READ_SKILL_FILE), "{provider}");
        assert_eq!(run.search_name(), Some(SEARCH_SKILL_CATALOG), "{provider}");
        // The host's tools stay as given, the run's follow in the same shape.
        let tools = run.tools_for(provider).unwrap();
        let mut names: Vec<&str> = tools.iter().flat_map(tool_names).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            [
                "activate_skill",
                READ_FILE,
                READ_SKILL_FILE,
                SEARCH_SKILL_CATALOG,
                SEARCH_SKILLS
            ],
            "{provider}"
        );
        if provider != Provider::Gemini {
            assert_eq!(tools[..2], host[..], "{provider}");
        }
    }
}

#[test]
fn every_tool_name_the_run_offers_is_portable() {
    let (_workspace, runtime) = runtime();
    for host in [vec![], Provider::OpenAiChat.tools(&[weather()])] {
        let host = host.into_iter().chain([
            json!({"type": "function", "function": {"name": READ_FILE}}),
            json!({"type": "function", "function": {"name": SEARCH_SKILLS}}),
        ]);
        let run = runtime
            .prepare(RunRequest::new("Host.").with_tools(host))
            .unwrap();
        assert_eq!(run.tool_definitions().len(), 3);
        for definition in run.tool_definitions() {
            assert!(portable_tool_name(&definition.name), "{}", definition.name);
        }
    }
    for name in [
        READ_FILE,
        READ_SKILL_FILE,
        SEARCH_SKILLS,
        SEARCH_SKILL_CATALOG,
        "activate_skill",
    ] {
        assert!(portable_tool_name(name), "{name}");
    }
}

#[test]
fn the_default_tools_are_the_openai_chat_rendering() {
    let (_workspace, runtime) = runtime();
    let host = Provider::OpenAiChat.tools(&[weather()]);
    let run = runtime
        .prepare(RunRequest::new("Host.").with_tools(host))
        .unwrap();
    assert_eq!(run.tools.len(), 4);
    assert_eq!(run.tools, run.tools_for(Provider::OpenAiChat).unwrap());
    assert_eq!(
        run.items_for(Provider::Gemini),
        Vec::<Value>::new(),
        "nothing selected"
    );
}

#[test]
fn portable_tool_names() {
    for (name, portable) in [
        ("read_file", true),
        ("_private", true),
        ("a", true),
        ("Tool-2", true),
        (&"a".repeat(64), true),
        (&"a".repeat(65), false),
        ("", false),
        ("2fast", false),
        ("-dash", false),
        ("dotted.name", false),
        ("name:colon", false),
        ("space name", false),
        ("naïve", false),
    ] {
        assert_eq!(portable_tool_name(name), portable, "{name:?}");
    }
}

#[test]
fn context_items_in_each_shape() {
    let item = ContextItem {
        role: "user",
        content: "<selected_skills>…</selected_skills>".to_owned(),
        skill_content: true,
        skills: vec!["haiku".to_owned()],
    };
    let text = item.content.as_str();
    assert_eq!(
        Provider::ALL.map(|provider| provider.context_message(&item)),
        [
            json!({"role": "user", "content": text}),
            json!({"type": "message", "role": "user", "content": text}),
            json!({"role": "user", "content": [{"type": "text", "text": text}]}),
            json!({"role": "user", "parts": [{"text": text}]}),
        ]
    );
}

#[test]
fn chat_calls_are_read_from_a_completion_a_message_or_the_list() {
    let call = json!({"id": "call_1", "type": "function",
                      "function": {"name": "read_file", "arguments": "{\"path\":\"a\"}"}});
    let custom = json!({"id": "call_2", "type": "custom", "custom": {"name": "sql", "input": "x"}});
    let message = json!({"role": "assistant", "content": null, "tool_calls": [call, custom]});
    let expected = vec![ToolCall::new(
        "call_1",
        "read_file",
        json!("{\"path\":\"a\"}"),
    )];
    let chat = Provider::OpenAiChat;
    for response in [
        json!({"choices": [{"index": 0, "message": message}]}),
        message.clone(),
        json!([call]),
    ] {
        assert_eq!(chat.parse_tool_calls(&response).unwrap(), expected);
    }
    for none in [
        json!({"choices": []}),
        json!({"choices": [{"message": {"role": "assistant", "content": "Done."}}]}),
        json!({"role": "assistant", "content": "Done.", "tool_calls": null}),
    ] {
        assert_eq!(chat.parse_tool_calls(&none).unwrap(), []);
    }
}

#[test]
fn responses_calls_are_the_function_call_items() {
    let item = json!({"type": "function_call", "id": "fc_1", "call_id": "call_1",
                      "name": "read_file", "arguments": "{}", "status": "completed"});
    let reasoning = json!({"type": "reasoning", "id": "rs_1", "summary": []});
    let expected = vec![ToolCall::new("call_1", "read_file", json!("{}"))];
    let responses = Provider::OpenAiResponses;
    for response in [
        json!({"object": "response", "output": [reasoning, item]}),
        json!([reasoning, item]),
        item.clone(),
    ] {
        assert_eq!(responses.parse_tool_calls(&response).unwrap(), expected);
    }
    let text = json!({"output": [{"type": "message", "role": "assistant", "content": []}]});
    assert_eq!(responses.parse_tool_calls(&text).unwrap(), []);
}

#[test]
fn anthropic_calls_are_the_tool_use_blocks() {
    let blocks = json!([
        {"type": "text", "text": "Let me look."},
        {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a"}},
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
        {"type": "tool_use", "id": "toolu_2", "name": "get_weather"}
    ]);
    let expected = vec![
        ToolCall::new("toolu_1", "read_file", json!({"path": "a"})),
        ToolCall::new("toolu_2", "get_weather", json!({})),
    ];
    let anthropic = Provider::Anthropic;
    let message = json!({"type": "message", "role": "assistant", "content": blocks,
                         "stop_reason": "tool_use"});
    assert_eq!(anthropic.parse_tool_calls(&message).unwrap(), expected);
    assert_eq!(anthropic.parse_tool_calls(&blocks).unwrap(), expected);
    let text = json!({"role": "assistant", "content": "Done."});
    assert_eq!(anthropic.parse_tool_calls(&text).unwrap(), []);
}

#[test]
fn gemini_calls_without_an_id_get_one_by_order_and_their_results_none() {
    let parts = json!([
        {"text": "Looking."},
        {"functionCall": {"name": "read_file", "args": {"path": "a"}}},
        {"functionCall": {"id": "abc", "name": "get_weather", "args": {"city": "Oslo"}}},
        {"function_call": {"name": "get_weather"}}
    ]);
    let expected = vec![
        ToolCall::new("gemini-call-0", "read_file", json!({"path": "a"})),
        ToolCall::new("abc", "get_weather", json!({"city": "Oslo"})),
        ToolCall::new("gemini-call-2", "get_weather", json!({})),
    ];
    let gemini = Provider::Gemini;
    let content = json!({"role": "model", "parts": parts});
    let response = json!({"candidates": [{"content": content, "finishReason": "STOP"}]});
    for response in [response, content, parts] {
        assert_eq!(gemini.parse_tool_calls(&response).unwrap(), expected);
    }
    let blocked = json!({"candidates": [{"finishReason": "SAFETY"}]});
    assert_eq!(gemini.parse_tool_calls(&blocked).unwrap(), []);
    // Results go back in the calls' order, a synthesized id left out.
    let results = [
        ToolResult::new(&expected[0], "{\"content\":\"text\"}"),
        ToolResult::error(&expected[1], "no such city"),
        ToolResult::new(&expected[2], "[1, 2]"),
    ];
    assert_eq!(
        gemini.result_messages(&results),
        [json!({"role": "user", "parts": [
            {"functionResponse": {"name": "read_file",
                                  "response": {"output": {"content": "text"}}}},
            {"functionResponse": {"id": "abc", "name": "get_weather",
                                  "response": {"error": "no such city"}}},
            {"functionResponse": {"name": "get_weather", "response": {"output": [1, 2]}}},
        ]})]
    );
}

#[test]
fn one_turns_results_are_one_message_where_the_api_requires_it() {
    let calls = [
        ToolCall::new("call_1", "read_file", json!({})),
        ToolCall::new("call_2", "get_weather", json!({})),
    ];
    let results = [
        ToolResult::error(&calls[0], "{\"error\":\"not_found\"}"),
        ToolResult::new(&calls[1], "sunny"),
    ];
    assert_eq!(
        Provider::Anthropic.result_messages(&results),
        [json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "call_1", "content": "{\"error\":\"not_found\"}",
             "is_error": true},
            {"type": "tool_result", "tool_use_id": "call_2", "content": "sunny"},
        ]})]
    );
    assert_eq!(
        Provider::OpenAiChat.result_messages(&results),
        [
            json!({"role": "tool", "tool_call_id": "call_1", "content": "{\"error\":\"not_found\"}"}),
            json!({"role": "tool", "tool_call_id": "call_2", "content": "sunny"}),
        ]
    );
    assert_eq!(
        Provider::OpenAiResponses.result_messages(&results),
        [
            json!({"type": "function_call_output", "call_id": "call_1",
                   "output": "{\"error\":\"not_found\"}"}),
            json!({"type": "function_call_output", "call_id": "call_2", "output": "sunny"}),
        ]
    );
    for provider in Provider::ALL {
        assert_eq!(
            provider.result_messages(&[]),
            Vec::<Value>::new(),
            "{provider}"
        );
    }
}

#[test]
fn malformed_responses_are_errors_that_say_what_was_expected() {
    let error = Provider::Anthropic
        .parse_tool_calls(&json!({"candidates": []}))
        .unwrap_err();
    assert_eq!(
        error,
        ResponseError::Unrecognized {
            provider: Provider::Anthropic,
            expected: "a message (`content`) or an array of content blocks",
        }
    );
    assert!(error.to_string().starts_with(
        "this is not Anthropic Messages output: expected a message (`content`) or an array of \
         content blocks;"
    ));
    let no_id = json!({"tool_calls": [{"type": "function", "function": {"name": "a"}}]});
    let error = Provider::OpenAiChat.parse_tool_calls(&no_id).unwrap_err();
    assert_eq!(
        error.to_string(),
        "OpenAI Chat Completions tool call 0 (counting from 0) is malformed: it has no `id` \
         string; pass the response as the API returned it"
    );
    for (provider, response) in [
        (Provider::OpenAiChat, json!({"choices": "none"})),
        (Provider::OpenAiChat, json!({"choices": [{}]})),
        (Provider::OpenAiChat, json!({"tool_calls": [7]})),
        (
            Provider::OpenAiResponses,
            json!({"output": [{"type": "function_call"}]}),
        ),
        (Provider::OpenAiResponses, json!(42)),
        (
            Provider::Anthropic,
            json!({"content": [{"type": "tool_use", "id": 1}]}),
        ),
        (
            Provider::Gemini,
            json!({"parts": [{"functionCall": "read_file"}]}),
        ),
        (
            Provider::Gemini,
            json!({"candidates": [{"content": {"parts": {}}}]}),
        ),
        (Provider::Gemini, json!("text")),
    ] {
        assert!(
            provider.parse_tool_calls(&response).is_err(),
            "{provider}: {response}"
        );
    }
}

/// Any JSON value, a few levels deep, with the keys the parsers look for.
fn any_json() -> impl Strategy<Value = Value> {
    let key = prop::sample::select(vec![
        "choices",
        "message",
        "tool_calls",
        "function",
        "id",
        "name",
        "arguments",
        "output",
        "type",
        "call_id",
        "content",
        "input",
        "candidates",
        "parts",
        "functionCall",
        "args",
        "role",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        prop::sample::select(vec!["function", "function_call", "tool_use", "x"])
            .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 4, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(key.clone(), inner, 0..4).prop_map(|map| {
                Value::Object(map.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            }),
        ]
    })
}

proptest! {
    #[test]
    fn no_response_makes_parsing_panic(response in any_json()) {
        for provider in Provider::ALL {
            let _ = provider.parse_tool_calls(&response);
        }
    }
}

#[test]
fn messages_serialize_both_ways() {
    let call = ToolCall::new("call_1", "read_file", json!({"path": "a"}));
    let text = serde_json::to_string(&call).unwrap();
    assert_eq!(
        text,
        r#"{"id":"call_1","name":"read_file","arguments":{"path":"a"}}"#
    );
    assert_eq!(serde_json::from_str::<ToolCall>(&text).unwrap(), call);
    let result = ToolResult {
        skill: Some("haiku".to_owned()),
        ..ToolResult::new(&call, "text")
    };
    let text = serde_json::to_string(&result).unwrap();
    assert_eq!(
        text,
        r#"{"tool_call_id":"call_1","name":"read_file","content":"text","is_error":false,"skill":"haiku"}"#
    );
    assert_eq!(serde_json::from_str::<ToolResult>(&text).unwrap(), result);
    let item = ContextItem {
        role: "user",
        content: "text".to_owned(),
        skill_content: true,
        skills: vec!["haiku".to_owned()],
    };
    let text = serde_json::to_string(&item).unwrap();
    assert_eq!(serde_json::from_str::<ContextItem>(&text).unwrap(), item);
    let system = text.replace("\"user\"", "\"system\"");
    let error = serde_json::from_str::<ContextItem>(&system).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("a context item is always a user message")
    );
    let provider: Provider = serde_json::from_str("\"openai_responses\"").unwrap();
    assert_eq!(provider, Provider::OpenAiResponses);
    for provider in Provider::ALL {
        assert_eq!(
            serde_json::to_value(provider).unwrap(),
            json!(provider.as_str())
        );
    }
}

/// The visible lines of each ` ```rust ` example in `text` (rustdoc's hidden `# ` lines left
/// out), from a doc comment's lines when `prefix` is `/// `.
fn examples(text: &str, prefix: &str) -> Vec<String> {
    let mut examples = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in text.lines() {
        let Some(line) = line.trim_start().strip_prefix(prefix.trim_end()) else {
            continue;
        };
        let line = line.strip_prefix(' ').unwrap_or(line);
        match (&mut current, line) {
            (None, "```" | "```rust") => current = Some(Vec::new()),
            (Some(_), "```") => examples.push(current.take().unwrap_or_default().join("\n")),
            (Some(lines), line) if !line.starts_with("# ") && line != "#" => lines.push(line),
            _ => {}
        }
    }
    examples
}

#[test]
fn the_readme_shows_the_provider_examples_as_they_are_tested() {
    let readme = include_str!("../../../../../README.md");
    let tested = examples(include_str!("../provider.rs"), "/// ");
    assert_eq!(tested.len(), 4);
    for example in tested {
        assert!(
            readme.contains(&format!("```rust\n{example}\n```")),
            "README.md does not show this example as tested:\n{example}"
        );
    }
}

#[test]
fn activate_skill_is_sent_strict_and_the_other_tools_are_not() {
    let (_workspace, runtime) = runtime();
    let run = runtime.prepare(RunRequest::new("Host.")).unwrap();
    let tools = run.tools_for(Provider::OpenAiResponses).unwrap();
    let strict: Vec<(&str, bool)> = tools
        .iter()
        .map(|tool| (tool["name"].as_str().unwrap(), tool["strict"] == true))
        .collect();
    assert_eq!(
        strict,
        [
            (READ_FILE, false),
            (SEARCH_SKILLS, false),
            ("activate_skill", true)
        ]
    );
    // Its schema is one strict mode takes: every property required, nothing else allowed.
    let schema = &tools[2]["parameters"];
    assert_eq!(schema["required"], json!(["name"]));
    assert_eq!(schema["additionalProperties"], false);
}

#[test]
fn activate_skill_over_many_skills_is_not_strict() {
    let workspace = tempfile::tempdir().unwrap();
    let skills = (0..300).map(|number| {
        ProvidedSkill::parse(format!(
            "---\nname: skill-{number:03}\ndescription: Skill {number}.\n---\nBody.\n"
        ))
        .unwrap()
    });
    let runtime = SkillRuntime::new(Resolver::fixed(
        Scope::workspace(workspace.path()).with_provided(skills),
    ))
    .activate_tool(true);
    let run = runtime.prepare(RunRequest::new("Host.")).unwrap();
    let tools = run.tools_for(Provider::OpenAiResponses).unwrap();
    let activate = tools
        .iter()
        .find(|tool| tool["name"] == "activate_skill")
        .unwrap();
    // 300 names are past what a strict schema's enum may list: sent, but not strict.
    assert_eq!(activate["strict"], false);
    assert_eq!(
        activate["parameters"]["properties"]["name"]["enum"]
            .as_array()
            .unwrap()
            .len(),
        300
    );
}
