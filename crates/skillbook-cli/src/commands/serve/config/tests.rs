//! The configuration file's reading, checks and defaults.

use super::*;

fn load(text: &str) -> Result<Config, String> {
    let directory = tempfile::tempdir().unwrap();
    fs::create_dir_all(directory.path().join("skills/acme")).unwrap();
    let path = directory.path().join("skillbook.toml");
    fs::write(&path, text).unwrap();
    Config::load(&path, &CommandLine::default()).map_err(|error| error.message)
}

const DIGEST: &str = "sha256:2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b";

#[test]
fn a_minimal_file_takes_the_defaults() {
    let config = load(&format!(
        "[[tenant]]\nname = \"acme\"\nsources = [\"skills/acme\"]\ntokens = [\"{DIGEST}\"]\n"
    ))
    .unwrap();
    assert_eq!(config.listen.to_string(), DEFAULT_LISTEN);
    assert_eq!(config.tenants.len(), 1);
    let tenant = &config.tenants[0];
    assert_eq!((tenant.name.as_str(), tenant.tokens.len()), ("acme", 1));
    assert!(tenant.directories[0].ends_with("skills/acme"));
    assert!(tenant.directories[0].is_absolute());
}

#[test]
fn mistakes_are_named() {
    for (text, expected) in [
        ("", "no tenant is configured"),
        ("[[tenant]]\nname = \" \"\n", "empty name"),
        (
            "[[tenant]]\nname = \"a\"\ntokens = [\"abc\"]\n",
            "is not a token digest",
        ),
        (
            "[[tenant]]\nname = \"a\"\nsources = [\"missing\"]\n",
            "the source `missing` cannot be read",
        ),
        (
            "[[tenant]]\nname = \"a\"\nsecret = 1\n",
            "unknown field `secret`",
        ),
        (
            "[server]\nlisten = \"localhost:80\"\n[[tenant]]\nname = \"a\"\n",
            "is not an address",
        ),
        ("[[tenant]\n", "line 1, column"),
    ] {
        let message = load(text).unwrap_err();
        assert!(message.contains(expected), "{text:?}: {message}");
    }
}

#[test]
fn a_reload_keeps_the_settings_only_a_restart_applies_and_names_them() {
    let directory = tempfile::tempdir().unwrap();
    fs::create_dir_all(directory.path().join("skills/acme")).unwrap();
    let path = directory.path().join("skillbook.toml");
    let tenant = format!(
        "[[tenant]]\nname = \"acme\"\nsources = [\"skills/acme\"]\ntokens = [\"{DIGEST}\"]\n"
    );
    fs::write(&path, format!("[server]\nmax_answers = 8\n{tenant}")).unwrap();
    let command_line = CommandLine::default();
    let current = Config::load(&path, &command_line).unwrap();
    fs::write(
        &path,
        format!("[server]\nmax_answers = 64\n[server.per_tenant]\nrate = 7\n{tenant}"),
    )
    .unwrap();
    let (reloaded, unapplied) = Config::reload(&path, &command_line, &current).unwrap();
    assert_eq!(unapplied, ["max_answers"]);
    // The shares stay half of the totals in force, not of the file's new ones.
    let limits = reloaded.endpoint.default_tenant_limits();
    assert_eq!(limits.max_answers, 4);
    assert_eq!(limits.rate.map(|rate| rate.per_second), Some(7.0));
}

#[test]
fn object_store_prefixes_are_sources_of_their_own() {
    let text = format!(
        "[server]\npoll_seconds = 5\n[[tenant]]\nname = \"acme\"\n\
         sources = [\"skills/acme\", \"s3://bucket/acme/skills\"]\ntokens = [\"{DIGEST}\"]\n\
         [tenant.store_options]\naws_region = \"eu-west-1\"\n"
    );
    if cfg!(feature = "object-store") {
        let config = load(&text).unwrap();
        let tenant = &config.tenants[0];
        assert_eq!(tenant.stores, ["s3://bucket/acme/skills"]);
        assert_eq!(tenant.directories.len(), 1);
        assert_eq!(
            tenant.store_options,
            [("aws_region".to_owned(), "eu-west-1".to_owned())]
        );
        assert_eq!(config.poll, Duration::from_secs(5));
    } else {
        let message = load(&text).unwrap_err();
        assert!(
            message.contains("`s3://bucket/acme/skills` is an object-store prefix")
                && message.contains("--features object-store"),
            "{message}"
        );
    }
    // A Windows drive letter is a path, not a scheme.
    assert!(!is_store_url("C://skills"));
    assert!(is_store_url("gs://bucket/skills"));
    assert!(is_store_url("file:///srv/skills"));
}
