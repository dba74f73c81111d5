//! Lenient parsing of the `read_file` call arguments.
//!
//! Models send numbers as JSON numbers or as numeric strings (`"10"`), sometimes send the whole
//! argument object as a JSON string, and sometimes use snake_case names. All of these are
//! accepted; anything that is not a positive whole number is refused with an error naming the
//! argument.

use std::path::PathBuf;

use serde_json::{Map, Value};

use super::{ReadError, ReadRequest};

/// Parses call arguments; [`ReadRequest::validate`] checks the rest.
///
/// # Errors
///
/// [`ReadError::MissingPath`] for an absent or null `path`; [`ReadError::InvalidArgument`] for
/// a value of the wrong type or a number below 1.
pub(crate) fn parse(arguments: &Value) -> Result<ReadRequest, ReadError> {
    let parsed;
    let arguments = match arguments {
        Value::String(text) => {
            parsed = serde_json::from_str::<Value>(text).map_err(|_| not_an_object())?;
            &parsed
        }
        other => other,
    };
    let object = arguments.as_object().ok_or_else(not_an_object)?;
    let path = match field(object, "path", "path") {
        None | Some(Value::Null) => return Err(ReadError::MissingPath),
        Some(Value::String(path)) => PathBuf::from(path),
        Some(other) => {
            return Err(ReadError::InvalidArgument {
                argument: "path",
                problem: format!("expected a string, got {other}"),
            });
        }
    };
    let mut request = ReadRequest::new(path);
    request.start_line = whole_number(object, "startLine", "start_line")?.unwrap_or(1);
    request.end_line = whole_number(object, "endLine", "end_line")?;
    request.max_chars = whole_number(object, "maxChars", "max_chars")?
        .map(|chars| usize::try_from(chars).unwrap_or(usize::MAX));
    Ok(request)
}

fn not_an_object() -> ReadError {
    ReadError::InvalidArgument {
        argument: "arguments",
        problem: "expected a JSON object such as {\"path\": \"pdf/SKILL.md\"}".to_owned(),
    }
}

/// The value under the camelCase name, or else under the snake_case one.
fn field<'a>(object: &'a Map<String, Value>, camel: &str, snake: &str) -> Option<&'a Value> {
    object.get(camel).or_else(|| object.get(snake))
}

/// A positive whole number given as a JSON number or a numeric string; absent, null or an empty
/// string mean "not given".
fn whole_number(
    object: &Map<String, Value>,
    argument: &'static str,
    snake: &str,
) -> Result<Option<u64>, ReadError> {
    let number = match field(object, argument, snake) {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(text)) if text.trim().is_empty() => return Ok(None),
        Some(Value::String(text)) => text.trim().parse::<u64>().ok(),
        Some(Value::Number(number)) => number.as_u64().or_else(|| {
            number
                .as_f64()
                .filter(|float| float.fract() == 0.0 && *float >= 0.0 && *float <= u64::MAX as f64)
                .map(|float| float as u64)
        }),
        Some(_) => None,
    };
    match number {
        Some(number) if number > 0 => Ok(Some(number)),
        _ => Err(ReadError::InvalidArgument {
            argument,
            problem: format!(
                "expected a positive whole number (1 or more), got {}",
                field(object, argument, snake).map_or_else(String::new, Value::to_string)
            ),
        }),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]
mod tests {
    use super::*;
    use serde_json::json;

    /// Parses and validates, as a call does.
    fn parse(arguments: &Value) -> Result<ReadRequest, ReadError> {
        let request = super::parse(arguments)?;
        request.validate()?;
        Ok(request)
    }

    fn arguments(path: &str, start_line: u64, end_line: Option<u64>) -> ReadRequest {
        let mut request = ReadRequest::new(path);
        request.start_line = start_line;
        request.end_line = end_line;
        request
    }

    #[test]
    fn numbers_may_be_strings_floats_or_snake_case() {
        let parsed = parse(&json!({"path": "a.md", "startLine": "10", "endLine": 12.0})).unwrap();
        assert_eq!(parsed, arguments("a.md", 10, Some(12)));
        let parsed = parse(&json!({"path": "a.md", "start_line": " 3 ", "max_chars": 5})).unwrap();
        assert_eq!(parsed.start_line, 3);
        assert_eq!(parsed.max_chars, Some(5));
    }

    #[test]
    fn the_object_may_come_as_a_json_string() {
        let parsed = parse(&json!("{\"path\": \"a.md\"}")).unwrap();
        assert_eq!(parsed, arguments("a.md", 1, None));
    }

    #[test]
    fn null_and_empty_numbers_mean_not_given() {
        let parsed = parse(&json!({"path": "a.md", "startLine": null, "endLine": ""})).unwrap();
        assert_eq!(parsed, arguments("a.md", 1, None));
    }

    #[test]
    fn a_missing_or_blank_path_is_missing() {
        for value in [json!({}), json!({"path": null}), json!({"path": "  "})] {
            assert_eq!(parse(&value).unwrap_err().code(), "missing_path", "{value}");
        }
    }

    #[test]
    fn garbage_is_an_invalid_argument() {
        for value in [
            json!(null),
            json!([]),
            json!("not json"),
            json!({"path": 3}),
            json!({"path": "a", "startLine": 0}),
            json!({"path": "a", "startLine": -1}),
            json!({"path": "a", "startLine": "-1"}),
            json!({"path": "a", "startLine": 1.5}),
            json!({"path": "a", "startLine": "ten"}),
            json!({"path": "a", "maxChars": true}),
            json!({"path": "a", "endLine": [1]}),
            json!({"path": "a", "startLine": 5, "endLine": 4}),
        ] {
            let error = parse(&value).unwrap_err();
            assert_eq!(error.code(), "invalid_argument", "{value}");
        }
    }

    #[test]
    fn the_message_names_the_argument_and_the_value() {
        let error = parse(&json!({"path": "a", "startLine": -3})).unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid `startLine`: expected a positive whole number (1 or more), got -3"
        );
    }
}
