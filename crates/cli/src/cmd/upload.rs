//! `pitboss upload FOLDER --server URL`: packs a bot folder (`pitboss_bundle::pack`) and POSTs it
//! to a Pitboss server's `/api/bots`, then prints the server's answer.
//!
//! The contract: `POST {URL}/api/bots[?name=NAME]` with `Authorization: Bearer TOKEN`,
//! `Content-Type: application/octet-stream` and the archive as the body. 201 answers
//! `{"bot", "version", "state", "url"}`; a refusal (400, 401, 403, 413, 429) answers
//! `{"error": "..."}`, 429 with `Retry-After: SECONDS`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{anyhow, Context};
use pitboss_arena::ConfigError;
use serde_json::Value;

use crate::args::UploadArgs;

/// The environment variable that holds the token (out of shell history and `ps`).
pub const TOKEN_ENV: &str = "PITBOSS_TOKEN";

/// The longest server message shown: an answer is a sentence, not a page.
const MESSAGE_MAX: usize = 500;

/// The server refused the upload: its status, its reason and, for a quota, when to retry.
#[derive(Debug, thiserror::Error)]
#[error("upload refused (HTTP {status}): {message}{}", retry_text(*.retry_after))]
pub struct Refused {
    pub status: u16,
    pub message: String,
    pub retry_after: Option<u64>,
}

fn retry_text(seconds: Option<u64>) -> String {
    seconds.map_or_else(String::new, |s| format!("; retry in {s} s"))
}

pub fn run(args: UploadArgs) -> anyhow::Result<()> {
    let token = token(args.token, |k| std::env::var(k).ok())?;
    let base = base_url(&args.server)?;
    let folder = bot_folder(&args.folder)?;
    let bundle = pitboss_bundle::pack(&folder, &pitboss_bundle::Limits::default())
        .with_context(|| format!("packing {}", folder.display()))?;
    if insecure(&base) {
        eprintln!(
            "pitboss: warning: {base} is plain HTTP: the token and the bot travel unencrypted \
             (use https:// for a server on another machine)"
        );
    }
    let url = endpoint(&base, args.name.as_deref());
    eprintln!(
        "uploading {} ({} bytes, sha256 {})",
        folder.display(),
        bundle.len(),
        pitboss_bundle::sha256_hex(&bundle)
    );
    let (status, retry_after, body) = post(&url, &token, &bundle)?;
    println!("{}", answer(&base, status, retry_after, &body)?);
    Ok(())
}

/// The token from the flag, else the environment; never echoed, even in errors.
fn token(flag: Option<String>, env: impl Fn(&str) -> Option<String>) -> anyhow::Result<String> {
    let token = flag.or_else(|| env(TOKEN_ENV)).unwrap_or_default();
    let token = token.trim().to_owned();
    if token.is_empty() {
        return Err(ConfigError {
            key: "--token",
            why: format!("no token: set the environment variable {TOKEN_ENV} (or give --token)"),
        }
        .into());
    }
    if !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(ConfigError {
            key: "--token",
            why: "the token holds spaces or characters an HTTP header cannot carry".into(),
        }
        .into());
    }
    Ok(token)
}

/// The server's address without a trailing `/`; only http and https, no query or fragment.
fn base_url(server: &str) -> anyhow::Result<String> {
    let base = server.trim().trim_end_matches('/');
    let bad = |why: &str| -> anyhow::Error {
        ConfigError {
            key: "--server",
            why: format!("`{server}`: {why}"),
        }
        .into()
    };
    let Some((scheme, rest)) = base.split_once("://") else {
        return Err(bad("not a URL (e.g. https://pitboss.example.org)"));
    };
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return Err(bad("only http:// and https:// servers"));
    }
    if rest.is_empty() || rest.contains(['?', '#']) || rest.chars().any(char::is_whitespace) {
        return Err(bad(
            "give the server's address only (no query, fragment or spaces)",
        ));
    }
    Ok(base.to_owned())
}

/// Plain HTTP to another machine.
fn insecure(base: &str) -> bool {
    let Some(rest) = base.strip_prefix("http://") else {
        return false;
    };
    let host = rest.split('/').next().unwrap_or("");
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let local = ["localhost", "127.", "[::1]"];
    !local.iter().any(|l| host.starts_with(l))
}

/// The folder to pack: FOLDER itself, or the folder of a `bot.toml` given instead; it must hold
/// a `bot.toml` (a regular file).
fn bot_folder(arg: &Path) -> anyhow::Result<PathBuf> {
    let folder = if arg.file_name().is_some_and(|n| n == "bot.toml") && arg.is_file() {
        arg.parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_owned()
    } else {
        arg.to_owned()
    };
    if !folder.is_dir() {
        return Err(anyhow!("{}: not a folder", folder.display()));
    }
    match std::fs::symlink_metadata(folder.join("bot.toml")) {
        Ok(meta) if meta.is_file() => Ok(folder),
        _ => Err(anyhow!(
            "{}: no bot.toml in this folder; a bot is uploaded as its folder, with its manifest \
             bot.toml at the top (see protocol.md)",
            folder.display()
        )),
    }
}

/// `{base}/api/bots`, with `?name=` percent-encoded when a name is given (a `+` would be a
/// space otherwise).
fn endpoint(base: &str, name: Option<&str>) -> String {
    let mut url = format!("{base}/api/bots");
    if let Some(name) = name {
        url.push_str("?name=");
        for b in name.bytes() {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                url.push(char::from(b));
            } else {
                url.push_str(&format!("%{b:02X}"));
            }
        }
    }
    url
}

/// Sends the bundle; returns the status, `Retry-After` in seconds and the body (at most 1 MiB).
fn post(url: &str, token: &str, bundle: &[u8]) -> anyhow::Result<(u16, Option<u64>, String)> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        // A redirect is reported, not followed: the body and the token go only where asked.
        .max_redirects(0)
        .max_redirects_will_error(false)
        .timeout_connect(Some(Duration::from_secs(20)))
        .timeout_global(Some(Duration::from_secs(600)))
        .user_agent(concat!("pitboss/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let mut response = agent
        .post(url)
        .header("Authorization", format!("Bearer {token}"))
        .content_type("application/octet-stream")
        .send(bundle)
        .map_err(|e| anyhow!("cannot upload to {url}: {e}"))?;
    let status = response.status().as_u16();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim().to_owned())
    };
    let retry_after = header("retry-after").and_then(|v| v.parse().ok());
    if (300..400).contains(&status) {
        let to = header("location").unwrap_or_default();
        return Err(anyhow!(
            "{url}: the server redirects (HTTP {status}) to {}; give that address as --server",
            clean(&to)
        ));
    }
    let body = response
        .body_mut()
        .with_config()
        .limit(1 << 20)
        .read_to_string()
        .unwrap_or_else(|e| format!("(an unreadable answer: {e})"));
    Ok((status, retry_after, body))
}

/// The line to print for a success, or the refusal.
fn answer(
    base: &str,
    status: u16,
    retry_after: Option<u64>,
    body: &str,
) -> Result<String, Refused> {
    let json: Option<Value> = serde_json::from_str(body).ok();
    let field = |key: &str| json.as_ref().and_then(|j| j.get(key));
    if !(200..300).contains(&status) {
        let message = match field("error").and_then(Value::as_str) {
            Some(m) => clean(m),
            None if body.trim().is_empty() => "(no reason given)".into(),
            None => clean(body),
        };
        return Err(Refused {
            status,
            message,
            retry_after,
        });
    }
    let text = |key: &str| field(key).and_then(Value::as_str).map(clean);
    let (Some(bot), Some(version)) = (text("bot"), field("version").and_then(Value::as_u64)) else {
        return Ok(format!("uploaded (HTTP {status}): {}", clean(body)));
    };
    let state = match text("state").as_deref() {
        Some("pending") | None => "building and checking".to_owned(),
        Some(other) => format!("state {other}"),
    };
    let mut line = format!("uploaded {bot} version {version}: {state}");
    if let Some(url) = text("url") {
        let full = if url.starts_with('/') {
            format!("{base}{url}")
        } else {
            url
        };
        line.push_str(&format!("; follow it at {full}"));
    }
    Ok(line)
}

/// Server text for one line of a terminal: whitespace runs (newlines too) become one space, and
/// it is cut at [`MESSAGE_MAX`] characters (main escapes control characters).
fn clean(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(MESSAGE_MAX) {
        Some((cut, _)) => format!("{}…", &one_line[..cut]),
        None => one_line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_comes_from_the_flag_then_the_environment() {
        let env = |k: &str| (k == TOKEN_ENV).then(|| "from-env".to_owned());
        assert_eq!(token(Some("flag".into()), env).unwrap(), "flag");
        assert_eq!(token(None, env).unwrap(), "from-env");
        let err = token(None, |_| None).unwrap_err().to_string();
        assert!(err.contains(TOKEN_ENV), "{err}");
        let err = token(Some("a b\r\nX-Evil: 1".into()), env)
            .unwrap_err()
            .to_string();
        assert!(!err.contains("Evil"), "the token is not echoed: {err}");
    }

    #[test]
    fn urls_are_checked_and_names_encoded() {
        assert_eq!(base_url("https://x.org/").unwrap(), "https://x.org");
        assert!(base_url("x.org").is_err());
        assert!(base_url("ftp://x.org").is_err());
        assert!(base_url("http://x.org/?a=1").is_err());
        assert_eq!(
            endpoint("http://h", Some("a+b c")),
            "http://h/api/bots?name=a%2Bb%20c"
        );
        assert_eq!(endpoint("http://h", None), "http://h/api/bots");
        assert!(insecure("http://pitboss.example.org"));
        assert!(!insecure("http://127.0.0.1:8080") && !insecure("https://pitboss.example.org"));
    }

    #[test]
    fn answers_are_read_per_the_contract() {
        let ok = r#"{"bot":"mybot","version":3,"state":"pending","url":"/bots/mybot"}"#;
        assert_eq!(
            answer("https://h", 201, None, ok).unwrap(),
            "uploaded mybot version 3: building and checking; follow it at https://h/bots/mybot"
        );
        let quota = r#"{"error":"10 uploads a day"}"#;
        assert_eq!(
            answer("https://h", 429, Some(60), quota)
                .unwrap_err()
                .to_string(),
            "upload refused (HTTP 429): 10 uploads a day; retry in 60 s"
        );
        let page = "<html>\n\n  502 Bad Gateway\n</html>";
        assert_eq!(
            answer("https://h", 502, None, page)
                .unwrap_err()
                .to_string(),
            "upload refused (HTTP 502): <html> 502 Bad Gateway </html>"
        );
        assert!(clean(&"x".repeat(2000)).chars().count() <= MESSAGE_MAX + 1);
    }
}
