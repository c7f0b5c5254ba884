//! Who may drive `serve`. A page on another site, open in the same browser, can send requests to
//! 127.0.0.1 too: without these checks it could start games and searches (a simple cross-origin
//! POST), and a DNS-rebinding page could read the answers. So every request must name this
//! server in its `Host` (the loopback names and the bound address with the port, or a name given
//! with `--allow-host`); the API refuses a request a browser marks as coming from another origin
//! (`Origin`, `Sec-Fetch-Site`); and a POST must say its body is JSON, which a page on another
//! site cannot send without the browser asking first (a CORS preflight, never granted here).

use std::net::IpAddr;
use tiny_http::{Method, Request};

/// The request checks of one server.
pub struct Guard {
    /// Every `Host` value accepted, lower case, with its port (and without it on port 80).
    hosts: Vec<String>,
}

impl Guard {
    /// The checks of a server listening on `bind`:`port`, also reachable under `names` (each a
    /// host name, with or without its port).
    pub fn new(bind: IpAddr, port: u16, names: &[String]) -> Guard {
        let bound = match bind {
            IpAddr::V4(ip) => ip.to_string(),
            IpAddr::V6(ip) => format!("[{ip}]"),
        };
        let mut hosts = Vec::new();
        for name in ["127.0.0.1", "localhost", "[::1]", &bound]
            .into_iter()
            .chain(names.iter().map(String::as_str))
        {
            let name = name.to_ascii_lowercase();
            let has_port = name.rsplit_once(':').is_some_and(|(_, p)| p.parse::<u16>().is_ok())
                && !name.ends_with(']');
            if has_port {
                hosts.push(name);
            } else {
                hosts.push(format!("{name}:{port}"));
                if port == 80 {
                    hosts.push(name);
                }
            }
        }
        Guard { hosts }
    }

    /// Refuses `request` unless its `Host` names this server; for the API (anything but the
    /// page's own files), unless it comes from this server's own page or from no page at all
    /// (curl, scripts); for a POST, unless its body is declared JSON.
    pub fn check(&self, request: &Request, api: bool) -> Result<(), (u16, String)> {
        let header = |name: &'static str| {
            request
                .headers()
                .iter()
                .find(|h| h.field.equiv(name))
                .map(|h| h.value.as_str().trim().to_string())
        };
        let host = header("Host").unwrap_or_default();
        if !self.hosts.contains(&host.to_ascii_lowercase()) {
            return Err((
                421,
                format!(
                    "Host `{}` is not this server's address; start serve with --allow-host NAME to serve it under another name",
                    support::shown(&host)
                ),
            ));
        }
        if !api {
            return Ok(());
        }
        if let Some(origin) = header("Origin") {
            let own = origin
                .to_ascii_lowercase()
                .strip_prefix("http://")
                .is_some_and(|origin| self.hosts.iter().any(|h| h == origin));
            if !own {
                return Err((
                    403,
                    format!("requests from the page of `{}` are refused", support::shown(&origin)),
                ));
            }
        }
        if let Some(site) = header("Sec-Fetch-Site") {
            if !matches!(site.as_str(), "same-origin" | "none") {
                return Err((403, "requests from another site's page are refused".into()));
            }
        }
        if *request.method() == Method::Post {
            let json = header("Content-Type").is_some_and(|kind| {
                kind.split(';')
                    .next()
                    .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
            });
            if !json {
                return Err((415, "a POST must have Content-Type: application/json".into()));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loopback_names_the_bound_address_and_given_names_are_hosts() {
        let guard =
            Guard::new("127.0.0.1".parse().unwrap(), 8321, &["Board.lan".into(), "x:81".into()]);
        for host in ["127.0.0.1:8321", "localhost:8321", "[::1]:8321", "board.lan:8321", "x:81"] {
            assert!(guard.hosts.contains(&host.to_string()), "{host}: {:?}", guard.hosts);
        }
        assert!(!guard.hosts.iter().any(|h| h == "localhost" || h == "evil.example:8321"));
        let guard = Guard::new("::1".parse().unwrap(), 80, &[]);
        assert!(
            guard.hosts.contains(&"[::1]".to_string()) && guard.hosts.contains(&"localhost".into())
        );
    }
}
