//! `resources/read`: the exact bytes of one indexed file, read through the boundary.

use std::io::Read;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rmcp::ErrorData;
use rmcp::model::{ReadResourceResult, ResourceContents};
use sha2::{Digest, Sha256};

use skillbook::uri::{self, SkillUri};

use crate::index::{IndexedFile, format_digest};
use crate::server::State;

/// The MIME type of Markdown, and so of every `SKILL.md`.
pub(crate) const MARKDOWN: &str = "text/markdown";

/// The MIME type of bytes that are not UTF-8 and whose type the name does not tell.
const OCTET_STREAM: &str = "application/octet-stream";

/// The size of the indexed file at `requested`, as [`read_resource`] would read it; the same
/// errors when there is none.
pub(crate) fn size_of(state: &State, requested: &str) -> Result<u64, ErrorData> {
    let (_, _, file) = locate(state, requested)?;
    Ok(file.size)
}

/// Reads the resource at `requested`.
///
/// The URI must name a file of a served skill's index; nothing else is opened, whatever the URI
/// holds. The bytes are read through the skill reader, so a file replaced since indexing by a
/// link that leaves the skill or by a FIFO is refused. UTF-8 content is returned as text, anything
/// else as a base64 blob. When the bytes no longer match the indexed digest, or the file can no
/// longer be read, the skill is indexed again on its next request (and a client that checks the
/// digest sees the mismatch).
pub(crate) fn read_resource(
    state: &State,
    requested: &str,
) -> Result<ReadResourceResult, ErrorData> {
    let (target, position, file) = locate(state, requested)?;
    let file = &file;
    let canonical = uri::resource(&target.name, &file.key);
    let bytes = read_bytes(state, &target.name, file).map_err(|message| {
        // The file changed since indexing: index the skill again on its next request.
        state.forget(position);
        ErrorData::internal_error(format!("`{canonical}` could not be read: {message}"), None)
    })?;
    if format_digest(&Sha256::digest(&bytes)) != file.digest {
        tracing::info!("{canonical} changed since it was indexed; indexing its skill again");
        state.forget(position);
    }
    let mime_type = mime_type(&file.key);
    let contents = match String::from_utf8(bytes) {
        Ok(text) => ResourceContents::text(text, canonical)
            .with_mime_type(mime_type.unwrap_or("text/plain")),
        Err(not_text) => ResourceContents::blob(STANDARD.encode(not_text.into_bytes()), canonical)
            .with_mime_type(mime_type.unwrap_or(OCTET_STREAM)),
    };
    Ok(ReadResourceResult::new(vec![contents]))
}

/// The skill and the indexed file a URI names.
fn locate(state: &State, requested: &str) -> Result<(SkillUri, usize, IndexedFile), ErrorData> {
    let target = SkillUri::parse(requested).map_err(|error| {
        ErrorData::invalid_params(
            format!("`{requested}` is not a skill resource URI: {error}"),
            None,
        )
    })?;
    let not_found = || {
        ErrorData::resource_not_found(
            format!("no resource is served at `{requested}`; skills/get lists each skill's files"),
            None,
        )
    };
    let (position, index) = state.served_index(&target.name).ok_or_else(not_found)??;
    let Some(file) = index.file(&target.relative) else {
        if index.directories.contains(&target.relative) {
            return Err(ErrorData::invalid_params(
                format!("`{requested}` is a directory; list it with resources/directory/read"),
                None,
            ));
        }
        return Err(not_found());
    };
    Ok((target, position, file.clone()))
}

/// Reads the whole file through the skill reader, at most its indexed size (which the read
/// budget was taken for, and which the skill's limits allowed): a file that grew since it was
/// listed is not read now — the skill is indexed again, and the next read takes the right share.
fn read_bytes(state: &State, name: &str, file: &IndexedFile) -> Result<Vec<u8>, String> {
    let opened = state
        .reader
        .open_in(name, &file.key)
        .map_err(|error| error.to_string())?;
    let grew = |size: u64| {
        format!(
            "it grew since it was listed ({size} bytes or more, listed with {}); read it again",
            file.size
        )
    };
    if opened.size() > file.size {
        return Err(grew(opened.size()));
    }
    let capacity = usize::try_from(opened.size()).unwrap_or(0);
    let mut bytes = Vec::with_capacity(capacity);
    opened
        .take(file.size.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|error| error.to_string())?;
    if bytes.len() as u64 > file.size {
        return Err(grew(bytes.len() as u64));
    }
    Ok(bytes)
}

/// The MIME type a file's extension tells, if any.
pub(crate) fn mime_type(key: &str) -> Option<&'static str> {
    let extension = key
        .rsplit('/')
        .next()
        .and_then(|name| name.rsplit_once('.'))
        .map(|(_, extension)| extension.to_ascii_lowercase())?;
    Some(match extension.as_str() {
        "md" | "markdown" => MARKDOWN,
        "txt" => "text/plain",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "xml" => "application/xml",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "js" | "mjs" => "text/javascript",
        "ts" => "text/x-typescript",
        "py" => "text/x-python",
        "rs" => "text/x-rust",
        "sh" => "application/x-sh",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "svg" => "image/svg+xml",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        _ => return None,
    })
}
