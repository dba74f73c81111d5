//! `skillbook token`: a new bearer token for `skillbook serve`, and the line that lets it in.
//!
//! The token is 32 bytes from the operating system's random source, written as `sbk_` and 64
//! hexadecimal digits. Only its SHA-256 digest goes in the configuration file; the token itself
//! is printed once and kept by whoever is given it.

use std::io::Write;

use anyhow::Context;
use skillbook_mcp::http::TokenDigest;

use crate::cli::Format;
use crate::output::{self, Outcome};

/// What every token starts with, so that secret scanners and people can tell one.
const PREFIX: &str = "sbk_";

pub(crate) fn run(format: Format) -> anyhow::Result<Outcome> {
    let token = new_token()?;
    let digest = TokenDigest::of(&token);
    let line = format!("tokens = [\"{digest}\"]");
    match format {
        Format::Json => output::json(&serde_json::json!({
            "token": token,
            "digest": digest.to_string(),
            "config_line": line,
        }))?,
        Format::Text => {
            let mut stdout = crate::output::stdout();
            writeln!(stdout, "{token}")?;
            writeln!(stdout, "{line}")?;
            let _ = writeln!(
                std::io::stderr().lock(),
                "Give the token (first line) to the client, to send as `Authorization: Bearer \
                 <token>`; put the line in its tenant's table in the configuration file. The \
                 token is not stored anywhere: this is the only time it is shown."
            );
        }
    }
    Ok(Outcome::Success)
}

/// `sbk_` and 64 hexadecimal digits of fresh randomness.
fn new_token() -> anyhow::Result<String> {
    let mut bytes = [0_u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|error| anyhow::anyhow!("{error}"))
        .context("cannot read the operating system's random source")?;
    let mut token = String::with_capacity(PREFIX.len() + 64);
    token.push_str(PREFIX);
    for byte in bytes {
        token.push_str(&format!("{byte:02x}"));
    }
    Ok(token)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_new_each_time_and_well_formed() {
        let (first, second) = (new_token().unwrap(), new_token().unwrap());
        assert_ne!(first, second);
        assert_eq!(first.len(), 4 + 64);
        assert!(first.starts_with(PREFIX));
        assert!(first[4..].bytes().all(|byte| byte.is_ascii_hexdigit()));
    }
}
