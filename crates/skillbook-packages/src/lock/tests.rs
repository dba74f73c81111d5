use super::*;

fn parse(text: &str) -> Result<Lock, LockError> {
    Lock::parse(Path::new("skills-lock.json"), text)
}

#[test]
fn a_lock_round_trips_sorted_with_unknown_fields_kept() -> Result<(), LockError> {
    let text = r#"{
  "version": 1,
  "skills": {
    "zeta": {
      "source": "owner/repo",
      "sourceType": "github",
      "computedHash": "aa",
      "pluginName": "tools"
    },
    "Beta": {
      "source": "./src",
      "sourceType": "local",
      "computedHash": "bb"
    },
    "alpha": {
      "source": "./src",
      "sourceType": "local",
      "computedHash": "cc"
    },
    "10": {
      "source": "./src",
      "sourceType": "local",
      "computedHash": "dd"
    },
    "9": {
      "source": "./src",
      "sourceType": "local",
      "computedHash": "ee"
    }
  },
  "generator": "hand"
}
"#;
    let mut lock = parse(text)?;
    let order: Vec<&str> = lock.entries().map(|(name, _)| name).collect();
    assert_eq!(order, ["9", "10", "Beta", "alpha", "zeta"]);
    lock.insert(
        "zeta",
        NewEntry::new("owner/repo", "github", "ff").skill_path("skills/zeta/SKILL.md"),
    );
    let written = lock.to_json();
    assert_eq!(
        written,
        r#"{
  "version": 1,
  "skills": {
    "9": {
      "source": "./src",
      "sourceType": "local",
      "computedHash": "ee"
    },
    "10": {
      "source": "./src",
      "sourceType": "local",
      "computedHash": "dd"
    },
    "Beta": {
      "source": "./src",
      "sourceType": "local",
      "computedHash": "bb"
    },
    "alpha": {
      "source": "./src",
      "sourceType": "local",
      "computedHash": "cc"
    },
    "zeta": {
      "source": "owner/repo",
      "sourceType": "github",
      "skillPath": "skills/zeta/SKILL.md",
      "computedHash": "ff",
      "pluginName": "tools"
    }
  },
  "generator": "hand"
}
"#
    );
    assert_eq!(parse(&written)?, lock);
    Ok(())
}

#[test]
fn new_entries_are_written_in_the_tools_field_order() {
    let mut lock = Lock::new();
    let files = BTreeMap::from([("SKILL.md".to_owned(), "sha256:01".to_owned())]);
    lock.insert(
        "review",
        NewEntry::new("https://example.com/r.git", "git", "ab")
            .git_ref("v1")
            .source_url("https://example.com/r.git")
            .skill_path("SKILL.md")
            .commit("c0ffee")
            .digests("sha256:02", files),
    );
    let written = lock.to_json();
    let order: Vec<usize> = [
        "\"source\"",
        "\"sourceUrl\"",
        "\"ref\"",
        "\"sourceType\"",
        "\"skillPath\"",
        "\"computedHash\"",
        "\"skillbook\"",
        "\"commit\"",
        "\"digest\"",
        "\"files\"",
    ]
    .iter()
    .filter_map(|key| written.find(key))
    .collect();
    assert_eq!(order.len(), 10, "{written}");
    assert!(order.windows(2).all(|pair| pair[0] < pair[1]), "{written}");
    let entry = lock.get("review");
    assert_eq!(entry.and_then(|entry| entry.commit()), Some("c0ffee"));
    assert_eq!(entry.and_then(|entry| entry.git_ref()), Some("v1"));
    assert_eq!(
        entry.and_then(|entry| entry.files()),
        Some(BTreeMap::from([("SKILL.md", "sha256:01")]))
    );
}

#[test]
fn a_lock_the_skills_tool_wrote_reads_and_writes_back_byte_for_byte() -> Result<(), LockError> {
    let text = include_str!("../../tests/fixtures/skills-1.7.4-lock.json");
    let lock = parse(text)?;
    assert_eq!(lock.len(), 3);
    assert_eq!(
        lock.get("beta").and_then(|entry| entry.source()),
        Some("./src")
    );
    assert_eq!(lock.to_json(), text);
    Ok(())
}

#[test]
fn conflict_markers_are_an_error_naming_the_line() {
    let text = "{\n  \"version\": 1,\n  \"skills\": {\n<<<<<<< HEAD\n    \"a\": {}\n=======\n    \"b\": {}\n>>>>>>> topic\n  }\n}\n";
    let error = parse(text).err();
    assert!(
        matches!(error, Some(LockError::ConflictMarkers { line: 4, .. })),
        "{error:?}"
    );
    let message = error.map(|error| error.to_string()).unwrap_or_default();
    assert!(
        message.starts_with("skills-lock.json:4: merge-conflict marker"),
        "{message}"
    );
}

#[test]
fn json_that_does_not_parse_is_an_error_naming_the_line() {
    let error = parse("{\n  \"version\": 1,\n  \"skills\": {,}\n}\n").err();
    assert!(
        matches!(error, Some(LockError::Parse { line: 3, .. })),
        "{error:?}"
    );
}

#[test]
fn a_lock_of_the_wrong_shape_or_version_is_an_error() {
    let cases = [
        ("[]", "not a JSON object"),
        ("{\"skills\": {}}", "\"version\" is missing"),
        ("{\"version\": 1}", "\"skills\" is missing"),
        (
            "{\"version\": 1, \"skills\": {\"a\": 3}}",
            "\"a\" is not an object",
        ),
        (
            "{\"version\": 1, \"skills\": {\"a\": {\"source\": 3}}}",
            "\"source\" is not a string",
        ),
        (
            "{\"version\": 2, \"skills\": {}}",
            "lock version 2 is not supported",
        ),
    ];
    for (text, expected) in cases {
        let message = parse(text)
            .err()
            .map(|error| error.to_string())
            .unwrap_or_default();
        assert!(message.contains(expected), "{text}: {message}");
    }
}

#[test]
fn a_missing_lock_is_empty_and_a_written_one_replaces_it_whole() -> Result<(), LockError> {
    let folder = tempfile::tempdir().map_err(|source| LockError::Io {
        path: PathBuf::new(),
        source,
    })?;
    let path = folder.path().join(LOCK_FILE_NAME);
    let mut lock = Lock::read(&path)?;
    assert!(lock.is_empty());
    lock.insert("a", NewEntry::new("./src", "local", "00"));
    lock.write(&path)?;
    assert_eq!(Lock::read(&path)?, lock);
    assert!(lock.remove("a"));
    lock.write(&path)?;
    assert_eq!(
        fs::read_to_string(&path).unwrap_or_default(),
        "{\n  \"version\": 1,\n  \"skills\": {}\n}\n"
    );
    let leftovers = fs::read_dir(folder.path())
        .map(Iterator::count)
        .unwrap_or(0);
    assert_eq!(leftovers, 1, "no temporary file is left behind");
    Ok(())
}

#[test]
fn local_sources_are_written_relative_to_the_lock_folder() {
    let cases = [
        ("/w/src", "/w", "./src"),
        ("/w", "/w", "."),
        ("/other/src", "/w/project", "../../other/src"),
        ("/w/a/../src", "/w", "./src"),
    ];
    for (source, folder, expected) in cases {
        assert_eq!(
            portable_local_source(Path::new(source), Path::new(folder)),
            expected
        );
    }
    assert_eq!(
        resolve_local_source("../other", Path::new("/w/project")),
        PathBuf::from("/w/other")
    );
}
