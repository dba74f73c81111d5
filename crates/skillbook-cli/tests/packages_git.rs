//! Git sources through the binary, against real repositories made with git and reached over
//! `file://` (git's upload-pack), `git://` (a `git daemon` on loopback), smart HTTP (`git
//! http-backend` behind a loopback server, through the same client HTTPS uses) and SSH (`ssh`
//! run as git runs it, here a stand-in that runs upload-pack locally): every skill
//! installed and locked at the fetched commit, a tag named with `#`, links and submodules left
//! out and listed, `install` restoring the locked commit after the repository moved on, `update`
//! moving to the new commit and listing what changed, and bad refs, missing repositories and
//! hostile trees refused with nothing installed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

#[path = "support/source_tree.rs"]
mod source_tree;

use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use serde_json::Value;

/// A repository made with git (only the tests run git; the product never does).
struct Repository {
    folder: tempfile::TempDir,
}

impl Repository {
    /// A repository with `pdf` (a script, a link) and `review` under `skills/`, committed.
    fn new() -> Repository {
        let repository = Repository {
            folder: tempfile::tempdir().unwrap(),
        };
        repository.git(&["init", "-q", "-b", "main"]);
        let path = repository.path();
        source_tree::skill(path, "skills/pdf", "pdf", "");
        source_tree::write(path, "skills/pdf/scripts/run.sh", "echo hi\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let script = path.join("skills/pdf/scripts/run.sh");
            fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
            std::os::unix::fs::symlink("/etc/passwd", path.join("skills/pdf/passwd")).unwrap();
        }
        source_tree::skill(path, "skills/review", "review", "");
        repository.commit("first");
        repository
    }

    fn path(&self) -> &Path {
        self.folder.path()
    }

    fn url(&self) -> String {
        format!("file://{}", self.path().display())
    }

    fn git(&self, arguments: &[&str]) -> String {
        let output = std::process::Command::new("git")
            .current_dir(self.path())
            .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
            .args(["-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"])
            .args(arguments)
            .output()
            .expect("git runs");
        assert!(output.status.success(), "git {arguments:?}: {output:?}");
        String::from_utf8(output.stdout).unwrap().trim().to_owned()
    }

    /// Commits everything; returns the commit.
    fn commit(&self, message: &str) -> String {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
        self.git(&["rev-parse", "HEAD"])
    }
}

/// A workspace to install into.
struct Workspace {
    folder: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Workspace {
    fn new() -> Workspace {
        Workspace {
            folder: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
        }
    }

    fn skills(&self) -> PathBuf {
        self.folder.path().join(".agents/skills")
    }

    fn lock(&self) -> Value {
        let text = fs::read_to_string(self.folder.path().join("skills-lock.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    fn run(&self, arguments: &[&str]) -> Output {
        Command::cargo_bin("skillbook")
            .unwrap()
            .current_dir(self.folder.path())
            .env("HOME", self.home.path())
            .args(arguments)
            .output()
            .unwrap()
    }

    fn json(&self, arguments: &[&str], code: i32) -> Value {
        self.json_with(arguments, code, &[])
    }

    /// [`Workspace::json`] with more environment variables.
    fn json_with(&self, arguments: &[&str], code: i32, environment: &[(&str, &Path)]) -> Value {
        let mut arguments = arguments.to_vec();
        arguments.extend(["--format", "json"]);
        let output = Command::cargo_bin("skillbook")
            .unwrap()
            .current_dir(self.folder.path())
            .env("HOME", self.home.path())
            .envs(environment.iter().copied())
            .args(&arguments)
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(code),
            "{arguments:?}: {output:?}"
        );
        serde_json::from_slice(&output.stdout).unwrap()
    }
}

#[test]
fn a_repository_installs_every_skill_locked_at_its_commit() {
    let repository = Repository::new();
    let head = repository.git(&["rev-parse", "HEAD"]);
    let workspace = Workspace::new();
    let url = repository.url();

    let output = workspace.run(&["add", &url, "--yes"]);
    assert!(output.status.success(), "{output:?}");
    // The plan is shown on stderr, what was installed on stdout.
    let shown = String::from_utf8_lossy(&output.stderr);
    assert!(shown.contains(&format!("pdf (from {url} skills/pdf at {}", &head[..12])));
    assert!(shown.contains("left out (link): passwd"), "{shown}");

    let lock = workspace.lock();
    let pdf = &lock["skills"]["pdf"];
    assert_eq!(pdf["source"], url.as_str());
    assert_eq!(pdf["sourceUrl"], url.as_str());
    assert_eq!(pdf["sourceType"], "git");
    assert_eq!(pdf["skillPath"], "skills/pdf/SKILL.md");
    assert_eq!(pdf["skillbook"]["commit"], head.as_str());
    assert!(pdf.get("ref").is_none(), "no ref was named: {pdf}");
    assert_eq!(
        lock["skills"]["review"]["skillbook"]["commit"],
        head.as_str()
    );

    let installed = workspace.skills().join("pdf");
    assert!(installed.join("SKILL.md").is_file());
    assert!(!installed.join("passwd").exists());
    assert!(!installed.join(".git").exists());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(installed.join("scripts/run.sh"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o111, 0o111, "the script stays executable");
    }
    assert_eq!(workspace.json(&["verify"], 0)["clean"], true);
}

#[test]
fn a_named_tag_is_fetched_and_recorded_as_the_ref() {
    let repository = Repository::new();
    repository.git(&["tag", "v1"]);
    let tagged = repository.git(&["rev-parse", "HEAD"]);
    source_tree::write(
        repository.path(),
        "skills/review/SKILL.md",
        "---\nname: review\ndescription: Newer.\n---\n",
    );
    repository.commit("second");
    let workspace = Workspace::new();

    let source = format!("{}#v1", repository.url());
    workspace.json(&["add", &source, "--skill", "review", "--yes"], 0);
    let review = &workspace.lock()["skills"]["review"];
    assert_eq!(review["ref"], "v1");
    assert_eq!(review["skillbook"]["commit"], tagged.as_str());
    let text = fs::read_to_string(workspace.skills().join("review/SKILL.md")).unwrap();
    assert!(text.contains("The review skill."), "{text}");
    assert!(
        !workspace.skills().join("pdf").exists(),
        "only the skill asked for"
    );
}

#[test]
fn install_restores_the_locked_commit_and_update_moves_to_the_newest() {
    let repository = Repository::new();
    let first = repository.git(&["rev-parse", "HEAD"]);
    let workspace = Workspace::new();
    workspace.json(&["add", &repository.url(), "--yes"], 0);
    source_tree::write(
        repository.path(),
        "skills/review/SKILL.md",
        "---\nname: review\ndescription: Newer.\n---\n",
    );
    source_tree::write(repository.path(), "skills/review/notes.md", "notes\n");
    let second = repository.commit("second");

    // A fresh clone of the workspace: the skills are gone, the lock pins the first commit.
    fs::remove_dir_all(workspace.skills()).unwrap();
    let installed = workspace.json(&["install"], 0);
    assert_eq!(
        installed["restored"].as_array().unwrap().len(),
        2,
        "{installed}"
    );
    let text = fs::read_to_string(workspace.skills().join("review/SKILL.md")).unwrap();
    assert!(
        text.contains("The review skill."),
        "the locked commit, not the newest: {text}"
    );
    assert_eq!(
        workspace.lock()["skills"]["review"]["skillbook"]["commit"],
        first.as_str()
    );

    let updated = workspace.json(&["update"], 0);
    let review = updated["updated"]
        .as_array()
        .unwrap()
        .iter()
        .find(|skill| skill["name"] == "review")
        .expect("review changed")
        .clone();
    assert_eq!(review["added"], serde_json::json!(["notes.md"]));
    assert_eq!(review["changed"], serde_json::json!(["SKILL.md"]));
    assert_eq!(updated["unchanged"], serde_json::json!(["pdf"]));
    assert_eq!(
        workspace.lock()["skills"]["review"]["skillbook"]["commit"],
        second.as_str()
    );
    assert_eq!(
        workspace.lock()["skills"]["pdf"]["skillbook"]["commit"],
        first.as_str()
    );
    let text = fs::read_to_string(workspace.skills().join("review/SKILL.md")).unwrap();
    assert!(text.contains("Newer."), "{text}");
    assert_eq!(workspace.json(&["verify"], 0)["clean"], true);
}

#[test]
fn a_submodule_inside_a_skill_is_left_out_and_listed() {
    let repository = Repository::new();
    let head = repository.git(&["rev-parse", "HEAD"]);
    let cacheinfo = format!("160000,{head},skills/pdf/vendored");
    repository.git(&["update-index", "--add", "--cacheinfo", &cacheinfo]);
    repository.git(&["commit", "-q", "-m", "a submodule"]);
    let workspace = Workspace::new();

    let output = workspace.run(&["add", &repository.url(), "--skill", "pdf", "--yes"]);
    assert!(output.status.success(), "{output:?}");
    let shown = String::from_utf8_lossy(&output.stderr);
    assert!(shown.contains("left out (git): vendored"), "{shown}");
    assert!(!workspace.skills().join("pdf/vendored").exists());
}

#[test]
fn a_hostile_tree_entry_is_refused_and_nothing_is_installed() {
    for hostile in ["..", "\u{1b}[31mred"] {
        refused_with_entry(hostile);
    }
}

/// A repository whose tree holds a skill folder `escape` with an entry named `hostile`, which
/// git's own commands never write, is refused, naming the entry.
fn refused_with_entry(hostile: &str) {
    let repository = Repository::new();
    let blob = repository.git(&["hash-object", "-w", "skills/review/SKILL.md"]);
    let inner = pipe(
        repository.path(),
        &["mktree"],
        &format!("100644 blob {blob}\tSKILL.md\n100644 blob {blob}\t{hostile}\n"),
    );
    let top = pipe(
        repository.path(),
        &["mktree"],
        &format!("040000 tree {inner}\tescape\n"),
    );
    let commit = repository.git(&["commit-tree", &top, "-m", "hostile"]);
    repository.git(&["update-ref", "refs/heads/main", &commit]);
    let workspace = Workspace::new();

    let refused = workspace.json(&["add", &repository.url(), "--yes"], 1);
    assert_eq!(refused["error"], "fetch_failed", "{refused}");
    let message = refused["message"].as_str().unwrap();
    let shown: String = hostile.escape_debug().collect();
    assert!(message.contains(&format!("escape/{shown}")), "{message}");
    assert!(
        !message.contains('\u{1b}'),
        "no control character is echoed: {message:?}"
    );
    assert!(!workspace.skills().exists());
    assert!(!workspace.folder.path().join("skills-lock.json").exists());
}

#[test]
fn a_missing_ref_or_repository_is_an_error_naming_it() {
    let repository = Repository::new();
    let workspace = Workspace::new();
    let missing_ref = format!("{}#no-such-branch", repository.url());
    let refused = workspace.json(&["add", &missing_ref, "--yes"], 1);
    assert_eq!(refused["error"], "fetch_failed");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("no-such-branch"),
        "{refused}"
    );

    let gone = format!("{}/nothing-here", repository.url());
    let refused = workspace.json(&["add", &gone, "--yes"], 1);
    assert_eq!(refused["error"], "fetch_failed");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("nothing-here"),
        "{refused}"
    );
    assert!(!workspace.skills().exists());
}

#[test]
fn a_repository_served_by_git_daemon_on_loopback_installs() {
    let repository = Repository::new();
    let head = repository.git(&["rev-parse", "HEAD"]);
    let daemon = Daemon::start(repository.path().parent().unwrap()).expect("git daemon starts");
    let name = repository.path().file_name().unwrap().to_string_lossy();
    let url = format!("git://127.0.0.1:{}/{name}", daemon.port);
    let workspace = Workspace::new();
    workspace.json(&["add", &url, "--skill", "review", "--yes"], 0);
    let review = &workspace.lock()["skills"]["review"];
    assert_eq!(review["sourceUrl"], url.as_str());
    assert_eq!(review["skillbook"]["commit"], head.as_str());
    assert!(workspace.skills().join("review/SKILL.md").is_file());
}

/// Runs git with `input` on its standard input; returns what it printed.
fn pipe(folder: &Path, arguments: &[&str], input: &str) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new("git")
        .current_dir(folder)
        .args(arguments)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "git {arguments:?}: {output:?}");
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

/// `git daemon` serving a folder of repositories on a loopback port, stopped when dropped.
struct Daemon {
    child: Child,
    port: u16,
}

impl Daemon {
    fn start(base: &Path) -> Option<Daemon> {
        let port = TcpListener::bind("127.0.0.1:0")
            .ok()?
            .local_addr()
            .ok()?
            .port();
        let child = std::process::Command::new("git")
            .arg("daemon")
            .arg("--export-all")
            .arg("--reuseaddr")
            .arg("--listen=127.0.0.1")
            .arg(format!("--port={port}"))
            .arg(format!("--base-path={}", base.display()))
            .arg(base)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let daemon = Daemon { child, port };
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if started.elapsed() > Duration::from_secs(10) {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(daemon)
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_repository_served_over_smart_http_on_loopback_installs() {
    let repository = Repository::new();
    let head = repository.git(&["rev-parse", "HEAD"]);
    let server = SmartHttp::start(repository.path().parent().unwrap());
    let name = repository.path().file_name().unwrap().to_string_lossy();
    let url = format!("http://127.0.0.1:{}/{name}", server.port);
    let workspace = Workspace::new();
    workspace.json(&["add", &url, "--skill", "pdf", "--yes"], 0);
    let pdf = &workspace.lock()["skills"]["pdf"];
    assert_eq!(pdf["source"], url.as_str());
    assert_eq!(pdf["skillbook"]["commit"], head.as_str());
    assert!(workspace.skills().join("pdf/scripts/run.sh").is_file());
    assert!(server.requests() >= 2, "the fetch went through the server");
}

/// git's smart HTTP protocol on a loopback port: each request is handed to
/// `git http-backend` as a CGI program (one connection per request).
struct SmartHttp {
    port: u16,
    requests: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl SmartHttp {
    fn start(base: &Path) -> SmartHttp {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (base, counted) = (base.to_path_buf(), requests.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let base = base.clone();
                std::thread::spawn(move || serve_cgi(stream, &base));
            }
        });
        SmartHttp { port, requests }
    }

    fn requests(&self) -> usize {
        self.requests.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// Answers one HTTP/1.1 request through `git http-backend`.
fn serve_cgi(stream: std::net::TcpStream, base: &Path) {
    use std::io::{BufRead, BufReader, Read, Write};
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let mut parts = line.split_whitespace();
    let (method, target) = (
        parts.next().unwrap().to_owned(),
        parts.next().unwrap().to_owned(),
    );
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).unwrap();
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let header = |name: &str| {
        headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.clone())
    };
    let mut body = Vec::new();
    if let Some(length) = header("content-length") {
        body.resize(length.parse().unwrap(), 0);
        reader.read_exact(&mut body).unwrap();
    } else if header("transfer-encoding").is_some_and(|value| value.contains("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).unwrap();
            let size = usize::from_str_radix(size.trim(), 16).unwrap();
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).unwrap();
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    }
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    let mut command = std::process::Command::new("git");
    command
        .arg("http-backend")
        .env("GIT_PROJECT_ROOT", base)
        .env("GIT_HTTP_EXPORT_ALL", "1")
        .env("REQUEST_METHOD", &method)
        .env("PATH_INFO", path)
        .env("QUERY_STRING", query)
        .env("CONTENT_LENGTH", body.len().to_string())
        .env("REMOTE_ADDR", "127.0.0.1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if let Some(kind) = header("content-type") {
        command.env("CONTENT_TYPE", kind);
    }
    if let Some(protocol) = header("git-protocol") {
        command.env("GIT_PROTOCOL", protocol);
    }
    if let Some(encoding) = header("content-encoding") {
        command.env("HTTP_CONTENT_ENCODING", encoding);
    }
    let mut child = command.spawn().unwrap();
    child.stdin.take().unwrap().write_all(&body).unwrap();
    let output = child.wait_with_output().unwrap();
    let split = output
        .stdout
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .map(|at| (at, 4))
        .or_else(|| {
            output
                .stdout
                .windows(2)
                .position(|window| window == b"\n\n")
                .map(|at| (at, 2))
        })
        .unwrap();
    let cgi_headers = String::from_utf8_lossy(&output.stdout[..split.0]).into_owned();
    let content = &output.stdout[split.0 + split.1..];
    let mut status = "200 OK".to_owned();
    let mut response = Vec::new();
    for header in cgi_headers.lines() {
        match header.split_once(':') {
            Some((name, value)) if name.eq_ignore_ascii_case("status") => {
                status = value.trim().to_owned();
            }
            Some(_) => response.extend_from_slice(format!("{header}\r\n").as_bytes()),
            None => {}
        }
    }
    let mut stream = stream;
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n",
        content.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(&response).unwrap();
    stream.write_all(b"\r\n").unwrap();
    stream.write_all(content).unwrap();
}

#[test]
fn github_shorthand_follows_gits_insteadof_to_a_loopback_server() {
    let repository = Repository::new();
    let head = repository.git(&["rev-parse", "HEAD"]);
    let served = tempfile::tempdir().unwrap();
    let bare = served.path().join("team/skills.git");
    fs::create_dir_all(bare.parent().unwrap()).unwrap();
    repository.git(&["clone", "-q", "--bare", ".", bare.to_str().unwrap()]);
    let server = SmartHttp::start(served.path());
    let workspace = Workspace::new();
    // git's own rewrite setting, in the user's git configuration, sends github.com here.
    let rewrite = format!(
        "[url \"http://127.0.0.1:{}/\"]\n\tinsteadOf = https://github.com/\n",
        server.port
    );
    fs::write(workspace.home.path().join(".gitconfig"), rewrite).unwrap();

    workspace.json(&["add", "team/skills/skills/review", "--yes"], 0);
    let review = &workspace.lock()["skills"]["review"];
    assert_eq!(review["source"], "team/skills");
    assert_eq!(review["sourceType"], "github");
    assert!(review.get("sourceUrl").is_none(), "{review}");
    assert_eq!(review["skillPath"], "skills/review/SKILL.md");
    assert_eq!(review["skillbook"]["commit"], head.as_str());
    assert!(
        !workspace.skills().join("pdf").exists(),
        "only the folder asked for"
    );

    fs::remove_dir_all(workspace.skills()).unwrap();
    workspace.json(&["install"], 0);
    assert!(workspace.skills().join("review/SKILL.md").is_file());
}

#[cfg(unix)]
#[test]
fn ssh_urls_run_ssh_as_git_does() {
    use std::os::unix::fs::PermissionsExt;
    let repository = Repository::new();
    let head = repository.git(&["rev-parse", "HEAD"]);
    // A stand-in for ssh (no server here): it skips the options and the host and runs the
    // remote command, `git-upload-pack '<path>'`, on this machine, recording each call.
    let tools = tempfile::tempdir().unwrap();
    let ssh = tools.path().join("ssh");
    let calls = tools.path().join("calls");
    let script = format!(
        "#!/bin/sh\necho \"$@\" >> '{}'\nwhile [ $# -gt 0 ]; do\n  case \"$1\" in\n    \
         -o|-p|-l|-i) shift 2 ;;\n    -*) shift ;;\n    *) shift; break ;;\n  esac\ndone\n\
         exec sh -c \"$*\"\n",
        calls.display()
    );
    fs::write(&ssh, script).unwrap();
    fs::set_permissions(&ssh, fs::Permissions::from_mode(0o755)).unwrap();
    let path = repository.path().display().to_string();

    for url in [
        format!("ssh://git@example.invalid{path}"),
        format!("git@example.invalid:{path}"),
    ] {
        let workspace = Workspace::new();
        let environment = [("GIT_SSH_COMMAND", ssh.as_path())];
        workspace.json_with(
            &["add", &url, "--skill", "review", "--yes"],
            0,
            &environment,
        );
        let review = &workspace.lock()["skills"]["review"];
        assert_eq!(review["source"], url.as_str());
        assert_eq!(review["sourceType"], "git");
        assert_eq!(review["skillbook"]["commit"], head.as_str());
    }
    let calls = fs::read_to_string(&calls).unwrap();
    // At least one connection per add (gix may open more than one).
    assert!(calls.lines().count() >= 2, "{calls}");
    assert!(
        calls
            .lines()
            .all(|call| call.contains("git@example.invalid git-upload-pack")),
        "{calls}"
    );
}

#[cfg(unix)]
#[test]
fn a_skill_folder_that_is_a_link_or_too_large_in_a_repository_is_not_installed() {
    let repository = Repository::new();
    // `skills/evil` is a link to a folder outside the repository, and `skills/huge` holds a
    // file over the 16 MiB limit.
    std::os::unix::fs::symlink("/etc", repository.path().join("skills/evil")).unwrap();
    source_tree::skill(repository.path(), "skills/huge", "huge", "");
    let big = vec![b'x'; 16 * 1024 * 1024 + 1];
    fs::write(repository.path().join("skills/huge/data.bin"), big).unwrap();
    repository.commit("hostile");
    let workspace = Workspace::new();

    let refused = workspace.json(&["add", &repository.url(), "--skill", "evil", "--yes"], 1);
    assert_eq!(refused["error"], "no_skill_found", "{refused}");
    let refused = workspace.json(&["add", &repository.url(), "--skill", "huge", "--yes"], 1);
    assert!(
        refused["message"].as_str().unwrap().contains("data.bin"),
        "{refused}"
    );
    assert!(!workspace.skills().exists());
    // The rest of the repository still installs.
    workspace.json(&["add", &repository.url(), "--skill", "review", "--yes"], 0);
    assert!(workspace.skills().join("review/SKILL.md").is_file());
}
