//! Credentials never reach a message: every error and problem a source reports passes one
//! redaction ([`Secrets::redact`]).

/// The URL without a user name, password or query (which may carry credentials).
pub(crate) fn without_credentials(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) => {
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.set_query(None);
            parsed.set_fragment(None);
            parsed.to_string()
        }
        Err(_) => url
            .split(['?', '#'])
            .next()
            .unwrap_or_default()
            .rsplit('@')
            .next()
            .unwrap_or_default()
            .to_owned(),
    }
}

/// The words that make an option (or environment variable) a credential, whose value no
/// message may show.
const CREDENTIAL_WORDS: [&str; 6] = ["secret", "token", "password", "key", "sas", "credential"];

/// The environment variables the stores' builders read their settings from.
const STORE_VARIABLES: [&str; 3] = ["AWS_", "GOOGLE_", "AZURE_"];

/// What a source's messages must never show: the values of its credentials. No `Debug`, so
/// that they cannot be printed by mistake.
#[derive(Clone, Default)]
pub(crate) struct Secrets {
    /// Longest first, so that a secret holding another is replaced whole.
    values: Vec<String>,
}

impl Secrets {
    /// The credentials of a store opened on `url` with `options`: the value of every option
    /// and store environment variable named like a credential ([`CREDENTIAL_WORDS`]), and the
    /// user name and password of `url` and of every value that is a URL (an endpoint).
    pub(crate) fn of(url: &str, options: &[(&str, &str)]) -> Self {
        let environment: Vec<(String, String)> = std::env::vars()
            .filter(|(name, _)| STORE_VARIABLES.iter().any(|start| name.starts_with(start)))
            .collect();
        let settings = options.iter().copied().chain(
            environment
                .iter()
                .map(|(name, value)| (name.as_str(), value.as_str())),
        );
        let mut values = userinfo(url);
        for (key, value) in settings {
            values.extend(userinfo(value));
            let key = key.to_ascii_lowercase();
            if !CREDENTIAL_WORDS.iter().any(|word| key.contains(word))
                || matches!(value, "true" | "false")
            {
                continue;
            }
            values.push(value.to_owned());
            // A SAS token is a query string whose parameters show up one by one in request
            // URLs: each long one (the signature) is a secret of its own.
            for parameter in value.trim_start_matches('?').split('&') {
                if let Some((_, raw)) = parameter.split_once('=')
                    && raw.len() >= 6
                {
                    values.push(raw.to_owned());
                    values.push(decoded(raw));
                }
            }
        }
        values.retain(|value| !value.is_empty());
        values.sort_by(|left, right| right.len().cmp(&left.len()).then(left.cmp(right)));
        values.dedup();
        Secrets { values }
    }

    /// `error`'s message and its causes', on one line, redacted: what a message may say of it.
    pub(crate) fn explain(&self, error: &dyn std::error::Error) -> String {
        let mut message = error.to_string();
        let mut cause = error.source();
        while let Some(inner) = cause {
            let said = inner.to_string();
            if !message.contains(&said) {
                message.push_str(": ");
                message.push_str(&said);
            }
            cause = inner.source();
        }
        self.redact(&message)
    }

    /// `message` with the user name and password of every URL in it and every secret value
    /// replaced by `***`.
    pub(crate) fn redact(&self, message: &str) -> String {
        let mut redacted = without_userinfo(message);
        for secret in &self.values {
            if redacted.contains(secret.as_str()) {
                redacted = redacted.replace(secret.as_str(), "***");
            }
        }
        redacted
    }
}

/// The user name and password of `value` when it is a URL holding them, as written and
/// percent-decoded.
fn userinfo(value: &str) -> Vec<String> {
    let Ok(parsed) = url::Url::parse(value) else {
        return Vec::new();
    };
    [parsed.username(), parsed.password().unwrap_or_default()]
        .into_iter()
        .filter(|part| !part.is_empty())
        .flat_map(|part| [part.to_owned(), decoded(part)])
        .collect()
}

/// A percent-encoded text, decoded.
fn decoded(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

/// `text` with the user name and password of every URL in it replaced by `***`
/// (`https://user:password@host/` → `https://***@host/`): the authority runs from `://` to the
/// first character a user name or password cannot hold unencoded, and its user information to
/// its last `@`.
fn without_userinfo(text: &str) -> String {
    let ends_authority = |c: char| {
        c.is_whitespace()
            || c.is_control()
            || matches!(
                c,
                '/' | '?' | '#' | '"' | '`' | '<' | '>' | '\\' | '[' | ']' | '{' | '}' | '|' | '^'
            )
    };
    let mut shown = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("://") {
        let (before, after) = rest.split_at(start + 3);
        shown.push_str(before);
        let authority = &after[..after.find(ends_authority).unwrap_or(after.len())];
        rest = match authority.rfind('@') {
            Some(at) => {
                shown.push_str("***");
                &after[at..]
            }
            None => after,
        };
    }
    shown.push_str(rest);
    shown
}

#[cfg(test)]
mod tests {
    use super::{Secrets, without_userinfo};

    #[test]
    fn the_user_information_of_every_url_is_hidden() {
        for (text, shown) in [
            (
                "GET https://user:pw@host/x failed",
                "GET https://***@host/x failed",
            ),
            ("http://user@host:9000", "http://***@host:9000"),
            ("http://user:p@ss@host?q", "http://***@host?q"),
            (
                "(http://a:b@one) and (s3://c:d@two/)",
                "(http://***@one) and (s3://***@two/)",
            ),
            (
                "http://host/a@b and mail@example.com",
                "http://host/a@b and mail@example.com",
            ),
            ("no url: user:pw@host", "no url: user:pw@host"),
            ("http://", "http://"),
        ] {
            assert_eq!(without_userinfo(text), shown, "{text}");
        }
    }

    #[test]
    fn credential_values_are_hidden_and_other_settings_shown() {
        let secrets = Secrets::of(
            "s3://bucket/skills",
            &[
                (
                    "aws_endpoint",
                    "http://minio:p%40ss%26word@store.internal:9000",
                ),
                ("aws_secret_access_key", "wJalrXUtnFEMI/K7MDENG"),
                ("AWS_SESSION_TOKEN", "session-token-value"),
                ("azure_storage_sas_key", "sv=2022-11-02&sig=c2lnbmF0dXJl%2B"),
                ("aws_region", "eu-west-1"),
                ("aws_sse_bucket_key_enabled", "true"),
            ],
        );
        let message = "endpoint store.internal:9000 as minio with p@ss&word, secret \
                       wJalrXUtnFEMI/K7MDENG, token session-token-value, signature \
                       c2lnbmF0dXJl+ or c2lnbmF0dXJl%2B, in eu-west-1: true";
        assert_eq!(
            secrets.redact(message),
            "endpoint store.internal:9000 as *** with ***, secret ***, token ***, signature \
             *** or ***, in eu-west-1: true"
        );
    }

    #[test]
    fn an_error_is_explained_with_its_causes_and_without_credentials() {
        let secrets = Secrets::of(
            "s3://bucket/skills",
            &[("aws_secret_access_key", "hunter2")],
        );
        let error = object_store::Error::Generic {
            store: "S3",
            source: "cannot reach http://user:pw@host/ with hunter2".into(),
        };
        assert_eq!(
            secrets.explain(&error),
            "Generic S3 error: cannot reach http://***@host/ with ***"
        );
    }
}
