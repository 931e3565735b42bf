//! `pitboss upload` against a fake server (one request on a local socket): the request follows
//! the contract (method, path, headers, a tar.zst bundle with bot.toml), the answers are printed
//! as they should be, and the token never appears in the output.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::thread::JoinHandle;
use std::time::Duration;

const TOKEN: &str = "pbt_s3cret-Token-42";

/// What the fake server received.
struct Request {
    line: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Serves one request, answering `HTTP/1.1 {status}`, `headers` (each ending in CRLF) and the
/// JSON `answer`; returns the base URL and the request it got.
fn serve_once(
    status: &'static str,
    headers: &'static str,
    answer: &'static str,
) -> (String, JoinHandle<Request>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let mut request_headers = Vec::new();
        loop {
            let mut h = String::new();
            reader.read_line(&mut h).unwrap();
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            let (k, v) = h.split_once(':').unwrap();
            request_headers.push((k.trim().to_owned(), v.trim().to_owned()));
        }
        let request = Request {
            line: line.trim_end().to_owned(),
            headers: request_headers,
            body: Vec::new(),
        };
        let len: usize = request
            .header("content-length")
            .expect("a Content-Length")
            .parse()
            .unwrap();
        let mut body = vec![0; len];
        reader.read_exact(&mut body).unwrap();
        let mut stream = stream;
        write!(
            stream,
            "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n{headers}\r\n{answer}",
            answer.len()
        )
        .unwrap();
        Request { body, ..request }
    });
    (base, handle)
}

fn simple_bot() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bots/python/simple")
}

fn upload(args: &[&str], env_token: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pitboss"));
    cmd.arg("upload").args(args).env_remove("PITBOSS_TOKEN");
    if let Some(t) = env_token {
        cmd.env("PITBOSS_TOKEN", t);
    }
    cmd.output().unwrap()
}

fn text(out: &Output) -> (String, String) {
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        !o.contains(TOKEN) && !e.contains(TOKEN),
        "the token was printed:\n{o}\n{e}"
    );
    (o.into_owned(), e.into_owned())
}

#[test]
fn a_bundle_is_posted_per_the_contract_and_the_answer_printed() {
    let (base, server) = serve_once(
        "201 Created",
        "",
        r#"{"bot": "mybot", "version": 3, "state": "pending", "url": "/bots/mybot"}"#,
    );
    let folder = simple_bot();
    let out = upload(
        &[
            folder.to_str().unwrap(),
            "--server",
            &format!("{base}/"),
            "--name",
            "mybot",
        ],
        Some(TOKEN),
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert_eq!(
        stdout.trim(),
        format!("uploaded mybot version 3: building and checking; follow it at {base}/bots/mybot")
    );

    let request = server.join().unwrap();
    assert_eq!(request.line, "POST /api/bots?name=mybot HTTP/1.1");
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {TOKEN}").as_str())
    );
    assert_eq!(
        request.header("content-type"),
        Some("application/octet-stream")
    );
    // The body is a bundle the server's own unpacker accepts, with the example's files.
    assert!(
        request.body.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]),
        "not zstd"
    );
    let dest = std::env::temp_dir().join(format!("pitboss-upload-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dest);
    let limits = pitboss_bundle::Limits::default();
    let unpacked = pitboss_bundle::unpack(&request.body, &dest, &limits).unwrap();
    assert_eq!(unpacked.manifest_name.as_deref(), Some("python-simple"));
    assert_eq!(
        std::fs::read(dest.join("bot.py")).unwrap(),
        std::fs::read(folder.join("bot.py")).unwrap()
    );
    std::fs::remove_dir_all(&dest).unwrap();
    // The same folder gives the same bundle, whose hash was announced.
    let again = pitboss_bundle::pack(&folder, &limits).unwrap();
    assert_eq!(again, request.body);
    assert!(
        stderr.contains(&pitboss_bundle::sha256_hex(&again)),
        "{stderr}"
    );
}

#[test]
fn a_refusal_is_printed_with_when_to_retry_and_exits_6() {
    let (base, server) = serve_once(
        "429 Too Many Requests",
        "Retry-After: 120\r\n",
        r#"{"error": "quota reached: 10 uploads a day"}"#,
    );
    // The manifest itself may be given; the token by flag (the environment's is ignored then).
    let manifest = simple_bot().join("bot.toml");
    let out = upload(
        &[
            manifest.to_str().unwrap(),
            "--server",
            &base,
            "--token",
            TOKEN,
        ],
        Some("other-token"),
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(6), "{stdout}\n{stderr}");
    assert!(
        stderr.contains(
            "pitboss: upload refused (HTTP 429): quota reached: 10 uploads a day; retry in 120 s"
        ),
        "{stderr}"
    );
    let request = server.join().unwrap();
    assert_eq!(request.line, "POST /api/bots HTTP/1.1");
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {TOKEN}").as_str())
    );
}

#[test]
fn a_folder_without_bot_toml_is_refused_before_any_request() {
    let dir = std::env::temp_dir().join(format!("pitboss-upload-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Nothing listens on port 9 of 127.0.0.1: a request would fail differently.
    let out = upload(
        &[dir.to_str().unwrap(), "--server", "http://127.0.0.1:9"],
        Some(TOKEN),
    );
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("{}: no bot.toml in this folder", dir.display())),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn no_token_and_an_unreachable_server_are_clear_errors() {
    let folder = simple_bot();
    let out = upload(
        &[folder.to_str().unwrap(), "--server", "http://127.0.0.1:9"],
        None,
    );
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("PITBOSS_TOKEN"), "{stderr}");

    // A port that was just free: the connection is refused, and the message names the URL.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let base = format!("http://127.0.0.1:{port}");
    let out = upload(&[folder.to_str().unwrap(), "--server", &base], Some(TOKEN));
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot upload to {base}/api/bots")),
        "{stderr}"
    );
}
