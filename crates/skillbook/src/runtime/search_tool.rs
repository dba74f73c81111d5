//! The `search_skills` tool (SPEC §12): offered next to the reader when the catalog lists too
//! little to choose from (from [`crate::Tier::NamesOnly`] on; see [`super::ToolSet`], which
//! also describes it). The runtime and the MCP server both call it through [`search_call`].

use serde_json::{Value, json};

use crate::catalog::SEARCH_SKILLS;
use crate::error::{ErrorCode, error_json};
use crate::search::{DEFAULT_LIMIT, MAX_LIMIT, SearchIndex};

/// The search tool's name when the host already owns `search_skills`.
pub const SEARCH_SKILL_CATALOG: &str = "search_skill_catalog";

/// Runs one search call with the model's arguments (an object, or its JSON text):
/// `{"results": [{"name", "description", "location", "score"}]}`, best first, ties by name.
///
/// # Errors
///
/// An `invalid_argument` error object (`{"error", "message"}`) when `query` is missing or not
/// text, or `limit` is not a positive whole number. A `limit` above [`MAX_LIMIT`] is lowered to
/// it.
pub fn search_call(index: &SearchIndex, arguments: &Value) -> Result<Value, Value> {
    let parsed;
    let arguments = match arguments {
        Value::String(text) => {
            parsed = serde_json::from_str::<Value>(text).unwrap_or(Value::Null);
            &parsed
        }
        other => other,
    };
    let invalid = |message: &str| error_json(ErrorCode::InvalidArgument, message);
    let query = match arguments.get("query") {
        Some(Value::String(query)) if !query.trim().is_empty() => query,
        Some(Value::String(_)) => {
            return Err(invalid(
                "`query` is blank; describe the task in a few words",
            ));
        }
        _ => {
            return Err(invalid(
                "`query` is required: a string describing the task in a few words",
            ));
        }
    };
    let limit = match arguments.get("limit") {
        None | Some(Value::Null) => DEFAULT_LIMIT,
        Some(limit) => match limit.as_u64().or_else(|| whole(limit.as_f64())) {
            Some(limit) if limit >= 1 => usize::try_from(limit).unwrap_or(MAX_LIMIT),
            _ => {
                return Err(invalid(&format!(
                    "`limit` must be a whole number from 1 to {MAX_LIMIT}"
                )));
            }
        },
    };
    let results: Vec<Value> = index
        .search(query, limit.min(MAX_LIMIT))
        .into_iter()
        .map(|hit| {
            json!({
                "name": hit.name,
                "description": hit.description,
                "location": hit.location,
                "score": hit.score,
            })
        })
        .collect();
    Ok(json!({ "results": results }))
}

/// `2.0` as 2; anything with a fraction, negative or not a number as nothing.
fn whole(number: Option<f64>) -> Option<u64> {
    let number = number?;
    if number.fract() != 0.0 || !(1.0..=1e9).contains(&number) {
        return None;
    }
    format!("{number:.0}").parse().ok()
}

/// The search tool's name for a host owning `host_names`: `search_skills`, or
/// `search_skill_catalog` when the host owns `search_skills`; `None` when it owns both.
pub(crate) fn search_name(host_names: &[&str]) -> Option<&'static str> {
    match (
        host_names.contains(&SEARCH_SKILLS),
        host_names.contains(&SEARCH_SKILL_CATALOG),
    ) {
        (false, _) => Some(SEARCH_SKILLS),
        (true, false) => Some(SEARCH_SKILL_CATALOG),
        (true, true) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::CatalogEntry;

    fn index() -> SearchIndex {
        SearchIndex::new((0..30).map(|number| {
            CatalogEntry::new(
                format!("pdf-{number:02}"),
                "Fill PDF forms.",
                format!("skill://pdf-{number:02}/SKILL.md"),
                true,
            )
        }))
    }

    #[test]
    fn results_have_the_documented_shape_and_limits() {
        let index = index();
        let result = search_call(&index, &json!({"query": "pdf forms"})).unwrap();
        let results = result["results"].as_array().unwrap();
        assert_eq!(results.len(), DEFAULT_LIMIT);
        let keys: Vec<&String> = results[0].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["name", "description", "location", "score"]);
        // Best first; equal scores by name.
        let order: Vec<(f64, &str)> = results
            .iter()
            .map(|hit| {
                (
                    hit["score"].as_f64().unwrap(),
                    hit["name"].as_str().unwrap(),
                )
            })
            .collect();
        assert!(
            order
                .windows(2)
                .all(|pair| pair[0].0 > pair[1].0
                    || (pair[0].0 == pair[1].0 && pair[0].1 < pair[1].1)),
            "{order:?}"
        );
        let many = search_call(&index, &json!({"query": "pdf", "limit": 500})).unwrap();
        assert_eq!(many["results"].as_array().unwrap().len(), MAX_LIMIT);
        let two = search_call(&index, &json!({"query": "pdf", "limit": 2.0})).unwrap();
        assert_eq!(two["results"].as_array().unwrap().len(), 2);
        let text = search_call(&index, &json!("{\"query\": \"pdf\", \"limit\": 1}")).unwrap();
        assert_eq!(text["results"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn bad_arguments_are_invalid_argument_errors() {
        let index = index();
        for arguments in [
            json!({}),
            json!({"query": "  "}),
            json!({"query": 7}),
            json!({"query": "pdf", "limit": 0}),
            json!({"query": "pdf", "limit": -3}),
            json!({"query": "pdf", "limit": 1.5}),
            json!({"query": "pdf", "limit": "five"}),
            json!("not json"),
        ] {
            let error = search_call(&index, &arguments).unwrap_err();
            assert_eq!(error["error"], "invalid_argument", "{arguments}");
        }
    }

    #[test]
    fn the_name_is_aliased_when_the_host_owns_it() {
        assert_eq!(search_name(&["read_file"]), Some(SEARCH_SKILLS));
        assert_eq!(search_name(&[SEARCH_SKILLS]), Some(SEARCH_SKILL_CATALOG));
        assert_eq!(search_name(&[SEARCH_SKILLS, SEARCH_SKILL_CATALOG]), None);
    }
}
