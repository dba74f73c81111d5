//! Path 2: skills the host names for one run, injected as a context item before the history.

use std::path::{Path, PathBuf};

use crate::catalog::escape_xml;
use crate::format::name_key;
use crate::frontmatter;

use super::messages::ContextItem;
use super::scope::{ResolvedScope, ScopedSkill, whole_skill_text};
use super::{RuntimeError, SelectedLimits};

pub(super) const NOTE: &str = include_str!("selected_note.md");

/// Looks up the selected names (blank and repeated ones skipped) and builds the context item.
///
/// Fails on the first unknown name or over-size skill, before any model call.
pub(super) fn select<'a>(
    resolved: &'a ResolvedScope,
    names: &[String],
    limits: SelectedLimits,
) -> Result<(Vec<&'a ScopedSkill>, Option<ContextItem>), RuntimeError> {
    let mut chosen: Vec<&ScopedSkill> = Vec::new();
    let mut bodies: Vec<String> = Vec::new();
    for name in names {
        let key = name_key(name);
        if key.is_empty() || chosen.iter().any(|skill| skill.key() == key) {
            continue;
        }
        let skill = resolved
            .get(name)
            .ok_or_else(|| RuntimeError::UnknownSkill {
                name: name.trim().to_owned(),
                available: available(resolved),
            })?;
        bodies.push(wrapped_body(skill, resolved, limits)?);
        chosen.push(skill);
    }
    if chosen.is_empty() {
        return Ok((chosen, None));
    }
    let content = format!(
        "<selected_skills>\n{}\n{}</selected_skills>",
        NOTE.trim_end(),
        bodies.concat()
    );
    let item = ContextItem {
        role: "user",
        content,
        skill_content: true,
        skills: chosen
            .iter()
            .map(|skill| skill.name().to_string())
            .collect(),
    };
    Ok((chosen, Some(item)))
}

fn available(resolved: &ResolvedScope) -> String {
    let names: Vec<&str> = resolved
        .skills()
        .iter()
        .map(|skill| skill.name().as_str())
        .collect();
    if names.is_empty() {
        "no skills are in scope".to_owned()
    } else {
        format!("available: {}", names.join(", "))
    }
}

/// The skill's body (front matter removed) in its `<selected_skill>` wrapper, size-checked: the
/// file against the scope's size limit, the body against `limits`.
fn wrapped_body(
    skill: &ScopedSkill,
    resolved: &ResolvedScope,
    limits: SelectedLimits,
) -> Result<String, RuntimeError> {
    let text = whole_skill_text(resolved.reader(), skill.name(), resolved.skill_file_bytes())
        .map_err(|source| RuntimeError::SkillUnreadable {
            name: skill.name().to_string(),
            path: PathBuf::from(skill.location()),
            source,
        })?;
    let body = body_of(&text);
    let (chars, bytes) = (body.chars().count(), body.len());
    if chars > limits.max_chars || bytes > limits.max_bytes {
        return Err(RuntimeError::SkillTooLarge {
            name: skill.name().to_string(),
            chars,
            bytes,
            max_chars: limits.max_chars,
            max_bytes: limits.max_bytes,
        });
    }
    Ok(format!(
        "<selected_skill name=\"{}\" dir=\"{}\">\n{}\n</selected_skill>\n",
        escape_xml(skill.name()),
        escape_xml(&skill.directory()),
        body.trim()
    ))
}

/// The text after the front matter.
fn body_of(text: &str) -> &str {
    let document = frontmatter::parse(Path::new("SKILL.md"), text);
    let skip = document.body_line.saturating_sub(1) as usize;
    let offset: usize = text.split_inclusive('\n').take(skip).map(str::len).sum();
    text.get(offset..).unwrap_or("")
}
