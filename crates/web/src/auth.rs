//! Who is asking: an API token (`Authorization: Bearer`, the API's only way in) or a login
//! cookie (the pages' way in, made by `/login` from a token), and the CSRF tokens of the forms.
//!
//! The cookie holds no token: it is `ACCOUNT.EXPIRY.MAC`, an HMAC-SHA256 under a key derived
//! from the service's secret, so a copy of the database cannot forge one and a restart keeps
//! people logged in; every use looks the account up again, so revoking its token also closes its
//! sessions. A form's CSRF token is an HMAC of the cookie it goes with (for the login form, of
//! a random pre-session cookie): another site can make a browser send the cookie, but cannot read
//! the page that holds the token.

use axum::http::{header, HeaderMap, HeaderValue};
use hmac::{Hmac, Mac};
use pitboss_store::{now_ms, Account, Files};
use sha2::{Digest, Sha256};

use crate::ctx::Ctx;
use crate::error::WebError;

/// The login cookie.
pub const SESSION: &str = "pb_session";
/// The cookie the login form's CSRF token is bound to (before anyone is logged in).
pub const PRE: &str = "pb_pre";
/// How long a login lasts.
const SESSION_MS: i64 = 7 * 24 * 3600 * 1000;

type HmacSha256 = Hmac<Sha256>;

/// The key of the cookies' and forms' MACs.
pub struct Keys {
    key: [u8; 32],
}

impl Keys {
    /// Derived from the service's secret (so sessions survive a restart); a random key when the
    /// secret cannot be read (sessions then end with the process).
    pub fn from_files(files: &Files) -> Keys {
        let mut h = Sha256::new();
        h.update(b"pitboss web sessions\0");
        match files.secret() {
            Ok(s) => h.update(s.as_bytes()),
            Err(e) => {
                tracing::warn!("web: no service secret ({e}); sessions end with this process");
                h.update(random_hex(32).as_bytes());
            }
        }
        Keys {
            key: h.finalize().into(),
        }
    }

    fn mac(&self, msg: &str) -> HmacSha256 {
        let mut m = HmacSha256::new_from_slice(&self.key).expect("HMAC takes any key length");
        m.update(msg.as_bytes());
        m
    }

    fn sign(&self, msg: &str) -> String {
        hex::encode(self.mac(msg).finalize().into_bytes())
    }

    /// Whether `tag` (hex) is the MAC of `msg`, compared in constant time.
    fn check(&self, msg: &str, tag: &str) -> bool {
        match hex::decode(tag) {
            Ok(t) => self.mac(msg).verify_slice(&t).is_ok(),
            Err(_) => false,
        }
    }

    /// A login cookie's value for `account`.
    pub fn session(&self, account: i64) -> String {
        let exp = now_ms() + SESSION_MS;
        let body = format!("{account}.{exp}");
        let tag = self.sign(&format!("session:{body}"));
        format!("{body}.{tag}")
    }

    /// The account a login cookie's value names, if it is ours and not expired.
    pub fn verify_session(&self, value: &str) -> Option<i64> {
        let mut parts = value.splitn(3, '.');
        let (id, exp, tag) = (parts.next()?, parts.next()?, parts.next()?);
        let (account, exp): (i64, i64) = (id.parse().ok()?, exp.parse().ok()?);
        (exp > now_ms() && self.check(&format!("session:{id}.{exp}"), tag)).then_some(account)
    }

    /// The CSRF token of the forms shown with cookie value `cookie` (a session or pre-session).
    pub fn csrf(&self, cookie: &str) -> String {
        self.sign(&format!("csrf:{cookie}"))
    }

    pub fn verify_csrf(&self, cookie: &str, token: &str) -> bool {
        !cookie.is_empty() && self.check(&format!("csrf:{cookie}"), token)
    }
}

/// `n` random bytes in hex.
pub fn random_hex(n: usize) -> String {
    let mut b = vec![0u8; n];
    getrandom::getrandom(&mut b).expect("the operating system's random source");
    hex::encode(b)
}

/// The value of cookie `name`.
pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

/// A `Set-Cookie` value: never readable by scripts, never sent by another site's request.
pub fn set_cookie(name: &str, value: &str, max_age_s: i64) -> HeaderValue {
    HeaderValue::from_str(&format!(
        "{name}={value}; HttpOnly; SameSite=Strict; Path=/; Max-Age={max_age_s}"
    ))
    .expect("cookie values are hex, digits and dots")
}

pub fn session_cookie(keys: &Keys, account: i64) -> HeaderValue {
    set_cookie(SESSION, &keys.session(account), SESSION_MS / 1000)
}

/// The logged-in account of a page request and its cookie value (for the forms' CSRF tokens).
///
/// # Errors
/// On a database failure.
pub async fn session(
    ctx: &Ctx,
    headers: &HeaderMap,
) -> Result<Option<(Account, String)>, WebError> {
    let Some(value) = cookie(headers, SESSION) else {
        return Ok(None);
    };
    let Some(id) = ctx.keys.verify_session(&value) else {
        return Ok(None);
    };
    Ok(ctx.app.store.account_by_id(id).await?.map(|a| (a, value)))
}

/// The account of an API request's `Authorization: Bearer TOKEN` (cookies are never looked at).
///
/// # Errors
/// 401 without the header or with a token that opens nothing.
pub async fn bearer(ctx: &Ctx, headers: &HeaderMap) -> Result<Account, WebError> {
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| {
            WebError::Unauthorized("an `Authorization: Bearer TOKEN` header is needed".into())
        })?;
    login(ctx, token).await
}

/// The live account of a token.
///
/// # Errors
/// 401 when the token opens nothing (the token is never repeated back).
pub async fn login(ctx: &Ctx, token: &str) -> Result<Account, WebError> {
    ctx.app
        .store
        .account_by_token(token)
        .await?
        .ok_or_else(|| WebError::Unauthorized("unknown or revoked token".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> Keys {
        Keys { key: [7; 32] }
    }

    #[test]
    fn sessions_verify_and_refuse_tampering() {
        let k = keys();
        let v = k.session(42);
        assert_eq!(k.verify_session(&v), Some(42));
        let forged = v.replacen("42.", "43.", 1);
        assert_eq!(k.verify_session(&forged), None);
        assert_eq!(Keys { key: [8; 32] }.verify_session(&v), None);
        let expired = format!("42.1.{}", k.sign("session:42.1"));
        assert_eq!(k.verify_session(&expired), None);
        assert_eq!(k.verify_session("garbage"), None);
    }

    #[test]
    fn csrf_is_bound_to_the_cookie() {
        let k = keys();
        let t = k.csrf("abc");
        assert!(k.verify_csrf("abc", &t));
        assert!(!k.verify_csrf("abd", &t));
        assert!(!k.verify_csrf("", &k.csrf("")));
        assert!(!k.verify_csrf("abc", "zz"));
    }

    #[test]
    fn cookies_are_found_among_others() {
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("a=1; pb_session=x.y.z; b=2"),
        );
        assert_eq!(cookie(&h, SESSION).as_deref(), Some("x.y.z"));
        assert_eq!(cookie(&h, PRE), None);
    }
}
