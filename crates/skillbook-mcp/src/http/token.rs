//! Bearer tokens, kept only as SHA-256 digests and compared in constant time.
//!
//! A server never stores a token, only its digest: a leaked configuration file lets no one in.
//! A request's token is hashed once, and the hash is compared with every digest of every
//! tenant, each comparison touching every byte and the loop never stopping early, so the time
//! an answer takes tells nothing about how close a guess came, nor which tenant exists.

use std::fmt;
use std::str::FromStr;

use sha2::{Digest, Sha256};

/// The SHA-256 digest of a bearer token, as a configuration file holds it:
/// `sha256:` and 64 hexadecimal digits (the prefix may be left out when parsing).
///
/// ```
/// use skillbook_mcp::http::TokenDigest;
///
/// let digest = TokenDigest::of("sbk_example");
/// let written = digest.to_string();
/// assert!(written.starts_with("sha256:") && written.len() == 7 + 64);
/// assert_eq!(written.parse::<TokenDigest>()?, digest);
/// assert!(digest.matches("sbk_example") && !digest.matches("sbk_other"));
/// # Ok::<(), skillbook_mcp::http::InvalidDigest>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TokenDigest([u8; 32]);

impl TokenDigest {
    /// The digest of `token`.
    #[must_use]
    pub fn of(token: &str) -> Self {
        TokenDigest(Sha256::digest(token.as_bytes()).into())
    }

    /// Whether `token` has this digest (compared in constant time).
    #[must_use]
    pub fn matches(&self, token: &str) -> bool {
        same(&self.0, &TokenDigest::of(token).0)
    }

    /// Whether two digests are the same (compared in constant time).
    pub(crate) fn same_as(&self, other: &TokenDigest) -> bool {
        same(&self.0, &other.0)
    }
}

/// Hides the digest from logs: knowing it is not enough to get in, but it need not be shown.
impl fmt::Debug for TokenDigest {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("TokenDigest(..)")
    }
}

impl fmt::Display for TokenDigest {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("sha256:")?;
        for byte in self.0 {
            write!(formatter, "{byte:02x}")?;
        }
        Ok(())
    }
}

/// Why a string is not a token digest. The message never repeats the string: it may be a
/// token pasted in by mistake, and messages reach logs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", describe(*.looks_like_token))]
pub struct InvalidDigest {
    looks_like_token: bool,
}

fn describe(looks_like_token: bool) -> &'static str {
    if looks_like_token {
        "a token is written where its digest belongs (keep the token secret): write the \
         `sha256:…` digest `skillbook token` printed next to it"
    } else {
        "a value is not a token digest: write `sha256:` and the 64 hexadecimal digits of the \
         token's SHA-256 hash, as `skillbook token` prints it"
    }
}

impl FromStr for TokenDigest {
    type Err = InvalidDigest;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let invalid = || InvalidDigest {
            looks_like_token: text.trim().starts_with("sbk_"),
        };
        let hex = text.trim();
        let hex = hex
            .get(..7)
            .filter(|prefix| prefix.eq_ignore_ascii_case("sha256:"))
            .map_or(hex, |_| &hex[7..]);
        if hex.len() != 64 || !hex.bytes().all(|byte| byte.is_ascii_hexdigit()) {
            return Err(invalid());
        }
        let mut digest = [0_u8; 32];
        for (byte, pair) in digest.iter_mut().zip(hex.as_bytes().chunks_exact(2)) {
            let pair = std::str::from_utf8(pair).map_err(|_| invalid())?;
            *byte = u8::from_str_radix(pair, 16).map_err(|_| invalid())?;
        }
        Ok(TokenDigest(digest))
    }
}

/// Which of `candidates` (each a list of digests) holds `hashed` (a token's digest), looking at
/// every digest of every candidate whatever matched before.
pub(crate) fn find<'a>(
    hashed: &TokenDigest,
    candidates: impl IntoIterator<Item = &'a [TokenDigest]>,
) -> Option<usize> {
    let mut found = None;
    for (position, digests) in candidates.into_iter().enumerate() {
        for digest in digests {
            if same(&digest.0, &hashed.0) {
                found = Some(position);
            }
        }
    }
    found
}

/// Compares two digests touching every byte; the result is hidden from the optimiser so the
/// loop cannot be cut short.
fn same(left: &[u8; 32], right: &[u8; 32]) -> bool {
    let mut difference = 0_u8;
    for (left, right) in left.iter().zip(right) {
        difference |= left ^ right;
    }
    std::hint::black_box(difference) == 0
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]
mod tests {
    use super::*;

    #[test]
    fn a_bad_digest_is_refused_without_repeating_it() {
        let token = "sbk_5a3549f4ca59bb661248b67d3652319dba94c200b6b6afdfe03321679280daf7";
        let error = token.parse::<TokenDigest>().unwrap_err().to_string();
        assert!(
            !error.contains(token) && !error.contains("5a3549"),
            "{error}"
        );
        assert!(
            error.contains("a token is written where its digest belongs"),
            "{error}"
        );
        let plus = format!("sha256:+f{}", "0".repeat(62));
        let error = plus.parse::<TokenDigest>().unwrap_err().to_string();
        assert!(!error.contains("+f"), "{error}");
        assert!(error.contains("is not a token digest"), "{error}");
    }

    #[test]
    fn a_digest_is_the_sha256_of_the_token() {
        // `printf %s secret | sha256sum`
        assert_eq!(
            TokenDigest::of("secret").to_string(),
            "sha256:2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b"
        );
    }

    #[test]
    fn digests_parse_with_or_without_the_prefix_in_either_case() {
        let digest = TokenDigest::of("secret");
        let hex = &digest.to_string()[7..];
        for text in [
            digest.to_string(),
            hex.to_owned(),
            hex.to_uppercase(),
            format!("SHA256:{hex}"),
        ] {
            assert_eq!(text.parse::<TokenDigest>().unwrap(), digest, "{text}");
        }
        for text in [
            "",
            "sha256:",
            "sha256:abc",
            &format!("{hex}0"),
            &hex.replace('b', "g"),
        ] {
            assert!(text.parse::<TokenDigest>().is_err(), "{text}");
        }
        assert!(format!("é{}", &hex[2..]).parse::<TokenDigest>().is_err());
    }

    #[test]
    fn a_token_finds_its_one_tenant() {
        let first = [TokenDigest::of("a1"), TokenDigest::of("a2")];
        let second = [TokenDigest::of("b1")];
        let tenants = || [first.as_slice(), second.as_slice(), &[]];
        let find = |token: &str| find(&TokenDigest::of(token), tenants());
        assert_eq!(find("a2"), Some(0));
        assert_eq!(find("b1"), Some(1));
        assert_eq!(find("b2"), None);
        assert_eq!(find(""), None);
        assert_eq!(format!("{:?}", first[0]), "TokenDigest(..)");
    }
}
