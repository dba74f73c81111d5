//! `skillbook serve` end to end, on loopback ports the tests pick and servers the tests start
//! and stop: the official MCP Python SDK as two tenants, replicas giving byte-identical
//! answers, a smoke load (and the load benchmark), and, with the `object-store` feature,
//! tenants whose skills are in an S3 bucket. The rest of `serve` is tested in the `serve_*`
//! files beside this one.
//!
//! The Python interpreter is `$MCP_PYTHON`, else `.venv/bin/python` at the repository root
//! (`bash scripts/test.sh` installs it).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

#[cfg(feature = "object-store")]
#[path = "support/command.rs"]
mod command;
#[path = "support/serving.rs"]
mod serving;
#[cfg(feature = "object-store")]
#[path = "support/sessions.rs"]
mod sessions;
#[path = "support/python.rs"]
mod support;

use serving::{ALPHA, BETA, Fixture, Server, call, initialize, mcp};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::python;

use serde_json::{Value, json};

#[test]
fn the_python_sdk_sees_each_tenant_alone() {
    let python = python("mcp, httpx2");
    let fixture = Fixture::new("");
    let server = Server::start(&fixture.config(), &[]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/serve_client.py");
    let root = fixture.path().display().to_string();
    let mut child = Command::new(python)
        .arg(script)
        .args([&server.url(), ALPHA, BETA])
        .args([
            root.clone(),
            format!("{root}/alpha/pdf/SKILL.md"),
            format!("{root}/beta/memo/SKILL.md"),
            format!("{root}/beta.zip"),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(120) {
            child.kill().unwrap();
            panic!("the MCP client did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the MCP client failed:\n{stdout}\n{stderr}\nserver:\n{}",
        server.stderr()
    );
    assert_eq!(stdout.trim(), "77 passed, 0 failed", "{stderr}");
}

/// Everything a client asks in one visit, as tenant `alpha`.
fn visit(address: &str) -> Vec<(u16, String)> {
    let mut messages = vec![
        initialize(),
        call(2, "tools/list", json!({})),
        call(3, "skills/list", json!({})),
        call(4, "resources/list", json!({})),
        call(5, "skills/get", json!({"uri": "skill://pdf/SKILL.md"})),
        call(
            6,
            "resources/read",
            json!({"uri": "skill://pdf/refs/guide.md"}),
        ),
        call(7, "resources/directory/read", json!({"uri": "skill://pdf"})),
        call(
            8,
            "tools/call",
            json!({"name": "read_file", "arguments": {"path": "skill://pdf/SKILL.md"}}),
        ),
        call(
            9,
            "tools/call",
            json!({"name": "read_file", "arguments": {"path": "skill://memo/SKILL.md"}}),
        ),
        call(
            10,
            "resources/read",
            json!({"uri": "skill://memo/SKILL.md"}),
        ),
    ];
    let mut answers = Vec::new();
    let mut cursor: Option<Value> = None;
    while let Some(message) = messages.pop() {
        let answer = mcp(address, Some(ALPHA), &message).unwrap();
        if message["method"] == "skills/list" {
            cursor = answer.json()["result"].get("nextCursor").cloned();
        }
        answers.push((answer.status, String::from_utf8(answer.body).unwrap()));
        if let Some(next) = cursor.take() {
            messages.push(call(11, "skills/list", json!({ "cursor": next })));
        }
    }
    answers
}

#[test]
fn two_replicas_over_the_same_directories_answer_byte_for_byte_alike() {
    let fixture = Fixture::new("");
    let first = Server::start(&fixture.config(), &[]);
    let second = Server::start(&fixture.config(), &[]);
    assert_ne!(first.address, second.address);
    let answers = visit(&first.address);
    assert_eq!(answers.len(), 11, "{answers:#?}");
    assert!(
        answers.iter().all(|(status, _)| *status == 200),
        "{answers:#?}"
    );
    assert_eq!(answers, visit(&second.address));
    // Pages follow each other through the cursor, which either replica understands.
    let listed: Vec<&str> = answers
        .iter()
        .filter(|(_, body)| body.contains("\"skills\":["))
        .map(|(_, body)| {
            if body.contains("skill://pdf/SKILL.md") {
                "pdf"
            } else {
                "xlsx"
            }
        })
        .collect();
    assert_eq!(listed, ["pdf", "xlsx"]);
}

/// Clients that each run initialize → skills/list → resources/read (of the `SKILL.md` that
/// `read(visit)` names) in a loop for `duration`; returns the latencies of the visits and the
/// number of failures.
fn load(
    address: &str,
    clients: usize,
    duration: Duration,
    read: fn(usize) -> String,
) -> (Vec<Duration>, usize) {
    let failures = Arc::new(AtomicUsize::new(0));
    let latencies = Arc::new(Mutex::new(Vec::new()));
    let deadline = Instant::now() + duration;
    let threads: Vec<_> = (0..clients)
        .map(|client| {
            let (address, failures, latencies) = (
                address.to_owned(),
                Arc::clone(&failures),
                Arc::clone(&latencies),
            );
            std::thread::spawn(move || {
                let mut mine = Vec::new();
                while Instant::now() < deadline {
                    let started = Instant::now();
                    let uri = read(client * 7919 + mine.len() * 104_729);
                    let steps = [
                        initialize(),
                        call(2, "skills/list", json!({})),
                        call(3, "resources/read", json!({ "uri": uri })),
                    ];
                    for step in &steps {
                        let good = mcp(&address, Some(ALPHA), step).is_ok_and(|answer| {
                            answer.status == 200 && answer.json().get("result").is_some()
                        });
                        if !good {
                            failures.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    mine.push(started.elapsed());
                }
                latencies.lock().unwrap().extend(mine);
                client
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let latencies = latencies.lock().unwrap().clone();
    (latencies, failures.load(Ordering::Relaxed))
}

#[test]
fn sixteen_clients_for_five_seconds_see_no_error() {
    // As fast as they can: over the default request rate, which is not what this tests.
    let fixture = Fixture::new("[server.per_tenant]\nrate = 0");
    let server = Server::start(&fixture.config(), &[]);
    let pdf = |_| "skill://pdf/SKILL.md".to_owned();
    let (visits, failures) = load(&server.address, 16, Duration::from_secs(5), pdf);
    assert_eq!(failures, 0, "{}", server.stderr());
    assert!(visits.len() >= 16, "only {} visits", visits.len());
}

/// The full load of the benchmark (BENCHMARKS.md), run by `scripts/bench-serve.sh`:
/// `SKILLBOOK_SERVE_ADDRESS` names a running server whose tenant `alpha` (token `ALPHA`) has
/// the skills `skill-00000` to `skill-09999`; each visit reads one of them.
#[test]
#[ignore = "a benchmark: run by scripts/bench-serve.sh against a server it starts"]
fn load_benchmark() {
    let address = std::env::var("SKILLBOOK_SERVE_ADDRESS").expect("SKILLBOOK_SERVE_ADDRESS");
    let clients =
        std::env::var("SKILLBOOK_LOAD_CLIENTS").map_or(64, |value| value.parse().unwrap());
    let seconds =
        std::env::var("SKILLBOOK_LOAD_SECONDS").map_or(30, |value| value.parse().unwrap());
    let one_of_ten_thousand =
        |visit: usize| format!("skill://skill-{:05}/SKILL.md", visit % 10_000);
    let (mut visits, failures) = load(
        &address,
        clients,
        Duration::from_secs(seconds),
        one_of_ten_thousand,
    );
    visits.sort();
    let percentile = |share: f64| {
        let at = ((visits.len() as f64 * share).ceil() as usize).clamp(1, visits.len()) - 1;
        visits[at].as_secs_f64() * 1000.0
    };
    println!(
        "clients={clients} seconds={seconds} visits={} failures={failures} \
         visits_per_second={:.0} p50_ms={:.1} p99_ms={:.1}",
        visits.len(),
        visits.len() as f64 / seconds as f64,
        percentile(0.50),
        percentile(0.99)
    );
    assert_eq!(failures, 0);
}

/// Tenants whose skills live in an S3 bucket: a real S3-compatible server (`moto_server`, from
/// the test virtual environment) on a loopback port, skills uploaded with boto3 and read with
/// the MCP Python SDK.
#[cfg(feature = "object-store")]
mod store {
    use super::*;
    use crate::command::{check_config_json, skillbook};
    use crate::sessions::{announced, event_stream, open_session};
    use skillbook_mcp::http::TokenDigest;

    use std::net::TcpStream;
    use std::path::PathBuf;
    use std::process::Child;

    /// A `moto_server` on a free loopback port; killed when dropped.
    struct Moto {
        child: Child,
        endpoint: String,
    }

    impl Moto {
        fn start() -> Moto {
            let python = python("boto3, moto, mcp");
            let server = python.with_file_name("moto_server");
            assert!(server.exists(), "no {}", server.display());
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            let child = Command::new(&server)
                .args(["-H", "127.0.0.1", "-p", &port.to_string()])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let moto = Moto {
                child,
                endpoint: format!("http://127.0.0.1:{port}"),
            };
            let deadline = Instant::now() + Duration::from_secs(30);
            while TcpStream::connect(("127.0.0.1", port)).is_err() {
                assert!(Instant::now() < deadline, "moto_server did not start");
                std::thread::sleep(Duration::from_millis(50));
            }
            moto
        }

        /// Runs `store_client.py s3 ENDPOINT arguments…`.
        fn s3(&self, arguments: &[&str]) {
            let output = client(&["s3", &self.endpoint])
                .args(arguments)
                .output()
                .unwrap();
            assert!(
                output.status.success(),
                "s3 {arguments:?}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }

        /// A configuration with one tenant, `alpha`, over `sources`, polled every second.
        fn config(&self, fixture: &Fixture, sources: &[&str], extra: &str) -> PathBuf {
            let sources: Vec<String> = sources
                .iter()
                .map(|source| format!("\"{source}\""))
                .collect();
            fixture.write(
                "store.toml",
                &format!(
                    "[server]\npoll_seconds = 1\npage_size = 1\n{extra}\n\n\
                     [[tenant]]\nname = \"alpha\"\nsources = [{}]\ntokens = [\"{}\"]\n\n\
                     [tenant.store_options]\naws_endpoint = \"{}\"\naws_allow_http = \"true\"\n\
                     aws_region = \"us-east-1\"\naws_access_key_id = \"test\"\n\
                     aws_secret_access_key = \"test-secret-never-shown\"\n",
                    sources.join(", "),
                    TokenDigest::of(ALPHA),
                    self.endpoint
                ),
            );
            fixture.path().join("store.toml")
        }
    }

    impl Drop for Moto {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    /// `store_client.py arguments…` under the test Python.
    fn client(arguments: &[&str]) -> Command {
        let python = python("boto3, mcp, httpx2");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/store_client.py");
        let mut command = Command::new(python);
        command.arg(script).args(arguments);
        command
    }

    /// What the MCP Python SDK reads from `server` as `alpha`: the catalog and every resource.
    fn read(server: &Server) -> Value {
        let output = client(&["read", &server.url(), ALPHA]).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "the MCP client failed: {stderr}\nserver:\n{}",
            server.stderr()
        );
        // Closing a session is answered as the SDK expects (it warns about anything else).
        assert!(!stderr.contains("Session termination failed"), "{stderr}");
        serde_json::from_slice(&output.stdout).unwrap()
    }

    fn skill_md(name: &str, description: &str) -> String {
        format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nSteps.\n")
    }

    /// A bucket `skills` with `pdf` (and a reference) and `xlsx` below `acme/skills`, and a
    /// skill outside the prefix.
    fn bucket(moto: &Moto) {
        moto.s3(&["create", "skills"]);
        let (pdf, xlsx) = (
            skill_md("pdf", "Fill PDF forms."),
            skill_md("xlsx", "Edit spreadsheets."),
        );
        let (secret, hostile) = (
            skill_md("secret", "Not acme's."),
            skill_md("hostile", "Never served."),
        );
        let mut put = vec!["put", "skills"];
        put.extend(["acme/skills/pdf/SKILL.md", &pdf]);
        put.extend(["acme/skills/pdf/refs/guide.md", "one\ntwo\n"]);
        // A folder marker, as consoles make them: not a file.
        put.extend(["acme/skills/pdf/refs/", ""]);
        put.extend(["acme/skills/xlsx/SKILL.md", &xlsx]);
        put.extend(["other/secret/SKILL.md", &secret]);
        // Keys no skill may serve: each is reported, and hides nothing else.
        for key in HOSTILE {
            put.extend([key, &hostile]);
        }
        moto.s3(&put);
    }

    const HOSTILE: [&str; 4] = [
        "acme/skills/pdf/../escape.md",
        "acme/skills/empty//SKILL.md",
        "acme/skills/bell\u{7}/SKILL.md",
        "acme/skills/./SKILL.md",
    ];

    #[test]
    fn skills_in_a_bucket_are_served_alike_by_replicas_and_changes_are_polled() {
        let moto = Moto::start();
        bucket(&moto);
        let fixture = Fixture::new("");
        let config = moto.config(&fixture, &["s3://skills/acme/skills"], "sessions = true");
        let first = Server::start(&config, &[]);
        let second = Server::start(&config, &[]);

        let seen = read(&first);
        let uris: Vec<&String> = seen["resources"].as_object().unwrap().keys().collect();
        assert_eq!(
            uris,
            [
                "skill://pdf/SKILL.md",
                "skill://pdf/refs/guide.md",
                "skill://xlsx/SKILL.md"
            ]
        );
        assert_eq!(seen["resources"]["skill://pdf/refs/guide.md"], "one\ntwo\n");
        let catalog = seen["catalog"].as_str().unwrap();
        assert!(catalog.contains("Fill PDF forms."), "{catalog}");
        assert!(!catalog.contains("secret"), "{catalog}");
        // Two replicas over the same prefix answer alike.
        assert_eq!(read(&second), seen);

        // An edit in the bucket is found by the next poll, and clients in a session are told.
        let session = open_session(&first.address);
        let events = event_stream(&first.address, &session);
        std::thread::sleep(Duration::from_millis(300));
        moto.s3(&[
            "put",
            "skills",
            "acme/skills/pdf/SKILL.md",
            &skill_md("pdf", "Fill and sign PDF forms."),
        ]);
        let announced = announced(&events);
        assert!(announced, "no list_changed\n{}", first.stderr());
        let edited = read(&first);
        assert!(
            edited["resources"]["skill://pdf/SKILL.md"]
                .as_str()
                .unwrap()
                .contains("Fill and sign PDF forms."),
            "{edited}"
        );
        // A skill removed from the bucket is no longer served.
        moto.s3(&["delete", "skills", "acme/skills/xlsx/SKILL.md"]);
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let now = read(&second);
            if now["resources"].get("skill://xlsx/SKILL.md").is_none() {
                assert_eq!(now, read(&first));
                break;
            }
            assert!(
                Instant::now() < deadline,
                "xlsx still served\n{}",
                second.stderr()
            );
            std::thread::sleep(Duration::from_millis(500));
        }
        for server in [&first, &second] {
            let logged = server.stderr();
            assert!(!logged.contains("test-secret-never-shown"), "{logged}");
            for hostile in HOSTILE {
                let said = format!("the object `{}` is refused", hostile.escape_debug());
                assert!(logged.contains(&said), "{said}\n{logged}");
            }
        }
    }

    #[test]
    fn check_config_says_whether_each_store_can_be_reached() {
        let moto = Moto::start();
        bucket(&moto);
        let fixture = Fixture::new("");
        let config = moto.config(
            &fixture,
            &["s3://skills/acme/skills", "s3://no-such-bucket/skills"],
            "",
        );
        let config = config.display().to_string();
        let output = check_config_json(&config);
        assert_eq!(output.status.code(), Some(1), "{output:?}");
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        let sources = &report["tenants"][0]["sources"];
        assert_eq!(sources[0]["source"], "s3://skills/acme/skills");
        assert_eq!(sources[0]["reachable"], true);
        assert_eq!(sources[0]["skills"], 2);
        assert_eq!(sources[1]["source"], "s3://no-such-bucket/skills");
        assert_eq!(sources[1]["reachable"], false);
        // The tenant counts the skills its stores hold.
        assert_eq!(report["tenants"][0]["skill_count"], 2);
        let said = String::from_utf8_lossy(&output.stdout);
        assert!(!said.contains("test-secret-never-shown"), "{said}");
        let text = skillbook(&["serve", "--config", &config, "--check-config"]);
        let text = String::from_utf8(text.stdout).unwrap();
        assert!(
            text.contains("tenant alpha: 2 skills (2 in object stores)"),
            "{text}"
        );
    }

    /// First `skills/list` and warm `resources/read` latency over 1,000 skills in a bucket, next
    /// to the same skills in a directory: `scripts/bench-store.sh` runs it.
    #[test]
    #[ignore = "a benchmark: run by scripts/bench-store.sh"]
    fn store_benchmark() {
        let skills: usize =
            std::env::var("SKILLBOOK_STORE_SKILLS").map_or(1000, |value| value.parse().unwrap());
        let rounds: usize =
            std::env::var("SKILLBOOK_STORE_ROUNDS").map_or(3, |value| value.parse().unwrap());
        let moto = Moto::start();
        let fixture = Fixture::new("");
        for skill in 0..skills {
            let name = format!("skill-{skill:05}");
            let body = "Steps to follow, one per line.\n".repeat(40);
            fixture.write(
                &format!("bench/{name}/SKILL.md"),
                &format!("{}{body}", skill_md(&name, "A skill for the benchmark.")),
            );
            fixture.write(&format!("bench/{name}/refs/guide.md"), &body);
        }
        let tree = fixture.path().join("bench").display().to_string();
        moto.s3(&["create", "skills"]);
        moto.s3(&["putdir", "skills", "acme/skills/", &tree]);
        let store = moto.config(&fixture, &["s3://skills/acme/skills"], "");
        fixture.write(
            "dir.toml",
            &format!(
                "[server]\npage_size = 1\n[[tenant]]\nname = \"alpha\"\nsources = [\"bench\"]\n\
                 tokens = [\"{}\"]\n",
                TokenDigest::of(ALPHA)
            ),
        );
        let directory = fixture.path().join("dir.toml");
        for round in 0..rounds {
            let floor = client(&["s3", &moto.endpoint, "getall", "skills", "acme/skills/"])
                .output()
                .unwrap();
            assert!(floor.status.success());
            println!(
                "round={round} floor: boto3 lists and fetches every object in {} ms",
                String::from_utf8_lossy(&floor.stdout).trim()
            );
            for (source, config) in [("bucket", &store), ("directory", &directory)] {
                let started = Instant::now();
                let server = Server::start(config, &[]);
                let listed = mcp(
                    &server.address,
                    Some(ALPHA),
                    &call(2, "skills/list", json!({})),
                )
                .unwrap();
                assert_eq!(listed.status, 200);
                let first_list = started.elapsed();
                let mut reads = Vec::new();
                for visit in 0..500 {
                    let uri = format!("skill://skill-{:05}/SKILL.md", (visit * 7919) % skills);
                    let read = call(3, "resources/read", json!({ "uri": uri }));
                    let started = Instant::now();
                    let answer = mcp(&server.address, Some(ALPHA), &read).unwrap();
                    reads.push(started.elapsed());
                    assert!(answer.json().get("result").is_some());
                }
                reads.sort();
                let at = |share: f64| {
                    reads[((reads.len() as f64 * share) as usize).min(reads.len() - 1)]
                        .as_secs_f64()
                        * 1e6
                };
                println!(
                    "round={round} source={source} skills={skills} first_list_ms={:.0} read_p50_us={:.0} read_p95_us={:.0}",
                    first_list.as_secs_f64() * 1e3,
                    at(0.5),
                    at(0.95)
                );
            }
        }
    }
}
