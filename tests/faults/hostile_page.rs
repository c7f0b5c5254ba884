//! `serve` against a page on another site, open in the same browser (issue 47): it could create
//! games with any player and start their searches (a simple cross-origin POST, then a GET of the
//! think stream), a DNS-rebinding page could read the answers, and the errors of a player named
//! by path told the page what files held. Each request here is sent by a real HTTP client with
//! the headers such a page's browser would send.

use crate::serve::{json_of, start, Server};
use std::io::{Read, Write};

/// Sends `method path` with `headers` and `body` as they are; the status and the body.
fn send(
    server: &Server,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let mut stream = std::net::TcpStream::connect(&server.address).unwrap();
    let mut text = format!(
        "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    stream.write_all(format!("{text}\r\n{body}").as_bytes()).unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    let status = reply.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap();
    let body = reply.split_once("\r\n\r\n").map_or("", |(_, body)| body).to_string();
    (status, body)
}

#[test]
fn a_page_on_another_site_can_neither_start_games_nor_read_them() {
    let server = start(&["--player", "alphabeta:1"]);
    let host = server.address.clone();
    let json = ("Content-Type", "application/json");
    let game = r#"{"player":"alphabeta:3600s","human":"white"}"#;
    // The issue's repro: a cross-origin simple POST (text/plain) answered 201.
    let evil = [
        ("Host", host.as_str()),
        ("Origin", "http://evil.example"),
        ("Content-Type", "text/plain"),
    ];
    let (status, body) = send(&server, "POST", "/api/games", &evil, game);
    assert_eq!(status, 403, "{body}");
    // The same with JSON declared (a browser would ask first; curl may not): still refused.
    let evil = [("Host", host.as_str()), ("Origin", "http://evil.example"), json];
    assert_eq!(send(&server, "POST", "/api/games", &evil, "{}").0, 403);
    let fetched = [("Host", host.as_str()), ("Sec-Fetch-Site", "cross-site"), json];
    assert_eq!(send(&server, "POST", "/api/games", &fetched, "{}").0, 403);
    // No Origin but not JSON (a form post): refused.
    let form = [("Host", host.as_str()), ("Content-Type", "application/x-www-form-urlencoded")];
    assert_eq!(send(&server, "POST", "/api/games", &form, "{}").0, 415);
    // DNS rebinding: the page's own name in Host, for the page itself and the API.
    let rebound = [("Host", "evil.example:8321")];
    let (status, body) = send(&server, "GET", "/", &rebound, "");
    assert_eq!(status, 421, "{body}");
    assert!(body.contains("--allow-host"), "{body}");
    assert_eq!(send(&server, "GET", "/api/games/1", &rebound, "").0, 421);
    assert_eq!(send(&server, "GET", "/", &[], "").0, 421, "no Host at all");

    // The server's own page: same origin, JSON. Its game ids are 128 random bits.
    let own = format!("http://{host}");
    let page = [
        ("Host", host.as_str()),
        ("Origin", own.as_str()),
        ("Sec-Fetch-Site", "same-origin"),
        json,
    ];
    let (status, body) = send(&server, "POST", "/api/games", &page, "{}");
    let first = json_of(status, &body, 201)["id"].as_str().unwrap().to_string();
    let (status, body) = send(&server, "POST", "/api/games", &page, "{}");
    let second = json_of(status, &body, 201)["id"].as_str().unwrap().to_string();
    for id in [&first, &second] {
        assert!(id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
    }
    assert_ne!(first, second);
    let localhost = format!("localhost:{}", host.rsplit_once(':').unwrap().1);
    let (status, _) =
        send(&server, "GET", &format!("/api/games/{first}"), &[("Host", &localhost)], "");
    assert_eq!(status, 200);
    // A page elsewhere cannot read a game even with its id.
    let reader = [("Host", host.as_str()), ("Origin", "http://evil.example")];
    assert_eq!(send(&server, "GET", &format!("/api/games/{first}"), &reader, "").0, 403);
}

#[test]
fn a_page_starts_only_the_built_in_engines_and_the_servers_own_players() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(&["--player", "alphabeta:1", "--page-player", "random"]);
    let secret = dir.path().join("secret.txt");
    std::fs::write(&secret, "TOPSECRETCONTENTS").unwrap();
    let ask = |player: &str| {
        let body = serde_json::json!({ "player": player }).to_string();
        crate::helpers::http(&server.address, "POST", "/api/games", Some(&body))
    };
    for allowed in ["alphabeta:1", "random", "alphabeta:4", "alphabeta:2s"] {
        let (status, body) = ask(allowed);
        assert_eq!(status, 201, "{allowed}: {body}");
    }
    // Nets by path, whatever is at the path, get the same answer, which quotes nothing read.
    let answers: Vec<String> = [
        format!("mcts:{}", secret.display()),
        format!("mcts:{}", dir.path().display()),
        format!("mcts:{}", dir.path().join("missing").display()),
        "mcts:/etc/shadow".to_string(),
        format!("alphabeta:1,net={}", secret.display()),
        format!("policy:{}", secret.display()),
        "alphabeta:17".into(),
        "alphabeta:3600s".into(),
    ]
    .iter()
    .map(|player| {
        let (status, body) = ask(player);
        assert_eq!(status, 400, "{player}: {body}");
        assert!(!body.contains("TOPSECRET") && !body.contains("header"), "{player}: {body}");
        assert!(body.contains("--page-player"), "{player}: {body}");
        body.replace(player.as_str(), "PLAYER")
    })
    .collect();
    assert!(answers.windows(2).all(|w| w[0] == w[1]), "{answers:#?}");
}
