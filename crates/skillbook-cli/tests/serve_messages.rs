//! What `skillbook serve` says, end to end: it refuses the discovery options it does not use,
//! and its object-store messages never show a credential.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use tempfile::TempDir;

/// `skillbook ARGUMENTS`, with no log filter from the environment.
fn skillbook(arguments: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skillbook"))
        .args(arguments)
        .env_remove("RUST_LOG")
        .output()
        .unwrap()
}

/// A configuration file `serve.toml` in `directory` holding `text`.
fn config(directory: &Path, text: &str) -> PathBuf {
    let file = directory.join("serve.toml");
    fs::write(&file, text).unwrap();
    file
}

/// One anonymous tenant serving one skill from a folder.
fn valid_config(directory: &Path) -> String {
    let skill = directory.join("skills/notes");
    fs::create_dir_all(&skill).unwrap();
    fs::write(
        skill.join("SKILL.md"),
        "---\nname: notes\ndescription: Take notes.\n---\n",
    )
    .unwrap();
    let text = "[[tenant]]\nname = \"acme\"\nsources = [\"skills\"]\nanonymous = true\n";
    config(directory, text).display().to_string()
}

#[test]
fn serve_refuses_the_discovery_options_it_does_not_use() {
    let directory = TempDir::new().unwrap();
    let config = valid_config(directory.path());
    let serve = ["serve", "--config", &config, "--check-config"];
    for (option, given) in [
        ("--workspace", &["--workspace", "."][..]),
        ("--home", &["--home", "/nowhere"]),
        ("--no-home", &["--no-home"]),
        ("--namespace", &["--namespace", "claude"]),
        ("--extra", &["--extra", "more"]),
        ("--symlinks", &["--symlinks", "follow"]),
        // Given as its default value, an option is still given.
        ("--symlinks", &["--symlinks=skip"]),
    ] {
        // Before the command's name and after it alike.
        for arguments in [[given, &serve[..]].concat(), [&serve[..], given].concat()] {
            let output = skillbook(&arguments);
            assert_eq!(output.status.code(), Some(2), "{arguments:?}: {output:?}");
            assert!(output.stdout.is_empty(), "{arguments:?}: {output:?}");
            let stderr = String::from_utf8(output.stderr).unwrap();
            assert!(
                stderr.starts_with(&format!(
                    "error: the discovery option `{option}` does not apply to `skillbook serve`: \
                     each tenant's skill sources are set in the configuration file (`--config`)\n"
                )),
                "{arguments:?}: {stderr}"
            );
            assert!(stderr.contains("Usage: skillbook serve"), "{stderr}");
        }
    }

    let output = skillbook(&[&["--no-home", "--extra", "a", "--extra", "b"], &serve[..]].concat());
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with(
            "error: the discovery options `--no-home`, `--extra` do not apply to `skillbook serve`"
        ),
        "{stderr}"
    );

    // Under `--format json` it is the usage error document.
    let output = skillbook(&[&serve[..], &["--workspace", ".", "--format", "json"]].concat());
    assert_eq!(output.status.code(), Some(2));
    let error: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(error["error"], "usage");
    let message = error["message"].as_str().unwrap();
    assert!(
        message
            .starts_with("the discovery option `--workspace` does not apply to `skillbook serve`"),
        "{message}"
    );

    // `--format` and `--color` apply to every command.
    let output = skillbook(&[&["--format", "json", "--color", "never"], &serve[..]].concat());
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["tenants"][0]["skills"][0], "notes");

    // `token` finds no skills either.
    let output = skillbook(&["token", "--home", "/nowhere"]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with(
            "error: the discovery option `--home` does not apply to `skillbook token`: it finds \
             no skills"
        ),
        "{stderr}"
    );
    assert_eq!(skillbook(&["token"]).status.code(), Some(0));
}

/// A tenant whose store's endpoint carries a user name and password, on port 1 of the loopback
/// where nothing listens: listing fails with a connection error naming the request's URL.
#[cfg(feature = "object-store")]
#[test]
fn store_errors_never_show_credentials() {
    const PASSWORD: &str = "hunter2";
    const SECRET: &str = "wJalrXUtnFEMI-K7MDENG-never-shown";
    let directory = TempDir::new().unwrap();
    let config = config(
        directory.path(),
        &format!(
            "[[tenant]]\nname = \"acme\"\nsources = [\"s3://skills/acme\"]\nanonymous = true\n\
             [tenant.store_options]\naws_endpoint = \"http://minio:{PASSWORD}@127.0.0.1:1\"\n\
             aws_access_key_id = \"AKIDEXAMPLE\"\naws_secret_access_key = \"{SECRET}\"\n\
             aws_region = \"us-east-1\"\naws_allow_http = \"true\"\n"
        ),
    );
    let config = config.display().to_string();
    let check = ["serve", "--config", &config, "--check-config"];
    let runs = [
        // The check's report, as text and as JSON.
        skillbook(&check),
        skillbook(&[&["--format", "json"], &check[..]].concat()),
        // Serving: the first load fails, and the server says why before it listens.
        skillbook(&["serve", "--config", &config, "--listen", "127.0.0.1:0"]),
    ];
    for output in runs {
        assert_eq!(output.status.code(), Some(1), "{output:?}");
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(said.contains("cannot be listed"), "{said}");
        assert!(said.contains("http://***@127.0.0.1:1/"), "{said}");
        for secret in [PASSWORD, SECRET, "AKIDEXAMPLE", "minio:"] {
            assert!(!said.contains(secret), "{secret} shown: {said}");
        }
    }
}
