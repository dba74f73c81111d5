//! A `skillbook serve` process and its fixtures, for the tests that talk to one over HTTP:
//! two tenants' sources and a configuration naming them, the server on a free loopback port,
//! and plain HTTP/1.1 requests to it.
#![allow(dead_code, reason = "each test file uses a part of it")]

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use skillbook_mcp::http::TokenDigest;
use tempfile::TempDir;

pub const ALPHA: &str = "sbk_alpha-token-for-tests";
pub const BETA: &str = "sbk_beta-token-for-tests";

/// Two tenants' sources and a configuration file naming them.
pub struct Fixture {
    pub directory: TempDir,
}

impl Fixture {
    /// `alpha`: `pdf` (with `refs/guide.md`) and `xlsx`; `beta`: `memo` and, from a zip
    /// archive, `zipped`. One skill per page; `extra` is added to `[server]`.
    pub fn new(extra: &str) -> Self {
        let fixture = Fixture {
            directory: tempfile::tempdir().unwrap(),
        };
        fixture.write(
            "alpha/pdf/SKILL.md",
            "---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n\nRead refs/guide.md.\n",
        );
        fixture.write("alpha/pdf/refs/guide.md", "one\ntwo\nthree\nfour\n");
        fixture.write(
            "alpha/xlsx/SKILL.md",
            "---\nname: xlsx\ndescription: Edit spreadsheets.\n---\nCells.\n",
        );
        fixture.write(
            "beta/memo/SKILL.md",
            "---\nname: memo\ndescription: Write memos.\n---\nBe brief.\n",
        );
        fixture.zip(
            "beta.zip",
            &[
                (
                    "zipped/SKILL.md",
                    "---\nname: zipped\ndescription: From an archive.\n---\nZipped.\n",
                ),
                ("zipped/notes.md", "notes\n"),
            ],
        );
        fixture.write(
            "skillbook.toml",
            &format!(
                "[server]\npage_size = 1\n{extra}\n\n\
                 [[tenant]]\nname = \"alpha\"\nsources = [\"alpha\"]\ntokens = [\"{}\"]\n\n\
                 [[tenant]]\nname = \"beta\"\nsources = [\"beta\", \"beta.zip\"]\ntokens = [\"{}\"]\n",
                TokenDigest::of(ALPHA),
                TokenDigest::of(BETA)
            ),
        );
        fixture
    }

    pub fn path(&self) -> &Path {
        self.directory.path()
    }

    pub fn config(&self) -> PathBuf {
        self.path().join("skillbook.toml")
    }

    pub fn write(&self, relative: &str, text: &str) {
        let path = self.path().join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    pub fn zip(&self, relative: &str, files: &[(&str, &str)]) {
        let file = fs::File::create(self.path().join(relative)).unwrap();
        let mut archive = zip::ZipWriter::new(file);
        for (name, text) in files {
            archive
                .start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            archive.write_all(text.as_bytes()).unwrap();
        }
        archive.finish().unwrap();
    }
}

/// A `skillbook serve` process on a free loopback port; killed when dropped.
pub struct Server {
    pub child: Child,
    /// `127.0.0.1:<port>`.
    pub address: String,
    /// Where probes and metrics are served, when they are.
    pub admin: Option<String>,
    pub stderr: Arc<Mutex<String>>,
}

impl Server {
    pub fn start(config: &Path, arguments: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_skillbook"))
            .args(["serve", "--config"])
            .arg(config)
            .args(["--listen", "127.0.0.1:0"])
            .args(arguments)
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let collected = Arc::clone(&stderr);
        let mut pipe = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            let mut text = String::new();
            let mut reader = BufReader::new(&mut pipe);
            while reader.read_line(&mut text).unwrap_or(0) > 0 {
                collected.lock().unwrap().push_str(&text);
                text.clear();
            }
        });
        let stdout = child.stdout.take().unwrap();
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = sender.send(line);
        });
        let line = receiver
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_default();
        let Some(url) = line.trim().strip_prefix("listening on ") else {
            let _ = child.kill();
            panic!(
                "the server did not start: {line:?}\n{}",
                stderr.lock().unwrap()
            );
        };
        let (url, admin) = match url.split_once("; admin on ") {
            Some((url, admin)) => (url, Some(admin)),
            None => (url, None),
        };
        let address = url
            .strip_prefix("http://")
            .and_then(|rest| rest.strip_suffix("/mcp"))
            .unwrap()
            .to_owned();
        let admin = admin.map(|admin| admin.strip_prefix("http://").unwrap().to_owned());
        Server {
            child,
            address,
            admin,
            stderr,
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.address)
    }

    /// Sends SIGTERM and waits for the process to end.
    pub fn terminate(&mut self) -> ExitStatus {
        self.send_sigterm();
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the server did not stop after SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends SIGTERM, without waiting.
    pub fn send_sigterm(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP answer: status, headers (lowercase names) and body.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|_| panic!("not JSON: {}", String::from_utf8_lossy(&self.body)))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// One HTTP/1.1 request on a new connection (`Connection: close`), read to the end.
pub fn request(
    address: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> std::io::Result<Answer> {
    let mut stream = TcpStream::connect(address)?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("host"))
    {
        head.push_str(&format!("Host: {address}\r\n"));
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let split = raw
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .ok_or_else(|| std::io::Error::other("no end of headers"))?;
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| std::io::Error::other("no status"))?;
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    Ok(Answer {
        status,
        headers,
        body: raw[split + 4..].to_vec(),
    })
}

/// A JSON-RPC request to `/mcp` with `token` (if any).
pub fn mcp(address: &str, token: Option<&str>, message: &Value) -> std::io::Result<Answer> {
    let authorization = token.map(|token| format!("Bearer {token}"));
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2025-06-18"),
    ];
    if let Some(authorization) = &authorization {
        headers.push(("Authorization", authorization));
    }
    request(
        address,
        "POST",
        "/mcp",
        &headers,
        message.to_string().as_bytes(),
    )
}

pub fn call(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

pub fn initialize() -> Value {
    call(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "test", "version": "1"}}),
    )
}

/// A connection whose receive buffer is small, so a server writing to it stalls as soon as the
/// client stops reading (loopback buffers may otherwise take a whole answer).
pub fn small_window(address: &str) -> TcpStream {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .unwrap();
    runtime.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(4096).unwrap();
        let stream = socket.connect(address.parse().unwrap()).await.unwrap();
        let stream = stream.into_std().unwrap();
        stream.set_nonblocking(false).unwrap();
        stream
    })
}

/// A request `method` (`POST`, `DELETE`) in the session `id`, with `token`.
pub fn in_session(address: &str, token: &str, id: &str, method: &str, body: &Value) -> Answer {
    let authorization = format!("Bearer {token}");
    request(
        address,
        method,
        "/mcp",
        &[
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", "2025-06-18"),
            ("Mcp-Session-Id", id),
            ("Authorization", &authorization),
        ],
        body.to_string().as_bytes(),
    )
    .unwrap()
}

/// A connection with a small receive window that has sent `message` to `/mcp` as `ALPHA` and
/// will read nothing of the answer.
pub fn unread_request(address: &str, message: &str) -> TcpStream {
    let mut stream = small_window(address);
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n\
         Authorization: Bearer {ALPHA}\r\nContent-Length: {}\r\n\r\n",
        message.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(message.as_bytes()).unwrap();
    stream
}
