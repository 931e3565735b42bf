//! Item 7 of the issue at the HTTP layer: every hostile string is text on every page, no seed
//! or secret in any answer, the security headers everywhere, CSRF tokens on every form, logs for
//! the owner only.

mod common;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use common::forms::*;
use common::*;

#[tokio::test]
async fn hostile_strings_are_text_on_every_page() {
    let w = world().await;
    let owner = log_in(&w, &w.alice).await;
    for uri in pages(&w) {
        for cookie in ["", owner.as_str()] {
            let a = get_with(&w.app, &uri, header::COOKIE, cookie).await;
            assert!(!a.body.contains(XSS), "{uri} holds the script unescaped");
            assert!(!a.body.contains("<script>"), "{uri}: an inline script");
        }
    }
    // And they are there, as text.
    let bot = get_with(&w.app, "/bots/alicebot", header::COOKIE, &owner)
        .await
        .body;
    assert!(bot.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    let m = get(&w.app, &format!("/matches/{}", w.match_id + 1))
        .await
        .body;
    assert!(m.contains("bot crashed: &lt;script&gt;"));
    let hand = get(&w.app, &format!("/matches/{}/hands/1", w.match_id))
        .await
        .body;
    assert!(
        hand.contains("\\u003cscript>alert(1)\\u003c/script>"),
        "the frames keep the name, escaped"
    );
    let home = get(&w.app, "/").await.body;
    assert!(
        home.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "the reference bot's name"
    );
    let who = get_with(&w.app, "/login", header::COOKIE, &owner)
        .await
        .body;
    assert!(
        who.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "the account's name"
    );
}

#[tokio::test]
async fn no_answer_holds_a_seed() {
    let w = world().await;
    let owner = log_in(&w, &w.alice).await;
    let seed = SEED.to_string();
    let mut uris = pages(&w);
    uris.extend(apis(&w));
    uris.push(format!("/matches/{}/hands.phhs", w.match_id));
    for uri in uris {
        let a = get_with(&w.app, &uri, header::COOKIE, &owner).await;
        assert!(
            a.status != StatusCode::INTERNAL_SERVER_ERROR,
            "{uri}: {}",
            a.body
        );
        assert!(!a.body.contains(&seed), "{uri} shows the seed");
        assert!(!a.body.contains("\"seed\""), "{uri} has a seed field");
    }
    // The service's secret is not served either.
    let secret = w.files.secret().unwrap();
    for uri in pages(&w).into_iter().chain(apis(&w)) {
        assert!(!get(&w.app, &uri).await.body.contains(&secret), "{uri}");
    }
}

#[tokio::test]
async fn every_answer_has_the_security_headers() {
    let w = world().await;
    let mut uris = pages(&w);
    uris.extend(apis(&w));
    uris.push("/assets/live.js".into());
    uris.push("/?token=x".into());
    for uri in uris {
        let a = get(&w.app, &uri).await;
        let h = |k: header::HeaderName| a.headers.get(k).map(|v| v.to_str().unwrap().to_string());
        let csp = h(header::CONTENT_SECURITY_POLICY).unwrap_or_default();
        assert!(
            csp.contains("default-src 'self'")
                && csp.contains("script-src 'self'")
                && !csp.contains("unsafe-inline"),
            "{uri}"
        );
        assert_eq!(
            h(header::X_CONTENT_TYPE_OPTIONS).as_deref(),
            Some("nosniff"),
            "{uri}"
        );
        assert_eq!(
            h(header::REFERRER_POLICY).as_deref(),
            Some("no-referrer"),
            "{uri}"
        );
        assert_eq!(h(header::X_FRAME_OPTIONS).as_deref(), Some("DENY"), "{uri}");
    }
}

#[tokio::test]
async fn forms_refuse_requests_without_their_csrf_token() {
    let w = world().await;
    // Login: no token, a wrong one, one made for another pre-session.
    let page = get(&w.app, "/login").await;
    let pre = set_cookie(&page, "pb_pre").unwrap();
    let csrf = csrf_of(&page.body);
    for (cookie, body) in [
        (pre.clone(), format!("token={}", w.alice)),
        (
            pre.clone(),
            format!("csrf={}&token={}", "0".repeat(64), w.alice),
        ),
        (
            "pb_pre=00000000000000000000000000000000".to_string(),
            format!("csrf={csrf}&token={}", w.alice),
        ),
        (String::new(), format!("csrf={csrf}&token={}", w.alice)),
    ] {
        let a = send(&w.app, form("/login", &cookie, body)).await;
        assert_eq!(a.status, StatusCode::FORBIDDEN, "{cookie}");
        assert!(set_cookie(&a, "pb_session").is_none());
    }
    // A wrong token with a good form: 401, and the token is not echoed.
    let a = send(
        &w.app,
        form("/login", &pre, format!("csrf={csrf}&token=pb_not_a_token")),
    )
    .await;
    assert_eq!(a.status, StatusCode::UNAUTHORIZED);
    assert!(!a.body.contains("pb_not_a_token"));

    // Upload: logged in, but without the form's field (another site's form).
    let session = log_in(&w, &w.bob).await;
    let upload_page = get_with(&w.app, "/upload", header::COOKIE, &session).await;
    assert_eq!(upload_page.status, StatusCode::OK);
    let token = csrf_of(&upload_page.body);
    let rows = w.store.versions().await.unwrap().len();
    for csrf in [None, Some("f".repeat(64))] {
        let (ct, body) = multipart(csrf.as_deref(), Some("formbot"), &bundle(None));
        let a = send(
            &w.app,
            Request::post("/upload")
                .header(header::COOKIE, &session)
                .header(header::CONTENT_TYPE, ct)
                .body(Body::from(body))
                .unwrap(),
        )
        .await;
        assert_eq!(a.status, StatusCode::FORBIDDEN, "{}", a.body);
    }
    assert_eq!(w.store.versions().await.unwrap().len(), rows);
    // Without a session: 401; with the field: the version is made and the browser sent to it.
    let (ct, body) = multipart(Some(&token), Some("formbot"), &bundle(None));
    let a = send(
        &w.app,
        Request::post("/upload")
            .header(header::CONTENT_TYPE, ct.clone())
            .body(Body::from(body.clone()))
            .unwrap(),
    )
    .await;
    assert_eq!(a.status, StatusCode::UNAUTHORIZED);
    let a = send(
        &w.app,
        Request::post("/upload")
            .header(header::COOKIE, &session)
            .header(header::CONTENT_TYPE, ct)
            .body(Body::from(body))
            .unwrap(),
    )
    .await;
    assert_eq!(a.status, StatusCode::SEE_OTHER, "{}", a.body);
    assert_eq!(a.headers[header::LOCATION], "/bots/formbot");
    assert_eq!(w.store.versions().await.unwrap().len(), rows + 1);
    let page = get(&w.app, "/bots/formbot").await;
    assert!(
        page.body.contains("formbot.v1") && page.body.contains("pending"),
        "{}",
        page.body
    );

    // Logout needs the field too.
    let a = send(&w.app, form("/logout", &session, String::new())).await;
    assert_eq!(a.status, StatusCode::FORBIDDEN);
    let a = send(&w.app, form("/logout", &session, format!("csrf={token}"))).await;
    assert_eq!(a.status, StatusCode::SEE_OTHER);
    assert_eq!(set_cookie(&a, "pb_session").as_deref(), Some("pb_session="));
}

#[tokio::test]
async fn logs_are_for_the_owner_only() {
    let w = world().await;
    let secret_log = "secret-build-log";
    let owner = log_in(&w, &w.alice).await;
    let other = log_in(&w, &w.bob).await;
    assert!(get_with(&w.app, "/bots/alicebot", header::COOKIE, &owner)
        .await
        .body
        .contains(secret_log));
    for cookie in ["", other.as_str(), "pb_session=1.99999999999999.deadbeef"] {
        let a = get_with(&w.app, "/bots/alicebot", header::COOKIE, cookie).await;
        assert!(!a.body.contains(secret_log), "{cookie}");
    }
    assert!(!get(&w.app, "/api/bots/alicebot")
        .await
        .body
        .contains(secret_log));
    let log = |t: Option<String>| {
        let mut r = Request::get("/api/bots/alicebot/versions/1/log");
        if let Some(t) = t {
            r = r.header(header::AUTHORIZATION, format!("Bearer {t}"));
        }
        r.body(Body::empty()).unwrap()
    };
    let a = send(&w.app, log(Some(w.alice.clone()))).await;
    assert_eq!(a.status, StatusCode::OK);
    assert!(a.json()["log"].as_str().unwrap().contains(secret_log));
    let a = send(&w.app, log(Some(w.bob.clone()))).await;
    assert_eq!(a.status, StatusCode::FORBIDDEN);
    assert!(!a.body.contains(secret_log));
    assert_eq!(
        send(&w.app, log(None)).await.status,
        StatusCode::UNAUTHORIZED
    );
    // The API never takes the cookie.
    let a = send(
        &w.app,
        Request::get("/api/bots/alicebot/versions/1/log")
            .header(header::COOKIE, &owner)
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(a.status, StatusCode::UNAUTHORIZED);
    // A revoked account's cookie opens nothing.
    w.store.revoke_account(XSS).await.unwrap();
    assert!(!get_with(&w.app, "/bots/alicebot", header::COOKIE, &owner)
        .await
        .body
        .contains(secret_log));
}
