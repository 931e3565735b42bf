//! The forms: `/login` (a token becomes a login cookie), `/logout`, and `/upload` (a bot folder
//! as an archive, with an optional name). Every POST carries a CSRF token (the hidden `csrf`
//! field) derived from the cookie it goes with, checked before anything else is done; the login
//! cookie is `HttpOnly; SameSite=Strict`. The token is posted in the body, never in a URL.

use std::sync::Arc;

use axum::extract::{Multipart, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::Form;
use maud::{html, Markup};
use serde::Deserialize;

use super::layout;
use crate::auth::{self, cookie, random_hex, set_cookie, PRE, SESSION};
use crate::ctx::Ctx;
use crate::error::{PageError, WebError};
use crate::upload;

fn csrf_refused() -> WebError {
    WebError::Forbidden(
        "the form's CSRF token is missing or wrong: reload the page and send it again".into(),
    )
}

fn csrf_field(token: &str) -> Markup {
    html! { input type="hidden" name="csrf" value=(token); }
}

fn logout_form(ctx: &Ctx, session: &str) -> Markup {
    html! {
        form.inline method="post" action="/logout" {
            (csrf_field(&ctx.keys.csrf(session)))
            button #logout type="submit" { "Log out" }
        }
    }
}

/// `GET /login`.
pub async fn login_page(
    State(ctx): State<Arc<Ctx>>,
    headers: HeaderMap,
) -> Result<Response, PageError> {
    if let Some((a, s)) = auth::session(&ctx, &headers).await? {
        let body = html! {
            h1 { "Logged in" }
            p { "You are logged in as " strong #account { (a.name) } ". " a href="/upload" { "Upload a bot" } }
            (logout_form(&ctx, &s))
        };
        return Ok(layout("Logged in", body).into_response());
    }
    let pre = cookie(&headers, PRE)
        .filter(|v| v.len() == 32 && v.bytes().all(|b| b.is_ascii_hexdigit()))
        .unwrap_or_else(|| random_hex(16));
    let body = html! {
        h1 { "Log in" }
        p { "Paste the API token that " code { "pitboss token create NAME" } " printed. It is sent once, "
            "in this form's body; the server keeps a login cookie that holds no token." }
        form.box #login method="post" action="/login" autocomplete="off" {
            (csrf_field(&ctx.keys.csrf(&pre)))
            label { "Token" input #token type="password" name="token" required; }
            button type="submit" { "Log in" }
        }
    };
    let mut r = layout("Log in", body).into_response();
    r.headers_mut()
        .append(header::SET_COOKIE, set_cookie(PRE, &pre, 3600));
    Ok(r)
}

#[derive(Deserialize)]
pub struct LoginForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    token: String,
}

/// `POST /login`.
pub async fn login(
    State(ctx): State<Arc<Ctx>>,
    headers: HeaderMap,
    Form(f): Form<LoginForm>,
) -> Result<Response, PageError> {
    let pre = cookie(&headers, PRE).unwrap_or_default();
    if !ctx.keys.verify_csrf(&pre, &f.csrf) {
        return Err(csrf_refused().into());
    }
    let account = auth::login(&ctx, f.token.trim()).await?;
    let mut r = Redirect::to("/upload").into_response();
    let h = r.headers_mut();
    h.append(
        header::SET_COOKIE,
        auth::session_cookie(&ctx.keys, account.id),
    );
    h.append(header::SET_COOKIE, set_cookie(PRE, "", 0));
    Ok(r)
}

#[derive(Deserialize)]
pub struct CsrfForm {
    #[serde(default)]
    csrf: String,
}

/// `POST /logout`.
pub async fn logout(
    State(ctx): State<Arc<Ctx>>,
    headers: HeaderMap,
    Form(f): Form<CsrfForm>,
) -> Result<Response, PageError> {
    let s = cookie(&headers, SESSION).unwrap_or_default();
    if !ctx.keys.verify_csrf(&s, &f.csrf) {
        return Err(csrf_refused().into());
    }
    let mut r = Redirect::to("/").into_response();
    r.headers_mut()
        .append(header::SET_COOKIE, set_cookie(SESSION, "", 0));
    Ok(r)
}

/// `GET /upload`.
pub async fn upload_page(
    State(ctx): State<Arc<Ctx>>,
    headers: HeaderMap,
) -> Result<Response, PageError> {
    let Some((a, s)) = auth::session(&ctx, &headers).await? else {
        return Ok(Redirect::to("/login").into_response());
    };
    let (used, _) = ctx
        .app
        .store
        .uploads_since(a.id, pitboss_store::now_ms() - 3_600_000)
        .await?;
    let body = html! {
        h1 { "Upload a bot" }
        p { "Logged in as " strong #account { (a.name) } ". " (logout_form(&ctx, &s)) }
        p.muted {
            "Pack your bot's folder (with its " code { "bot.toml" } " at the root) as a tar, tar.gz, "
            "tar.zst or zip archive, at most " (upload::limit(&ctx, &a)) " bytes. "
            "Uploads this hour: " (used) " of " (a.uploads_per_hour) ". "
            "Each upload of a name is a new version: built and checked, then on the ladder."
        }
        form.box #upload method="post" action="/upload" enctype="multipart/form-data" {
            (csrf_field(&ctx.keys.csrf(&s)))
            label { "Name (optional: the manifest's name otherwise)"
                input #name type="text" name="name" maxlength="64" pattern="[A-Za-z0-9_][A-Za-z0-9_.+\\-]{0,63}"; }
            label { "Archive" input #bundle type="file" name="bundle" required; }
            button type="submit" { "Upload" }
        }
    };
    Ok(layout("Upload", body).into_response())
}

/// `POST /upload` (multipart: `csrf`, then `name`, then `bundle`).
pub async fn upload(
    State(ctx): State<Arc<Ctx>>,
    headers: HeaderMap,
    mut form: Multipart,
) -> Result<Response, PageError> {
    let Some((account, session)) = auth::session(&ctx, &headers).await? else {
        return Err(WebError::Unauthorized("log in first (with your token)".into()).into());
    };
    let bad = |e: axum::extract::multipart::MultipartError| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            WebError::TooLarge("the upload is larger than the limit".into())
        } else {
            WebError::BadRequest(format!("the form: {e}"))
        }
    };
    let limit = upload::limit(&ctx, &account);
    let (mut csrf_ok, mut name, mut bytes) = (false, None, None);
    while let Some(mut field) = form.next_field().await.map_err(bad)? {
        match field.name() {
            Some("csrf") => {
                let t = field.text().await.map_err(bad)?;
                csrf_ok = ctx.keys.verify_csrf(&session, &t);
            }
            Some("name") => name = Some(field.text().await.map_err(bad)?),
            Some("bundle") => {
                // The token comes first in the form: nothing is read, counted or unpacked for a
                // request another site made.
                if !csrf_ok {
                    return Err(csrf_refused().into());
                }
                upload::check_quota(&ctx, &account).await?;
                let mut buf = Vec::new();
                while let Some(chunk) = field.chunk().await.map_err(bad)? {
                    upload::push_limited(&mut buf, &chunk, limit)?;
                }
                bytes = Some(buf);
            }
            _ => {}
        }
    }
    if !csrf_ok {
        return Err(csrf_refused().into());
    }
    let bytes = bytes.ok_or_else(|| WebError::BadRequest("no archive in the form".into()))?;
    let created = upload::accept(&ctx, &account, name, bytes).await?;
    Ok(Redirect::to(&created.url).into_response())
}
