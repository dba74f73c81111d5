//! DNS-rebinding protection: which `Host` and `Origin` headers a request may carry. Checked
//! before anything else, authentication included.
//!
//! 1. The `Host` header (or, without one, the request's authority) must name an allowed host.
//!    An entry `host` allows that host on any port; `host:port` only on that port. Names compare
//!    ignoring case; IPv6 addresses are written without brackets (`::1`) or with a port in
//!    brackets (`[::1]:8931`).
//! 2. A request without an `Origin` header (any client that is not a browser) passes. With
//!    one, when origins are listed, it must equal one of them: `scheme://host[:port]`, the port
//!    defaulting to the scheme's (80, 443), `:*` for any port, or `null`. When none are listed,
//!    the origin's host must be one of the allowed hosts (so a page on another site is
//!    refused, and a local page is not).

use http::HeaderMap;
use http::uri::Authority;

use super::EndpointError;

/// The allowed hosts and origins, parsed.
#[derive(Debug, Clone)]
pub(crate) struct Guard {
    hosts: Vec<AllowedHost>,
    origins: Vec<AllowedOrigin>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct AllowedHost {
    host: String,
    port: Option<u16>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum AllowedOrigin {
    Null,
    Site {
        scheme: String,
        host: String,
        /// `None`: any port.
        port: Option<u16>,
    },
}

/// Why a request is refused before authentication.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// No `Host` header and no authority, or one that is not an authority.
    NoHost,
    /// The host is not allowed.
    Host,
    /// The origin is not allowed (or not an origin).
    Origin,
}

impl Refusal {
    pub(crate) fn message(self) -> &'static str {
        match self {
            Refusal::NoHost => "the request has no valid Host header",
            Refusal::Host => {
                "the Host header names a host this server does not answer for; the server's \
                 allowed hosts list the names it is reached by"
            }
            Refusal::Origin => {
                "the Origin header names a site this server does not answer; the server's \
                 allowed origins list the sites that may call it from a browser"
            }
        }
    }
}

impl Guard {
    /// Parses the lists.
    ///
    /// # Errors
    ///
    /// [`EndpointError::InvalidHost`] or [`EndpointError::InvalidOrigin`] naming the first
    /// entry that cannot be parsed.
    pub(crate) fn new(hosts: &[String], origins: &[String]) -> Result<Self, EndpointError> {
        let hosts = hosts
            .iter()
            .map(|entry| parse_host(entry).ok_or_else(|| EndpointError::InvalidHost(entry.clone())))
            .collect::<Result<_, _>>()?;
        let origins = origins
            .iter()
            .map(|entry| {
                parse_origin(entry, true).ok_or_else(|| EndpointError::InvalidOrigin(entry.clone()))
            })
            .collect::<Result<_, _>>()?;
        Ok(Guard { hosts, origins })
    }

    /// Checks a request's `Host` and `Origin` headers.
    pub(crate) fn check(&self, uri: &http::Uri, headers: &HeaderMap) -> Result<(), Refusal> {
        let host = match headers
            .get_all(http::header::HOST)
            .iter()
            .collect::<Vec<_>>()[..]
        {
            [] => uri.authority().cloned().ok_or(Refusal::NoHost)?,
            [one] => one
                .to_str()
                .ok()
                .and_then(|text| Authority::try_from(text).ok())
                .ok_or(Refusal::NoHost)?,
            _ => return Err(Refusal::NoHost),
        };
        // Only `host[:port]`: no user information, and a port that is one.
        if host.as_str().contains('@') || !port_is_valid(host.as_str()) {
            return Err(Refusal::NoHost);
        }
        // An absolute-form target names the host too (RFC 9112 section 3.2.2): both must agree.
        if let Some(target) = uri.authority()
            && (normalize(target.host()) != normalize(host.host())
                || target.port_u16() != host.port_u16())
        {
            return Err(Refusal::Host);
        }
        let (name, port) = (normalize(host.host()), host.port_u16());
        if !self.hosts.iter().any(|allowed| {
            allowed.host == name && allowed.port.is_none_or(|allowed| Some(allowed) == port)
        }) {
            return Err(Refusal::Host);
        }
        let origins: Vec<_> = headers.get_all(http::header::ORIGIN).iter().collect();
        let origin = match origins[..] {
            [] => return Ok(()),
            [one] => one
                .to_str()
                .ok()
                .and_then(|text| parse_origin(text, false))
                .ok_or(Refusal::Origin)?,
            _ => return Err(Refusal::Origin),
        };
        let allowed = if self.origins.is_empty() {
            // A web page of an allowed host: over HTTP(S), and on its port when one is given.
            match &origin {
                AllowedOrigin::Null => false,
                AllowedOrigin::Site { scheme, host, port } => {
                    matches!(scheme.as_str(), "http" | "https")
                        && self.hosts.iter().any(|allowed| {
                            &allowed.host == host
                                && allowed.port.is_none_or(|allowed| Some(allowed) == *port)
                        })
                }
            }
        } else {
            self.origins
                .iter()
                .any(|allowed| origin_matches(allowed, &origin))
        };
        if allowed {
            Ok(())
        } else {
            Err(Refusal::Origin)
        }
    }
}

fn normalize(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
}

/// `host`, `host:port`, `::1` or `[::1]:port`.
fn parse_host(entry: &str) -> Option<AllowedHost> {
    let entry = entry.trim();
    if entry.is_empty() || entry.contains(['/', '@', ' ']) {
        return None;
    }
    if let Ok(authority) = Authority::try_from(entry) {
        return Some(AllowedHost {
            host: normalize(authority.host()),
            port: authority.port_u16(),
        });
    }
    // A bare IPv6 address is not an authority: it is the host itself.
    entry
        .parse::<std::net::Ipv6Addr>()
        .ok()
        .map(|address| AllowedHost {
            host: address.to_string(),
            port: None,
        })
}

/// `scheme://host[:port]` or `null`; `:*` (any port) only in the configuration (`wildcard`).
/// Whether an authority's port, if it has one, is a port number (not empty, not over 65535).
fn port_is_valid(authority: &str) -> bool {
    let after_host = match authority.rfind(']') {
        Some(end) => &authority[end + 1..],
        None => authority,
    };
    match after_host.rsplit_once(':') {
        Some((_, port)) => port.parse::<u16>().is_ok(),
        None => true,
    }
}

fn parse_origin(text: &str, wildcard: bool) -> Option<AllowedOrigin> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("null") {
        return Some(AllowedOrigin::Null);
    }
    let (scheme, rest) = text.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let (rest, any_port) = match rest.strip_suffix(":*") {
        Some(rest) if wildcard => (rest, true),
        Some(_) => return None,
        None => (rest, false),
    };
    if rest.contains(['/', '?', '#', '@']) {
        return None;
    }
    let authority = Authority::try_from(rest).ok()?;
    let default_port = match scheme.as_str() {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    };
    let port = match (any_port, authority.port_u16()) {
        (true, _) => None,
        (false, Some(port)) => Some(port),
        (false, None) => Some(default_port?),
    };
    Some(AllowedOrigin::Site {
        scheme,
        host: normalize(authority.host()),
        port,
    })
}

fn origin_matches(allowed: &AllowedOrigin, origin: &AllowedOrigin) -> bool {
    match (allowed, origin) {
        (AllowedOrigin::Null, AllowedOrigin::Null) => true,
        (
            AllowedOrigin::Site { scheme, host, port },
            AllowedOrigin::Site {
                scheme: other_scheme,
                host: other_host,
                port: other_port,
            },
        ) => {
            scheme == other_scheme
                && host == other_host
                && port.is_none_or(|port| Some(port) == *other_port)
        }
        _ => false,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]
mod tests {
    use super::*;

    fn guard(hosts: &[&str], origins: &[&str]) -> Guard {
        let owned = |list: &[&str]| {
            list.iter()
                .map(|entry| (*entry).to_owned())
                .collect::<Vec<_>>()
        };
        Guard::new(&owned(hosts), &owned(origins)).unwrap()
    }

    fn check(guard: &Guard, host: Option<&str>, origin: Option<&str>) -> Result<(), Refusal> {
        let mut headers = HeaderMap::new();
        if let Some(host) = host {
            headers.insert(http::header::HOST, host.parse().unwrap());
        }
        if let Some(origin) = origin {
            headers.insert(http::header::ORIGIN, origin.parse().unwrap());
        }
        guard.check(&http::Uri::from_static("/mcp"), &headers)
    }

    #[test]
    fn hosts_match_by_name_and_port_when_one_is_given() {
        let guard = guard(
            &["localhost", "127.0.0.1:8931", "::1", "Skills.Example.com"],
            &[],
        );
        for host in [
            "localhost",
            "localhost:1234",
            "LOCALHOST:8931",
            "127.0.0.1:8931",
            "[::1]:80",
            "skills.example.com",
        ] {
            assert_eq!(check(&guard, Some(host), None), Ok(()), "{host}");
        }
        for host in [
            "127.0.0.1",
            "127.0.0.1:8932",
            "evil.example",
            "localhost.evil.example",
            "[::2]:80",
        ] {
            assert_eq!(
                check(&guard, Some(host), None),
                Err(Refusal::Host),
                "{host}"
            );
        }
        assert_eq!(check(&guard, None, None), Err(Refusal::NoHost));
        assert_eq!(check(&guard, Some("a b"), None), Err(Refusal::NoHost));
        for host in ["x@localhost", "localhost:99999", "127.0.0.1:"] {
            assert_eq!(
                check(&guard, Some(host), None),
                Err(Refusal::NoHost),
                "{host}"
            );
        }
    }

    #[test]
    fn an_absolute_form_target_must_name_the_same_host() {
        let guard = guard(&["localhost"], &[]);
        let mut headers = HeaderMap::new();
        headers.insert(http::header::HOST, "localhost".parse().unwrap());
        let evil = http::Uri::from_static("http://evil.example/mcp");
        assert_eq!(guard.check(&evil, &headers), Err(Refusal::Host));
        let same = http::Uri::from_static("http://localhost/mcp");
        assert_eq!(guard.check(&same, &headers), Ok(()));
    }

    #[test]
    fn without_listed_origins_an_origin_must_be_on_an_allowed_host() {
        let guard = guard(&["localhost"], &[]);
        for origin in ["http://localhost:5173", "https://localhost"] {
            assert_eq!(
                check(&guard, Some("localhost"), Some(origin)),
                Ok(()),
                "{origin}"
            );
        }
        for origin in [
            "http://evil.example",
            "null",
            "localhost",
            "http://localhost.evil.example",
            "foo://localhost:1",
        ] {
            assert_eq!(
                check(&guard, Some("localhost"), Some(origin)),
                Err(Refusal::Origin),
                "{origin}"
            );
        }
    }

    #[test]
    fn without_listed_origins_a_host_with_a_port_allows_that_port_only() {
        let guard = guard(&["127.0.0.1:8931"], &[]);
        assert_eq!(
            check(
                &guard,
                Some("127.0.0.1:8931"),
                Some("http://127.0.0.1:8931")
            ),
            Ok(())
        );
        assert_eq!(
            check(
                &guard,
                Some("127.0.0.1:8931"),
                Some("http://127.0.0.1:6666")
            ),
            Err(Refusal::Origin)
        );
    }

    #[test]
    fn listed_origins_match_scheme_host_and_port() {
        let guard = guard(
            &["localhost"],
            &["https://app.example.com", "http://localhost:*", "null"],
        );
        for origin in [
            "https://app.example.com",
            "https://app.example.com:443",
            "http://localhost:3000",
            "null",
        ] {
            assert_eq!(
                check(&guard, Some("localhost"), Some(origin)),
                Ok(()),
                "{origin}"
            );
        }
        for origin in [
            "http://app.example.com",
            "https://app.example.com:8443",
            "https://localhost",
            "http://localhost:*",
        ] {
            assert_eq!(
                check(&guard, Some("localhost"), Some(origin)),
                Err(Refusal::Origin),
                "{origin}"
            );
        }
    }

    #[test]
    fn malformed_entries_are_configuration_errors() {
        for host in ["", "http://localhost", "a b", "user@host"] {
            assert!(Guard::new(&[host.to_owned()], &[]).is_err(), "{host}");
        }
        for origin in ["localhost", "https://app.example.com/path", "ftp://host"] {
            assert!(Guard::new(&[], &[origin.to_owned()]).is_err(), "{origin}");
        }
    }
}
